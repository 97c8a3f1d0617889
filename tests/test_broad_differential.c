// SPDX-License-Identifier: MIT
// differential: every registered broad phase against naive over >= 10 000 seeded scenes.
// Scenes vary N (0 … 3 000, mostly small), density (up to 0.5, plus touching
// lattices), edge (10x within a scene), boxes on split planes, at and beyond the walls, depth
// 0..8, looseness 1/1.5/2/4, both update modes, over several motion frames; in a quarter of the
// scenes box faces are snapped onto the octree split planes (exact ties of closed boxes). Per
// scene-frame and method: the sorted pair list of cd_broad_frame must equal naive's, and a second
// instance driven through a recording sink must report every AABB-overlapping pair exactly once
// (no duplicates, no self pairs, nothing missing). A third of the scenes reorder their slots at
// every step (cd_scene_reorder), and half of those once more between two steps: the framed
// instance follows them through the method's remap (or a rebuild after two), the recorded one sees
// only permuted slots, as if every cube jumped. Every method of cd_registry_methods() is checked (peer methods,
// wrappers of FCL and Bullet, on every 4th scene); a new method needs no line here.
// CD_DIFF_SCENES overrides the scene count (sanitizer builds default to 1 500), CD_DIFF_METHODS=a,b
// limits the methods.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_registry.h"
#include "test_util.h"
#include "cd_build_config.h"  // CD_SANITIZE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Sanitizer builds run ~10x slower: they default to SANITIZED_SCENES so `meson test` stays within
// its timeout there; release builds run the full DEFAULT_SCENES.
enum { DEFAULT_SCENES = 10000, SANITIZED_SCENES = 1500, MAX_METHODS = 64 };

static int sanitized(void) { return strcmp(CD_SANITIZE, "none") != 0 && CD_SANITIZE[0] != '\0'; }

/// Tallies of one method over the whole run.
typedef struct tally {
    const cd_broad_method *m;
    uint32_t stride;  // checked on scenes idx % stride == 0
    uint64_t scenes, frames, pairs_compared, missed, extra, dup_candidates, bad_candidates, aabb_missing;
    uint64_t first_bad_scene;  // scene index of the first failure + 1, 0 = none
} tally;

static struct run {
    uint32_t scenes, scenes_requested;
    uint64_t frames, max_n;
    size_t methods;
    tally t[MAX_METHODS];
} run;

// ---------------------------------------------------------------------------------------------
// Scenes

static uint32_t draw_count(cd_rng *r, uint32_t idx)
{
    if (idx < 8) return idx;  // 0, 1, 2, ... explicitly
    uint64_t u = cd_rng_below(r, 1000);
    if (u < 450) return (uint32_t)cd_rng_below(r, 17);
    if (u < 800) return 17 + (uint32_t)cd_rng_below(r, 84);
    if (u < 950) return 101 + (uint32_t)cd_rng_below(r, 400);
    if (u < 994) return 501 + (uint32_t)cd_rng_below(r, 1000);
    return 1501 + (uint32_t)cd_rng_below(r, 1500);  // up to 3 000
}

// Axis-aligned unit cubes on a lattice of pitch 1: faces touch exactly (ties of closed boxes).
static cd_scene *lattice_scene(cd_rng *r, uint32_t n)
{
    uint32_t m = 1;
    while (m * m * m < n) ++m;
    cd_scene *s = cd_scene_create_empty(n, (double)m);
    for (uint32_t i = 0; i < n; ++i) {
        cd_scene_set_pose(s, i, cd_v3(0.5 + i % m, 0.5 + (i / m) % m, 0.5 + i / (m * m)), cd_q_identity(),
                          cd_v3(0.5, 0.5, 0.5));
        cd_vec3 v = cd_v3(cd_rng_range(r, -0.1, 0.1), cd_rng_range(r, -0.1, 0.1), cd_rng_range(r, -0.1, 0.1));
        cd_scene_set_motion(s, i, v, cd_v3(0, 0, 0));
    }
    return s;
}


