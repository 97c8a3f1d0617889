// SPDX-License-Identifier: MIT
// scene: the standard cube scene is seeded and reproducible, motion keeps the invariants, and a
// frame survives CSV export → import bit for bit; bad CSV gives file:line errors.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void defaults_match_design(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    assert_true(p.size == 1.0 && p.density == 0.05 && p.speed == 0.05 && p.spin == 0.01 && p.seed == 42);
    p.cubes = 1000;
    // L = cbrt(N·size³/density) = cbrt(20000).
    assert_true(fabs(cd_scene_world_side(&p) - cbrt(20000.0)) < 1e-12);
    p.cubes = 1;  // tiny scenes still hold the cube's diagonal
    assert_true(cd_scene_world_side(&p) >= sqrt(3.0));
}

static void same_seed_same_scene(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 500;
    cd_scene *a = cd_scene_create(&p), *b = cd_scene_create(&p);
    for (int f = 0; f < 20; ++f) {
        cd_scene_step(a);
        cd_scene_step(b);
    }
    assert_int_equal(a->count, 500);
    assert_memory_equal(a->obb, b->obb, sizeof *a->obb * a->count);
    assert_memory_equal(a->aabb, b->aabb, sizeof *a->aabb * a->count);
    p.seed = 43;
    cd_scene *c = cd_scene_create(&p);
    assert_true(memcmp(a->obb, c->obb, sizeof *a->obb * a->count) != 0);
    cd_scene_destroy(a);
    cd_scene_destroy(b);
    cd_scene_destroy(c);
}

static void placement_and_velocities_in_range(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 2000;
    p.size_ratio = 10.0;
    cd_scene *s = cd_scene_create(&p);
    double hmin = 1e9, hmax = 0;
    for (uint32_t i = 0; i < s->count; ++i) {
        cd_vec3 c = s->obb[i].c;
        assert_true(c.x >= 0 && c.x <= s->world && c.y >= 0 && c.y <= s->world && c.z >= 0 && c.z <= s->world);
        assert_true(fabs(s->vel[i].x) <= p.speed && fabs(s->vel[i].y) <= p.speed && fabs(s->vel[i].z) <= p.speed);
        assert_true(fabs(s->omega[i].x) <= p.spin && fabs(s->omega[i].z) <= p.spin);
        assert_true(s->obb[i].half.x == s->obb[i].half.y && s->obb[i].half.y == s->obb[i].half.z);
        hmin = fmin(hmin, s->obb[i].half.x);
        hmax = fmax(hmax, s->obb[i].half.x);
    }
    assert_true(hmin >= 0.5 && hmax <= 5.0 && hmax / hmin > 5.0);
    cd_scene_destroy(s);
}

static void motion_keeps_invariants(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 300;
    p.speed = 2.0;  // fast, so walls are hit often
    p.spin = 0.3;
    cd_scene *s = cd_scene_create(&p);
    cd_vec3 c0 = s->obb[0].c;
    for (int f = 0; f < 400; ++f) {
        cd_scene_step(s);
        for (uint32_t i = 0; i < s->count; ++i) {
            cd_vec3 c = s->obb[i].c;
            assert_true(c.x >= 0 && c.x <= s->world && c.y >= 0 && c.y <= s->world && c.z >= 0 && c.z <= s->world);
            assert_true(fabs(cd_q_norm(s->rot[i]) - 1.0) < 1e-14);
            cd_mat3 m = s->obb[i].axes;
            assert_true(fabs(cd_v3_dot(m.col[0], m.col[1])) < 1e-14);
            assert_true(fabs(cd_v3_len(m.col[2]) - 1.0) < 1e-14);
        }
    }
    assert_int_equal(s->frame, 400);
    assert_true(cd_v3_len(cd_v3_sub(s->obb[0].c, c0)) > 0.0);
    cd_scene_destroy(s);
}

static void csv_round_trip_is_exact(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 1000;
    cd_scene *s = cd_scene_create(&p);
    for (int f = 0; f < 5; ++f) cd_scene_step(s);
    char path[] = "/tmp/cdlab_scene_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[512];
    assert_int_equal(cd_scene_export_csv(s, path, err, sizeof err), 0);
    cd_scene *t = cd_scene_import_csv(path, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->count, s->count);
    assert_true(t->world == s->world);
    assert_memory_equal(t->obb, s->obb, sizeof *s->obb * s->count);
    assert_memory_equal(t->aabb, s->aabb, sizeof *s->aabb * s->count);
    unlink(path);
    cd_scene_destroy(s);
    cd_scene_destroy(t);
}

// Write text to a temporary file, import it and return the error (scene must be NULL).
static void expect_import_error(const char *text, const char *needle)
{
    char path[] = "/tmp/cdlab_bad_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    char err[512] = "";
    cd_scene *s = cd_scene_import_csv(path, err, sizeof err);
    assert_null(s);
    if (!strstr(err, needle)) fail_msg("error '%s' lacks '%s'", err, needle);
    assert_non_null(strstr(err, path));
    unlink(path);
}

static void csv_import_errors_name_line(void **state)
{
    (void)state;
    const char *header = "id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz\n";
    char text[512];
    snprintf(text, sizeof text, "%s0,1,2,3,1,0,0,0,0.5,0.5,0.5\n1,1,2,x,1,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":3: column cz: expected a number");
    snprintf(text, sizeof text, "%s0,1,2,3,1,0,0,0,0.5,0.5\n", header);
    expect_import_error(text, ":2: expected 11 fields");
    snprintf(text, sizeof text, "# world=10\n%s0,1,2,3,0,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":3: expected a unit quaternion");
    expect_import_error("a,b\n", ":1: expected header");
    char err[256];
    assert_null(cd_scene_import_csv("/nonexistent/cdlab.csv", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/cdlab.csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_match_design),
        cmocka_unit_test(same_seed_same_scene),
        cmocka_unit_test(placement_and_velocities_in_range),
        cmocka_unit_test(motion_keeps_invariants),
        cmocka_unit_test(csv_round_trip_is_exact),
        cmocka_unit_test(csv_import_errors_name_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
