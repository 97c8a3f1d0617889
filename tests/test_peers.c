// SPDX-License-Identifier: MIT
// peers: every peer method (description "peer:") is told only what moved (docs/design/peers.md),
// so each must still report naive's pairs when most cubes rest, when cubes fall asleep and wake,
// when nothing moves for several frames, and across slot reorders. The differential test's scenes
// move every cube; these scenes keep some still. And boxes that leave the first frame's world.
// Compiled only with the peers.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_registry.h"
#include "test_util.h"

#include <string.h>

enum { FRAMES = 14, MAX_PEERS = 32 };

// Motion for cube i: a random velocity and spin (awake) or none (at rest).
static void set_awake(cd_scene *s, cd_rng *r, uint32_t i, int awake)
{
    double v = awake ? 0.3 : 0.0, w = awake ? 0.2 : 0.0;
    cd_vec3 vel = cd_v3(cd_rng_range(r, -v, v), cd_rng_range(r, -v, v), cd_rng_range(r, -v, v));
    cd_vec3 omega = cd_v3(cd_rng_range(r, -w, w), cd_rng_range(r, -w, w), cd_rng_range(r, -w, w));
    cd_scene_set_motion(s, i, vel, omega);
}

// What a scene does over its frames: the share of cubes awake at the start, which frames put a
// share of the awake to sleep and wake a share of the resting, and how often slots reorder.
typedef struct plan {
    const char *name;
    double awake;
    int sleep_at, wake_at;
    uint32_t reorder;
} plan;

static const plan plans[] = {
    {"half at rest, some sleep, some wake", 0.5, 4, 9, 0},
    {"a tenth awake, reordered every 3 frames", 0.1, 6, 10, 3},
    {"all at rest, then all wake", 0.0, -1, 7, 5},
};

typedef struct tally {
    uint64_t frames, pairs, resting_pairs;
} tally;

// Sorted pairs of a frame of b.
static void frame_pairs(cd_broad *b, const cd_scene *s, cd_pair_list *out)
{
    cd_broad_stats st;
    cd_broad_frame(b, s, out, &st, NULL);
    cd_pair_list_sort(out);
}

// b's sorted pairs of this frame into *have: whether they are want's.
static int same_pairs(cd_broad *b, const cd_scene *s, const cd_pair_list *want, cd_pair_list *have)
{
    frame_pairs(b, s, have);
    return have->count == want->count && memcmp(have->items, want->items, want->count * sizeof *want->items) == 0;
}

// Every peer method (description "peer:") into peers; their count.
static size_t peer_methods(const cd_broad_method *peers[MAX_PEERS])
{
    size_t n, np = 0;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    for (size_t i = 0; i < n; ++i)
        if (strncmp(m[i]->description, "peer:", 5) == 0 && np < MAX_PEERS) peers[np++] = m[i];
    return np;
}

static void run_plan(const plan *pl, uint64_t seed, const cd_broad_method *const *peers, size_t np, tally *t)
{
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 900;
    sp.density = 0.25;
    sp.seed = seed;
    sp.reorder = pl->reorder;
    cd_scene *s = cd_scene_create(&sp);
    cd_rng r = cd_rng_make(seed, CD_STREAM_TEST + 9);
    for (uint32_t i = 0; i < s->count; ++i) set_awake(s, &r, i, cd_rng_range(&r, 0.0, 1.0) < pl->awake);
    cd_broad *naive = cd_registry_create("naive", NULL, 1, s);
    cd_broad *b[MAX_PEERS];
    for (size_t k = 0; k < np; ++k) b[k] = cd_broad_create(peers[k], NULL, 1, s);
    cd_pair_list want = {0}, have = {0};
    for (int f = 0; f < FRAMES; ++f) {
        if (f == pl->sleep_at)
            for (uint32_t i = 0; i < s->count; i += 2) set_awake(s, &r, i, 0);
        if (f == pl->wake_at)
            for (uint32_t i = 1; i < s->count; i += 2) set_awake(s, &r, i, 1);
        frame_pairs(naive, s, &want);
        for (size_t k = 0; k < np; ++k) {
            if (!same_pairs(b[k], s, &want, &have))
                fail_msg("%s: plan \"%s\", seed %llu, frame %d: %zu pairs, naive %zu", peers[k]->name, pl->name,
                         (unsigned long long)seed, f, have.count, want.count);
        }
        uint32_t *slot = cd_scene_slots(s);
        for (size_t p = 0; p < want.count; ++p) {
            uint32_t a = slot[want.items[p].a], c = slot[want.items[p].b];
            t->resting_pairs +=
                s->vx[a] == 0 && s->vy[a] == 0 && s->vz[a] == 0 && s->vx[c] == 0 && s->vy[c] == 0 && s->vz[c] == 0;
        }
        cd_free(slot);
        t->pairs += want.count;
        t->frames++;
        cd_scene_step(s);
    }
    cd_pair_list_free(&want);
    cd_pair_list_free(&have);
    for (size_t k = 0; k < np; ++k) cd_broad_destroy(b[k]);
    cd_broad_destroy(naive);
    cd_scene_destroy(s);
}

