// SPDX-License-Identifier: MIT
// Triangle–triangle tests: the known-answer corpus (contact counts), the orientation
// predicates against 128-bit integer determinants, invariance of the answer under the 72 vertex
// orderings × argument swaps and under power-of-two scaling on >= 100 000 random and constructed
// pairs, and the counting build (same answers; the seed's 39 / 107 / 207 operation counts for the
// plain-float variant). The oracle comparison on a million pairs is test_narrow_tri_tri_oracle.c.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>

#include "cd_narrow.h"
#include "op_count.h"
#include "predicates.h"
#include "tri_tri_gen.h"
#include "tri_tri_plane.h"
#include "test_util.h"

enum { INVARIANCE_PAIRS = 120000 };

typedef int (*tri_tri_fn)(const cd_triangle *, const cd_triangle *);

static const struct {
    const char *name;
    tri_tri_fn fn;
} exact_algos[] = {{"plane-first", cd_tri_tri_overlap}, {"guigue-devillers", cd_tri_tri_overlap_gd}};

static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

static cd_triangle tri(double ax, double ay, double az, double bx, double by, double bz, double cx, double cy,
                       double cz)
{
    return (cd_triangle){{cd_v3(ax, ay, az), cd_v3(bx, by, bz), cd_v3(cx, cy, cz)}};
}

static cd_triangle permuted(const cd_triangle *t, int p)
{
    return (cd_triangle){{t->v[perms[p][0]], t->v[perms[p][1]], t->v[perms[p][2]]}};
}

static cd_triangle scaled(const cd_triangle *t, double s)
{
    cd_triangle r;
    for (int i = 0; i < 3; ++i) r.v[i] = cd_v3_scale(t->v[i], s);
    return r;
}

/// The answer of fn on (a, b) for all 72 variants; returns -1 if they differ, else the answer.
static int all_variants(tri_tri_fn fn, const cd_triangle *a, const cd_triangle *b)
{
    int first = fn(a, b);
    for (int pa = 0; pa < 6; ++pa)
        for (int pb = 0; pb < 6; ++pb) {
            cd_triangle x = permuted(a, pa), y = permuted(b, pb);
            if (fn(&x, &y) != first || fn(&y, &x) != first) return -1;
        }
    return first;
}

// ---------------------------------------------------------------------------------------------
// Known answers

typedef struct known_case {
    const char *name;
    cd_triangle a, b;
    int expect;
    int robust;  ///< answer survives rounding the coordinates (safe under decimal scaling)
} known_case;

static known_case known[64];
static int known_count;

static void add_case(const char *name, cd_triangle a, cd_triangle b, int expect, int robust)
{
    known[known_count++] = (known_case){name, a, b, expect, robust};
}

