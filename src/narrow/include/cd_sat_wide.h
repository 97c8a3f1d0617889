// SPDX-License-Identifier: MIT
// cd_sat2 (cd_sat_lanes.h, two box pairs in the two lanes of 128-bit registers) in fewer
// arithmetic instructions, for code built with AVX or with CD_SAT_WIDE_TARGET (a target
// attribute string such as "avx2") defined before the inclusion. Include cd_sat_lanes.h with
// CD_SAT_W 2 first. x86-64 only.
//
// Why: cd_sat2 spends 123 multiplications and 99 additions per call, one 128-bit instruction
// per entry of R and |R| + ε and per axis; on a core with two vector ports for them that is 111
// cycles per pair of tests before anything else. Here a row of R (and of |R| + ε) holds its
// columns 0 and 1 side by side in one 256-bit register (pair 0 and pair 1 of column 0, then of
// column 1) and column 2 in a 128-bit one, so each row-wise step (R, |R| + ε, b's face axes, the
// three edge axes of one axis of a) takes two instructions instead of three: 90 multiplications
// and 73 additions, for about 34 more lane moves (inserting and extracting 128-bit halves).
// a's face axes and t stay in 128-bit registers.
//
// Same bits: each lane evaluates cd_sat2's expressions on the same operands with the same
// association; only factors and summands are commuted, which IEEE arithmetic keeps exact. The
// early outs fall where cd_sat2's do, and an early out cannot change an answer anyway (it fires
// only when every lane has separated). tests/test_narrow.c checks the answers lane by lane
// against cd_obb_obb_overlap (cd_obb_obb_overlap2_wide) on pairs in the rounding band.
#ifndef CD_SAT_WIDE_H
#define CD_SAT_WIDE_H

#include <immintrin.h>

#ifdef CD_SAT_WIDE_TARGET
#define CD_SAT_WIDE_INLINE __attribute__((always_inline, target(CD_SAT_WIDE_TARGET))) static inline
#else
#define CD_SAT_WIDE_INLINE __attribute__((always_inline)) static inline
#endif

typedef double cd_lanes4w __attribute__((vector_size(32)));
typedef int64_t cd_lmask4w __attribute__((vector_size(32)));

// Macros, not functions: a 256-bit vector passed by value between functions of different targets
// would change the ABI.
#define CD_W4(lo, hi) ((cd_lanes4w)_mm256_set_m128d((__m128d)(hi), (__m128d)(lo)))
#define CD_WLO(y) ((cd_lanes2)_mm256_castpd256_pd128((__m256d)(y)))
#define CD_WHI(y) ((cd_lanes2)_mm256_extractf128_pd((__m256d)(y), 1))
#define CD_WABS2(x) ((cd_lanes2)((cd_lmask2)(x) & ~((cd_lmask2){0} + INT64_MIN)))
#define CD_WABS4(x) ((cd_lanes4w)((cd_lmask4w)(x) & ~((cd_lmask4w){0} + INT64_MIN)))
// A four-lane separation mask folded onto the two pairs, or-ed into a two-lane one.
#define CD_WFOLD(s2, s4) ((s2) | (cd_lmask2)CD_WLO((cd_lanes4w)(s4)) | (cd_lmask2)CD_WHI((cd_lanes4w)(s4)))
#define CD_WALL(m) (_mm_movemask_pd((__m128d)(m)) == 3)
#define CD_WNONE_BITS(m) ((unsigned)~_mm_movemask_pd((__m128d)(m)) & 3u)