// A world side of 12 significant bits at least L, so the octrees' split planes down to level 8
// (L·k/256) are floats and float boxes can tie on them exactly.
static double short_world(double L)
{
    int e;
    frexp(L, &e);
    double u = ldexp(1.0, e - 12);
    return ceil(L / u) * u;
}

// Smallest float ≥ d.
static float float_at_least(double d)
{
    float f = (float)d;
    return (double)f < d ? nextafterf(f, INFINITY) : f;
}

// Move some cubes onto split planes of the octree levels and some to / beyond the walls.
static void perturb(cd_rng *r, cd_scene *s)
{
    double L = s->world;
    uint64_t mode = cd_rng_below(r, 4);  // 0: none, 1: planes, 2: walls, 3: both
    for (uint32_t i = 0; i < s->count && mode; ++i) {
        if (cd_rng_below(r, 3) != 0) continue;
        float *x = &s->pose[i].c[cd_rng_below(r, 3)];
        double h = s->pose[i].h[0];
        if ((mode & 1) && cd_rng_below(r, 2)) {
            int level = 1 + (int)cd_rng_below(r, 8);
            double cells = ldexp(1.0, level);
            *x = (float)(L * (double)cd_rng_below(r, (uint64_t)cells + 1) / cells);  // a split plane or wall
        } else if (mode & 2) {
            switch (cd_rng_below(r, 6)) {
            case 0:
                *x = 0.0f;
                break;
            case 1:
                *x = (float)L;
                break;
            case 2:
                *x = (float)-h;
                break;  // touching a wall from outside
            case 3:
                *x = (float)(L + h);
                break;
            case 4:
                *x = (float)(-cd_rng_range(r, 0.0, 0.6) * L - h);
                break;  // wholly outside
            default:
                *x = (float)(L * (1.0 + cd_rng_range(r, 0.0, 0.6)) + h);
                break;
            }
        }
    }
}

// The split plane of the level-`level` cell holding x on one axis, computed exactly as the octrees
// compute their cell centres (centre ± half/2 from the root centre L/2).
static double split_plane(double L, double x, int level)
{
    double c = 0.5 * L, h = 0.5 * L;
    for (int k = 0; k < level; ++k) {
        double q = 0.5 * h;
        c = x >= c ? c + q : c - q;
        h = q;
    }
    return c;
}

// Grow the near face of every third box onto a split plane when it lies within the box's extent:
// exact ties of closed boxes on the planes (A.hi == B.lo == plane). Boxes only grow, so they still
// enclose their cubes and naive's answer stays the geometric one.
static void snap_to_planes(cd_scene *s, uint32_t salt)
{
    for (uint32_t i = 0; i < s->count; i += 3) {
        cd_aabbf *b = &s->box[i];
        int level = (int)((i / 3 + salt) % 9);
        for (int a = 0; a < 3; ++a) {
            float *lo = &b->lo[a], *hi = &b->hi[a];
            double ext = (double)*hi - *lo, p = split_plane(s->world, 0.5 * ((double)*lo + *hi), level);
            if (*hi < p && p - *hi < ext)
                *hi = float_at_least(p);  // p itself whenever the world is short (make_scene)
            else if (*lo > p && *lo - p < ext)
                *lo = -float_at_least(-p);
        }
    }
}

