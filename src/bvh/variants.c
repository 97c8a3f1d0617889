// SPDX-License-Identifier: MIT
// The hierarchy variants: each is a layer plan. Adding a variant is one plan function and one
// line in cd_bvh_variants; the build, refit and traversal do not change.
#include "cd_bvh.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cd_bvh_plan uniform(uint8_t kind) { return (cd_bvh_plan){1, {INT_MAX}, {kind}}; }

static cd_bvh_plan plan_sphere(const cd_params *p) { return (void)p, uniform(CD_BV_SPHERE); }
static cd_bvh_plan plan_aabb(const cd_params *p) { return (void)p, uniform(CD_BV_AABB); }
static cd_bvh_plan plan_obb(const cd_params *p) { return (void)p, uniform(CD_BV_OBB); }
static cd_bvh_plan plan_obb_sphere(const cd_params *p) { return (void)p, uniform(CD_BV_OBB_SPHERE); }

// HBVHS (Zhu et al. 2008): X sphere layers, then Y OBB+sphere layers, then OBBs to the leaves.
static cd_bvh_plan plan_hybrid(const cd_params *p)
{
    int x = (int)cd_params_num(p, "hybrid_x"), y = (int)cd_params_num(p, "hybrid_y");
    CD_ASSERT(x >= 0 && y >= 0);
    return (cd_bvh_plan){3, {x, x + y, INT_MAX}, {CD_BV_SPHERE, CD_BV_OBB_SPHERE, CD_BV_OBB}};
}

static const cd_param_spec hybrid_params[] = {
    {"hybrid_x", CD_PARAM_INT, "4", 0, 64, NULL, "sphere layers at the top (layer X)"},
    {"hybrid_y", CD_PARAM_INT, "4", 0, 64, NULL, "OBB+sphere layers below X (layer Y); OBBs (layer Z) below"},
};

const cd_bvh_variant cd_bvh_variants[] = {
    {"sphere", "bounding spheres at every depth", plan_sphere, NULL, 0},
    {"aabb", "axis-aligned boxes in the mesh frame (re-enclosed after rotation)", plan_aabb, NULL, 0},
    {"obb", "RAPID-style OBB tree: covariance-fitted oriented boxes at every depth", plan_obb, NULL, 0},
    {"obb_sphere", "OBB+sphere at every depth (sphere test first)", plan_obb_sphere, NULL, 0},
    {"hybrid", "HBVHS: hybrid_x sphere layers, hybrid_y OBB+sphere layers, OBBs below", plan_hybrid, hybrid_params, 2},
    {NULL, NULL, NULL, NULL, 0},
};

const cd_bvh_variant *cd_bvh_variant_find(const char *name)
{
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v)
        if (strcmp(v->name, name) == 0) return v;
    return NULL;
}

cd_params cd_bvh_variant_params_default(const cd_bvh_variant *v)
{
    return cd_params_defaults(v->params, v->param_count);
}

cd_bvh_plan cd_bvh_variant_plan(const cd_bvh_variant *v, const cd_param_settings *set)
{
    cd_params p = cd_bvh_variant_params_default(v);
    char why[200];
    int rc = cd_params_apply(&p, set, why, sizeof why);
    CD_ASSERT(rc == 0);
    return v->plan(&p);
}

int cd_bvh_plan_check(const cd_bvh_plan *plan, char *why, size_t len)
{
    if (plan->count < 1 || plan->count > CD_BVH_PLAN_MAX)
        return snprintf(why, len, "%d segments: expected 1 to %d", plan->count, CD_BVH_PLAN_MAX), -1;
    for (int k = 0; k < plan->count; ++k) {
        unsigned kind = plan->kind[k];
        if (kind != CD_BV_SPHERE && kind != CD_BV_OBB && kind != CD_BV_OBB_SPHERE && kind != CD_BV_AABB)
            return snprintf(why, len,
                            "segment %d has kind %u: expected an enum cd_bv_kind (1 sphere, 2 OBB, 3 OBB+sphere, "
                            "4 AABB)",
                            k, kind),
                   -1;
        // The last segment runs to any depth: its until is not read.
        if (k > 0 && k < plan->count - 1 && plan->until[k] < plan->until[k - 1])
            return snprintf(why, len, "segment %d ends at depth %d, before segment %d (%d): expected depths increasing",
                            k, plan->until[k], k - 1, plan->until[k - 1]),
                   -1;
    }
    return 0;
}

size_t cd_bvh_variant_probes(const cd_bvh_variant *v, cd_param_settings *set, size_t max)
{
    size_t n = 0;
    if (max) set[n++] = (cd_param_settings){0};
    for (size_t i = 0; i < v->param_count; ++i) {
        const cd_param_spec *s = &v->params[i];
        char def[64];
        snprintf(def, sizeof def, "%s", s->def);
        if (s->type == CD_PARAM_WORD) {
            for (const char *const *w = s->words; *w && n < max; ++w)
                if (strcmp(*w, def) != 0)
                    set[n] = (cd_param_settings){0}, cd_param_settings_put(&set[n++], s->name, "%s", *w);
            continue;
        }
        double ends[2] = {s->min, s->max};
        for (int e = 0; e < 2 && n < max; ++e) {
            if (ends[e] == strtod(def, NULL) || (e == 1 && s->max == s->min)) continue;  // the defaults cover it
            set[n] = (cd_param_settings){0};
            cd_param_settings_put(&set[n++], s->name, "%.17g", ends[e]);
        }
    }
    return n;
}

uint8_t cd_bvh_plan_kind(const cd_bvh_plan *plan, int depth)
{
    for (int k = 0; k < plan->count - 1; ++k)
        if (depth < plan->until[k]) return plan->kind[k];
    return plan->kind[plan->count - 1];
}
