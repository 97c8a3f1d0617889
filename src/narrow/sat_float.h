// SPDX-License-Identifier: MIT
// The separating-axis test as a certified float filter on SATF_W pairs of pose records at once
// (16 in AVX-512 registers, 8 in AVX2 registers), private to sat_batch.c. Each lane either decides
// what cd_obb_obb_overlap (double) decides on cd_posef_obb, or is left "unsure" for the caller to
// run that double test itself; so the answers are the scalar test's, lane by lane.
//
// A template: define SATF_W (8 or 16) before each inclusion. Both widths evaluate the same float
// expressions in the same order in every lane (GCC's generic vectors; -ffp-contract=off keeps
// fused multiply-adds out, and division, the one other operation, is correctly rounded in every
// instruction set), so a lane's float values, and hence the proof below, do not depend on the
// width: only the number of lanes and the loads of the records differ.
//
// Why a float answer outside the band is the double one. u = 2^-24; every quantity below is
// compared with the exact real value of the reference formulas (the double test is within about
// 2^-50 of those, far inside the slack).
// - Axes from the float quaternion (cd_quat_axes's expression in float; its squared norm in
//   [2^-60, 2^60], else the lane is unsure): each entry within E = 48u (diagonal entries 1 −
//   (yy + zz) carry at most 43u, the others 11u).
// - R_ij = a_i·b_j: within 6E + 9u ≤ 300u (rows of unit length, |entries| ≤ 1 + E).
// - d = c_b − c_a (one rounding), t_i = d·a_i: within 54u·|d|₁.
// - Face of a: |t_i| against e_a,i + Σ_j e_b,j·AR_ij (AR = |R| + CD_SAT_EPSILON in the reference,
//   |R| here: the ε term is at most 10^-12·S): the margin |t| − (ra + rb) is within
//   54u·|d|₁ + 307u·S, S = Σ|e_a| + Σ|e_b|.
// - Face of b: t·R_j within Σ_i (54u + 300u)·|d|₁ + 9u·|d|₁ ≤ 1071u·|d|₁; its radii within
//   307u·S.
// - Edge a_i × b_j: t_i2·R_i1j − t_i1·R_i2j within 714u·|d|₁; radii within 304u·S.
// So every margin is within 1071u·|d|₁ + 307u·S (+ u for its last subtraction) of the reference
// value. The band is BAND_SCALE·(|d|₁ + S) + 2^-100, BAND_SCALE = 2^-13 = 2048u: about twice the
// bound, and the 2^-100 covers roundings among subnormals. A margin above the band means the
// reference separates on that axis (so the pair is apart); every margin below −band means no
// axis separates in the reference (the pair overlaps); anything else is unsure. Lanes with
// |d|₁ + S above 2^100 (or NaN) are unsure too, so no product overflows.
//
// Edge a_k × b_k of two boxes turned about the same coordinate axis k alone. Where both
// quaternions have their two other vector entries zero (x = y = 0 for k = z; the identity for all
// three k), cd_quat_axes gives a_k = b_k = e_k and zero k-th entries in the other axes, each
// entry a sum of products with a zero factor, so exactly 0 in the reference; then the four R
// entries this axis reads (R_i1k, R_i2k, R_ki1, R_ki2 in index terms: those off the k-th row and
// column's diagonal) are exactly 0, its projection |t_i2·R_i1k − t_i1·R_i2k| is 0, and 0 > ra + rb
// never holds: the axis never separates in the reference. Its float margin, about −ε·S, lies in
// the band, which left every overlapping pair of such boxes (cubes standing on a floor, boxes
// with identity rotations such as Broadmark's) to the double test; the filter now leaves the axis
// out for those lanes (the float values are exactly 0 as well, so it never reports them apart).
#ifndef SATF_W
#error "define SATF_W (8 or 16) before including sat_float.h"
#endif

