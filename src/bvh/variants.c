// SPDX-License-Identifier: MIT
// The hierarchy variants: each is a layer plan. Adding a variant is one plan function and one
// line in cd_bvh_variants; the build, refit and traversal do not change.
#include "cd_bvh.h"

#include <limits.h>
#include <string.h>

static cd_bvh_plan uniform(uint8_t kind) { return (cd_bvh_plan){1, {INT_MAX}, {kind}}; }

static cd_bvh_plan plan_sphere(const cd_bvh_variant_params *p) { return (void)p, uniform(CD_BV_SPHERE); }
static cd_bvh_plan plan_aabb(const cd_bvh_variant_params *p) { return (void)p, uniform(CD_BV_AABB); }
static cd_bvh_plan plan_obb(const cd_bvh_variant_params *p) { return (void)p, uniform(CD_BV_OBB); }
static cd_bvh_plan plan_obb_sphere(const cd_bvh_variant_params *p) { return (void)p, uniform(CD_BV_OBB_SPHERE); }

// HBVHS (Zhu et al. 2008): X sphere layers, then Y OBB+sphere layers, then OBBs to the leaves.
static cd_bvh_plan plan_hybrid(const cd_bvh_variant_params *p)
{
    CD_ASSERT(p->hybrid_x >= 0 && p->hybrid_y >= 0);
    return (cd_bvh_plan){3, {p->hybrid_x, p->hybrid_x + p->hybrid_y, INT_MAX}, {CD_BV_SPHERE, CD_BV_OBB_SPHERE, CD_BV_OBB}};
}

const cd_bvh_variant cd_bvh_variants[] = {
    {"sphere", "bounding spheres at every depth", plan_sphere},
    {"aabb", "axis-aligned boxes in the mesh frame (re-enclosed after rotation)", plan_aabb},
    {"obb", "RAPID-style OBB tree: covariance-fitted oriented boxes at every depth", plan_obb},
    {"obb_sphere", "OBB+sphere at every depth (sphere test first)", plan_obb_sphere},
    {"hybrid", "HBVHS: hybrid_x sphere layers, hybrid_y OBB+sphere layers, OBBs below", plan_hybrid},
    {NULL, NULL, NULL},
};

const cd_bvh_variant *cd_bvh_variant_find(const char *name)
{
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v)
        if (strcmp(v->name, name) == 0) return v;
    return NULL;
}

cd_bvh_variant_params cd_bvh_variant_params_default(void) { return (cd_bvh_variant_params){4, 4}; }

uint8_t cd_bvh_plan_kind(const cd_bvh_plan *plan, int depth)
{
    for (int k = 0; k < plan->count - 1; ++k)
        if (depth < plan->until[k]) return plan->kind[k];
    return plan->kind[plan->count - 1];
}