static cd_scene *make_scene(cd_rng *r, uint32_t idx)
{
    uint32_t n = draw_count(r, idx);
    cd_scene *s;
    if (n > 0 && cd_rng_below(r, 12) == 0) {
        s = lattice_scene(r, n);
    } else {
        cd_scene_params p = cd_scene_params_default();
        p.cubes = n;
        p.seed = 1000003ULL * idx + 17;
        p.density = exp(cd_rng_range(r, log(0.005), log(0.5)));
        static const double ratios[] = {1.0, 1.0, 2.0, 10.0};
        p.size_ratio = ratios[cd_rng_below(r, 4)];
        p.size = cd_rng_range(r, 0.2, 3.0);
        p.speed = p.size * cd_rng_range(r, 0.0, 1.5);  // large steps force relocations
        p.spin = cd_rng_range(r, 0.0, 0.5);
        s = cd_scene_create(&p);
        s->world = short_world(s->world);
    }
    perturb(r, s);
    cd_scene_refresh(s);
    return s;
}

// ---------------------------------------------------------------------------------------------
// Recording sink: all candidates of one candidates() call, normalised to a < b.

typedef struct recorder {
    cd_pair_list all;
    uint64_t bad;  // self pairs, out-of-range indices, or (boxes_tested methods) apart boxes
    uint32_t n;
    const cd_scene *scene;
    int boxes_tested;  // the method claims every candidate's boxes overlap
} recorder;

static void record_flush(cd_pair_sink *sink)
{
    recorder *rec = sink->ctx;
    for (uint32_t k = 0; k < sink->count; ++k) {
        uint32_t a = sink->buf[k].a, b = sink->buf[k].b;
        if (a == b || a >= rec->n || b >= rec->n ||
            (rec->boxes_tested && !cd_aabbf_overlap(&rec->scene->box[a], &rec->scene->box[b]))) {
            rec->bad++;
            continue;
        }
        cd_pair_list_push(&rec->all, a < b ? (cd_pair){a, b} : (cd_pair){b, a});
    }
    sink->count = 0;
}

static int pair_eq(cd_pair p, cd_pair q) { return p.a == q.a && p.b == q.b; }
static int pair_lt(cd_pair p, cd_pair q) { return p.a < q.a || (p.a == q.a && p.b < q.b); }

// Pairs of want missing from have (both sorted, want without duplicates).
static uint64_t count_missing(const cd_pair_list *want, const cd_pair_list *have)
{
    uint64_t miss = 0;
    size_t j = 0;
    for (size_t i = 0; i < want->count; ++i) {
        while (j < have->count && pair_lt(have->items[j], want->items[i])) ++j;
        if (j < have->count && pair_eq(have->items[j], want->items[i]))
            ++j;
        else
            ++miss;
    }
    return miss;
}

// ---------------------------------------------------------------------------------------------
// One scene over all methods.

typedef struct instance {
    cd_broad *framed;    // driven by cd_broad_frame
    cd_broad *recorded;  // driven through the recording sink
} instance;

static void aabb_pairs(const cd_scene *s, cd_pair_list *out)
{
    out->count = 0;
    for (uint32_t i = 0; i < s->count; ++i)
        for (uint32_t j = i + 1; j < s->count; ++j)
            if (cd_aabbf_overlap(&s->box[i], &s->box[j])) cd_pair_list_push(out, (cd_pair){i, j});
}

static void check_frame(tally *t, instance *in, const cd_scene *s, const cd_pair_list *ref, const cd_pair_list *aabb,
                        cd_pair_list *got, recorder *rec, uint32_t scene)
{
    cd_broad_stats st;
    cd_broad_frame(in->framed, s, got, &st, NULL);
    cd_pair_list_sort(got);
    uint64_t missed = count_missing(ref, got);
    // Everything in got beyond the matched reference pairs is extra or duplicated.
    uint64_t extra = got->count - (ref->count - missed);

    cd_pair buf[512];
    rec->all.count = 0;
    rec->bad = 0;
    rec->n = s->count;
    rec->scene = s;
    rec->boxes_tested = in->recorded->method->boxes_tested;
    cd_pair_sink sink = {buf, 0, 512, record_flush, rec};
    cd_broad_stats st2 = {0};
    in->recorded->method->update(in->recorded->self, s);
    in->recorded->method->candidates(in->recorded->self, s, &sink, &st2);
    record_flush(&sink);
    cd_pair_list_sort(&rec->all);
    uint64_t dups = 0;
    for (size_t k = 1; k < rec->all.count; ++k) dups += pair_eq(rec->all.items[k - 1], rec->all.items[k]);

    t->frames++;
    t->pairs_compared += ref->count;
    t->missed += missed;
    t->extra += extra;
    t->dup_candidates += dups;
    t->bad_candidates += rec->bad;
    uint64_t aabb_miss = count_missing(aabb, &rec->all);
    t->aabb_missing += aabb_miss;
    if ((missed || extra || dups || rec->bad || aabb_miss) && !t->first_bad_scene) t->first_bad_scene = scene + 1ULL;
}

