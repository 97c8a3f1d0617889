// SPDX-License-Identifier: MIT
// Broad phases against naive on seeded scenes (cd_verify.h says what the scenes hold and what is
// checked per frame).
#include "cd_verify.h"
#include "cd_trace.h"
#ifdef CD_HAVE_SIMULATE
#include "cd_simulate.h"
#endif

#include <math.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>

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
            case 0: *x = 0.0f; break;
            case 1: *x = (float)L; break;
            case 2: *x = (float)-h; break;  // touching a wall from outside
            case 3: *x = (float)(L + h); break;
            case 4: *x = (float)(-cd_rng_range(r, 0.0, 0.6) * L - h); break;  // wholly outside
            default: *x = (float)(L * (1.0 + cd_rng_range(r, 0.0, 0.6)) + h); break;
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
// enclose their cubes and naive's answer stays the geometric one. The boxes that changed join the
// scene's move list, as the contract asks of a hand edit.
static void snap_to_planes(cd_scene *s, uint32_t salt)
{
    uint32_t *changed = cd_alloc((s->count / 3 + 1) * sizeof *changed), m = 0;
    for (uint32_t i = 0; i < s->count; i += 3) {
        cd_aabbf *b = &s->box[i], was = *b;
        int level = (int)((i / 3 + salt) % 9);
        for (int a = 0; a < 3; ++a) {
            float *lo = &b->lo[a], *hi = &b->hi[a];
            double ext = (double)*hi - *lo, p = split_plane(s->world, 0.5 * ((double)*lo + *hi), level);
            if (*hi < p && p - *hi < ext)
                *hi = float_at_least(p);  // p itself whenever the world is short (make_scene)
            else if (*lo > p && *lo - p < ext)
                *lo = -float_at_least(-p);
        }
        if (memcmp(&was, b, sizeof was) != 0) changed[m++] = i;
    }
    cd_scene_mark_moved(s, changed, m);
    cd_free(changed);
}

// Scene idx of seed: seed 0 gives the scenes the differential test always checked.
static cd_rng scene_rng(uint64_t seed, uint32_t idx) { return cd_rng_make(idx + (seed << 32), CD_STREAM_TEST + 4); }

// The scene family of a seeded scene, from a stream of its own (the other draws stay as they
// were): every layout, every edge distribution, still cubes from none to all, and sleep periods
// short enough that cubes fall asleep and wake within the scene's few frames.
static void draw_family(uint64_t seed, uint32_t idx, cd_scene_params *p)
{
    cd_rng r = cd_rng_make(idx + (seed << 32), CD_STREAM_TEST + 5);
    p->layout = (cd_scene_layout)cd_rng_below(&r, 4);
    p->size_dist = (cd_scene_size_dist)cd_rng_below(&r, 3);
    p->clusters = 1 + (uint32_t)cd_rng_below(&r, 16);
    p->cluster_sigma = cd_rng_range(&r, 0.08, 0.3);
    static const double still[] = {0.0, 0.0, 0.5, 1.0};
    uint64_t k = cd_rng_below(&r, 5);
    p->still = k < 4 ? still[k] : cd_rng_uniform(&r);
    p->sleep = cd_rng_below(&r, 2) ? 0.0 : cd_rng_range(&r, 0.5, 4.0);
}

static cd_scene *make_scene(cd_rng *r, uint64_t seed, uint32_t idx)
{
    uint32_t n = draw_count(r, idx);
    cd_scene *s;
    if (n > 0 && cd_rng_below(r, 12) == 0) {
        s = lattice_scene(r, n);
    } else {
        cd_scene_params p = cd_scene_params_default();
        p.cubes = n;
        p.seed = 1000003ULL * idx + 17 + seed * 0x9E3779B97F4A7C15ULL;
        p.density = exp(cd_rng_range(r, log(0.005), log(0.5)));
        static const double ratios[] = {1.0, 1.0, 2.0, 10.0};
        p.size_ratio = ratios[cd_rng_below(r, 4)];
        p.size = cd_rng_range(r, 0.2, 3.0);
        p.speed = p.size * cd_rng_range(r, 0.0, 1.5);  // large steps force relocations
        p.spin = cd_rng_range(r, 0.0, 0.5);
        draw_family(seed, idx, &p);
        s = cd_scene_create(&p);
        s->world = short_world(s->world);
    }
    perturb(r, s);
    cd_scene_refresh(s);
    return s;
}