static void build_corpus(void)
{
    known_count = 0;
    cd_triangle base = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);  // in z = 0
    add_case("shared vertex", base, tri(0, 0, 0, -1, -2, 3, -3, 1, 2), 1, 0);
    add_case("shared edge, folded", base, tri(0, 0, 0, 4, 0, 0, 1, -1, 3), 1, 0);
    add_case("shared edge, coplanar outside", base, tri(0, 0, 0, 4, 0, 0, 2, -3, 0), 1, 0);
    add_case("vertex on face", base, tri(1, 1, 0, 2, 2, 5, 0, 3, 4), 1, 0);
    add_case("vertex just above face", base, tri(1, 1, 0x1p-40, 2, 2, 5, 0, 3, 4), 0, 0);
    add_case("edge crossing edge", base, tri(2, -1, 1, 2, 1, -1, 2, -3, 1), 1, 0);
    add_case("edge lying across edge", base, tri(2, -1, 0, 2, 1, 0, 2, 0, 3), 1, 0);
    add_case("edge touching face", base, tri(1, 1, 0, 2, 1, 0, 1, 1, 3), 1, 0);
    add_case("edge piercing face", base, tri(1, 1, -1, 1, 1, 1, 3, 3, 1), 1, 1);
    add_case("crossing planes, apart", base, tri(5, 5, -1, 5, 5, 1, 7, 7, 1), 0, 1);
    add_case("edge passing outside edge", base, tri(2, 2.5, -1, 2, 2.5, 1, 9, 9, 0), 0, 1);
    add_case("coplanar overlapping", base, tri(1, 1, 0, 5, 1, 0, 1, 5, 0), 1, 1);
    add_case("coplanar disjoint", base, tri(3, 3, 0, 6, 3, 0, 3, 6, 0), 0, 1);
    add_case("coplanar nested", base, tri(0.5, 0.5, 0, 1.5, 0.5, 0, 0.5, 1.5, 0), 1, 1);
    add_case("coplanar star (no vertex inside)", tri(0, 0, 0, 6, 0, 0, 3, 6, 0), tri(0, 4, 0, 6, 4, 0, 3, -2, 0), 1, 1);
    add_case("coplanar touching at a point", base, tri(4, 0, 0, 6, 0, 0, 5, -2, 0), 1, 0);
    add_case("coplanar vertex on edge", base, tri(2, 2, 0, 5, 5, 0, 6, 2, 0), 1, 0);
    add_case("coplanar touching along an edge", base, tri(1, 0, 0, 3, 0, 0, 2, -2, 0), 1, 0);
    add_case("coplanar gap 2^-40", base, tri(4 + 0x1p-40, 0, 0, 6, 0, 0, 5, -2, 0), 0, 0);
    add_case("parallel separated planes", base, tri(0, 0, 1, 4, 0, 1, 0, 4, 1), 0, 1);
    add_case("parallel planes 2^-50 apart", base, tri(0, 0, 0x1p-50, 4, 0, 0x1p-50, 0, 4, 0x1p-50), 0, 0);
    // Degenerate triangles.
    cd_triangle point_in = tri(1, 1, 0, 1, 1, 0, 1, 1, 0), point_out = tri(1, 1, 1, 1, 1, 1, 1, 1, 1);
    add_case("point in face", point_in, base, 1, 0);
    add_case("point off face", point_out, base, 0, 1);
    add_case("point at vertex", tri(4, 0, 0, 4, 0, 0, 4, 0, 0), base, 1, 0);
    add_case("segment piercing face", tri(1, 1, -1, 1, 1, 1, 1, 1, 1), base, 1, 1);
    add_case("segment above face", tri(1, 1, 1, 2, 1, 1, 2, 1, 1), base, 0, 1);
    add_case("segment in plane crossing edge", tri(3, 3, 0, 1, 1, 0, 3, 3, 0), base, 1, 0);
    add_case("segment in plane outside", tri(3, 3, 0, 5, 3, 0, 4, 3, 0), base, 0, 1);
    add_case("collinear triple through face", tri(1, 1, -2, 1, 1, 2, 1, 1, 1), base, 1, 1);
    add_case("collinear triple touching edge", tri(2, -1, 0, 2, 0, 0, 2, -3, 0), base, 1, 0);
    add_case("segment vs segment crossing", tri(0, 0, 0, 2, 2, 0, 1, 1, 0), tri(0, 2, 0, 2, 0, 0, 2, 0, 0), 1, 0);
    add_case("segment vs segment skew", tri(0, 0, 0, 2, 2, 0, 2, 2, 0), tri(0, 2, 1, 2, 0, 1, 2, 0, 1), 0, 1);
    add_case("collinear segments overlapping", tri(0, 0, 0, 2, 2, 2, 1, 1, 1), tri(1, 1, 1, 3, 3, 3, 3, 3, 3), 1, 0);
    add_case("collinear segments apart", tri(0, 0, 0, 1, 1, 1, 1, 1, 1), tri(2, 2, 2, 3, 3, 3, 3, 3, 3), 0, 1);
    add_case("point on segment", tri(1, 2, 3, 1, 2, 3, 1, 2, 3), tri(0, 0, 0, 2, 4, 6, 2, 4, 6), 1, 0);
    add_case("point beside segment", tri(1, 2, 3.5, 1, 2, 3.5, 1, 2, 3.5), tri(0, 0, 0, 2, 4, 6, 2, 4, 6), 0, 1);
    add_case("point equals point", tri(1, 2, 3, 1, 2, 3, 1, 2, 3), tri(1, 2, 3, 1, 2, 3, 1, 2, 3), 1, 0);
    add_case("point vs other point", tri(1, 2, 3, 1, 2, 3, 1, 2, 3), tri(1, 2, 4, 1, 2, 4, 1, 2, 4), 0, 1);
    // Near-coplanar: b tilted by 1e-7 rad against a's plane.
    const double t = 1e-7;
    add_case("tilt 1e-7 crossing inside", base, tri(1, 1, -t, 3, 1, t, 1, 2, -t), 1, 1);
    add_case("tilt 1e-7 above", base, tri(1, 1, t, 3, 1, 3 * t, 1, 2, t), 0, 1);
    add_case("tilt 1e-7 crossing outside", base, tri(5, 5, -t, 7, 5, t, 5, 7, -t), 0, 1);
    add_case("tilt 1e-7 touching at a vertex", base, tri(4, 0, 0, 6, 0, 2 * t, 5, -2, 0), 1, 0);
}