#define SATF_CAT2(a, b, c) a##b##c
#define SATF_CAT(a, b, c) SATF_CAT2(a, b, c)
#define SATF_NAME(prefix, suffix) SATF_CAT(prefix, SATF_W, suffix)  // e.g. obb16f, posef_sat8_float
#define lanesf SATF_NAME(lanes, f)
#define maskf SATF_NAME(mask, f)
#define obbf SATF_NAME(obb, f)
#define obbf_of SATF_NAME(obb, f_of)
#define obbf_axes SATF_NAME(obb, f_axes)
#define satf_bits SATF_NAME(satf, _bits)
#define satf_max SATF_NAME(satf, _max)
#define posef_sat_float SATF_NAME(posef_sat, _float)

#if SATF_W == 16
#define SATF_TARGET "avx2,avx512f,avx512vl"
#elif SATF_W == 8
#define SATF_TARGET "avx2"
#else
#error "SATF_W is 8 or 16"
#endif
#define SATF_INLINE __attribute__((always_inline, target(SATF_TARGET))) static inline
#define SATF_ALL ((1u << SATF_W) - 1)  // every lane's bit

typedef float lanesf __attribute__((vector_size(4 * SATF_W)));
typedef int32_t maskf __attribute__((vector_size(4 * SATF_W)));

typedef struct obbf {
    lanesf c[3], ax[3][3], e[3];
    maskf about[3];  // per lane: the quaternion's vector part lies on coordinate axis k (or is 0)
} obbf;

#define SATF_ABS(x) ((lanesf)((maskf)(x) & ((maskf){0} + INT32_MAX)))
#define SATF_SPLAT(v) ((lanesf){0} + (v))

// Lane bits of mask m (each lane 0 or −1).
SATF_INLINE unsigned satf_bits(maskf m)
{
#if SATF_W == 16
    return (unsigned)_mm512_test_epi32_mask((__m512i)m, (__m512i)m);
#else
    return (unsigned)_mm256_movemask_ps((__m256)m);
#endif
}

// Lane by lane max(a, b) (of finite values: see SATF_AXIS).
SATF_INLINE lanesf satf_max(lanesf a, lanesf b)
{
#if SATF_W == 16
    return (lanesf)_mm512_max_ps((__m512)a, (__m512)b);
#else
    return (lanesf)_mm256_max_ps((__m256)a, (__m256)b);
#endif
}

// The axes of the cubes from their quaternions, as cd_quat_axes computes them but in float;
// lanes whose squared norm is outside [2^-60, 2^60] are set in *bad.
SATF_INLINE void obbf_axes(obbf *o, lanesf w, lanesf x, lanesf y, lanesf z, maskf *bad)
{
    lanesf norm = w * w + x * x + y * y + z * z;
    *bad |= ~((norm >= SATF_SPLAT(0x1p-60f)) & (norm <= SATF_SPLAT(0x1p60f)));
    lanesf s = SATF_SPLAT(2.0f) / norm;
    lanesf xx = s * x * x, yy = s * y * y, zz = s * z * z, xy = s * x * y, xz = s * x * z, yz = s * y * z;
    lanesf wx = s * w * x, wy = s * w * y, wz = s * w * z;
    const lanesf one = SATF_SPLAT(1.0f);
    o->ax[0][0] = one - (yy + zz), o->ax[0][1] = xy + wz, o->ax[0][2] = xz - wy;
    o->ax[1][0] = xy - wz, o->ax[1][1] = one - (xx + zz), o->ax[1][2] = yz + wx;
    o->ax[2][0] = xz + wy, o->ax[2][1] = yz - wx, o->ax[2][2] = one - (xx + yy);
    const lanesf zero = SATF_SPLAT(0.0f);  // == also holds for −0, which gives exact zeros too
    o->about[0] = (y == zero) & (z == zero), o->about[1] = (x == zero) & (z == zero),
    o->about[2] = (x == zero) & (y == zero);
}

