// SPDX-License-Identifier: MIT
// Plugins that cdlab must refuse, one per -D flag (tests/cli/plugins.sh): each is a working plugin
// but for one defect. The method borrows the callbacks of cdlab's own naive method, which the cdlab
// program exports (so a plugin that resolves cd_ symbols to the program is exercised too).
#include "cd_plugin.h"

extern const cd_broad_method cd_broad_naive;

#include <limits.h>

#ifndef NO_ENTRY
static cd_broad_method method;
static const cd_broad_method *const methods[] = {&method};

// A hierarchy variant: spheres in the top two layers, OBBs below.
static cd_bvh_plan plan_spheres_then_obb(const cd_bvh_variant_params *p)
{
    (void)p;
    return (cd_bvh_plan){2, {2, INT_MAX}, {CD_BV_SPHERE, CD_BV_OBB}};
}
static const cd_bvh_variant variants[] = {
    {"plugin_sphere_obb", "test plugin: spheres in the top two layers, OBBs below", plan_spheres_then_obb},
};

CD_PLUGIN_EXPORT const cd_plugin *cdlab_plugin_v1(void)
{
    method = cd_broad_naive;
    method.name = "plugin_naive";
#ifdef CLASH_BUILTIN
    method.name = "grid";  // cdlab's own
#endif
#ifdef NULL_CALLBACK
    method.candidates = NULL;
#endif
    static cd_plugin p = {CD_PLUGIN_VERSION_FIELDS, .name = "bad", .methods = methods, .method_count = 1,
                          .variants = variants, .variant_count = 1};
#ifdef WRONG_ABI
    p.abi = CD_PLUGIN_ABI + 1;
#endif
    return &p;
}
#else
// Exports something, but not the entry point.
CD_PLUGIN_EXPORT int cdlab_plugin_v0(void);
CD_PLUGIN_EXPORT int cdlab_plugin_v0(void) { return 0; }
#endif