cd_params cd_verify_broad_params(const cd_broad_method *m, const cd_param_settings *set)
{
    cd_params p = cd_broad_params_default(m);
    char why[200];
    if (cd_params_apply(&p, set, why, sizeof why)) p = cd_broad_params_default(m);  // a plugin's narrower range
    return p;
}

cd_broad *cd_verify_broad_create(const cd_broad_method *m, const cd_param_settings *set, const cd_scene *s)
{
    cd_params p = cd_verify_broad_params(m, set);
    return cd_broad_create(m, &p, 1, s);
}

// Everything drawn for scene idx besides the cubes.
typedef struct scene_plan {
    cd_param_settings params;  // each method takes those it declares
    int frames, snap, reorder;
} scene_plan;

static cd_scene *plan_scene(uint64_t seed, uint32_t idx, scene_plan *sp)
{
    cd_rng r = scene_rng(seed, idx);
    cd_scene *s = make_scene(&r, seed, idx);
    static const double loose[] = {1.0, 1.5, 2.0, 4.0};
    sp->params = (cd_param_settings){0};
    cd_param_settings_put(&sp->params, "depth", "%d", (int)(idx % 9));
    cd_param_settings_put(&sp->params, "looseness", "%.17g", loose[(idx / 9) % 4]);
    cd_param_settings_put(&sp->params, "update", "%s", (idx / 36) % 2 ? "incremental" : "rebuild");
    // Coherent frames (grid_multi) at every moving fraction, not only below its auto threshold.
    cd_param_settings_put(&sp->params, "coherence", "%s", (idx / 3) % 2 ? "always" : "auto");
    // Every axis rows (grid_multi) and sweeps (sap) may run along, not only the one auto picks.
    static const char *const axes[] = {"auto", "x", "y", "z"};
    cd_param_settings_put(&sp->params, "axis", "%s", axes[(idx / 6) % 4]);
    sp->frames = 1 + (int)cd_rng_below(&r, 4);
    sp->snap = cd_rng_below(&r, 4) == 0;
    if (sp->snap) snap_to_planes(s, idx);
    sp->reorder = idx % 3 == 1;  // from idx, so every other draw stays as it was
    s->reorder = sp->reorder ? 1 : 0;
    return s;
}

// Advance scene idx to frame f (> 0) as the check does.
static void advance(cd_scene *s, const scene_plan *sp, uint32_t idx, int f)
{
    if (f == 2 && sp->reorder && idx % 2 == 0) cd_scene_reorder(s);  // two reorders before this frame
    cd_scene_step(s);
    if (sp->snap) snap_to_planes(s, idx + (uint32_t)f);
}

// The frame's poses in cube order as a fresh scene: what its scene CSV reads back as.
static cd_scene *frozen_copy(const cd_scene *s)
{
    cd_scene *c = cd_scene_create_empty(s->count, s->world);
    uint32_t *slot_of = cd_scene_slots(s);
    for (uint32_t id = 0; id < s->count; ++id) {
        uint32_t i = slot_of[id];
        cd_scene_set_pose(c, id, cd_scene_center(s, i), cd_scene_rot(s, i), cd_scene_half(s, i));
    }
    cd_free(slot_of);
    cd_scene_refresh(c);
    return c;
}