#if SATF_W == 16
// The lanes of sixteen pose records: records l and l + 8 share a register, so one 8 × 8 transpose
// (its last step across 128-bit lanes by two-source permutes) gives fields 0–7 of all sixteen;
// h1 and h2 come in 64-bit loads.
SATF_INLINE void obbf_of(const cd_posef *const p[16], obbf *o, maskf *bad)
{
    __m512 r[8], t[8], u[8], f[8];
    for (int l = 0; l < 8; ++l)
        r[l] =
            _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(&p[l]->c[0]))),
                                                _mm256_castps_pd(_mm256_loadu_ps(&p[l + 8]->c[0])), 1));
    for (int j = 0; j < 8; j += 2)
        t[j] = _mm512_unpacklo_ps(r[j], r[j + 1]), t[j + 1] = _mm512_unpackhi_ps(r[j], r[j + 1]);
    for (int j = 0; j < 8; j += 4) {
        u[j] = _mm512_shuffle_ps(t[j], t[j + 2], 0x44), u[j + 1] = _mm512_shuffle_ps(t[j], t[j + 2], 0xEE);
        u[j + 2] = _mm512_shuffle_ps(t[j + 1], t[j + 3], 0x44), u[j + 3] = _mm512_shuffle_ps(t[j + 1], t[j + 3], 0xEE);
    }
    // Lane l of field j: u[j mod 4] (low) or u[j mod 4 + 4] (high), 128-bit lane j / 4 for records
    // 0–7, j / 4 + 2 for records 8–15; the records' order in f is p's.
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
                  hi = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    for (int j = 0; j < 4; ++j)
        f[j] = _mm512_permutex2var_ps(u[j], lo, u[j + 4]), f[j + 4] = _mm512_permutex2var_ps(u[j], hi, u[j + 4]);
    for (int k = 0; k < 3; ++k) o->c[k] = (lanesf)f[k];
    o->e[0] = (lanesf)f[7];
    __m128 h1[4], h2[4];
    for (int g = 0; g < 4; ++g) h12_of4(p + 4 * g, &h1[g], &h2[g]);
    __m512 e1 = _mm512_castps128_ps512(h1[0]), e2 = _mm512_castps128_ps512(h2[0]);
    // The lane index is an immediate (clang insists; gcc unrolls the loop this replaced).
    e1 = _mm512_insertf32x4(e1, h1[1], 1), e2 = _mm512_insertf32x4(e2, h2[1], 1);
    e1 = _mm512_insertf32x4(e1, h1[2], 2), e2 = _mm512_insertf32x4(e2, h2[2], 2);
    e1 = _mm512_insertf32x4(e1, h1[3], 3), e2 = _mm512_insertf32x4(e2, h2[3], 3);
    o->e[1] = (lanesf)e1, o->e[2] = (lanesf)e2;
    obbf_axes(o, (lanesf)f[3], (lanesf)f[4], (lanesf)f[5], (lanesf)f[6], bad);
}
#else
// The lanes of eight pose records: each record's first eight floats in one load, the 8 × 8
// transpose (as for the double AVX2 build), h1 and h2 in 64-bit loads.
SATF_INLINE void obbf_of(const cd_posef *const p[8], obbf *o, maskf *bad)
{
    __m256 r[8], f[8];
    for (int l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(&p[l]->c[0]);
    cd_transpose8(r, f);
    for (int k = 0; k < 3; ++k) o->c[k] = (lanesf)f[k];
    o->e[0] = (lanesf)f[7];
    __m128 h1[2], h2[2];
    h12_of4(p, &h1[0], &h2[0]);
    h12_of4(p + 4, &h1[1], &h2[1]);
    o->e[1] = (lanesf)_mm256_set_m128(h1[1], h1[0]), o->e[2] = (lanesf)_mm256_set_m128(h2[1], h2[0]);
    obbf_axes(o, (lanesf)f[3], (lanesf)f[4], (lanesf)f[5], (lanesf)f[6], bad);
}
#endif

// The largest margin of each lane so far: every decision below reads only that. For lanes that
// are not bad every margin is finite (|d|₁ + S ≤ 2^100, the axes bounded), so "some margin
// above the band" (apart) is "the largest above it", and "some margin not below −band" (not
// sure to overlap) is "the largest not below it": the same lanes as testing each margin, for
// one max an axis instead of two compares and two ors. Bad lanes are unsure either way.
#define SATF_AXIS(T, radius) (worst = satf_max(worst, SATF_ABS(T) - (radius)))

// Bit k of the result: lane k's cubes overlap, certainly; bit k of *unsure: the float cannot
// tell, and the caller runs the double test on lane k (its result bit is then 0).
__attribute__((target(SATF_TARGET))) static unsigned posef_sat_float(const cd_posef *const pa[SATF_W],
                                                                     const cd_posef *const pb[SATF_W], unsigned *unsure)
{
    obbf a, b;
    maskf bad = {0};
    obbf_of(pa, &a, &bad);
    obbf_of(pb, &b, &bad);
    lanesf R[3][3], AR[3][3], t[3], d[3];
    for (int k = 0; k < 3; ++k) d[k] = b.c[k] - a.c[k];
    lanesf scale =
        (SATF_ABS(d[0]) + SATF_ABS(d[1]) + SATF_ABS(d[2])) + ((SATF_ABS(a.e[0]) + SATF_ABS(a.e[1]) + SATF_ABS(a.e[2])) +
                                                              (SATF_ABS(b.e[0]) + SATF_ABS(b.e[1]) + SATF_ABS(b.e[2])));
    bad |= ~(scale <= SATF_SPLAT(0x1p100f));
    const lanesf band = scale * SATF_SPLAT(0x1p-13f) + SATF_SPLAT(0x1p-100f);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            R[i][j] = a.ax[i][0] * b.ax[j][0] + a.ax[i][1] * b.ax[j][1] + a.ax[i][2] * b.ax[j][2];
            AR[i][j] = SATF_ABS(R[i][j]);
        }
        t[i] = d[0] * a.ax[i][0] + d[1] * a.ax[i][1] + d[2] * a.ax[i][2];
    }
    lanesf worst = SATF_SPLAT(-INFINITY), worst_same = worst;  // worst_same: SATF_AXIS below
    for (int i = 0; i < 3; ++i)                                // faces of a
        SATF_AXIS(t[i], a.e[i] + (b.e[0] * AR[i][0] + b.e[1] * AR[i][1] + b.e[2] * AR[i][2]));
    unsigned sure_apart = satf_bits((worst > band) & ~bad);
    if (sure_apart == SATF_ALL) return *unsure = 0, 0;
    for (int j = 0; j < 3; ++j) {  // faces of b
        lanesf ra = a.e[0] * AR[0][j] + a.e[1] * AR[1][j] + a.e[2] * AR[2][j];
        SATF_AXIS(t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j], ra + b.e[j]);
    }
    sure_apart = satf_bits((worst > band) & ~bad);
    if (sure_apart == SATF_ALL) return *unsure = 0, 0;
    for (int i = 0; i < 3; ++i) {  // edge cross products a_i × b_j
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            lanesf ra = a.e[i1] * AR[i2][j] + a.e[i2] * AR[i1][j];
            lanesf rb = b.e[j1] * AR[i][j2] + b.e[j2] * AR[i][j1];
            if (i == j) {  // a_i × b_i: never separates where both turn about axis i alone (above), so
                           // there it counts towards apart (worst_same) but not against overlap
                lanesf m = SATF_ABS(t[i2] * R[i1][j] - t[i1] * R[i2][j]) - (ra + rb);
                worst_same = satf_max(worst_same, m);
                maskf skip = a.about[i] & b.about[i];
                worst = satf_max(worst, (lanesf)(((maskf)m & ~skip) | ((maskf)SATF_SPLAT(-INFINITY) & skip)));
            } else
                SATF_AXIS(t[i2] * R[i1][j] - t[i1] * R[i2][j], ra + rb);
        }
    }
    sure_apart = satf_bits((satf_max(worst, worst_same) > band) & ~bad);
    unsigned sure_overlap = satf_bits((worst < -band) & ~bad);
    *unsure = ~(sure_apart | sure_overlap) & SATF_ALL;
    return sure_overlap;
}

#undef SATF_AXIS
#undef SATF_SPLAT
#undef SATF_ABS
#undef SATF_ALL
#undef SATF_INLINE
#undef SATF_TARGET
#undef lanesf
#undef maskf
#undef obbf
#undef obbf_of
#undef obbf_axes
#undef satf_bits
#undef satf_max
#undef posef_sat_float
#undef SATF_NAME
#undef SATF_CAT
#undef SATF_CAT2
#undef SATF_W
