// SPDX-License-Identifier: MIT
// broad: the naive reference is reproducible, survives export → import, agrees with an
// independent double loop, and the registry and frame driver behave (the frame's kept pairs too);
// the pair sort orders as qsort does.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_registry.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void naive_pairs(const cd_scene *s, cd_pair_list *out, cd_broad_stats *st)
{
    cd_broad *b = cd_registry_create("naive", NULL, 1, s);
    assert_non_null(b);
    cd_broad_frame(b, s, out, st, NULL);
    cd_broad_destroy(b);
    cd_pair_list_sort(out);
}

static void naive_matches_independent_double_loop(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 1000;
    cd_scene *s = cd_scene_create(&p);
    cd_pair_list pairs = {0};
    cd_broad_stats st;
    naive_pairs(s, &pairs, &st);
    // Independent loop: the separating-axis test alone, no AABB gate, no sink.
    uint64_t count = 0;
    size_t k = 0;
    for (uint32_t i = 0; i < s->count; ++i)
        for (uint32_t j = i + 1; j < s->count; ++j) {
            cd_obb a = cd_scene_obb(s, i), b = cd_scene_obb(s, j);
            if (cd_obb_obb_overlap(&a, &b)) {
                assert_true(k < pairs.count);
                assert_true(pairs.items[k].a == i && pairs.items[k].b == j);
                ++k, ++count;
            }
        }
    EXPECT_EQ(count, pairs.count);
    assert_true(count > 20);  // density 0.05 gives dozens of contacts among 1000 cubes
    EXPECT_EQ(st.narrow_tests, 1000ULL * 999 / 2);
    EXPECT_EQ(st.pairs, count);
    print_message("# naive, 1000 standard cubes: %zu overlapping pairs, %llu narrow tests\n", pairs.count,
                  (unsigned long long)st.narrow_tests);
    cd_pair_list_free(&pairs);
    cd_scene_destroy(s);
}

static void naive_reproducible_and_survives_export(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 1000;
    cd_scene *s1 = cd_scene_create(&p), *s2 = cd_scene_create(&p);
    for (int f = 0; f < 10; ++f) {
        cd_scene_step(s1);
        cd_scene_step(s2);
    }
    cd_pair_list a = {0}, b = {0}, c = {0};
    cd_broad_stats st;
    naive_pairs(s1, &a, &st);
    naive_pairs(s2, &b, &st);
    expect_pairs_equal(&b, &a, "the same seed again");

    char path[] = "/tmp/cdlab_broad_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[512];
    assert_int_equal(cd_scene_export_csv(s1, path, err, sizeof err), 0);
    cd_scene *s3 = cd_scene_import_csv(path, err, sizeof err);
    assert_non_null(s3);
    naive_pairs(s3, &c, &st);
    expect_pairs_equal(&c, &a, "the frame exported and imported");
    unlink(path);
    cd_pair_list_free(&a);
    cd_pair_list_free(&b);
    cd_pair_list_free(&c);
    cd_scene_destroy(s1);
    cd_scene_destroy(s2);
    cd_scene_destroy(s3);
}

static void registry_lookup(void **state)
{
    (void)state;
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    assert_true(n >= 1);
    assert_ptr_equal(cd_registry_find("naive"), cd_registry_find(m[0]->name));
    assert_null(cd_registry_find("no_such_method"));
    assert_null(cd_registry_create("no_such_method", NULL, 1, NULL));
    for (size_t i = 0; i < n; ++i) {
        assert_non_null(m[i]->description);
        assert_ptr_equal(cd_registry_find(m[i]->name), m[i]);
    }
}

