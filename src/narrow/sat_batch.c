// SPDX-License-Identifier: MIT
// The batched OBB–OBB test on pose records (cd_posef_pairs_overlap), in one build per instruction
// set: a certified float filter on sixteen pairs (AVX-512), eight double lanes (AVX-512), the float
// filter on eight pairs (AVX2), four double lanes (AVX2, records loaded whole and transposed) and
// four double lanes on any x86-64 (SSE2 halves). Every build answers each lane as
// cd_obb_obb_overlap does on cd_posef_obb; the float filters by deciding only outside their proven
// error band (sat_float.h) and leaving the rest to that double test. tests/test_narrow.c checks
// every build the CPU runs, lane by lane.
#include "cd_narrow.h"

#include <string.h>

enum { SAT_MAX_LANES = 16 };  // pairs per call of the widest build

#define CD_SAT_W 4
#include "cd_sat_lanes.h"
#if CD_X86_SIMD
#define CD_SAT_W 8
#define CD_SAT_TARGET "avx2,avx512f,avx512vl"
#include "cd_sat_lanes.h"
#endif

// The lanes of four records p[k], one field at a time (any CPU).
__attribute__((always_inline)) static inline void obb4_of(const cd_posef *const p[4], cd_obb_lanes4 *o)
{
#define CD_LANES(f) ((cd_lanes4){p[0]->f, p[1]->f, p[2]->f, p[3]->f})
    for (int k = 0; k < 3; ++k) o->c[k] = CD_LANES(c[k]), o->e[k] = CD_LANES(h[k]);
    const cd_lanes4 quat[4] = {CD_LANES(q[0]), CD_LANES(q[1]), CD_LANES(q[2]), CD_LANES(q[3])};
    cd_obb_lanes4_axes(o, quat);
#undef CD_LANES
}

static unsigned sat4_baseline(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
    cd_obb_lanes4 a, b;
    obb4_of(pa, &a);
    obb4_of(pb, &b);
    return cd_sat4(&a, &b);
}

#if CD_X86_SIMD
#include "cd_transpose.h"

// h[1] and h[2] of records p[0..3] as (h[1] of the four, h[2] of the four): one 64-bit load each.
__attribute__((always_inline, target("avx2"))) static inline void h12_of4(const cd_posef *const p[4], __m128 *h1,
                                                                          __m128 *h2)
{
    __m128 v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&p[k]->h[1]));
    __m128 ab = _mm_unpacklo_ps(v[0], v[1]), cd = _mm_unpacklo_ps(v[2], v[3]);  // (h1a, h1b, h2a, h2b), ...
    *h1 = _mm_movelh_ps(ab, cd), *h2 = _mm_movehl_ps(cd, ab);
}

// obb4_of for AVX2: each record's first eight floats in one load, four records transposed (the
// 8 × 8 transpose with the second half repeated) — the same floats, so the same lanes, for fewer
// loads than one per field.
__attribute__((always_inline, target("avx2"))) static inline void obb4_of_avx2(const cd_posef *const p[4],
                                                                               cd_obb_lanes4 *o)
{
    __m256 r[8], f[8];
    for (int k = 0; k < 4; ++k) r[k] = r[k + 4] = _mm256_loadu_ps(&p[k]->c[0]);
    cd_transpose8(r, f);
#define LANES(v) ((cd_lanes4)_mm256_cvtps_pd(_mm256_castps256_ps128(v)))
    for (int k = 0; k < 3; ++k) o->c[k] = LANES(f[k]);
    o->e[0] = LANES(f[7]);
    __m128 h1, h2;
    h12_of4(p, &h1, &h2);
    o->e[1] = (cd_lanes4)_mm256_cvtps_pd(h1), o->e[2] = (cd_lanes4)_mm256_cvtps_pd(h2);
    const cd_lanes4 quat[4] = {LANES(f[3]), LANES(f[4]), LANES(f[5]), LANES(f[6])};
    cd_obb_lanes4_axes(o, quat);
#undef LANES
}