cd_scene *cd_verify_broad_scene(uint64_t seed, uint32_t index, int frame, cd_param_settings *p)
{
    scene_plan sp;
    cd_scene *s = plan_scene(seed, index, &sp);
    for (int f = 1; f <= frame; ++f) advance(s, &sp, index, f);
    *p = sp.params;
    cd_scene *c = frozen_copy(s);
    cd_scene_destroy(s);
    return c;
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
// One frame of one method.

typedef struct instance {
    cd_broad *framed;             // driven by cd_broad_frame
    cd_broad *recorded;           // driven through the recording sink
    cd_broad *threaded;           // NULL, or driven by cd_broad_frame on VERIFY_THREADS workers
    cd_broad *threaded_recorded;  // NULL, or (a method with candidates_part) its parts recorded after
                                  // an update on VERIFY_THREADS workers
} instance;

// A narrower SIMD path of a method that chooses none is checked on every NARROWER_PATH_STRIDE-th
// of the scenes its native path sees (cd_verify_tally_set_path).
enum { NARROWER_PATH_STRIDE = 4 };

// Workers of a threaded instance: two, as the machines that run the tests have (more only wait there).
enum { VERIFY_THREADS = 2 };

// One worker's scratch.
typedef struct scratch {
    cd_pair_list ref, aabb, got;
    recorder rec;
} scratch;

static void aabb_pairs(const cd_scene *s, cd_pair_list *out)
{
    out->count = 0;
    for (uint32_t i = 0; i < s->count; ++i)
        for (uint32_t j = i + 1; j < s->count; ++j)
            if (cd_aabbf_overlap(&s->box[i], &s->box[j])) cd_pair_list_push(out, (cd_pair){i, j});
}

// What one frame of one method got wrong.
typedef struct frame_faults {
    uint64_t missed, extra, dups, bad, aabb_missing, bad_moves;
} frame_faults;

static int faulty(const frame_faults *f)
{
    return (f->missed | f->extra | f->dups | f->bad | f->aabb_missing | f->bad_moves) != 0;
}

// The candidate contract on one recording of b's candidates after cd_broad_update: through
// candidates() (by_parts 0), or through candidates_part() for parts 0 .. CD_BROAD_PARTS-1 of
// CD_BROAD_PARTS, the calls every frame of a method with candidates_part makes whatever its thread
// count (frame.c), here one after another. Its duplicates, bad candidates and AABB pairs never a
// candidate go into ff, each the most any recording of the frame showed.
static void record_candidates(cd_broad *b, const cd_scene *s, int by_parts, scratch *w, frame_faults *ff)
{
    recorder *rec = &w->rec;
    cd_pair buf[512];
    rec->all.count = 0;
    rec->bad = 0;
    rec->n = s->count;
    rec->scene = s;
    rec->boxes_tested = b->method->boxes_tested;
    cd_pair_sink sink = {buf, 0, 512, record_flush, rec};
    cd_broad_stats st = {0};
    if (by_parts)
        for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k)
            b->method->candidates_part(b->self, s, k, CD_BROAD_PARTS, &sink, &st);
    else
        b->method->candidates(b->self, s, &sink, &st);
    record_flush(&sink);
    cd_pair_list_sort(&rec->all);
    uint64_t dups = 0;
    for (size_t k = 1; k < rec->all.count; ++k) dups += pair_eq(rec->all.items[k - 1], rec->all.items[k]);
    uint64_t missing = count_missing(&w->aabb, &rec->all);
    if (dups > ff->dups) ff->dups = dups;
    if (rec->bad > ff->bad) ff->bad = rec->bad;
    if (missing > ff->aabb_missing) ff->aabb_missing = missing;
}

// ref: naive's sorted pairs of s; aabb: s's AABB-overlapping slot pairs.
static frame_faults check_frame(instance *in, const cd_scene *s, scratch *w)
{
    frame_faults ff = {0};
    cd_broad_stats st;
    cd_broad_frame(in->framed, s, &w->got, &st, NULL);
    // A plugin's candidates that name no pair of the scene: the frame dropped them unread
    // (cd_broad_check_candidates); the recorder counts the same ones below.
    uint64_t dropped = in->framed->bad.count;
    cd_pair_list_sort(&w->got);
    ff.missed = count_missing(&w->ref, &w->got);
    // Everything in got beyond the matched reference pairs is extra or duplicated.
    ff.extra = w->got.count - (w->ref.count - ff.missed);

    ff.bad_moves = in->framed->bad_moves.bad;

    // The contract on every path a frame may take: candidates(), and candidates_part(), which
    // every frame of a method that has it runs instead (serial too), after an update on one worker
    // and on several.
    cd_broad_update(in->recorded, s);
    record_candidates(in->recorded, s, 0, w, &ff);
    if (in->recorded->method->candidates_part) record_candidates(in->recorded, s, 1, w, &ff);
    if (in->threaded_recorded) {
        cd_broad_update(in->threaded_recorded, s);
        record_candidates(in->threaded_recorded, s, 1, w, &ff);
    }
    if (in->threaded) {  // the same pairs on several workers
        cd_broad_frame(in->threaded, s, &w->got, &st, NULL);
        cd_pair_list_sort(&w->got);
        uint64_t missed = count_missing(&w->ref, &w->got);
        ff.missed += missed;
        ff.extra += w->got.count - (w->ref.count - missed);
        if (in->threaded->bad.count > dropped) dropped = in->threaded->bad.count;
        ff.bad_moves += in->threaded->bad_moves.bad;
    }
    if (dropped > ff.bad) ff.bad = dropped;  // a method that reports other candidates each time
    return ff;
}

