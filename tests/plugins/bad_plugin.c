// SPDX-License-Identifier: MIT
// Plugins that cdlab must refuse, one per -D flag (tests/cli/plugins.sh): each is a working plugin
// but for one defect (PARAM_KEY_NAME: a parameter named like a config key, [method] threads;
// PLAN_BAD_END: a variant's plan with a kind no enum cd_bv_kind has at the end of its parameter's
// range); PLAN_GAP, whose variant's plan is wrong only inside that range (sphere_layers = 7), which
// loads and must be refused by the configs that ask for that value; PEER_UNTESTED, a good method
// that calls itself a peer and untested (cdlab's own such methods see fewer scenes in `cdlab
// verify`; a plugin's must see them all); and NARROW_CANDIDATES, a method that breaks only the candidate contract
// (tests/cli/verify.sh). The method borrows the callbacks of cdlab's own naive method, which the cdlab
// program exports (so a plugin that resolves cd_ symbols to the program is exercised too).
#include "cd_plugin.h"

extern const cd_broad_method cd_broad_naive;

#include <limits.h>

#ifdef NARROW_CANDIDATES
// Naive's candidates, but only the pairs whose cubes overlap: the pair set stays naive's while the
// candidate contract (every AABB-overlapping pair a candidate) breaks, which `cdlab verify` must
// report without promising that `cdlab run` shows different pair counts.
typedef struct narrowing {
    cd_pair_sink *out;
    const cd_scene *scene;
} narrowing;

static void narrow_flush(cd_pair_sink *sink)
{
    narrowing *n = sink->ctx;
    for (uint32_t k = 0; k < sink->count; ++k)
        if (cd_cube_pair_overlap(n->scene, sink->buf[k].a, sink->buf[k].b))
            cd_sink_push(n->out, sink->buf[k].a, sink->buf[k].b);
    sink->count = 0;
}

static void narrow_candidates(void *self, const cd_scene *s, cd_pair_sink *out, cd_broad_stats *st)
{
    cd_pair buf[256];
    narrowing n = {out, s};
    cd_pair_sink sink = {buf, 0, 256, narrow_flush, &n};
    cd_broad_naive.candidates(self, s, &sink, st);
    narrow_flush(&sink);
}
#endif

#ifndef NO_ENTRY
static cd_broad_method method;
static const cd_broad_method *const methods[] = {&method};

// A hierarchy variant with a parameter of its own: spheres in the top sphere_layers layers, OBBs below.
static cd_bvh_plan plan_spheres_then_obb(const cd_params *p)
{
    int layers = (int)cd_params_num(p, "sphere_layers");
    uint8_t top = CD_BV_SPHERE;
#ifdef PLAN_BAD_END
    if (layers == 32) top = 9;
#endif
#ifdef PLAN_GAP
    if (layers == 7) top = 7;
#endif
    return (cd_bvh_plan){2, {layers, INT_MAX}, {top, CD_BV_OBB}};
}
static const cd_param_spec variant_params[] = {
    {"sphere_layers", CD_PARAM_INT, "2", 0, 32, NULL, "sphere layers at the top; OBBs below"},
};
static const cd_bvh_variant variants[] = {
    {"plugin_sphere_obb", "test plugin: spheres in the top sphere_layers layers, OBBs below", plan_spheres_then_obb,
     variant_params, 1},
};

#ifdef PARAM_KEY_NAME
// A second [method] threads: the config's key and a column of the CSVs already have that name.
static const cd_param_spec key_named[] = {
    {"threads", CD_PARAM_INT, "1", 1, 4, NULL, "a parameter named like the key"},
};
#endif

CD_PLUGIN_EXPORT const cd_plugin *cdlab_plugin_v1(void)
{
    method = cd_broad_naive;
    method.name = "plugin_naive";
#ifdef PARAM_KEY_NAME
    method.params = key_named;
    method.param_count = 1;
#endif
#ifdef PEER_UNTESTED
    method.description = "peer: says so, and untested";
    method.untested = 1;
#endif
#ifdef CLASH_BUILTIN
    method.name = "grid";  // cdlab's own
#endif
#ifdef NULL_CALLBACK
    method.candidates = NULL;
#endif
#ifdef NARROW_CANDIDATES
    method.name = "plugin_narrow_candidates";
    method.candidates = narrow_candidates;
    method.candidates_part = NULL;
#endif
    static cd_plugin p = {CD_PLUGIN_VERSION_FIELDS, .name = "bad",        .methods = methods,
                          .method_count = 1,        .variants = variants, .variant_count = 1};
#ifdef WRONG_ABI
    p.abi = 2;  // a plugin built before methods declared their parameters
#endif
    return &p;
}
#else
// Exports something, but not the entry point.
CD_PLUGIN_EXPORT int cdlab_plugin_v0(void);
CD_PLUGIN_EXPORT int cdlab_plugin_v0(void) { return 0; }
#endif
