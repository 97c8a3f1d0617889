// SPDX-License-Identifier: MIT
// The plane test shared by the exact triangle–triangle algorithms (private to narrow): the signs
// of one triangle's vertices against the other's plane, N_t · (o_j − t_0) with N_t computed once,
// certified by a semi-static filter (CD_PLANE_ERR) and decided exactly only where it cannot.
#ifndef TRI_TRI_PLANE_H
#define TRI_TRI_PLANE_H

#include "op_count.h"
#include "predicates.h"

// Where SSE2 is the baseline (x86-64), the first plane test of both plane-first variants uses
// cd_plane_eval_packed / cd_plane_values_packed below; the counting build and other targets use
// the scalar forms, which give the same values (the same operations on the same operands).
#if CD_X86_SIMD && !defined(CD_COUNT_OPS)
#define CD_PLANE_SSE2 1
#include <emmintrin.h>
#else
#define CD_PLANE_SSE2 0
#endif

// The entry points of both plane-first variants (which inline the first plane test) are built
// twice where CD_PLANE_SSE2 holds: as SSE2 code and for AVX, whose three-operand VEX form needs
// none of the register copies that the bound's absolute values otherwise cost. The first call of
// an entry point picks its build for the process: AVX where cd_cpu_avx2() holds, so CDLAB_NO_AVX2
// selects the SSE2 build on any machine. Both builds are the same IEEE operations in the same
// order (no contraction: -ffp-contract=off, and AVX has no FMA), so they give the same answers;
// test_narrow_tri_tri compares them, answer and deciding branch, on 120 000 generated pairs, each
// also swapped and scaled (through cd_tri_tri_build and cd_tri_tri_float_build).
#define CD_TRI_TRI_AVX CD_PLANE_SSE2

typedef int (*cd_tri_tri_explain_fn)(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);
typedef int (*cd_tri_tri_fn)(const cd_triangle *a, const cd_triangle *b);

#if CD_TRI_TRI_AVX
#include <stdatomic.h>

#include "cd_core.h"

/// The exact plane-first variant's explain entry point as its AVX build (avx = 1: run it only
/// where the CPU has AVX) or its SSE2 build (avx = 0).
cd_tri_tri_explain_fn cd_tri_tri_build(int avx);
/// The same for the plain-float variant.
cd_tri_tri_explain_fn cd_tri_tri_float_build(int avx);

