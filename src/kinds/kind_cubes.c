// SPDX-License-Identifier: MIT
// The cubes kind: the standard moving-cube scene under one broad phase. A frame is motion step +
// broad-phase update + candidates + exact narrow tests; frame_ms is the sum of the three phases.
#include "cd_plugins.h"
#include "cd_registry.h"
#include "kind_cubes.h"
#include "cd_core.h"
#include "cd_harness.h"
#include "cd_trace.h"
#ifdef CD_HAVE_SIMULATE
#include "cd_simulate.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cd_kinds_check_method(const char *w)
{
    if (cd_registry_find(w)) return NULL;
    static char known[400];  // built once per message; single-threaded config loading
    size_t n, len = 0;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    len += (size_t)snprintf(known, sizeof known, "a registered method (");
    for (size_t i = 0; i < n && len < sizeof known; ++i)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", m[i]->name);
    if (len < sizeof known) snprintf(known + len, sizeof known - len, ")");
    return known;
}

// [method] method of a cube scene: a registered broad phase whose candidates the cube narrow step
// may test as it does every method's. An untested one (`all`) sends every pair to a hierarchy
// narrow step without a box test; the cube step keeps its box test, the first half of its
// predicate, so there it would be naive under another name.
static const char *check_cube_method(const char *w)
{
    const cd_broad_method *m = cd_registry_find(w);
    if (m && m->untested)
        return "a broad phase for cube scenes (this one sends every pair untested to the mesh hierarchies: kind = "
               "bodies only; on cubes it would be naive, the cube narrow step testing the boxes first)";
    return cd_kinds_check_method(w);
}

int cd_kinds_bad_candidates(const cd_broad *b, const cd_scene *s, const char *noun, char *why, size_t len)
{
    if (!b->bad.count && !b->bad_moves.bad) return 0;
    const cd_plugin_file *f = cd_plugins_method_owner(b->method);
    if (!b->bad.count) {  // the move list of a coherent frame (cd_broad.bad_moves)
        const cd_broad_bad_moves *m = &b->bad_moves;
        char what[160];
        if (m->count == CD_BROAD_MOVES_UNFILLED)
            snprintf(what, sizeof what, "left its move list unfilled");
        else if (m->count > s->count)
            snprintf(what, sizeof what, "filled its move list with %u slots", m->count);
        else
            snprintf(what, sizeof what, "named slot %u in its move list", m->slot);
        snprintf(why, len,
                 "method %s (plugin %s) reported a coherent frame (update_coherent returned 1) but %s: expected "
                 "the scene's move list since its previous update (cd_scene_moves_since), at most the scene's %u "
                 "%s, each slot below %u; the point is refused (cdlab verify --plugin checks a plugin's methods)",
                 b->method->name, f ? f->path : "?", what, s->count, noun, s->count);
        return -1;
    }
    snprintf(why, len,
             "method %s (plugin %s) reported %llu candidate(s) that name no pair of the scene's %u %s, the first "
             "(%u, %u): expected two different ids below %u; the point is refused (cdlab verify --plugin checks "
             "a plugin's methods)",
             b->method->name, f ? f->path : "?", (unsigned long long)b->bad.count, s->count, noun, b->bad.first.a,
             b->bad.first.b, s->count);
    return -1;
}

int cd_kinds_load_plugins(cd_config *c, const cd_config_key *k, char *err, size_t err_len)
{
    char path[4096], why[1200];
    for (size_t i = 0; i < k->count; ++i) {
        cd_config_resolve(c, k->values[i].text, path, sizeof path);
        if (cd_plugins_load(path, c->kinds, why, sizeof why)) {
            cd_config_error(c, k, err, err_len, "[method] plugin: %s", why);
            return -1;
        }
        const cd_plugin_file *f = cd_plugins_find(path);
        if (f && !f->plugin->optimized)
            cd_config_warn(c, k,
                           "[method] plugin %s was built %s: its times are not comparable with cdlab's (build "
                           "it with -Dbuildtype=release or -O2)",
                           f->plugin->name, f->plugin->build);
    }
    return 0;
}

const char *cd_kinds_broad_at(size_t i, const cd_param_spec **params, size_t *count)
{
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    if (i >= n) return NULL;
    *params = m[i]->params;
    *count = m[i]->param_count;
    return m[i]->name;
}

static const cd_method_key broad_key[] = {CD_KINDS_BROAD_KEY};

// [method] before [scene]: the plan varies the first swept key slowest, so each method's whole
// cube sweep runs together (one line per method in the figures).
const cd_key_spec cd_cubes_keys[CD_CUBES_KEY_COUNT] = {
    CD_KINDS_PLUGIN_KEY,
    {"method", "method", CD_KEY_WORD, "naive", 0, 0, NULL, check_cube_method, 1,
     "broad phase by registry name (`cdlab methods`); not all, which is for kind bodies"},
    {"method", "threads", CD_KEY_INT, "1", 1, 1024, NULL, NULL, 1,
     "worker threads of the motion step and the frame (methods with parts run them in parallel)"},
    {"scene", "cubes", CD_KEY_INT, "1000", 0, 100000000, NULL, NULL, 1, "number of cubes N"},
    {"scene", "size", CD_KEY_REAL, "1.0", 1e-9, 1e9, NULL, NULL, 1, "cube edge (smallest edge when size_ratio > 1)"},
    {"scene", "size_ratio", CD_KEY_REAL, "1.0", 1, 1e6, NULL, NULL, 1, "edges uniform in [size, size*size_ratio]"},
    {"scene", "density", CD_KEY_REAL, "0.05", 1e-12, 1, NULL, NULL, 1,
     "volume fraction: world side L = cbrt(N*size^3/density)"},
    {"scene", "speed", CD_KEY_REAL, "0.05", 0, 1e9, NULL, NULL, 1, "velocity components uniform in [-speed, speed]"},
    {"scene", "spin", CD_KEY_REAL, "0.01", 0, 1e3, NULL, NULL, 1,
     "angular velocity components uniform in [-spin, spin] rad/frame"},
    {"scene", "reorder", CD_KEY_INT, "64", 0, 1000000000, NULL, NULL, 1,
     "frames between spatial reorders of the scene's storage (Morton order of the centres, from the "
     "first step on; pairs still name cubes); 0 = keep creation order"},
    {"scene", "layout", CD_KEY_WORD, "uniform", 0, 0, cd_scene_layout_names, NULL, 1,
     "placement family: uniform (centres uniform in the world cube), clusters (Gaussian clusters whose centres "
     "drift), ground (a thin layer over the plane z = 0, moving in it), level (nine large still slabs: floors "
     "and walls, with the other cubes moving between them); docs/design/scene.md#scene-families"},
    {"scene", "size_dist", CD_KEY_WORD, "uniform", 0, 0, cd_scene_size_dist_names, NULL, 1,
     "edge distribution in [size, size*size_ratio]: uniform, loguniform or pareto (bounded, shape 1.5)"},
    {"scene", "clusters", CD_KEY_INT, "8", 1, 4096, NULL, NULL, 1,
     "clusters of layout = clusters (a list without that layout is refused)"},
    {"scene", "cluster_sigma", CD_KEY_REAL, "0.1", 1e-6, 10, NULL, NULL, 1,
     "standard deviation of a cluster per axis, as a fraction of the world side (layout = clusters; a list "
     "without that layout is refused)"},
    {"scene", "moving", CD_KEY_REAL, "1", 0, 1, NULL, NULL, 1,
     "fraction of the cubes that move (the others never move; level slabs never do)"},
    {"scene", "sleep", CD_KEY_REAL, "0", 0, 1e9, NULL, NULL, 1,
     "mean frames a moving cube moves before it rests, and rests before it wakes (exponential, seeded); "
     "0 = moving cubes never rest"},
};
_Static_assert(CD_SCENE_REORDER_DEFAULT == 64, "[scene] reorder's default above is the scene's");

