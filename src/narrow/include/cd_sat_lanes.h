// SPDX-License-Identifier: MIT
// The 15-axis separating-axis test on CD_SAT_W box pairs at once, pair k in lane k of GCC's generic
// vectors of doubles: the one body behind cd_obb_obb_overlap2 (two lanes), the baseline build of
// the mesh hierarchies' paired OBB node test (two lanes; cd_sat_wide.h is its AVX-512 build's
// form) and the batched tests on pose records (cd_posef_pairs_overlap: four lanes, or eight in
// AVX-512 registers).
//
// Each lane evaluates cd_quat_axes's and cd_obb_obb_overlap_axis's expressions in their order
// (-ffp-contract=off keeps FMA out of every build), so each answer has the scalar test's bits;
// tests/test_narrow.c checks that lane by lane for every build the CPU runs.
//
// A template: define CD_SAT_W (2, 4 or 8) before each inclusion, and CD_SAT_TARGET (a target
// attribute string) where the vectors are wider than the baseline's registers — GCC lowers
// generic vectors by the function's own target, so without it an always-inlined eight-lane body
// would be split into scalar compares. It defines, for W = CD_SAT_W: cd_lanesW (W doubles),
// cd_lmaskW (W lane masks), cd_obb_lanesW (centres, axes as rows of components, half-extents of W
// boxes), cd_obb_lanesW_axes (the axes from quaternions) and cd_satW (bit k set when the boxes in
// lane k overlap).
#ifndef CD_SAT_W
#error "define CD_SAT_W before including cd_sat_lanes.h"
#endif

#include "cd_narrow.h"

#ifdef CD_SAT_TARGET
#define CD_SAT_INLINE __attribute__((always_inline, target(CD_SAT_TARGET))) static inline
#else
#define CD_SAT_INLINE __attribute__((always_inline)) static inline
#endif
#define CD_SAT_CAT2(a, b) a##b
#define CD_SAT_CAT(a, b) CD_SAT_CAT2(a, b)
#define CD_SAT_LANES CD_SAT_CAT(cd_lanes, CD_SAT_W)
#define CD_SAT_MASK CD_SAT_CAT(cd_lmask, CD_SAT_W)
#define CD_SAT_OBB CD_SAT_CAT(cd_obb_lanes, CD_SAT_W)

typedef double CD_SAT_LANES __attribute__((vector_size(8 * CD_SAT_W)));
typedef int64_t CD_SAT_MASK __attribute__((vector_size(8 * CD_SAT_W)));

/// W boxes: c[k] and e[k] component k of the centres and half-extents, ax[i][k] component k of
/// axis i.
typedef struct CD_SAT_OBB {
    CD_SAT_LANES c[3], ax[3][3], e[3];
} CD_SAT_OBB;

// Macros, not functions: a function taking or returning a vector wider than the build's registers
// outside an always-inlined body would change the ABI.
#define CD_SAT_ABS(x) ((CD_SAT_LANES)((CD_SAT_MASK)(x) & ~((CD_SAT_MASK){0} + INT64_MIN)))
// CD_SAT_ALL(m): every lane of mask m is set; CD_SAT_NONE_BITS(m): bit l set when lane l of m is
// clear. Two lanes are one SSE2 register, whose movemask both read directly, as are four in a
// build for AVX and eight in one for AVX-512 (its mask test); the others combine the lanes one
// by one (their target is a function attribute, which the preprocessor cannot see).
#if CD_SAT_W == 2 && defined(__SSE2__)
#include <emmintrin.h>
#define CD_SAT_ALL(m) (_mm_movemask_pd((__m128d)(m)) == 3)
#define CD_SAT_NONE_BITS(m) ((unsigned)~_mm_movemask_pd((__m128d)(m)) & 3u)
#elif CD_SAT_W == 4 && defined(__AVX__)  // a whole build for AVX: one movemask each
#include <immintrin.h>
#define CD_SAT_ALL(m) (_mm256_movemask_pd((__m256d)(m)) == 15)
#define CD_SAT_NONE_BITS(m) ((unsigned)~_mm256_movemask_pd((__m256d)(m)) & 15u)
#elif CD_SAT_W == 8 && defined(__AVX512F__)  // a whole build for AVX-512: one mask test each
#include <immintrin.h>
#define CD_SAT_ALL(m) (_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)) == 0xFF)
#define CD_SAT_NONE_BITS(m) ((unsigned)(uint8_t)~_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)))
#else
#define CD_SAT_ALL(m) CD_SAT_CAT(cd_sat_all, CD_SAT_W)(m)
#define CD_SAT_NONE_BITS(m) CD_SAT_CAT(cd_sat_none_bits, CD_SAT_W)(m)
CD_SAT_INLINE int CD_SAT_CAT(cd_sat_all, CD_SAT_W)(CD_SAT_MASK m)
{
    int64_t all = -1;
    for (int l = 0; l < CD_SAT_W; ++l) all &= m[l];
    return all != 0;
}
CD_SAT_INLINE unsigned CD_SAT_CAT(cd_sat_none_bits, CD_SAT_W)(CD_SAT_MASK m)
{
    unsigned bits = 0;
    for (int l = 0; l < CD_SAT_W; ++l) bits |= (unsigned)(m[l] == 0) << l;
    return bits;
}
#endif