// The narrow step on pairs in contact: a lattice of cubes all turned alike, each face to face with
// its neighbours up to the rounding of their centres (the float filter leaves every such pair to
// the double test, which the step settles many at a time), every fifth cube turned its own way.
// naive's pairs on each SIMD path equal, in order, those of a double loop over the scalar test.
static void contact_lattice_matches_independent_double_loop(void **state)
{
    (void)state;
    enum { SIDE = 11 };
    cd_scene *s = cd_scene_create_empty(SIDE * SIDE * SIDE, 40.0);
    cd_quat q = cd_q_normalize((cd_quat){0.9, 0.2, -0.3, 0.25}), odd = cd_q_normalize((cd_quat){0.3, 0.8, 0.1, -0.5});
    cd_vec3 u = cd_q_rotate(q, cd_v3(1, 0, 0)), v = cd_q_rotate(q, cd_v3(0, 1, 0)), w = cd_q_rotate(q, cd_v3(0, 0, 1));
    for (uint32_t i = 0; i < s->count; ++i) {
        double x = i % SIDE, y = i / SIDE % SIDE, z = i / (SIDE * SIDE);
        cd_vec3 c =
            cd_v3_add(cd_v3(20, 20, 20), cd_v3_add(cd_v3_scale(u, x), cd_v3_add(cd_v3_scale(v, y), cd_v3_scale(w, z))));
        cd_scene_set_pose(s, i, c, i % 5 == 2 ? odd : q, cd_v3(0.5, 0.5, 0.5));
    }
    cd_scene_refresh(s);
    cd_pair_list want = {0};
    for (uint32_t i = 0; i < s->count; ++i)
        for (uint32_t j = i + 1; j < s->count; ++j) {
            cd_obb a = cd_scene_obb(s, i), b = cd_scene_obb(s, j);
            if (cd_obb_obb_overlap(&a, &b)) cd_pair_list_push(&want, (cd_pair){i, j});
        }
    assert_true(want.count > 3000);  // three face contacts per cube, and the odd cubes' overlaps
    static const char *const off[] = {NULL, "CDLAB_NO_AVX512", "CDLAB_NO_AVX2"};
    for (int k = 0; k < 3; ++k) {
        if (off[k]) setenv(off[k], "1", 1);
        cd_pair_list got = {0};
        cd_broad_stats st;
        naive_pairs(s, &got, &st);
        if (off[k]) unsetenv(off[k]);
        EXPECT_EQ(got.count, want.count);
        for (size_t i = 0; i < got.count && i < want.count; ++i)
            if (got.items[i].a != want.items[i].a || got.items[i].b != want.items[i].b)
                fail_msg("%s: pair %zu is (%u, %u), the scalar test's (%u, %u)", off[k] ? off[k] : "widest path", i,
                         got.items[i].a, got.items[i].b, want.items[i].a, want.items[i].b);
        cd_pair_list_free(&got);
    }
    print_message("# contact lattice of %u cubes: %zu pairs\n", s->count, want.count);
    cd_pair_list_free(&want);
    cd_scene_destroy(s);
}