// Naive's pairs and the AABB pairs of s into w.
static void reference(cd_broad *naive, const cd_scene *s, scratch *w)
{
    cd_broad_stats st;
    cd_broad_frame(naive, s, &w->ref, &st, NULL);
    cd_pair_list_sort(&w->ref);
    aabb_pairs(s, &w->aabb);
}

// The reference: cdlab's naive, first of its built-in methods.
static const cd_broad_method *naive_method(void)
{
    size_t n;
    const cd_broad_method *m = cd_broad_builtin_methods(&n)[0];
    CD_ASSERT(strcmp(m->name, "naive") == 0);
    return m;
}

// ---------------------------------------------------------------------------------------------
// SIMD paths: the environment switches of cd_cpu_avx2 / cd_cpu_avx512, set around a creation.

typedef struct env_saved {
    char *value[2];
    int set[2];
} env_saved;

static const char *const path_switch[2] = {"CDLAB_NO_AVX512", "CDLAB_NO_AVX2"};

// Select path p for the creations that follow (one thread only: it writes the environment).
static env_saved path_enter(cd_verify_path p)
{
    env_saved e = {{NULL, NULL}, {0, 0}};
    for (int k = 0; p != CD_VERIFY_NATIVE && k < 2; ++k) {
        const char *v = getenv(path_switch[k]);
        e.set[k] = v != NULL;
        e.value[k] = v ? strdup(v) : NULL;
        if (k == 0 || p == CD_VERIFY_NO_AVX2) setenv(path_switch[k], "1", 1);
    }
    return e;
}

static void path_leave(cd_verify_path p, env_saved *e)
{
    for (int k = 0; p != CD_VERIFY_NATIVE && k < 2; ++k) {
        if (e->set[k])
            setenv(path_switch[k], e->value[k], 1);
        else
            unsetenv(path_switch[k]);
        free(e->value[k]);
    }
}

// A peer built into cdlab (a description starting "peer:"): it wraps another library's serial code
// and costs many times ours per scene. A plugin's method is never one, whatever it says of itself:
// it gets the whole check.
static int builtin_peer(const cd_broad_method *m)
{
    return strncmp(m->description, "peer:", 5) == 0 && !cd_broad_candidates_checked(m);
}

// Method m's instances on scene s, created on path p: two serial ones, and with threaded one on
// VERIFY_THREADS workers (for every method but cdlab's peers, which run their library's serial code).
static instance instance_create(const cd_broad_method *m, cd_verify_path p, const cd_param_settings *params,
                                const cd_scene *s, int threaded)
{
    env_saved e = path_enter(p);
    instance in = {cd_verify_broad_create(m, params, s), cd_verify_broad_create(m, params, s), NULL, NULL};
    if (threaded && !builtin_peer(m)) {
        cd_params q = cd_verify_broad_params(m, params);
        in.threaded = cd_broad_create(m, &q, VERIFY_THREADS, s);
        if (m->candidates_part) in.threaded_recorded = cd_broad_create(m, &q, VERIFY_THREADS, s);
    }
    path_leave(p, &e);
    return in;
}

static void instance_destroy(instance *in)
{
    cd_broad_destroy(in->framed);
    cd_broad_destroy(in->recorded);
    cd_broad_destroy(in->threaded);
    cd_broad_destroy(in->threaded_recorded);
}

