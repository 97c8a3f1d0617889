// SPDX-License-Identifier: MIT
// scene: the standard cube scene is seeded and reproducible (its bits pinned), motion keeps the
// invariants, and a frame survives CSV export → import bit for bit; bad CSV gives file:line
// errors; every scene family is seeded, keeps its still and sleeping cubes' bits and has its shape.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_scene.h"
#include "cd_trace.h"
#include "test_util.h"

#include <dirent.h>
#include <float.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

// The poses and boxes of a and b hold the same bits.
static int scene_bits_equal(const cd_scene *a, const cd_scene *b)
{
    if (a->count != b->count) return 0;
    return memcmp(a->pose, b->pose, a->count * sizeof *a->pose) == 0 &&
           memcmp(a->box, b->box, a->count * sizeof *a->box) == 0;
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
    assert_true(scene_bits_equal(a, b));
    p.seed = 43;
    cd_scene *c = cd_scene_create(&p);
    assert_false(scene_bits_equal(a, c));
    cd_scene_destroy(a);
    cd_scene_destroy(b);
    cd_scene_destroy(c);
}

// Stepping the scene in ranges (as threads do) gives the same bits as one step.
static void ranged_step_equals_whole_step(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 5003;
    cd_scene *a = cd_scene_create(&p), *b = cd_scene_create(&p);
    for (int f = 0; f < 10; ++f) {
        cd_scene_step(a);
        cd_scene_step_range(b, 0, 1234);
        cd_scene_step_range(b, 1234, 4097);
        cd_scene_step_range(b, 4097, 5003);
    }
    assert_true(scene_bits_equal(a, b));
    cd_scene_destroy(a);
    cd_scene_destroy(b);
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
        cd_vec3 c = cd_scene_center(s, i), v = cd_scene_velocity(s, i), h = cd_scene_half(s, i);
        assert_true(c.x >= 0 && c.x <= s->world && c.y >= 0 && c.y <= s->world && c.z >= 0 && c.z <= s->world);
        assert_true(fabs(v.x) <= p.speed && fabs(v.y) <= p.speed && fabs(v.z) <= p.speed);
        // The per-frame turn is a rotation by at most |omega| ≤ spin·√3.
        double angle = 2.0 * acos(fmin(1.0, (double)s->tw[i]));
        assert_true(angle <= p.spin * sqrt(3.0) * (1 + 1e-3) + 1e-6);
        assert_true(h.x == h.y && h.y == h.z);
        hmin = fmin(hmin, h.x);
        hmax = fmax(hmax, h.x);
    }
    assert_true(hmin >= 0.5 && hmax <= 5.0 && hmax / hmin > 5.0);
    cd_scene_destroy(s);
}

// Every corner of cube i (computed in double from the box the narrow test sees) lies in its
// float box.
static void assert_box_encloses(const cd_scene *s, uint32_t i)
{
    cd_obb b = cd_scene_obb(s, i);
    cd_vec3 corner[8];
    cd_obb_corners(&b, corner);
    cd_aabb box = cd_scene_aabb(s, i);
    for (int k = 0; k < 8; ++k) assert_true(cd_aabb_contains(box, (cd_aabb){corner[k], corner[k]}));
}

static void motion_keeps_invariants(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 300;
    p.speed = 2.0;  // fast, so walls are hit often
    p.spin = 0.3;
    cd_scene *s = cd_scene_create(&p);
    cd_vec3 c0 = cd_scene_center(s, 0);
    for (int f = 0; f < 400; ++f) {
        cd_scene_step(s);
        for (uint32_t i = 0; i < s->count; ++i) {
            cd_vec3 c = cd_scene_center(s, i);
            assert_true(c.x >= 0 && c.x <= s->world && c.y >= 0 && c.y <= s->world && c.z >= 0 && c.z <= s->world);
            assert_true(fabs(cd_q_norm(cd_scene_rot(s, i)) - 1.0) < 1e-6);  // float renormalisation
            cd_mat3 m = cd_scene_obb(s, i).axes;                            // normalised in double
            assert_true(fabs(cd_v3_dot(m.col[0], m.col[1])) < 1e-14);
            assert_true(fabs(cd_v3_len(m.col[2]) - 1.0) < 1e-14);
            assert_box_encloses(s, i);
        }
    }
    assert_int_equal(s->frame, 400);
    assert_true(cd_v3_len(cd_v3_sub(cd_scene_center(s, 0), c0)) > 0.0);
    cd_scene_destroy(s);
}

// The float box hugs the double box. The boxes are computed in float with a margin that covers
// the float axes' error (2^-17 of the summed half-extents, 2^-20 of |c| and of the radius), so a
// side may be that much wider, and never more: a margin twice as loose fails here.
static double box_slack(const cd_obb *b, int k)
{
    return 0x1p-19 * fabs(cd_v3_get(b->c, k)) + 0x1p-16 * (b->half.x + b->half.y + b->half.z);
}

// Cube i's float box is no wider than its double box by more than slack(obb, axis) on any side.
static void assert_box_hugs(const cd_scene *s, uint32_t i, double (*slack)(const cd_obb *, int))
{
    cd_obb b = cd_scene_obb(s, i);
    cd_aabb exact = cd_obb_aabb(&b), box = cd_scene_aabb(s, i);
    for (int k = 0; k < 3; ++k) {
        assert_true(cd_v3_get(exact.lo, k) - cd_v3_get(box.lo, k) <= slack(&b, k));
        assert_true(cd_v3_get(box.hi, k) - cd_v3_get(exact.hi, k) <= slack(&b, k));
    }
}

static void boxes_are_tight(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 2000;
    cd_scene *s = cd_scene_create(&p);
    for (uint32_t i = 0; i < s->count; ++i) {
        assert_box_hugs(s, i, box_slack);
        assert_box_encloses(s, i);
    }
    cd_scene_destroy(s);
}

// A few float ulps of |c| + radius (radius ≤ 60 below): the double path's rounding outward.
static double double_path_slack(const cd_obb *b, int k)
{
    return 4.0 * FLT_EPSILON * (fabs(cd_v3_get(b->c, k)) + 60.0);
}

// A rotation far past float range, or far below it, is the same rotation: cd_scene_set_pose
// scales it by a power of two, so each cube's box is bit for bit that of the same quaternion
// near unit norm (before, an entry past FLT_MAX became infinity and the box NaN).
static void far_scaled_rotations_keep_their_boxes(void **state)
{
    (void)state;
    enum { N = 40 };
    static const double scale[] = {0x1p200, 0x1p-200, 0x1p127, 0x1p-140, 1e300, 1e-300};
    enum { SCALES = sizeof scale / sizeof scale[0] };
    cd_scene *ref = cd_scene_create_empty(N, 100.0), *far[SCALES];
    for (int k = 0; k < SCALES; ++k) far[k] = cd_scene_create_empty(N, 100.0);
    cd_rng r = cd_rng_make(5, CD_STREAM_TEST);
    for (uint32_t i = 0; i < N; ++i) {
        cd_vec3 c = cd_v3(cd_rng_range(&r, 10, 90), cd_rng_range(&r, 10, 90), cd_rng_range(&r, 10, 90));
        cd_vec3 h = cd_v3(cd_rng_range(&r, 0.1, 3), cd_rng_range(&r, 0.1, 3), cd_rng_range(&r, 0.1, 3));
        cd_quat q = cd_rng_rotation(&r);
        cd_scene_set_pose(ref, i, c, q, h);
        for (int k = 0; k < SCALES; ++k) {
            // A power-of-two scale is exact; 1e±300 is not, so its box is compared for
            // enclosure only.
            double m = scale[k];
            cd_scene_set_pose(far[k], i, c, (cd_quat){q.w * m, q.x * m, q.y * m, q.z * m}, h);
        }
    }
    cd_scene_refresh(ref);
    for (int k = 0; k < SCALES; ++k) {
        cd_scene_refresh(far[k]);
        for (uint32_t i = 0; i < N; ++i) {
            const float *a = far[k]->box[i].lo, *b = ref->box[i].lo;
            for (int j = 0; j < 3; ++j) assert_true(isfinite(far[k]->box[i].lo[j]) && isfinite(far[k]->box[i].hi[j]));
            if (k < 4)
                assert_memory_equal(a, b, 3 * sizeof *a),
                    assert_memory_equal(far[k]->box[i].hi, ref->box[i].hi, 3 * sizeof *a);
            assert_box_encloses(far[k], i);
        }
        cd_scene_destroy(far[k]);
    }
    cd_scene_destroy(ref);
}

// Boxes enclose their cubes at the extremes of the float path (rotations of norm 2^-50 .. 2^50,
// centres from 0 to 10^6, half-extents from 0 to 10^4 and unequal, long cubes whose extent on an
// axis comes from a near-zero entry) and where the double path takes a chunk over (one rotation
// of norm 2^140, past float range, in the second chunk of 256): there every box of that chunk
// hugs its double box to a few float ulps of |c| + radius, tighter than the float path's margin
// allows for the half-extents used, so the test sees which path ran.