static const char *const clock_words[] = {"wall", "cpu", NULL};
static const char *const source_words[] = {"seeded", "simulate", NULL};
// cd_sim_kind's names, in its order (here too for builds without Bullet, which refuse them).
static const char *const simulation_words[] = {"brownian", "free_fall", "gravity", "pile", NULL};

// Keys of the cubes kind alone (max_fps has its own [search] clock and searches N itself).
static const cd_key_spec measure_keys[] = {
    {"scene", "file", CD_KEY_PATH, "", 0, 0, NULL, NULL, 0,
     "a scene CSV (the header id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz exactly, then one row per cube, ids 0..N-1 in "
     "order: cd_scene_export_csv's layout; `cdlab verify` writes them) measured instead of the seeded "
     "scene, relative to the config's directory: its cubes and world, frozen (no motion step, motion_ms ~0); "
     "the placement and motion keys of [scene] and reorder are then not used (a list of values for one of them "
     "is refused: its points would repeat each other). Its world side (a first line "
     "'# world=W') must be finite, > 0 and within a factor 2^24 of the objects' extent (the float positions' "
     "precision)"},
    {"scene", "trace", CD_KEY_PATH, "", 0, 0, NULL, NULL, 0,
     "a recorded trace (cdlab's format or Broadmark's .aabbs; docs/design/scene.md#traces) replayed instead of the "
     "seeded scene, relative to the config's directory: frame 0 first, the motion step reads the next frame "
     "(motion_ms is what reading it costs); it must hold 1 + warmup + frames frames; the placement and motion "
     "keys of [scene] are then not used (reorder is; a list of values for one of them is refused: its points "
     "would repeat each other)"},
    {"scene", "source", CD_KEY_WORD, "seeded", 0, 0, source_words, NULL, 0,
     "seeded: the scene of the placement and motion keys; simulate: [scene] simulation run by Bullet's rigid-body "
     "dynamics (fixed step, one thread: the same config gives the same bits), baked once per parameters into a "
     "trace under <output>/cache/ (its SHA-256 recorded beside it, checked before use, baked again when it "
     "differs) and replayed like [scene] trace (docs/design/scene.md#simulated-scenes); cubes, size, size_ratio, "
     "density and seed set it up, the other placement and motion keys are not used (a list of values for one of "
     "them is refused: its points would repeat each other)"},
    {"scene", "simulation", CD_KEY_WORD, "pile", 0, 0, simulation_words, NULL, 1,
     "source = simulate: brownian (random impulses, no gravity, closed box), free_fall (spread over the box, "
     "falling onto its floor), gravity (pulled towards the box's centre), pile (a cone of tilted boxes on a wide "
     "floor, settling and falling asleep); a list bakes one trace per simulation (and is refused with source = "
     "seeded, which reads neither this nor sim_steps). The column shows the value whatever source is"},
    {"scene", "sim_steps", CD_KEY_INT, "1", 1, 10000, NULL, NULL, 0,
     "source = simulate: fixed simulation steps of 1/60 s per recorded frame"},
    {"measure", "clock", CD_KEY_WORD, "wall", 0, 0, clock_words, NULL, 0,
     "wall: frames on the wall clock; cpu: the runner thread's CPU time (blind to preemption on a shared "
     "machine; broad/narrow split NA; points with threads > 1 always use the wall clock, with its split)"},
    {"measure", "budget_ms", CD_KEY_REAL, "0", 0, 1e9, NULL, NULL, 0,
     "once a series (same keys but cubes) has a median frame_ms above this, its larger cube counts are "
     "skipped (summary row NA, a warning); 0 = never"},
};

// [scene] trace: every frame readable and sound, and as many frames as a repeat reads.
static int check_trace(const cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *trace = cd_config_key_get(c, "scene", "trace");
    if (!trace->count || !trace->values[0].text[0]) return 0;
    const cd_config_key *file = cd_config_key_get(c, "scene", "file");
    if (file->count && file->values[0].text[0]) {
        cd_config_error(c, trace, err, err_len, "[scene] trace and [scene] file: expected one of the two");
        return -1;
    }
    char path[4096], why[4400];
    cd_config_resolve(c, trace->values[0].text, path, sizeof path);
    cd_trace *t = cd_trace_open(path, 1, why, sizeof why);
    if (!t) {
        cd_config_error(c, trace, err, err_len, "[scene] trace: %s", why);
        return -1;
    }
    uint64_t frames = cd_trace_get_info(t)->frames, need = 0;
    cd_trace_close(t);
    const cd_config_key *w = cd_config_key_get(c, "experiment", "warmup"),
                        *f = cd_config_key_get(c, "experiment", "frames");
    for (size_t i = 0; i < w->count; ++i)
        for (size_t j = 0; j < f->count; ++j)
            if (1 + w->values[i].num + f->values[j].num > (double)need)
                need = (uint64_t)(1 + w->values[i].num + f->values[j].num);
    if (need > frames) {
        cd_config_error(c, trace, err, err_len,
                        "[scene] trace: %s holds %llu frames, a repeat reads 1 + warmup + frames = %llu", path,
                        (unsigned long long)frames, (unsigned long long)need);
        return -1;
    }
    return 0;
}