static void test_known_answers(void **state)
{
    (void)state;
    build_corpus();
    static const double decimal[] = {1e-6, 1e-3, 1e3, 1e6};
    for (int i = 0; i < known_count; ++i) {
        const known_case *c = &known[i];
        for (size_t k = 0; k < sizeof exact_algos / sizeof exact_algos[0]; ++k) {
            // Powers of two from about 1e-6 to 1e6 keep every contact exact.
            for (int e = -20; e <= 20; e += 5) {
                cd_triangle a = scaled(&c->a, ldexp(1.0, e)), b = scaled(&c->b, ldexp(1.0, e));
                int got = all_variants(exact_algos[k].fn, &a, &b);
                if (got != c->expect)
                    fail_msg("%s: %s at 2^%d gave %d, expected %d", exact_algos[k].name, c->name, e, got, c->expect);
            }
            for (size_t d = 0; c->robust && d < sizeof decimal / sizeof decimal[0]; ++d) {
                cd_triangle a = scaled(&c->a, decimal[d]), b = scaled(&c->b, decimal[d]);
                int got = all_variants(exact_algos[k].fn, &a, &b);
                if (got != c->expect)
                    fail_msg("%s: %s at %g gave %d, expected %d", exact_algos[k].name, c->name, decimal[d], got,
                             c->expect);
            }
        }
    }
    assert_true(known_count >= 40);
}

static void test_explain_names_branch(void **state)
{
    (void)state;
    build_corpus();
    cd_tri_tri_why why;
    cd_triangle base = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);
    cd_triangle above = tri(0, 0, 1, 4, 0, 1, 0, 4, 2);
    assert_int_equal(cd_tri_tri_overlap_explain(&base, &above, &why), 0);
    assert_int_equal(why, CD_TT_PLANE_A);
    cd_triangle cop = tri(1, 1, 0, 5, 1, 0, 1, 5, 0);
    assert_int_equal(cd_tri_tri_overlap_explain(&base, &cop, &why), 1);
    assert_int_equal(why, CD_TT_COPLANAR_OVERLAP);
    cd_triangle pierce = tri(1, 1, -1, 1, 1, 1, 3, 3, 1);
    assert_int_equal(cd_tri_tri_overlap_explain(&base, &pierce, &why), 1);
    assert_int_equal(why, CD_TT_SLICES_OVERLAP);
    cd_triangle pt = tri(1, 1, 0, 1, 1, 0, 1, 1, 0);
    assert_int_equal(cd_tri_tri_overlap_explain(&base, &pt, &why), 1);
    assert_int_equal(why, CD_TT_DEGENERATE_OVERLAP);
    assert_string_equal(cd_tri_tri_why_name(CD_TT_SLICES_DISJOINT), "slices_disjoint");
}

// ---------------------------------------------------------------------------------------------
// Predicates against 128-bit integer determinants

static cd_vec3 ipt_to_v3(ipt p, double s) { return cd_v3((double)p.c[0] * s, (double)p.c[1] * s, (double)p.c[2] * s); }