static void peers_told_what_moved_match_naive(void **state)
{
    (void)state;
    const cd_broad_method *peers[MAX_PEERS];
    size_t np = peer_methods(peers);
    assert_true(np >= 7);  // FCL's five and Bullet's two at least
    tally t = {0};
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; ++p)
        for (uint64_t seed = 1; seed <= 3; ++seed) run_plan(&plans[p], seed, peers, np, &t);
    print_message("# %zu peers, %llu frames, %llu pairs, %llu between resting cubes\n", np,
                  (unsigned long long)t.frames, (unsigned long long)t.pairs, (unsigned long long)t.resting_pairs);
    // The scenes hold what they are for: pairs, and pairs that only a peer keeping resting cubes'
    // pairs from earlier frames reports.
    assert_true(t.pairs > 1000);
    assert_true(t.resting_pairs > 100);
}

// Boxes outside the world of the first frame, as a replayed trace's may be, and worlds far larger
// than the cubes: ODE's hash space misses pairs at small negative cell indices (so its peer
// shifts the boxes up) and aborts where a cell index leaves the int range (so its peer grows the
// smallest cells). Two scenes of 40 cubes: one that starts in [0, 10]³ and then crowds into
// [-3, 1]³, sends a touching pair ten billion below, lays a slab a billion wide through the
// others and returns; one whose world of 10⁹ holds such a slab from its first frame. Every peer
// must report naive's pairs each frame, without an abort.
enum { OUT_CUBES = 400, OUT_FRAMES = 6 };

static void pose_out(cd_scene *s, int world_slab, int f, const cd_vec3 *at, cd_rng *r)
{
    const cd_quat id = {1, 0, 0, 0}, turned = {0.9, 0.1, 0.3, 0.2};
    const cd_vec3 half = cd_v3(0.25, 0.25, 0.25);
    for (uint32_t i = 0; i < OUT_CUBES; ++i) {
        cd_vec3 c = at[i];
        if (!world_slab && f == 1) c = cd_v3(cd_rng_range(r, -3, 1), cd_rng_range(r, -3, 1), cd_rng_range(r, -3, 1));
        if (!world_slab && f == 2 && i < 2) c = cd_v3(-1e10 + 0.5 * i, 2, -1e10);
        if (world_slab && f == 2) c = cd_v3(c.x + 0.3, c.y, c.z);
        cd_scene_set_pose(s, i, c, i % 2 ? turned : id, half);
    }
    if ((!world_slab && f == 3) || (world_slab && f < 3))
        cd_scene_set_pose(s, 0, cd_v3(5, 5, 5), id, cd_v3(1e9, 1e9, 0.1));
    cd_scene_refresh(s);
}

static void peers_follow_boxes_out_of_the_world(void **state)
{
    (void)state;
    const cd_broad_method *peers[MAX_PEERS];
    size_t np = peer_methods(peers);
    uint64_t pairs = 0;
    for (int world_slab = 0; world_slab < 2; ++world_slab) {
        cd_scene *s = cd_scene_create_empty(OUT_CUBES, world_slab ? 1e9 : 10.0);
        cd_rng r = cd_rng_make(5, CD_STREAM_TEST + 10);
        cd_vec3 at[OUT_CUBES];
        for (uint32_t i = 0; i < OUT_CUBES; ++i)
            at[i] = cd_v3(cd_rng_range(&r, 1, 9), cd_rng_range(&r, 1, 9), cd_rng_range(&r, 1, 9));
        pose_out(s, world_slab, 0, at, &r);
        cd_broad *naive = cd_registry_create("naive", NULL, 1, s);
        cd_broad *b[MAX_PEERS];
        for (size_t k = 0; k < np; ++k) b[k] = cd_broad_create(peers[k], NULL, 1, s);
        cd_pair_list want = {0}, have = {0};
        for (int f = 0; f < OUT_FRAMES; ++f) {
            if (f) pose_out(s, world_slab, f, at, &r);
            frame_pairs(naive, s, &want);
            pairs += want.count;
            for (size_t k = 0; k < np; ++k) {
                if (!same_pairs(b[k], s, &want, &have))
                    fail_msg("%s: scene %d, frame %d: %zu pairs, naive %zu", peers[k]->name, world_slab, f, have.count,
                             want.count);
            }
        }
        cd_pair_list_free(&want);
        cd_pair_list_free(&have);
        for (size_t k = 0; k < np; ++k) cd_broad_destroy(b[k]);
        cd_broad_destroy(naive);
        cd_scene_destroy(s);
    }
    assert_true(pairs > 300);  // the crowded frame and the slabs make many
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peers_told_what_moved_match_naive),
        cmocka_unit_test(peers_follow_boxes_out_of_the_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