// [scene] source = simulate: a build with Bullet, and neither a trace nor a scene file beside it.
static int check_simulate(const cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *source = cd_config_key_get(c, "scene", "source");
    if (!source->count || strcmp(source->values[0].text, "simulate") != 0) return 0;
#ifndef CD_HAVE_SIMULATE
    cd_config_error(c, source, err, err_len,
                    "[scene] source = simulate: this cdlab was built without Bullet (meson "
                    "setup -Dpeers=enabled)");
    return -1;
#endif
    const char *other[] = {"trace", "file"};
    for (int k = 0; k < 2; ++k) {
        const cd_config_key *o = cd_config_key_get(c, "scene", other[k]);
        if (o->count && o->values[0].text[0]) {
            cd_config_error(c, source, err, err_len,
                            "[scene] source = simulate and [scene] %s (line %d): expected one "
                            "of the two",
                            other[k], o->line);
            return -1;
        }
    }
    return 0;
}

// A [scene] key that the points' scene does not read, swept: its points would measure the same
// scene and repeat each other (four identical points for cubes = 100, 200 and density = 0.01, 0.5
// beside a trace). A single value is only ignored, as the keys' help says. What each source reads:
// a trace or a scene file its own boxes (a trace's replay follows reorder, a file is frozen); a
// simulation its parameters and the replay's reorder; the seeded scene everything but the
// simulation's keys, and the clusters' keys only where a layout value is clusters. max_fps, whose
// scene is always the seeded one, has no trace, file or source key.
int cd_cubes_check_cluster_sweeps(const cd_config *c, const char *section, char *err, size_t err_len)
{
    const cd_config_key *layout = cd_config_key_get(c, section, "layout");
    for (size_t i = 0; i < layout->count; ++i)
        if (strcmp(layout->values[i].text, "clusters") == 0) return 0;
    char layouts[256];
    cd_config_key_text(layout, layouts, sizeof layouts);
    if (cd_config_refuse_unread_sweep(c, cd_config_key_get(c, section, "clusters"), layouts, err, err_len) ||
        cd_config_refuse_unread_sweep(c, cd_config_key_get(c, section, "cluster_sigma"), layouts, err, err_len))
        return -1;
    return 0;
}

int cd_cubes_check_unread_sweeps(const cd_config *c, char *err, size_t err_len)
{
    static const char *const by_trace[] = {"trace", "reorder", NULL}, *const by_file[] = {"file", NULL},
                             *const by_simulation[] = {"source",     "simulation", "sim_steps", "cubes", "size",
                                                       "size_ratio", "density",    "reorder",   NULL},
                             *const unread_by_seeded[] = {"simulation", "sim_steps", NULL};
    const cd_config_key *trace = cd_config_key_find(c, "scene", "trace"),
                        *file = cd_config_key_find(c, "scene", "file"),
                        *source = cd_config_key_find(c, "scene", "source");
    const char *const *list = by_trace, *what = "[scene] trace";
    int listed_are_read = 1;
    if (file && file->count && file->values[0].text[0]) {
        list = by_file, what = "[scene] file";
    } else if (!(trace && trace->count && trace->values[0].text[0])) {
        if (source && source->count && strcmp(source->values[0].text, "simulate") == 0) {
            list = by_simulation, what = "[scene] source = simulate";
        } else {
            list = unread_by_seeded, what = "the seeded scene", listed_are_read = 0;
            if (cd_cubes_check_cluster_sweeps(c, "scene", err, err_len)) return -1;
        }
    }
    for (size_t k = 0; k < c->key_count; ++k) {
        const cd_config_key *key = &c->keys[k];
        if (strcmp(key->spec->section, "scene") != 0) continue;
        int listed = 0;
        for (const char *const *w = list; *w && !listed; ++w) listed = strcmp(*w, key->spec->name) == 0;
        if (listed != listed_are_read && cd_config_refuse_unread_sweep(c, key, what, err, err_len)) return -1;
    }
    return 0;
}

static int cubes_validate(cd_config *c, char *err, size_t err_len)
{
    if (check_trace(c, err, err_len) || check_simulate(c, err, err_len) ||
        cd_cubes_check_unread_sweeps(c, err, err_len))
        return -1;
    const cd_config_key *file = cd_config_key_get(c, "scene", "file");
    if (file->count) {
        char path[4096], why[4400];
        cd_config_resolve(c, file->values[0].text, path, sizeof path);
        cd_scene *s = cd_scene_import_csv(path, why, sizeof why);
        if (!s) {
            cd_config_error(c, file, err, err_len, "[scene] file: %s", why);
            return -1;
        }
        cd_scene_destroy(s);
    }
    // Workers inherit the runner's binding, so a required single-PU pin would stack every
    // thread on one core and measure nothing but contention.
    const cd_config_key *threads = cd_config_key_get(c, "method", "threads");
    const cd_config_key *pin = cd_config_key_get(c, "run", "pin");
    for (size_t i = 0; i < threads->count; ++i)
        if (threads->values[i].num > 1 && strcmp(pin->values[0].text, "required") == 0) {
            cd_config_error(c, threads, err, err_len,
                            "[method] threads = %s contradicts [run] pin = required (line %d), which binds every "
                            "worker to one PU: expected threads = 1 or pin = optional/off",
                            threads->values[i].text, pin->line);
            return -1;
        }
    return 0;
}

const cd_column cd_cubes_frame_columns[CD_CUBES_FRAME_COLUMN_COUNT] = {
    {"repeat", 0, "repeat number, 0-based"},
    {"frame", 0, "measured frame within the repeat, 0-based (warm-up frames not counted)"},
    {"cubes", 0, "number of cubes measured (a [scene] file's count)"},
    {"frame_ms", 1, "motion_ms + broad_ms + narrow_ms"},
    {"fps", 1, "1000 / frame_ms (collision only)"},
    {"motion_ms", 1, "motion step (move, reflect, rotate, refresh bounds)"},
    {"broad_ms", 1, "broad-phase update and candidate generation"},
    {"narrow_ms", 1, "exact OBB tests on the candidates"},
    {"bv_tests", 0, "bounding-volume tests of the broad phase"},
    {"narrow_tests", 0, "exact narrow tests (\"checks\")"},
    {"pairs", 0, "overlapping pairs found"},
    {"candidates", 0, "candidate pairs handed to the narrow step"},
    {"nodes", 0, "nodes or cells allocated by the broad phase"},
    {"bytes", 0, "bytes held by the broad phase"},
    {"max_per_node", 0, "most objects stored in one node"},
    {"depth_reached", 0, "deepest level holding an object"},
    {"moved", 0, "cubes on this frame's move list: stepped, or pose or box changed (a trace frame)"},
};

