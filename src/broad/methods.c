// SPDX-License-Identifier: MIT
// cdlab's own broad phases: adding one is a file that defines its cd_broad_method and one line
// below. The registry module joins this list with the peers'.
#include "cd_broad.h"

extern const cd_broad_method cd_broad_naive, cd_broad_all;
extern const cd_broad_method cd_broad_octree, cd_broad_loose_octree;
extern const cd_broad_method cd_broad_sap, cd_broad_sap_insertion, cd_broad_sap_incremental;
extern const cd_broad_method cd_broad_grid, cd_broad_grid_multi;
extern const cd_broad_method cd_broad_lbvh, cd_broad_lbvh_refit;
extern const cd_broad_method cd_broad_dtree;

static const cd_broad_method *const builtin[] = {
    &cd_broad_naive,      &cd_broad_all,           &cd_broad_octree,          &cd_broad_loose_octree,
    &cd_broad_sap,        &cd_broad_sap_insertion, &cd_broad_sap_incremental, &cd_broad_grid,
    &cd_broad_grid_multi, &cd_broad_lbvh,          &cd_broad_lbvh_refit,      &cd_broad_dtree,
};

const cd_broad_method *const *cd_broad_builtin_methods(size_t *count)
{
    *count = sizeof builtin / sizeof builtin[0];
    return builtin;
}