static void touching_cubes_count_and_empty_scene(void **state)
{
    (void)state;
    // Three unit cubes in a row, faces exactly touching: pairs (0,1) and (1,2), not (0,2).
    cd_scene *s = cd_scene_create_empty(3, 10.0);
    for (uint32_t i = 0; i < 3; ++i)
        cd_scene_set_pose(s, i, cd_v3(1.0 + i, 1.0, 1.0), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
    cd_scene_refresh(s);
    cd_pair_list l = {0};
    cd_broad_stats st;
    naive_pairs(s, &l, &st);
    assert_int_equal(l.count, 2);
    assert_true(l.items[0].a == 0 && l.items[0].b == 1 && l.items[1].a == 1 && l.items[1].b == 2);
    cd_scene_destroy(s);
    cd_scene *e = cd_scene_create_empty(0, 1.0);
    naive_pairs(e, &l, &st);
    assert_int_equal(l.count, 0);
    EXPECT_EQ(st.narrow_tests, 0);
    cd_scene_destroy(e);
    cd_pair_list_free(&l);
}

static void frame_times_are_reported(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 200;
    cd_scene *s = cd_scene_create(&p);
    cd_broad *b = cd_registry_create("naive", NULL, 1, s);
    cd_pair_list l = {0};
    cd_broad_stats st;
    cd_frame_times t = {-1, -1};
    cd_broad_frame(b, s, &l, &st, &t);
    assert_true(t.broad_ms >= 0.0 && t.narrow_ms >= 0.0);
    EXPECT_EQ(st.candidates, 200ULL * 199 / 2);
    cd_broad_destroy(b);
    cd_pair_list_free(&l);
    cd_scene_destroy(s);
}

typedef struct cell_list {
    cd_aabb box[4096];
    int level[4096];
    size_t count;
} cell_list;

static void collect_cell(void *ctx, const cd_aabb *box, int level)
{
    cell_list *c = ctx;
    assert_true(c->count < 4096);
    c->box[c->count] = *box;
    c->level[c->count++] = level;
}

static int boxes_touch(const cd_aabb *a, const cd_aabb *b)
{
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y && a->lo.z <= b->hi.z &&
           b->lo.z <= a->hi.z;
}

// The cells a method shows (cdlab snapshot) are where its objects are: every cube's box touches a
// cell, every cell touches a cube's box (none empty, none misplaced), levels lie in [0, depth],
// and the octrees and the grid have them; after moving frames too.
static void cells_cover_the_objects(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 2000;
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    int with_cells = 0;
    static cell_list c;
    for (size_t k = 0; k < n; ++k) {
        if (!m[k]->cells) continue;
        with_cells++;
        cd_scene *s = cd_scene_create(&p);
        cd_broad *b = cd_broad_create(m[k], NULL, 1, s);
        cd_pair_list l = {0};
        cd_broad_stats st;
        for (int f = 0; f < 3; ++f) {
            cd_scene_step(s);
            cd_broad_frame(b, s, &l, &st, NULL);
            c.count = 0;
            m[k]->cells(b->self, s, collect_cell, &c);
            assert_true(c.count > 0);
            int depth = cd_params_index(&b->params, "depth") >= 0 ? (int)cd_params_num(&b->params, "depth") : 4;
            for (size_t i = 0; i < c.count; ++i) assert_true(c.level[i] >= 0 && c.level[i] <= depth);
            for (uint32_t i = 0; i < s->count; ++i) {
                cd_aabb a = cd_scene_aabb(s, i);
                size_t j = 0;
                while (j < c.count && !boxes_touch(&a, &c.box[j])) j++;
                assert_true(j < c.count);
            }
            for (size_t j = 0; j < c.count; ++j) {
                uint32_t i = 0;
                for (; i < s->count; ++i) {
                    cd_aabb a = cd_scene_aabb(s, i);
                    if (boxes_touch(&a, &c.box[j])) break;
                }
                assert_true(i < s->count);
            }
        }
        cd_broad_destroy(b);
        cd_pair_list_free(&l);
        cd_scene_destroy(s);
    }
    assert_ptr_not_equal(cd_registry_find("octree")->cells, NULL);
    assert_ptr_not_equal(cd_registry_find("loose_octree")->cells, NULL);
    assert_ptr_not_equal(cd_registry_find("grid")->cells, NULL);
    assert_true(with_cells >= 3);
}

// A world side that no scene file may hold (cd_scene_check_world refuses them on import) still
// leaves every method exact and every cell count bounded: each ends its frame with naive's pairs.
static void degenerate_world_keeps_pairs(void **state)
{
    (void)state;
    static const double worlds[] = {INFINITY, NAN, -1.0, 0.0, 1e300, 1e-300};
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 300;
    for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; ++w) {
        cd_scene *s = cd_scene_create(&p);
        cd_pair_list want = {0}, got = {0};
        cd_broad_stats st;
        naive_pairs(s, &want, &st);
        s->world = worlds[w];
        for (size_t k = 0; k < n; ++k) {
            cd_broad *b = cd_broad_create(m[k], NULL, 1, s);
            if (!b) continue;  // a method that refuses the scene
            cd_broad_frame(b, s, &got, &st, NULL);
            cd_broad_destroy(b);
            cd_pair_list_sort(&got);
            if (got.count != want.count || memcmp(got.items, want.items, got.count * sizeof *got.items) != 0)
                fail_msg("%s, world %g: %zu pairs, naive %zu", m[k]->name, worlds[w], got.count, want.count);
        }
        cd_pair_list_free(&want);
        cd_pair_list_free(&got);
        cd_scene_destroy(s);
    }
}

