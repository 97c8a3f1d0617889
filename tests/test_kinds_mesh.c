// SPDX-License-Identifier: MIT
// The mesh kind: a run through the harness reports brute force's pairs for every pose, and its
// config errors name file:line.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_bvh.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The mesh kind through the harness: the summary's pairs_mean is brute force's mean, and every
// pose has a frames row.
static void mesh_kind_runs_and_matches_brute_force(void **state)
{
    (void)state;
    char root[] = "/tmp/cd_test_mesh_kind_XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *text = "[experiment]\nname = mk\nkind = mesh\nseed = 3\nwarmup = 1\nrepeats = 1\n"
                       "[method]\nhierarchy = obb, hybrid\nmode = all_pairs\nhybrid_x = 2\nhybrid_y = 2\n"
                       "[mesh]\na = icosphere\nb = torus\nfaces = 300\ndistance = 0.8\nposes = 12\n"
                       "poses_file =\n[run]\ncounters =\npin = off\ncpu = -1\n";
    cd_config c;
    char err[512], dir[4600], path[4800];
    if (cd_config_parse(cd_kinds(), "mk.ini", text, strlen(text), &c, err, sizeof err)) fail_msg("%s", err);
    cd_run_options o = {.output = root, .run_id = "r1", .quiet = 1};
    assert_int_equal(cd_run_config(&c, &o, dir, sizeof dir, err, sizeof err), 0);
    cd_config_free(&c);
    // Brute force on the same meshes and poses.
    cd_mesh ma = test_mesh("icosphere:300"), mb = test_mesh("torus:300");
    cd_pose poses[12];
    cd_poses_generate(3, 0.8, 12, poses);
    cd_bvh_result ref = {0};
    double pairs = 0;
    for (int k = 0; k < 12; ++k) cd_bvh_brute_force(&ma, &mb, &poses[k], &ref), pairs += (double)ref.count;
    cd_bvh_result_free(&ref);
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
    assert_true(pairs > 0);
    cd_csv_table t;
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 3);
    size_t col = csv_column(&t.rows[0], "pairs_mean");
    for (int r = 1; r <= 2; ++r) {
        double v;
        assert_int_equal(cd_csv_parse_double(t.rows[r].fields[col], &v), 0);
        assert_true(fabs(v - pairs / 12.0) < 1e-8 * pairs);  // summary reals carry 10 digits
    }
    cd_csv_table_free(&t);
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    assert_int_equal(cd_csv_read(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 1 + 2 * 12);
    cd_csv_table_free(&t);
    char cmd[4900];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void mesh_kind_config_errors(void **state)
{
    (void)state;
    struct {
        const char *text, *want;
    } cases[] = {
        {"[experiment]\nkind = mesh\n[mesh]\na = icosphere:0\n", "bad.ini:4:"},
        {"[experiment]\nkind = mesh\n[mesh]\na = /no/such/mesh.obj\n", "bad.ini:4:"},
        {"[experiment]\nkind = mesh\n[mesh]\na = torus\n", "bad.ini:4:"},    // bare name, no faces
        {"[experiment]\nkind = mesh\n[mesh]\nfaces = 100\n", "bad.ini:4:"},  // faces, a has N
        {"[experiment]\nkind = mesh\n[method]\nhierarchy = kdop\n", "bad.ini:4:"},
        {"[experiment]\nkind = mesh\n[method]\nmode = fast\n", "bad.ini:4:"},
        {"[experiment]\nkind = mesh\n[mesh]\ndistance = 1, 2\nposes_file = /no/such.csv\n", "bad.ini:4:"},
        {"[experiment]\nkind = mesh\n[mesh]\nposes_file = /no/such.csv\n", "bad.ini:4:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) expect_config_error(cases[i].text, cases[i].want, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mesh_kind_runs_and_matches_brute_force),
        cmocka_unit_test(mesh_kind_config_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
