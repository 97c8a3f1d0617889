// SPDX-License-Identifier: MIT
// core: RNG streams pinned by golden values, generator statistics, vec/mat/quat identities, the
// part queue.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_core.h"
#include "cd_csv.h"
#include "test_util.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

static void splitmix64_reference_value(void **state)
{
    (void)state;
    uint64_t s = 0;
    // First output of splitmix64 from state 0, as in Vigna's reference implementation.
    EXPECT_EQ(cd_splitmix64(&s), 0xe220a8397b1dcdafULL);
}

static void xoshiro_reference_sequence(void **state)
{
    (void)state;
    // xoshiro256** from state {1, 2, 3, 4}: outputs of the reference C implementation.
    cd_rng r = {{1, 2, 3, 4}};
    EXPECT_EQ(cd_rng_next(&r), 11520ULL);
    EXPECT_EQ(cd_rng_next(&r), 0ULL);
    EXPECT_EQ(cd_rng_next(&r), 1509978240ULL);
    EXPECT_EQ(cd_rng_next(&r), 1215971899390074240ULL);
}

static void seed_42_streams_golden(void **state)
{
    (void)state;
    // Pinned: changing these changes every scene cdlab has ever produced.
    const uint64_t place[4] = {0x180247f2e3635182ULL, 0xccc3601b72c88777ULL, 0x9089cff698d1db80ULL,
                               0xa93cda9a18f0e97eULL};
    const uint64_t motion[2] = {0x52bae5da57981f0bULL, 0xa5c439fc638d6c55ULL};
    cd_rng r = cd_rng_make(42, CD_STREAM_SCENE_PLACE);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(cd_rng_next(&r), place[i]);
    r = cd_rng_make(42, CD_STREAM_SCENE_MOTION);
    for (int i = 0; i < 2; ++i) EXPECT_EQ(cd_rng_next(&r), motion[i]);
    r = cd_rng_make(42, CD_STREAM_SCENE_PLACE);
    EXPECT_EQ(cd_rng_uniform(&r), 0.093784806059727943);
}

static void streams_differ_and_repeat(void **state)
{
    (void)state;
    cd_rng a = cd_rng_make(7, 1), b = cd_rng_make(7, 2), c = cd_rng_make(7, 1);
    int same = 0;
    for (int i = 0; i < 100; ++i) {
        uint64_t x = cd_rng_next(&a), y = cd_rng_next(&b), z = cd_rng_next(&c);
        same += x == y;
        EXPECT_EQ(x, z);
    }
    EXPECT_EQ(same, 0);
}

static void uniform_moments(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(1, CD_STREAM_TEST);
    const int n = 200000;
    double sum = 0, sum2 = 0, lo = 1, hi = 0;
    for (int i = 0; i < n; ++i) {
        double u = cd_rng_uniform(&r);
        assert_true(u >= 0.0 && u < 1.0);
        sum += u;
        sum2 += u * u;
        lo = fmin(lo, u);
        hi = fmax(hi, u);
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    // Standard error of the mean is 0.00065 for n = 200000; 5 sigma bounds.
    assert_true(fabs(mean - 0.5) < 0.0033);
    assert_true(fabs(var - 1.0 / 12.0) < 0.002);
    assert_true(lo < 1e-4 && hi > 1 - 1e-4);
    uint64_t counts[7] = {0};
    for (int i = 0; i < 70000; ++i) counts[cd_rng_below(&r, 7)]++;
    for (int k = 0; k < 7; ++k) assert_true(counts[k] > 9500 && counts[k] < 10500);
}

static void rotations_uniform_and_unit(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(2, CD_STREAM_TEST);
    const int n = 100000;
    cd_vec3 mean_axis = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        cd_quat q = cd_rng_rotation(&r);
        assert_true(fabs(cd_q_norm(q) - 1.0) < 1e-12);
        // The image of x under a uniform rotation is uniform on the sphere: its mean is 0.
        mean_axis = cd_v3_add(mean_axis, cd_q_rotate(q, cd_v3(1, 0, 0)));
    }
    mean_axis = cd_v3_scale(mean_axis, 1.0 / n);
    assert_true(cd_v3_len(mean_axis) < 0.01);
    cd_vec3 u = cd_rng_unit_vector(&r);
    assert_true(fabs(cd_v3_len(u) - 1.0) < 1e-12);
}