// grid_multi with coherence `word` on `threads` workers for scene s.
static cd_broad *coherent_grid(const char *word, int threads, const cd_scene *s)
{
    const cd_broad_method *m = cd_registry_find("grid_multi");
    assert_non_null(m);
    cd_params p = cd_broad_params_default(m);
    char why[200];
    assert_int_equal(cd_params_set(&p, "coherence", word, why, sizeof why), 0);
    return cd_broad_create(m, &p, threads, s);
}

static void expect_naive(cd_broad *b, const cd_scene *s, const cd_pair_list *want, cd_pair_list *got,
                         cd_broad_stats *st, const char *what, int frame)
{
    cd_broad_frame(b, s, got, st, NULL);
    cd_pair_list_sort(got);
    if (got->count != want->count || memcmp(got->items, want->items, got->count * sizeof *got->items) != 0)
        fail_msg("%s, frame %d: %zu pairs, naive %zu", what, frame, got->count, want->count);
}

// Frames that keep last frame's pairs (grid_multi's coherent frames) give naive's pairs at every
// moving fraction, with cubes falling asleep and waking, slots reordering every few frames, on one
// and two workers, and after a caller's own update (which makes the next frame keep nothing).
// With a hundredth moving, the coherent frames hand the narrow step a small share of the full
// sweep's candidates (what shows that they ran).
static void kept_pairs_follow_the_scene(void **state)
{
    (void)state;
    static const double moving[] = {0.0, 0.01, 0.1, 1.0};
    static const char *const words[] = {"auto", "always", "off"};
    for (size_t f = 0; f < 4; ++f)
        for (int sleep = 0; sleep < 2; ++sleep) {
            cd_scene_params p = cd_scene_params_default();
            p.cubes = 4000;
            p.still = 1.0 - moving[f];
            p.sleep = sleep ? 3.0 : 0.0;
            p.reorder = 5;
            cd_scene *s = cd_scene_create(&p);
            cd_broad *b[6];
            for (int k = 0; k < 6; ++k) b[k] = coherent_grid(words[k / 2], 1 + k % 2, s);
            cd_pair_list want = {0}, got = {0};
            cd_broad_stats st, full, coh;
            for (int frame = 0; frame < 14; ++frame) {
                cd_scene_step(s);
                naive_pairs(s, &want, &st);
                if (frame == 9) cd_broad_update(b[0], s);  // the next frame keeps no pairs
                for (int k = 0; k < 6; ++k) {
                    char what[80];
                    snprintf(what, sizeof what, "moving %g, sleep %d, coherence %s, %d threads", moving[f], sleep,
                             words[k / 2], 1 + k % 2);
                    expect_naive(b[k], s, &want, &got, k == 4 ? &full : k == 3 ? &coh : &st, what, frame);
                }
                if (frame == 13 && f == 1 && !sleep)
                    assert_true(coh.candidates * 10 < full.candidates);  // always, 2 threads against off
            }
            for (int k = 0; k < 6; ++k) cd_broad_destroy(b[k]);
            cd_pair_list_free(&want);
            cd_pair_list_free(&got);
            cd_scene_destroy(s);
        }
}

