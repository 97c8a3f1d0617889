// SPDX-License-Identifier: MIT
// bodies: scenes of moving mesh bodies. A scene of boxes is the cube scene (same records, same
// pairs); on seeded small scenes of mixed meshes, every hierarchy variant under several broad
// phases, serial and threaded, reports exactly the body pairs and the triangle pairs of brute
// force, frame after frame, with and without spatial reorders; first_hit's pairs are all_pairs'.
// The bodies peers (FCL's manager over BVHModel<OBB> and <OBBRSS>), when built, report the same
// body pairs and triangle pairs as cdlab's obb variant and brute force.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_bodies.h"
#include "cd_bodies_peers.h"
#include "cd_registry.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cd_bodies *make_bodies_deforming(const cd_scene_params *sp, const char *const *meshes, uint32_t count,
                                        const cd_bvh_variant *variant, double deform)
{
    cd_bodies_params p = {*sp, meshes, count, 0, {0}, 1, deform};
    p.plan = cd_bvh_variant_plan(variant, NULL);
    char err[1024];
    cd_bodies *b = cd_bodies_create(&p, err, sizeof err);
    if (!b) fprintf(stderr, "%s\n", err);
    assert_non_null(b);
    cd_bodies_deform(b);
    return b;
}

static cd_bodies *make_bodies(const cd_scene_params *sp, const char *const *meshes, uint32_t count,
                              const cd_bvh_variant *variant)
{
    return make_bodies_deforming(sp, meshes, count, variant, 0.0);
}

// One frame of a body scene under broad phase bp: its body pairs, and the triangle pairs counted.
static uint64_t body_frame(cd_broad *bp, cd_bodies *b, cd_bodies_narrow *nw, cd_pair_list *pairs)
{
    cd_bodies_narrow_attach(nw, bp);
    cd_broad_stats st;
    cd_broad_frame(bp, b->scene, pairs, &st, NULL);
    cd_bodies_stats bs = cd_bodies_narrow_take_stats(nw);
    assert_int_equal(st.pairs, pairs->count);
    uint64_t by_kind = 0;  // the tests by kind add up to Nv
    for (int q = 0; q < CD_BVT_COUNT; ++q) by_kind += bs.bv_by_kind[q];
    assert_int_equal(by_kind, bs.bv_tests);
    assert_true(bs.queries <= st.candidates);
    if (bp->method->untested) {  // `all`: every pair of bodies queried, none spared by a box test
        uint64_t n = b->scene->count;
        assert_int_equal(st.candidates, n * (n - 1) / 2);
        assert_int_equal(bs.queries, st.candidates);
    }
    return bs.tri_pairs;
}

// The narrow step's witness hints (on by default in first_hit) keep every frame's body pairs
// and save volume tests on a moving scene; a threaded frame, whose parts gather the witnesses
// apart, hints each pair as the serial frame does (the same counters).
static void witness_hints_keep_the_pairs_and_save_tests(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 150, sp.density = 0.2, sp.seed = 11, sp.speed = 0.02, sp.spin = 0.01;
    static const char *const meshes[] = {"icosphere:500", "torus:400", "noisy_sphere:500"};
    cd_bodies *b = make_bodies(&sp, meshes, 3, cd_bvh_variant_find("hybrid"));
    enum { ON, OFF, ON_THREADED, N };
    cd_broad *bp[N];
    cd_bodies_narrow *nw[N];
    for (int k = 0; k < N; ++k) {
        bp[k] = cd_registry_create("grid_multi", NULL, k == ON_THREADED ? 2 : 1, b->scene);
        nw[k] = cd_bodies_narrow_create(b, CD_BVH_FIRST_HIT);
        cd_bodies_narrow_set_witness(nw[k], k != OFF);
        cd_bodies_narrow_attach(nw[k], bp[k]);
    }
    cd_pair_list got[N] = {{0}};
    uint64_t tests[N] = {0}, touching = 0;
    for (int f = 0; f < 12; ++f) {
        cd_bodies_stats bs[N];
        for (int k = 0; k < N; ++k) {
            cd_broad_stats st;
            cd_broad_frame(bp[k], b->scene, &got[k], &st, NULL);
            bs[k] = cd_bodies_narrow_take_stats(nw[k]);
            tests[k] += bs[k].bv_tests;
        }
        expect_same_pairs(&got[ON], &got[OFF], "witness on vs off");
        expect_same_pairs(&got[ON_THREADED], &got[OFF], "witness on, two threads, vs off");
        assert_int_equal(bs[ON].tri_pairs, bs[OFF].tri_pairs);
        assert_memory_equal(&bs[ON], &bs[ON_THREADED], sizeof bs[ON]);
        touching += got[ON].count;
        cd_scene_step(b->scene);
    }
    fprintf(stderr, "# witness hints: %llu touching pairs over 12 frames, %llu volume tests against %llu\n",
            (unsigned long long)touching, (unsigned long long)tests[ON], (unsigned long long)tests[OFF]);
    assert_true(touching > 100);
    assert_true(tests[ON] < tests[OFF]);
    for (int k = 0; k < N; ++k) cd_pair_list_free(&got[k]), cd_bodies_narrow_destroy(nw[k]), cd_broad_destroy(bp[k]);
    cd_bodies_destroy(b);
}

