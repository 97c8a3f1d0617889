// SPDX-License-Identifier: MIT
// The max_fps kind (the report's 60 FPS test): for each point of [method] (and the other scene keys),
// the largest cube count N whose median frame_ms ([search] statistic; p05 on a machine shared with
// other jobs, where preemption inflates most frames) stays within 1000 / [search] target_fps, found by
// doubling from [search] start and then bisecting. Every probe is a full cubes measurement (its
// frames go to frames.csv); summary.csv gets one row per probe, sorted by cubes, each carrying the
// point's answer in max_cubes, so the FPS-vs-N curve and the answer come from one file.
// [search] clock = cpu times frames with the thread's CPU clock instead (shared machines).
#include "cd_registry.h"
#include "kind_cubes.h"
#include "cd_core.h"
#include "cd_harness.h"
#include "cd_harness_cli.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

static const char *const statistic_words[] = {"median", "p05", NULL};
static const char *const clock_words[] = {"wall", "cpu", NULL};

static const cd_key_spec search_keys[] = {
    {"search", "target_fps", CD_KEY_REAL, "60", 1e-3, 1e6, NULL, NULL, 1,
     "a probe passes when its frame_ms statistic <= 1000 / target_fps"},
    {"search", "statistic", CD_KEY_WORD, "median", 0, 0, statistic_words, NULL, 1,
     "frame_ms statistic judged: median, or p05 (the uncontended frames on a shared machine)"},
    {"search", "clock", CD_KEY_WORD, "wall", 0, 0, clock_words, NULL, 1,
     "wall: the cubes kind's wall-clock frames; cpu: the runner thread's CPU time per frame (blind to preemption)"},
    {"search", "start", CD_KEY_INT, "64", 1, 100000000, NULL, NULL, 0,
     "first cube count probed (then doubled); start = limit measures only that count"},
    {"search", "limit", CD_KEY_INT, "4000000", 1, 100000000, NULL, NULL, 0, "largest cube count probed"},
    {"search", "resolution", CD_KEY_REAL, "0.02", 0, 1, NULL, NULL, 0,
     "bisection stops when the bracket is within resolution * N (and 1 cube)"},
};

static const cd_method_key broad_key[] = {CD_KINDS_BROAD_KEY};

// The cubes kind's keys this kind refuses: the search sets the cube count.
static const char *const refused_keys[] = {"scene.cubes", NULL};

static int max_fps_validate(cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *cubes = cd_config_key_get(c, "scene", "cubes");
    if (cubes->line) {
        cd_config_error(c, cubes, err, err_len,
                        "kind max_fps searches the cube count itself: expected no [scene] cubes (set [search] start "
                        "and limit instead)");
        return -1;
    }
    if (cd_cubes_check_unread_sweeps(c, err, err_len)) return -1;
    const cd_config_key *start = cd_config_key_get(c, "search", "start");
    const cd_config_key *limit = cd_config_key_get(c, "search", "limit");
    if (start->values[0].num > limit->values[0].num) {
        // At the key the config gives: a start left at its default is the limit's line's fault.
        cd_config_error(c, start->line ? start : limit, err, err_len,
                        "[search] start = %s%s exceeds limit = %s: expected start <= limit", start->values[0].text,
                        start->line ? "" : " (its default)", limit->values[0].text);
        return -1;
    }
    return 0;
}

static const cd_column summary_columns[] = {
    // Which probes a search makes follows the measured times, so its cube counts, their order and
    // their verdicts vary from run to run as max_cubes does: none of them is a deterministic column.
    {"cubes", 1, "cube count of this probe (the probes follow the measured times)"},
    {"probe", 1, "order of this probe in the search, 0-based"},
    {"passes", 1, "1 when the judged frame_ms statistic <= 1000 / target_fps"},
    {"max_cubes", 1, "the search's answer: largest passing cube count (same on every row of the point)"},
    {"frame_ms_median", 1, "median frame_ms over frames x repeats"},
    {"frame_ms_p05", 1, "5th percentile of frame_ms"},
    {"frame_ms_p95", 1, "95th percentile of frame_ms"},
    {"frame_ms_cv", 1, "coefficient of variation of frame_ms"},
    {"fps_median", 1, "median of per-frame FPS"},
    {"fps_p05", 1, "5th percentile of per-frame FPS"},
    {"fps_p95", 1, "95th percentile of per-frame FPS"},
    {"motion_ms_median", 1, "median motion_ms"},
    {"broad_ms_median", 1, "median broad_ms"},
    {"narrow_ms_median", 1, "median narrow_ms"},
    {"bv_tests_mean", 0, "mean bv_tests per frame"},
    {"narrow_tests_mean", 0, "mean narrow_tests per frame"},
    {"pairs_mean", 0, "mean pairs per frame"},
    {"bytes_mean", 0, "mean bytes held by the broad phase"},
};

typedef struct probe {
    uint32_t cubes, order;
    cd_cubes_result res;
} probe;