static void quaternion_matrix_consistency(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(3, CD_STREAM_TEST);
    for (int i = 0; i < 1000; ++i) {
        cd_quat a = cd_rng_rotation(&r), b = cd_rng_rotation(&r);
        cd_mat3 ma = cd_q_to_m3(a), mb = cd_q_to_m3(b), mab = cd_q_to_m3(cd_q_mul(a, b));
        cd_mat3 prod = cd_m3_mul(ma, mb);
        cd_mat3 should_be_identity = cd_m3_tmul(ma, ma);
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k) {
                assert_true(fabs(cd_v3_get(prod.col[c], k) - cd_v3_get(mab.col[c], k)) < 1e-12);
                assert_true(fabs(cd_v3_get(should_be_identity.col[c], k) - (c == k)) < 1e-12);
            }
        // Orthonormal right-handed frame: col0 × col1 = col2.
        cd_vec3 z = cd_v3_cross(ma.col[0], ma.col[1]);
        assert_true(cd_v3_len(cd_v3_sub(z, ma.col[2])) < 1e-12);
        cd_vec3 v = cd_v3(0.3, -1.2, 2.5);
        assert_true(cd_v3_len(cd_v3_sub(cd_m3_tmul_v(ma, cd_m3_mul_v(ma, v)), v)) < 1e-12);
        assert_true(cd_v3_len(cd_v3_sub(cd_m3_mul_v(cd_m3_transpose(ma), v), cd_m3_tmul_v(ma, v))) < 1e-15);
    }
    // A rotation vector of pi/2 about z maps x to y.
    cd_quat q = cd_q_from_rotvec(cd_v3(0, 0, 1.5707963267948966));
    cd_vec3 y = cd_q_rotate(q, cd_v3(1, 0, 0));
    assert_true(fabs(y.x) < 1e-15 && fabs(y.y - 1.0) < 1e-15 && fabs(y.z) < 1e-15);
    cd_quat id = cd_q_from_rotvec(cd_v3(0, 0, 0));
    assert_true(id.w == 1.0 && id.x == 0.0 && id.y == 0.0 && id.z == 0.0);
}

static void vector_basics(void **state)
{
    (void)state;
    cd_vec3 a = cd_v3(1, 2, 3), b = cd_v3(-4, 5, 0.5);
    EXPECT_EQ(cd_v3_dot(a, b), 1 * -4 + 2 * 5 + 3 * 0.5);
    cd_vec3 c = cd_v3_cross(a, b);
    assert_true(cd_v3_dot(c, a) == 0.0 && cd_v3_dot(c, b) == 0.0);
    assert_true(cd_v3_get(b, 0) == -4 && cd_v3_get(b, 1) == 5 && cd_v3_get(b, 2) == 0.5);
    cd_vec3 m = cd_v3_min(a, b), M = cd_v3_max(a, b);
    assert_true(m.x == -4 && m.y == 2 && m.z == 0.5 && M.x == 1 && M.y == 5 && M.z == 3);
    assert_true(fabs(cd_v3_len(cd_v3_normalize(b)) - 1.0) < 1e-15);
}

static void grow_keeps_contents(void **state)
{
    (void)state;
    int *items = NULL;
    size_t cap = 0;
    for (int i = 0; i < 1000; ++i) {
        cd_grow((void **)&items, sizeof *items, &cap, (size_t)i + 1);
        items[i] = i * 3;
    }
    assert_true(cap >= 1000);
    for (int i = 0; i < 1000; ++i) assert_int_equal(items[i], i * 3);
    cd_free(items);
}

// Every finite double printed with %.17g reads back to the same bits, subnormals included;
// overflow, underflow to zero, text around the number and non-finite values are errors.
static void csv_numbers_round_trip(void **state)
{
    (void)state;
    const double values[] = {0.0,
                             -0.0,
                             1.0,
                             -2.5,
                             0.1,
                             1e-300,
                             4.9406564584124654e-324,
                             2.2250738585072009e-308,
                             -3e-320,
                             1.7976931348623157e308,
                             123456789.125};
    for (size_t i = 0; i < sizeof values / sizeof *values; ++i) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", values[i]);
        double v = 42;
        assert_int_equal(cd_csv_parse_double(buf, &v), 0);
        assert_memory_equal(&v, &values[i], sizeof v);
    }
    // A CR, LF or form feed before or after the number (in a quoted field: a line's CR LF is
    // taken off before its fields) is text around it, not white space to skip.
    const char *bad[] = {"",  "  ",  "1e400", "-1e400",  "1e-400", "inf",   "nan",   "1.5x",
                         "x", "1,5", "2.5\r", " 2.5 \r", "\r2.5",  "\n2.5", "2.5\f", "\v2.5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        double v = 42;
        assert_int_not_equal(cd_csv_parse_double(bad[i], &v), CD_NUMBER_OK);
        EXPECT_EQ(v, 42);
    }
    double v = 0;
    assert_int_equal(cd_csv_parse_double(" \t2.5 \t", &v), 0);
    EXPECT_EQ(v, 2.5);
    // Why, for messages to say (options and CSV readers alike): only a number that rounds to 0
    // gets words of its own.
    assert_int_equal(cd_csv_parse_double("1e-400", &v), CD_NUMBER_ROUNDS_TO_ZERO);
    assert_int_equal(cd_csv_parse_double("-1e-400", &v), CD_NUMBER_ROUNDS_TO_ZERO);
    assert_int_equal(cd_csv_parse_double("1e400", &v), CD_NUMBER_NOT_FINITE);
    assert_int_equal(cd_csv_parse_double("nan", &v), CD_NUMBER_NOT_FINITE);
    assert_int_equal(cd_csv_parse_double("1e-400x", &v), CD_NUMBER_NOT_A_NUMBER);
    assert_int_equal(cd_csv_parse_double("x", &v), CD_NUMBER_NOT_A_NUMBER);
    assert_string_equal(cd_number_fault_note(CD_NUMBER_ROUNDS_TO_ZERO), " (it rounds to 0; for zero write 0)");
    assert_string_equal(cd_number_fault_note(CD_NUMBER_NOT_FINITE), "");
}

