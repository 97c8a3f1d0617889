// SPDX-License-Identifier: MIT
// Point-in-mesh for solid queries by the generalised winding number: unlike ray parity it has no
// special cases for rays through edges or vertices, and it is exactly the sum of per-triangle
// solid angles, so a closed mesh gives 1 inside and 0 outside up to rounding.
#include "cd_bvh.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

double cd_bvh_winding_number(const cd_mesh *m, cd_vec3 p)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < m->ntris; ++t) {
        cd_vec3 a = cd_v3_sub(m->verts[m->tris[t][0]], p);
        cd_vec3 b = cd_v3_sub(m->verts[m->tris[t][1]], p);
        cd_vec3 c = cd_v3_sub(m->verts[m->tris[t][2]], p);
        double la = cd_v3_len(a), lb = cd_v3_len(b), lc = cd_v3_len(c);
        // Van Oosterom and Strackee: tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|).
        double num = cd_v3_dot(a, cd_v3_cross(b, c));
        double den = la * lb * lc + cd_v3_dot(a, b) * lc + cd_v3_dot(b, c) * la + cd_v3_dot(c, a) * lb;
        sum += 2.0 * atan2(num, den);
    }
    return sum / (4.0 * M_PI);
}