// The entry points name(a, b) and name##_explain(a, b, why) over body (an always-inline function
// (a, b, why) of the first plane test and the call to the rest), each in its SSE2 and AVX builds,
// the build picked at the first call (a relaxed atomic: threads that race store the same
// function), and build(avx) naming either explain build.
#define CD_TRI_TRI_ENTRIES(name, body, build)                                                                \
    static int name##_explain_sse2(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why)          \
    {                                                                                                        \
        return body(a, b, why);                                                                              \
    }                                                                                                        \
    __attribute__((target("avx"))) static int name##_explain_avx(const cd_triangle *a, const cd_triangle *b, \
                                                                 cd_tri_tri_why *why)                        \
    {                                                                                                        \
        return body(a, b, why);                                                                              \
    }                                                                                                        \
    static int name##_sse2(const cd_triangle *a, const cd_triangle *b)                                       \
    {                                                                                                        \
        cd_tri_tri_why why;                                                                                  \
        return body(a, b, &why);                                                                             \
    }                                                                                                        \
    __attribute__((target("avx"))) static int name##_avx(const cd_triangle *a, const cd_triangle *b)         \
    {                                                                                                        \
        cd_tri_tri_why why;                                                                                  \
        return body(a, b, &why);                                                                             \
    }                                                                                                        \
    cd_tri_tri_explain_fn build(int avx) { return avx ? name##_explain_avx : name##_explain_sse2; }          \
    static _Atomic(cd_tri_tri_explain_fn) name##_explain_chosen;                                             \
    static _Atomic(cd_tri_tri_fn) name##_chosen;                                                             \
    int name##_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why)                      \
    {                                                                                                        \
        cd_tri_tri_explain_fn f = atomic_load_explicit(&name##_explain_chosen, memory_order_relaxed);        \
        if (!f) {                                                                                            \
            f = build(cd_cpu_avx2());                                                                        \
            atomic_store_explicit(&name##_explain_chosen, f, memory_order_relaxed);                          \
        }                                                                                                    \
        return f(a, b, why);                                                                                 \
    }                                                                                                        \
    int name(const cd_triangle *a, const cd_triangle *b)                                                     \
    {                                                                                                        \
        cd_tri_tri_fn f = atomic_load_explicit(&name##_chosen, memory_order_relaxed);                        \
        if (!f) {                                                                                            \
            f = cd_cpu_avx2() ? name##_avx : name##_sse2;                                                    \
            atomic_store_explicit(&name##_chosen, f, memory_order_relaxed);                                  \
        }                                                                                                    \
        return f(a, b);                                                                                      \
    }
#else
// One build: the scalar forms (the counting build, other architectures).
#define CD_TRI_TRI_ENTRIES(name, body, build)                                                                       \
    int name##_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why) { return body(a, b, why); } \
    int name(const cd_triangle *a, const cd_triangle *b)                                                            \
    {                                                                                                               \
        cd_tri_tri_why why;                                                                                         \
        return body(a, b, &why);                                                                                    \
    }
#endif

/// Plane values of o's vertices against t's plane with one error bound for the three.
typedef struct cd_plane_eval {
    double n[3];  ///< N_t (rounded), for choosing a projection
    double d[3];  ///< fl(N_t · (o_j − t_0))
    double k;     ///< CD_PLANE_ERR · m_t²: k · (largest |component| of w_j) bounds vertex j alone
    double e;     ///< k · m_w: |d_j − exact| <= e for every j
} cd_plane_eval;

/// Fill pe for the vertices of o against the plane of t (the general form; the first plane test
/// of both plane-first variants uses cd_plane_eval_packed, which fills the same pe): 39 operations
/// for the values as in the seed's model plus 3 for the bound e = CD_PLANE_ERR · m_t² · m_w, m_t the
/// largest |component| of both edges u = t_1 − t_0 and v = t_2 − t_0, m_w the largest over all
/// three w_j = o_j − t_0 (one bound for the three vertices: 3 multiplications beyond the plain
/// test, not 5). Valid: CD_PLANE_ERR · m_u · m_v · m_w bounds |d_j − exact| (cd_predicates.h; m_u,
/// m_v each edge's own largest |component|), and m_t² = max(m_u, m_v)² >= m_u · m_v. The bound's
/// three roundings are those CD_PLANE_ERR's margin covers, and within the contract (differences
/// 0 or of magnitude 2^-300 .. 2^300) no factor under- or overflows: m_t² >= 2^-600, and the
/// product is 0 or between 2^-48 · 2^-900 and 2^-47 · 2^900. m_t costs one comparison more here
/// than m_u and m_v; packed, it is what the pairs give without a shuffle (each pair holds
/// components of both edges).
static inline void cd_plane_eval_of(const cd_triangle *t, const cd_triangle *o, cd_plane_eval *pe)
{
    const cd_vec3 *t0 = &t->v[0];
    double ux = CD_SUB(t->v[1].x, t0->x), uy = CD_SUB(t->v[1].y, t0->y), uz = CD_SUB(t->v[1].z, t0->z);
    double vx = CD_SUB(t->v[2].x, t0->x), vy = CD_SUB(t->v[2].y, t0->y), vz = CD_SUB(t->v[2].z, t0->z);
    double nx = CD_SUB(CD_MUL(uy, vz), CD_MUL(uz, vy));
    double ny = CD_SUB(CD_MUL(uz, vx), CD_MUL(ux, vz));
    double nz = CD_SUB(CD_MUL(ux, vy), CD_MUL(uy, vx));
    double mu = CD_MAX(CD_MAX(CD_ABS(ux), CD_ABS(uy)), CD_ABS(uz));
    double mt = CD_MAX(CD_MAX(CD_MAX(mu, CD_ABS(vx)), CD_ABS(vy)), CD_ABS(vz));
    pe->n[0] = nx, pe->n[1] = ny, pe->n[2] = nz;
    // Vertex by vertex, folding |w| into the running maximum at once: few values live at a time.
    double mw = 0;
    for (int j = 0; j < 3; ++j) {
        const cd_vec3 *p = &o->v[j];
        double wx = CD_SUB(p->x, t0->x), wy = CD_SUB(p->y, t0->y), wz = CD_SUB(p->z, t0->z);
        pe->d[j] = CD_ADD(CD_ADD(CD_MUL(nx, wx), CD_MUL(ny, wy)), CD_MUL(nz, wz));
        double m = CD_MAX(CD_MAX(CD_ABS(wx), CD_ABS(wy)), CD_ABS(wz));
        mw = j ? CD_MAX(mw, m) : m;
    }
    // Three roundings; CD_PLANE_ERR's margin covers them.
    pe->k = CD_MUL(CD_MUL(CD_PLANE_ERR, mt), mt);
    pe->e = CD_MUL(pe->k, mw);
}

#if CD_PLANE_SSE2
/// The fifteen coordinate differences as pairs in memory order (cd_triangle is nine packed
/// doubles): u[] = (u_x, u_y), (u_z, v_x), (v_y, v_z) and w[] = (w0_x, w0_y), (w0_z, w1_x),
/// (w1_y, w1_z), (w2_x, w2_y), (w2_z, 0): one load and one subtraction per pair.
typedef struct cd_plane_pairs {
    __m128d u[3], w[5];
} cd_plane_pairs;
_Static_assert(sizeof(cd_triangle) == 9 * sizeof(double), "the packed loads read a triangle as nine doubles");

static inline void cd_plane_pairs_of(const cd_triangle *t, const cd_triangle *o, cd_plane_pairs *q)
{
    const double *tp = &t->v[0].x, *op = &o->v[0].x;
    __m128d xy = _mm_loadu_pd(tp), yz = _mm_loadu_pd(tp + 1), zx = _mm_shuffle_pd(yz, xy, 1);
    q->u[0] = _mm_sub_pd(_mm_loadu_pd(tp + 3), xy);
    q->u[1] = _mm_sub_pd(_mm_loadu_pd(tp + 5), zx);
    q->u[2] = _mm_sub_pd(_mm_loadu_pd(tp + 7), yz);
    q->w[0] = _mm_sub_pd(_mm_loadu_pd(op), xy);
    q->w[1] = _mm_sub_pd(_mm_loadu_pd(op + 2), zx);
    q->w[2] = _mm_sub_pd(_mm_loadu_pd(op + 4), yz);
    q->w[3] = _mm_sub_pd(_mm_loadu_pd(op + 6), xy);
    q->w[4] = _mm_sub_sd(_mm_load_sd(op + 8), zx);
}

/// Half h of a pair; the high half by pshufd, which leaves the pair in its register (unpckhpd
/// would overwrite it and cost a register copy in SSE2 code).
static inline double cd_pair_half(__m128d r, int h)
{
    return _mm_cvtsd_f64(h ? _mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(r), 0xee)) : r);
}

/// N_t and the three plane values from the pairs, with the scalar forms' operations in their
/// order: the values part of both variants' first plane test, written once so that it is alike.
static inline void cd_plane_values_of_pairs(const cd_plane_pairs *q, double n[3], double d[3])
{
    double ux = cd_pair_half(q->u[0], 0), uy = cd_pair_half(q->u[0], 1), uz = cd_pair_half(q->u[1], 0);
    double vx = cd_pair_half(q->u[1], 1), vy = cd_pair_half(q->u[2], 0), vz = cd_pair_half(q->u[2], 1);
    double nx = CD_SUB(CD_MUL(uy, vz), CD_MUL(uz, vy));
    double ny = CD_SUB(CD_MUL(uz, vx), CD_MUL(ux, vz));
    double nz = CD_SUB(CD_MUL(ux, vy), CD_MUL(uy, vx));
    n[0] = nx, n[1] = ny, n[2] = nz;
    for (int j = 0; j < 3; ++j) {
        int i = 3 * j;  // w_j's components are halves i, i + 1, i + 2 of the w pairs
        double wx = cd_pair_half(q->w[i / 2], i % 2), wy = cd_pair_half(q->w[(i + 1) / 2], (i + 1) % 2);
        double wz = cd_pair_half(q->w[(i + 2) / 2], (i + 2) % 2);
        d[j] = CD_ADD(CD_ADD(CD_MUL(nx, wx), CD_MUL(ny, wy)), CD_MUL(nz, wz));
    }
}

/// cd_plane_eval_of (same n, d, k and e) with the bound's 15 absolute values and 13 maxima in 8
/// and-s and 6 packed maxima on the pairs, plus one maximum of the two halves for m_t and m_w.
static inline void cd_plane_eval_packed(const cd_triangle *t, const cd_triangle *o, cd_plane_eval *pe)
{
    cd_plane_pairs q;
    cd_plane_pairs_of(t, o, &q);
    cd_plane_values_of_pairs(&q, pe->n, pe->d);
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    __m128d mt = _mm_max_pd(_mm_max_pd(_mm_and_pd(q.u[0], abs_mask), _mm_and_pd(q.u[1], abs_mask)),
                            _mm_and_pd(q.u[2], abs_mask));
    __m128d mw = _mm_max_pd(_mm_max_pd(_mm_and_pd(q.w[0], abs_mask), _mm_and_pd(q.w[1], abs_mask)),
                            _mm_max_pd(_mm_and_pd(q.w[2], abs_mask), _mm_and_pd(q.w[3], abs_mask)));
    mw = _mm_max_pd(mw, _mm_and_pd(q.w[4], abs_mask));  // w[4]'s high half is 0
    double m_t = CD_MAX(cd_pair_half(mt, 0), cd_pair_half(mt, 1));
    double m_w = CD_MAX(cd_pair_half(mw, 0), cd_pair_half(mw, 1));
    pe->k = CD_MUL(CD_MUL(CD_PLANE_ERR, m_t), m_t);
    pe->e = CD_MUL(pe->k, m_w);
}

/// N_t and the plane values alone (the plain-float variant's first plane test).
static inline void cd_plane_values_packed(const cd_triangle *t, const cd_triangle *o, double n[3], double d[3])
{
    cd_plane_pairs q;
    cd_plane_pairs_of(t, o, &q);
    cd_plane_values_of_pairs(&q, n, d);
}
#else
#define cd_plane_eval_packed cd_plane_eval_of
#endif

/// 1 when the filter alone proves every vertex strictly on one side (the common rejection):
/// min d_j > e or −max d_j > e, decided by one branch that random pairs almost always take.
static inline int cd_plane_certainly_one_side(const cd_plane_eval *pe)
{
    double lo = CD_MIN(CD_MIN(pe->d[0], pe->d[1]), pe->d[2]);
    double hi = CD_MAX(CD_MAX(pe->d[0], pe->d[1]), pe->d[2]);
    return CD_GT(CD_MAX(lo, -hi), pe->e);
}

/// The grid of two triangles' 18 coordinates (cd_grid_of_points).
static inline double cd_tri_tri_grid(const cd_triangle *t, const cd_triangle *o)
{
    const cd_vec3 *pts[6] = {&t->v[0], &t->v[1], &t->v[2], &o->v[0], &o->v[1], &o->v[2]};
    return cd_grid_of_points(pts, 6);
}

/// The largest |coordinate| of two triangles: branch-free, as a tree of maxima in floating point
/// (integer exponent maxima next to the grid's minima cost more here: spills and a serial chain).
static inline double cd_tri_tri_top(const cd_triangle *t, const cd_triangle *o)
{
    const cd_vec3 *p[6] = {&t->v[0], &t->v[1], &t->v[2], &o->v[0], &o->v[1], &o->v[2]};
    double m[6];
    for (int i = 0; i < 6; ++i) m[i] = CD_MAX(CD_MAX(CD_ABS(p[i]->x), CD_ABS(p[i]->y)), CD_ABS(p[i]->z));
    return CD_MAX(CD_MAX(CD_MAX(m[0], m[1]), CD_MAX(m[2], m[3])), CD_MAX(m[4], m[5]));
}

#if CD_PLANE_SSE2
/// 1 when the nine coordinates at p are integers of magnitude below 2^25, folding their largest
/// magnitude into *top: two at a time, an integer by its round trip through int32 (out-of-range
/// lanes convert to INT32_MIN, which no small coordinate equals).
static inline int cd_small_ints9(const double *p, __m128d *top)
{
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX)), limit = _mm_set1_pd(0x1p25);
    __m128d ok = _mm_castsi128_pd(_mm_set1_epi64x(-1));
    for (int i = 0; i < 10; i += 2) {
        __m128d x = i < 8 ? _mm_loadu_pd(p + i) : _mm_load_sd(p + 8), a = _mm_and_pd(x, abs_mask);
        *top = _mm_max_pd(*top, a);
        __m128d back = _mm_cvtepi32_pd(_mm_cvttpd_epi32(x));
        ok = _mm_and_pd(ok, _mm_and_pd(_mm_cmplt_pd(a, limit), _mm_cmpeq_pd(back, x)));
    }
    return _mm_movemask_pd(ok) == 3;
}
#endif

/// The two triangles' grid and top. When every coordinate is an integer below 2^25 in magnitude,
/// g = 1: every use of g needs only a power of two dividing every coordinate (a smaller one makes
/// a certificate only harder to earn: 2e < g³, top < 2^25 · g), and on such a lattice g = 1 earns
/// them all, so integer input (the usual coplanar case) skips the bit scan of the 18 coordinates.
/// Otherwise g is the exact grid (cd_tri_tri_grid). The integer test is certificate bookkeeping, as
/// the bit scan is, so the counting build does not count it; top is counted as before.
static inline cd_grid cd_tri_tri_grid_top(const cd_triangle *t, const cd_triangle *o)
{
    cd_grid grid;
#if CD_PLANE_SSE2
    __m128d top = _mm_setzero_pd();
    int ints = cd_small_ints9(&t->v[0].x, &top) & cd_small_ints9(&o->v[0].x, &top);
    grid.top = _mm_cvtsd_f64(_mm_max_sd(top, _mm_unpackhi_pd(top, top)));
#else
    grid.top = cd_tri_tri_top(t, o);
    int ints = 1;
    const double *c[2] = {&t->v[0].x, &o->v[0].x};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 9; ++i)
            ints &= fabs(c[k][i]) < 0x1p25 && (double)(int32_t)c[k][i] == c[k][i];  // cast only below 2^25
#endif
    grid.g = ints ? 1.0 : cd_tri_tri_grid(t, o);
    return grid;
}