// What the failing frame s does alone: its poses as a fresh scene, fresh instances.
static frame_faults alone_faults(const cd_broad_method *m, cd_verify_path path, const cd_scene *s,
                                 const cd_param_settings *p)
{
    cd_scene *c = frozen_copy(s);
    scratch w = {0};
    cd_broad *naive = cd_verify_broad_create(naive_method(), p, c);
    reference(naive, c, &w);
    instance in = instance_create(m, path, p, c, 1);
    frame_faults ff = check_frame(&in, c, &w);
    instance_destroy(&in);
    cd_broad_destroy(naive);
    cd_scene_destroy(c);
    cd_pair_list_free(&w.ref);
    cd_pair_list_free(&w.aabb);
    cd_pair_list_free(&w.got);
    cd_pair_list_free(&w.rec.all);
    return ff;
}

// Is the reproducer candidate (idx, loses) better than t's: one that changes the pair set before
// one that does not, then the first scene.
static int better_repro(const cd_verify_tally *t, int64_t idx, int loses)
{
    return t->repro < 0 || loses > t->repro_loses || (loses == t->repro_loses && idx < t->repro);
}

// Try the failing frame f of scene idx as t's reproducer.
static void consider_repro(cd_verify_tally *t, uint32_t idx, int f, const cd_scene *s, const cd_param_settings *p)
{
    // A scene later than t's reproducer can only be better when it changes the pair set and that does not.
    if (!better_repro(t, idx, 1)) return;
    frame_faults ff = alone_faults(t->method, t->path, s, p);
    int loses = (ff.missed | ff.extra) != 0;
    if (faulty(&ff) && better_repro(t, idx, loses)) t->repro = idx, t->repro_frame = f, t->repro_loses = loses;
}

// ---------------------------------------------------------------------------------------------
// The sweep.

int cd_verify_tally_ok(const cd_verify_tally *t)
{
    return t->frames > 0 &&
           (t->missed | t->extra | t->dup_candidates | t->bad_candidates | t->aabb_missing | t->bad_moves) == 0;
}

// Does m choose a SIMD path when created (asks cd_cpu_avx2 / cd_cpu_avx512, as grid_multi's row
// map and lbvh's sort do)? Counted around the method's own create on a small scene, so the frame's
// narrow step, which chooses its path in cd_broad_create, does not count.
static int creation_reads_switches(const cd_broad_method *m)
{
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = 16;
    cd_scene *s = cd_scene_create(&sp);
    cd_params p = cd_broad_params_default(m);
    uint64_t before = cd_cpu_switch_reads();
    void *self = m->create(&p, 1, s);
    int reads = cd_cpu_switch_reads() != before;
    m->destroy(self);
    cd_scene_destroy(s);
    return reads;
}

void cd_verify_tally_set_path(cd_verify_tally *t, cd_verify_path path)
{
    t->path = path;
    // A method that chooses no SIMD path runs its native code on a narrower path too; only the
    // frame's narrow step differs there, and the narrow step's paths have checks of their own
    // (tests/test_narrow.c, posef_batches_match_scalar_test: 409 600 pairs, every batch
    // width and build equal to the scalar test, bit for bit). Such a method's
    // narrower paths see every 4th of its scenes; a method that chooses one sees all of them.
    if (path != CD_VERIFY_NATIVE && !creation_reads_switches(t->method)) t->stride *= NARROWER_PATH_STRIDE;
}

void cd_verify_tallies_init(cd_verify_tally *t, const cd_broad_method *const *m, size_t count)
{
    for (size_t k = 0; k < count; ++k)
        // Peers wrap other libraries (FCL, Bullet) and some cost 10-30x ours per scene (e.g. a
        // fixed-size sweep-and-prune allocated per create): they see every 4th scene. An untested
        // method (all) hands every pair to the narrow step, O(n²) per frame as the reference, about
        // 20x sap's time over the scenes (47 s of CPU against 2.4): it sees every 8th scene. Both
        // for cdlab's own methods only: a plugin's sees every scene, whatever its fields say.
        t[k] = (cd_verify_tally){.method = m[k],
                                 .stride = cd_broad_candidates_checked(m[k]) ? 1
                                           : builtin_peer(m[k])              ? 4
                                           : m[k]->untested                  ? 8
                                                                             : 1,
                                 .first_bad = -1,
                                 .repro = -1};
}