static const cd_column summary_columns[] = {
    {"cubes", 0, "number of cubes measured (a [scene] file's count)"},
    {"repeats", 0, "repeats measured (fewer than [experiment] repeats when a run in rounds stopped)"},
    {"frame_ms_median", 1, "median frame_ms over frames x repeats"},
    {"frame_ms_p05", 1, "5th percentile of frame_ms"},
    {"frame_ms_p95", 1, "95th percentile of frame_ms"},
    {"frame_ms_mad", 1, "median absolute deviation of frame_ms"},
    {"frame_ms_cv", 1, "coefficient of variation (stddev/mean) of frame_ms"},
    {"fps_median", 1, "median of per-frame FPS"},
    {"broad_ms_median", 1, "median broad_ms"},
    {"narrow_ms_median", 1, "median narrow_ms"},
    {"bv_tests_mean", 0, "mean bv_tests per frame"},
    {"narrow_tests_mean", 0, "mean narrow_tests per frame"},
    {"pairs_mean", 0, "mean pairs per frame"},
    {"fps_p05", 1, "5th percentile of per-frame FPS"},
    {"fps_p95", 1, "95th percentile of per-frame FPS"},
    {"frame_ms_mean", 1, "mean frame_ms"},
    {"motion_ms_median", 1, "median motion_ms"},
    {"broad_ms_p05", 1, "5th percentile of broad_ms"},
    {"broad_ms_p95", 1, "95th percentile of broad_ms"},
    {"narrow_ms_p05", 1, "5th percentile of narrow_ms"},
    {"narrow_ms_p95", 1, "95th percentile of narrow_ms"},
    {"candidates_mean", 0, "mean candidate pairs per frame"},
    {"nodes_mean", 0, "mean nodes allocated"},
    {"bytes_mean", 0, "mean bytes held by the broad phase"},
    {"max_per_node", 0, "largest max_per_node over all frames"},
    {"depth_reached", 0, "largest depth_reached over all frames"},
    {"moved_mean", 0, "mean cubes on the move list per frame"},
};

cd_cubes_setup cd_cubes_setup_from_point(const cd_point *p)
{
    const cd_broad_method *m = cd_registry_find(cd_point_text(p, "method", "method"));
    CD_ASSERT(m);  // the config check accepted only registered methods
    return (cd_cubes_setup){
        .method = m->name,
        .broad = m,
        .params = cd_point_params(p, "method", "method", m->params, m->param_count),
        .threads = (int)cd_point_num(p, "method", "threads"),
        .cubes = (uint32_t)cd_point_num(p, "scene", "cubes"),
        .size = cd_point_num(p, "scene", "size"),
        .size_ratio = cd_point_num(p, "scene", "size_ratio"),
        .density = cd_point_num(p, "scene", "density"),
        .speed = cd_point_num(p, "scene", "speed"),
        .spin = cd_point_num(p, "scene", "spin"),
        .reorder = (uint32_t)cd_point_num(p, "scene", "reorder"),
        .layout = cd_point_text(p, "scene", "layout"),
        .size_dist = cd_point_text(p, "scene", "size_dist"),
        .clusters = (uint32_t)cd_point_num(p, "scene", "clusters"),
        .cluster_sigma = cd_point_num(p, "scene", "cluster_sigma"),
        .moving = cd_point_num(p, "scene", "moving"),
        .sleep = cd_point_num(p, "scene", "sleep"),
        .seed = (uint64_t)cd_point_num(p, "experiment", "seed"),
        .warmup = (uint32_t)cd_point_num(p, "experiment", "warmup"),
        .frames = (uint32_t)cd_point_num(p, "experiment", "frames"),
        .repeats = (uint32_t)cd_point_num(p, "experiment", "repeats"),
    };
}

// A point's samples over its repeats, kept between repeats so that they can run back to back
// (cd_cubes_measure) or one per round ([experiment] order = rounds).
typedef struct cubes_samples {
    double *frame_ms, *fps, *motion, *broad, *narrow;  // frames × repeats, filled in repeat order
    size_t count;                                      // frames measured so far
    uint32_t repeats_done;
    cd_cubes_result sums;  // the means' sums and the maxima, until cubes_samples_finish
} cubes_samples;

static void cubes_samples_init(cubes_samples *m, const cd_cubes_setup *s)
{
    size_t n = (size_t)s->frames * s->repeats;
    *m = (cubes_samples){0};
    m->frame_ms = cd_alloc(n * sizeof *m->frame_ms);
    m->fps = cd_alloc(n * sizeof *m->fps);
    m->motion = cd_alloc(n * sizeof *m->motion);
    m->broad = cd_alloc(n * sizeof *m->broad);
    m->narrow = cd_alloc(n * sizeof *m->narrow);
}

int cd_cubes_step(cd_cubes_motion *m, cd_scene *s, int threads, char *err, size_t err_len)
{
    if (m->replay) return cd_trace_replay_step(m->replay, s, err, err_len);
    if (!m->frozen) cd_scene_step_threads(s, threads);
    return 0;
}

void cd_cubes_motion_end(cd_cubes_motion *m)
{
    cd_trace_replay_end(m->replay);
    m->replay = NULL;
}

// The scene of setup s (seeded, read from [scene] file or replayed from [scene] trace) and its
// broad phase, before any frame. 0, or -1 with why the scene file or trace cannot be read.
static int cubes_start(const cd_cubes_setup *s, cd_scene **scene, cd_broad **broad, cd_cubes_motion *motion, char *why,
                       size_t why_len)
{
    cd_scene_params sp = {.cubes = s->cubes,
                          .size = s->size,
                          .size_ratio = s->size_ratio,
                          .density = s->density,
                          .speed = s->speed,
                          .spin = s->spin,
                          .seed = s->seed,
                          .reorder = s->reorder,
                          .layout = (cd_scene_layout)cd_scene_name_index(cd_scene_layout_names, s->layout),
                          .size_dist = (cd_scene_size_dist)cd_scene_name_index(cd_scene_size_dist_names, s->size_dist),
                          .clusters = s->clusters,
                          .cluster_sigma = s->cluster_sigma,
                          .still = 1.0 - s->moving,
                          .sleep = s->sleep};
    *broad = NULL;
    *motion = (cd_cubes_motion){.frozen = s->scene_file[0] != '\0'};
    if (s->trace_file[0])
        motion->replay = cd_trace_replay_start(s->trace_file, s->reorder, scene, why, why_len);
    else
        *scene = s->scene_file[0] ? cd_scene_import_csv(s->scene_file, why, why_len) : cd_scene_create(&sp);
    if (!*scene) return -1;
    *broad = cd_broad_create(s->broad, &s->params, s->threads, *scene);
    return 0;
}

#ifdef CD_HAVE_SIMULATE
// The simulation of [scene] source = simulate for setup s: 1 + warmup + frames frames, replayed by
// every repeat.
static cd_sim_params sim_params(const cd_cubes_setup *s)
{
    return (cd_sim_params){.kind = (cd_sim_kind)cd_scene_name_index(simulation_words, s->simulation),
                           .objects = s->cubes,
                           .frames = 1 + (uint64_t)s->warmup + s->frames,
                           .steps = s->sim_steps,
                           .size = s->size,
                           .size_ratio = s->size_ratio,
                           .density = s->density,
                           .seed = s->seed};
}
#endif