/// The exact signs: the shared filter's where it is certain, then vertex j's own bound
/// k · max|w_j| (tighter when the other vertices lie farther from t_0). What neither decides
/// depends on the rounded value. A rounded 0 (coplanar input: every operation was exact) is
/// certified exactly 0 when its bound is below half the coordinate grid cubed (the six points'
/// grid, computed once into grid->g, which stays as it was if not needed). A rounded non-zero
/// value (near-touching input, whose coordinates have no useful grid) goes straight to cd_orient3d,
/// whose permanent bound (Shewchuk's) is much tighter than k · m_w — on near-touching pairs it
/// leaves 7 of 8192 pairs to the expansions where going to them directly left 291 — and which tries
/// its own four-point grid before the expansions.
static inline void cd_plane_signs_grid(const cd_triangle *t, const cd_triangle *o, const cd_plane_eval *pe, int s[3],
                                       cd_grid *grid)
{
    int zero_ok = -1;  // 2e < g³: every rounded 0 is exact (one test serves the three; −1: not yet)
    for (int j = 0; j < 3; ++j) {
        if (CD_GT(pe->d[j], pe->e)) {
            s[j] = 1;
            continue;
        }
        if (CD_LT(pe->d[j], -pe->e)) {
            s[j] = -1;
            continue;
        }
        if (!CD_EQ(pe->d[j], 0.0)) {
            const cd_vec3 *p = &o->v[j], *t0 = &t->v[0];
            double m =
                CD_MAX(CD_MAX(CD_ABS(CD_SUB(p->x, t0->x)), CD_ABS(CD_SUB(p->y, t0->y))), CD_ABS(CD_SUB(p->z, t0->z)));
            double ej = CD_MUL(pe->k, m);
            s[j] = CD_GT(pe->d[j], ej) ? 1 : (CD_LT(pe->d[j], -ej) ? -1 : cd_orient3d(&t->v[0], &t->v[1], &t->v[2], p));
            continue;
        }
        if (zero_ok < 0) {
            if (grid->g < 0) *grid = cd_tri_tri_grid_top(t, o);
            // |exact| <= e while the exact value is a multiple of g³.
            double g = grid->g;
            zero_ok = CD_LT(CD_MUL(2.0, pe->e), CD_MUL(CD_MUL(g, g), g));
        }
        s[j] = zero_ok ? 0 : cd_orient3d(&t->v[0], &t->v[1], &t->v[2], &o->v[j]);
    }
}

/// cd_plane_signs_grid without returning the grid.
static inline void cd_plane_signs(const cd_triangle *t, const cd_triangle *o, const cd_plane_eval *pe, int s[3])
{
    cd_grid grid = {-1, -1};
    cd_plane_signs_grid(t, o, pe, s, &grid);
}

/// The coordinate of the largest |component| of pe->n (a projection preference only).
static inline int cd_plane_drop_hint(const cd_plane_eval *pe)
{
    double ax = fabs(pe->n[0]), ay = fabs(pe->n[1]), az = fabs(pe->n[2]);
    return ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
}

/// 1 when all three signs are the same non-zero sign.
static inline int cd_signs_one_side(const int s[3]) { return s[0] != 0 && s[0] == s[1] && s[1] == s[2]; }

#endif