static void test_predicates_exact(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(5, CD_STREAM_TEST + 1);
    long zeros = 0, filtered_wrong = 0, naive_wrong = 0;
    for (int n = 0; n < 200000; ++n) {
        // Points exactly on, or one unit off, a plane with 2^34-long edges: the float determinant
        // carries errors near 2^55 where the true value is 0, so a sign from rounding would be wrong
        // and only the filter's refusal plus the expansions get these right.
        ipt o = ipt_rand(&r, (int64_t)1 << 38), u = ipt_rand(&r, (int64_t)1 << 34), v = ipt_rand(&r, (int64_t)1 << 34);
        ipt a = o, b = ipt_comb(o, u, v, irand(&r, -5, 5), irand(&r, -5, 5)),
            c = ipt_comb(o, u, v, irand(&r, -5, 5), irand(&r, -5, 5));
        ipt d = ipt_comb(o, u, v, irand(&r, -5, 5), irand(&r, -5, 5));
        d.c[cd_rng_below(&r, 3)] += irand(&r, -1, 1);
        int want = iorient3d(a, b, c, d);
        double s = ldexp(1.0, (int)irand(&r, -60, 60));
        cd_vec3 pa = ipt_to_v3(a, s), pb = ipt_to_v3(b, s), pc = ipt_to_v3(c, s), pd = ipt_to_v3(d, s);
        zeros += want == 0;
        cd_vec3 nu = cd_v3_sub(pb, pa), nv = cd_v3_sub(pc, pa), nw = cd_v3_sub(pd, pa);
        double naive = cd_v3_dot(cd_v3_cross(nu, nv), nw);
        naive_wrong += ((naive > 0) - (naive < 0)) != want;
        if (cd_orient3d(&pa, &pb, &pc, &pd) != want || cd_orient3d_exact(&pa, &pb, &pc, &pd) != want) filtered_wrong++;
        int k = (int)cd_rng_below(&r, 3);
        int want2 = iorient2d(a, b, d, k);
        if (cd_orient2d(cd_pt2_drop(pa, k), cd_pt2_drop(pb, k), cd_pt2_drop(pd, k)) != want2 ||
            cd_orient2d_exact(cd_pt2_drop(pa, k), cd_pt2_drop(pb, k), cd_pt2_drop(pd, k)) != want2)
            filtered_wrong++;
    }
    assert_int_equal(filtered_wrong, 0);
    assert_true(zeros > 10000);        // the sample really holds exact zeros
    assert_true(naive_wrong > 10000);  // ... and plain rounding gets many signs wrong
    // Shewchuk's classic: points near the line y = x at 0.5 + i·2^-53 on a 32×32 grid.
    for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) {
            cd_pt2 p = {0.5 + i * 0x1p-53, 0.5 + j * 0x1p-53}, q = {12, 12}, s = {24, 24};
            int want = j > i ? 1 : (j < i ? -1 : 0);
            // det[q − p, s − p] = 12·((s−p) ... ) reduces to the sign of (p.y − p.x) for this line.
            assert_int_equal(cd_orient2d(p, q, s), want);
        }
}

// ---------------------------------------------------------------------------------------------
// Invariance

