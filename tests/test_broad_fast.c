// SPDX-License-Identifier: MIT
// The fast broad phases (sap, grid, bvh): their private helpers (conservative float rounding,
// radix sort) and the paths that tests/test_differential.c with default parameters never reaches:
// grid cells set by cell_size (boxes bigger than a cell are scanned), automatic "big" outliers,
// boxes far beyond the walls, tiny scenes. Every method is compared with naive on pair lists.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_registry.h"
#include "float_bounds.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

// Reference rounding through libm: the largest float strictly below d, the smallest above.
static float ref_below(double d)
{
    float f = (float)d;
    return (double)f >= d ? nextafterf(f, -INFINITY) : f;
}

static float ref_above(double d)
{
    float f = (float)d;
    return (double)f <= d ? nextafterf(f, INFINITY) : f;
}

static void check_rounding(double d)
{
    float lo = cd_float_below(d), hi = cd_float_above(d), rlo = ref_below(d), rhi = ref_above(d);
    assert_memory_equal(&lo, &rlo, sizeof lo);
    assert_memory_equal(&hi, &rhi, sizeof hi);
    if (isfinite(d)) assert_true((double)lo < d && d < (double)hi);
}

static void float_rounding_is_strict_and_matches_nextafterf(void **state)
{
    (void)state;
    const double special[] = {0.0,         -0.0,    1.0,      -1.0,    0.1,      -0.1,      1e-45,
                              -1e-45,      1.4e-45, -1.4e-45, 1e-300,  -1e-300,  FLT_MAX,   -FLT_MAX,
                              3.5e38,      -3.5e38, 1e300,    -1e300,  INFINITY, -INFINITY, 16777217.0,
                              -16777217.0, DBL_MIN, -DBL_MIN, FLT_MIN, -FLT_MIN};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; ++k) check_rounding(special[k]);
    cd_rng r = cd_rng_make(1, CD_STREAM_TEST);
    for (int i = 0; i < 2000000; ++i) {
        double d;
        if (i & 1) {  // any bit pattern but NaN
            uint64_t u = cd_rng_next(&r);
            memcpy(&d, &u, sizeof d);
            if (d != d) continue;
        } else {  // the scales coordinates live at
            d = (cd_rng_uniform(&r) - 0.5) * ldexp(1.0, (int)cd_rng_below(&r, 300) - 150);
        }
        check_rounding(d);
    }
}

static void next_float_steps_one_ulp(void **state)
{
    (void)state;
    EXPECT_EQ(cd_float_next_down(1.0f), nextafterf(1.0f, -INFINITY));
    EXPECT_EQ(cd_float_next_down(0.0f), -FLT_TRUE_MIN);
    EXPECT_EQ(cd_float_next_down(-0.0f), -FLT_TRUE_MIN);
    EXPECT_EQ(cd_float_next_up(0.0f), FLT_TRUE_MIN);
    EXPECT_EQ(cd_float_next_down(-FLT_MAX), -INFINITY);
    EXPECT_EQ(cd_float_next_down(-INFINITY), -INFINITY);
    EXPECT_EQ(cd_float_next_down(INFINITY), FLT_MAX);
    EXPECT_EQ(cd_float_next_up(FLT_MAX), INFINITY);
}

static void radix_sort_is_a_stable_sort(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(2, CD_STREAM_TEST);
    const uint32_t sizes[] = {0, 1, 2, 7, 1000, 100000};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        uint32_t n = sizes[t];
        uint32_t *key = cd_alloc((n + 1) * sizeof *key), *id = cd_alloc((n + 1) * sizeof *id);
        uint32_t *tk = cd_alloc((n + 1) * sizeof *tk), *ti = cd_alloc((n + 1) * sizeof *ti);
        uint32_t *orig = cd_alloc((n + 1) * sizeof *orig);
        for (uint32_t i = 0; i < n; ++i) {
            // Few distinct keys in half the cases, to exercise stability; all 32 bits otherwise.
            key[i] = t % 2 ? (uint32_t)cd_rng_next(&r) : (uint32_t)cd_rng_below(&r, 16) << 28;
            orig[i] = key[i];
            id[i] = i;
        }
        cd_radix_sort_u32(key, id, tk, ti, n);
        for (uint32_t i = 0; i < n; ++i) {
            assert_int_equal(key[i], orig[id[i]]);
            if (i > 0) {
                assert_true(key[i - 1] <= key[i]);
                if (key[i - 1] == key[i]) assert_true(id[i - 1] < id[i]);
            }
        }
        cd_free(key), cd_free(id), cd_free(tk), cd_free(ti), cd_free(orig);
    }
}

// The grids first: the crowded-cell case runs them alone.
static const char *const fast_methods[] = {"grid", "grid_multi", "sap", "sap_insertion", "lbvh", "lbvh_refit"};

// Frames in which grid and grid_multi scanned boxes bigger than their cells (shape_stats
// per_level[1]).
static uint64_t grid_big_frames, grid_multi_big_frames;

// The first nm fast methods, with params p, against naive on s over a few frames of motion.
static void compare_methods(cd_scene *s, const cd_param_settings *p, int frames, size_t nm)
{
    cd_broad *b[sizeof fast_methods / sizeof fast_methods[0]];
    cd_broad *naive = cd_registry_create("naive", NULL, 1, s);
    for (size_t m = 0; m < nm; ++m) {
        b[m] = cd_registry_create(fast_methods[m], p, 1, s);
        assert_non_null(b[m]);
    }
    cd_pair_list ref = {0}, got = {0};
    cd_broad_stats st;
    for (int f = 0; f < frames; ++f) {
        cd_broad_frame(naive, s, &ref, &st, NULL);
        for (size_t m = 0; m < nm; ++m) {
            cd_broad_frame(b[m], s, &got, &st, NULL);
            if (strcmp(fast_methods[m], "grid") == 0 && st.per_level[1] > 0) grid_big_frames++;
            if (strcmp(fast_methods[m], "grid_multi") == 0 && st.per_level[1] > 0) grid_multi_big_frames++;
            char what[120];
            snprintf(what, sizeof what, "%s (cell_size %s) frame %d against naive", fast_methods[m],
                     p->count ? p->item[0].text : "0", f);
            expect_same_pairs(&got, &ref, what);
        }
        cd_scene_step(s);
    }
    for (size_t m = 0; m < nm; ++m) cd_broad_destroy(b[m]);
    cd_broad_destroy(naive);
    cd_pair_list_free(&ref);
    cd_pair_list_free(&got);
}

