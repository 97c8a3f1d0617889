// SPDX-License-Identifier: MIT
// broad: the naive reference is reproducible, survives export → import, agrees with an
// independent double loop, and the registry and frame driver behave.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_registry.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void naive_pairs(const cd_scene *s, cd_pair_list *out, cd_broad_stats *st)
{
    cd_broad_params p = cd_broad_params_default();
    cd_broad *b = cd_registry_create("naive", &p, s);
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
    assert_true(count == pairs.count);
    assert_true(count > 20);  // density 0.05 gives dozens of contacts among 1000 cubes
    assert_true(st.narrow_tests == 1000ULL * 999 / 2);
    assert_true(st.pairs == count);
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
    assert_int_equal(a.count, b.count);
    assert_memory_equal(a.items, b.items, a.count * sizeof *a.items);

    char path[] = "/tmp/cdlab_broad_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[512];
    assert_int_equal(cd_scene_export_csv(s1, path, err, sizeof err), 0);
    cd_scene *s3 = cd_scene_import_csv(path, err, sizeof err);
    assert_non_null(s3);
    naive_pairs(s3, &c, &st);
    assert_int_equal(a.count, c.count);
    assert_memory_equal(a.items, c.items, a.count * sizeof *a.items);
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
    cd_broad_params p = cd_broad_params_default();
    assert_null(cd_registry_create("no_such_method", &p, NULL));
    for (size_t i = 0; i < n; ++i) {
        assert_non_null(m[i]->description);
        assert_ptr_equal(cd_registry_find(m[i]->name), m[i]);
    }
}

static void touching_cubes_count_and_empty_scene(void **state)
{
    (void)state;
    // Three unit cubes in a row, faces exactly touching: pairs (0,1) and (1,2), not (0,2).
    cd_scene *s = cd_scene_create_empty(3, 10.0);
    for (uint32_t i = 0; i < 3; ++i) cd_scene_set_pose(s, i, cd_v3(1.0 + i, 1.0, 1.0), cd_q_identity(), cd_v3(0.5, 0.5, 0.5));
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
    assert_true(st.narrow_tests == 0);
    cd_scene_destroy(e);
    cd_pair_list_free(&l);
}

static void frame_times_are_reported(void **state)
{
    (void)state;
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 200;
    cd_scene *s = cd_scene_create(&p);
    cd_broad_params bp = cd_broad_params_default();
    cd_broad *b = cd_registry_create("naive", &bp, s);
    cd_pair_list l = {0};
    cd_broad_stats st;
    cd_frame_times t = {-1, -1};
    cd_broad_frame(b, s, &l, &st, &t);
    assert_true(t.broad_ms >= 0.0 && t.narrow_ms >= 0.0);
    assert_true(st.candidates == 200ULL * 199 / 2);
    cd_broad_destroy(b);
    cd_pair_list_free(&l);
    cd_scene_destroy(s);
}