// grid_multi with [method] key `key` = `word` for scene s.
static cd_broad *grid_multi_with(const char *key, const char *word, int threads, const cd_scene *s)
{
    const cd_broad_method *m = cd_registry_find("grid_multi");
    assert_non_null(m);
    cd_params p = cd_broad_params_default(m);
    char why[200];
    assert_int_equal(cd_params_set(&p, key, word, why, sizeof why), 0);
    return cd_broad_create(m, &p, threads, s);
}

// Cubes falling along one axis (y, then z), each at its own speed, wrapping round the world:
// grid_multi's rows, x while the motion is unknown, move to that axis on their own (axis = auto),
// and every frame, before and after, gives naive's pairs, as rows fixed on x, y and z do, on one
// and two workers. That they moved shows in the box tests: after the move the auto grid's equal
// those of rows fixed on the falling axis (the same rows, sorted alike), not those on x. Rotated
// cubes at rest elsewhere keep some pairs standing. Falling along z, the slots are reordered every
// third frame, which the rows still follow.
static void row_axis_follows_the_motion(void **state)
{
    (void)state;
    static const char *const fixed[] = {"x", "y", "z"};
    for (int fall = 1; fall <= 2; ++fall) {
        cd_scene_params p = cd_scene_params_default();
        p.cubes = 3000;
        p.still = 1.0;
        p.reorder = 0;
        cd_scene *s = cd_scene_create(&p);
        double side = s->world;
        cd_broad *b[5];
        b[0] = grid_multi_with("axis", "auto", 1, s), b[1] = grid_multi_with("axis", "auto", 2, s);
        for (int k = 0; k < 3; ++k) b[2 + k] = grid_multi_with("axis", fixed[k], 1, s);
        cd_pair_list want = {0}, got = {0};
        cd_broad_stats st, tests[5];
        for (int frame = 0; frame < 24; ++frame) {
            for (uint32_t i = 0; i < s->count; i += 1 + (i % 7 == 0)) {  // every 8th or so rests
                cd_vec3 c = cd_scene_center(s, i);
                double v = 0.05 * side * (0.2 + 0.8 * (double)(i % 97) / 97.0), *x = fall == 1 ? &c.y : &c.z;
                *x -= v;
                if (*x < 0.0) *x += side;
                cd_scene_set_pose(s, i, c, cd_scene_rot(s, i), cd_scene_half(s, i));
            }
            cd_scene_refresh(s);
            if (fall == 2 && frame % 3 == 2) cd_scene_reorder(s);  // the sample survives reorders
            naive_pairs(s, &want, &st);
            for (int k = 0; k < 5; ++k) {
                char what[80];
                snprintf(what, sizeof what, "falling along %s, axis %s, %d threads", fixed[fall],
                         k < 2 ? "auto" : fixed[k - 2], 1 + (k == 1));
                expect_naive(b[k], s, &want, &got, &tests[k], what, frame);
            }
        }
        assert_true(want.count > 0);
        assert_int_equal(tests[0].bv_tests, tests[1].bv_tests);
        assert_int_equal(tests[0].bv_tests, tests[2 + fall].bv_tests);
        assert_true(tests[0].bv_tests != tests[2].bv_tests);
        for (int k = 0; k < 5; ++k) cd_broad_destroy(b[k]);
        cd_pair_list_free(&want);
        cd_pair_list_free(&got);
        cd_scene_destroy(s);
    }
}