// What simulate_trace found in the cache or baked: the trace's SHA-256 and size, and why the trace
// that was in the cache was refused and baked again ("" when it was not).
typedef struct sim_trace {
    char sha256[65];
    uint64_t bytes;
    char rebaked[4400];
} sim_trace;

// [scene] source = simulate: bake s's simulation into root/cache/ unless it is there already and
// whole (one bake per parameters: 1 + warmup + frames frames, replayed by every repeat; its
// SHA-256 checked against the one recorded when it was baked), and set s->trace_file to it, *t to
// what was found. With cubes = 0 there is nothing to simulate: s->trace_file stays empty and the
// point measures the empty scene, as source = seeded does. 0, or -1 with why.
static int simulate_trace(cd_cubes_setup *s, const char *root, int progress, sim_trace *t, char *why, size_t why_len)
{
    memset(t, 0, sizeof *t);
    if (s->cubes == 0) return 0;
#ifdef CD_HAVE_SIMULATE
    cd_sim_params sp = sim_params(s);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/cache", root);
    (void)mkdir(root, 0777);  // cd_sim_bake_cached says why when dir cannot be made
    cd_sim_cached c;
    if (cd_sim_bake_cached(&sp, dir, progress, &c, why, why_len)) return -1;
    snprintf(s->trace_file, sizeof s->trace_file, "%s", c.path);
    memcpy(t->sha256, c.sha256, sizeof t->sha256);
    t->bytes = c.bytes;
    snprintf(t->rebaked, sizeof t->rebaked, "%s", c.rebaked);
    return 0;
#else
    (void)root, (void)progress;
    snprintf(why, why_len, "this cdlab was built without Bullet");
    return -1;
#endif
}

// The results root of run r, whose cache/ holds the simulated scenes' traces.
static const char *run_results_root(const cd_run *r)
{
    const char *root = cd_run_output_root(r);
    return root[0] ? root : ".";
}

// s itself, or with source = simulate s in *baked with its simulation's trace under the run's
// <output>/cache/ (baked now when missing, baked again with a warning when refused), recorded as
// an input the run derived (meta.ini [inputs]). NULL after cd_run_fail.
static const cd_cubes_setup *simulated(cd_run *r, const cd_cubes_setup *s, cd_cubes_setup *baked)
{
    if (!s->simulate) return s;
    char why[4400];
    *baked = *s;
    sim_trace t;
    if (simulate_trace(baked, run_results_root(r), !cd_run_quiet(r), &t, why, sizeof why)) {
        cd_run_fail(r, "[scene] source = simulate: %s", why);
        return NULL;
    }
    if (t.rebaked[0]) cd_run_warn(r, "[scene] source = simulate: %s; baked it again", t.rebaked);
    if (baked->trace_file[0] &&
        cd_run_derived_input(r, baked->trace_file, t.sha256, t.bytes, "simulate", why, sizeof why)) {
        cd_run_fail(r, "[scene] source = simulate: %s", why);
        return NULL;
    }
    return baked;
}

// One repeat of the cubes kind as cd_run_frames drives it: the scene, its broad phase and what
// the frame in flight measured.
typedef struct cubes_repeat {
    const cd_cubes_setup *s;
    uint32_t rep;
    cubes_samples *m;
    cd_scene *scene;
    cd_broad *b;
    cd_cubes_motion motion;
    cd_pair_list pairs;
    uint64_t (*clock_ns)(void);  // the loop's clock, for the motion step's share
    uint64_t motion_ns;
    cd_broad_stats st;
    cd_frame_times t;
    int step_failed;
    int bad_candidates;  // a plugin's method named objects the scene has not (cd_kinds_bad_candidates)
    char why[4400];
} cubes_repeat;

// One frame: the motion step (timed on its own), then the broad phase and the narrow step.
static int cubes_frame(void *ctx, int64_t f)
{
    cubes_repeat *u = ctx;
    uint64_t t0 = f >= 0 ? u->clock_ns() : 0;
    if (cd_cubes_step(&u->motion, u->scene, u->s->threads, u->why, sizeof u->why)) return u->step_failed = 1, -1;
    if (f >= 0) u->motion_ns = u->clock_ns() - t0;
    cd_broad_frame(u->b, u->scene, &u->pairs, &u->st, &u->t);
    if (cd_kinds_bad_candidates(u->b, u->scene, "cubes", u->why, sizeof u->why)) return u->bad_candidates = 1, -1;
    return 0;
}

// Measured frame f done: its samples, the sums and its frames.csv row.
static int cubes_frame_done(cd_run *r, void *ctx, uint32_t f, uint64_t ns)
{
    cubes_repeat *u = ctx;
    const cd_cubes_setup *s = u->s;
    cubes_samples *m = u->m;
    const cd_broad_stats st = u->st;
    size_t k = m->count++;
    int frozen = u->motion.frozen;
    m->motion[k] = (double)u->motion_ns * 1e-6;
    // The frame driver splits broad/narrow on the wall clock only.
    m->broad[k] = s->cpu_clock ? NAN : u->t.broad_ms;
    m->narrow[k] = s->cpu_clock ? NAN : u->t.narrow_ms;
    m->frame_ms[k] = s->cpu_clock ? (double)ns * 1e-6 : m->motion[k] + m->broad[k] + m->narrow[k];
    m->fps[k] = m->frame_ms[k] > 0 ? 1000.0 / m->frame_ms[k] : NAN;
    cd_cubes_result *res = &m->sums;
    res->bv_tests_mean += (double)st.bv_tests;
    res->candidates_mean += (double)st.candidates;
    res->narrow_tests_mean += (double)st.narrow_tests;
    res->pairs_mean += (double)st.pairs;
    res->moved_mean += frozen ? 0.0 : (double)u->scene->moved;
    res->nodes_mean += (double)st.nodes;
    res->bytes_mean += (double)st.bytes;
    if (st.max_per_node > res->max_per_node) res->max_per_node = st.max_per_node;
    if (st.depth_reached > res->depth_reached) res->depth_reached = st.depth_reached;
    cd_cell row[] = {
        cd_cell_int(u->rep),
        cd_cell_int(f),
        cd_cell_int(s->cubes),
        cd_cell_real(m->frame_ms[k]),
        cd_cell_real(m->fps[k]),
        cd_cell_real(m->motion[k]),
        cd_cell_real(m->broad[k]),
        cd_cell_real(m->narrow[k]),  // NaN (cpu clock) → NA
        cd_cell_int((int64_t)st.bv_tests),
        cd_cell_int((int64_t)st.narrow_tests),
        cd_cell_int((int64_t)st.pairs),
        cd_cell_int((int64_t)st.candidates),
        cd_cell_int((int64_t)st.nodes),
        cd_cell_int((int64_t)st.bytes),
        cd_cell_int((int64_t)st.max_per_node),
        cd_cell_int((int64_t)st.depth_reached),
        cd_cell_int(frozen ? 0 : u->scene->moved),
    };
    _Static_assert(sizeof row / sizeof row[0] == sizeof cd_cubes_frame_columns / sizeof cd_cubes_frame_columns[0],
                   "one cell per frame column");
    cd_run_frame_row(r, row);
    return 0;
}