static void run_scene(uint32_t idx, cd_pair_list *ref, cd_pair_list *aabb, cd_pair_list *got, recorder *rec)
{
    cd_rng r = cd_rng_make(idx, CD_STREAM_TEST + 4);
    cd_scene *s = make_scene(&r, idx);
    static const double loose[] = {1.0, 1.5, 2.0, 4.0};
    cd_broad_params p = cd_broad_params_default();
    p.depth = (int)(idx % 9);
    p.looseness = loose[(idx / 9) % 4];
    p.update = (idx / 36) % 2 ? CD_UPDATE_INCREMENTAL : CD_UPDATE_REBUILD;
    int frames = 1 + (int)cd_rng_below(&r, 4);
    int snap = cd_rng_below(&r, 4) == 0;
    if (snap) snap_to_planes(s, idx);

    int reorder = idx % 3 == 1;  // from idx, so every other draw stays as it was
    s->reorder = reorder ? 1 : 0;

    cd_broad *naive = cd_registry_create("naive", &p, s);
    instance in[MAX_METHODS];
    for (size_t m = 0; m < run.methods; ++m) {
        int on = idx % run.t[m].stride == 0;
        in[m].framed = on ? cd_registry_create(run.t[m].m->name, &p, s) : NULL;
        in[m].recorded = on ? cd_registry_create(run.t[m].m->name, &p, s) : NULL;
        run.t[m].scenes += (uint64_t)on;
    }
    for (int f = 0; f < frames; ++f) {
        if (f == 2 && reorder && idx % 2 == 0) cd_scene_reorder(s);  // two reorders before this frame
        if (f > 0) cd_scene_step(s);
        if (f > 0 && snap) snap_to_planes(s, idx + (uint32_t)f);
        cd_broad_stats st;
        cd_broad_frame(naive, s, ref, &st, NULL);
        cd_pair_list_sort(ref);
        aabb_pairs(s, aabb);
        for (size_t m = 0; m < run.methods; ++m)
            if (in[m].framed) check_frame(&run.t[m], &in[m], s, ref, aabb, got, rec, idx);
        run.frames++;
    }
    if (s->count > run.max_n) run.max_n = s->count;
    for (size_t m = 0; m < run.methods; ++m) {
        cd_broad_destroy(in[m].framed);
        cd_broad_destroy(in[m].recorded);
    }
    cd_broad_destroy(naive);
    cd_scene_destroy(s);
}