static void boxes_enclose_extreme_poses(void **state)
{
    (void)state;
    enum { N = 3 * 256 + 7 };
    cd_scene *s = cd_scene_create_empty(N, 100.0);
    cd_rng r = cd_rng_make(11, CD_STREAM_TEST);
    for (uint32_t i = 0; i < N; ++i) {
        double cs = i % 5 == 0 ? 0.0 : pow(10.0, cd_rng_range(&r, -3.0, 6.0));
        double hs = i % 7 == 0 ? 0.0 : pow(10.0, cd_rng_range(&r, -3.0, 4.0));
        double qs = ldexp(1.0, (int)cd_rng_range(&r, -25.0, 25.0));
        cd_vec3 c = cd_v3(cs * cd_rng_range(&r, -1, 1), cs * cd_rng_range(&r, -1, 1), cs * cd_rng_range(&r, -1, 1));
        cd_quat q = cd_rng_rotation(&r);
        q = (cd_quat){q.w * qs, q.x * qs, q.y * qs, q.z * qs};
        cd_vec3 h = cd_v3(hs * cd_rng_range(&r, 0.1, 1), hs * cd_rng_range(&r, 0.1, 1), hs * cd_rng_range(&r, 0.1, 1));
        if (i % 11 == 3) {  // a long cube turned by about 90° about z: its x extent is an entry near
                            // zero times 1000, whose float error no margin proportional to r covers
            double t = cd_rng_range(&r, 0.5, 2.0);
            q = (cd_quat){t, 0.0, 0.0, t * (1.0 + cd_rng_range(&r, -1e-7, 1e-7))};
            c = cd_v3(0.0, 0.0, 0.0);
            h = cd_v3(1000.0, 1e-3, 1e-3);
        }
        if (i >= 256 && i < 512) h = cd_v3(10.0, 20.0, 30.0);          // float margin ≥ 60·2^-17 > double slack
        if (i == 301) q = (cd_quat){0x1p70, 0x1p69, -0x1p68, 0x1p67};  // past float range
        cd_scene_set_pose(s, i, c, q, h);
    }
    cd_scene_refresh(s);
    for (uint32_t i = 0; i < N; ++i) {
        assert_box_encloses(s, i);
        if (i >= 256 && i < 512) assert_box_hugs(s, i, double_path_slack);
    }
    cd_scene_destroy(s);
}

// The motion step turns chunks of pose records into columns and back (eight records per transpose
// where the CPU has AVX2, the rest one by one). With three different half-extents per cube, so
// that no field can stand in for another: after a step, every record, including the tails of
// chunks and of the scene, holds what the scalar motion formulas give for its own cube (centres
// and rotations moved, half-extents untouched), and every box encloses its cube.
static void records_survive_motion(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 1029;  // four 256-cube chunks and a tail of five
    cd_scene *s = cd_scene_create(&p);
    cd_rng r = cd_rng_make(7, CD_STREAM_TEST);
    for (uint32_t i = 0; i < s->count; ++i)
        cd_scene_set_pose(s, i, cd_scene_center(s, i), cd_scene_rot(s, i),
                          cd_v3(cd_rng_range(&r, 0.1, 0.3), cd_rng_range(&r, 0.4, 0.6), cd_rng_range(&r, 0.7, 0.9)));
    cd_scene_refresh(s);
    cd_posef *before = malloc(s->count * sizeof *before);
    for (int f = 0; f < 3; ++f) {
        memcpy(before, s->pose, s->count * sizeof *before);
        cd_scene_step(s);
        for (uint32_t i = 0; i < s->count; ++i) {
            const cd_posef *a = &before[i], *b = &s->pose[i];
            for (int k = 0; k < 3; ++k) {  // centres away from the walls move by their velocity
                const float *v = k == 0 ? s->vx : (k == 1 ? s->vy : s->vz);
                float x = a->c[k] + v[i];
                if (x > 1.0f && x < (float)s->world - 1.0f) EXPECT_EQ(b->c[k], x);
            }
            float tw = s->tw[i], tx = s->tx[i], ty = s->ty[i], tz = s->tz[i];
            const float *q = a->q;
            float w = tw * q[0] - tx * q[1] - ty * q[2] - tz * q[3];
            float x = tw * q[1] + tx * q[0] + ty * q[3] - tz * q[2];
            float y = tw * q[2] - tx * q[3] + ty * q[0] + tz * q[1];
            float z = tw * q[3] + tx * q[2] - ty * q[1] + tz * q[0];
            float inv = 1.0f / sqrtf(w * w + x * x + y * y + z * z);
            const float want_q[4] = {w * inv, x * inv, y * inv, z * inv};
            assert_memory_equal(b->q, want_q, sizeof want_q);
            assert_memory_equal(b->h, a->h, sizeof a->h);
            assert_box_encloses(s, i);
        }
    }
    free(before);
    cd_scene_destroy(s);
}

// The Morton key cd_scene_reorder sorts by, written out here the slow way: bit 3b + a of the key
// is bit b of the 7-bit cell coordinate on axis a (128 cells across the world).
static uint32_t morton_key(const cd_scene *s, uint32_t i)
{
    uint32_t key = 0;
    for (int a = 0; a < 3; ++a) {
        float f = s->pose[i].c[a] * (float)(128.0 / s->world);
        uint32_t v = f > 0.0f ? (f < 127.0f ? (uint32_t)f : 127u) : 0u;
        for (int b = 0; b < 7; ++b) key |= (v >> b & 1u) << (3 * b + a);
    }
    return key;
}

// A reordering scene is the same scene in another storage order: every slot holds, bit for bit,
// the cube ident names as a scene that never reorders has it, frame after frame, on one thread or
// two; right after a reorder the slots follow the Morton curve; the CSV export is the same file.
static void reorder_moves_cubes_not_motion(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 3001;
    p.speed = 0.8;  // cubes cross Morton cells between reorders
    cd_scene *plain = cd_scene_create(&p);
    p.reorder = 3;
    cd_scene *sorted[2] = {cd_scene_create(&p), cd_scene_create(&p)};
    uint32_t *seen = malloc(p.cubes * sizeof *seen);
    for (int f = 0; f < 10; ++f) {
        cd_scene_step(plain);
        for (int t = 0; t < 2; ++t) {
            cd_scene *s = sorted[t];
            uint64_t layout = s->layout;
            cd_scene_step_threads(s, t + 1);
            assert_int_equal(s->layout, layout + (f % 3 == 0 || f == 1));  // at frames 0, 1, 3, 6, 9
            memset(seen, 0, p.cubes * sizeof *seen);
            for (uint32_t i = 0; i < s->count; ++i) {
                uint32_t id = s->ident[i];
                assert_true(id < s->count && !seen[id]);
                seen[id] = 1;
                assert_memory_equal(&s->pose[i], &plain->pose[id], sizeof s->pose[i]);
                assert_memory_equal(&s->box[i], &plain->box[id], sizeof s->box[i]);
                assert_true(s->vx[i] == plain->vx[id] && s->tz[i] == plain->tz[id]);
            }
        }
    }
    cd_scene *s = sorted[0];
    uint32_t *before = malloc(p.cubes * sizeof *before);
    memcpy(before, s->ident, p.cubes * sizeof *before);
    cd_scene_reorder(s);
    for (uint32_t i = 0; i < s->count; ++i) {
        assert_int_equal(s->ident[s->slot_of_prev[i]], before[i]);
        if (i) assert_true(morton_key(s, i - 1) <= morton_key(s, i));
    }
    char dir[] = "/tmp/cdlab_reorder_XXXXXX", a[64], b[64], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/plain.csv", dir);
    snprintf(b, sizeof b, "%s/sorted.csv", dir);
    assert_int_equal(cd_scene_export_csv(plain, a, err, sizeof err), 0);
    assert_int_equal(cd_scene_export_csv(s, b, err, sizeof err), 0);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    assert_true(fa && fb);
    int ca, cb;
    do {
        ca = fgetc(fa), cb = fgetc(fb);
        assert_int_equal(ca, cb);
    } while (ca != EOF);
    fclose(fa), fclose(fb);
    unlink(a), unlink(b), rmdir(dir);
    free(before);
    free(seen);
    cd_scene_destroy(plain);
    cd_scene_destroy(sorted[0]);
    cd_scene_destroy(sorted[1]);
}