static void compare_with_naive(cd_scene *s, const cd_param_settings *p, int frames)
{
    compare_methods(s, p, frames, sizeof fast_methods / sizeof fast_methods[0]);
}

// n cubes with edges from the seeded draw, some huge, some far beyond the walls.
static cd_scene *outlier_scene(uint32_t n, uint64_t seed, double far)
{
    cd_rng r = cd_rng_make(seed, CD_STREAM_TEST + 1);
    double L = 12.0;
    cd_scene *s = cd_scene_create_empty(n, L);
    for (uint32_t i = 0; i < n; ++i) {
        double edge = i % 17 == 0 ? 4.0 + 8.0 * cd_rng_uniform(&r) : 0.5 + cd_rng_uniform(&r);
        cd_vec3 c = cd_v3(cd_rng_range(&r, 0, L), cd_rng_range(&r, 0, L), cd_rng_range(&r, 0, L));
        if (i % 11 == 3) c.x = -far * cd_rng_uniform(&r);  // beyond a wall, possibly very far
        if (i % 13 == 5) c.z = L + far * cd_rng_uniform(&r);
        if (i % 29 == 7) c = cd_scene_center(s, i - 1);  // coincident centres
        cd_scene_set_pose(s, i, c, cd_rng_rotation(&r), cd_v3(0.5 * edge, 0.5 * edge, 0.5 * edge));
        cd_vec3 v = cd_v3(cd_rng_range(&r, -0.3, 0.3), cd_rng_range(&r, -0.3, 0.3), cd_rng_range(&r, -0.3, 0.3));
        cd_scene_set_motion(s, i, v, cd_v3(cd_rng_range(&r, -0.1, 0.1), 0.0, cd_rng_range(&r, -0.1, 0.1)));
    }
    cd_scene_refresh(s);
    return s;
}

static void big_boxes_and_far_outliers_match_naive(void **state)
{
    (void)state;
    const double cell[] = {0.0, 0.3, 1.0, 2.5, 50.0};
    const double far[] = {3.0, 1e3, 1e7};
    for (int seed = 0; seed < 12; ++seed)
        for (size_t c = 0; c < sizeof cell / sizeof cell[0]; ++c) {
            cd_scene *s = outlier_scene(150 + 40 * (uint32_t)seed, (uint64_t)seed, far[seed % 3]);
            cd_param_settings p = {0};
            cd_param_settings_put(&p, "cell_size", "%.17g", cell[c]);
            compare_with_naive(s, &p, 3);
            cd_scene_destroy(s);
        }
    assert_true(grid_big_frames > 0 && grid_multi_big_frames > 0);  // the scans of big boxes really ran
}

// Heavy-tailed sizes: with log-uniform edges 1 to 20 a seventh of the boxes are over grid's cell
// (twice the mean extent), and each queries the rows it reaches and sweeps the other big boxes
// (it scanned every box before: 2.9 s a frame at 100 000 cubes). grid's pairs are naive's.
static void grid_heavy_tailed_sizes_match_naive(void **state)
{
    (void)state;
    for (int d = 0; d < 2; ++d) {
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 3000, sp.size_dist = d ? CD_SIZE_PARETO : CD_SIZE_LOGUNIFORM, sp.size_ratio = 20, sp.speed = 0.3;
        cd_scene *s = cd_scene_create(&sp);
        uint64_t before = grid_big_frames;
        cd_param_settings p = {0};
        compare_methods(s, &p, 4, 1);
        assert_true(grid_big_frames == before + 4);  // big boxes in every frame
        cd_scene_destroy(s);
    }
}

