// SPDX-License-Identifier: MIT
// shape: enclosures are conservative to the last bit (OBB → AABB, bounding spheres), AABB helpers,
// OBB construction. Exact corners are evaluated in binary128 (products of two doubles are exact
// there), so "inside" is checked against the true corner, not a rounded copy of it.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <stdio.h>

#include "cd_shape.h"
#include "test_util.h"

// 113-bit significand: a product of two doubles is exact, and a sum of four such terms carries a
// relative error of 2^-113, far below the one-ulp (2^-53) margins the enclosures promise.
#ifdef __SIZEOF_FLOAT128__
__extension__ typedef __float128 wide;
#else
typedef long double wide;
#endif

enum { RANDOM_BOXES = 200000 };

/// Component i of the exact corner k of b (bit j of k set: +half_j along axis j).
static wide exact_corner(const cd_obb *b, int k, int i)
{
    double h[3] = {b->half.x, b->half.y, b->half.z};
    wide x = (wide)cd_v3_get(b->c, i);
    for (int j = 0; j < 3; ++j) {
        wide t = (wide)h[j] * (wide)cd_v3_get(b->axes.col[j], i);
        x += (k >> j & 1) ? t : -t;
    }
    return x;
}

/// 10^u for u uniform in [lo, hi]: magnitudes spread evenly over decades.
static double log_uniform(cd_rng *r, double lo, double hi) { return pow(10.0, cd_rng_range(r, lo, hi)); }

static double signed_log_uniform(cd_rng *r, double lo, double hi)
{
    double m = log_uniform(r, lo, hi);
    return (cd_rng_next(r) & 1) ? m : -m;
}

/// A random box whose centre and half-extents each range over 1e-6 .. 1e6, independently, so
/// tiny boxes at huge coordinates (radius below one ulp of the centre) occur often.
static cd_obb random_wild_box(cd_rng *r)
{
    cd_vec3 c = cd_v3(signed_log_uniform(r, -6, 6), signed_log_uniform(r, -6, 6), signed_log_uniform(r, -6, 6));
    cd_vec3 h = cd_v3(log_uniform(r, -6, 6), log_uniform(r, -6, 6), log_uniform(r, -6, 6));
    return cd_obb_from_pose(c, cd_rng_rotation(r), h);
}

/// Number of the 8 exact and 8 rounded corners of b that lie outside a (0 when a encloses b).
static int corners_outside(const cd_obb *b, cd_aabb a)
{
    int outside = 0;
    cd_vec3 rounded[8];
    cd_obb_corners(b, rounded);
    for (int k = 0; k < 8; ++k)
        for (int i = 0; i < 3; ++i) {
            wide x = exact_corner(b, k, i);
            double y = cd_v3_get(rounded[k], i);
            double lo = cd_v3_get(a.lo, i), hi = cd_v3_get(a.hi, i);
            outside += (x < (wide)lo || x > (wide)hi);
            outside += (y < lo || y > hi);
        }
    return outside;
}

static void obb_aabb_encloses_corners_random(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(1, CD_STREAM_TEST + 1);
    long outside = 0;
    for (int n = 0; n < RANDOM_BOXES; ++n) {
        cd_obb b = random_wild_box(&r);
        outside += corners_outside(&b, cd_obb_aabb(&b));
    }
    printf("# obb_aabb: %d random boxes (centres, half-extents 1e-6..1e6), corners outside: %ld\n", RANDOM_BOXES,
           outside);
    assert_int_equal(outside, 0);
}

static void obb_aabb_encloses_subulp_boxes(void **state)
{
    (void)state;
    // Adversarial for rounding: the box radius is a fraction of one ulp of the centre, so every
    // addition in cd_obb_corners and in the bound rounds, in the same direction as often as not.
    cd_rng r = cd_rng_make(2, CD_STREAM_TEST + 2);
    long outside = 0;
    for (int n = 0; n < RANDOM_BOXES; ++n) {
        double base = signed_log_uniform(&r, -6, 6);
        double ulp = nextafter(fabs(base), INFINITY) - fabs(base);
        cd_vec3 c = cd_v3(base, -base, base * 0.75);
        cd_vec3 h =
            cd_v3(ulp * cd_rng_range(&r, 0.0, 2.0), ulp * cd_rng_range(&r, 0.0, 2.0), ulp * cd_rng_range(&r, 0.0, 2.0));
        cd_obb b = cd_obb_from_pose(c, cd_rng_rotation(&r), h);
        outside += corners_outside(&b, cd_obb_aabb(&b));
    }
    assert_int_equal(outside, 0);
}