// With still cubes, a reorder puts the cubes the last step moved first (in Morton order), then the
// others (in Morton order): the motion step's list of movers is then a run of slots, not a
// scatter. Trajectories, sleeping and waking stay those of a scene that never reorders.
static void reorder_puts_movers_first(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 3001;
    p.still = 0.7;
    p.sleep = 2.0;
    cd_scene *plain = cd_scene_create(&p);
    p.reorder = 3;
    cd_scene *s = cd_scene_create(&p);
    assert_non_null(s->state);
    for (int f = 0; f < 10; ++f) {
        cd_scene_step(plain);
        cd_scene_step(s);
        EXPECT_EQ(s->moved, plain->moved);
        for (uint32_t i = 0; i < s->count; ++i) {
            uint32_t id = s->ident[i];
            assert_memory_equal(&s->pose[i], &plain->pose[id], sizeof s->pose[i]);
            assert_int_equal(s->state[i], plain->state[id]);
        }
    }
    assert_true(s->moves_known);
    cd_scene_reorder(s);  // the flags move with their cubes
    uint32_t movers = 0;
    for (uint32_t i = 0; i < s->count; ++i) {
        int moved = s->moved_flag[i] != 0;
        movers += (uint32_t)moved;
        if (moved) assert_int_equal(movers, i + 1);  // every cube that moved before every other
        int same_part = i > 0 && (s->moved_flag[i - 1] != 0) == moved;
        if (same_part) assert_true(morton_key(s, i - 1) <= morton_key(s, i));
    }
    assert_true(movers > 0 && movers < s->count);
    cd_scene_destroy(plain);
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
    EXPECT_EQ(t->world, s->world);
    assert_true(scene_bits_equal(s, t));
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
    EXPECT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
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
    snprintf(text, sizeof text, "%s0,1,2,3e31,1,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":2: column cz: expected a number of magnitude <= 1e30");
    // 1e30 rounds to a float beyond 1e30, which a trace recorded from the scene would refuse.
    snprintf(text, sizeof text, "%s0,1,2,3,1,0,0,0,0.5,1e30,0.5\n", header);
    expect_import_error(text, ":2: column hy: expected a number of magnitude <= 1e30, found '1e30' "
                              "(1.00000002e+30 as a float)");
    snprintf(text, sizeof text, "%s0,-1e30,2,3,1,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":2: column cx: expected a number of magnitude <= 1e30, found '-1e30' "
                              "(-1.00000002e+30 as a float)");
    snprintf(text, sizeof text, "%s0,1,2,1e-400,1,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":2: column cz: expected a number of magnitude <= 1e30, found '1e-400' (it rounds to 0; "
                              "for zero write 0)");
    snprintf(text, sizeof text, "# world=10\n%s0,1,2,3,0,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":3: expected a unit quaternion");
    expect_import_error("a,b\n", ":1: expected header");
    // Columns are read by position: a header naming them in another order, or another name, is
    // refused (a file with hx..hz before the quaternion read 0 pairs where it holds 34).
    expect_import_error("id,cx,cy,cz,hx,hy,hz,qw,qx,qy,qz\n0,1,2,3,0.5,0.5,0.5,1,0,0,0\n",
                        ":1: expected header id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz, found 'id,cx,cy,cz,hx,hy,hz,");
    expect_import_error("# world=10\nid,cx,cy,cz,qw,qx,qy,qz,hx,hy,hq\n", ":2: expected header");
    snprintf(text, sizeof text, "%s0,1,2,3,1,0,0,0,0.5,0.5,0.5\n0,1,2,3,1,0,0,0,0.5,0.5,0.5\n", header);
    expect_import_error(text, ":3: column id: expected 1 (ids 0..N-1 in order), found '0'");
    // Rows are counted on the text before parsing (which allocates per field): a file of empty
    // fields is refused at its first bad line.
    snprintf(text, sizeof text, "%s0,1,2,3,1,0,0,0,0.5,0.5,0.5\n,\n,\n,\n", header);
    expect_import_error(text, ":3: expected 11 fields, found 2");
    char err[256];
    assert_null(cd_scene_import_csv("/nonexistent/cdlab.csv", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/cdlab.csv"));
}

// ---------------------------------------------------------------------------------------------
// Scene families (docs/design/scene.md#scene-families)

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

// Poses and boxes in cube order, hashed.
static uint64_t scene_hash(const cd_scene *s)
{
    uint64_t h = 1469598103934665603ULL;
    uint32_t *slot = cd_scene_slots(s);
    for (uint32_t i = 0; i < s->count; ++i) {
        h = fnv(h, &s->pose[slot[i]], sizeof s->pose[0]);
        h = fnv(h, &s->box[slot[i]], sizeof s->box[0]);
    }
    cd_free(slot);
    return h;
}

// The standard scene holds the bits it held before the families came: 2 000 cubes of edges in
// [1, 3], 40 steps on one and two threads alternately, reordered every 16 frames.
// A scene made on SIMD path `path`: 0 as the CPU allows, 1 with CDLAB_NO_AVX2 set (its records
// through the plain loops, its column loops' baseline build), 2 with CDLAB_NO_AVX512 set (the AVX2
// transposes and the AVX2 build of the column loops where the CPU has AVX2), all for the same bits.
enum { SCENE_PATHS = 3 };
static cd_scene *scene_on_path(const cd_scene_params *p, int path)
{
    const char *var = path == 1 ? "CDLAB_NO_AVX2" : path == 2 ? "CDLAB_NO_AVX512" : NULL;
    if (var) setenv(var, "1", 1);
    cd_scene *s = cd_scene_create(p);
    if (var) unsetenv(var);
    if (path) assert_false(s->avx512);
    if (path == 1) assert_false(s->avx2);
    return s;
}

static void uniform_scene_bits_pinned(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 2000, p.reorder = 16, p.size_ratio = 3;
    for (int path = 0; path < SCENE_PATHS; ++path) {
        cd_scene *s = scene_on_path(&p, path);
        for (int f = 0; f < 40; ++f) cd_scene_step_threads(s, f % 2 ? 2 : 1);
        EXPECT_EQ(scene_hash(s), 0x0caec07ee82753fcULL);
        EXPECT_EQ(s->moved, 2000);
        assert_null(s->state);
        cd_scene_destroy(s);
    }
}

static cd_scene_params family(cd_scene_layout layout, cd_scene_size_dist dist, double still, double sleep)
{
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 3000, p.layout = layout, p.size_dist = dist, p.size_ratio = dist ? 8.0 : 1.0;
    p.still = still, p.sleep = sleep, p.reorder = 8, p.clusters = 4, p.cluster_sigma = 0.05;
    return p;
}

// Poses, boxes, velocities and state in cube order, and the move list as cubes, hashed into h.
static uint64_t scene_hash_all(const cd_scene *s, uint64_t h)
{
    h ^= scene_hash(s);
    uint32_t *slot = cd_scene_slots(s);
    for (uint32_t c = 0; c < s->count; ++c) {
        float v[3] = {s->vx[slot[c]], s->vy[slot[c]], s->vz[slot[c]]};
        h = fnv(h, v, sizeof v);
        if (s->state) h = fnv(h, &s->state[slot[c]], 1);
    }
    cd_free(slot);
    for (uint32_t k = 0; k < s->moved; ++k) h = fnv(h, &s->ident[s->moved_slot[k]], sizeof s->ident[0]);
    return fnv(h, &s->moved, sizeof s->moved);
}

// cd_scene_bytes against the allocator: the heap grows by what it says when a scene with a state
// is made, stepped (the movers' lists) and reordered (the slot map), to within the allocator's
// headers. glibc's mallinfo2 counts both heap chunks and mmapped blocks; where malloc is not
// glibc's (the sanitizers replace it: a 1 MiB probe does not show) the check is left out.
static void scene_bytes_match_the_heap(void **state)
{
    (void)state;
    cd_scene_params p = family(CD_LAYOUT_UNIFORM, CD_SIZE_UNIFORM, 0.7, 0.0);
    p.cubes = 20000, p.reorder = 1;
    struct mallinfo2 a = mallinfo2();
    cd_scene *s = cd_scene_create(&p);
    cd_scene_step(s);
    cd_scene_step(s);  // a reorder after the first step: slot_of_prev too
    struct mallinfo2 b = mallinfo2();
    size_t bytes = cd_scene_bytes(s);
    assert_non_null(s->state), assert_non_null(s->mover_slot), assert_non_null(s->slot_of_prev);
    assert_true(bytes >= p.cubes * (cd_scene_bytes_per_cube() + 41));
    double heap = (double)(b.uordblks + b.hblkhd) - (double)(a.uordblks + a.hblkhd);
    struct mallinfo2 c = mallinfo2();
    static void *volatile probe;  // volatile: the allocation is not optimised away
    probe = malloc(1 << 20);      // is this malloc the one mallinfo2 counts?
    struct mallinfo2 d = mallinfo2();
    free(probe);
    if (d.uordblks + d.hblkhd >= c.uordblks + c.hblkhd + (1 << 20)) {
        double over = heap - (double)bytes;
        if (over < 0.0 || over > 0.01 * (double)bytes)
            fail_msg("heap grew by %.0f bytes, cd_scene_bytes says %zu", heap, bytes);
    }
    cd_scene_destroy(s);
}

// Scenes with still and sleeping cubes hold the bits they held when the motion step still walked
// every slot (the step now walks only the cubes that move): poses, boxes, velocities, sleep
// state and move lists of 36 frames on one, two and three threads in turn, across reorders, with
// the records moved by the AVX2 transposes and by the plain loops, and each build of the column
// loops (scene_on_path). The move lists are hashed in
// slot order, so the hashes of the cases that reorder changed when the reorders came to fall at
// frame 1 too and to put the cubes that moved first (with the lists taken as sets they did not).
static void moving_fraction_bits_pinned(void **state)
{
    (void)state;
    const struct {
        cd_scene_layout layout;
        double still, sleep;
        uint32_t reorder;
        uint64_t hash;
    } cases[] = {
        {CD_LAYOUT_UNIFORM, 0.9, 0.0, 8, 0xc4d8dc58ebce497aULL},
        {CD_LAYOUT_UNIFORM, 0.99, 0.0, 0, 0x0cd550d5c7aab40dULL},
        {CD_LAYOUT_CLUSTERS, 0.0, 4.0, 8, 0x19bed264fc65453dULL},
        {CD_LAYOUT_UNIFORM, 0.5, 3.0, 5, 0xf5ae5c16c5cae585ULL},
        {CD_LAYOUT_LEVEL, 0.3, 0.0, 8, 0xbe17f3b136579ef0ULL},
        {CD_LAYOUT_GROUND, 0.7, 6.0, 0, 0x51d818caf7414688ULL},
    };
    for (size_t k = 0; k < SCENE_PATHS * sizeof cases / sizeof cases[0]; ++k) {
        size_t c = k / SCENE_PATHS;
        cd_scene_params p = family(cases[c].layout, CD_SIZE_LOGUNIFORM, cases[c].still, cases[c].sleep);
        p.cubes = 5003, p.speed = 0.5, p.spin = 0.2, p.reorder = cases[c].reorder;  // fast: walls are hit
        cd_scene *s = scene_on_path(&p, (int)(k % SCENE_PATHS));
        uint64_t h = scene_hash_all(s, 0);
        for (int f = 0; f < 36; ++f) {
            cd_scene_step_threads(s, 1 + f % 3);
            h = scene_hash_all(s, h);
        }
        EXPECT_EQ(h, cases[c].hash);
        cd_scene_destroy(s);
    }
}

// Every family is seeded: the same parameters give the same bits, on any thread count; another
// seed another scene.
static void families_are_seeded(void **state)
{
    (void)state;
    for (int l = 0; l < 4; ++l)
        for (int d = 0; d < 3; ++d) {
            cd_scene_params p = family((cd_scene_layout)l, (cd_scene_size_dist)d, 0.3, d == 1 ? 3.0 : 0.0);
            cd_scene *a = cd_scene_create(&p), *b = cd_scene_create(&p);
            p.seed++;
            cd_scene *c = cd_scene_create(&p);
            for (int f = 0; f < 20; ++f) {
                cd_scene_step(a);
                cd_scene_step_threads(b, 2);
                EXPECT_EQ(a->moved, b->moved);
            }
            EXPECT_EQ(scene_hash(a), scene_hash(b));
            assert_true(scene_hash(a) != scene_hash(c));
            cd_scene_destroy(a), cd_scene_destroy(b), cd_scene_destroy(c);
        }
}

// The movers' lists follow what changes them between steps: a velocity set mid-run moves the
// cube by exactly that velocity in the next step (whole, threaded or ranged), a cube made still
// stops, and steps of every kind mixed with refreshes keep the sleeping cubes' boxes.
static void motion_changes_reach_the_step(void **state)
{
    (void)state;
    cd_scene_params p = family(CD_LAYOUT_UNIFORM, CD_SIZE_UNIFORM, 0.5, 3.0);
    p.reorder = 4;
    cd_scene *s = cd_scene_create(&p);
    for (int f = 0; f < 24; ++f) {
        uint32_t *slot = cd_scene_slots(s);
        uint32_t c = (uint32_t)(f * 97 + 1) % s->count, i = slot[c];
        cd_free(slot);
        if (!(s->state[i] & CD_SCENE_MOVES)) continue;
        cd_vec3 at = cd_scene_center(s, i);
        float v = f % 2 ? 0.015625f : -0.03125f;  // exact steps, far from the walls below
        cd_scene_set_motion(s, i, cd_v3(v, -v, 2 * v), cd_v3(0, 0, 0));
        int awake_next = (s->state[i] & CD_SCENE_AWAKE) != 0, k = f % 3;
        if (s->toggle_at[i] == s->frame) awake_next = !awake_next;
        if (k == 0) cd_scene_step(s);
        if (k == 1) cd_scene_step_threads(s, 2);
        if (k == 2) {
            cd_scene_step_range(s, 0, i + 1);
            cd_scene_step_range(s, i + 1, s->count);
            s->frame++;  // a ranged step leaves the frame to its caller
        }
        slot = cd_scene_slots(s);
        i = slot[c];  // a reorder may have come first
        cd_free(slot);
        cd_vec3 now = cd_scene_center(s, i);
        if (at.x > 1 && at.y > 1 && at.z > 1 && at.x < s->world - 1 && at.y < s->world - 1 && at.z < s->world - 1) {
            cd_vec3 want = awake_next ? cd_v3((float)(at.x + v), (float)(at.y - v), (float)(at.z + 2 * v)) : at;
            assert_true(now.x == want.x && now.y == want.y && now.z == want.z);
        }
        if (f % 4 == 3) {
            cd_scene_set_still(s, i);
            cd_posef was = s->pose[i];
            cd_scene_step(s);
            slot = cd_scene_slots(s);
            assert_memory_equal(&s->pose[slot[c]], &was, sizeof was);
            cd_free(slot);
            cd_scene_refresh(s);
        }
    }
    cd_scene_destroy(s);
}

// Still cubes keep their pose and box bit for bit through steps and reorders; exactly
// round(still·N) of them; moved counts the boxes that changed.
static void still_cubes_keep_their_bits(void **state)
{
    (void)state;
    cd_scene_params p = family(CD_LAYOUT_UNIFORM, CD_SIZE_UNIFORM, 0.25, 0.0);
    cd_scene *s = cd_scene_create(&p);
    EXPECT_EQ(cd_scene_moving_count(s), 2250);
    cd_posef pose0[3000];
    cd_aabbf box0[3000];
    memcpy(pose0, s->pose, sizeof pose0);
    memcpy(box0, s->box, sizeof box0);
    for (int f = 0; f < 30; ++f) {
        cd_scene_step(s);
        EXPECT_EQ(s->moved, 2250);  // every mover's centre moves by a velocity of ~0.05
    }
    uint32_t still = 0;
    for (uint32_t i = 0; i < s->count; ++i) {
        uint32_t id = s->ident[i];
        int same =
            memcmp(&s->pose[i], &pose0[id], sizeof pose0[0]) == 0 && memcmp(&s->box[i], &box0[id], sizeof box0[0]) == 0;
        EXPECT_EQ(same, !(s->state[i] & CD_SCENE_MOVES));
        still += same;
    }
    EXPECT_EQ(still, 750);
    cd_scene_destroy(s);
    p.still = 1.0;  // nothing moves
    s = cd_scene_create(&p);
    cd_scene_step(s);
    EXPECT_EQ(s->moved, 0);
    cd_scene_destroy(s);
}

// With sleep, the moving set changes: cubes fall asleep and wake; a sleeping cube's box stays.
static void sleep_changes_the_moving_set(void **state)
{
    (void)state;
    cd_scene_params p = family(CD_LAYOUT_CLUSTERS, CD_SIZE_UNIFORM, 0.0, 4.0);
    cd_scene *s = cd_scene_create(&p);
    uint32_t lo = UINT32_MAX, hi = 0, woke = 0;
    uint8_t *was = cd_alloc(s->count);
    for (int f = 0; f < 40; ++f) {
        uint32_t *slot = cd_scene_slots(s);
        for (uint32_t c = 0; c < s->count; ++c) was[c] = s->state[slot[c]];
        cd_free(slot);
        cd_aabbf *before = cd_alloc(s->count * sizeof *before);
        for (uint32_t i = 0; i < s->count; ++i) before[s->ident[i]] = s->box[i];
        cd_scene_step(s);
        for (uint32_t i = 0; i < s->count; ++i) {
            uint32_t c = s->ident[i];
            if (!(s->state[i] & CD_SCENE_AWAKE)) assert_memory_equal(&s->box[i], &before[c], sizeof before[c]);
            woke += !(was[c] & CD_SCENE_AWAKE) && (s->state[i] & CD_SCENE_AWAKE);
        }
        cd_free(before);
        if (f < 10) continue;  // all awake at the start
        if (s->moved < lo) lo = s->moved;
        if (s->moved > hi) hi = s->moved;
    }
    print_message("# sleep 4: moved per frame %u..%u of 3000 after frame 10, %u wake-ups in 40 frames\n", lo, hi, woke);
    assert_true(lo > 600 && hi < 2400 && woke > 1000);  // about half asleep at a time
    cd_free(was);
    cd_scene_destroy(s);
}

// The move list is exactly the slots whose pose or box changed, in slot order, after every step
// (serial, threaded, with still, sleeping and waking cubes, across reorders, a reorder between a
// step and the look; every stepped cube moves here) and after a refresh, a pose changed under an
// identical box included; cd_scene_moves_since answers for one publication, says nothing moved
// for none, and does not know after two, a ranged step or on a first look.
static void check_moves(const cd_scene *s, const cd_aabbf *before_by_cube, const cd_posef *pose_by_cube, uint64_t *seen)
{
    cd_scene_moves m;
    assert_int_equal(cd_scene_moves_since(s, seen, &m), 1);
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->count; ++i) {
        int changed = memcmp(&s->box[i], &before_by_cube[s->ident[i]], sizeof s->box[i]) != 0 ||
                      memcmp(&s->pose[i], &pose_by_cube[s->ident[i]], sizeof s->pose[i]) != 0;
        if (!changed) continue;
        assert_true(k < m.count);
        assert_int_equal(m.slot[k++], i);
        assert_int_equal(m.flag[i], 1);
    }
    assert_int_equal(k, m.count);
    assert_int_equal(m.count, s->moved);
    for (uint32_t i = 0; i < s->count && m.count; ++i) assert_int_equal(m.flag[i], m.flag[i] != 0);
    uint32_t flagged = 0;
    for (uint32_t i = 0; i < s->count && m.count; ++i) flagged += m.flag[i];
    assert_int_equal(flagged, m.count);
    assert_int_equal(cd_scene_moves_since(s, seen, &m), 1);  // nothing since
    assert_int_equal(m.count, 0);
}

static void move_list_is_what_changed(void **state)
{
    (void)state;
    for (int variant = 0; variant < 4; ++variant) {
        cd_scene_params p = family(variant % 2 ? CD_LAYOUT_CLUSTERS : CD_LAYOUT_UNIFORM, CD_SIZE_UNIFORM,
                                   variant >= 2 ? 0.9 : 0.0, variant == 3 || variant == 1 ? 4.0 : 0.0);
        p.reorder = 3;
        cd_scene *s = cd_scene_create(&p);
        uint64_t seen = CD_SCENE_MOVES_UNSEEN;
        cd_scene_moves m;
        assert_int_equal(cd_scene_moves_since(s, &seen, &m), 0);  // a first look
        cd_aabbf *before = cd_alloc(s->count * sizeof *before);
        cd_posef *pose = cd_alloc(s->count * sizeof *pose);
        for (int f = 0; f < 12; ++f) {
            for (uint32_t i = 0; i < s->count; ++i) before[s->ident[i]] = s->box[i], pose[s->ident[i]] = s->pose[i];
            if (f % 3 == 2)
                cd_scene_step_threads(s, 2 + f % 2);
            else
                cd_scene_step(s);
            if (f == 7) cd_scene_reorder(s);  // between the step and the look
            check_moves(s, before, pose, &seen);
        }
        for (uint32_t i = 0; i < s->count; ++i) before[s->ident[i]] = s->box[i], pose[s->ident[i]] = s->pose[i];
        cd_scene_set_pose(s, 5, cd_v3(1, 1, 1), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
        // Cube 9's rotation stored twice as long (the same rotation: the box is the same bit for
        // bit), and cube 11's centre written by hand as a trace frame does: both poses changed.
        cd_quat q9 = cd_scene_rot(s, 9);
        cd_scene_set_pose(s, 9, cd_scene_center(s, 9), (cd_quat){2 * q9.w, 2 * q9.x, 2 * q9.y, 2 * q9.z},
                          cd_scene_half(s, 9));
        s->pose[11].c[0] = cd_float_next_up(s->pose[11].c[0]);
        cd_scene_note_pose(s, 11);
        cd_aabbf box9 = s->box[9];
        cd_scene_refresh(s);
        assert_memory_equal(&s->box[9], &box9, sizeof box9);
        assert_int_equal(s->moved_flag[9], 1);
        assert_int_equal(s->moved_flag[11], 1);
        check_moves(s, before, pose, &seen);
        uint32_t listed = s->moved;
        const uint32_t marks[] = {7, 7};
        cd_scene_mark_moved(s, marks, 2);
        assert_int_equal(s->moved, listed + 1);  // 7's box did not change in the refresh
        for (uint32_t k = 0; k + 1 < s->moved; ++k) assert_true(s->moved_slot[k] < s->moved_slot[k + 1]);
        assert_int_equal(s->moved_flag[7], 1);
        cd_scene_step(s);
        cd_scene_step(s);
        assert_int_equal(cd_scene_moves_since(s, &seen, &m), 0);  // two publications since
        cd_scene_step_range(s, 0, s->count);
        assert_int_equal(cd_scene_moves_since(s, &seen, &m), 0);  // a ranged step lists nothing
        cd_free(before);
        cd_free(pose);
        cd_scene_destroy(s);
    }
}

// Each layout has its shape: a ground layer two largest edges thick that stays so; nine still
// axis-aligned slabs in a level, floors spanning the world; clusters occupying few cells.
static void layouts_have_their_shape(void **state)
{
    (void)state;
    cd_scene_params p = family(CD_LAYOUT_GROUND, CD_SIZE_LOGUNIFORM, 0.0, 0.0);
    cd_scene *s = cd_scene_create(&p);
    for (int f = 0; f < 50; ++f) cd_scene_step(s);
    for (uint32_t i = 0; i < s->count; ++i) {
        double z = s->pose[i].c[2], h = s->pose[i].h[0];
        assert_true(z >= h && z <= h + 8.0 + 1e-6);
    }
    cd_scene_destroy(s);
    p = family(CD_LAYOUT_LEVEL, CD_SIZE_UNIFORM, 0.0, 0.0);
    s = cd_scene_create(&p);
    EXPECT_EQ(cd_scene_moving_count(s), 3000 - CD_SCENE_LEVEL_SLABS);
    for (uint32_t i = 0; i < 3; ++i) {
        assert_true(s->pose[i].h[0] == (float)(0.5 * s->world) && s->pose[i].q[0] == 1.0f);
        assert_true(s->state[i] == 0);
    }
    cd_scene_destroy(s);
    // Cells of a 10³ grid holding a centre: a uniform scene fills nearly all, four clusters of
    // σ = 0.05 L a small part.
    uint32_t filled[2] = {0, 0};
    for (int l = 0; l < 2; ++l) {
        p = family(l ? CD_LAYOUT_CLUSTERS : CD_LAYOUT_UNIFORM, CD_SIZE_UNIFORM, 0.0, 0.0);
        s = cd_scene_create(&p);
        uint8_t cell[1000] = {0};
        for (uint32_t i = 0; i < s->count; ++i) {
            int k[3];
            for (int a = 0; a < 3; ++a) k[a] = (int)(s->pose[i].c[a] / s->world * 10.0) % 10;
            filled[l] += !cell[k[0] + 10 * k[1] + 100 * k[2]]++;
        }
        cd_scene_destroy(s);
    }
    print_message("# cells filled of 1000: uniform %u, 4 clusters %u\n", filled[0], filled[1]);
    assert_true(filled[0] > 900 && filled[1] < 200);
}

// Sample means of edge³ against the E[edge³] the world side is computed from.
static void size_distributions_match_their_means(void **state)
{
    (void)state;
    for (int d = 0; d < 3; ++d) {
        cd_scene_params p = family(CD_LAYOUT_UNIFORM, (cd_scene_size_dist)d, 0.0, 0.0);
        p.cubes = 100000, p.size_ratio = 10.0;
        cd_scene *s = cd_scene_create(&p);
        double sum = 0, lo = INFINITY, hi = 0;
        for (uint32_t i = 0; i < s->count; ++i) {
            double e = 2.0 * s->pose[i].h[0];
            sum += e * e * e, lo = fmin(lo, e), hi = fmax(hi, e);
        }
        double want = pow(cd_scene_world_side(&p), 3) * p.density / p.cubes, got = sum / p.cubes;
        print_message("# %s: mean edge^3 %.3f, expected %.3f, edges in [%.3f, %.3f]\n", cd_scene_size_dist_names[d],
                      got, want, lo, hi);
        assert_true(fabs(got / want - 1.0) < 0.05 && lo >= 1.0 - 1e-6 && hi <= 10.0 + 1e-5);
        cd_scene_destroy(s);
    }
}

// Record `frames` frames of the scene of p (stepped between them) as a trace at path (a new
// temporary file, its name written there), world box [lo, lo + side]³ with lo[k] = low[k] and side
// the scene's; every x_only-th moving cube (0: none) moving along x alone, unturned; each frame's
// poses by object into recorded (frames × cubes) unless NULL. Returns the live scene after its
// last recorded frame (the caller destroys it).
static cd_scene *record_trace(char *path, const cd_scene_params *p, int frames, const double low[3], uint32_t x_only,
                              cd_posef *recorded)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cd_scene *live = cd_scene_create(p);
    uint32_t n = live->count;
    for (uint32_t i = 0; x_only && i < n; i += x_only)
        if (live->state == NULL || (live->state[i] & CD_SCENE_MOVES))
            cd_scene_set_motion(live, i, cd_v3(0.3, 0.0, 0.0), cd_v3(0.0, 0.0, 0.0));
    float *half = malloc(3 * (size_t)n * sizeof *half);
    for (uint32_t i = 0; i < n; ++i) memcpy(half + 3 * i, live->pose[i].h, sizeof live->pose[i].h);
    char err[600];
    cd_trace_writer *w;
    assert_int_equal(cd_trace_writer_open(&w, path, n, half, err, sizeof err), 0);
    for (int f = 0; f < frames; ++f) {
        if (f) cd_scene_step(live);
        assert_int_equal(cd_trace_writer_frame(w, live->pose, err, sizeof err), 0);
        if (recorded) memcpy(recorded + (size_t)f * n, live->pose, n * sizeof *live->pose);  // reorder = 0
    }
    double hi[3] = {live->world, live->world, live->world};
    assert_int_equal(cd_trace_writer_close(w, low, hi, err, sizeof err), 0);
    free(half);
    return live;
}

// The switches a replay reads when it starts: the plain path of its records (CDLAB_NO_AVX2) and
// its frames read from the file as it goes (CDLAB_TRACE_STREAM), set as asked; then both cleared.
static void set_replay_switches(int plain, int stream)
{
    if (plain) setenv("CDLAB_NO_AVX2", "1", 1);
    if (stream) setenv("CDLAB_TRACE_STREAM", "1", 1);
}

static void clear_replay_switches(void)
{
    unsetenv("CDLAB_NO_AVX2");
    unsetenv("CDLAB_TRACE_STREAM");
}

// A trace written here replays its frames; cut short while a replay that reads its frames from the
// file as it goes (CDLAB_TRACE_STREAM=1) goes on, the next step fails with where and why (a run
// then fails the point), while a replay that held the frames in memory from its start goes on; an
// aborted writer leaves nothing.
static void trace_replay_and_early_end(void **state)
{
    (void)state;
    char path[] = "/tmp/cdlab_trace_XXXXXX", err[600];
    cd_scene_params p = family(CD_LAYOUT_GROUND, CD_SIZE_UNIFORM, 0.5, 0.0);
    p.cubes = 50, p.reorder = 0;
    const double origin[3] = {0, 0, 0};
    cd_scene *live = record_trace(path, &p, 3, origin, 0, NULL);
    float half[150];
    for (uint32_t i = 0; i < 50; ++i) memcpy(half + 3 * i, live->pose[i].h, sizeof live->pose[i].h);
    cd_trace_writer *w;
    cd_scene *s;
    cd_scene *held;
    cd_trace_replay *in_memory = cd_trace_replay_start(path, 0, &held, err, sizeof err);
    assert_non_null(in_memory);
    set_replay_switches(0, 1);
    cd_trace_replay *r = cd_trace_replay_start(path, 0, &s, err, sizeof err);
    clear_replay_switches();
    assert_non_null(r);
    assert_int_equal(cd_trace_replay_step(r, s, err, sizeof err), 0);
    EXPECT_EQ(s->moved, 25);  // half still
    assert_int_equal(truncate(path, 80 + 12 * 50 + 28 * 50 * 2 + 10), 0);
    assert_int_equal(cd_trace_replay_step(r, s, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "ended early in frame 2 of 3");
    for (int f = 1; f < 3; ++f) assert_int_equal(cd_trace_replay_step(in_memory, held, err, sizeof err), 0);
    assert_memory_equal(held->pose, live->pose, 50 * sizeof *held->pose);  // the last frame recorded
    cd_trace_replay_end(in_memory);
    cd_scene_destroy(held);
    cd_trace_replay_end(r);
    cd_scene_destroy(s);
    assert_int_equal(cd_trace_writer_open(&w, path, 50, half, err, sizeof err), 0);
    assert_int_equal(cd_trace_writer_frame(w, live->pose, err, sizeof err), 0);
    cd_trace_writer_abort(w);  // the old file stays as it was, no temporary is left
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    EXPECT_EQ(st.st_size, 80 + 12 * 50 + 28 * 50 * 2 + 10);
    unlink(path);
    cd_scene_destroy(live);
}

// The number of entries in directory dir, . and .. aside.
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

// The writer refuses what the reader would refuse, with the reader's words and CD_TRACE_REFUSED,
// before the file is written: half-extents beyond 0..1e30, a NaN position, a quaternion of norm
// 3, a world box beyond 1e30 or one whose low corner the replay's shift would round the positions
// to; nothing is left behind. Point objects on integers, which that shift moves exactly, are
// written, and the reader's checks take them.
static void trace_writer_refuses(void **state)
{
    (void)state;
    char dir[] = "/tmp/cdlab_writer_XXXXXX", path[64], err[600];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.trace", dir);
    cd_trace_writer *w;
    float half[6] = {0.5f, 0.5f, 0.5f, 0.5f, -1.0f, 0.5f};
    assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), CD_TRACE_REFUSED);
    EXPECT_CONTAINS(err, "half-extent 1 of object 1 is -1: expected 0..1e30 (negative: an inverted box)");
    assert_null(w);
    // 1e30 rounds to the float 1.00000002e+30: shown with the digits that put it beyond 1e30.
    half[4] = 1e30f;
    assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), CD_TRACE_REFUSED);
    EXPECT_CONTAINS(err, "half-extent 1 of object 1 is 1.00000002e+30: expected 0..1e30 (beyond 1e30)");
    assert_null(w);
    half[4] = 0.5f;
    cd_posef pose[2] = {{{1, 1, 1}, {1, 0, 0, 0}, {0.5f, 0.5f, 0.5f}}, {{2, 2, 2}, {1, 0, 0, 0}, {0.5f, 0.5f, 0.5f}}};
    pose[1].c[1] = NAN;
    assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), 0);
    assert_int_equal(cd_trace_writer_frame(w, pose, err, sizeof err), CD_TRACE_REFUSED);
    EXPECT_CONTAINS(err, "frame 0 object 1: position nan");
    cd_trace_writer_abort(w);
    pose[1].c[1] = 1e30f;
    assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), 0);
    assert_int_equal(cd_trace_writer_frame(w, pose, err, sizeof err), CD_TRACE_REFUSED);
    EXPECT_CONTAINS(err, "frame 0 object 1: position 1.00000002e+30: expected a number of magnitude <= 1e30");
    cd_trace_writer_abort(w);
    pose[1].c[1] = 2.0f;
    assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), 0);
    assert_int_equal(cd_trace_writer_frame(w, pose, err, sizeof err), 0);
    pose[1].q[0] = 3.0f;
    assert_int_equal(cd_trace_writer_frame(w, pose, err, sizeof err), CD_TRACE_REFUSED);
    EXPECT_CONTAINS(err, "frame 1 object 1: quaternion of norm 3");
    cd_trace_writer_abort(w);
    pose[1].q[0] = 1.0f;
    const double huge[3] = {-1e31, 0, 0}, far[3] = {-1e9, 0, 0}, hi[3] = {10, 10, 10};
    const double *lows[2] = {huge, far};
    const char *why[2] = {"world box axis 0 is [-1e+31, 10]", "world box low corner at 1e+09 from the origin"};
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), 0);
        assert_int_equal(cd_trace_writer_frame(w, pose, err, sizeof err), 0);
        assert_int_equal(cd_trace_writer_close(w, lows[k], hi, err, sizeof err), CD_TRACE_REFUSED);
        EXPECT_CONTAINS(err, why[k]);
    }
    assert_int_equal(dir_entries(dir), 0);
    // Points at integers: the box around them has its low corner at 1, and c - 1 is exact.
    for (int i = 0; i < 6; ++i) half[i] = 0.0f;
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 3; ++k) pose[i].h[k] = 0.0f, pose[i].c[k] = (float)(1 + 4 * i);
    assert_int_equal(cd_trace_writer_open(&w, path, 2, half, err, sizeof err), 0);
    assert_int_equal(cd_trace_writer_frame(w, pose, err, sizeof err), 0);
    assert_int_equal(cd_trace_writer_close(w, NULL, NULL, err, sizeof err), 0);
    cd_trace *t = cd_trace_open(path, 1, err, sizeof err);
    if (!t) fail_msg("%s", err);
    EXPECT_EQ(cd_trace_get_info(t)->lo[0], 1.0);
    cd_trace_close(t);
    unlink(path);
    rmdir(dir);
}

