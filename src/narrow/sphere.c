// SPDX-License-Identifier: MIT
#include "cd_narrow.h"

int cd_sphere_sphere_overlap(const cd_sphere *a, const cd_sphere *b)
{
    double r = a->r + b->r;
    return cd_v3_len2(cd_v3_sub(a->c, b->c)) <= r * r;
}

int cd_sphere_obb_overlap(const cd_sphere *s, const cd_obb *b)
{
    // Closest point of the box in its own frame: clamp the centre's local coordinates.
    cd_vec3 d = cd_m3_tmul_v(b->axes, cd_v3_sub(s->c, b->c));
    double h[3] = {b->half.x, b->half.y, b->half.z};
    double dist2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double v = cd_v3_get(d, i);
        double excess = fabs(v) - h[i];
        if (excess > 0.0) dist2 += excess * excess;
    }
    return dist2 <= s->r * s->r;
}