/// ±2^e·(1 + u), u uniform in [0, 0.03): just above a power of two.
static double above_power_of_two(cd_rng *r, int e)
{
    double x = ldexp(1.0 + cd_rng_range(r, 0.0, 0.03), e);
    return (cd_rng_next(r) & 1) ? x : -x;
}

static void obb_aabb_encloses_binade_crossing_boxes(void **state)
{
    (void)state;
    // Centres just above a power of two, radii a few percent of it: the lower corners fall into
    // the binade below, where the ulp halves, while cd_obb_corners rounds its partial sums in the
    // binade above. This is the case that once escaped the bound by one ulp.
    cd_rng r = cd_rng_make(8, CD_STREAM_TEST + 8);
    long outside = 0;
    for (int n = 0; n < RANDOM_BOXES; ++n) {
        int e = (int)cd_rng_below(&r, 41) - 20;
        cd_vec3 c = cd_v3(above_power_of_two(&r, e), above_power_of_two(&r, e), above_power_of_two(&r, e));
        double s = ldexp(1.0, e);
        cd_vec3 h = cd_v3(s * cd_rng_range(&r, 0.001, 0.03), s * cd_rng_range(&r, 0.001, 0.03),
                          s * cd_rng_range(&r, 0.001, 0.03));
        cd_obb b = cd_obb_from_pose(c, cd_rng_rotation(&r), h);
        outside += corners_outside(&b, cd_obb_aabb(&b));
    }
    printf("# obb_aabb: %d boxes straddling a power of two, corners outside: %ld\n", RANDOM_BOXES, outside);
    assert_int_equal(outside, 0);
}