static void run_scene(uint64_t seed, uint32_t idx, cd_verify_tally *t, size_t count, scratch *w, cd_verify_totals *tot)
{
    scene_plan sp;
    cd_scene *s = plan_scene(seed, idx, &sp);
    cd_broad *naive = cd_verify_broad_create(naive_method(), &sp.params, s);
    instance *in = cd_alloc_zero(count ? count : 1, sizeof *in);
    for (size_t m = 0; m < count; ++m) {
        if (idx % t[m].stride) continue;
        in[m] = instance_create(t[m].method, t[m].path, &sp.params, s, idx % 8 == 2);
        t[m].scenes++;
    }
    for (int f = 0; f < sp.frames; ++f) {
        if (f > 0) advance(s, &sp, idx, f);
        reference(naive, s, w);
        for (size_t m = 0; m < count; ++m) {
            if (!in[m].framed) continue;
            frame_faults ff = check_frame(&in[m], s, w);
            cd_verify_tally *tm = &t[m];
            tm->frames++;
            tm->pairs_compared += w->ref.count;
            tm->missed += ff.missed;
            tm->extra += ff.extra;
            tm->dup_candidates += ff.dups;
            tm->bad_candidates += ff.bad;
            tm->aabb_missing += ff.aabb_missing;
            tm->bad_moves += ff.bad_moves;
            if (!faulty(&ff)) continue;
            if (tm->first_bad < 0 || (int64_t)idx < tm->first_bad) tm->first_bad = idx, tm->first_bad_frame = f;
            consider_repro(tm, idx, f, s, &sp.params);
        }
        tot->frames++;
    }
    if (s->count > tot->max_n) tot->max_n = s->count;
    for (size_t m = 0; m < count; ++m) instance_destroy(&in[m]);
    cd_free(in);
    cd_broad_destroy(naive);
    cd_scene_destroy(s);
}

// Fold a worker's tallies into the caller's: sums, and the earliest failures.
static void merge(cd_verify_tally *into, const cd_verify_tally *t)
{
    into->scenes += t->scenes;
    into->frames += t->frames;
    into->pairs_compared += t->pairs_compared;
    into->missed += t->missed;
    into->extra += t->extra;
    into->dup_candidates += t->dup_candidates;
    into->bad_candidates += t->bad_candidates;
    into->aabb_missing += t->aabb_missing;
    into->bad_moves += t->bad_moves;
    if (t->first_bad >= 0 && (into->first_bad < 0 || t->first_bad < into->first_bad))
        into->first_bad = t->first_bad, into->first_bad_frame = t->first_bad_frame;
    if (t->repro >= 0 && better_repro(into, t->repro, t->repro_loses))
        into->repro = t->repro, into->repro_frame = t->repro_frame, into->repro_loses = t->repro_loses;
}

void cd_verify_broad(cd_verify_tally *t, size_t count, const cd_verify_options *o, cd_verify_totals *totals)
{
    int threads = o->threads > 0 ? o->threads : 1;
    for (size_t m = 0; m < count; ++m)
        if (t[m].path != CD_VERIFY_NATIVE) threads = 1;  // path_enter writes the environment
    *totals = (cd_verify_totals){0};
    uint32_t next = o->first, done = 0, todo = o->scenes > o->first ? o->scenes - o->first : 0;
#pragma omp parallel num_threads(threads)
    {
        cd_verify_tally *mine = cd_alloc((count ? count : 1) * sizeof *mine);
        for (size_t m = 0; m < count; ++m) {
            mine[m] = t[m];
            mine[m].scenes = mine[m].frames = mine[m].pairs_compared = 0;
            mine[m].missed = mine[m].extra = mine[m].dup_candidates = mine[m].bad_candidates = mine[m].aabb_missing = 0;
            mine[m].bad_moves = 0;
            mine[m].first_bad = mine[m].repro = -1;
            mine[m].repro_loses = 0;
        }
        cd_verify_totals tot = {0};
        scratch w = {0};
        // Scenes in increasing order, one at a time per worker: a worker's failures come in order.
        for (;;) {
            uint32_t idx;
#pragma omp atomic capture
            idx = next++;
            if (idx >= o->scenes) break;
#ifdef _OPENMP
            int worker = omp_get_thread_num();
#else
            int worker = 0;
#endif
            if (o->scene_mark) o->scene_mark(worker, idx, o->ctx);
            run_scene(o->seed, idx, mine, count, &w, &tot);
            if (o->scene_mark) o->scene_mark(worker, -1, o->ctx);
            uint32_t now;
#pragma omp atomic capture
            now = ++done;
            int master = worker == 0;
            if (o->progress && master) o->progress(now, todo, o->ctx);
        }
#pragma omp critical(cd_verify_merge)
        {
            for (size_t m = 0; m < count; ++m) merge(&t[m], &mine[m]);
            totals->frames += tot.frames;
            if (tot.max_n > totals->max_n) totals->max_n = tot.max_n;
        }
        cd_free(mine);
        cd_pair_list_free(&w.ref);
        cd_pair_list_free(&w.aabb);
        cd_pair_list_free(&w.got);
        cd_pair_list_free(&w.rec.all);
    }
    totals->scenes = todo;
    if (o->progress) o->progress(todo, todo, o->ctx);
}