static void test_invariance(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(11, CD_STREAM_TEST + 2);
    long hits = 0, checked = 0;
    for (int n = 0; n < INVARIANCE_PAIRS; ++n) {
        cd_triangle a, b;
        if (n % 4 == 3) {  // plain random doubles (small triangles in a unit box, a/H = 0.3)
            for (int i = 0; i < 3; ++i) {
                a.v[i] = cd_v3(cd_rng_uniform(&r), cd_rng_uniform(&r), cd_rng_uniform(&r));
                b.v[i] = cd_v3(cd_rng_uniform(&r), cd_rng_uniform(&r), cd_rng_uniform(&r));
            }
            for (int i = 1; i < 3; ++i) {
                a.v[i] = cd_v3_add(a.v[0], cd_v3_scale(cd_v3_sub(a.v[i], a.v[0]), 0.3));
                b.v[i] = cd_v3_add(b.v[0], cd_v3_scale(cd_v3_sub(b.v[i], b.v[0]), 0.3));
            }
        } else {
            itri ia, ib;
            itri_pair(&r, n % ITRI_FAMILIES, &ia, &ib);
            a = itri_to_tri(&ia, 1.0);
            b = itri_to_tri(&ib, 1.0);
        }
        int e = (int)cd_rng_below(&r, 121) - 60;
        cd_triangle as = scaled(&a, ldexp(1.0, e)), bs = scaled(&b, ldexp(1.0, e));
        int first = -2;
        for (size_t k = 0; k < sizeof exact_algos / sizeof exact_algos[0]; ++k) {
            int v = all_variants(exact_algos[k].fn, &a, &b);
            if (v < 0) fail_msg("%s: answer changes with vertex order / swap (pair %d)", exact_algos[k].name, n);
            if (exact_algos[k].fn(&as, &bs) != v)
                fail_msg("%s: answer changes under scaling by 2^%d (pair %d)", exact_algos[k].name, e, n);
            if (first == -2) first = v;
            if (v != first) fail_msg("plane-first and Guigue–Devillers disagree (pair %d)", n);
            checked++;
        }
        hits += first;
    }
    assert_int_equal(checked, 2 * INVARIANCE_PAIRS);
    assert_true(hits > INVARIANCE_PAIRS / 10 && hits < INVARIANCE_PAIRS * 9 / 10);
}

// Both builds of both plane-first variants (SSE2 and AVX, CD_TRI_TRI_ENTRIES) give the same answer
// and the same deciding branch on every pair of the invariance test's families, each also scaled
// by a power of two and with the arguments swapped: the entry points run one build per process
// (CDLAB_NO_AVX2 picks SSE2), and this compares them on any machine with AVX.
static void test_builds_agree(void **state)
{
    (void)state;
#if CD_TRI_TRI_AVX
    if (!__builtin_cpu_supports("avx")) skip();
    const cd_tri_tri_explain_fn build[2][2] = {{cd_tri_tri_build(0), cd_tri_tri_build(1)},
                                               {cd_tri_tri_float_build(0), cd_tri_tri_float_build(1)}};
    cd_rng r = cd_rng_make(12, CD_STREAM_TEST + 3);
    long hits[2] = {0, 0}, why_seen[2] = {0, 0};
    for (int n = 0; n < INVARIANCE_PAIRS; ++n) {
        cd_triangle t[2];
        if (n % 4 == 3) {
            for (int k = 0; k < 2; ++k)
                for (int i = 0; i < 3; ++i)
                    t[k].v[i] = cd_v3(cd_rng_uniform(&r), cd_rng_uniform(&r), cd_rng_uniform(&r));
        } else {
            itri ia, ib;
            itri_pair(&r, n % ITRI_FAMILIES, &ia, &ib);
            t[0] = itri_to_tri(&ia, 1.0), t[1] = itri_to_tri(&ib, 1.0);
        }
        double f = ldexp(1.0, (int)cd_rng_below(&r, 121) - 60);
        cd_triangle sc[2] = {scaled(&t[0], f), scaled(&t[1], f)};
        const cd_triangle *pair[4][2] = {{&t[0], &t[1]}, {&t[1], &t[0]}, {&sc[0], &sc[1]}, {&sc[1], &sc[0]}};
        for (int v = 0; v < 2; ++v)
            for (int p = 0; p < 4; ++p) {
                cd_tri_tri_why w0 = CD_TT_WHY_COUNT, w1 = CD_TT_WHY_COUNT;
                int h0 = build[v][0](pair[p][0], pair[p][1], &w0), h1 = build[v][1](pair[p][0], pair[p][1], &w1);
                if (h0 != h1 || w0 != w1)
                    fail_msg("%s variant, pair %d (%d): SSE2 build %d (%s), AVX build %d (%s)", v ? "float" : "exact",
                             n, p, h0, cd_tri_tri_why_name(w0), h1, cd_tri_tri_why_name(w1));
                hits[v] += h0;
                why_seen[v] |= 1L << w0;
            }
    }
    for (int v = 0; v < 2; ++v) {  // both answers, and every generic branch, were compared
        assert_true(hits[v] > INVARIANCE_PAIRS / 2 && hits[v] < 4L * INVARIANCE_PAIRS * 9 / 10);
        for (int w = CD_TT_PLANE_A; w <= CD_TT_SLICES_OVERLAP; ++w) assert_true(why_seen[v] >> w & 1);
    }
#else
    skip();
#endif
}

