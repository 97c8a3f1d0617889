// SPDX-License-Identifier: MIT
// max_fps kind: its config checks name file:line, and a search whose target every probe
// meets doubles from start to the limit, under either clock, and writes one summary row per probe,
// sorted by cube count, each carrying the answer. (The target, 0.001 FPS = 1000 s per frame, is met by any
// machine, so nothing here depends on wall-clock time.)
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void config_errors_name_the_line(void **state)
{
    (void)state;
    expect_config_error("[experiment]\nkind = max_fps\n[scene]\ncubes = 100\n",
                        "bad.ini:4:", "searches the cube count");
    expect_config_error("[experiment]\nkind = max_fps\n[search]\nstart = 500\nlimit = 100\n",
                        "bad.ini:4:", "expected start <= limit");
    expect_config_error("[experiment]\nkind = max_fps\n[search]\ntarget_fps = 0\n", "bad.ini:4:", "target_fps");
}

static void search_doubles_to_the_limit(void **state)
{
    (void)state;
    char root[] = "/tmp/cd_test_max_fps_XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *text =
        "[experiment]\nname = mf\nkind = max_fps\nwarmup = 0\nframes = 2\nrepeats = 1\n"
        "[search]\ntarget_fps = 0.001\nstart = 3\nlimit = 30\n"
        "clock = wall, cpu\n[method]\nmethod = naive, loose_octree\n[run]\ncounters =\npin = off\ncpu = -1\n";
    cd_config c;
    char err[512], dir[4600];
    assert_int_equal(cd_config_parse(cd_kinds(), "mf.ini", text, strlen(text), &c, err, sizeof err), 0);
    cd_run_options o = {.output = root, .run_id = "r1", .quiet = 1};
    assert_int_equal(cd_run_config(&c, &o, dir, sizeof dir, err, sizeof err), 0);
    char path[4800];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    cd_csv_table t;
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    // Four searches (wall, cpu clock × two methods) × probes 3, 6, 12, 24, 30 (the last doubling
    // is clamped to the limit).
    static const char *const want[] = {"3", "6", "12", "24", "30"};
    assert_int_equal(t.count, 1 + 4 * 5);
    int cubes = (int)csv_column(&t.rows[0], "cubes"), max = (int)csv_column(&t.rows[0], "max_cubes");
    int passes = (int)csv_column(&t.rows[0], "passes"), method = (int)csv_column(&t.rows[0], "method");
    int clock = (int)csv_column(&t.rows[0], "clock"), broad = (int)csv_column(&t.rows[0], "broad_ms_median");
    for (size_t i = 1; i < t.count; ++i) {
        assert_string_equal(t.rows[i].fields[cubes], want[(i - 1) % 5]);
        assert_string_equal(t.rows[i].fields[max], "30");
        assert_string_equal(t.rows[i].fields[passes], "1");
        assert_string_equal(t.rows[i].fields[method], (i - 1) / 5 % 2 == 0 ? "naive" : "loose_octree");
        assert_string_equal(t.rows[i].fields[clock], i <= 10 ? "wall" : "cpu");
        if (i > 10) assert_string_equal(t.rows[i].fields[broad], "NA");  // no wall split under the cpu clock
    }
    cd_csv_table_free(&t);
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 1 + 4 * 5 * 2);  // header + searches × probes × frames
    cd_csv_table_free(&t);
    cd_config_free(&c);
    char cmd[4900];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void start_equal_to_limit_is_one_probe(void **state)
{
    (void)state;
    char root[] = "/tmp/cd_test_max_fps_XXXXXX";
    assert_non_null(mkdtemp(root));
    // Pass or fail, exactly the one cube count is measured: no doubling, no halving.
    const char *text = "[experiment]\nname = one\nkind = max_fps\nwarmup = 0\nframes = 2\nrepeats = 1\n"
                       "[search]\nstart = 50\nlimit = 50\nclock = cpu\n"
                       "[method]\nmethod = octree\n[run]\ncounters =\npin = off\ncpu = -1\n";
    cd_config c;
    char err[512], dir[4600], path[4800];
    assert_int_equal(cd_config_parse(cd_kinds(), "one.ini", text, strlen(text), &c, err, sizeof err), 0);
    cd_run_options o = {.output = root, .run_id = "r1", .quiet = 1};
    assert_int_equal(cd_run_config(&c, &o, dir, sizeof dir, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    cd_csv_table t;
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 2);
    assert_string_equal(t.rows[1].fields[(int)csv_column(&t.rows[0], "cubes")], "50");
    const char *max = t.rows[1].fields[(int)csv_column(&t.rows[0], "max_cubes")];
    assert_true(strcmp(max, "50") == 0 || strcmp(max, "0") == 0);
    cd_csv_table_free(&t);
    cd_config_free(&c);
    char cmd[4900];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_errors_name_the_line),
        cmocka_unit_test(search_doubles_to_the_limit),
        cmocka_unit_test(start_equal_to_limit_is_one_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