// One replay step of s, which must succeed, with the poses by cube before it left in before (slots
// move with reorders).
static void replay_step_from(cd_trace_replay *r, cd_scene *s, cd_posef *before)
{
    char err[600];
    for (uint32_t k = 0; k < s->count; ++k) before[s->ident[k]] = s->pose[k];
    if (cd_trace_replay_step(r, s, err, sizeof err) != 0) fail_msg("replay step: %s", err);
}

// After a replay step: s's boxes are those a full refresh of its poses gives (full: a scratch scene
// of as many cubes), and its move list is exactly the slots whose pose differs from before (the
// poses by cube before the step), in slot order. Returns how many that is.
static uint32_t expect_refresh_and_moves(const cd_scene *s, cd_scene *full, const cd_posef *before)
{
    uint32_t n = s->count, want = 0;
    memcpy(full->pose, s->pose, n * sizeof *full->pose);
    cd_scene_refresh(full);
    assert_memory_equal(full->box, s->box, n * sizeof *s->box);
    for (uint32_t k = 0; k < n; ++k) {
        int changed = memcmp(&before[s->ident[k]], &s->pose[k], sizeof *s->pose) != 0;
        EXPECT_EQ(s->moved_flag[k], changed);
        if (changed) EXPECT_EQ(s->moved_slot[want++], k);
    }
    EXPECT_EQ(s->moved, want);
    return want;
}