// Repeat rep of setup s: a fresh scene from the seed, then its frames through cd_run_frames
// (warm-up, then s->frames measured frames appended to m, frames.csv rows as they come).
static int cubes_measure_repeat(cd_run *r, const cd_cubes_setup *s, uint32_t rep, cubes_samples *m)
{
    const char *source = s->simulate        ? "[scene] source = simulate"
                         : s->trace_file[0] ? "[scene] trace"
                                            : "[scene] file";
    cd_cubes_setup baked;
    if (!(s = simulated(r, s, &baked))) return -1;
    // cpu_clock is 0 with threads > 1 (cubes_point_setup, max_fps's probes): a thread's CPU clock
    // misses the workers' time, so parallel frames are timed on the wall.
    int cpu = s->cpu_clock;
    cubes_repeat u = {.s = s, .rep = rep, .m = m, .clock_ns = cpu ? cd_thread_cpu_ns : cd_now_ns};
    if (cubes_start(s, &u.scene, &u.b, &u.motion, u.why, sizeof u.why)) {
        cd_run_fail(r, "%s: %s", source, u.why);
        return -1;
    }
    cd_frames fr = {.warmup = s->warmup,
                    .frames = s->frames,
                    .threads = s->threads,
                    .cpu_clock = cpu,
                    .ctx = &u,
                    .frame = cubes_frame,
                    .done = cubes_frame_done};
    cd_run_frames(r, &fr);
    cd_broad_destroy(u.b);
    cd_scene_destroy(u.scene);
    cd_cubes_motion_end(&u.motion);
    cd_pair_list_free(&u.pairs);
    if (u.step_failed) {  // the trace ended early or holds a bad frame: the point fails
        cd_run_fail(r, "%s: %s", source, u.why);
        return -1;
    }
    if (u.bad_candidates) {
        cd_run_fail(r, "%s", u.why);
        return -1;
    }
    m->repeats_done++;
    return 0;
}

// The statistics of every frame measured so far; frees the samples.
static void cubes_samples_finish(cubes_samples *m, const cd_cubes_setup *s, cd_cubes_result *res)
{
    size_t n = m->count;
    *res = m->sums;
    double dn = n ? (double)n : 1.0;
    res->bv_tests_mean /= dn;
    res->candidates_mean /= dn;
    res->narrow_tests_mean /= dn;
    res->pairs_mean /= dn;
    res->moved_mean /= dn;
    res->nodes_mean /= dn;
    res->bytes_mean /= dn;
    res->frame_ms = cd_stats_compute(m->frame_ms, n);
    res->fps = cd_stats_compute(m->fps, n);
    res->motion_ms = cd_stats_compute(m->motion, n);
    if (s->cpu_clock) {
        res->broad_ms.median = res->narrow_ms.median = NAN;
    } else {
        res->broad_ms = cd_stats_compute(m->broad, n);
        res->narrow_ms = cd_stats_compute(m->narrow, n);
    }
    cd_free(m->frame_ms);
    cd_free(m->fps);
    cd_free(m->motion);
    cd_free(m->broad);
    cd_free(m->narrow);
}

int cd_cubes_measure(cd_run *r, const cd_cubes_setup *s, cd_cubes_result *res)
{
    cubes_samples m;
    cubes_samples_init(&m, s);
    int rc = 0;
    for (uint32_t rep = 0; rep < s->repeats && rc == 0; ++rep) rc = cubes_measure_repeat(r, s, rep, &m);
    cubes_samples_finish(&m, s, res);
    return rc;
}

// A point's series: the points whose every key but [scene] cubes has the same value (the runner
// keeps the notes of series over budget). The method and a 64-bit FNV-1a hash of every other
// key's value at p, as its CSV cell shows it (a method's parameters too), so that no key can be
// forgotten: a key left out made two series one (simulation = brownian, pile: pile's large
// points were skipped on brownian's time).
static void series_key(const cd_point *p, char *buf, size_t len)
{
    const cd_config *c = p->cfg;
    uint64_t h = CD_FNV1A_BASIS;
    for (size_t k = 0; k < c->key_count; ++k) {
        const cd_key_spec *spec = c->keys[k].spec;
        if (strcmp(spec->section, "scene") == 0 && strcmp(spec->name, "cubes") == 0) continue;
        char item[600];
        snprintf(item, sizeof item, "%s.%s=%s;", spec->section, spec->name, cd_point_key_text(p, k));
        h = cd_fnv1a(h, item);
    }
    snprintf(buf, len, "%s|%016llx", cd_point_text(p, "method", "method"), (unsigned long long)h);
}

// Why a point is skipped: its series went over budget at a smaller cube count.
typedef struct over_budget {
    int skip;
    double cubes, frame_ms;
} over_budget;

static cd_cubes_setup cubes_point_setup(const cd_point *p)
{
    cd_cubes_setup s = cd_cubes_setup_from_point(p);
    // A thread's CPU clock misses the workers' time, so parallel frames are timed on the wall,
    // with the wall clock's broad/narrow split.
    s.cpu_clock = strcmp(cd_point_text(p, "measure", "clock"), "cpu") == 0 && s.threads <= 1;
    const char *file = cd_point_text(p, "scene", "file");
    if (file[0]) {
        char why[4400];
        cd_config_resolve(p->cfg, file, s.scene_file, sizeof s.scene_file);
        cd_scene *scene = cd_scene_import_csv(s.scene_file, why, sizeof why);
        s.cubes = scene ? scene->count : 0;  // read at the config check; cubes_measure_repeat reports a change
        s.reorder = 0;
        cd_scene_destroy(scene);
    }
    s.simulate = strcmp(cd_point_text(p, "scene", "source"), "simulate") == 0;
    s.simulation = cd_point_text(p, "scene", "simulation");
    s.sim_steps = (uint32_t)cd_point_num(p, "scene", "sim_steps");
    const char *trace = cd_point_text(p, "scene", "trace");
    if (trace[0]) {
        char why[4400];
        cd_config_resolve(p->cfg, trace, s.trace_file, sizeof s.trace_file);
        cd_trace *t = cd_trace_open(s.trace_file, 0, why, sizeof why);
        s.cubes = t ? (uint32_t)cd_trace_get_info(t)->objects : 0;  // checked at the config check
        cd_trace_close(t);
    }
    return s;
}