static void obb_aabb_is_tight(void **state)
{
    (void)state;
    // Outward rounding must stay a rounding: the bound exceeds the exact extent by a few ulps only
    // (a bound that grew without limit would also "enclose").
    cd_rng r = cd_rng_make(3, CD_STREAM_TEST + 3);
    for (int n = 0; n < 20000; ++n) {
        cd_obb b = random_wild_box(&r);
        cd_aabb a = cd_obb_aabb(&b);
        for (int i = 0; i < 3; ++i) {
            wide lo = exact_corner(&b, 0, i), hi = lo;
            for (int k = 1; k < 8; ++k) {
                wide x = exact_corner(&b, k, i);
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            double mag = fabs(cd_v3_get(b.c, i)) + (double)(hi - lo);
            wide slack = (wide)(8.0 * DBL_EPSILON * mag);
            assert_true((wide)cd_v3_get(a.hi, i) - hi <= slack);
            assert_true(lo - (wide)cd_v3_get(a.lo, i) <= slack);
        }
    }
    // Axis-aligned unit cube at the origin: the bound is ±1 widened by rounding only.
    cd_obb unit = {cd_v3(0, 0, 0), cd_m3_identity(), cd_v3(1, 1, 1)};
    cd_aabb a = cd_obb_aabb(&unit);
    assert_true(a.hi.x >= 1.0 && a.hi.x <= 1.0 + 16 * DBL_EPSILON);
    assert_true(a.lo.z <= -1.0 && a.lo.z >= -1.0 - 16 * DBL_EPSILON);
}

/// True when the exact point p lies in the closed sphere s (squared distance in binary128).
static int wide_in_sphere(const wide p[3], cd_sphere s)
{
    wide d2 = 0;
    for (int i = 0; i < 3; ++i) {
        wide d = p[i] - (wide)cd_v3_get(s.c, i);
        d2 += d * d;
    }
    return d2 <= (wide)s.r * (wide)s.r;
}

static void obb_bounding_sphere_encloses_corners(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(4, CD_STREAM_TEST + 4);
    long outside = 0;
    for (int n = 0; n < RANDOM_BOXES / 2; ++n) {
        cd_obb b = random_wild_box(&r);
        cd_sphere s = cd_obb_bounding_sphere(&b);
        for (int k = 0; k < 8; ++k) {
            wide p[3] = {exact_corner(&b, k, 0), exact_corner(&b, k, 1), exact_corner(&b, k, 2)};
            outside += !wide_in_sphere(p, s);
        }
        // Tight: no more than a few ulps beyond |half|.
        assert_true(s.r <= cd_v3_len(b.half) * (1.0 + 64 * DBL_EPSILON));
    }
    assert_int_equal(outside, 0);
}

static void aabb_bounding_sphere_encloses_corners(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(5, CD_STREAM_TEST + 5);
    long outside = 0;
    for (int n = 0; n < RANDOM_BOXES / 2; ++n) {
        cd_vec3 p = cd_v3(signed_log_uniform(&r, -6, 6), signed_log_uniform(&r, -6, 6), signed_log_uniform(&r, -6, 6));
        cd_vec3 q = cd_v3(signed_log_uniform(&r, -6, 6), signed_log_uniform(&r, -6, 6), signed_log_uniform(&r, -6, 6));
        cd_aabb a = {cd_v3_min(p, q), cd_v3_max(p, q)};
        cd_sphere s = cd_aabb_bounding_sphere(a);
        for (int k = 0; k < 8; ++k) {
            wide c[3] = {(k & 1) ? a.hi.x : a.lo.x, (k & 2) ? a.hi.y : a.lo.y, (k & 4) ? a.hi.z : a.lo.z};
            outside += !wide_in_sphere(c, s);
        }
    }
    assert_int_equal(outside, 0);
    // A box of half-diagonal 13 (3, 4, 12): radius 13 up to the outward rounding.
    cd_sphere s = cd_aabb_bounding_sphere((cd_aabb){cd_v3(-3, -4, -12), cd_v3(3, 4, 12)});
    assert_true(s.c.x == 0 && s.c.y == 0 && s.c.z == 0);
    assert_true(s.r >= 13.0 && s.r <= 13.0 * (1 + 64 * DBL_EPSILON));
}

static void aabb_of_points_is_smallest(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(6, CD_STREAM_TEST + 6);
    cd_vec3 p[50];
    for (int n = 0; n < 1000; ++n) {
        size_t count = 1 + (size_t)cd_rng_below(&r, 50);
        for (size_t k = 0; k < count; ++k)
            p[k] = cd_v3(cd_rng_range(&r, -5, 5), cd_rng_range(&r, -5, 5), cd_rng_range(&r, -5, 5));
        cd_aabb a = cd_aabb_of_points(p, count);
        int hits[6] = {0};
        for (size_t k = 0; k < count; ++k) {
            assert_true(cd_aabb_contains(a, (cd_aabb){p[k], p[k]}));
            for (int i = 0; i < 3; ++i) {
                hits[i] |= cd_v3_get(p[k], i) == cd_v3_get(a.lo, i);
                hits[3 + i] |= cd_v3_get(p[k], i) == cd_v3_get(a.hi, i);
            }
        }
        // Every face of the box is touched by some point: nothing smaller contains them all.
        for (int i = 0; i < 6; ++i) assert_true(hits[i]);
    }
    cd_vec3 one = cd_v3(1, -2, 3);
    cd_aabb a = cd_aabb_of_points(&one, 1);
    assert_true(a.lo.x == 1 && a.hi.x == 1 && a.lo.y == -2 && a.hi.z == 3);
}

static void aabb_union_and_contains(void **state)
{
    (void)state;
    cd_aabb a = {cd_v3(0, 0, 0), cd_v3(1, 1, 1)};
    cd_aabb b = {cd_v3(2, -1, 0.5), cd_v3(3, 0.5, 4)};
    cd_aabb u = cd_aabb_union(a, b);
    assert_true(u.lo.x == 0 && u.lo.y == -1 && u.lo.z == 0);
    assert_true(u.hi.x == 3 && u.hi.y == 1 && u.hi.z == 4);
    assert_true(cd_aabb_contains(u, a) && cd_aabb_contains(u, b));
    assert_false(cd_aabb_contains(a, u));
    assert_false(cd_aabb_contains(a, b) || cd_aabb_contains(b, a));
    // Closed boxes: a box contains itself and a box sharing its faces.
    assert_true(cd_aabb_contains(a, a));
    assert_true(cd_aabb_contains(a, (cd_aabb){cd_v3(0, 0.5, 0), cd_v3(1, 1, 0.5)}));
    // One ulp out on any single face is not contained.
    for (int i = 0; i < 6; ++i) {
        cd_aabb c = a;
        double *f = i < 3 ? &c.lo.x + i : &c.hi.x + (i - 3);
        *f = i < 3 ? cd_round_down(*f) : cd_round_up(*f);
        assert_false(cd_aabb_contains(a, c));
        assert_true(cd_aabb_contains(c, a));
    }
    // Union is commutative, idempotent and grows monotonically.
    cd_aabb v = cd_aabb_union(b, a);
    assert_memory_equal(&u, &v, sizeof u);
    v = cd_aabb_union(a, a);
    assert_memory_equal(&a, &v, sizeof a);
}

static void obb_from_pose_orthonormal(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(7, CD_STREAM_TEST + 7);
    double worst = 0.0;
    for (int n = 0; n < 100000; ++n) {
        cd_vec3 c = cd_v3(cd_rng_range(&r, -10, 10), cd_rng_range(&r, -10, 10), cd_rng_range(&r, -10, 10));
        cd_vec3 h = cd_v3(cd_rng_range(&r, 0, 3), cd_rng_range(&r, 0, 3), cd_rng_range(&r, 0, 3));
        cd_quat q = cd_rng_rotation(&r);
        cd_obb b = cd_obb_from_pose(c, q, h);
        assert_memory_equal(&b.c, &c, sizeof c);
        assert_memory_equal(&b.half, &h, sizeof h);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double e = fabs(cd_v3_dot(b.axes.col[i], b.axes.col[j]) - (i == j ? 1.0 : 0.0));
                worst = fmax(worst, e);
            }
        // Right-handed (a rotation, not a reflection).
        double det = cd_v3_dot(cd_v3_cross(b.axes.col[0], b.axes.col[1]), b.axes.col[2]);
        assert_true(fabs(det - 1.0) < 1e-14);
        // Axis i is the quaternion's image of the world unit vector e_i.
        cd_vec3 e0 = cd_q_rotate(q, cd_v3(1, 0, 0));
        assert_true(cd_v3_len(cd_v3_sub(e0, b.axes.col[0])) < 1e-15);
        // Corner k sits at ±half along each axis, bit j of k choosing the sign on axis j.
        cd_vec3 corner[8];
        cd_obb_corners(&b, corner);
        for (int k = 0; k < 8; ++k) {
            cd_vec3 local = cd_m3_tmul_v(b.axes, cd_v3_sub(corner[k], c));
            for (int j = 0; j < 3; ++j) {
                double want = (k >> j & 1) ? cd_v3_get(h, j) : -cd_v3_get(h, j);
                assert_true(fabs(cd_v3_get(local, j) - want) < 1e-13);
            }
        }
    }
    printf("# obb_from_pose: worst |axesᵀ·axes − I| entry over 100000 poses: %.3g\n", worst);
    assert_true(worst < 32 * DBL_EPSILON);
    // Identity pose gives the identity axes exactly.
    cd_obb b = cd_obb_from_pose(cd_v3(1, 2, 3), cd_q_identity(), cd_v3(1, 1, 1));
    cd_mat3 id = cd_m3_identity();
    assert_memory_equal(&b.axes, &id, sizeof id);
}