// meshes = box: each body record is the cube's, and the pairs whose boxes' surfaces cross are the
// pairs whose solid cubes overlap (equal cubes cannot nest), frame after frame.
static void boxes_are_the_cube_scene(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 400, sp.density = 0.2, sp.seed = 7, sp.reorder = 3;
    static const char *const box[] = {"box"};
    cd_bodies *b = make_bodies(&sp, box, 1, cd_bvh_variant_find("obb"));
    cd_scene *cubes = cd_scene_create(&sp);
    EXPECT_EQ(b->scene->world, cubes->world);
    for (uint32_t i = 0; i < sp.cubes; ++i)
        assert_memory_equal(&b->scene->pose[i], &cubes->pose[i], sizeof cubes->pose[i]);
    cd_broad *on_bodies = cd_registry_create("grid_multi", NULL, 1, b->scene),
             *on_cubes = cd_registry_create("grid_multi", NULL, 1, cubes);
    cd_bodies_narrow *nw = cd_bodies_narrow_create(b, CD_BVH_FIRST_HIT);
    cd_pair_list got = {0}, want = {0};
    size_t total = 0;
    for (int f = 0; f < 8; ++f) {
        body_frame(on_bodies, b, nw, &got);
        cd_broad_stats st;
        cd_broad_frame(on_cubes, cubes, &want, &st, NULL);
        expect_same_pairs(&got, &want, "box bodies vs cubes");
        total += got.count;
        cd_scene_step(b->scene);
        cd_scene_step(cubes);
    }
    fprintf(stderr, "# %zu touching pairs over 8 frames of 400 boxes\n", total);
    assert_true(total > 50);
    cd_pair_list_free(&got);
    cd_pair_list_free(&want);
    cd_bodies_narrow_destroy(nw);
    cd_broad_destroy(on_bodies);
    cd_broad_destroy(on_cubes);
    cd_scene_destroy(cubes);
    cd_bodies_destroy(b);
}

static const char *const mesh_pool[] = {"icosphere:80", "torus:200", "noisy_sphere:320",
                                        "pencil:120",   "box",       "torus:64"};
static const char *const methods[] = {"naive", "all", "sap", "grid_multi", "loose_octree"};

