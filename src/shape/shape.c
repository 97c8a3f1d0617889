// SPDX-License-Identifier: MIT
#include "cd_shape.h"

#include <float.h>

cd_obb cd_obb_from_pose(cd_vec3 c, cd_quat q, cd_vec3 half) { return (cd_obb){c, cd_q_to_m3(q), half}; }

// The radius r = Σ|a_j[i]|·h_j is computed with at most 5 roundings, each at most a relative
// half-ulp of the running sum, so (1 + 8·DBL_EPSILON)·r bounds the exact value; the subtraction
// and addition with the centre are then rounded once more each, covered by one nextafter step.
// The extra 4·DBL_EPSILON·|c| covers the corners as cd_obb_corners rounds them: its three
// additions round at the ulp of the running sum (up to |c| + r), which under cancellation is
// larger than the ulp of the bound itself (tests/test_shape.c found corners one ulp outside).
cd_aabb cd_obb_aabb(const cd_obb *b)
{
    double r[3];
    for (int i = 0; i < 3; ++i)
        r[i] = cd_obb_world_radius(b, i) * (1.0 + 8.0 * DBL_EPSILON) + 4.0 * DBL_EPSILON * fabs(cd_v3_get(b->c, i));
    cd_aabb a;
    a.lo = cd_v3(cd_round_down(b->c.x - r[0]), cd_round_down(b->c.y - r[1]), cd_round_down(b->c.z - r[2]));
    a.hi = cd_v3(cd_round_up(b->c.x + r[0]), cd_round_up(b->c.y + r[1]), cd_round_up(b->c.z + r[2]));
    return a;
}

cd_aabb cd_aabb_of_points(const cd_vec3 *p, size_t n)
{
    CD_ASSERT(n > 0);
    cd_aabb a = {p[0], p[0]};
    for (size_t i = 1; i < n; ++i) {
        a.lo = cd_v3_min(a.lo, p[i]);
        a.hi = cd_v3_max(a.hi, p[i]);
    }
    return a;
}

cd_sphere cd_aabb_bounding_sphere(cd_aabb a)
{
    cd_vec3 c = cd_v3_scale(cd_v3_add(a.lo, a.hi), 0.5);
    // Distance to the farthest corner; relative margin covers rounding of the centre and sqrt.
    cd_vec3 d = cd_v3_max(cd_v3_abs(cd_v3_sub(a.hi, c)), cd_v3_abs(cd_v3_sub(c, a.lo)));
    return (cd_sphere){c, cd_round_up(cd_v3_len(d) * (1.0 + 16.0 * DBL_EPSILON))};
}

cd_sphere cd_obb_bounding_sphere(const cd_obb *b)
{
    return (cd_sphere){b->c, cd_round_up(cd_v3_len(b->half) * (1.0 + 16.0 * DBL_EPSILON))};
}

void cd_obb_corners(const cd_obb *b, cd_vec3 out[8])
{
    for (int k = 0; k < 8; ++k) {
        cd_vec3 p = b->c;
        p = cd_v3_add(p, cd_v3_scale(b->axes.col[0], (k & 1) ? b->half.x : -b->half.x));
        p = cd_v3_add(p, cd_v3_scale(b->axes.col[1], (k & 2) ? b->half.y : -b->half.y));
        p = cd_v3_add(p, cd_v3_scale(b->axes.col[2], (k & 4) ? b->half.z : -b->half.z));
        out[k] = p;
    }
}