// size bytes of the file at path, from offset, written over with bytes; what was there into was
// (when not NULL).
static void overwrite(const char *path, long offset, const void *bytes, size_t size, void *was)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    if (was) {
        assert_int_equal(fread(was, size, 1, f), 1);
        assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    }
    assert_int_equal(fwrite(bytes, size, 1, f), 1);
    assert_int_equal(fclose(f), 0);
}

// The trace at path with size bytes at offset written over: its replay steps through the frames
// before `frame` and stops at that one with a message that holds needle. The bytes are put back
// afterwards.
static void expect_replay_fails(const char *path, long offset, const void *bytes, size_t size, int frame,
                                const char *needle)
{
    unsigned char was[64];
    assert_true(size <= sizeof was);
    overwrite(path, offset, bytes, size, was);
    char err[600];
    cd_scene *s;
    cd_trace_replay *r = cd_trace_replay_start(path, 0, &s, err, sizeof err);
    assert_non_null(r);
    for (int k = 1; k < frame; ++k) assert_int_equal(cd_trace_replay_step(r, s, err, sizeof err), 0);
    assert_int_equal(cd_trace_replay_step(r, s, err, sizeof err), -1);
    EXPECT_CONTAINS(err, needle);
    cd_trace_replay_end(r);
    cd_scene_destroy(s);
    overwrite(path, offset, was, size, NULL);
}