/// cd_sat2(pa, pb): bit k set when the boxes in lane k overlap, with cd_sat2's bits.
CD_SAT_WIDE_INLINE unsigned cd_sat2_wide(const cd_obb_lanes2 *pa, const cd_obb_lanes2 *pb)
{
    const cd_obb_lanes2 a = *pa, b = *pb;
    const cd_lanes2 eps2 = (cd_lanes2){0} + CD_SAT_EPSILON;
    const cd_lanes4w eps4 = (cd_lanes4w){0} + CD_SAT_EPSILON;
    cd_lanes4w RY[3], ARY[3], ea[3], tt[3], b01[3];  // Y: columns 0 and 1 of a row
    cd_lanes2 RZ[3], ARZ[3], t[3], d[3];             // Z: column 2
    for (int k = 0; k < 3; ++k) b01[k] = CD_W4(b.ax[0][k], b.ax[1][k]), d[k] = b.c[k] - a.c[k];
    for (int i = 0; i < 3; ++i) {
        const cd_lanes4w a0 = CD_W4(a.ax[i][0], a.ax[i][0]), a1 = CD_W4(a.ax[i][1], a.ax[i][1]),
                         a2 = CD_W4(a.ax[i][2], a.ax[i][2]);
        RY[i] = a0 * b01[0] + a1 * b01[1] + a2 * b01[2];
        RZ[i] = a.ax[i][0] * b.ax[2][0] + a.ax[i][1] * b.ax[2][1] + a.ax[i][2] * b.ax[2][2];
        ARY[i] = CD_WABS4(RY[i]) + eps4;
        ARZ[i] = CD_WABS2(RZ[i]) + eps2;
        t[i] = d[0] * a.ax[i][0] + d[1] * a.ax[i][1] + d[2] * a.ax[i][2];
    }
    cd_lmask2 sep = {0};
    for (int i = 0; i < 3; ++i)  // faces of a
        sep |= CD_WABS2(t[i]) > a.e[i] + (b.e[0] * CD_WLO(ARY[i]) + b.e[1] * CD_WHI(ARY[i]) + b.e[2] * ARZ[i]);
    if (CD_WALL(sep)) return 0;
    for (int k = 0; k < 3; ++k) ea[k] = CD_W4(a.e[k], a.e[k]), tt[k] = CD_W4(t[k], t[k]);
    {  // faces of b
        const cd_lanes4w ra = ea[0] * ARY[0] + ea[1] * ARY[1] + ea[2] * ARY[2];
        const cd_lanes4w tj = tt[0] * RY[0] + tt[1] * RY[1] + tt[2] * RY[2];
        const cd_lmask4w s4 = CD_WABS4(tj) > ra + CD_W4(b.e[0], b.e[1]);
        const cd_lanes2 ra2 = a.e[0] * ARZ[0] + a.e[1] * ARZ[1] + a.e[2] * ARZ[2];
        const cd_lanes2 tj2 = t[0] * RZ[0] + t[1] * RZ[1] + t[2] * RZ[2];
        sep = CD_WFOLD(sep | (CD_WABS2(tj2) > ra2 + b.e[2]), s4);
    }
    if (CD_WALL(sep)) return 0;
    // Edge axes a_i × b_j. For columns 0 and 1, b.e[j1] and b.e[j2] are (e1, e2) and (e2, e0) and
    // AR[i][j2], AR[i][j1] are row i's columns (2, 0) and (1, 2); for column 2, e0 and e1, columns
    // 1 and 0.
    const cd_lanes4w eb_j1 = CD_W4(b.e[1], b.e[2]), eb_j2 = CD_W4(b.e[2], b.e[0]);
    cd_lmask4w s4 = {0};
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        const cd_lanes4w ra = ea[i1] * ARY[i2] + ea[i2] * ARY[i1];
        const cd_lanes4w rb = eb_j1 * CD_W4(ARZ[i], CD_WLO(ARY[i])) + eb_j2 * CD_W4(CD_WHI(ARY[i]), ARZ[i]);
        const cd_lanes4w tl = tt[i2] * RY[i1] - tt[i1] * RY[i2];
        s4 |= CD_WABS4(tl) > ra + rb;
        const cd_lanes2 ra2 = a.e[i1] * ARZ[i2] + a.e[i2] * ARZ[i1];
        const cd_lanes2 rb2 = b.e[0] * CD_WHI(ARY[i]) + b.e[1] * CD_WLO(ARY[i]);
        const cd_lanes2 tl2 = t[i2] * RZ[i1] - t[i1] * RZ[i2];
        sep |= CD_WABS2(tl2) > ra2 + rb2;
    }
    return CD_WNONE_BITS(CD_WFOLD(sep, s4));
}

#undef CD_WNONE_BITS
#undef CD_WALL
#undef CD_WFOLD
#undef CD_WABS4
#undef CD_WABS2
#undef CD_WHI
#undef CD_WLO
#undef CD_W4
#undef CD_SAT_WIDE_INLINE

#endif