// Seeded scenes of up to 60 bodies of mixed meshes at sparse to crowded densities: each variant,
// each method, serial and on two threads, first_hit and all_pairs, against brute force.
static void every_variant_matches_brute_force(void **state)
{
    (void)state;
    uint64_t checked = 0, touching = 0, tri_total = 0, brute_runs = 0;
    enum { FRAMES = 3 };
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        // Brute force once per frame of the seed's scene: every variant, method and thread count
        // replays the same scene (the poses, boxes, meshes and deformation do not depend on them;
        // each frame's poses and boxes are compared with the first combination's to prove it).
        cd_pair_list want[FRAMES] = {{0}};
        uint64_t want_tris[FRAMES] = {0};
        cd_posef *poses[FRAMES] = {0};
        cd_aabbf *boxes[FRAMES] = {0};
        cd_rng r = cd_rng_make(seed, CD_STREAM_TEST + 7);
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 10 + (uint32_t)cd_rng_below(&r, 51);
        static const double densities[] = {0.05, 0.3, 0.6};
        sp.density = densities[seed % 3];
        sp.seed = seed;
        sp.speed = 0.1;
        sp.spin = 0.05;
        sp.reorder = seed % 2 ? 2 : 0;
        sp.size_ratio = seed % 2 ? 1.0 : 3.0;  // half the scenes of bodies at several scales
        uint32_t count = 1 + (uint32_t)cd_rng_below(&r, 4), first = (uint32_t)cd_rng_below(&r, 6);
        const char *meshes[4];
        for (uint32_t k = 0; k < count; ++k) meshes[k] = mesh_pool[(first + k) % 6];
        for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v)
            for (size_t m = 0; m < sizeof methods / sizeof methods[0]; ++m)
                for (int threads = 1; threads <= 2; ++threads) {
                    // Every third scene deforms half its bodies: refit hierarchies, following boxes.
                    cd_bodies *b = make_bodies_deforming(&sp, meshes, count, v, seed % 3 == 0 ? 0.5 : 0.0);
                    cd_broad *first_bp = cd_registry_create(methods[m], NULL, threads, b->scene);
                    cd_broad *all_bp = cd_registry_create(methods[m], NULL, threads, b->scene);
                    cd_bodies_narrow *first_nw = cd_bodies_narrow_create(b, CD_BVH_FIRST_HIT);
                    cd_bodies_narrow *all_nw = cd_bodies_narrow_create(b, CD_BVH_ALL_PAIRS);
                    cd_pair_list got_first = {0}, got_all = {0};
                    for (int f = 0; f < FRAMES; ++f) {
                        const cd_scene *sc = b->scene;
                        if (!poses[f]) {
                            cd_bodies_brute_force(b, &want[f], &want_tris[f]);
                            brute_runs++;
                            poses[f] = malloc(sc->count * sizeof *poses[f] + 1);
                            boxes[f] = malloc(sc->count * sizeof *boxes[f] + 1);
                            memcpy(poses[f], sc->pose, sc->count * sizeof *poses[f]);
                            memcpy(boxes[f], sc->box, sc->count * sizeof *boxes[f]);
                        } else {
                            assert_memory_equal(poses[f], sc->pose, sc->count * sizeof *poses[f]);
                            assert_memory_equal(boxes[f], sc->box, sc->count * sizeof *boxes[f]);
                        }
                        body_frame(first_bp, b, first_nw, &got_first);
                        uint64_t tris = body_frame(all_bp, b, all_nw, &got_all);
                        char what[200];
                        snprintf(what, sizeof what, "seed %llu, %s, %s, %d thread(s), frame %d",
                                 (unsigned long long)seed, v->name, methods[m], threads, f);
                        expect_same_pairs(&got_first, &want[f], what);
                        expect_same_pairs(&got_all, &want[f], what);
                        if (tris != want_tris[f])
                            fail_msg("%s: %llu triangle pairs, brute force %llu", what, (unsigned long long)tris,
                                     (unsigned long long)want_tris[f]);
                        checked++, touching += want[f].count, tri_total += want_tris[f];
                        cd_scene_step(b->scene);
                        cd_bodies_deform(b);
                    }
                    cd_pair_list_free(&got_first);
                    cd_pair_list_free(&got_all);
                    cd_bodies_narrow_destroy(first_nw);
                    cd_bodies_narrow_destroy(all_nw);
                    cd_broad_destroy(first_bp);
                    cd_broad_destroy(all_bp);
                    cd_bodies_destroy(b);
                }
        for (int f = 0; f < FRAMES; ++f) {
            cd_pair_list_free(&want[f]);
            free(poses[f]);
            free(boxes[f]);
        }
    }
    fprintf(stderr,
            "# %llu frames checked against %llu brute-force frames: %llu touching body pairs, %llu triangle pairs\n",
            (unsigned long long)checked, (unsigned long long)brute_runs, (unsigned long long)touching,
            (unsigned long long)tri_total);
    assert_true(touching > 100);
}

// Bodies of flat meshes (plates: a box with one zero extent) size their world by the plate's two
// other extents, where the box's volume, 0, made a scene of edge 0 that the scene asserts on; every
// variant under naive and grid_multi then reports brute force's pairs, alone and with solid meshes.
static void flat_bodies_match_brute_force(void **state)
{
    (void)state;
    char path[] = "/tmp/cdlab-test-plate-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char plate[] = "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 1 3 2\n";
    assert_int_equal(write(fd, plate, sizeof plate - 1), (ssize_t)(sizeof plate - 1));
    close(fd);
    char spec[64];
    snprintf(spec, sizeof spec, "%s", path);
    uint64_t touching = 0;
    for (int mixed = 0; mixed <= 1; ++mixed) {
        const char *meshes[2] = {spec, "icosphere:80"};
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 40, sp.density = 0.3, sp.seed = 3 + (uint64_t)mixed, sp.speed = 0.1, sp.spin = 0.05;
        for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v)
            for (int m = 0; m < 2; ++m) {
                cd_bodies *b = make_bodies(&sp, meshes, 1 + (uint32_t)mixed, v);
                assert_true(b->scene->count == 40);
                cd_broad *bp = cd_registry_create(m ? "grid_multi" : "naive", NULL, 1, b->scene);
                cd_bodies_narrow *nw = cd_bodies_narrow_create(b, CD_BVH_ALL_PAIRS);
                cd_pair_list got = {0}, want = {0};
                for (int f = 0; f < 3; ++f) {
                    uint64_t want_tris = 0, tris;
                    cd_bodies_brute_force(b, &want, &want_tris);
                    tris = body_frame(bp, b, nw, &got);
                    char what[200];
                    snprintf(what, sizeof what, "plates%s, %s, frame %d", mixed ? " and spheres" : "", v->name, f);
                    expect_same_pairs(&got, &want, what);
                    assert_int_equal(tris, want_tris);
                    touching += want.count;
                    cd_scene_step(b->scene);
                }
                cd_pair_list_free(&got);
                cd_pair_list_free(&want);
                cd_bodies_narrow_destroy(nw);
                cd_broad_destroy(bp);
                cd_bodies_destroy(b);
            }
    }
    unlink(path);
    assert_true(touching > 0);
}