// A replay of the trace at path (a reorder every `reorder` frames) whose scene takes the plain path
// of its records (CDLAB_NO_AVX2 set while it is made) or, where the CPU has it, the AVX2 one, and
// which reads its frames from the file as it goes (stream: CDLAB_TRACE_STREAM=1) or holds them in
// memory from its start.
static cd_trace_replay *replay_on_path(const char *path, uint32_t reorder, int plain, int stream, cd_scene **s)
{
    char err[600];
    set_replay_switches(plain, stream);
    cd_trace_replay *r = cd_trace_replay_start(path, reorder, s, err, sizeof err);
    clear_replay_switches();
    if (!r) fail_msg("replay of %s: %s", path, err);
    if (plain) assert_false((*s)->avx2);
    return r;
}

// The replay refreshes only the boxes of the poses that changed (cd_scene_refresh_noted): every
// frame, with reorders, on scenes with a third and four fifths of their cubes still (where the
// AVX2 path lists the changed records first) and on one with every cube moving, the world box
// shifted, its boxes are bit for bit those a full refresh of the same poses gives, and its move
// list is exactly the slots whose pose changed. A frame with a bad object in the middle (a
// quaternion's norm, a position out of range, a NaN) stops the replay with the message the
// one-by-one check gives. All of it on both paths of the frame's records (CDLAB_NO_AVX2 set: the
// plain loop; not: AVX2 where the CPU has it).
static void replay_refreshes_what_changed(void **state)
{
    (void)state;
    enum { N = 1500, FRAMES = 12 };
    const double low[3] = {-3.1, 0.5, -0.27};  // shifted on replay (by doubles no float holds)
    cd_posef *recorded = malloc((size_t)FRAMES * N * sizeof *recorded);
    cd_scene *full = cd_scene_create_empty(N, 1.0);
    cd_posef *before = malloc(N * sizeof *before);
    static const double still_share[] = {0.3, 0.0, 0.8};  // the AVX2 path lists the changed records at 0.8
    for (int c = 0; c < 3; ++c) {
        int all_move = still_share[c] == 0.0;
        char path[] = "/tmp/cdlab_trace_XXXXXX";
        cd_scene_params p = family(CD_LAYOUT_CLUSTERS, CD_SIZE_LOGUNIFORM, still_share[c], 0.0);
        p.cubes = N, p.reorder = 0;
        cd_scene *live = record_trace(path, &p, FRAMES, low, 7, recorded);
        if (still_share[c] == 0.8) {  // a still cube moved on z alone in frame 4 and back in 5: its
                                      // records differ from the frame before's in their last lane only
            uint32_t i = 0;
            while (memcmp(&recorded[3 * N + i], &recorded[4 * N + i], sizeof *recorded) != 0 ||
                   memcmp(&recorded[4 * N + i], &recorded[5 * N + i], sizeof *recorded) != 0)
                ++i;
            float z = recorded[4 * N + i].c[2] + 0.25f, was;
            overwrite(path, 80 + 12L * N + 28L * N * 4 + 28L * i + 24, &z, sizeof z, &was);
            assert_memory_equal(&was, &recorded[4 * N + i].c[2], sizeof was);
            recorded[4 * N + i].c[2] = z;
        }
        for (int way = 0; way < 4; ++way) {
            const int plain = way & 1, stream = way >> 1;
            cd_scene *s;
            cd_trace_replay *r = replay_on_path(path, 3, plain, stream, &s);  // a reorder every 3 frames
            uint64_t listed = 0;
            for (int f = 1; f < FRAMES; ++f) {
                replay_step_from(r, s, before);
                for (uint32_t k = 0; k < N; ++k) {  // each slot holds its cube's recorded pose, shifted
                    cd_posef want = recorded[(size_t)f * N + s->ident[k]];
                    for (int j = 0; j < 3; ++j) want.c[j] = (float)((double)want.c[j] - low[j]);
                    if (memcmp(&want, &s->pose[k], sizeof want) != 0)
                        fail_msg("path %d, stream %d, frame %d, cube %u: pose differs", plain, stream, f, s->ident[k]);
                }
                listed += expect_refresh_and_moves(s, full, before);
            }
            if (all_move)
                EXPECT_EQ(listed, (uint64_t)(FRAMES - 1) * N);
            else
                assert_true(listed > 0 && listed < (uint64_t)(FRAMES - 1) * N);  // some moved, some did not
            cd_trace_replay_end(r);
            cd_scene_destroy(s);
        }
        // Objects of frames 5, 6 and 7 given a quaternion of norm 3, a coordinate of 2e30 and a NaN
        // (the last object, whose record ends the frame): the replay stops there and says so.
        const float q[4] = {3.0f, 0.0f, 0.0f, 0.0f}, big = 2e30f, nan = NAN;
        for (int way = 0; way < 4 && !all_move; ++way) {
            set_replay_switches(way & 1, way >> 1);
            expect_replay_fails(path, 80 + 12L * N + 28L * N * 5 + 28L * 700, q, sizeof q, 5,
                                "frame 5 object 700: quaternion of norm 3");
            expect_replay_fails(path, 80 + 12L * N + 28L * N * 6 + 28L * 900 + 20, &big, sizeof big, 6,
                                "frame 6 object 900: position 2.00000003e+30");
            expect_replay_fails(path, 80 + 12L * N + 28L * N * 7 + 28L * (N - 1) + 16, &nan, sizeof nan, 7,
                                "frame 7 object 1499: position nan");
            clear_replay_switches();
        }
        cd_scene_destroy(live);
        unlink(path);
    }
    cd_scene_destroy(full);
    free(before), free(recorded);
}