static int sweep(void **state)
{
    (void)state;
    const char *env = getenv("CD_DIFF_SCENES");
    run.scenes_requested = env && *env   ? (uint32_t)strtoul(env, NULL, 10)
                           : sanitized() ? SANITIZED_SCENES
                                         : DEFAULT_SCENES;
    cd_pair_list ref = {0}, aabb = {0}, got = {0};
    recorder rec = {0};
    for (uint32_t i = 0; i < run.scenes_requested; ++i) {
        run_scene(i, &ref, &aabb, &got, &rec);
        run.scenes++;
    }
    cd_pair_list_free(&ref);
    cd_pair_list_free(&aabb);
    cd_pair_list_free(&got);
    cd_pair_list_free(&rec.all);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Tests

static void scene_count(void **state)
{
    (void)state;
    uint64_t missed = 0, dup = 0, pairs = 0;
    for (size_t m = 0; m < run.methods; ++m) {
        missed += run.t[m].missed + run.t[m].aabb_missing;
        dup += run.t[m].extra + run.t[m].dup_candidates;
        pairs += run.t[m].pairs_compared;
    }
    print_message("# differential: %u scenes, %llu scene-frames, N up to %llu, %zu methods, %llu pairs compared, "
                  "%llu missed, %llu duplicated or extra\n",
                  run.scenes, (unsigned long long)run.frames, (unsigned long long)run.max_n, run.methods,
                  (unsigned long long)pairs, (unsigned long long)missed, (unsigned long long)dup);
    assert_int_equal(run.scenes, run.scenes_requested);
    if (!getenv("CD_DIFF_SCENES")) assert_true(run.scenes >= (sanitized() ? SANITIZED_SCENES : DEFAULT_SCENES));
    if (sanitized()) print_message("# sanitizer build (%s): %u scenes by default\n", CD_SANITIZE, run.scenes);
    assert_true(run.max_n >= 1500 || run.scenes < 1000);  // the large-N tail was drawn
    assert_true(pairs > 0);
}

static void method_matches_naive(void **state)
{
    const tally *t = *state;
    print_message(
        "# %s: %llu scenes, %llu scene-frames, %llu pairs compared, %llu missed, %llu extra/duplicated pairs, "
        "%llu duplicated candidates, %llu bad candidates, %llu AABB pairs not reported"
        " (first failing scene %lld)\n",
        t->m->name, (unsigned long long)t->scenes, (unsigned long long)t->frames, (unsigned long long)t->pairs_compared,
        (unsigned long long)t->missed, (unsigned long long)t->extra, (unsigned long long)t->dup_candidates,
        (unsigned long long)t->bad_candidates, (unsigned long long)t->aabb_missing, (long long)t->first_bad_scene - 1);
    assert_true(t->frames > 0);
    EXPECT_EQ(t->scenes, (run.scenes + t->stride - 1) / t->stride);
    EXPECT_EQ(t->missed, 0);
    EXPECT_EQ(t->extra, 0);
    EXPECT_EQ(t->dup_candidates, 0);
    EXPECT_EQ(t->bad_candidates, 0);
    EXPECT_EQ(t->aabb_missing, 0);
}

// True when name is an entry of the comma-separated list.
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0) return 1;
        p += n + (end != NULL);
    }
    return 0;
}

int main(void)
{
    // CD_DIFF_METHODS=a,b restricts the run to those methods (debugging one method).
    const char *only = getenv("CD_DIFF_METHODS");
    size_t count;
    const cd_broad_method *const *methods = cd_registry_methods(&count);
    struct CMUnitTest tests[MAX_METHODS + 1];
    size_t k = 0;
    tests[k++] = (struct CMUnitTest){"scenes_run_and_totals", scene_count, NULL, NULL, NULL};
    for (size_t i = 0; i < count && run.methods < MAX_METHODS; ++i) {
        if (strcmp(methods[i]->name, "naive") == 0) continue;  // the reference itself
        if (only && !listed(only, methods[i]->name)) continue;
        tally *t = &run.t[run.methods++];
        t->m = methods[i];
        // Peers wrap other libraries (FCL, Bullet) and some cost 10-30x ours per scene (e.g. a
        // fixed-size sweep-and-prune allocated per create): they see every 4th scene (2 500 by
        // default), cdlab's own methods all of them.
        t->stride = strncmp(methods[i]->description, "peer:", 5) == 0 ? 4 : 1;
        tests[k++] = (struct CMUnitTest){methods[i]->name, method_matches_naive, NULL, NULL, t};
    }
    return _cmocka_run_group_tests("differential", tests, k, sweep, NULL);
}