// Seeded scenes of 20 to 200 bodies of mixed meshes, sparse and crowded, with and without reorders:
// each bodies peer (FCL's manager + BVHModel) reports, frame after frame, cdlab's obb variant's
// body pairs in first_hit (one contact each) and its triangle pair count in all_pairs, and both
// equal brute force. Without peers there is nothing to compare: the test says so and passes.
static void fcl_peers_match_obb_and_brute_force(void **state)
{
    (void)state;
    size_t npeers;
    const char *const *peers = cd_bodies_peer_names(&npeers);
    if (npeers == 0) {  // cmocka's skip() is "not ok # SKIP" in TAP, which meson counts as failed
        fprintf(stderr, "# built without peers: no bodies peers to compare\n");
        return;
    }
    static const char *const pool[] = {"icosphere:80", "torus:200", "noisy_sphere:320", "box"};
    enum { SCENES = 12, FRAMES = 4 };
    uint64_t frames = 0, touching = 0, tri_total = 0;
    for (uint64_t seed = 1; seed <= SCENES; ++seed) {
        cd_rng r = cd_rng_make(seed, CD_STREAM_TEST + 8);
        cd_scene_params sp = cd_scene_params_default();
        sp.cubes = 20 + (uint32_t)cd_rng_below(&r, 181);
        sp.density = seed % 2 ? 0.05 : 0.3;
        sp.seed = seed;
        sp.speed = 0.1;
        sp.spin = 0.05;
        sp.reorder = seed % 4 < 2 ? 2 : 0;
        uint32_t count = 2 + (uint32_t)cd_rng_below(&r, 3), first = (uint32_t)cd_rng_below(&r, 4);
        const char *meshes[4];
        for (uint32_t k = 0; k < count; ++k) meshes[k] = pool[(first + k) % 4];
        cd_bodies *b = make_bodies(&sp, meshes, count, cd_bvh_variant_find("obb"));
        cd_broad *first_bp = cd_registry_create("grid_multi", NULL, 1, b->scene);
        cd_broad *all_bp = cd_registry_create("grid_multi", NULL, 1, b->scene);
        cd_bodies_narrow *first_nw = cd_bodies_narrow_create(b, CD_BVH_FIRST_HIT);
        cd_bodies_narrow *all_nw = cd_bodies_narrow_create(b, CD_BVH_ALL_PAIRS);
        cd_bodies_peer *first_peer[2], *all_peer[2];
        assert_true(npeers <= 2);
        for (size_t k = 0; k < npeers; ++k) {
            first_peer[k] = cd_bodies_peer_create(peers[k], b, CD_BVH_FIRST_HIT);
            all_peer[k] = cd_bodies_peer_create(peers[k], b, CD_BVH_ALL_PAIRS);
            assert_non_null(first_peer[k]);
            assert_non_null(all_peer[k]);
        }
        cd_pair_list want = {0}, ours = {0}, ours_all = {0}, got = {0};
        for (int f = 0; f < FRAMES; ++f) {
            uint64_t want_tris;
            cd_bodies_brute_force(b, &want, &want_tris);
            body_frame(first_bp, b, first_nw, &ours);
            uint64_t our_tris = body_frame(all_bp, b, all_nw, &ours_all);
            char what[200];
            snprintf(what, sizeof what, "seed %llu (%u bodies, density %g), frame %d, cdlab obb",
                     (unsigned long long)seed, sp.cubes, sp.density, f);
            expect_same_pairs(&ours, &want, what);
            expect_same_pairs(&ours_all, &want, what);
            if (our_tris != want_tris)
                fail_msg("%s: %llu triangle pairs, brute force %llu", what, (unsigned long long)our_tris,
                         (unsigned long long)want_tris);
            for (size_t k = 0; k < npeers; ++k) {
                uint64_t tris;
                snprintf(what, sizeof what, "seed %llu (%u bodies, density %g), frame %d, %s first_hit",
                         (unsigned long long)seed, sp.cubes, sp.density, f, peers[k]);
                cd_bodies_peer_frame(first_peer[k], b, &got, &tris);
                for (size_t q = 0; q < got.count; ++q) assert_true(got.items[q].a < got.items[q].b);
                if (tris != got.count)
                    fail_msg("%s: %llu contacts for %zu pairs", what, (unsigned long long)tris, got.count);
                assert_true(cd_bodies_peer_candidates(first_peer[k]) >= got.count);
                expect_same_pairs(&got, &ours, what);
                snprintf(what, sizeof what, "seed %llu (%u bodies, density %g), frame %d, %s all_pairs",
                         (unsigned long long)seed, sp.cubes, sp.density, f, peers[k]);
                cd_bodies_peer_frame(all_peer[k], b, &got, &tris);
                expect_same_pairs(&got, &ours, what);
                if (tris != our_tris)
                    fail_msg("%s: %llu triangle pairs, cdlab obb %llu", what, (unsigned long long)tris,
                             (unsigned long long)our_tris);
            }
            frames++, touching += want.count, tri_total += want_tris;
            cd_scene_step(b->scene);
        }
        cd_pair_list_free(&want);
        cd_pair_list_free(&ours);
        cd_pair_list_free(&ours_all);
        cd_pair_list_free(&got);
        for (size_t k = 0; k < npeers; ++k) {
            cd_bodies_peer_destroy(first_peer[k]);
            cd_bodies_peer_destroy(all_peer[k]);
        }
        cd_bodies_narrow_destroy(first_nw);
        cd_bodies_narrow_destroy(all_nw);
        cd_broad_destroy(first_bp);
        cd_broad_destroy(all_bp);
        cd_bodies_destroy(b);
    }
    fprintf(stderr, "# %zu peers, %llu frames: %llu touching body pairs, %llu triangle pairs\n", npeers,
            (unsigned long long)frames, (unsigned long long)touching, (unsigned long long)tri_total);
    assert_true(touching > 100);
}