// A Broadmark .aabbs scene replays as decoded record by record, though records equal byte for byte
// to the frame before's are skipped (their slots hold that pose): every frame, with reorders and the
// world box shifted, each slot holds its object's box as centre and half-extents (in double, each
// rounded once), the boxes are those a full refresh gives, and the move list is exactly the slots
// whose pose changed (a third of the objects move; one changes and changes back, one grows on z alone). An inverted box,
// a NaN, a fourth component not zero (also on a resting object, whose record then differs in its
// last word alone) or a bound of 2e30 in a later frame stops the replay with the message the
// one-by-one check gives. All of it on the AVX2 and the plain path (CDLAB_NO_AVX2).
static void broadmark_replay_skips_repeated_records(void **state)
{
    (void)state;
    enum { N = 1000, FRAMES = 6 };
    char path[] = "/tmp/cdlab_XXXXXX.aabbs";
    int fd = mkstemps(path, 6);
    assert_true(fd >= 0);
    close(fd);
    static float box[FRAMES][N][8];
    uint64_t rng = 12345;
    for (int f = 0; f < FRAMES; ++f)
        for (uint32_t i = 0; i < N; ++i) {
            if (f > 0 && i % 3 != 0 && !(i == 7 && f == 3)) {  // resting, byte for byte
                memcpy(box[f][i], box[i == 7 && f == 4 ? 2 : f - 1][i], sizeof box[f][i]);
                if (i == 11 && f == 2) box[f][i][6] += 0.5f;  // grows on z alone: the last word differs
                continue;
            }
            for (int k = 0; k < 3; ++k) {
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                float lo = -4.0f + 20.0f * (float)(rng >> 40) / (float)(1 << 24);
                box[f][i][k] = lo, box[f][i][4 + k] = lo + 0.3f + (float)(i % 5) * 0.1f;
            }
            box[f][i][3] = box[f][i][7] = 0.0f;
        }
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    char names[256] = "skips";
    memcpy(names + 128, "boxes", 6);
    int32_t counts[4] = {N, FRAMES, 0, 0};
    float world[8] = {-4, -4, -4, 0, 17, 17, 17, 0};
    assert_int_equal(fwrite(names, 1, 256, out), 256);
    assert_int_equal(fwrite(counts, 4, 4, out), 4);
    assert_int_equal(fwrite(world, 4, 8, out), 8);
    assert_int_equal(fwrite(box, sizeof box, 1, out), 1);
    assert_int_equal(fclose(out), 0);
    cd_scene *full = cd_scene_create_empty(N, 1.0);
    cd_posef *before = malloc(N * sizeof *before);
    // The AVX2 path where the CPU has it, then the plain loop; in memory, then streamed.
    for (int way = 0; way < 4; ++way) {
        const int plain = way & 1, stream = way >> 1;
        cd_scene *s;
        cd_trace_replay *r = replay_on_path(path, 2, plain, stream, &s);  // a reorder every 2 frames
        uint64_t listed = 0;
        for (int f = 1; f < FRAMES; ++f) {
            replay_step_from(r, s, before);
            for (uint32_t k = 0; k < N; ++k) {
                const float *b = box[f][s->ident[k]];
                cd_posef want = {{0}, {1, 0, 0, 0}, {0}};
                for (int j = 0; j < 3; ++j) {
                    float c = (float)(0.5 * ((double)b[j] + b[4 + j]));
                    want.c[j] = (float)((double)c + 4.0);
                    want.h[j] = (float)(0.5 * ((double)b[4 + j] - b[j]));
                }
                if (memcmp(&want, &s->pose[k], sizeof want) != 0)
                    fail_msg("path %d, frame %d, object %u: pose differs", plain, f, s->ident[k]);
            }
            uint32_t want = expect_refresh_and_moves(s, full, before);
            EXPECT_EQ(want, (N + 2) / 3 + (f == 3 || f == 4) + (f == 2));  // object 7 moves in frame 3 and
                                                                           // back in 4, 11 grows in 2
            listed += want;
        }
        assert_true(listed > 0);
        cd_trace_replay_end(r);
        cd_scene_destroy(s);
        // Object 500 of frame 4 inverted on x, object 600 of frame 3 with a NaN, object 999 (the
        // frame's last record) of frame 5 with a fourth component of 1 and object 1 of frame 2 with
        // a bound of 2e30: the replay stops there and says so.
        set_replay_switches(plain, stream);
        float inverted[8], with_nan[8], fourth[8], far[8];
        memcpy(inverted, box[4][500], sizeof inverted), memcpy(with_nan, box[3][600], sizeof with_nan);
        memcpy(fourth, box[5][999], sizeof fourth), memcpy(far, box[2][1], sizeof far);
        inverted[0] = inverted[4] + 1.0f, with_nan[5] = NAN, fourth[7] = 1.0f, far[6] = 2e30f;
        expect_replay_fails(path, 304 + 32L * N * 4 + 32L * 500, inverted, sizeof inverted, 4,
                            "frame 4 object 500: box axis 0");
        expect_replay_fails(path, 304 + 32L * N * 3 + 32L * 600, with_nan, sizeof with_nan, 3,
                            "frame 3 object 600: box axis 1");
        expect_replay_fails(path, 304 + 32L * N * 5 + 32L * 999, fourth, sizeof fourth, 5,
                            "frame 5 object 999: fourth components not zero");
        float resting_fourth[8];  // object 998 rests: its record differs from the frame before's in the last word only
        memcpy(resting_fourth, box[5][998], sizeof resting_fourth);
        resting_fourth[7] = 1.0f;
        expect_replay_fails(path, 304 + 32L * N * 5 + 32L * 998, resting_fourth, sizeof resting_fourth, 5,
                            "frame 5 object 998: fourth components not zero");
        expect_replay_fails(path, 304 + 32L * N * 2 + 32L * 1, far, sizeof far, 2, "frame 2 object 1: box axis 2");
        clear_replay_switches();
    }
    cd_scene_destroy(full);
    free(before);
    unlink(path);
}