int cd_cubes_point_start(const cd_point *p, const char *results_root, cd_scene **scene, cd_broad **broad,
                         cd_cubes_motion *motion, char *err, size_t err_len)
{
    cd_cubes_setup s = cubes_point_setup(p);
    if (s.simulate) {
        sim_trace t;
        if (simulate_trace(&s, results_root[0] ? results_root : ".", 1, &t, err, err_len)) return -1;
        if (t.rebaked[0]) fprintf(stderr, "cdlab: warning: [scene] source = simulate: %s; baked it again\n", t.rebaked);
    }
    return cubes_start(&s, scene, broad, motion, err, err_len);
}

// Whether point p is skipped (a smaller cube count of its series took longer than budget_ms).
static over_budget cubes_skip_reason(const cd_run *r, const cd_point *p, const cd_cubes_setup *s)
{
    over_budget o = {0};
    if (cd_point_num(p, "measure", "budget_ms") > 0) {
        char key[256];
        series_key(p, key, sizeof key);
        o.skip = cd_run_series_noted(r, key, s->cubes, &o.cubes, &o.frame_ms);
    }
    return o;
}

static void cubes_skipped_row(cd_run *r, const cd_point *p, const cd_cubes_setup *s, over_budget over)
{
    cd_run_warn(r, "point %zu skipped: %s took %.3g ms per frame at %.0f cubes, over budget_ms %g", p->index, s->method,
                over.frame_ms, over.cubes, cd_point_num(p, "measure", "budget_ms"));
    cd_row row = cd_run_summary_begin(r);
    cd_row_set(&row, "cubes", cd_cell_int(s->cubes));
    cd_row_set_rest_na(&row);
    cd_run_summary_end(r, &row);
}

// 1 when the median frame (over the frames measured so far) is over budget_ms; its series then
// skips its larger cube counts.
static int cubes_check_budget(cd_run *r, const cd_point *p, const cd_cubes_setup *s, double frame_ms_median)
{
    double budget = cd_point_num(p, "measure", "budget_ms");
    if (!(budget > 0 && frame_ms_median > budget)) return 0;
    char key[256];
    series_key(p, key, sizeof key);
    cd_run_note_series(r, key, s->cubes, frame_ms_median);
    return 1;
}

// The summary row of a measured point (repeats: how many repeats it measured).
static void cubes_summary_row(cd_run *r, const cd_point *p, const cd_cubes_setup *s, uint32_t repeats,
                              const cd_cubes_result *m)
{
    cd_run_warn_noisy(r, p, "frame_ms", m->frame_ms.cv);
    cd_row row = cd_run_summary_begin(r);
    cd_row_set(&row, "cubes", cd_cell_int(s->cubes));
    cd_row_set(&row, "repeats", cd_cell_int(repeats));
    cd_row_set_stats(&row, "frame_ms", &m->frame_ms);  // median, p05, p95, mad, cv, mean
    cd_row_set_stats(&row, "fps", &m->fps);            // median, p05, p95
    cd_row_set_stats(&row, "motion_ms", &m->motion_ms);
    cd_row_set_stats(&row, "broad_ms", &m->broad_ms);  // NA on the CPU clock
    cd_row_set_stats(&row, "narrow_ms", &m->narrow_ms);
    cd_row_set(&row, "bv_tests_mean", cd_cell_real(m->bv_tests_mean));
    cd_row_set(&row, "narrow_tests_mean", cd_cell_real(m->narrow_tests_mean));
    cd_row_set(&row, "pairs_mean", cd_cell_real(m->pairs_mean));
    cd_row_set(&row, "candidates_mean", cd_cell_real(m->candidates_mean));
    cd_row_set(&row, "nodes_mean", cd_cell_real(m->nodes_mean));
    cd_row_set(&row, "bytes_mean", cd_cell_real(m->bytes_mean));
    cd_row_set(&row, "max_per_node", cd_cell_int((int64_t)m->max_per_node));
    cd_row_set(&row, "depth_reached", cd_cell_int((int64_t)m->depth_reached));
    cd_row_set(&row, "moved_mean", cd_cell_real(m->moved_mean));
    cd_run_summary_end(r, &row);
}

static int cubes_run_point(cd_run *r, const cd_point *p)
{
    cd_cubes_setup s = cubes_point_setup(p);
    over_budget over = cubes_skip_reason(r, p, &s);
    if (over.skip) {
        cubes_skipped_row(r, p, &s, over);
        return 0;
    }
    cd_cubes_result m;
    if (cd_cubes_measure(r, &s, &m)) return -1;
    cubes_check_budget(r, p, &s, m.frame_ms.median);
    cubes_summary_row(r, p, &s, s.repeats, &m);
    return 0;
}

// A point between rounds ([experiment] order = rounds).
typedef struct cubes_point {
    cd_cubes_setup setup;
    over_budget over;  // cubes_skip_reason at round 0: skips every round
    int slow;          // over budget_ms in round 0: no later rounds
    cubes_samples samples;
} cubes_point;

static int cubes_run_round(cd_run *r, const cd_point *p, uint32_t round, void **state)
{
    cubes_point *cp = *state;
    if (!cp) {
        cp = *state = cd_alloc_zero(1, sizeof *cp);
        cp->setup = cubes_point_setup(p);
        cp->over = cubes_skip_reason(r, p, &cp->setup);
        if (!cp->over.skip) cubes_samples_init(&cp->samples, &cp->setup);
    }
    if (cp->over.skip || cp->slow) return 0;
    if (cubes_measure_repeat(r, &cp->setup, round, &cp->samples)) return -1;
    // Round 0 runs the points in plan order, as order = points does, so the budget decides on the
    // first repeat: a larger cube count of the series comes later in the same round. A point over
    // budget measures no more rounds: it is the slow end of its series, and one repeat of it
    // already spans many minutes of the machine's drift.
    if (round == 0)
        cp->slow =
            cubes_check_budget(r, p, &cp->setup, cd_stats_compute(cp->samples.frame_ms, cp->samples.count).median);
    return 0;
}

static int cubes_finish_point(cd_run *r, const cd_point *p, void *state, uint32_t rounds)
{
    cubes_point *cp = state;
    if (rounds == 0) {
        if (!cp->over.skip) cubes_samples_finish(&cp->samples, &cp->setup, &(cd_cubes_result){0});
    } else if (cp->over.skip) {
        cubes_skipped_row(r, p, &cp->setup, cp->over);
    } else {
        cd_cubes_result m;
        uint32_t repeats = cp->samples.repeats_done;
        cubes_samples_finish(&cp->samples, &cp->setup, &m);
        cubes_summary_row(r, p, &cp->setup, repeats, &m);
    }
    cd_free(cp);
    return 0;
}