// On the ground, grid_multi's cells stop where the layer does: of a 20 × 20 grid (cell_size set so,
// rows fixed on x, so the rows' z is the scene's), the rows on z are cut to the one the boxes
// reach. The layer then rises past the cut (every cube lifted by half the world, then a little a
// frame): a new layout covers it, and every frame gives naive's pairs, on one and two workers and
// through coherent frames.
static void rows_follow_the_layer(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 3000;
    p.layout = CD_LAYOUT_GROUND;
    p.reorder = 4;
    cd_scene *s = cd_scene_create(&p);
    const cd_broad_method *m = cd_registry_find("grid_multi");
    assert_non_null(m);
    char cell[40], why[200];
    snprintf(cell, sizeof cell, "%.17g", s->world / 19.5);  // 20 rows a side
    cd_broad *b[3];
    for (int k = 0; k < 3; ++k) {
        cd_params q = cd_broad_params_default(m);
        assert_int_equal(cd_params_set(&q, "cell_size", cell, why, sizeof why), 0);
        assert_int_equal(cd_params_set(&q, "axis", "x", why, sizeof why), 0);
        assert_int_equal(cd_params_set(&q, "coherence", k == 2 ? "always" : "auto", why, sizeof why), 0);
        b[k] = cd_broad_create(m, &q, 1 + (k == 1), s);
    }
    cd_pair_list want = {0}, got = {0};
    cd_broad_stats st, rows[3][12];
    for (int frame = 0; frame < 12; ++frame) {
        cd_scene_step(s);
        if (frame >= 6) {  // lifted by half the world, then a little more each frame
            for (uint32_t i = 0; i < s->count; ++i) {
                cd_vec3 c = cd_scene_center(s, i);
                c.z += frame == 6 ? 0.5 * s->world : 0.01 * s->world;
                cd_scene_set_pose(s, i, c, cd_scene_rot(s, i), cd_scene_half(s, i));
            }
            cd_scene_refresh(s);
        }
        naive_pairs(s, &want, &st);
        for (int k = 0; k < 3; ++k) {
            char what[80];
            snprintf(what, sizeof what, "ground, grid_multi %d", k);
            expect_naive(b[k], s, &want, &got, &rows[k][frame], what, frame);
        }
    }
    assert_true(want.count > 0);
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(rows[k][0].nodes, 20);  // 20 on y, 1 on z
        assert_int_equal(rows[k][5].nodes, 20);
    }
    // z rows up to the lifted layer's, past half the world, where the full path runs (coherence =
    // always keeps its cells: its frames never take the full path)
    for (int k = 0; k < 2; ++k) assert_true(rows[k][11].nodes >= 20 * 11);
    for (int k = 0; k < 3; ++k) cd_broad_destroy(b[k]);
    cd_pair_list_free(&want);
    cd_pair_list_free(&got);
    cd_scene_destroy(s);
}

// A cube standing on an edge (turned 45° about z), its corner just reaching the face of an
// axis-aligned box. Turned θ further, its corner draws back by h·√2·(1 − cos θ) while its float
// box stays the same bit for bit (the box's rounding is coarser): found here, the box's x
// half-extent that puts its face between the two reaches, so the pair stops touching. A frame
// that keeps last frame's pairs must judge it again: the scene lists the cube because its pose
// changed (not its box). The search is deterministic.
static int edge_standing_pair(cd_scene *s, double theta)
{
    const double a = 0.25 * 3.14159265358979323846;
    cd_quat q0 = {cos(0.5 * a), 0, 0, sin(0.5 * a)}, q1 = {cos(0.5 * (a + theta)), 0, 0, sin(0.5 * (a + theta))};
    cd_vec3 c = cd_v3(20, 32, 32), half = cd_v3(0.5, 0.5, 0.5);
    cd_scene_set_pose(s, 0, c, q1, half);
    cd_scene_refresh(s);
    cd_aabbf turned = s->box[0];
    cd_scene_set_pose(s, 0, c, q0, half);
    cd_scene_refresh(s);
    if (memcmp(&turned, &s->box[0], sizeof turned) != 0) return 0;
    float bx = 22.0f, hx = (float)(bx - c.x - 0.5 * sqrt(2.0));
    for (int k = 0; k < 256; ++k, hx = cd_float_next_up(hx)) {
        cd_scene_set_pose(s, 1, cd_v3(bx, 32, 32), cd_q_identity(), cd_v3(hx, 0.5, 0.5));
        cd_scene_set_pose(s, 0, c, q0, half);
        cd_scene_refresh(s);
        int touching = cd_cube_pair_overlap(s, 0, 1);
        cd_scene_set_pose(s, 0, c, q1, half);
        cd_scene_refresh(s);
        int apart = !cd_cube_pair_overlap(s, 0, 1);
        cd_scene_set_pose(s, 0, c, q0, half);
        cd_scene_refresh(s);
        if (touching && apart) return 1;
    }
    return 0;
}