// Exactly touching boxes (faces, edges and a corner meeting; rotations the floats hold exactly,
// one of them not unit): FCL's triangle test is closed like cdlab's exact one, and every pose here
// is exact, so both count the same touching triangle pairs as brute force.
static void fcl_peers_on_exact_contact(void **state)
{
    (void)state;
    size_t npeers;
    const char *const *peers = cd_bodies_peer_names(&npeers);
    if (npeers == 0) return;  // built without peers (see above)
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 5;
    static const char *const box[] = {"box"};
    cd_bodies *b = make_bodies(&sp, box, 1, cd_bvh_variant_find("obb"));
    static const double at[5][3] = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {3, 1, 2}, {3, 3, 2}};
    static const cd_quat rot[5] = {{1, 0, 0, 0}, {2, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}, {0, 0, -3, 0}};
    for (uint32_t i = 0; i < 5; ++i)
        cd_scene_set_pose(b->scene, i, cd_v3(at[i][0], at[i][1], at[i][2]), rot[i], b->shapes[0].half);
    cd_scene_refresh(b->scene);
    cd_pair_list want = {0}, got = {0};
    uint64_t want_tris, tris;
    cd_bodies_brute_force(b, &want, &want_tris);
    // 0-1 and 1-2 share a face, 0-2 and 1-3 an edge, 2-3 and 2-4 a corner; 3-4 are a unit apart.
    assert_int_equal(want.count, 6);
    for (size_t k = 0; k < npeers; ++k) {
        cd_bodies_peer *first = cd_bodies_peer_create(peers[k], b, CD_BVH_FIRST_HIT);
        cd_bodies_peer *all = cd_bodies_peer_create(peers[k], b, CD_BVH_ALL_PAIRS);
        cd_bodies_peer_frame(first, b, &got, &tris);
        expect_same_pairs(&got, &want, peers[k]);
        cd_bodies_peer_frame(all, b, &got, &tris);
        expect_same_pairs(&got, &want, peers[k]);
        if (tris != want_tris)
            fail_msg("%s: %llu touching triangle pairs, brute force %llu", peers[k], (unsigned long long)tris,
                     (unsigned long long)want_tris);
        cd_bodies_peer_destroy(first);
        cd_bodies_peer_destroy(all);
    }
    fprintf(stderr, "# exact contact: %zu body pairs, %llu triangle pairs\n", want.count,
            (unsigned long long)want_tris);
    cd_pair_list_free(&want);
    cd_pair_list_free(&got);
    cd_bodies_destroy(b);
}

