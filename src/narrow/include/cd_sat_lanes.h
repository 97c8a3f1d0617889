// SPDX-License-Identifier: MIT
// The 15-axis separating-axis test on two box pairs at once, pair k in SSE2 lane k: the arithmetic
// shared by the cube narrow step (cd_obb_obb_overlap2) and the mesh hierarchies' paired OBB node
// test. Each lane evaluates cd_obb_obb_overlap's expressions in its order, so each answer has
// that test's bits. Private to the modules that include it; SSE2 only.
#ifndef CD_SAT_LANES_H
#define CD_SAT_LANES_H

#ifdef __SSE2__
#include "cd_narrow.h"

#include <emmintrin.h>

/// ea, eb: half-extents of a and b; ax[i][c], bx[j][c]: component c of a's axis i and b's axis j;
/// d = c_b − c_a. Bit k of the result is set when pair k overlaps. Both lanes compute every axis
/// (the early outs fire only when both have separated): half of the tested pairs overlap and
/// pass all 15 axes, so the test is mostly arithmetic, which two lanes halve.
/// (ax and bx are read only; not const-qualified because C17 would not convert a caller's
/// __m128d[3][3] to a pointer to const rows.)
static inline unsigned cd_sat_lanes(const __m128d ea[3], const __m128d eb[3], __m128d ax[3][3], __m128d bx[3][3],
                                    const __m128d d[3])
{
    const __m128d sign = _mm_set1_pd(-0.0), eps = _mm_set1_pd(CD_SAT_EPSILON);
    __m128d R[3][3], AR[3][3], t[3], sep = _mm_setzero_pd();
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {  // cd_v3_dot(a_i, b_j)
            R[i][j] = _mm_add_pd(_mm_add_pd(_mm_mul_pd(ax[i][0], bx[j][0]), _mm_mul_pd(ax[i][1], bx[j][1])),
                                 _mm_mul_pd(ax[i][2], bx[j][2]));
            AR[i][j] = _mm_add_pd(_mm_andnot_pd(sign, R[i][j]), eps);
        }
        t[i] = _mm_add_pd(_mm_add_pd(_mm_mul_pd(d[0], ax[i][0]), _mm_mul_pd(d[1], ax[i][1])), _mm_mul_pd(d[2], ax[i][2]));
    }
    for (int i = 0; i < 3; ++i) {  // faces of a
        __m128d rb = _mm_add_pd(_mm_add_pd(_mm_mul_pd(eb[0], AR[i][0]), _mm_mul_pd(eb[1], AR[i][1])),
                                _mm_mul_pd(eb[2], AR[i][2]));
        sep = _mm_or_pd(sep, _mm_cmpgt_pd(_mm_andnot_pd(sign, t[i]), _mm_add_pd(ea[i], rb)));
    }
    if (_mm_movemask_pd(sep) == 3) return 0;
    for (int j = 0; j < 3; ++j) {  // faces of b
        __m128d ra = _mm_add_pd(_mm_add_pd(_mm_mul_pd(ea[0], AR[0][j]), _mm_mul_pd(ea[1], AR[1][j])),
                                _mm_mul_pd(ea[2], AR[2][j]));
        __m128d tj = _mm_add_pd(_mm_add_pd(_mm_mul_pd(t[0], R[0][j]), _mm_mul_pd(t[1], R[1][j])), _mm_mul_pd(t[2], R[2][j]));
        sep = _mm_or_pd(sep, _mm_cmpgt_pd(_mm_andnot_pd(sign, tj), _mm_add_pd(ra, eb[j])));
    }
    if (_mm_movemask_pd(sep) == 3) return 0;
    for (int i = 0; i < 3; ++i) {  // edge cross products a_i × b_j
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            __m128d ra = _mm_add_pd(_mm_mul_pd(ea[i1], AR[i2][j]), _mm_mul_pd(ea[i2], AR[i1][j]));
            __m128d rb = _mm_add_pd(_mm_mul_pd(eb[j1], AR[i][j2]), _mm_mul_pd(eb[j2], AR[i][j1]));
            __m128d tl = _mm_sub_pd(_mm_mul_pd(t[i2], R[i1][j]), _mm_mul_pd(t[i1], R[i2][j]));
            sep = _mm_or_pd(sep, _mm_cmpgt_pd(_mm_andnot_pd(sign, tl), _mm_add_pd(ra, rb)));
        }
    }
    return (unsigned)~_mm_movemask_pd(sep) & 3u;
}
#endif

#endif
