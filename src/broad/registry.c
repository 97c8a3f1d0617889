// SPDX-License-Identifier: MIT
// The registry: adding a broad phase is one extern and one line below.
#include "cd_broad.h"
#include "cd_build_config.h"  // CD_HAVE_PEERS

#include <string.h>

extern const cd_broad_method cd_broad_naive;
extern const cd_broad_method cd_broad_octree, cd_broad_loose_octree;
extern const cd_broad_method cd_broad_sap, cd_broad_sap_insertion;
extern const cd_broad_method cd_broad_grid, cd_broad_grid_multi;
extern const cd_broad_method cd_broad_bvh, cd_broad_bvh_refit;
#ifdef CD_HAVE_PEERS  // src/peers/, meson feature `peers`
extern const cd_broad_method cd_broad_fcl_dynamic_tree, cd_broad_fcl_dynamic_tree_array, cd_broad_fcl_sap,
    cd_broad_fcl_ssap, cd_broad_fcl_interval_tree, cd_broad_bullet_dbvt, cd_broad_bullet_axis_sweep;
#endif

static const cd_broad_method *const registry[] = {
    &cd_broad_naive,
    &cd_broad_octree, &cd_broad_loose_octree,
    &cd_broad_sap, &cd_broad_sap_insertion,
    &cd_broad_grid, &cd_broad_grid_multi,
    &cd_broad_bvh, &cd_broad_bvh_refit,
#ifdef CD_HAVE_PEERS
    &cd_broad_fcl_dynamic_tree, &cd_broad_fcl_dynamic_tree_array, &cd_broad_fcl_sap, &cd_broad_fcl_ssap,
    &cd_broad_fcl_interval_tree, &cd_broad_bullet_dbvt, &cd_broad_bullet_axis_sweep,
#endif
};

const cd_broad_method *const *cd_broad_methods(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const cd_broad_method *cd_broad_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; ++i)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}