// cd_cube_pairs_sat (the frame's narrow step; every build this CPU runs) answers each lane as
// cd_obb_obb_overlap does on cd_scene_obb: pairs of cubes at centre distances around contact (half
// of them overlap), random rotations and sizes, plus axis-aligned cubes touching exactly face to
// face and edge to edge, and cubes turned alike whose faces meet up to the rounding of their
// centres (boundary cases where a rounding difference would show: the float filter must leave
// them to the double test, and a band too narrow for its errors fails here). Random poses
// rarely sit within rounding of contact, so this catches wrong expressions, not reassociations.
static void sat_lanes_match_scalar_test(void **state)
{
    (void)state;
    enum { PAIRS = 4096, ROUNDS = 100 };  // 409 600 pairs
    cd_rng r = cd_rng_make(77, CD_STREAM_TEST + 5);
    uint64_t agree = 0, hits = 0, unsure[3] = {0}, kinds[3] = {0};
    enum { RANDOM, ALIGNED_TOUCHING, TURNED_CONTACT };
    static uint8_t kind[PAIRS];  // which of the three the pair is
    // Every build this CPU runs (the frame's, AVX-512's float filter and eight double lanes, AVX2's
    // four, the baseline's).
    enum { BUILDS = 5 };
    static const cd_sat_build builds[BUILDS] = {CD_SAT_FRAME, CD_SAT_AVX512_FLOAT, CD_SAT_AVX512, CD_SAT_AVX2,
                                                CD_SAT_BASELINE};
    print_message("# sat builds here: AVX-512 float and double %s, AVX2 %s, baseline yes\n",
                  cd_cube_sat_runs(CD_SAT_AVX512) ? "yes" : "no", cd_cube_sat_runs(CD_SAT_AVX2) ? "yes" : "no");
    for (int round = 0; round < ROUNDS; ++round) {
        cd_scene *s = cd_scene_create_empty(2 * PAIRS, 100.0);
        for (uint32_t k = 0; k < PAIRS; ++k) {
            double ha = cd_rng_range(&r, 0.05, 2.0), hb = cd_rng_range(&r, 0.05, 2.0);
            cd_vec3 c = cd_v3(cd_rng_range(&r, 10, 90), cd_rng_range(&r, 10, 90), cd_rng_range(&r, 10, 90));
            kind[k] = RANDOM;
            if (cd_rng_below(&r, 8) == 0) {  // axis-aligned, touching exactly along one or two axes
                kind[k] = ALIGNED_TOUCHING;
                cd_vec3 off = cd_v3(ha + hb, cd_rng_below(&r, 2) ? ha + hb : 0.0, 0.0);
                cd_scene_set_pose(s, 2 * k, c, cd_q_identity(), cd_v3(ha, ha, ha));
                cd_scene_set_pose(s, 2 * k + 1, cd_v3_add(c, off), cd_q_identity(), cd_v3(hb, hb, hb));
                continue;
            }
            if (cd_rng_below(&r, 8) == 0) {  // turned alike, face to face at contact up to rounding
                kind[k] = TURNED_CONTACT;
                cd_quat q = cd_rng_rotation(&r);
                cd_vec3 normal = cd_q_rotate(q, cd_rng_below(&r, 2) ? cd_v3(0, 1, 0) : cd_v3(0, 0, 1));
                cd_scene_set_pose(s, 2 * k, c, q, cd_v3(ha, ha, ha));
                cd_scene_set_pose(s, 2 * k + 1, cd_v3_add(c, cd_v3_scale(normal, ha + hb)), q, cd_v3(hb, hb, hb));
                continue;
            }
            cd_quat qa = cd_rng_rotation(&r), qb = cd_rng_rotation(&r);
            double dist = (ha + hb) * cd_rng_range(&r, 0.5, 1.8);
            cd_vec3 dir = cd_q_rotate(cd_rng_rotation(&r), cd_v3(1, 0, 0));
            cd_scene_set_pose(s, 2 * k, c, qa, cd_v3(ha, ha * cd_rng_range(&r, 0.5, 1), ha));
            cd_scene_set_pose(s, 2 * k + 1, cd_v3_add(c, cd_v3_scale(dir, dist)), qb, cd_v3(hb, hb, hb));
        }
        cd_scene_refresh(s);
        for (uint32_t k = 0; k < PAIRS; k += 8) {
            cd_pair g[8];
            for (int l = 0; l < 8; ++l) {
                uint32_t m = k + (uint32_t)l;
                g[l] = (m & 1) ? (cd_pair){2 * m + 1, 2 * m} : (cd_pair){2 * m, 2 * m + 1};  // both orders
            }
            unsigned bits[BUILDS] = {0}, left = cd_cube_pairs_sat_unsure(s, g);
            for (int b = 0; b < BUILDS; ++b)
                if (cd_cube_sat_runs(builds[b])) bits[b] = cd_cube_pairs_sat(s, g, builds[b]);
            for (int l = 0; l < 8; ++l) {
                cd_obb a = cd_scene_obb(s, g[l].a), b = cd_scene_obb(s, g[l].b);
                unsigned want = (unsigned)cd_obb_obb_overlap(&a, &b);
                int all = 1;
                for (int bi = 0; bi < BUILDS; ++bi) all &= !cd_cube_sat_runs(builds[bi]) || (bits[bi] >> l & 1u) == want;
                agree += (unsigned)all;
                hits += want;
                ++kinds[kind[k + (uint32_t)l]];
                unsure[kind[k + (uint32_t)l]] += left >> l & 1u;
            }
        }
        cd_scene_destroy(s);
    }
    print_message("# sat lanes: %llu of %d pairs agree with the scalar test, %llu overlap\n", (unsigned long long)agree,
                  PAIRS * ROUNDS, (unsigned long long)hits);
    print_message("# float filter left to the double test: %llu of %llu random pairs, %llu of %llu touching exactly, "
                  "%llu of %llu turned alike in contact\n",
                  (unsigned long long)unsure[RANDOM], (unsigned long long)kinds[RANDOM],
                  (unsigned long long)unsure[ALIGNED_TOUCHING], (unsigned long long)kinds[ALIGNED_TOUCHING],
                  (unsigned long long)unsure[TURNED_CONTACT], (unsigned long long)kinds[TURNED_CONTACT]);
    assert_true(agree == (uint64_t)PAIRS * ROUNDS);
    if (cd_cube_sat_runs(CD_SAT_AVX512_FLOAT)) {
        // Contact sits inside the band, so every such pair goes to the double test; random poses
        // rarely do (within about 2^-13 of the sizes), so the filter decides the rest.
        for (int kd = ALIGNED_TOUCHING; kd <= TURNED_CONTACT; ++kd) assert_true(kinds[kd] > 0 && unsure[kd] == kinds[kd]);
        assert_true(unsure[RANDOM] < kinds[RANDOM] / 100);
    }
    assert_true(hits > (uint64_t)PAIRS * ROUNDS / 4 && hits < (uint64_t)PAIRS * ROUNDS * 3 / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(naive_matches_independent_double_loop),
        cmocka_unit_test(naive_reproducible_and_survives_export),
        cmocka_unit_test(registry_lookup),
        cmocka_unit_test(touching_cubes_count_and_empty_scene),
        cmocka_unit_test(frame_times_are_reported),
        cmocka_unit_test(sat_lanes_match_scalar_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