// ---------------------------------------------------------------------------------------------
// Replayed traces: recorded scenes, Broadmark's files and simulations.

int cd_verify_broad_trace(cd_verify_tally *t, size_t count, const char *path, cd_verify_totals *totals, char *err,
                          size_t err_len)
{
    cd_scene *s;
    cd_trace_replay *r = cd_trace_replay_start(path, 0, &s, err, err_len);
    if (!r) return -1;
    const cd_param_settings none = {0};
    scratch w = {0};
    cd_broad *naive = cd_verify_broad_create(naive_method(), &none, s);
    instance *in = cd_alloc_zero(count ? count : 1, sizeof *in);
    for (size_t m = 0; m < count; ++m) in[m] = instance_create(t[m].method, t[m].path, &none, s, 1), t[m].traces++;
    int rc = 0;
    for (uint64_t f = 0; f < cd_trace_replay_frames(r) && !rc; ++f) {
        if (f > 0 && cd_trace_replay_step(r, s, err, err_len)) {
            rc = -1;
            break;
        }
        reference(naive, s, &w);
        for (size_t m = 0; m < count; ++m) {
            frame_faults ff = check_frame(&in[m], s, &w);
            cd_verify_tally *tm = &t[m];
            tm->frames++;
            tm->pairs_compared += w.ref.count;
            tm->missed += ff.missed;
            tm->extra += ff.extra;
            tm->dup_candidates += ff.dups;
            tm->bad_candidates += ff.bad;
            tm->aabb_missing += ff.aabb_missing;
            tm->bad_moves += ff.bad_moves;
            if (faulty(&ff) && !tm->trace_bad[0])
                snprintf(tm->trace_bad, sizeof tm->trace_bad, "%s, frame %llu", path, (unsigned long long)f);
        }
        totals->frames++;
    }
    if (s->count > totals->max_n) totals->max_n = s->count;
    for (size_t m = 0; m < count; ++m) instance_destroy(&in[m]);
    cd_free(in);
    cd_broad_destroy(naive);
    cd_trace_replay_end(r);
    cd_scene_destroy(s);
    cd_pair_list_free(&w.ref);
    cd_pair_list_free(&w.aabb);
    cd_pair_list_free(&w.got);
    cd_pair_list_free(&w.rec.all);
    return rc;
}

// A seeded scene of family p recorded for `frames` frames into a cdlab trace at path.
static int record_trace(const cd_scene_params *p, int frames, const char *path, char *err, size_t err_len)
{
    cd_scene *s = cd_scene_create(p);
    float *half = cd_alloc(3 * (size_t)s->count * sizeof *half + 1);
    cd_posef *pose = cd_alloc((size_t)s->count * sizeof *pose + 1);
    for (uint32_t i = 0; i < s->count; ++i) memcpy(&half[3 * (size_t)s->ident[i]], s->pose[i].h, sizeof s->pose[i].h);
    cd_trace_writer *tw;
    int rc = cd_trace_writer_open(&tw, path, s->count, half, err, err_len);
    for (int f = 0; f < frames && !rc; ++f) {
        if (f > 0) cd_scene_step(s);
        for (uint32_t i = 0; i < s->count; ++i) pose[s->ident[i]] = s->pose[i];
        rc = cd_trace_writer_frame(tw, pose, err, err_len);
    }
    if (rc)
        cd_trace_writer_abort(tw);
    else
        rc = cd_trace_writer_close(tw, NULL, NULL, err, err_len);
    if (rc == CD_TRACE_REFUSED) cd_trace_refusal_name(err, err_len, path, 0);  // a refusal names no file
    cd_free(pose);
    cd_free(half);
    cd_scene_destroy(s);
    return rc ? -1 : 0;
}