static void tiny_and_dense_scenes_match_naive(void **state)
{
    (void)state;
    for (uint32_t n = 0; n < 6; ++n) {
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = n;
        sp.density = 0.5;
        cd_scene *s = cd_scene_create(&sp);
        cd_param_settings p = {0};
        compare_with_naive(s, &p, 2);
        cd_scene_destroy(s);
    }
    // All cubes on one spot: one crowded grid cell whose range is longer than the 4096-pair
    // candidate buffer (the one-at-a-time path of test_range).
    cd_scene *s = cd_scene_create_empty(4200, 10.0);
    for (uint32_t i = 0; i < s->count; ++i)
        cd_scene_set_pose(s, i, cd_v3(5.0, 5.0, 5.0 + 1e-4 * i), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
    cd_scene_refresh(s);
    cd_param_settings p = {0};
    compare_methods(s, &p, 1, 2);
    cd_scene_destroy(s);
}

// [method] threads: the parallel frame of `method` gives the same pairs in the same order for
// every thread count (and the scene the same bits), and the same pair set as sap, an independent
// method, on a scene that keeps its creation order (reorder: frames between the threaded scenes'
// spatial reorders, 0 = none); set: the method's parameters (NULL: its defaults); speed: the
// scene's (0.5 moves boxes across rows between frames; the default, 0.1, moves few of them).
static void threads_identical_at(const char *method, uint32_t reorder, const cd_param_settings *set, double speed)
{
    const int counts[] = {1, 2, 3, 5};
    enum { NC = sizeof counts / sizeof counts[0], FRAMES = 5 };
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 20000;
    sp.speed = speed;
    cd_scene *plain = cd_scene_create(&sp);
    sp.reorder = reorder;
    cd_scene *scene[NC];
    cd_broad *b[NC];
    cd_pair_list got[NC] = {{0}}, ref = {0};
    for (int k = 0; k < NC; ++k) {
        scene[k] = cd_scene_create(&sp);
        b[k] = cd_registry_create(method, set, counts[k], scene[k]);
    }
    cd_broad *sap = cd_registry_create("sap", NULL, 1, plain);
    cd_broad_stats st, st0;
    for (int f = 0; f < FRAMES; ++f) {
        for (int k = 0; k < NC; ++k) {
            cd_scene_step_threads(scene[k], counts[k]);
            cd_broad_frame(b[k], scene[k], &got[k], k ? &st : &st0, NULL);
        }
        assert_true(got[0].count > 1000);
        for (int k = 1; k < NC; ++k) {
            assert_memory_equal(scene[k]->box, scene[0]->box, sp.cubes * sizeof *scene[0]->box);
            assert_memory_equal(scene[k]->pose, scene[0]->pose, sp.cubes * sizeof *scene[0]->pose);
            expect_pairs_equal(&got[k], &got[0], "threads: pairs in the one-thread order");
            assert_true(st.candidates == st0.candidates && st.bv_tests == st0.bv_tests);
        }
        assert_int_equal(scene[0]->layout, reorder ? (uint64_t)f / reorder + 1 + (f >= 1 && reorder > 1) : 0);
        cd_scene_step(plain);
        cd_broad_frame(sap, plain, &ref, &st, NULL);
        expect_same_pairs(&got[0], &ref, "threads against sap on a scene that never reorders");
    }
    for (int k = 0; k < NC; ++k) {
        cd_broad_destroy(b[k]);
        cd_scene_destroy(scene[k]);
        cd_pair_list_free(&got[k]);
    }
    cd_broad_destroy(sap);
    cd_scene_destroy(plain);
    cd_pair_list_free(&ref);
}

static void threads_identical_with(const char *method, uint32_t reorder, const cd_param_settings *set)
{
    threads_identical_at(method, reorder, set, 0.5);
}

static void threads_identical(const char *method, uint32_t reorder) { threads_identical_with(method, reorder, NULL); }

// lbvh on one thread sorts each frame from the last frame's order when few objects left it (at the
// standard scene's speed, about 4 %), on several threads by the radix sort: the same order, so the
// same pairs in the same order, with the scene's reorders renumbering the kept order in between.
static void lbvh_sorts_from_last_frame_as_the_radix_sort(void **state)
{
    (void)state;
    double speed = cd_scene_params_default().speed;
    for (uint32_t reorder = 0; reorder < 4; reorder += 3) threads_identical_at("lbvh", reorder, NULL, speed);
}

// The octrees' incremental update on threads: the objects that climb and descend again, their
// cell paths computed on the threads and followed in object order (cd_otree_place_all), and the
// tree packed on the threads give the pairs, order and counters of one thread.
static void octrees_incremental_on_threads(void **state)
{
    (void)state;
    cd_param_settings p = {0};
    cd_param_settings_put(&p, "update", "%s", "incremental");
    for (uint32_t reorder = 0; reorder < 3; reorder += 2) {
        threads_identical_with("octree", reorder, &p);
        threads_identical_with("loose_octree", reorder, &p);
    }
}

// Octrees deeper than a cell path holds (CD_OTREE_PATH_DEPTH levels): specks in a corner of a
// millimetre descend past it and go on by the serial descent from where their path ends. Pairs of
// specks that touch, and cubes of the usual size elsewhere, some moving; naive's pairs every frame
// at depths around that limit, rebuilt and incremental.
static void octrees_deeper_than_a_path(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(5, CD_STREAM_TEST + 11);
    const double L = 8.0;
    cd_scene *s = cd_scene_create_empty(600, L);
    for (uint32_t i = 0; i < s->count; ++i) {
        int speck = i % 10 != 9;
        double h = speck ? 4e-7 : 0.4, w = speck ? 1e-3 : L, o = speck ? 1.3 : 0.0;
        cd_vec3 c = cd_v3(o + cd_rng_range(&r, 0, w), o + cd_rng_range(&r, 0, w), o + cd_rng_range(&r, 0, w));
        int partner = speck && i % 2;  // touching speck i − 1, and moving with it
        if (partner) c = cd_v3_add(cd_scene_center(s, i - 1), cd_v3(2e-7, -1e-7, 1.5e-7));
        cd_scene_set_pose(s, i, c, cd_rng_rotation(&r), cd_v3(h, h, h));
        cd_vec3 v = cd_v3(cd_rng_range(&r, -1e-5, 1e-5), cd_rng_range(&r, -1e-5, 1e-5), 0.0);
        if (partner) v = cd_v3(s->vx[i - 1], s->vy[i - 1], s->vz[i - 1]);
        if (i / 2 % 3 == 0)  // both of a pair of specks or neither
            cd_scene_set_motion(s, i, v, cd_v3(0.0, 0.0, 0.01));
        else
            cd_scene_set_still(s, i);
    }
    cd_scene_refresh(s);
    static const char *const methods[] = {"octree", "loose_octree"}, *const updates[] = {"rebuild", "incremental"};
    static const int depths[] = {18, 19, 20, 24};
    cd_broad *naive = cd_registry_create("naive", NULL, 1, s), *b[16];
    int nb = 0;
    for (int m = 0; m < 2; ++m)
        for (int u = 0; u < 2; ++u)
            for (int d = 0; d < 4; ++d) {
                cd_param_settings p = {0};
                cd_param_settings_put(&p, "depth", "%d", depths[d]);
                cd_param_settings_put(&p, "update", "%s", updates[u]);
                b[nb++] = cd_registry_create(methods[m], &p, 1, s);
            }
    cd_pair_list ref = {0}, got = {0};
    cd_broad_stats st;
    for (int f = 0; f < 4; ++f) {
        cd_broad_frame(naive, s, &ref, &st, NULL);
        assert_true(ref.count > 250);
        for (int k = 0; k < nb; ++k) {
            cd_broad_frame(b[k], s, &got, &st, NULL);
            char what[120];
            snprintf(what, sizeof what, "%s, update %s, depth %d, frame %d", methods[k / 8], updates[k / 4 % 2],
                     depths[k % 4], f);
            expect_same_pairs(&got, &ref, what);
            if (depths[k % 4] == 24) assert_true(st.depth_reached > 19);  // past a cell path (CD_OTREE_PATH_DEPTH)
        }
        cd_scene_step(s);
    }
    for (int k = 0; k < nb; ++k) cd_broad_destroy(b[k]);
    cd_broad_destroy(naive);
    cd_pair_list_free(&ref);
    cd_pair_list_free(&got);
    cd_scene_destroy(s);
}

static void threads_give_identical_pairs_in_identical_order(void **state)
{
    (void)state;
    threads_identical("grid", 0);
    threads_identical("grid_multi", 0);
    threads_identical("lbvh", 0);
    threads_identical("sap_incremental", 0);
    threads_identical("sap", 0);
    threads_identical("octree", 0);
    threads_identical("loose_octree", 0);
    threads_identical("dtree", 0);
}

// The same on scenes that reorder their slots every other frame: the pairs name cubes, so they
// match sap's on a scene that never reorders; grid_multi follows each reorder through its remap.
static void threads_identical_on_reordering_scenes(void **state)
{
    (void)state;
    threads_identical("grid", 2);
    threads_identical("grid_multi", 2);
    threads_identical("lbvh", 2);
    threads_identical("lbvh_refit", 2);
    threads_identical("sap_incremental", 2);
    threads_identical("sap_insertion", 2);
    threads_identical("octree", 2);
    threads_identical("loose_octree", 2);
}

// grid_multi's paths — AVX-512 and AVX2 (row map, placement of kept boxes, row sweep) and their
// portable SSE2 twins — give the same pairs in the same order and the same counters: the standard
// scene with boxes that change rows, one crowded cell whose candidates overflow the pair buffer
// mid-row, and boxes beyond the walls. The environment switches pick the path of each instance
// (CDLAB_NO_AVX2=1: SSE2; CDLAB_NO_AVX512=1: AVX2 where the CPU has it; neither: the widest); a
// path the CPU lacks falls back to a narrower one (said in a comment).
enum { PATHS = 3 };
static const char *const path_switch[PATHS] = {"CDLAB_NO_AVX2", "CDLAB_NO_AVX512", NULL};
static const char *const path_name[PATHS] = {"SSE2", "AVX2", "AVX-512"};

static cd_broad *create_on_path(const char *method, int path, const cd_param_settings *p, const cd_scene *s)
{
    if (path_switch[path]) setenv(path_switch[path], "1", 1);
    cd_broad *b = cd_registry_create(method, p, 1, s);
    if (path_switch[path]) unsetenv(path_switch[path]);
    return b;
}

// Frames of s by `method` on every path. Returns the last frame's candidates over the first's.
static double compare_paths(const char *method, cd_scene *s, const cd_param_settings *p, int frames)
{
    uint64_t first = 0, last = 0;
    cd_broad *b[PATHS];
    cd_pair_list out[PATHS] = {{0}};
    for (int k = 0; k < PATHS; ++k) b[k] = create_on_path(method, k, p, s);
    for (int f = 0; f < frames; ++f) {
        cd_broad_stats st[PATHS];
        for (int k = 0; k < PATHS; ++k) cd_broad_frame(b[k], s, &out[k], &st[k], NULL);
        for (int k = 1; k < PATHS; ++k) {
            char what[96];
            snprintf(what, sizeof what, "%s's %s path against its SSE2 twin", method, path_name[k]);
            expect_pairs_equal(&out[k], &out[0], what);
            // Software counters do not depend on the path: grid_multi counts the boxes in each
            // box's x window, lbvh the lanes compared.
            EXPECT_EQ(st[k].candidates, st[0].candidates);
            EXPECT_EQ(st[k].bv_tests, st[0].bv_tests);
            EXPECT_EQ(st[k].narrow_tests, st[0].narrow_tests);
            EXPECT_EQ(st[k].pairs, st[0].pairs);
            EXPECT_EQ(st[k].bytes, st[0].bytes);
        }
        last = st[0].candidates;
        if (!f) first = last;
        cd_scene_step(s);
    }
    for (int k = 0; k < PATHS; ++k) {
        cd_broad_destroy(b[k]);
        cd_pair_list_free(&out[k]);
    }
    return first ? (double)last / (double)first : 0.0;
}

static double compare_sweeps(cd_scene *s, const cd_param_settings *p, int frames)
{
    return compare_paths("grid_multi", s, p, frames);
}

static void simd_paths_agree(void **state)
{
    (void)state;
    // The switches turn the paths off; without them they run where the CPU has them.
    setenv("CDLAB_NO_AVX512", "1", 1);
    assert_int_equal(cd_cpu_avx512(), 0);
    unsetenv("CDLAB_NO_AVX512");
    setenv("CDLAB_NO_AVX2", "1", 1);
    assert_true(cd_cpu_avx2() == 0 && cd_cpu_avx512() == 0 && strcmp(cd_cpu_simd(), "sse2") == 0);
    assert_string_equal(cd_cpu_simd_switch(), "CDLAB_NO_AVX2");
    unsetenv("CDLAB_NO_AVX2");
    // A switch set to "0" or to nothing is off: the paths are the CPU's, as with the switch unset.
    const char *const simd_here = cd_cpu_simd();
    const char *const off[] = {"0", ""};
    for (int k = 0; k < 2; ++k) {
        setenv("CDLAB_NO_AVX2", off[k], 1);
        setenv("CDLAB_NO_AVX512", off[k], 1);
        setenv("CDLAB_TRACE_STREAM", off[k], 1);
        assert_string_equal(cd_cpu_simd(), simd_here);
        assert_null(cd_cpu_simd_switch());
        assert_int_equal(cd_trace_streamed(), 0);
    }
    setenv("CDLAB_TRACE_STREAM", "yes", 1);
    assert_int_equal(cd_trace_streamed(), 1);
    unsetenv("CDLAB_NO_AVX2"), unsetenv("CDLAB_NO_AVX512"), unsetenv("CDLAB_TRACE_STREAM");
    print_message("# grid_multi: SSE2 against AVX2 (%s here) and AVX-512 (%s here)\n", cd_cpu_avx2() ? "runs" : "SSE2",
                  cd_cpu_avx512() ? "runs"
                  : cd_cpu_avx2() ? "AVX2"
                                  : "SSE2");
    cd_param_settings p = {0};
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 20000;
    sp.speed = 0.5;
    cd_scene *s = cd_scene_create(&sp);
    compare_sweeps(s, &p, 4);
    cd_scene_destroy(s);
    s = cd_scene_create_empty(4200, 10.0);
    for (uint32_t i = 0; i < s->count; ++i)
        cd_scene_set_pose(s, i, cd_v3(5.0, 5.0, 5.0 + 1e-4 * i), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
    cd_scene_refresh(s);
    compare_sweeps(s, &p, 1);
    cd_scene_destroy(s);
    for (int seed = 0; seed < 6; ++seed) {
        s = outlier_scene(300, (uint64_t)seed, seed % 2 ? 1e7 : 3.0);
        cd_param_settings_put(&p, "cell_size", "%s", seed % 3 ? "0" : "0.7");
        compare_sweeps(s, &p, 3);
        cd_scene_destroy(s);
    }
}

// lbvh and lbvh_refit on every path: the Morton codes (eight at a time on the AVX2 and AVX-512
// paths, one at a time on SSE2's) and the cluster tests give the same order, the same pairs in the
// same order and the same counts. The standard scene, all cubes on one spot (equal codes), and far
// outliers (codes clamped at the walls).
static void lbvh_paths_agree(void **state)
{
    (void)state;
    static const char *const methods[] = {"lbvh", "lbvh_refit"};
    cd_param_settings p = {0};
    for (int m = 0; m < 2; ++m) {
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 20000;
        cd_scene *s = cd_scene_create(&sp);
        compare_paths(methods[m], s, &p, 4);
        cd_scene_destroy(s);
        s = cd_scene_create_empty(4200, 10.0);
        for (uint32_t i = 0; i < s->count; ++i)
            cd_scene_set_pose(s, i, cd_v3(5.0, 5.0, 5.0 + 1e-4 * i), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
        cd_scene_refresh(s);
        compare_paths(methods[m], s, &p, 1);
        cd_scene_destroy(s);
        for (int seed = 0; seed < 4; ++seed) {
            s = outlier_scene(300, (uint64_t)seed, seed % 2 ? 1e7 : 3.0);
            compare_paths(methods[m], s, &p, 3);
            cd_scene_destroy(s);
        }
    }
}

// The same on coherent frames (coherence = always: the static rows, their x index, the dynamic
// rows and their queries): the standard scene with a tenth moving, a crowded cell (a seventh
// moving) whose movers' windows overflow the pair buffer, and far outliers with a third moving,
// under two cells. The
// last frame hands the narrow step a fraction of the first's candidates (the coherent frames ran).
static void simd_paths_agree_on_coherent_frames(void **state)
{
    (void)state;
    cd_param_settings p = {0};
    cd_param_settings_put(&p, "coherence", "%s", "always");
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 20000;
    sp.speed = 0.5;
    sp.still = 0.9;
    cd_scene *s = cd_scene_create(&sp);
    assert_true(compare_sweeps(s, &p, 5) < 0.4);
    cd_scene_destroy(s);
    s = cd_scene_create_empty(1200, 10.0);
    for (uint32_t i = 0; i < s->count; ++i) {
        cd_scene_set_pose(s, i, cd_v3(5.0, 5.0, 5.0 + 1e-4 * i), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
        cd_scene_set_motion(s, i, cd_v3(0.0, 0.0, i % 2 ? 0.01 : -0.01), cd_v3(0.0, 0.0, 0.05));
        if (i % 7) cd_scene_set_still(s, i);
    }
    cd_scene_refresh(s);
    assert_true(compare_sweeps(s, &p, 4) < 0.4);
    cd_scene_destroy(s);
    for (int seed = 0; seed < 4; ++seed) {
        s = outlier_scene(300, (uint64_t)seed, seed % 2 ? 1e7 : 3.0);
        for (uint32_t i = 0; i < s->count; ++i)
            if (i % 3) cd_scene_set_still(s, i);
        cd_param_settings_put(&p, "cell_size", "%s", seed % 3 ? "0" : "0.7");
        assert_true(compare_sweeps(s, &p, 4) < 1.0);
        cd_scene_destroy(s);
    }
}

// A sink that keeps every candidate (a < b) in the pair list at ctx.
static void collect_flush(cd_pair_sink *sink)
{
    cd_pair_list *l = sink->ctx;
    for (uint32_t k = 0; k < sink->count; ++k) {
        cd_pair q = sink->buf[k];
        cd_pair_list_push(l, q.a < q.b ? q : (cd_pair){q.b, q.a});
    }
    sink->count = 0;
}

// grid_multi prepares each part of a frame (kept ids, sort) on the first candidates call that
// reaches it and keeps the sorted ids for the next frame. A caller may skip candidates for some
// frames or ask twice: every candidates call still reports each overlapping pair of float boxes
// exactly once (the brute-force set), with rows changing often.
static void grid_multi_update_without_candidates(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 3000;
    sp.speed = 0.5;
    cd_scene *s = cd_scene_create(&sp);
    cd_broad *g = cd_registry_create("grid_multi", NULL, 1, s);
    cd_pair_list ref = {0}, got = {0};
    cd_pair buf[64];
    int asked = 0;
    for (int f = 0; f < 12; ++f) {
        cd_scene_step(s);
        g->method->update(g->self, s);
        if (f % 3 == 1) continue;  // no candidates this frame
        ref.count = 0;
        for (uint32_t i = 0; i < s->count; ++i)
            for (uint32_t j = i + 1; j < s->count; ++j)
                if (cd_aabbf_overlap(&s->box[i], &s->box[j])) cd_pair_list_push(&ref, (cd_pair){i, j});
        for (int t = 0; t < (f % 3 == 2 ? 2 : 1); ++t, ++asked) {
            got.count = 0;
            cd_pair_sink sink = {buf, 0, 64, collect_flush, &got};
            cd_broad_stats st = {0};
            g->method->candidates(g->self, s, &sink, &st);
            collect_flush(&sink);
            expect_same_pairs(&got, &ref, "grid_multi candidates against the box pairs");
        }
    }
    assert_int_equal(asked, 12);
    cd_broad_destroy(g);
    cd_pair_list_free(&ref);
    cd_pair_list_free(&got);
    cd_scene_destroy(s);
}

// grid_multi's auto cells shrink where a full frame's windows are long (a clustered scene: the
// rows' count grows after the first frames) and stay in a uniform scene or with cell_size given;
// across the new layouts the pairs stay sap's, and 1 and 3 threads give the same pairs in the same
// order and the same counters (the scaling reads the parts' test counts, not the threads').
static void grid_multi_scales_cells_to_windows(void **state)
{
    (void)state;
    for (int c = 0; c < 3; ++c) {  // clusters auto, uniform auto, clusters with cell_size
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 20000;
        sp.layout = c == 1 ? CD_LAYOUT_UNIFORM : CD_LAYOUT_CLUSTERS;
        cd_param_settings p = {0};
        if (c == 2) cd_param_settings_put(&p, "cell_size", "6");
        cd_scene *s1 = cd_scene_create(&sp), *s3 = cd_scene_create(&sp), *plain = cd_scene_create(&sp);
        cd_broad *g1 = cd_registry_create("grid_multi", &p, 1, s1), *g3 = cd_registry_create("grid_multi", &p, 3, s3);
        cd_broad *sap = cd_registry_create("sap", NULL, 1, plain);
        cd_pair_list got1 = {0}, got3 = {0}, ref = {0};
        uint64_t rows_first = 0, rows_last = 0;
        for (int f = 0; f < 6; ++f) {
            cd_broad_stats st1 = {0}, st3 = {0}, sts = {0}, shape = {0};
            cd_scene_step(s1);
            cd_scene_step_threads(s3, 3);
            cd_scene_step(plain);
            cd_broad_frame(g1, s1, &got1, &st1, NULL);
            cd_broad_frame(g3, s3, &got3, &st3, NULL);
            cd_broad_frame(sap, plain, &ref, &sts, NULL);
            expect_pairs_equal(&got3, &got1, "grid_multi on 3 threads against 1");
            assert_true(st1.bv_tests == st3.bv_tests && st1.candidates == st3.candidates);
            expect_same_pairs(&got1, &ref, "grid_multi against sap across new cells");
            g1->method->shape_stats(g1->self, &shape);
            if (f == 0) rows_first = shape.nodes;
            rows_last = shape.nodes;
        }
        if (c == 0)
            assert_true(rows_last > rows_first);  // smaller cells: more rows
        else
            assert_true(rows_last == rows_first);
        cd_broad_destroy(g1);
        cd_broad_destroy(g3);
        cd_broad_destroy(sap);
        cd_scene_destroy(s1);
        cd_scene_destroy(s3);
        cd_scene_destroy(plain);
        cd_pair_list_free(&got1);
        cd_pair_list_free(&got3);
        cd_pair_list_free(&ref);
    }
}

// The coherent methods (they keep state and follow only what moved) over many frames in which
// the moving fraction changes (all, a tenth, none, half) and each cube stops and starts: the same
// pair set as sap every frame, and with 1, 2 and 3 threads the same pairs in the same order. The
// scene reorders its slots every 8 frames and moves fast enough for boxes to leave their fat boxes.
static const char *const coherent_methods[] = {"dtree", "sap_incremental"};

// Step s to frame f with every cube except one in `every` put back where it was (by cube).
static void step_some(cd_scene *s, int f, uint32_t every)
{
    uint32_t n = s->count;
    cd_posef *was = cd_alloc(((size_t)n + 1) * sizeof *was);
    for (uint32_t i = 0; i < n; ++i) was[cd_scene_ident(s, i)] = s->pose[i];
    cd_scene_step(s);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t id = cd_scene_ident(s, i);
        if (every == 0 || (id * 2654435761u + (uint32_t)f) % every == 0) continue;  // this one moves
        const cd_posef *p = &was[id];
        cd_scene_set_pose(s, i, cd_v3(p->c[0], p->c[1], p->c[2]), (cd_quat){p->q[0], p->q[1], p->q[2], p->q[3]},
                          cd_v3(p->h[0], p->h[1], p->h[2]));
    }
    cd_scene_refresh(s);
    cd_free(was);
}

// One coherent method on 1, 2 and 3 threads beside sap, frame after frame on one scene.
enum { COHERENT_THREADS = 3 };
typedef struct coherent_run {
    cd_broad *b[COHERENT_THREADS], *sap;
    cd_pair_list got[COHERENT_THREADS], ref;
    const char *method;
} coherent_run;

static coherent_run coherent_run_open(const char *method, const cd_scene *s)
{
    coherent_run r = {.method = method};
    for (int k = 0; k < COHERENT_THREADS; ++k) r.b[k] = cd_registry_create(method, NULL, k + 1, s);
    r.sap = cd_registry_create("sap", NULL, 1, s);
    return r;
}

// This frame of s: sap's pair set on every thread count, in the same order on each. Returns the pairs.
static size_t coherent_run_frame(coherent_run *r, const cd_scene *s, const char *threads_what)
{
    cd_broad_stats st;
    cd_broad_frame(r->sap, s, &r->ref, &st, NULL);
    for (int k = 0; k < COHERENT_THREADS; ++k) cd_broad_frame(r->b[k], s, &r->got[k], &st, NULL);
    for (int k = 1; k < COHERENT_THREADS; ++k) expect_pairs_equal(&r->got[k], &r->got[0], threads_what);
    expect_same_pairs(&r->got[0], &r->ref, r->method);
    return r->ref.count;
}

static void coherent_run_close(coherent_run *r)
{
    for (int k = 0; k < COHERENT_THREADS; ++k) {
        cd_broad_destroy(r->b[k]);
        cd_pair_list_free(&r->got[k]);
    }
    cd_broad_destroy(r->sap);
    cd_pair_list_free(&r->ref);
}

static void coherent_methods_follow_stops_and_starts(void **state)
{
    (void)state;
    enum { FRAMES = 48 };
    const uint32_t every[] = {0, 10, 1u << 31, 2};  // 0: all move; 1 << 31: (almost) none
    for (size_t m = 0; m < sizeof coherent_methods / sizeof coherent_methods[0]; ++m) {
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 4000;
        sp.speed = 0.3;
        sp.reorder = 8;
        cd_scene *s = cd_scene_create(&sp);
        coherent_run r = coherent_run_open(coherent_methods[m], s);
        uint64_t pairs = 0;
        for (int f = 0; f < FRAMES; ++f) {
            if (f) step_some(s, f, every[(f / 6) % 4]);
            pairs += coherent_run_frame(&r, s, "coherent method: threads keep the order");
        }
        assert_true(pairs > 1000);
        coherent_run_close(&r);
        cd_scene_destroy(s);
    }
}

// The coherent methods read the scene's move list: with still and sleeping cubes stepped on one
// and two threads, frames they miss (two steps between looks), a ranged step (no list), a reorder
// between the step and the look, and boxes grown by hand and marked (cd_scene_mark_moved), they
// report sap's pairs every frame, on 1, 2 and 3 threads alike.
static void coherent_methods_follow_the_move_list(void **state)
{
    (void)state;
    enum { FRAMES = 42 };
    for (size_t m = 0; m < sizeof coherent_methods / sizeof coherent_methods[0]; ++m) {
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 3000, sp.speed = 0.3, sp.reorder = 5, sp.still = 0.6, sp.sleep = 3.0;
        cd_scene *s = cd_scene_create(&sp);
        coherent_run r = coherent_run_open(coherent_methods[m], s);
        for (int f = 0; f < FRAMES; ++f) {
            if (f % 7 == 3) cd_scene_step(s);  // a frame the methods miss
            if (f % 7 == 5) {
                cd_scene_step_range(s, 0, s->count);
                s->frame++;
            } else if (f) {
                cd_scene_step_threads(s, 1 + f % 2);
            }
            if (f % 11 == 4) cd_scene_reorder(s);
            if (f % 7 == 6) {
                uint32_t grown[3] = {(uint32_t)f * 131 % s->count, (uint32_t)f * 17 % s->count, 5};
                for (int g = 0; g < 3; ++g) s->box[grown[g]].lo[g] -= 0.75f;
                cd_scene_mark_moved(s, grown, 3);
            }
            coherent_run_frame(&r, s, "move list: threads keep the order");
        }
        coherent_run_close(&r);
        cd_scene_destroy(s);
    }
}

// The kept pairs follow a move list that shrinks and grows again: cube B moves with A, then A
// alone (B's pairs kept), then B alone far from C (their pair must go, though B was listed two
// frames ago), then back; after every frame the pairs kept for the next are the frame's output. Every coherent method, grid_multi among them, on 1, 2 and 3 threads
// reports sap's pairs each frame (the frame copies the front of its kept pairs whole only where
// every cube listed now was listed on the frame that kept them: a stale record of that list keeps
// the pair of B and C).
static void kept_pairs_follow_a_shrinking_move_list(void **state)
{
    (void)state;
    static const char *const methods[] = {"grid_multi", "dtree", "sap_incremental"};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; ++m) {
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 800, sp.reorder = 0;
        cd_scene *s = cd_scene_create(&sp);
        const uint32_t A = 7, B = 11, C = 13, D = 17, E = 19;
        const cd_quat q = {1, 0, 0, 0};
        const cd_vec3 h = {0.5, 0.5, 0.5};
        double L = s->world;
        cd_scene_set_pose(s, C, cd_v3(0.25 * L, 0.25 * L, 0.25 * L), q, h);
        cd_scene_set_pose(s, B, cd_v3(0.25 * L + 0.6, 0.25 * L, 0.25 * L), q, h);
        cd_scene_set_pose(s, D, cd_v3(0.5 * L + 0.6, 0.5 * L, 0.5 * L), q, h);  // A's partners
        cd_scene_set_pose(s, E, cd_v3(0.5 * L + 5.0, 0.5 * L, 0.5 * L), q, h);
        cd_scene_refresh(s);
        coherent_run r = coherent_run_open(methods[m], s);
        coherent_run_frame(&r, s, "shrinking move list: threads keep the order");
        // Per frame: A's x offset from L / 2, then B's from C (NAN: the cube stays). Unit cubes,
        // unturned, overlap within an offset of 1: A overlaps D or E (each frame's new pair differs
        // from the frame before's), B overlaps C but at offsets 20 and 30.
        static const double steps[][2] = {{0.0, NAN}, {0.2, 0.62}, {4.6, NAN}, {NAN, 20}, {0.4, NAN},
                                          {0.8, 0.6}, {4.8, 0.61}, {1.2, NAN}, {NAN, 30}};
        size_t with_bc = 0;
        for (size_t f = 0; f < sizeof steps / sizeof steps[0]; ++f) {
            if (!isnan(steps[f][0])) cd_scene_set_pose(s, A, cd_v3(0.5 * L + steps[f][0], 0.5 * L, 0.5 * L), q, h);
            if (!isnan(steps[f][1])) cd_scene_set_pose(s, B, cd_v3(0.25 * L + steps[f][1], 0.25 * L, 0.25 * L), q, h);
            cd_scene_refresh(s);
            coherent_run_frame(&r, s, "shrinking move list: threads keep the order");
            for (int k = 0; k < COHERENT_THREADS; ++k) {  // what the next frame keeps from: this output
                const cd_broad *b = r.b[k];
                if (!b->method->update_coherent) continue;  // dtree and sap_incremental keep their own
                if (!b->kept_valid) fail_msg("%s, %d threads, frame %zu: no kept pairs", methods[m], k + 1, f);
                assert_true(b->kept_still <= b->kept.count);
                // got[0] was sorted for the compare with sap; got[1] holds its order
                expect_pairs_equal(&b->kept, &r.got[k ? k : 1], "kept pairs: the frame's output");
            }
            for (size_t k = 0; k < r.ref.count; ++k) {
                cd_pair p = r.ref.items[k];
                with_bc += (p.a == cd_scene_ident(s, B) && p.b == cd_scene_ident(s, C)) ||
                           (p.a == cd_scene_ident(s, C) && p.b == cd_scene_ident(s, B));
            }
        }
        EXPECT_EQ(with_bc, 6);  // the pair comes and goes: all frames but those with B far
        coherent_run_close(&r);
        cd_scene_destroy(s);
    }
}

// sap_incremental takes the moved cubes from the scene's list in cube order, as its compare of
// every box found them: fed the list (one step between looks) or not (a refresh after each step
// makes two publications), it makes the same box tests, frame by frame, across reorders.
static void sap_incremental_counts_as_without_the_list(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 3000, sp.speed = 0.3, sp.reorder = 4, sp.still = 0.5;
    cd_scene *s[2] = {cd_scene_create(&sp), cd_scene_create(&sp)};
    cd_broad *b[2] = {cd_registry_create("sap_incremental", NULL, 1, s[0]),
                      cd_registry_create("sap_incremental", NULL, 1, s[1])};
    cd_pair_list got[2] = {{0}, {0}};
    for (int f = 0; f < 24; ++f) {
        uint64_t tests[2];
        for (int k = 0; k < 2; ++k) {
            if (f) cd_scene_step(s[k]);
            if (f && k) cd_scene_refresh(s[k]);  // nothing changes, but the list is not one step's
            cd_broad_stats st = {0};
            cd_broad_frame(b[k], s[k], &got[k], &st, NULL);
            tests[k] = st.bv_tests;
        }
        EXPECT_EQ(tests[0], tests[1]);
        expect_pairs_equal(&got[0], &got[1], "list or compare");
    }
    for (int k = 0; k < 2; ++k) {
        cd_broad_destroy(b[k]);
        cd_pair_list_free(&got[k]);
        cd_scene_destroy(s[k]);
    }
}

// dtree on the level layout: a few slabs as wide as the world among small cubes. Inserted one by
// one, each cube descended along a slab's path at no cost in perimeter and ended beside a subtree
// anywhere, so each query later tested a large share of the tree (about 32 000 nodes at 100 000
// cubes). The first frame builds the tree in bulk, and later frames reinsert into it: sap's pairs
// every frame, on 1, 2 and 3 threads alike, and the node tests per reinserted cube stay within a
// bound a spoilt tree exceeds many times (the first frame's queries, which every cube makes,
// included; the set's refresh, one test per pair with a moved cube, apart).
static void dtree_stays_compact_beside_slabs(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 20000, sp.layout = CD_LAYOUT_LEVEL, sp.speed = 0.3;
    cd_scene *s = cd_scene_create(&sp);
    coherent_run r = coherent_run_open("dtree", s);
    for (int f = 0; f < 20; ++f) {  // the slabs rest: after 16 frames they go to the static tree
        if (f) cd_scene_step(s);
        coherent_run_frame(&r, s, "dtree beside slabs: threads keep the order");
    }
    // A fresh instance: its first frame queries every cube against the bulk-built tree.
    cd_broad *b = cd_registry_create("dtree", NULL, 1, s);
    cd_broad_stats st = {0};
    cd_pair_list got = {0};
    cd_broad_frame(b, s, &got, &st, NULL);
    // bv_tests: the queries' node tests, then one test per pair found and one per pair refreshed.
    printf("# dtree on the level layout, %u cubes: %llu tests in the first frame, %zu pairs\n", s->count,
           (unsigned long long)st.bv_tests, (size_t)got.count);
    assert_true(st.bv_tests < (uint64_t)s->count * 400);
    cd_pair_list_free(&got);
    cd_broad_destroy(b);
    coherent_run_close(&r);
    cd_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_rounding_is_strict_and_matches_nextafterf),
        cmocka_unit_test(next_float_steps_one_ulp),
        cmocka_unit_test(radix_sort_is_a_stable_sort),
        cmocka_unit_test(big_boxes_and_far_outliers_match_naive),
        cmocka_unit_test(grid_heavy_tailed_sizes_match_naive),
        cmocka_unit_test(tiny_and_dense_scenes_match_naive),
        cmocka_unit_test(threads_give_identical_pairs_in_identical_order),
        cmocka_unit_test(threads_identical_on_reordering_scenes),
        cmocka_unit_test(octrees_incremental_on_threads),
        cmocka_unit_test(octrees_deeper_than_a_path),
        cmocka_unit_test(simd_paths_agree),
        cmocka_unit_test(simd_paths_agree_on_coherent_frames),
        cmocka_unit_test(lbvh_paths_agree),
        cmocka_unit_test(lbvh_sorts_from_last_frame_as_the_radix_sort),
        cmocka_unit_test(grid_multi_update_without_candidates),
        cmocka_unit_test(grid_multi_scales_cells_to_windows),
        cmocka_unit_test(coherent_methods_follow_stops_and_starts),
        cmocka_unit_test(coherent_methods_follow_the_move_list),
        cmocka_unit_test(kept_pairs_follow_a_shrinking_move_list),
        cmocka_unit_test(sap_incremental_counts_as_without_the_list),
        cmocka_unit_test(dtree_stays_compact_beside_slabs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