// The sphere gate (each body's reach: its farthest vertex from its centre, scaled) spares the
// queries of bodies apart and never those that touch: unit boxes corner to corner, where the
// centres are exactly the two reaches apart, touch and are queried, a box a millionth farther
// along the diagonal is not; two balls whose boxes overlap but whose spheres do not are not
// queried.
static void sphere_gate_keeps_corner_contact(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 4;
    static const char *const box[] = {"box"};
    cd_bodies *b = make_bodies(&sp, box, 1, cd_bvh_variant_find("obb"));
    // 0 and 1 corner to corner, 2 corner to corner with 0 a millionth apart, 3 far from every other.
    const double d = 1.0 + 1e-6;
    const cd_vec3 at[4] = {cd_v3(5, 5, 5), cd_v3(6, 6, 6), cd_v3(5 - d, 5 - d, 5 - d), cd_v3(9, 9, 9)};
    for (uint32_t i = 0; i < 4; ++i) cd_scene_set_pose(b->scene, i, at[i], cd_q_identity(), b->shapes[0].half);
    cd_scene_refresh(b->scene);
    EXPECT_EQ(b->shapes[0].reach, sqrt(0.75));
    cd_pair_list want = {0}, got = {0};
    uint64_t want_tris;
    cd_bodies_brute_force(b, &want, &want_tris);
    assert_int_equal(want.count, 1);  // 0-1 touch at a corner; 0-2 are a millionth apart
    cd_broad *bp = cd_registry_create("naive", NULL, 1, b->scene);
    cd_bodies_narrow *nw = cd_bodies_narrow_create(b, CD_BVH_FIRST_HIT);
    body_frame(bp, b, nw, &got);
    expect_same_pairs(&got, &want, "corner contact");
    cd_broad_stats st;
    cd_broad_frame(bp, b->scene, &got, &st, NULL);
    cd_bodies_stats bs = cd_bodies_narrow_take_stats(nw);
    assert_int_equal(bs.queries, 1);  // 0-1 only
    cd_bodies_narrow_destroy(nw);
    cd_broad_destroy(bp);
    cd_bodies_destroy(b);
    // Two spheres along the diagonal, their boxes overlapping and their spheres apart: no query.
    static const char *const ball[] = {"icosphere:80"};
    sp.cubes = 2;
    b = make_bodies(&sp, ball, 1, cd_bvh_variant_find("obb"));
    assert_true(b->shapes[0].reach <= 0.5 + 1e-12);
    cd_scene_set_pose(b->scene, 0, cd_v3(5, 5, 5), cd_q_identity(), b->shapes[0].half);
    cd_scene_set_pose(b->scene, 1, cd_v3(5.7, 5.7, 5.7), cd_q_identity(), b->shapes[0].half);
    cd_scene_refresh(b->scene);
    assert_true(cd_cube_pair_overlap(b->scene, 0, 1));
    bp = cd_registry_create("naive", NULL, 1, b->scene);
    nw = cd_bodies_narrow_create(b, CD_BVH_FIRST_HIT);
    body_frame(bp, b, nw, &got);
    assert_int_equal(got.count, 0);
    cd_broad_frame(bp, b->scene, &got, &st, NULL);
    bs = cd_bodies_narrow_take_stats(nw);
    assert_int_equal(bs.queries, 0);
    cd_pair_list_free(&want);
    cd_pair_list_free(&got);
    cd_bodies_narrow_destroy(nw);
    cd_broad_destroy(bp);
    cd_bodies_destroy(b);
}

// A name that is not a peer gives NULL, in any build.
static void unknown_peer_is_null(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 5;
    static const char *const box[] = {"box"};
    cd_bodies *b = make_bodies(&sp, box, 1, cd_bvh_variant_find("obb"));
    assert_null(cd_bodies_peer_create("grid_multi", b, CD_BVH_FIRST_HIT));
    assert_false(cd_bodies_peer_known("fcl_dynamic_tree"));
    size_t n;
    const char *const *names = cd_bodies_peer_names(&n);
    for (size_t k = 0; k < n; ++k) assert_true(cd_bodies_peer_known(names[k]));
    cd_bodies_destroy(b);
}