// A seeded scene of family p written for `frames` frames as Broadmark's .aabbs at path (its
// layout: name[128], type[128], int32 objects, frames, 0, 0; world min xyz 0, max xyz 0; per
// frame and object min xyz 0, max xyz 0, float32): the cubes' boxes, without their rotations.
static int write_aabbs(const cd_scene_params *p, int frames, const char *path, char *err, size_t err_len)
{
    cd_scene *s = cd_scene_create(p);
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot write", path);
        cd_scene_destroy(s);
        return -1;
    }
    char names[256] = "cdlab verify";
    memcpy(names + 128, "cubes", 6);
    int32_t counts[4] = {(int32_t)s->count, frames, 0, 0};
    const float lo = (float)(-0.5 * s->world), hi = (float)(1.5 * s->world);  // boxes may cross the walls
    float world[8] = {lo, lo, lo, 0, hi, hi, hi, 0};
    int ok = fwrite(names, 1, 256, f) == 256 && fwrite(counts, 4, 4, f) == 4 && fwrite(world, 4, 8, f) == 8;
    uint32_t *slot = cd_scene_slots(s);
    for (int k = 0; k < frames && ok; ++k) {
        if (k > 0) cd_scene_step(s);
        cd_free(slot);
        slot = cd_scene_slots(s);
        for (uint32_t id = 0; id < s->count && ok; ++id) {
            const cd_aabbf *b = &s->box[slot[id]];
            float v[8] = {b->lo[0], b->lo[1], b->lo[2], 0, b->hi[0], b->hi[1], b->hi[2], 0};
            ok = fwrite(v, 4, 8, f) == 8;
        }
    }
    cd_free(slot);
    cd_scene_destroy(s);
    if (fclose(f) != 0 || !ok) {
        snprintf(err, err_len, "%s: cannot write", path);
        return -1;
    }
    return 0;
}

int cd_verify_broad_traces(cd_verify_tally *t, size_t count, const char *dir, cd_verify_totals *totals, char *err,
                           size_t err_len)
{
    char path[4096];
    int n = 0;
    // A family scene recorded: Pareto-sized clusters, half still, sleeping and waking.
    cd_scene_params p = cd_scene_params_default();
    p.cubes = 700, p.layout = CD_LAYOUT_CLUSTERS, p.size_dist = CD_SIZE_PARETO, p.size_ratio = 8;
    p.clusters = 5, p.cluster_sigma = 0.1, p.still = 0.5, p.sleep = 2, p.speed = 0.4, p.spin = 0.2, p.seed = 7;
    snprintf(path, sizeof path, "%s/clusters.trace", dir);
    if (record_trace(&p, 6, path, err, err_len) || cd_verify_broad_trace(t, count, path, totals, err, err_len))
        return -1;
    n++;
    // Broadmark's file of a ground layer of log-uniform sizes.
    p = cd_scene_params_default();
    p.cubes = 600, p.layout = CD_LAYOUT_GROUND, p.size_dist = CD_SIZE_LOGUNIFORM, p.size_ratio = 4, p.speed = 0.3;
    p.seed = 11;
    snprintf(path, sizeof path, "%s/ground.aabbs", dir);
    if (write_aabbs(&p, 5, path, err, err_len) || cd_verify_broad_trace(t, count, path, totals, err, err_len))
        return -1;
    n++;
#ifdef CD_HAVE_SIMULATE
    // Every simulation, short: a few hundred boxes, 6 frames of 4 steps (the pile still settling).
    for (int k = 0; cd_sim_kind_names[k]; ++k) {
        cd_sim_params sp = {.kind = (cd_sim_kind)k,
                            .objects = 300,
                            .frames = 6,
                            .steps = 4,
                            .size = 1,
                            .size_ratio = k % 2 ? 3 : 1,
                            .density = 0.1,
                            .seed = 5};
        cd_sim_cached c;
        if (cd_sim_bake_cached(&sp, dir, 0, &c, err, err_len) ||
            cd_verify_broad_trace(t, count, c.path, totals, err, err_len))
            return -1;
        n++;
    }
#endif
    return n;
}