// The world side of a scene file: finite, positive, within a factor 2^24 of the objects' extent
// (here 5.5: a centre at 5 with half-extent 0.5).
static void csv_import_checks_world(void **state)
{
    (void)state;
    const char *rows = "id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz\n0,1,1,1,1,0,0,0,0.5,0.5,0.5\n1,5,5,5,1,0,0,0,0.5,0.5,0.5\n";
    static const char *const bad[] = {"1e400", "-1e400", "nan", "0", "-3", "abc", "1e300", "1e-10", "9.3e7", "3.2e-7"};
    char text[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        snprintf(text, sizeof text, "# world=%s\n%s", bad[i], rows);
        char needle[64];
        snprintf(needle, sizeof needle, ":1: # world=%s: ", bad[i]);
        expect_import_error(text, needle);
    }
    static const char *const good[] = {"10", "5.5", "9.2e7", "3.3e-7"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        snprintf(text, sizeof text, "# world=%s\n%s", good[i], rows);
        char path[] = "/tmp/cdlab_world_XXXXXX", err[512] = "";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        EXPECT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        cd_scene *s = cd_scene_import_csv(path, err, sizeof err);
        if (!s) fail_msg("world=%s refused: %s", good[i], err);
        EXPECT_EQ(s->world, strtod(good[i], NULL));
        cd_scene_destroy(s);
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_match_design),
        cmocka_unit_test(same_seed_same_scene),
        cmocka_unit_test(ranged_step_equals_whole_step),
        cmocka_unit_test(boxes_are_tight),
        cmocka_unit_test(boxes_enclose_extreme_poses),
        cmocka_unit_test(far_scaled_rotations_keep_their_boxes),
        cmocka_unit_test(records_survive_motion),
        cmocka_unit_test(reorder_moves_cubes_not_motion),
        cmocka_unit_test(reorder_puts_movers_first),
        cmocka_unit_test(placement_and_velocities_in_range),
        cmocka_unit_test(motion_keeps_invariants),
        cmocka_unit_test(csv_round_trip_is_exact),
        cmocka_unit_test(csv_import_errors_name_line),
        cmocka_unit_test(uniform_scene_bits_pinned),
        cmocka_unit_test(families_are_seeded),
        cmocka_unit_test(moving_fraction_bits_pinned),
        cmocka_unit_test(scene_bytes_match_the_heap),
        cmocka_unit_test(still_cubes_keep_their_bits),
        cmocka_unit_test(motion_changes_reach_the_step),
        cmocka_unit_test(sleep_changes_the_moving_set),
        cmocka_unit_test(move_list_is_what_changed),
        cmocka_unit_test(layouts_have_their_shape),
        cmocka_unit_test(size_distributions_match_their_means),
        cmocka_unit_test(trace_replay_and_early_end),
        cmocka_unit_test(trace_writer_refuses),
        cmocka_unit_test(replay_refreshes_what_changed),
        cmocka_unit_test(broadmark_replay_skips_repeated_records),
        cmocka_unit_test(csv_import_checks_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
