// SPDX-License-Identifier: MIT
// peers: every peer method (description "peer:") is told only what moved (docs/design/peers.md),
// so each must still report naive's pairs when most cubes rest, when cubes fall asleep and wake,
// when nothing moves for several frames, and across slot reorders. The differential test's scenes
// move every cube; these scenes keep some still. Compiled only with the peers.
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
            frame_pairs(b[k], s, &have);
            if (have.count != want.count || memcmp(have.items, want.items, want.count * sizeof *want.items) != 0)
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
    size_t n, np = 0;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    const cd_broad_method *peers[MAX_PEERS];
    for (size_t i = 0; i < n; ++i)
        if (strncmp(m[i]->description, "peer:", 5) == 0 && np < MAX_PEERS) peers[np++] = m[i];
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peers_told_what_moved_match_naive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