// cd_round_up/cd_round_down are bit arithmetic; they must equal libm's nextafter everywhere.
static void outward_rounding_equals_nextafter(void **state)
{
    (void)state;
    const double special[] = {0.0,     -0.0,     0x1p-1074, -0x1p-1074, 0x1p-1022, -0x1p-1022, 1.0, -1.0,
                              DBL_MAX, -DBL_MAX, INFINITY,  -INFINITY,  0.1,       -3e300,     2.0, -2.0};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; ++i) {
        double x = special[i];
        EXPECT_EQ(cd_round_up(x), nextafter(x, INFINITY));
        EXPECT_EQ(cd_round_down(x), nextafter(x, -INFINITY));
        EXPECT_EQ(signbit(cd_round_up(x)), signbit(nextafter(x, INFINITY)));
        EXPECT_EQ(signbit(cd_round_down(x)), signbit(nextafter(x, -INFINITY)));
    }
    assert_true(isnan(cd_round_up(NAN)) && isnan(cd_round_down(NAN)));
    cd_rng r = cd_rng_make(9, CD_STREAM_TEST + 9);
    for (int i = 0; i < 1000000; ++i) {
        union {
            uint64_t u;
            double d;
        } b = {.u = cd_rng_next(&r)};
        if (isnan(b.d)) continue;
        EXPECT_EQ(cd_round_up(b.d), nextafter(b.d, INFINITY));
        EXPECT_EQ(cd_round_down(b.d), nextafter(b.d, -INFINITY));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(obb_aabb_encloses_corners_random),
        cmocka_unit_test(obb_aabb_encloses_subulp_boxes),
        cmocka_unit_test(obb_aabb_encloses_binade_crossing_boxes),
        cmocka_unit_test(obb_aabb_is_tight),
        cmocka_unit_test(obb_bounding_sphere_encloses_corners),
        cmocka_unit_test(aabb_bounding_sphere_encloses_corners),
        cmocka_unit_test(aabb_of_points_is_smallest),
        cmocka_unit_test(aabb_union_and_contains),
        cmocka_unit_test(obb_from_pose_orthonormal),
        cmocka_unit_test(outward_rounding_equals_nextafter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