// The sample arrays of a point between rounds, in the order of cubes_samples.
enum { SAMPLE_ARRAYS = 5 };

static void get_sample_arrays(const cubes_samples *m, double *a[SAMPLE_ARRAYS])
{
    a[0] = m->frame_ms, a[1] = m->fps, a[2] = m->motion, a[3] = m->broad, a[4] = m->narrow;
}

static void set_sample_arrays(cubes_samples *m, double *const a[SAMPLE_ARRAYS])
{
    m->frame_ms = a[0], m->fps = a[1], m->motion = a[2], m->broad = a[3], m->narrow = a[4];
}

// A cubes_point as one block: the struct, then its five sample arrays (frames × repeats each),
// for rounds run in child processes. The setup's strings point into the configuration, which the
// child and the runner share from before the fork.
static void *cubes_pack_state(const void *state, size_t *bytes)
{
    const cubes_point *cp = state;
    size_t n = cp->over.skip ? 0 : (size_t)cp->setup.frames * cp->setup.repeats;
    *bytes = sizeof *cp + SAMPLE_ARRAYS * n * sizeof(double);
    char *block = cd_alloc(*bytes);
    memcpy(block, cp, sizeof *cp);
    double *a[SAMPLE_ARRAYS];
    get_sample_arrays(&cp->samples, a);
    for (int k = 0; n && k < SAMPLE_ARRAYS; ++k)
        memcpy(block + sizeof *cp + k * n * sizeof(double), a[k], n * sizeof(double));
    return block;
}

static void *cubes_unpack_state(void *old, const void *block, size_t bytes)
{
    cubes_point *cp = old ? old : cd_alloc_zero(1, sizeof *cp);
    double *a[SAMPLE_ARRAYS] = {NULL};
    if (old && !cp->over.skip) get_sample_arrays(&cp->samples, a);  // the runner's arrays, reused
    memcpy(cp, block, sizeof *cp);                                  // the child's array pointers are replaced below
    size_t n = cp->over.skip ? 0 : (size_t)cp->setup.frames * cp->setup.repeats;
    CD_ASSERT(bytes == sizeof *cp + SAMPLE_ARRAYS * n * sizeof(double));
    for (int k = 0; n && k < SAMPLE_ARRAYS; ++k) {
        if (!a[k]) a[k] = cd_alloc(n * sizeof(double));
        memcpy(a[k], (const char *)block + sizeof *cp + k * n * sizeof(double), n * sizeof(double));
    }
    set_sample_arrays(&cp->samples, a);
    return cp;
}

// Shards: a frame's work grows with the cube count (the balance needs no more than that).
static double cubes_cost(const cd_point *p) { return cd_point_num(p, "scene", "cubes"); }

// cd_kind.derived_file: with source = simulate, the trace the point replays, baked into
// root/cache/ before it measures unless a whole one is there (a trace and its SHA-256 sidecar;
// --dry-run digests nothing).
static double cubes_derived_file(const cd_point *p, const char *root, char *path, size_t path_len, int *cached,
                                 char *what, size_t what_len)
{
#ifdef CD_HAVE_SIMULATE
    if (strcmp(cd_point_text(p, "scene", "source"), "simulate") != 0) return 0;
    cd_cubes_setup s = cubes_point_setup(p);
    if (s.cubes == 0) return 0;  // the empty scene: nothing to simulate
    cd_sim_params sp = sim_params(&s);
    char key[17], side[4200];
    cd_sim_cache_key(&sp, key);
    snprintf(path, path_len, "%s/cache/simulate-%s.trace", root, key);
    snprintf(side, sizeof side, "%s.sha256", path);
    uint64_t bytes = cd_trace_file_bytes(sp.objects, sp.frames);
    struct stat st;
    *cached = stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == bytes && access(side, R_OK) == 0;
    snprintf(what, what_len, "baked by simulation %s: %u boxes, %llu frames, sim_steps %u", s.simulation, sp.objects,
             (unsigned long long)sp.frames, sp.steps);
    return (double)bytes;
#else
    (void)p, (void)root, (void)path, (void)path_len, (void)cached, (void)what, (void)what_len;
    return 0;  // the config check refuses source = simulate
#endif
}

// cd_kind.before_fork: with source = simulate, the cached trace checked in the runner, so that the
// point's processes (one per round) find it checked instead of each digesting it (a 10 000-box
// trace of 21 frames is 6 MB, 20-25 ms of SHA-256 per process; 60 MB at 100 000 boxes).
static void cubes_before_fork(const cd_run *r, const cd_point *p)
{
#ifdef CD_HAVE_SIMULATE
    if (strcmp(cd_point_text(p, "scene", "source"), "simulate") != 0) return;
    cd_cubes_setup s = cubes_point_setup(p);
    if (s.cubes == 0) return;
    cd_sim_params sp = sim_params(&s);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/cache", run_results_root(r));
    cd_sim_cache_warm(&sp, dir);
#else
    (void)r, (void)p;
#endif
}

// With a budget, a point is skipped when a smaller cube count of its series went over it, which
// only the run that measured that count knows: a series stays in one shard.
static void cubes_chain(const cd_point *p, char *buf, size_t len)
{
    if (cd_point_num(p, "measure", "budget_ms") <= 0) return;
    series_key(p, buf, len);
}

const cd_kind cd_kind_cubes = {
    .name = "cubes",
    .description = "moving oriented cubes under one broad phase: frame times, counters, pairs",
    .keys = measure_keys,
    .key_count = sizeof measure_keys / sizeof measure_keys[0],
    .more_keys = cd_cubes_keys,
    .more_key_count = CD_CUBES_KEY_COUNT,
    .figures = "fps_vs_cubes, frame_ms_series",
    .all_figures = "fps_vs_cubes, frame_ms_series, frame_ms_vs_cubes, frame_ms_vs_moving, frame_ms_by_workload, "
                   "octree_checks, octree_depth, octree_looseness, octree_stress",
    .validate = cubes_validate,
    CD_KINDS_PLUGIN_PRELOAD,
    .method_keys = broad_key,
    .method_key_count = 1,
    .frame_columns = cd_cubes_frame_columns,
    .frame_column_count = CD_CUBES_FRAME_COLUMN_COUNT,
    .summary_columns = summary_columns,
    .summary_column_count = sizeof summary_columns / sizeof summary_columns[0],
    .run_point = cubes_run_point,
    .run_round = cubes_run_round,
    .finish_point = cubes_finish_point,
    .pack_state = cubes_pack_state,
    .unpack_state = cubes_unpack_state,
    .cost = cubes_cost,
    .chain = cubes_chain,
    .derived_file = cubes_derived_file,
    .before_fork = cubes_before_fork,
};