// ---------------------------------------------------------------------------------------------
// Counting build

static uint64_t arith(void) { return cd_op_tally.addsub + cd_op_tally.mul + cd_op_tally.div; }

// cd_grid_of_points (one exponent minimum, one power of two) equals the smallest cd_grid_of of the
// coordinates, for zeros, negatives, subnormals, integers and values with many low zero bits.
static void test_grid_of_points(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(11, CD_STREAM_TEST + 11);
    for (int it = 0; it < 200000; ++it) {
        cd_vec3 v[2];
        double c[6];
        for (int i = 0; i < 6; ++i) {
            uint64_t b = cd_rng_next(&r);
            switch (cd_rng_below(&r, 5)) {
            case 0: b = cd_rng_below(&r, 2) << 63; break;                         // ±0
            case 1: b &= ((UINT64_C(1) << 52) - 1) | (UINT64_C(1) << 63); break;  // subnormal
            case 2: b &= ~((UINT64_C(1) << cd_rng_below(&r, 52)) - 1); break;     // low zeros
            case 3: {
                double x = (double)cd_rng_below(&r, 1001) - 500;
                memcpy(&b, &x, sizeof b);
            } break;
            default: break;
            }
            memcpy(&c[i], &b, sizeof b);
            if (!isfinite(c[i])) c[i] = 0x1p-30;
        }
        v[0] = cd_v3(c[0], c[1], c[2]), v[1] = cd_v3(c[3], c[4], c[5]);
        const cd_vec3 *pts[2] = {&v[0], &v[1]};
        double want = INFINITY;
        for (int i = 0; i < 6; ++i) want = fmin(want, cd_grid_of(c[i]));
        double got = cd_grid_of_points(pts, 2);
        EXPECT_EQ(got, want);
    }
}

static void test_counting_build(void **state)
{
    (void)state;
    cd_triangle base = tri(0, 0, 0, 4, 0, 0, 0, 4, 0);
    // Plane rejection: 39 for the plain variant (15 for N, 24 for three plane values).
    cd_triangle above = tri(0, 0, 1, 4, 0, 1, 0, 4, 2);
    cd_op_tally = (cd_op_counts){0};
    assert_int_equal(cd_count_tri_tri_overlap_float(&base, &above), 0);
    assert_int_equal(arith(), 39);
    assert_int_equal(cd_op_tally.div, 0);
    // The filtered-exact variant adds 3 for the one error bound of the three vertices
    // (CD_PLANE_ERR · m_t · m_t · m_w).
    cd_op_tally = (cd_op_counts){0};
    assert_int_equal(cd_count_tri_tri_overlap(&base, &above), 0);
    assert_int_equal(arith(), 42);
    assert_int_equal(cd_op_tally.exact, 0);
    // A generic crossing pair with two-edge slices: 39 + 39 + 9 + 4·5 = 107, four divisions.
    cd_triangle pierce = tri(1, 1, -1, 2, 1.5, 1, 3, 3, 2);
    cd_op_tally = (cd_op_counts){0};
    assert_int_equal(cd_count_tri_tri_overlap_float(&base, &pierce), 1);
    assert_int_equal(arith(), 107);
    assert_int_equal(cd_op_tally.div, 4);
    // Coplanar pair that no edge separates: 78 + 9 + 6·20 = 207.
    cd_triangle cop = tri(1, 1, 0, 5, 1, 0, 1, 5, 0);
    cd_op_tally = (cd_op_counts){0};
    assert_int_equal(cd_count_tri_tri_overlap_float(&base, &cop), 1);
    assert_int_equal(arith(), 207);
    // The counted copies answer like the fast ones.
    cd_rng r = cd_rng_make(3, CD_STREAM_TEST + 3);
    for (int n = 0; n < 20000; ++n) {
        itri ia, ib;
        itri_pair(&r, n % ITRI_FAMILIES, &ia, &ib);
        cd_triangle a = itri_to_tri(&ia, 1.0), b = itri_to_tri(&ib, 1.0);
        assert_int_equal(cd_count_tri_tri_overlap(&a, &b), cd_tri_tri_overlap(&a, &b));
        assert_int_equal(cd_count_tri_tri_overlap_gd(&a, &b), cd_tri_tri_overlap_gd(&a, &b));
        assert_int_equal(cd_count_tri_tri_overlap_float(&a, &b), cd_tri_tri_overlap_float(&a, &b));
    }
}