static int by_cubes(const void *x, const void *y)
{
    const probe *a = x, *b = y;
    return (a->cubes > b->cubes) - (a->cubes < b->cubes);
}

typedef struct search {
    cd_run *r;
    cd_cubes_setup *s;
    double limit_ms;
    int p05;  ///< judge the 5th percentile instead of the median
    int cpu;  ///< thread CPU time instead of wall clock
    probe *pr;
    size_t count, cap;
    int failed;  ///< a probe failed (cd_run_fail): the point fails
} search;

static double judged(const search *q, const cd_cubes_result *m)
{
    return q->p05 ? m->frame_ms.p05 : m->frame_ms.median;
}

// Measure n cubes, remember the probe, say whether it meets the target.
static int try_n(search *q, uint32_t n)
{
    if (q->failed) return 0;
    for (size_t i = 0; i < q->count; ++i)
        if (q->pr[i].cubes == n) return judged(q, &q->pr[i].res) <= q->limit_ms;
    if (q->count == q->cap) cd_grow((void **)&q->pr, sizeof *q->pr, &q->cap, q->count + 1);
    probe *p = &q->pr[q->count++];
    p->cubes = n;
    p->order = (uint32_t)(q->count - 1);
    q->s->cubes = n;
    q->s->cpu_clock = q->cpu && q->s->threads <= 1;  // parallel frames on the wall clock, as the cubes kind times them
    // Fails only on a plugin's bad candidates (max_fps reads no [scene] file): every probe after
    // that fails at once, and the point with the first probe's reason (cd_run_fail).
    if (cd_cubes_measure(q->r, q->s, &p->res)) q->failed = 1;
    return !q->failed && judged(q, &p->res) <= q->limit_ms;
}

// The search over cube counts, given whether n cubes meet the target (pass(ctx, n), each n asked
// once): the largest passing count, 0 when none. The measured run and the estimate of its probes
// (max_fps_estimate) walk the same probes.
static uint32_t search_counts(uint32_t start, uint32_t limit, double resolution, int (*pass)(void *, uint32_t),
                              void *ctx)
{
    // Bracket: lo passes (0 = none yet), hi fails (0 = none yet). start = limit measures that one
    // cube count and searches nothing (a fixed-N measurement under this kind's clock).
    uint32_t lo = 0, hi = 0, n = start;
    if (start == limit) {
        if (pass(ctx, n)) lo = n;
        hi = lo ? 0 : n;
    } else if (pass(ctx, n)) {
        lo = n;
        while (!hi && lo < limit) {
            n = lo > limit / 2 ? limit : 2 * lo;
            if (pass(ctx, n))
                lo = n;
            else
                hi = n;
        }
    } else {
        hi = n;
        while (!lo && hi > 1) {
            n = hi / 2;
            if (pass(ctx, n))
                lo = n;
            else
                hi = n;
        }
    }
    while (start != limit && lo && hi && hi - lo > 1 && (double)(hi - lo) > resolution * lo) {
        n = lo + (hi - lo) / 2;
        if (pass(ctx, n))
            lo = n;
        else
            hi = n;
    }
    return lo;
}

static int try_probe(void *q, uint32_t n) { return try_n(q, n); }

static int max_fps_run_point(cd_run *r, const cd_point *p)
{
    cd_cubes_setup s = cd_cubes_setup_from_point(p);
    double target = cd_point_num(p, "search", "target_fps"), limit_ms = 1000.0 / target;
    uint32_t start = (uint32_t)cd_point_num(p, "search", "start");
    uint32_t limit = (uint32_t)cd_point_num(p, "search", "limit");
    double resolution = cd_point_num(p, "search", "resolution");
    const char *statistic = cd_point_text(p, "search", "statistic");
    const char *clock = cd_point_text(p, "search", "clock");
    search q = {r, &s, limit_ms, strcmp(statistic, "p05") == 0, strcmp(clock, "cpu") == 0, NULL, 0, 0, 0};

    uint32_t lo = search_counts(start, limit, resolution, try_probe, &q);
    if (q.failed) {
        cd_free(q.pr);
        return -1;
    }
    int failed_any = 0;  // a probe that did not pass: the search found an upper bound
    for (size_t i = 0; i < q.count; ++i) failed_any |= !(judged(&q, &q.pr[i].res) <= limit_ms);
    if (!failed_any && start != limit)
        cd_run_warn(r, "point %zu (%s): every probe up to limit %u met %.4g FPS; max_cubes is the limit", p->index,
                    s.method, limit, target);
    if (!lo && start != limit)
        cd_run_warn(r, "point %zu (%s): not even 1 cube meets %.4g FPS", p->index, s.method, target);

    qsort(q.pr, q.count, sizeof *q.pr, by_cubes);
    for (size_t i = 0; i < q.count; ++i) {
        const cd_cubes_result *m = &q.pr[i].res;
        cd_row row = cd_run_summary_begin(r);
        cd_row_set(&row, "cubes", cd_cell_int(q.pr[i].cubes));
        cd_row_set(&row, "probe", cd_cell_int(q.pr[i].order));
        cd_row_set(&row, "passes", cd_cell_int(judged(&q, m) <= limit_ms));
        cd_row_set(&row, "max_cubes", cd_cell_int(lo));
        cd_row_set_stats(&row, "frame_ms", &m->frame_ms);  // median, p05, p95, cv
        cd_row_set_stats(&row, "fps", &m->fps);            // median, p05, p95
        cd_row_set_stats(&row, "motion_ms", &m->motion_ms);
        cd_row_set_stats(&row, "broad_ms", &m->broad_ms);  // NA on the CPU clock
        cd_row_set_stats(&row, "narrow_ms", &m->narrow_ms);
        cd_row_set(&row, "bv_tests_mean", cd_cell_real(m->bv_tests_mean));
        cd_row_set(&row, "narrow_tests_mean", cd_cell_real(m->narrow_tests_mean));
        cd_row_set(&row, "pairs_mean", cd_cell_real(m->pairs_mean));
        cd_row_set(&row, "bytes_mean", cd_cell_real(m->bytes_mean));
        cd_run_summary_end(r, &row);
    }
    cd_free(q.pr);
    return 0;
}

