// SPDX-License-Identifier: MIT
// OBB–OBB separating-axis test after Gottschalk (RAPID) and Ericson, RTCD §4.4.1. Everything is
// expressed in a's frame: R = aᵀ·b, t = aᵀ·(c_b − c_a). |R| gets CD_SAT_EPSILON so that the nine
// cross-product axes, which vanish for parallel edges, can never separate on rounding noise.
#include "cd_narrow.h"

#define CD_SAT_W 2
#include "cd_sat_lanes.h"

int cd_obb_obb_overlap_axis(const cd_obb *a, const cd_obb *b, int *axis)
{
    double R[3][3], AR[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            R[i][j] = cd_v3_dot(a->axes.col[i], b->axes.col[j]);
            AR[i][j] = fabs(R[i][j]) + CD_SAT_EPSILON;
        }
    cd_vec3 d = cd_v3_sub(b->c, a->c);
    double t[3] = {cd_v3_dot(d, a->axes.col[0]), cd_v3_dot(d, a->axes.col[1]), cd_v3_dot(d, a->axes.col[2])};
    double ea[3] = {a->half.x, a->half.y, a->half.z};
    double eb[3] = {b->half.x, b->half.y, b->half.z};
    double ra, rb;

    // Faces of a.
    for (int i = 0; i < 3; ++i) {
        ra = ea[i];
        rb = eb[0] * AR[i][0] + eb[1] * AR[i][1] + eb[2] * AR[i][2];
        if (fabs(t[i]) > ra + rb) return *axis = i, 0;
    }
    // Faces of b.
    for (int j = 0; j < 3; ++j) {
        ra = ea[0] * AR[0][j] + ea[1] * AR[1][j] + ea[2] * AR[2][j];
        rb = eb[j];
        double tj = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        if (fabs(tj) > ra + rb) return *axis = 3 + j, 0;
    }
    // Edge cross products a_i × b_j; i1, i2 (j1, j2) are the other two indices in cyclic order.
    for (int i = 0; i < 3; ++i) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            ra = ea[i1] * AR[i2][j] + ea[i2] * AR[i1][j];
            rb = eb[j1] * AR[i][j2] + eb[j2] * AR[i][j1];
            double tl = t[i2] * R[i1][j] - t[i1] * R[i2][j];
            if (fabs(tl) > ra + rb) return *axis = 6 + 3 * i + j, 0;
        }
    }
    *axis = -1;
    return 1;
}

int cd_obb_obb_overlap(const cd_obb *a, const cd_obb *b)
{
    int axis;
    return cd_obb_obb_overlap_axis(a, b, &axis);
}

// The two pairs in the lanes of the shared lane test's boxes.
static inline void lanes_of(const cd_obb *a0, const cd_obb *b0, const cd_obb *a1, const cd_obb *b1, cd_obb_lanes2 *a,
                            cd_obb_lanes2 *b)
{
#define CD_L(p, f) ((cd_lanes2){p##0->f, p##1->f})
    for (int i = 0; i < 3; ++i) {
        a->ax[i][0] = CD_L(a, axes.col[i].x), a->ax[i][1] = CD_L(a, axes.col[i].y),
        a->ax[i][2] = CD_L(a, axes.col[i].z);
        b->ax[i][0] = CD_L(b, axes.col[i].x), b->ax[i][1] = CD_L(b, axes.col[i].y),
        b->ax[i][2] = CD_L(b, axes.col[i].z);
    }
    a->c[0] = CD_L(a, c.x), a->c[1] = CD_L(a, c.y), a->c[2] = CD_L(a, c.z);
    b->c[0] = CD_L(b, c.x), b->c[1] = CD_L(b, c.y), b->c[2] = CD_L(b, c.z);
    a->e[0] = CD_L(a, half.x), a->e[1] = CD_L(a, half.y), a->e[2] = CD_L(a, half.z);
    b->e[0] = CD_L(b, half.x), b->e[1] = CD_L(b, half.y), b->e[2] = CD_L(b, half.z);
#undef CD_L
}

// The two pairs in the lanes of the shared lane test (each lane cd_obb_obb_overlap's expressions).
unsigned cd_obb_obb_overlap2(const cd_obb *a0, const cd_obb *b0, const cd_obb *a1, const cd_obb *b1)
{
    cd_obb_lanes2 a, b;
    lanes_of(a0, b0, a1, b1, &a, &b);
    return cd_sat2(&a, &b);
}

#if CD_X86_SIMD
#define CD_SAT_WIDE_TARGET "avx2"
#include "cd_sat_wide.h"

__attribute__((target("avx2"))) unsigned cd_obb_obb_overlap2_wide(const cd_obb *a0, const cd_obb *b0, const cd_obb *a1,
                                                                  const cd_obb *b1)
{
    cd_obb_lanes2 a, b;
    lanes_of(a0, b0, a1, b1, &a, &b);
    return cd_sat2_wide(&a, &b);
}
#endif