// A coplanar pair in z = 0 at scale 2^L: a's edge a0 = 0 → a1 = (P, Q) with P ~ 2^L, and b0 the
// lattice point at edge function P·y − Q·x = ±k (k <= 3) inside the edge's span, b1 and b2 beyond
// b0 or across the line: the side of b0, decided by a value of a few units next to products of
// about 2^2L, separates the pair or not.
static void near_line_pair(cd_rng *r, int L, itri *a, itri *b)
{
    int64_t P = irand(r, (int64_t)1 << (L - 1), (int64_t)1 << L), Q = irand(r, -((int64_t)1 << L), (int64_t)1 << L);
    int side = cd_rng_below(r, 2) ? 1 : -1;
    ipt b0 = line_lattice_point(P, Q, irand(r, 1, 3) * side);
    int64_t off = (int64_t)1 << (L - 3), up = cd_rng_below(r, 2) ? 1 : -1;
    a->v[0] = (ipt){{0, 0, 0}};
    a->v[1] = (ipt){{P, Q, 0}};
    a->v[2] = (ipt){{irand(r, 0, P), Q + up * irand(r, off, 4 * off), 0}};
    b->v[0] = b0;
    int far = cd_rng_below(r, 2) ? side : -side;
    for (int i = 1; i < 3; ++i)
        b->v[i] = (ipt){{b->v[0].c[0] + irand(r, -off, off), b->v[0].c[1] + far * irand(r, off, 4 * off), 0}};
}

// Coplanar pairs whose largest coordinate lies between 2^22 and 2^29, around 2^25, the limit below
// which the coplanar test computes its edge values exactly without bounds (near_line_pair: above
// the limit, rounded values would get the side of b0 wrong): all agree with the 128-bit oracle at
// power-of-two scales, for the plain call, the argument swap and the counted copy.
static void test_coplanar_lattice_limit(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(25, CD_STREAM_TEST + 25);
    long below = 0, above = 0, hits = 0;
    for (int n = 0; n < 100000; ++n) {
        itri ia, ib;
        near_line_pair(&r, 23 + n % 6, &ia, &ib);
        int64_t top = 0;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k)
                top = imax(top, imax(ia.v[i].c[k] < 0 ? -ia.v[i].c[k] : ia.v[i].c[k],
                                     ib.v[i].c[k] < 0 ? -ib.v[i].c[k] : ib.v[i].c[k]));
        top < ((int64_t)1 << 25) ? ++below : ++above;
        int want = itri_tri(&ia, &ib);
        double s = ldexp(1.0, (int)cd_rng_below(&r, 81) - 40);
        cd_triangle a = itri_to_tri(&ia, s), b = itri_to_tri(&ib, s);
        assert_int_equal(cd_tri_tri_overlap(&a, &b), want);
        assert_int_equal(cd_tri_tri_overlap(&b, &a), want);
        assert_int_equal(cd_count_tri_tri_overlap(&a, &b), want);
        hits += want;
    }
    print_message("# coplanar near-line: %ld pairs below 2^25, %ld above, %ld intersecting\n", below, above, hits);
    assert_true(below > 10000 && above > 10000 && hits > 10000 && hits < 90000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),          cmocka_unit_test(test_explain_names_branch),
        cmocka_unit_test(test_predicates_exact),       cmocka_unit_test(test_invariance),
        cmocka_unit_test(test_counting_build),         cmocka_unit_test(test_grid_of_points),
        cmocka_unit_test(test_coplanar_lattice_limit), cmocka_unit_test(test_builds_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