// The estimate of a search, probe by probe (max_fps_estimate).
typedef struct probe_estimate {
    const char *method;
    double limit_ms, frames;  // the target's frame time; frames a probe runs (warm-up and repeats in)
    int modelled, extrapolated;
    double seconds, peak, spread;
} probe_estimate;

// search_counts' question for the estimate: the model's frame time against the target, the probe's
// time added. Without a model every probe is taken to pass, its cubes × frames in nominal units.
static int estimate_pass(void *ctx, uint32_t n)
{
    probe_estimate *q = ctx;
    cd_estimate m = {0};
    if (q->modelled && cd_model_cubes_frame(q->method, n, &m)) {
        q->seconds += q->frames * m.frame_ms / 1000.0;
        q->peak = fmax(q->peak, m.peak_bytes);
        q->spread = m.spread, q->extrapolated |= m.extrapolated;
        return m.frame_ms <= q->limit_ms;
    }
    q->seconds += q->frames * n * CD_NOMINAL_SECONDS_PER_UNIT;
    return 1;
}

// cd_kind.estimate: the probes the search makes (search_counts, as the run walks them). With a
// model of the method (the cubes kind's reference fits, one core), a probe passes where the
// model's frame time meets the target, and the point takes each probe's (warmup + frames) ×
// repeats frames at the model's time, its peak the largest probe's. Without one, the longest
// search: every probe passes, doubling from start to the limit. Before, a point counted 1 unit a
// frame: 17 searches of broad_max_fps weighed nothing in the shard balance beside broad_scaling,
// and one shard got 16 of them.
static int max_fps_estimate(const cd_point *p, cd_estimate *e)
{
    const char *method = cd_point_text(p, "method", "method");
    cd_estimate probe = {0};
    probe_estimate q = {.method = method,
                        .limit_ms = 1000.0 / cd_point_num(p, "search", "target_fps"),
                        .frames = (cd_point_num(p, "experiment", "warmup") + cd_point_num(p, "experiment", "frames")) *
                                  cd_point_num(p, "experiment", "repeats"),
                        .modelled = cd_model_cubes_frame(method, 1, &probe)};
    search_counts((uint32_t)cd_point_num(p, "search", "start"), (uint32_t)cd_point_num(p, "search", "limit"),
                  cd_point_num(p, "search", "resolution"), estimate_pass, &q);
    e->seconds = q.seconds;
    if (!q.modelled) return -1;
    e->peak_bytes = q.peak, e->spread = q.spread, e->modelled = 1, e->extrapolated = q.extrapolated;
    return 0;
}

const cd_kind cd_kind_max_fps = {
    .name = "max_fps",
    .description = "largest cube count at a target FPS per method: doubling then bisection on N",
    .keys = search_keys,
    .key_count = sizeof search_keys / sizeof search_keys[0],
    .more_keys = cd_cubes_keys,
    .refused_more_keys = refused_keys,
    .more_key_count = CD_CUBES_KEY_COUNT,
    .figures = "max_fps",
    .all_figures = "max_fps, octree_stress",
    .validate = max_fps_validate,
    CD_KINDS_PLUGIN_PRELOAD,
    .method_keys = broad_key,
    .method_key_count = 1,
    .frame_columns = cd_cubes_frame_columns,
    .frame_column_count = CD_CUBES_FRAME_COLUMN_COUNT,
    .summary_columns = summary_columns,
    .summary_column_count = sizeof summary_columns / sizeof summary_columns[0],
    .run_point = max_fps_run_point,
    .estimate = max_fps_estimate,
};
