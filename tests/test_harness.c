// SPDX-License-Identifier: MIT
// Harness unit tests: SHA-256 vectors, value lists and ranges, config errors with file:line,
// plan order, statistics, the counter NA path, pinning, and one tiny run end to end.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "cd_registry.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// The names a plugin's parameter may not have (cd_config_name_taken, which the plugin loader asks)
// are not those of cdlab's own methods and variants either: the rule refuses nothing cdlab does.
static void test_builtin_params_take_no_key_name(void **state)
{
    (void)state;
    char what[200];
    size_t nm, nv;
    const cd_broad_method *const *m = cd_registry_methods(&nm);
    const cd_bvh_variant *const *v = cd_registry_variants(&nv);
    for (size_t i = 0; i < nm; ++i)
        for (size_t k = 0; k < m[i]->param_count; ++k)
            if (cd_config_name_taken(cd_kinds(), m[i]->params[k].name, what, sizeof what))
                fail_msg("method %s: parameter %s is %s", m[i]->name, m[i]->params[k].name, what);
    for (size_t i = 0; i < nv; ++i)
        for (size_t k = 0; k < v[i]->param_count; ++k)
            if (cd_config_name_taken(cd_kinds(), v[i]->params[k].name, what, sizeof what))
                fail_msg("variant %s: parameter %s is %s", v[i]->name, v[i]->params[k].name, what);
    // What it does refuse: a key of any section of any kind, the kinds' and the runner's columns.
    const char *taken[] = {"seed",  "threads", "method",          "plugin", "hierarchy",
                           "cubes", "pairs",   "frame_ms_median", "point",  "peak_rss_bytes"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; ++i)
        assert_true(cd_config_name_taken(cd_kinds(), taken[i], what, sizeof what));
    assert_false(cd_config_name_taken(cd_kinds(), "cell_factor", what, sizeof what));
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    char h[65];
    cd_sha256_hex("", 0, h);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    cd_sha256_hex("abc", 3, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";  // 56 bytes: two tail blocks
    cd_sha256_hex(two, strlen(two), h);
    assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    size_t n = 1000000;
    char *a = malloc(n);
    memset(a, 'a', n);
    cd_sha256_hex(a, n, h);
    free(a);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static const cd_key_spec int_sweep = {"s", "k", CD_KEY_INT, "1", 0, 1e9, NULL, NULL, 1, ""};
static const cd_key_spec real_sweep = {"s", "r", CD_KEY_REAL, "1", 0, 100, NULL, NULL, 1, ""};
static const cd_key_spec int_single = {"s", "one", CD_KEY_INT, "1", 0, 10, NULL, NULL, 0, ""};
static const char *const words[] = {"a", "b", NULL};
static const cd_key_spec word_sweep = {"s", "w", CD_KEY_WORD, "a", 0, 0, words, NULL, 1, ""};

static size_t parse_ok(const cd_key_spec *spec, const char *text, cd_value **v)
{
    size_t n;
    char why[256];
    int rc = cd_values_parse(spec, text, v, &n, why, sizeof why);
    if (rc) fprintf(stderr, "unexpected error for '%s': %s\n", text, why);
    assert_int_equal(rc, 0);
    return n;
}

static void parse_bad(const cd_key_spec *spec, const char *text, const char *expect)
{
    cd_value *v;
    size_t n;
    char why[256] = "";
    assert_int_equal(cd_values_parse(spec, text, &v, &n, why, sizeof why), -1);
    assert_null(v);
    if (!strstr(why, expect)) fprintf(stderr, "'%s': message '%s' lacks '%s'\n", text, why, expect);
    assert_non_null(strstr(why, expect));
}

static void test_value_lists_and_ranges(void **state)
{
    (void)state;
    cd_value *v;
    size_t n = parse_ok(&int_sweep, "250..64000 *2", &v);
    assert_int_equal(n, 9);
    assert_true(v[0].num == 250 && v[8].num == 64000);
    assert_string_equal(v[3].text, "2000");
    cd_values_free(v, n);
    n = parse_ok(&int_sweep, "1..8", &v);
    assert_int_equal(n, 8);
    EXPECT_EQ(v[7].num, 8);
    cd_values_free(v, n);
    n = parse_ok(&real_sweep, "0..1 +0.25", &v);
    assert_int_equal(n, 5);
    assert_true(v[4].num == 1.0 && v[1].num == 0.25);
    cd_values_free(v, n);
    // An exponent's sign is no step: 1e+0 is the end, 2.5e-1 the step.
    n = parse_ok(&real_sweep, "0..1e+0 +2.5e-1", &v);
    assert_int_equal(n, 5);
    assert_true(v[4].num == 1.0 && v[1].num == 0.25);
    cd_values_free(v, n);
    n = parse_ok(&int_sweep, "1..1E+3 *10", &v);
    assert_int_equal(n, 4);
    EXPECT_EQ(v[3].num, 1000);
    cd_values_free(v, n);
    n = parse_ok(&real_sweep, "0..1 +0.1", &v);  // 0.1 steps must still reach 1 despite rounding
    assert_int_equal(n, 11);
    cd_values_free(v, n);
    n = parse_ok(&int_sweep, " 500, 1000 ,2000, 10..30 +10", &v);
    assert_int_equal(n, 6);
    assert_true(v[2].num == 2000 && v[5].num == 30);
    cd_values_free(v, n);
    n = parse_ok(&word_sweep, "b, a", &v);
    assert_int_equal(n, 2);
    assert_string_equal(v[0].text, "b");
    cd_values_free(v, n);

    parse_bad(&int_sweep, "", "empty list");
    parse_bad(&int_sweep, "1,,2", "empty item");
    parse_bad(&int_sweep, "lots", "not a number");
    parse_bad(&int_sweep, "2.5", "not an integer");
    parse_bad(&int_sweep, "-1", "out of range");
    parse_bad(&int_sweep, "400..100", "empty range");
    parse_bad(&int_sweep, "100..800 *1", "factor > 1");
    parse_bad(&int_sweep, "1..5 +0", "step > 0");
    parse_bad(&int_sweep, "1..x", "bad range");
    // A number that rounds to 0 is said to, as the command-line options say it.
    parse_bad(&real_sweep, "1e-400", "'1e-400': expected a number (it rounds to 0; for zero write 0)");
    parse_bad(&real_sweep, "1e-400..1", "with numbers (it rounds to 0; for zero write 0)");
    parse_bad(&int_sweep, "1..1000000", "more than");
    parse_bad(&int_single, "1, 2", "exactly one");
    parse_bad(&int_single, "1..3", "not allowed");
    parse_bad(&word_sweep, "c", "expected one of");
    parse_bad(&word_sweep, "a, a", "twice");
    parse_bad(&word_sweep, "a b", "not a word");
}

// An integer key's value is judged on its text, not on the double it rounds to: 2^53 + 1 reads as
// 2^53 and 2^53 + 0.5 as an integer, so [experiment] seed took both and ran with 2^53.
static const cd_key_spec seed_spec = {"s", "seed", CD_KEY_INT, "1", 0, 9007199254740992.0, NULL, NULL, 1, ""};

static void test_integer_values_judged_on_text(void **state)
{
    (void)state;
    cd_value *v;
    size_t n = parse_ok(&seed_spec, "9007199254740992, 1e3, 2.50e1, 1000e-3, 0.0e5", &v);
    EXPECT_EQ(n, 5);
    EXPECT_EQ(v[0].num, 9007199254740992.0);
    EXPECT_EQ(v[1].num, 1000.0);
    EXPECT_EQ(v[2].num, 25.0);
    EXPECT_EQ(v[3].num, 1.0);
    EXPECT_EQ(v[4].num, 0.0);
    cd_values_free(v, n);
    parse_bad(&seed_spec, "9007199254740993", "9007199254740993 out of range: expected 0..9007199254740992");
    parse_bad(&seed_spec, "9007199254740992.5", "'9007199254740992.5' is not an integer");
    parse_bad(&seed_spec, "90071992547409925e-1", "not an integer");
    parse_bad(&seed_spec, "1e30", "out of range");
    parse_bad(&int_sweep, "1.0000000000000001", "not an integer");  // the double is 1
    parse_bad(&int_sweep, "0x10", "not an integer: expected decimal digits");
    // A range's values are exact too: 2^53 + 1 does not round onto the bound 2^53.
    n = parse_ok(&seed_spec, "9007199254740988..9007199254740993 +2", &v);
    EXPECT_EQ(n, 3);
    EXPECT_EQ(v[2].num, 9007199254740992.0);
    cd_values_free(v, n);
    parse_bad(&seed_spec, "9007199254740991..9007199254740993 +2", "9007199254740993 out of range");
    parse_bad(&seed_spec, "9007199254740993..9007199254740995", "9007199254740993 out of range");
    parse_bad(&seed_spec, "9007199254740993..9007199254740993 *1.5", "9007199254740993 out of range");
    n = parse_ok(&seed_spec, "4503599627370496..9007199254740993 *2", &v);  // 2^52, 2^53
    EXPECT_EQ(n, 2);
    EXPECT_EQ(v[1].num, 9007199254740992.0);
    cd_values_free(v, n);
    parse_bad(&seed_spec, "1.5..4", "range start '1.5' is not an integer");
    parse_bad(&seed_spec, "1..4.5", "range end '4.5' is not an integer");
    expect_config_error("[experiment]\nseed = 9007199254740993\n", "bad.ini:2:", "out of range");
    expect_config_error("[experiment]\nframes = 1\nseed = 9007199254740992.5\n", "bad.ini:3:", "not an integer");
}

// A range's end reached within its rounding tolerance is the end itself: 0.09 + 13 * 0.07 is
// 1.0000000000000002, which was kept and then refused by the bound 1 ("1 out of range: expected
// 0..1").
static const cd_key_spec unit_sweep = {"s", "u", CD_KEY_REAL, "0", 0, 1, NULL, NULL, 1, ""};

static void test_range_end_within_tolerance_is_the_end(void **state)
{
    (void)state;
    cd_value *v;
    size_t n = parse_ok(&unit_sweep, "0.09..1 +0.07", &v);
    EXPECT_EQ(n, 14);
    EXPECT_EQ(v[13].num, 1.0);
    assert_string_equal(v[13].text, "1");
    for (size_t i = 1; i < n; ++i) assert_true(v[i - 1].num < v[i].num);
    cd_values_free(v, n);
    n = parse_ok(&unit_sweep, "0.1..0.3 +0.1", &v);  // 0.1 + 2 * 0.1 = 0.30000000000000004
    EXPECT_EQ(n, 3);
    EXPECT_EQ(v[2].num, 0.3);
    cd_values_free(v, n);
    parse_bad(&unit_sweep, "0.5..1.5 +0.25", "1.25 out of range");
}

// A value of an integer range that is not an integer is quoted as it is: %.0f made 12.5 "12" and
// 10.000001 "10", "'12' is not an integer". A step must be an integer itself.
static void test_integer_range_quotes_its_value(void **state)
{
    (void)state;
    parse_bad(&int_sweep, "10..20 +2.5", "range step '2.5' is not an integer");
    parse_bad(&int_sweep, "10..40 *1.5", "range value '22.5' is not an integer");
    parse_bad(&int_sweep, "10..20 *1.0000001", "range value '10.000001");
    cd_value *v;
    size_t n = parse_ok(&int_sweep, "16..81 *1.5", &v);  // 16, 24, 36, 54, 81
    EXPECT_EQ(n, 5);
    assert_string_equal(v[4].text, "81");
    cd_values_free(v, n);
    n = parse_ok(&int_sweep, "100..121 *1.1", &v);  // 100 * 1.1 is 110.00000000000001: 110
    EXPECT_EQ(n, 3);
    assert_string_equal(v[1].text, "110");
    EXPECT_EQ(v[2].num, 121.0);
    cd_values_free(v, n);
}

// A number listed twice is one point measured twice, refused as a word listed twice is; the
// values are compared, so 10 and 1e1 are one.
static void test_numbers_listed_twice(void **state)
{
    (void)state;
    parse_bad(&int_sweep, "10, 10", "'10' is listed twice");
    parse_bad(&int_sweep, "10, 1e1", "'1e1' is listed twice (as '10' before)");
    parse_bad(&int_sweep, "10..20, 15", "'15' is listed twice");
    parse_bad(&int_sweep, "15, 10..20", "'15' is listed twice");
    parse_bad(&real_sweep, "0.5, 0.50", "listed twice");
    expect_config_error("[scene]\ncubes = 10, 10\n", "bad.ini:2:", "'10' is listed twice");
    expect_config_error("[method]\nmethod = octree\ndepth = 3,3\n", "bad.ini:3:", "'3' is listed twice");
}

// [run] figures names figures its kind draws: `cdlab plot` wrote "../plots/x" outside the run
// directory and found "nope" missing only when plotting.
static void test_figures_of_the_kind(void **state)
{
    (void)state;
    expect_config_error("[run]\nfigures = ../plots/fps_vs_cubes\n", "bad.ini:2:",
                        "'../plots/fps_vs_cubes' is not a figure of kind cubes: expected one of fps_vs_cubes,");
    expect_config_error("[run]\nfigures = fps_vs_cubes, nope\n", "bad.ini:2:", "'nope' is not a figure");
    expect_config_error("[experiment]\nkind = mesh\n[run]\nfigures = fps_vs_cubes\n",
                        "bad.ini:4:", "not a figure of kind mesh");
    const char *good = "[experiment]\nkind = max_fps\n[run]\nfigures = octree_stress, max_fps\n";
    cd_config c;
    char err[1024];
    int rc = cd_config_parse(cd_kinds(), "g.ini", good, strlen(good), &c, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    EXPECT_EQ(rc, 0);
    cd_config_free(&c);
    // Every kind's default figures are among its figures.
    const cd_kind_set *kinds = cd_kinds();
    for (size_t i = 0; i < kinds->count; ++i) {
        char text[200];
        snprintf(text, sizeof text, "[experiment]\nkind = %s\n", kinds->kinds[i]->name);
        rc = cd_config_parse(kinds, "k.ini", text, strlen(text), &c, err, sizeof err);
        if (rc) fprintf(stderr, "%s\n", err);
        EXPECT_EQ(rc, 0);
        cd_config_free(&c);
    }
}

static const char *good_cfg = "[experiment]\n"
                              "name = t\n"
                              "frames = 2\n"
                              "repeats = 1\n"
                              "warmup = 0\n"
                              "[scene]\n"
                              "cubes = 10, 20, 30\n"
                              "[method]\n"
                              "method = octree\n"
                              "depth = 1..2,\n"
                              "  5\n"
                              "[run]\n"
                              "counters =\n"
                              "output = /nonexistent\n";

static void test_config_and_plan(void **state)
{
    (void)state;
    cd_config c;
    char err[512];
    int rc = cd_config_parse(cd_kinds(), "t.ini", good_cfg, strlen(good_cfg), &c, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(c.kind->name, "cubes");
    assert_int_equal(cd_config_key_get(&c, "method", "depth")->count, 3);  // continuation line appended
    assert_int_equal(cd_config_key_get(&c, "scene", "cubes")->line, 7);
    assert_int_equal(cd_config_key_get(&c, "run", "counters")->count, 0);
    assert_int_equal(cd_plan_size(&c), 9);
    size_t pick[64];
    assert_true(c.key_count <= 64);
    cd_point p = {.pick = pick};
    // [method] precedes [scene] in the cubes table, so depth varies slower than cubes.
    const cd_broad_method *oct = cd_registry_find("octree");
    cd_params op;
#define DEPTH(p) \
    (op = cd_point_params(&(p), "method", "method", oct->params, oct->param_count), cd_params_num(&op, "depth"))
    cd_point_at(&c, 0, &p);
    assert_true(DEPTH(p) == 1 && cd_point_num(&p, "scene", "cubes") == 10);
    cd_point_at(&c, 1, &p);
    assert_true(DEPTH(p) == 1 && cd_point_num(&p, "scene", "cubes") == 20);
    cd_point_at(&c, 8, &p);
    assert_true(DEPTH(p) == 5 && cd_point_num(&p, "scene", "cubes") == 30);
#undef DEPTH
    assert_string_equal(cd_point_text(&p, "method", "method"), "octree");
    char label[128];
    cd_point_label(&p, label, sizeof label);
    assert_string_equal(label, "depth=5 cubes=30");
    char sha[65];
    cd_sha256_hex(good_cfg, strlen(good_cfg), sha);
    assert_string_equal(sha, c.sha256);
    cd_config_free(&c);
}

// A method is crossed only with the parameters it declares: naive and octree over depth 1, 2, 5
// and three cube counts are (1 + 3) x 3 points, naive's with depth NA (cd_point_unread); a
// parameter that no listed method reads is a warning, not a dimension.
static void test_plan_crosses_declared_params(void **state)
{
    (void)state;
    const char *text = "[scene]\ncubes = 10, 20, 30\n[method]\nmethod = naive, octree\ndepth = 1, 2, 5\n"
                       "looseness = 1.5, 3\n[run]\ncounters =\n";
    cd_config c;
    char err[512];
    int rc = cd_config_parse(cd_kinds(), "x.ini", text, strlen(text), &c, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(cd_plan_size(&c), 12);
    assert_int_equal(c.warning_count, 1);  // looseness: only loose_octree reads it
    assert_non_null(strstr(c.warnings[0], "x.ini:6: [method] looseness: no listed method (naive, octree) reads it"));
    assert_null(cd_config_key_find(&c, "method", "looseness"));
    size_t pick[64], depth = 0;
    while (strcmp(c.keys[depth].spec->name, "depth") != 0) ++depth;
    cd_point p = {.pick = pick};
    for (size_t i = 0; i < 12; ++i) {
        cd_point_at(&c, i, &p);
        int naive = strcmp(cd_point_text(&p, "method", "method"), "naive") == 0;
        assert_int_equal(naive, i < 3);
        assert_int_equal(cd_point_unread(&p, depth), naive);
    }
    cd_config_free(&c);
}

// With a budget, the cubes kind's series (its chain: the points a series note over budget_ms
// skips) are the points equal in every key but [scene] cubes: points that differ in warmup, frames,
// repeats or a method's parameter are other series (warmup, frames and repeats were left out of
// the key, so one series' time skipped another's larger points).
static void test_budget_series_are_every_key_but_cubes(void **state)
{
    (void)state;
    const char *text = "[experiment]\nwarmup = 1, 2\nframes = 3, 4\nrepeats = 1, 2\n[scene]\ncubes = 10, 20\n"
                       "[method]\nmethod = naive, octree\ndepth = 3, 4\n[measure]\nbudget_ms = 5\n[run]\ncounters =\n";
    cd_config c;
    char err[512];
    int rc = cd_config_parse(cd_kinds(), "b.ini", text, strlen(text), &c, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    size_t n = cd_plan_size(&c);
    assert_int_equal(n, 8 * 2 * 3);  // warmup × frames × repeats × cubes × (naive + octree's 2 depths)
    size_t pick[2][64];
    char key[2][512];
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            cd_point p[2] = {{.pick = pick[0]}, {.pick = pick[1]}};
            cd_point_at(&c, i, &p[0]);
            cd_point_at(&c, j, &p[1]);
            int same = 1;
            for (int k = 0; k < 2; ++k) {
                key[k][0] = '\0';
                c.kind->chain(&p[k], key[k], sizeof key[k]);
                assert_true(key[k][0] != '\0');
            }
            for (size_t k = 0; k < c.key_count; ++k)
                if (strcmp(c.keys[k].spec->name, "cubes") != 0)
                    same &= strcmp(cd_point_key_text(&p[0], k), cd_point_key_text(&p[1], k)) == 0;
            assert_int_equal(strcmp(key[0], key[1]) == 0, same);
        }
    cd_config_free(&c);
}

static void test_config_errors(void **state)
{
    (void)state;
    expect_config_error("[experiment]\nseed = 1\n[scenery]\ncubes = 3\n", "bad.ini:3:", "unknown section [scenery]");
    {  // each section named once, though the kind's table adds keys to a common one ([scene])
        const char *text = "[experiment]\nseed = 1\n[scenery]\n";
        cd_config c;
        char err[1024] = "";
        EXPECT_EQ(cd_config_parse(cd_kinds(), "bad.ini", text, strlen(text), &c, err, sizeof err), -1);
        EXPECT_CONTAINS(err, "for kind cubes: expected one of [experiment], [run], [scene], [measure], [method]");
        assert_null(strstr(err, "[method], ["));
    }
    expect_config_error("[scene]\ncubez = 3\n", "bad.ini:2:", "unknown key 'cubez'");
    expect_config_error("[scene]\ncubes = 3\ncubes = 4\n", "bad.ini:3:", "given twice");
    expect_config_error("cubes = 3\n", "bad.ini:1:", "before any section");
    expect_config_error("[scene]\n\ncubes\n", "bad.ini:3:", "syntax error");
    expect_config_error("[experiment]\nkind = fluid\n", "bad.ini:2:", "unknown kind 'fluid'");
    expect_config_error("[method]\nmethod = quadtree\n", "bad.ini:2:", "registered method");
    expect_config_error("[run]\npin = off\ncpu = 1\n", "bad.ini:3:", "contradicts pin = off");
    expect_config_error("[experiment]\nkind = tri_tri\norder = rounds\n", "bad.ini:3:", "measures point by point");
    expect_config_error("[experiment]\norder = random\n", "bad.ini:2:", "points");
    expect_config_error("[run]\npin = required\n[method]\nthreads = 2\n", "bad.ini:4:", "contradicts [run] pin");
    // Lines of up to 198 characters are read whole; 199 is an error, with or without a newline.
    char long_cfg[400];
    snprintf(long_cfg, sizeof long_cfg, "[scene]\ncubes = 1%0250d\n", 0);
    expect_config_error(long_cfg, "bad.ini:2:", "line longer than 198 characters");
    snprintf(long_cfg, sizeof long_cfg, "[scene]\ncubes = %0191d", 7);  // 199 characters, no newline
    expect_config_error(long_cfg, "bad.ini:2:", "line longer than 198 characters");
    char word[192];
    memset(word, 'x', 191), word[191] = '\0';
    snprintf(long_cfg, sizeof long_cfg, "[experiment]\nkind = %s\n", word);  // 198 characters: read whole
    expect_config_error(long_cfg, "bad.ini:2:", word);
}

// A continued list: a comment after white space ends each of its lines, as on the key's line.
static void test_config_continuation_comments(void **state)
{
    (void)state;
    const char *text = "[scene]\ncubes = 100, 200,   ; first\n        300 ; second\n\t400;not a comment\n";
    cd_config c;
    char err[512];
    EXPECT_EQ(cd_config_parse(cd_kinds(), "c.ini", text, strlen(text), &c, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "'400;not a comment' is not a number");  // a ; without white space stays
    const char *good = "[scene]\ncubes = 100, 200,   ; first\n        300 ; second\n\t400\n";
    EXPECT_EQ(cd_config_parse(cd_kinds(), "c.ini", good, strlen(good), &c, err, sizeof err), 0);
    const cd_config_key *k = cd_config_key_get(&c, "scene", "cubes");
    EXPECT_EQ(k->count, 4);
    EXPECT_EQ(k->values[2].num, 300.0);
    EXPECT_EQ(k->values[3].num, 400.0);
    cd_config_free(&c);
}

static void test_stats(void **state)
{
    (void)state;
    double x[100];
    for (int i = 0; i < 100; ++i) x[99 - i] = i + 1;  // unsorted input
    cd_stats s = cd_stats_compute(x, 100);
    assert_int_equal(s.n, 100);
    EXPECT_EQ(s.median, 50.5);
    assert_true(fabs(s.p05 - 5.95) < 1e-12);
    assert_true(fabs(s.p95 - 95.05) < 1e-12);
    EXPECT_EQ(s.mad, 25.0);
    EXPECT_EQ(s.mean, 50.5);
    assert_true(fabs(s.cv - 29.011491975882016 / 50.5) < 1e-12);
    EXPECT_EQ(x[0], 100);  // input untouched
    double one = 7;
    s = cd_stats_compute(&one, 1);
    assert_true(s.median == 7 && s.p05 == 7 && s.p95 == 7 && s.mad == 0 && s.cv == 0);
    s = cd_stats_compute(NULL, 0);
    assert_int_equal(s.n, 0);
}

// The bootstrap interval of a ratio of medians: exact where no resample can move it, centred on
// the true ratio, reproducible from its seed, and at 95 % it holds the true ratio 1 for nearly
// every pair of samples drawn from one distribution (the coverage a user relies on).
static void test_bootstrap_ratio(void **state)
{
    (void)state;
    double a[101], b[101], c[101];
    for (int i = 0; i < 101; ++i) a[i] = i + 1, b[i] = 2 * (i + 1), c[i] = 3.0;
    cd_ratio_ci r = cd_bootstrap_median_ratio(c, 101, c, 101, 500, 0.95, 1);
    assert_true(r.ratio == 1 && r.lo == 1 && r.hi == 1);
    r = cd_bootstrap_median_ratio(a, 101, b, 101, 2000, 0.95, 42);
    EXPECT_EQ(r.ratio, 2.0);
    assert_true(r.lo < 2 && r.hi > 2 && r.lo > 1.4 && r.hi < 2.9);
    cd_ratio_ci again = cd_bootstrap_median_ratio(a, 101, b, 101, 2000, 0.95, 42);
    assert_true(again.lo == r.lo && again.hi == r.hi);
    cd_ratio_ci narrow = cd_bootstrap_median_ratio(a, 101, b, 101, 2000, 0.50, 42);
    assert_true(narrow.lo > r.lo && narrow.hi < r.hi);
    // Coverage: 200 pairs of 40 log-normal-ish frame times from one distribution.
    cd_rng rng = cd_rng_make(9, CD_STREAM_TEST);
    int held = 0;
    for (int t = 0; t < 200; ++t) {
        double x[40], y[40];
        for (int i = 0; i < 40; ++i) {
            x[i] = exp(0.3 * (cd_rng_uniform(&rng) + cd_rng_uniform(&rng) + cd_rng_uniform(&rng)));
            y[i] = exp(0.3 * (cd_rng_uniform(&rng) + cd_rng_uniform(&rng) + cd_rng_uniform(&rng)));
        }
        cd_ratio_ci k = cd_bootstrap_median_ratio(x, 40, y, 40, 1000, 0.95, (uint64_t)t);
        held += k.lo <= 1 && k.hi >= 1;
    }
    assert_true(held >= 180);  // nominal 190 of 200
}

static void test_counters_na_path(void **state)
{
    (void)state;
    cd_counters k;
    const char *names[] = {"NOT_A_REAL_EVENT", "PAPI_TOT_CYC"};
    cd_counters_open(&k, names, 2);
    assert_int_equal(k.count, 2);
    assert_int_equal(k.live[0], 0);
    assert_non_null(strstr(k.reason[0], "unknown event"));
    // PAPI_TOT_CYC is either counted or NA with a reason; never silently neither.
    if (k.live[1])
        assert_string_equal(k.reason[1], "ok");
    else
        assert_true(strlen(k.reason[1]) > 0 && strcmp(k.reason[1], "ok") != 0);
    assert_true(strlen(k.papi_version) > 0 && strlen(k.papi_status) > 0);
    cd_counters_begin(&k);
    cd_counters_end(&k);
    EXPECT_EQ(k.last[0], -1);  // NA events read as -1, written as NA
    cd_counters_close(&k);
}

static void test_pinning(void **state)
{
    (void)state;
    cd_pin_result r;
    assert_int_equal(cd_pin_thread(CD_PIN_REQUIRED, 1000000, &r), -1);
    assert_int_equal(r.ok, 0);
    assert_non_null(strstr(r.status, "no PU"));
    assert_int_equal(cd_pin_thread(CD_PIN_OPTIONAL, 1000000, &r), 0);  // optional: warn only
    assert_int_equal(cd_pin_thread(CD_PIN_OFF, 0, &r), 0);
    assert_int_equal(r.requested, -1);
    assert_int_equal(cd_pin_thread(CD_PIN_OPTIONAL, 0, &r), 0);
    if (r.ok) assert_int_equal(r.actual, 0);
    char topo[256];
    cd_topology_summary(topo, sizeof topo);
    assert_non_null(strstr(topo, "PU"));
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

// Remove a test's temporary run directory.
static void remove_tree(const char *root)
{
    char cmd[4900];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void test_tiny_run(void **state)
{
    (void)state;
    char root[] = "/tmp/cd_test_harness_XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *text = "[experiment]\nname = tiny\nwarmup = 1\nframes = 3\nrepeats = 2\n"
                       "[scene]\ncubes = 5, 40\n[run]\ncounters = NOT_A_REAL_EVENT\npin = off\ncpu = -1\n";
    cd_config c;
    char err[512], dir[4600];
    assert_int_equal(cd_config_parse(cd_kinds(), "tiny.ini", text, strlen(text), &c, err, sizeof err), 0);
    cd_run_options o = {.output = root, .run_id = "r1", .quiet = 1};
    assert_int_equal(cd_run_config(&c, &o, dir, sizeof dir, err, sizeof err), 0);
    char path[4800];
    snprintf(path, sizeof path, "%s/tiny/r1", root);
    assert_string_equal(dir, path);
    const char *files[] = {"frames.csv", "summary.csv", "meta.ini", "config.ini"};
    for (size_t i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        assert_true(file_exists(path));
        snprintf(path, sizeof path, "%s/%s.part", dir, files[i]);
        assert_false(file_exists(path));
    }
    cd_csv_table t;
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 1 + 2 * 2 * 3);  // header + points × repeats × frames
    size_t last = t.rows[0].count - 1;
    assert_string_equal(t.rows[0].fields[0], "point");
    assert_string_equal(t.rows[0].fields[last], "NOT_A_REAL_EVENT");
    for (size_t i = 1; i < t.count; ++i) assert_string_equal(t.rows[i].fields[last], "NA");
    assert_string_equal(t.rows[t.count - 1].fields[0], "1");
    cd_csv_table_free(&t);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 3);
    cd_csv_table_free(&t);
    // Provenance: the commit the binary was built from and the tree's state at the run's start.
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    FILE *meta = fopen(path, "r");
    assert_non_null(meta);
    char line[512];
    int build_commit = 0, git_commit = 0;
    while (fgets(line, sizeof line, meta)) {
        build_commit += strncmp(line, "build_commit = ", 15) == 0 && strlen(line) > 16;
        git_commit += strncmp(line, "git_commit = ", 13) == 0 && strlen(line) > 14;
    }
    fclose(meta);
    assert_int_equal(build_commit, 1);
    assert_int_equal(git_commit, 1);
    // An existing run id is refused before anything is written.
    assert_int_equal(cd_run_config(&c, &o, dir, sizeof dir, err, sizeof err), 2);
    cd_config_free(&c);
    remove_tree(root);
}

// One run of text in root/<name>/<id>; its summary.csv and frames.csv.
static void run_tables(const char *text, const char *root, const char *id, cd_csv_table *summary, cd_csv_table *frames)
{
    cd_config c;
    char err[512], dir[4600], path[4800];
    assert_int_equal(cd_config_parse(cd_kinds(), "order.ini", text, strlen(text), &c, err, sizeof err), 0);
    cd_run_options o = {.output = root, .run_id = id, .quiet = 1};
    assert_int_equal(cd_run_config(&c, &o, dir, sizeof dir, err, sizeof err), 0);
    cd_config_free(&c);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    assert_int_equal(cd_csv_read(path, summary, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    assert_int_equal(cd_csv_read(path, frames, err, sizeof err), 0);
}

// order = rounds: repeat 0 of every point, then repeat 1, ...; a point with fewer repeats sits
// out the later rounds; the summary rows come in point order and agree with order = points on
// everything that does not depend on time.
static void test_rounds_order(void **state)
{
    (void)state;
    char root[] = "/tmp/cd_test_rounds_XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *body = "warmup = 1\nframes = 2\nrepeats = 3, 1\n[method]\nmethod = grid_multi, naive\n"
                       "[scene]\ncubes = 30, 300\n[run]\ncounters = NOT_A_REAL_EVENT\npin = off\ncpu = -1\n";
    char rounds[600], points[600];
    snprintf(rounds, sizeof rounds, "[experiment]\nname = o\norder = rounds\n%s", body);
    snprintf(points, sizeof points, "[experiment]\nname = o\n%s", body);
    cd_csv_table rs, rf, ps, pf;
    run_tables(rounds, root, "rounds", &rs, &rf);
    run_tables(points, root, "points", &ps, &pf);
    // Points: repeats 3 × (grid_multi, naive) × (30, 300), then repeats 1 × the same four.
    enum { POINTS = 8, FRAMES = 2 };
    const int repeats[POINTS] = {3, 3, 3, 3, 1, 1, 1, 1};
    size_t rows = 0;
    for (int p = 0; p < POINTS; ++p) rows += (size_t)repeats[p] * FRAMES;
    assert_int_equal(rf.count, 1 + rows);
    assert_int_equal(pf.count, 1 + rows);
    int point = (int)csv_column(&rf.rows[0], "point"), repeat = (int)csv_column(&rf.rows[0], "repeat"),
        frame = (int)csv_column(&rf.rows[0], "frame");
    assert_true(point >= 0 && repeat >= 0 && frame >= 0);
    // The expected sequence of (point, repeat) in rounds order.
    size_t row = 1;
    for (int k = 0; k < 3; ++k)
        for (int p = 0; p < POINTS; ++p) {
            if (k >= repeats[p]) continue;
            for (int f = 0; f < FRAMES; ++f, ++row) {
                assert_int_equal(atoi(rf.rows[row].fields[point]), p);
                assert_int_equal(atoi(rf.rows[row].fields[repeat]), k);
                assert_int_equal(atoi(rf.rows[row].fields[frame]), f);
            }
        }
    // Summary rows: same points, same repeats, same pair and candidate counts as order = points.
    assert_int_equal(rs.count, 1 + POINTS);
    assert_int_equal(ps.count, 1 + POINTS);
    const char *same[] = {"point",           "method",        "cubes",
                          "frames",          "repeats",       "pairs_mean",
                          "candidates_mean", "bv_tests_mean", "narrow_tests_mean",
                          "NOT_A_REAL_EVENT"};
    for (size_t j = 0; j < sizeof same / sizeof same[0]; ++j) {
        int col = (int)csv_column(&rs.rows[0], same[j]);
        assert_true(col >= 0);
        assert_int_equal(col, (int)csv_column(&ps.rows[0], same[j]));
        for (size_t i = 1; i <= POINTS; ++i) assert_string_equal(rs.rows[i].fields[col], ps.rows[i].fields[col]);
    }
    int rep_col = (int)csv_column(&rs.rows[0], "repeats"), rss_col = (int)csv_column(&rs.rows[0], "peak_rss_bytes");
    for (int p = 0; p < POINTS; ++p) {
        assert_int_equal(atoi(rs.rows[p + 1].fields[rep_col]), repeats[p]);
        assert_true(atoll(rs.rows[p + 1].fields[rss_col]) > 0);
    }
    cd_csv_table_free(&rs);
    cd_csv_table_free(&rf);
    cd_csv_table_free(&ps);
    cd_csv_table_free(&pf);
    // Over budget in round 1: that point runs one repeat, the series' larger count none.
    run_tables("[experiment]\nname = b\norder = rounds\nwarmup = 0\nframes = 2\nrepeats = 3\n"
               "[measure]\nbudget_ms = 1e-9\n[scene]\ncubes = 30, 300\n[run]\ncounters =\npin = off\ncpu = -1\n",
               root, "budget", &rs, &rf);
    rep_col = (int)csv_column(&rs.rows[0], "repeats");
    assert_int_equal(rs.count, 3);
    assert_string_equal(rs.rows[1].fields[rep_col], "1");
    assert_string_equal(rs.rows[2].fields[rep_col], "NA");
    assert_int_equal(rf.count, 1 + 2);  // one repeat of two frames
    cd_csv_table_free(&rs);
    cd_csv_table_free(&rf);
    remove_tree(root);
}

// The values of column `name` in rows 1.. of t, joined (a column's whole content as one string).
static void column_text(const cd_csv_table *t, const char *name, char *buf, size_t len)
{
    int col = (int)csv_column(&t->rows[0], name);
    assert_true(col >= 0);
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 1; i < t->count && at < len; ++i)
        at += (size_t)snprintf(buf + at, len - at, "%s;", t->rows[i].fields[col]);
}

// The value of key in meta.ini of run root/<name>/<id> contains want.
static int meta_has(const char *root, const char *name, const char *id, const char *want)
{
    char path[4800], line[1024];
    snprintf(path, sizeof path, "%s/%s/%s/meta.ini", root, name, id);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int found = 0;
    while (fgets(line, sizeof line, f)) found |= strstr(line, want) != NULL;
    fclose(f);
    return found;
}

// [run] isolate = process: each point in its own process, so a small point after a big one
// reports its own peak RSS (one process only ever grows); the same rows, pairs and order as in
// one process, for points and for rounds; warnings and budget notes come back from the children.
static void test_isolated_points(void **state)
{
    (void)state;
    char root[] = "/tmp/cd_test_isolate_XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *fmt = "[experiment]\nname = i\norder = %s\nwarmup = 1\nframes = 2\nrepeats = 2\n"
                      "[method]\nmethod = grid_multi, grid\n[scene]\ncubes = 2000, 150000, 2001\n"
                      "[run]\ncounters =\npin = off\ncpu = -1\nisolate = %s\n";
    const char *orders[] = {"points", "rounds"};
    for (int o = 0; o < 2; ++o) {
        char text[600], id[64];
        cd_csv_table s[2], f[2];
        const char *modes[] = {"process", "none"};
        for (int m = 0; m < 2; ++m) {
            snprintf(text, sizeof text, fmt, orders[o], modes[m]);
            snprintf(id, sizeof id, "%s_%s", orders[o], modes[m]);
            run_tables(text, root, id, &s[m], &f[m]);
            char want[64];
            snprintf(want, sizeof want, "isolate = %s", modes[m]);
            assert_true(meta_has(root, "i", id, want));
        }
        static char a[1 << 16], b[1 << 16];
        const char *same_summary[] = {"point", "method", "cubes", "repeats", "pairs_mean", "candidates_mean"};
        for (size_t j = 0; j < sizeof same_summary / sizeof *same_summary; ++j) {
            column_text(&s[0], same_summary[j], a, sizeof a);
            column_text(&s[1], same_summary[j], b, sizeof b);
            assert_string_equal(a, b);
        }
        const char *same_frames[] = {"point", "repeat", "frame", "pairs", "candidates"};
        for (size_t j = 0; j < sizeof same_frames / sizeof *same_frames; ++j) {
            column_text(&f[0], same_frames[j], a, sizeof a);
            column_text(&f[1], same_frames[j], b, sizeof b);
            assert_string_equal(a, b);
        }
        // Points 0..2 are grid_multi at 2 000, 150 000, 2 001 cubes (a value is listed once): the
        // 150 000 cubes take about 30 MB more. A child starts with the runner's resident pages
        // (large under ASan, whose quarantine keeps freed blocks), so the check is on the
        // difference.
        int rss = (int)csv_column(&s[0].rows[0], "peak_rss_bytes");
        long long big = atoll(s[0].rows[2].fields[rss]), small_after = atoll(s[0].rows[3].fields[rss]);
        assert_true(small_after > 0 && small_after + (10 << 20) < big);
        assert_true(atoll(s[1].rows[3].fields[rss]) >= atoll(s[1].rows[2].fields[rss]));
        for (int m = 0; m < 2; ++m) cd_csv_table_free(&s[m]), cd_csv_table_free(&f[m]);
        // The budget: the 150 000-cube point skipped after 2 000 went over, told by a child.
        snprintf(text, sizeof text,
                 "[experiment]\nname = i\norder = %s\nwarmup = 0\nframes = 2\nrepeats = 1\n"
                 "[measure]\nbudget_ms = 1e-9\n[scene]\ncubes = 2000, 150000\n[run]\ncounters =\npin = off\n"
                 "cpu = -1\nisolate = process\n",
                 orders[o]);
        snprintf(id, sizeof id, "%s_budget", orders[o]);
        run_tables(text, root, id, &s[0], &f[0]);
        int reps = (int)csv_column(&s[0].rows[0], "repeats");
        assert_string_equal(s[0].rows[1].fields[reps], "1");
        assert_string_equal(s[0].rows[2].fields[reps], "NA");
        assert_true(meta_has(root, "i", id, "point 1 skipped: naive took"));
        cd_csv_table_free(&s[0]), cd_csv_table_free(&f[0]);
    }
    remove_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_builtin_params_take_no_key_name),
        cmocka_unit_test(test_value_lists_and_ranges),
        cmocka_unit_test(test_integer_values_judged_on_text),
        cmocka_unit_test(test_range_end_within_tolerance_is_the_end),
        cmocka_unit_test(test_integer_range_quotes_its_value),
        cmocka_unit_test(test_numbers_listed_twice),
        cmocka_unit_test(test_figures_of_the_kind),
        cmocka_unit_test(test_config_and_plan),
        cmocka_unit_test(test_plan_crosses_declared_params),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_config_continuation_comments),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_bootstrap_ratio),
        cmocka_unit_test(test_counters_na_path),
        cmocka_unit_test(test_pinning),
        cmocka_unit_test(test_budget_series_are_every_key_but_cubes),
        cmocka_unit_test(test_tiny_run),
        cmocka_unit_test(test_rounds_order),
        cmocka_unit_test(test_isolated_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