// Deforming bodies move their own copies' vertices (within the amplitude), refit every node and
// keep their boxes around their meshes; the shared meshes stay at rest.
static void deforming_bodies_refit_and_stay_boxed(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 40, sp.seed = 11;
    static const char *const meshes[] = {"torus:200"};
    cd_bodies *b = make_bodies_deforming(&sp, meshes, 1, cd_bvh_variant_find("hybrid"), 0.5);
    assert_true(b->deform_count > 5 && b->deform_count < 35);
    const cd_mesh *shared = &b->shapes[0].mesh;
    uint64_t nodes = 0;
    for (uint32_t d = 0; d < b->deform_count; ++d) nodes += b->shapes[b->shape_count + d].bvh->nnodes;
    for (int f = 0; f < 5; ++f) {
        cd_scene_step(b->scene);
        EXPECT_EQ(cd_bodies_deform(b), nodes);
        double moved = 0;
        for (uint32_t d = 0; d < b->deform_count; ++d) {
            const cd_mesh *m = &b->shapes[b->shape_count + d].mesh;
            uint32_t slot = 0;
            while (cd_scene_ident(b->scene, slot) != b->deform_body[d]) ++slot;
            cd_vec3 h = cd_scene_half(b->scene, slot);
            for (uint32_t v = 0; v < m->nverts; ++v) {
                cd_vec3 dv = cd_v3_sub(m->verts[v], shared->verts[v]);
                double a = CD_BODIES_DEFORM_AMPLITUDE * sp.size * (1 + 1e-12);
                assert_true(fabs(dv.x) <= a && fabs(dv.y) <= a && fabs(dv.z) <= a);
                assert_true(fabs(m->verts[v].x) <= h.x && fabs(m->verts[v].y) <= h.y && fabs(m->verts[v].z) <= h.z);
                moved = fmax(moved, fabs(dv.x));
            }
        }
        assert_true(moved > 0.2 * CD_BODIES_DEFORM_AMPLITUDE * sp.size);
    }
    cd_bodies_destroy(b);
}

// A mesh the reader rejects is an error naming it; no meshes is an error.
static void bad_params_are_errors(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 10;
    static const char *const bad[] = {"torus:0"};
    cd_bodies_params p = {sp, bad, 1, 0, {0}, 1, 0.0};
    p.plan = cd_bvh_variant_plan(cd_bvh_variant_find("obb"), NULL);
    char err[1024];
    assert_null(cd_bodies_create(&p, err, sizeof err));
    EXPECT_CONTAINS(err, "mesh torus:0");
    p.mesh_count = 0;
    assert_null(cd_bodies_create(&p, err, sizeof err));
    EXPECT_CONTAINS(err, "no meshes");
}

// Body i's mesh in world space, built independently of cd_bodies_relative_pose: each vertex x at
// c_i + R_i·(s_i·x), in double.
static cd_vec3 *world_vertices(const cd_bodies *b, uint32_t slot)
{
    uint32_t body = cd_scene_ident(b->scene, slot);
    const cd_mesh *m = &b->shapes[b->shape_of[body]].mesh;
    cd_mat3 R = cd_q_to_m3(cd_q_normalize(cd_scene_rot(b->scene, slot)));
    cd_vec3 c = cd_scene_center(b->scene, slot);
    cd_vec3 *w = malloc(sizeof *w * m->nverts);
    for (uint32_t v = 0; v < m->nverts; ++v)
        w[v] = cd_v3_add(c, cd_m3_mul_v(R, cd_v3_scale(m->verts[v], b->scale[body])));
    return w;
}