__attribute__((target("avx2"))) static unsigned sat4_avx2(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
    cd_obb_lanes4 a, b;
    obb4_of_avx2(pa, &a);
    obb4_of_avx2(pb, &b);
    return cd_sat4(&a, &b);
}

// The lanes of eight records for AVX-512 (eight doubles per register).
__attribute__((always_inline, target("avx2,avx512f,avx512vl"))) static inline void obb8_of(const cd_posef *const p[8],
                                                                                           cd_obb_lanes8 *o)
{
    __m256 r[8], f[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(&p[k]->c[0]);
    cd_transpose8(r, f);
    for (int k = 0; k < 3; ++k) o->c[k] = (cd_lanes8)_mm512_cvtps_pd(f[k]);
    o->e[0] = (cd_lanes8)_mm512_cvtps_pd(f[7]);
    __m128 h1[2], h2[2];
    h12_of4(p, &h1[0], &h2[0]);
    h12_of4(p + 4, &h1[1], &h2[1]);
    o->e[1] = (cd_lanes8)_mm512_cvtps_pd(_mm256_set_m128(h1[1], h1[0]));
    o->e[2] = (cd_lanes8)_mm512_cvtps_pd(_mm256_set_m128(h2[1], h2[0]));
    const cd_lanes8 quat[4] = {(cd_lanes8)_mm512_cvtps_pd(f[3]), (cd_lanes8)_mm512_cvtps_pd(f[4]),
                               (cd_lanes8)_mm512_cvtps_pd(f[5]), (cd_lanes8)_mm512_cvtps_pd(f[6])};
    cd_obb_lanes8_axes(o, quat);
}

// Eight pairs per test where cd_cpu_avx512 says so. This function carries its own target: without
// it GCC split the eight-lane compares into scalars.
__attribute__((target("avx2,avx512f,avx512vl"))) static unsigned sat8_avx512(const cd_posef *const pa[8],
                                                                             const cd_posef *const pb[8])
{
    cd_obb_lanes8 a, b;
    obb8_of(pa, &a);
    obb8_of(pb, &b);
    return cd_sat8(&a, &b);
}

#define SATF_W 16
#include "sat_float.h"
#define SATF_W 8
#include "sat_float.h"
#endif

int cd_sat_build_runs(cd_sat_build build)
{
    switch (build) {
    case CD_SAT_DEFAULT:
    case CD_SAT_BASELINE: return 1;
#if CD_X86_SIMD
    case CD_SAT_AVX2_FLOAT:
    case CD_SAT_AVX2: return cd_cpu_avx2();
    case CD_SAT_AVX512_FLOAT:
    case CD_SAT_AVX512: return cd_cpu_avx512();
#endif
    default: return 0;
    }
}

cd_sat_build cd_sat_build_default(void)
{
    return cd_sat_build_runs(CD_SAT_AVX512_FLOAT)
               ? CD_SAT_AVX512_FLOAT
               : (cd_sat_build_runs(CD_SAT_AVX2_FLOAT) ? CD_SAT_AVX2_FLOAT : CD_SAT_BASELINE);
}

// Pairs per call of a build other than CD_SAT_DEFAULT.
static inline unsigned width_of(cd_sat_build build)
{
    return build == CD_SAT_AVX512_FLOAT ? 16 : (build == CD_SAT_AVX512 || build == CD_SAT_AVX2_FLOAT ? 8 : 4);
}

unsigned cd_sat_build_width(cd_sat_build build)
{
    return width_of(build == CD_SAT_DEFAULT ? cd_sat_build_default() : build);
}

// The lanes of *unsure (a float filter's undecided ones) decided by the double test, added to bits.
static inline unsigned settle_unsure(const cd_posef *const pa[], const cd_posef *const pb[], unsigned unsure,
                                     unsigned bits)
{
    for (; unsure; unsure &= unsure - 1) {
        unsigned l = (unsigned)__builtin_ctz(unsure);
        cd_obb oa = cd_posef_obb(pa[l]), ob = cd_posef_obb(pb[l]);
        bits |= (unsigned)cd_obb_obb_overlap(&oa, &ob) << l;
    }
    return bits;
}

// Pairs [0, n) of build b, n a multiple of its width; a float build's undecided lanes (*unsure)
// are settled by the double test when settle is set, else left out of the answer.
__attribute__((always_inline)) static inline unsigned pairs_overlap(cd_sat_build b, const cd_posef *const pa[],
                                                                    const cd_posef *const pb[], unsigned n,
                                                                    unsigned *unsure, int settle)
{
    unsigned bits = 0;
    *unsure = 0;
#if CD_X86_SIMD
    if (b == CD_SAT_AVX512_FLOAT) {
        bits = posef_sat16_float(pa, pb, unsure);
        return settle ? settle_unsure(pa, pb, *unsure, bits) : bits;
    }
    if (b == CD_SAT_AVX2_FLOAT) {
        for (unsigned k = 0; k < n; k += 8) {
            unsigned left, sure = posef_sat8_float(pa + k, pb + k, &left);
            bits |= (settle ? settle_unsure(pa + k, pb + k, left, sure) : sure) << k;
            *unsure |= left << k;
        }
        return bits;
    }
    if (b == CD_SAT_AVX512) {
        for (unsigned k = 0; k < n; k += 8) bits |= sat8_avx512(pa + k, pb + k) << k;
        return bits;
    }
    if (b == CD_SAT_AVX2) {
        for (unsigned k = 0; k < n; k += 4) bits |= sat4_avx2(pa + k, pb + k) << k;
        return bits;
    }
#endif
    (void)settle;
    for (unsigned k = 0; k < n; k += 4) bits |= sat4_baseline(pa + k, pb + k) << k;
    return bits;
}

// cd_posef_pairs_overlap and cd_posef_pairs_filter: settle as in pairs_overlap.
static unsigned pairs_answer(cd_sat_build build, const cd_posef *const pa[], const cd_posef *const pb[], unsigned n,
                             unsigned *unsure, int settle)
{
    CD_VALIDATE_ASSERT(cd_sat_build_runs(build));  // reads the environment: not per call
    if (build == CD_SAT_DEFAULT) build = cd_sat_build_default();
    unsigned w = width_of(build), left;
    if (n == w) {  // the narrow step's case
        unsigned bits = pairs_overlap(build, pa, pb, n, &left, settle);
        if (unsure) *unsure = left;
        return bits;
    }
    // Other counts: whole groups, the last one filled up with copies of the last pair, whose
    // answers are dropped.
    CD_ASSERT(n >= 1 && n <= SAT_MAX_LANES);
    const cd_posef *a[SAT_MAX_LANES], *b[SAT_MAX_LANES];
    unsigned padded = (n + w - 1) / w * w, keep = (1u << n) - 1;
    for (unsigned k = 0; k < padded; ++k) a[k] = pa[k < n ? k : n - 1], b[k] = pb[k < n ? k : n - 1];
    unsigned bits = pairs_overlap(build, a, b, padded, &left, settle);
    if (unsure) *unsure = left & keep;
    return bits & keep;
}

unsigned cd_posef_pairs_overlap(cd_sat_build build, const cd_posef *const pa[], const cd_posef *const pb[], unsigned n,
                                unsigned *unsure)
{
    return pairs_answer(build, pa, pb, n, unsure, 1);
}

unsigned cd_posef_pairs_filter(cd_sat_build build, const cd_posef *const pa[], const cd_posef *const pb[], unsigned n,
                               unsigned *unsure)
{
    CD_ASSERT(unsure);
    return pairs_answer(build, pa, pb, n, unsure, 0);
}

cd_sat_build cd_sat_build_settling(cd_sat_build build)
{
    if (build == CD_SAT_DEFAULT) build = cd_sat_build_default();
    return build == CD_SAT_AVX512_FLOAT ? CD_SAT_AVX512 : build == CD_SAT_AVX2_FLOAT ? CD_SAT_AVX2 : build;
}