/// The axes of the boxes from their quaternions q = (w, x, y, z), as cd_quat_axes computes them.
/// (By pointer: clang rejects wide vectors passed by value between functions of different targets.)
CD_SAT_INLINE void CD_SAT_CAT(CD_SAT_OBB, _axes)(CD_SAT_OBB *o, const CD_SAT_LANES q[4])
{
    CD_SAT_LANES w = q[0], x = q[1], y = q[2], z = q[3];
    CD_SAT_LANES s = 2.0 / (w * w + x * x + y * y + z * z);
    CD_SAT_LANES xx = s * x * x, yy = s * y * y, zz = s * z * z, xy = s * x * y, xz = s * x * z, yz = s * y * z;
    CD_SAT_LANES wx = s * w * x, wy = s * w * y, wz = s * w * z;
    const CD_SAT_LANES one = (CD_SAT_LANES){0} + 1.0;
    o->ax[0][0] = one - (yy + zz), o->ax[0][1] = xy + wz, o->ax[0][2] = xz - wy;
    o->ax[1][0] = xy - wz, o->ax[1][1] = one - (xx + zz), o->ax[1][2] = yz + wx;
    o->ax[2][0] = xz + wy, o->ax[2][1] = yz - wx, o->ax[2][2] = one - (xx + yy);
}

/// Bit k set when the boxes in lane k of pa and pb overlap (cd_obb_obb_overlap's answer). Every
/// lane computes every axis; the early outs fire only when all lanes have separated (about half
/// of the pairs a broad phase hands over overlap and pass all 15 axes, so the test is mostly
/// arithmetic, which the lanes share).
CD_SAT_INLINE unsigned CD_SAT_CAT(cd_sat, CD_SAT_W)(const CD_SAT_OBB *pa, const CD_SAT_OBB *pb)
{
    const CD_SAT_OBB a = *pa, b = *pb;
    const CD_SAT_LANES eps = (CD_SAT_LANES){0} + CD_SAT_EPSILON;
    CD_SAT_LANES R[3][3], AR[3][3], t[3], d[3];
    for (int k = 0; k < 3; ++k) d[k] = b.c[k] - a.c[k];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            R[i][j] = a.ax[i][0] * b.ax[j][0] + a.ax[i][1] * b.ax[j][1] + a.ax[i][2] * b.ax[j][2];
            AR[i][j] = CD_SAT_ABS(R[i][j]) + eps;
        }
        t[i] = d[0] * a.ax[i][0] + d[1] * a.ax[i][1] + d[2] * a.ax[i][2];
    }
    CD_SAT_MASK sep = {0};
    for (int i = 0; i < 3; ++i)  // faces of a
        sep |= CD_SAT_ABS(t[i]) > a.e[i] + (b.e[0] * AR[i][0] + b.e[1] * AR[i][1] + b.e[2] * AR[i][2]);
    if (CD_SAT_ALL(sep)) return 0;
    for (int j = 0; j < 3; ++j) {  // faces of b
        CD_SAT_LANES ra = a.e[0] * AR[0][j] + a.e[1] * AR[1][j] + a.e[2] * AR[2][j];
        CD_SAT_LANES tj = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        sep |= CD_SAT_ABS(tj) > ra + b.e[j];
    }
    if (CD_SAT_ALL(sep)) return 0;
    for (int i = 0; i < 3; ++i) {  // edge cross products a_i × b_j
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            CD_SAT_LANES ra = a.e[i1] * AR[i2][j] + a.e[i2] * AR[i1][j];
            CD_SAT_LANES rb = b.e[j1] * AR[i][j2] + b.e[j2] * AR[i][j1];
            CD_SAT_LANES tl = t[i2] * R[i1][j] - t[i1] * R[i2][j];
            sep |= CD_SAT_ABS(tl) > ra + rb;
        }
    }
    return CD_SAT_NONE_BITS(sep);
}

#undef CD_SAT_NONE_BITS
#undef CD_SAT_ALL
#undef CD_SAT_ABS
#undef CD_SAT_OBB
#undef CD_SAT_MASK
#undef CD_SAT_LANES
#undef CD_SAT_CAT
#undef CD_SAT_CAT2
#undef CD_SAT_W
#undef CD_SAT_TARGET
#undef CD_SAT_INLINE