// size_ratio > 1: bodies of one mesh at several scales share its hierarchy. Their largest edges
// lie in [size, size·size_ratio], every box encloses its scaled mesh, and the touching pairs are
// those of an independent world-space brute force (every triangle pair of every two bodies,
// placed by c + R·(s·x)); the narrow step under two broad phases reports them.
static void scaled_bodies_match_world_brute_force(void **state)
{
    (void)state;
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 40, sp.density = 0.3, sp.seed = 11, sp.size_ratio = 4.0, sp.speed = 0.1, sp.spin = 0.05;
    static const char *const meshes[] = {"icosphere:80", "torus:200", "pencil:120"};
    cd_bodies *b = make_bodies(&sp, meshes, 3, cd_bvh_variant_find("obb"));
    double smin = INFINITY, smax = 0;
    for (uint32_t i = 0; i < sp.cubes; ++i) {
        double si = b->scale[i];
        smin = fmin(smin, si), smax = fmax(smax, si);
        // The body's box encloses its scaled mesh.
        cd_vec3 h = cd_scene_half(b->scene, i);
        const cd_mesh *m = &b->shapes[b->shape_of[i]].mesh;
        for (uint32_t v = 0; v < m->nverts; ++v) {
            cd_vec3 x = cd_v3_scale(m->verts[v], si);
            assert_true(fabs(x.x) <= h.x && fabs(x.y) <= h.y && fabs(x.z) <= h.z);
        }
    }
    assert_true(smin >= 1.0 && smax <= 4.0 && smax > 2.5 * smin);        // sizes spread over the range
    assert_null(cd_bodies_peer_create("fcl_obb", b, CD_BVH_FIRST_HIT));  // FCL places rigid instances only
    cd_broad *grid = cd_registry_create("grid_multi", NULL, 1, b->scene),
             *naive = cd_registry_create("naive", NULL, 1, b->scene);
    cd_bodies_narrow *nw = cd_bodies_narrow_create(b, CD_BVH_ALL_PAIRS);
    cd_pair_list got = {0}, got2 = {0}, want = {0}, world = {0};
    uint64_t touching = 0, scaled_touching = 0;
    for (int f = 0; f < 3; ++f) {
        uint64_t want_tris;
        cd_bodies_brute_force(b, &want, &want_tris);
        uint64_t tris = body_frame(grid, b, nw, &got);
        body_frame(naive, b, nw, &got2);
        expect_same_pairs(&got, &want, "scaled bodies, grid_multi");
        expect_same_pairs(&got2, &want, "scaled bodies, naive");
        assert_int_equal(tris, want_tris);
        world.count = 0;
        uint32_t n = b->scene->count;
        cd_vec3 **w = malloc(sizeof *w * n);
        uint32_t *body_of = malloc(sizeof *body_of * n);
        for (uint32_t i = 0; i < n; ++i) w[i] = world_vertices(b, i), body_of[i] = cd_scene_ident(b->scene, i);
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = i + 1; j < n; ++j) {
                const cd_mesh *mi = &b->shapes[b->shape_of[body_of[i]]].mesh,
                              *mj = &b->shapes[b->shape_of[body_of[j]]].mesh;
                int hit = 0;
                for (uint32_t ti = 0; ti < mi->ntris && !hit; ++ti) {
                    cd_triangle A = {{w[i][mi->tris[ti][0]], w[i][mi->tris[ti][1]], w[i][mi->tris[ti][2]]}};
                    for (uint32_t tj = 0; tj < mj->ntris && !hit; ++tj) {
                        cd_triangle B = {{w[j][mj->tris[tj][0]], w[j][mj->tris[tj][1]], w[j][mj->tris[tj][2]]}};
                        hit = cd_tri_tri_overlap(&A, &B);
                    }
                }
                if (!hit) continue;
                uint32_t lo = body_of[i] < body_of[j] ? body_of[i] : body_of[j], hi = body_of[i] ^ body_of[j] ^ lo;
                cd_pair_list_push(&world, (cd_pair){lo, hi});
                scaled_touching += b->scale[lo] != b->scale[hi];
            }
        expect_same_pairs(&want, &world, "scaled bodies, world-space brute force");
        touching += world.count;
        for (uint32_t i = 0; i < n; ++i) free(w[i]);
        free(w);
        free(body_of);
        cd_scene_step(b->scene);
    }
    fprintf(stderr, "# scaled bodies: %llu touching pairs over 3 frames, %llu of bodies of different sizes\n",
            (unsigned long long)touching, (unsigned long long)scaled_touching);
    assert_true(scaled_touching > 10);
    cd_pair_list_free(&got);
    cd_pair_list_free(&got2);
    cd_pair_list_free(&want);
    cd_pair_list_free(&world);
    cd_bodies_narrow_destroy(nw);
    cd_broad_destroy(grid);
    cd_broad_destroy(naive);
    cd_bodies_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boxes_are_the_cube_scene),
        cmocka_unit_test(every_variant_matches_brute_force),
        cmocka_unit_test(flat_bodies_match_brute_force),
        cmocka_unit_test(witness_hints_keep_the_pairs_and_save_tests),
        cmocka_unit_test(deforming_bodies_refit_and_stay_boxed),
        cmocka_unit_test(bad_params_are_errors),
        cmocka_unit_test(scaled_bodies_match_world_brute_force),
        cmocka_unit_test(fcl_peers_match_obb_and_brute_force),
        cmocka_unit_test(fcl_peers_on_exact_contact),
        cmocka_unit_test(sphere_gate_keeps_corner_contact),
        cmocka_unit_test(unknown_peer_is_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