static void pose_change_under_same_box_is_judged_again(void **state)
{
    (void)state;
    cd_scene *s = cd_scene_create_empty(2, 64.0);
    const double theta = 1.5e-3;
    assert_true(edge_standing_pair(s, theta));
    cd_broad *b = coherent_grid("always", 1, s);
    cd_pair_list want = {0}, got = {0};
    cd_broad_stats st;
    for (int frame = 0; frame < 3; ++frame) {  // plain, then the static rows, then coherent frames
        cd_scene_refresh(s);
        naive_pairs(s, &want, &st);
        assert_int_equal(want.count, 1);
        expect_naive(b, s, &want, &got, &st, "touching", frame);
    }
    const double a = 0.25 * 3.14159265358979323846 + theta;
    cd_aabbf box = s->box[0];
    cd_scene_set_pose(s, 0, cd_scene_center(s, 0), (cd_quat){cos(0.5 * a), 0, 0, sin(0.5 * a)}, cd_scene_half(s, 0));
    cd_scene_refresh(s);
    assert_memory_equal(&box, &s->box[0], sizeof box);
    naive_pairs(s, &want, &st);
    assert_int_equal(want.count, 0);
    expect_naive(b, s, &want, &got, &st, "turned apart", 3);
    assert_int_equal(s->moved, 1);  // the pose, not the box
    cd_broad_destroy(b);
    cd_pair_list_free(&want);
    cd_pair_list_free(&got);
    cd_scene_destroy(s);
}

// The coherent frames' x index of the static rows (its buckets bound where a mover's window may
// start) on rows that strain it: boxes long in x beside thin ones (the prefix maximum of hi.x
// jumps), runs of boxes with the same lo.x, and rows holding a box at x = ±1e30 (the row's x span
// overflows to infinity and the index falls back to one bucket). A fifth of the cubes move; every
// frame gives naive's pairs on every SIMD path (chosen at create, as cdlab's switches do) on one
// and two workers.
static void coherent_index_edges(void **state)
{
    (void)state;
    static const char *const path_switch[] = {"CDLAB_NO_AVX2", "CDLAB_NO_AVX512", NULL};
    for (uint64_t seed = 0; seed < 3; ++seed) {
        cd_rng r = cd_rng_make(seed, CD_STREAM_TEST + 7);
        const double L = 40.0;
        cd_scene *s = cd_scene_create_empty(2000, L);
        for (uint32_t i = 0; i < s->count; ++i) {
            cd_vec3 c = cd_v3(cd_rng_range(&r, 0, L), cd_rng_range(&r, 0, L), cd_rng_range(&r, 0, L));
            double hx = i % 4 == 0 ? 0.02 : i % 16 == 1 ? 2.0 + 6.0 * cd_rng_uniform(&r) : 0.5;
            if (i % 9 == 2) c.x = 20.0, hx = 0.5;  // the same lo.x
            if (i % 97 == 5) c.x = i % 2 ? 1e30 : -1e30;
            cd_quat q = i % 3 ? cd_q_identity() : cd_rng_rotation(&r);
            cd_scene_set_pose(s, i, c, q, cd_v3(hx, 0.5, 0.5));
            if (i % 5)
                cd_scene_set_still(s, i);
            else
                cd_scene_set_motion(s, i, cd_v3(cd_rng_range(&r, -0.4, 0.4), cd_rng_range(&r, -0.4, 0.4), 0.0),
                                    cd_v3(0.0, 0.0, 0.05));
        }
        cd_scene_refresh(s);
        cd_broad *b[6];
        for (int k = 0; k < 6; ++k) {
            if (path_switch[k / 2]) setenv(path_switch[k / 2], "1", 1);
            b[k] = coherent_grid("always", 1 + k % 2, s);
            if (path_switch[k / 2]) unsetenv(path_switch[k / 2]);
        }
        cd_pair_list want = {0}, got = {0};
        cd_broad_stats st;
        uint64_t pairs = 0;
        for (int frame = 0; frame < 10; ++frame) {
            cd_scene_step(s);
            naive_pairs(s, &want, &st);
            pairs += want.count;
            for (int k = 0; k < 6; ++k) {
                char what[80];
                snprintf(what, sizeof what, "seed %llu, %s, %d threads", (unsigned long long)seed,
                         path_switch[k / 2] ? path_switch[k / 2] : "widest path", 1 + k % 2);
                expect_naive(b[k], s, &want, &got, &st, what, frame);
            }
        }
        assert_true(pairs > 1000);
        for (int k = 0; k < 6; ++k) cd_broad_destroy(b[k]);
        cd_pair_list_free(&want);
        cd_pair_list_free(&got);
        cd_scene_destroy(s);
    }
}