// A method parameter reads its number as config values and CSV fields do: a subnormal is exact
// and taken (strtod's ERANGE once refused it as "expected a number"), one that rounds to 0 is
// refused saying so, and a range or integer check still applies.
// A plugin's parameter table is checked on loading against what settings can hold: a name that
// fits a setting's slot, finite ends (whole for an INT), words that fit a value's slot. Each of
// these once passed the check and then aborted where a variant's plan was probed at its ends.
static void param_table_fits_the_settings(void **state)
{
    (void)state;
    static const char *const long_word[] = {"a", "a_word_of_forty_eight_characters_for_the_slot_xx", NULL};
    static const char *const short_word[] = {"a", "a_word_of_forty_seven_characters_for_the_slot_x", NULL};
    const struct {
        cd_param_spec spec;
        const char *why;  // NULL: accepted
    } cases[] = {
        {{"a_parameter_name_of_thirty_two_x", CD_PARAM_INT, "2", 0, 32, NULL, "h"},
         "has a name of 32 characters: expected at most 31"},
        {{"a_parameter_name_of_thirty_one_", CD_PARAM_INT, "2", 0, 32, NULL, "h"}, NULL},
        {{"l", CD_PARAM_REAL, "2", -INFINITY, INFINITY, NULL, "h"}, "has min -inf and max inf: expected finite ends"},
        {{"l", CD_PARAM_REAL, "2", 0, INFINITY, NULL, "h"}, "expected finite ends"},
        {{"l", CD_PARAM_REAL, "2", -1e300, 1e300, NULL, "h"}, NULL},
        {{"l", CD_PARAM_INT, "1", 0.5, 3.5, NULL, "h"}, "is an INT with min 0.5 and max 3.5: expected whole ends"},
        {{"w", CD_PARAM_WORD, "a", 0, 0, long_word, "h"}, "has a word of 48 characters: expected at most 47"},
        {{"w", CD_PARAM_WORD, "a", 0, 0, short_word, "h"}, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char why[200] = "";
        int ok = cd_param_table_ok(&cases[k].spec, 1, why, sizeof why);
        if (!cases[k].why) {
            assert_int_equal(ok, 1);
            continue;
        }
        assert_int_equal(ok, 0);
        EXPECT_CONTAINS(why, cases[k].why);
    }
}

static void param_numbers_read_as_everywhere(void **state)
{
    (void)state;
    static const cd_param_spec spec[] = {
        {"r", CD_PARAM_REAL, "0", 0, 1, NULL, "a real"},
        {"i", CD_PARAM_INT, "1", 0, 10, NULL, "an integer"},
    };
    cd_params p = cd_params_defaults(spec, 2);
    char why[200];
    assert_int_equal(cd_params_set(&p, "r", "1e-310", why, sizeof why), 0);
    EXPECT_EQ(p.num[0], 1e-310);
    assert_int_equal(cd_params_set(&p, "r", "1e-400", why, sizeof why), -1);
    assert_string_equal(why, "'1e-400': expected a number (it rounds to 0; for zero write 0)");
    assert_int_equal(cd_params_set(&p, "r", "0.5x", why, sizeof why), -1);
    assert_string_equal(why, "'0.5x': expected a number");
    assert_int_equal(cd_params_set(&p, "r", "2", why, sizeof why), -1);
    assert_int_equal(cd_params_set(&p, "i", "2.5", why, sizeof why), -1);
    assert_string_equal(why, "'2.5': expected an integer");
    assert_int_equal(cd_params_set(&p, "i", "7", why, sizeof why), 0);
    EXPECT_EQ(p.num[1], 7.0);
}

// One thread drains a dealt queue: its own run from the front, then the last part of the
// longest run left (the first such run on a tie).
// A field as messages quote it: what a terminal would hide or act on is spelled out, and a long
// field is cut with "..." inside the buffer.
static void text_shown_escapes_and_cuts(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(cd_text_shown("1.5e3", buf, sizeof buf), "1.5e3");
    assert_string_equal(cd_text_shown("1\f", buf, sizeof buf), "1\\x0C");
    assert_string_equal(cd_text_shown("\xC2\xA0"
                                      "1",
                                      buf, sizeof buf),
                        "\\xC2\\xA01");
    assert_string_equal(cd_text_shown("a\tb\rc\\d\x1B[31m", buf, sizeof buf), "a\\tb\\rc\\\\d\\x1B[31m");
    char small[12];
    assert_string_equal(cd_text_shown("0123456789abcdef", small, sizeof small), "01234567...");
    assert_string_equal(cd_text_shown("\x01\x02\x03", small, sizeof small), "\\x01\\x02...");
    assert_string_equal(cd_text_shown("", small, sizeof small), "");
}

static void part_queue_takes_own_run_then_longest_tail(void **state)
{
    (void)state;
    cd_part_queue q;
    cd_part_queue_deal(&q, 10, 3);  // runs [0, 3), [3, 6), [6, 10)
    uint32_t k;
    assert_true(cd_part_queue_take(&q, 1, &k) && k == 3);
    assert_true(cd_part_queue_take(&q, 2, &k) && k == 6);
    const uint32_t expect[] = {0, 1, 2, 9, 5, 8, 4, 7};
    for (size_t i = 0; i < sizeof expect / sizeof *expect; ++i) {
        assert_true(cd_part_queue_take(&q, 0, &k));
        assert_int_equal(k, expect[i]);
    }
    assert_false(cd_part_queue_take(&q, 0, &k));
    assert_false(cd_part_queue_take(&q, 2, &k));
    cd_part_queue_deal(&q, 0, 1);
    assert_false(cd_part_queue_take(&q, 0, &k));
}

// Four threads at once, one of which starts only when the others found nothing left: every
// part is taken exactly once, and the late thread's whole run went to the others.
static void part_queue_parts_taken_once_across_threads(void **state)
{
    (void)state;
    enum { PARTS = 20000, THREADS = 4, ROUNDS = 20 };
    static _Atomic uint32_t taken[PARTS];
    static uint32_t by[PARTS];
    cd_part_queue q;
    omp_set_dynamic(0);
    for (int round = 0; round < ROUNDS; ++round) {
        for (uint32_t i = 0; i < PARTS; ++i) atomic_store(&taken[i], 0);
        _Atomic int done = 0;
        int team = 0;
#pragma omp parallel num_threads(THREADS)
        {
#pragma omp single
            {
                team = omp_get_num_threads();
                cd_part_queue_deal(&q, PARTS, (uint32_t)team);
            }
            uint32_t t = (uint32_t)omp_get_thread_num(), k;
            if (t + 1 == (uint32_t)team)
                while (atomic_load(&done) < team - 1) {}
            while (cd_part_queue_take(&q, t, &k)) {
                atomic_fetch_add(&taken[k], 1);
                by[k] = t;
            }
            atomic_fetch_add(&done, 1);
        }
        assert_int_equal(team, THREADS);
        for (uint32_t i = 0; i < PARTS; ++i) assert_int_equal(atomic_load(&taken[i]), 1);
        for (uint32_t i = PARTS * (THREADS - 1) / THREADS; i < PARTS; ++i) assert_true(by[i] < THREADS - 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splitmix64_reference_value),
        cmocka_unit_test(xoshiro_reference_sequence),
        cmocka_unit_test(seed_42_streams_golden),
        cmocka_unit_test(streams_differ_and_repeat),
        cmocka_unit_test(uniform_moments),
        cmocka_unit_test(rotations_uniform_and_unit),
        cmocka_unit_test(quaternion_matrix_consistency),
        cmocka_unit_test(vector_basics),
        cmocka_unit_test(text_shown_escapes_and_cuts),
        cmocka_unit_test(grow_keeps_contents),
        cmocka_unit_test(csv_numbers_round_trip),
        cmocka_unit_test(param_numbers_read_as_everywhere),
        cmocka_unit_test(param_table_fits_the_settings),
        cmocka_unit_test(part_queue_takes_own_run_then_longest_tail),
        cmocka_unit_test(part_queue_parts_taken_once_across_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