static int pair_order(const void *x, const void *y)
{
    const cd_pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : (p->b > q->b);
}

// The pair sort (insertion for short lists, radix for long ones) orders exactly as qsort does: over
// lengths around the insertion/radix boundary, ids of 1 to 32 bits (one, two and three digits per
// id, and the skipped passes of digits every pair shares), and repeated pairs.
static void pair_sort_matches_qsort(void **state)
{
    (void)state;
    static const size_t lengths[] = {0, 1, 2, 63, 64, 65, 1000, 70000};
    static const int id_bits[] = {1, 5, 11, 12, 22, 23, 32};
    cd_rng r = cd_rng_make(7, 0);
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li)
        for (size_t bi = 0; bi < sizeof id_bits / sizeof *id_bits; ++bi) {
            const size_t n = lengths[li];
            const uint64_t range = (uint64_t)1 << id_bits[bi];
            cd_pair_list got = {0};
            cd_pair *want = malloc((n ? n : 1) * sizeof *want);
            for (size_t i = 0; i < n; ++i) {
                cd_pair p = (i % 7 == 3 && i > 0)
                                ? got.items[i / 2]  // repeats
                                : (cd_pair){(uint32_t)cd_rng_below(&r, range), (uint32_t)cd_rng_below(&r, range)};
                if (i % 5 == 1) p.a = (uint32_t)(range - 1);  // a shared top digit
                cd_pair_list_push(&got, p);
                want[i] = p;
            }
            qsort(want, n, sizeof *want, pair_order);
            cd_pair_list_sort(&got);
            assert_int_equal(got.count, n);
            if (n) assert_memory_equal(got.items, want, n * sizeof *want);
            free(want);
            cd_pair_list_free(&got);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(naive_matches_independent_double_loop),
        cmocka_unit_test(naive_reproducible_and_survives_export),
        cmocka_unit_test(registry_lookup),
        cmocka_unit_test(contact_lattice_matches_independent_double_loop),
        cmocka_unit_test(touching_cubes_count_and_empty_scene),
        cmocka_unit_test(frame_times_are_reported),
        cmocka_unit_test(cells_cover_the_objects),
        cmocka_unit_test(degenerate_world_keeps_pairs),
        cmocka_unit_test(kept_pairs_follow_the_scene),
        cmocka_unit_test(row_axis_follows_the_motion),
        cmocka_unit_test(rows_follow_the_layer),
        cmocka_unit_test(pose_change_under_same_box_is_judged_again),
        cmocka_unit_test(coherent_index_edges),
        cmocka_unit_test(pair_sort_matches_qsort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
