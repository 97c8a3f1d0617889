// SPDX-License-Identifier: MIT
// The tri_tri kind: triangle–triangle tests on seeded pair sets. Each point builds
// [tri_tri] pairs pairs of one workload, runs the counting build over them once (deterministic
// operation counts: mean, maxima and counts per deciding branch) and then times warmup + frames ×
// repeats passes of the chosen algorithm over the same pairs (one frames.csv row per pass).
// Workloads: random (triangles of size a in a box of side H = 1, a = a_over_h), near (a vertex of b
// within 1e-15..1e-3 of a's face, half of them crossing), coplanar (both on one exactly
// representable tilted lattice plane).
#include "cd_harness.h"
#include "cd_narrow.h"

#include <math.h>
#include <string.h>

static const char *const workload_words[] = {"random", "near", "coplanar", NULL};
static const char *const algorithm_words[] = {"exact", "float", "gd", NULL};

static const cd_key_spec tri_tri_keys[] = {
    {"tri_tri", "workload", CD_KEY_WORD, "random", 0, 0, workload_words, NULL, 1,
     "pair set: random (size a in a box of side 1), near (near-touching), coplanar (exactly coplanar)"},
    {"tri_tri", "algorithm", CD_KEY_WORD, "exact", 0, 0, algorithm_words, NULL, 1,
     "exact (plane-first, filtered-exact), float (plane-first in plain floating point), gd (Guigue–Devillers)"},
    {"tri_tri", "a_over_h", CD_KEY_REAL, "0.01", 1e-12, 10, NULL, NULL, 1,
     "random workload: triangle size a over box side H (ignored by near and coplanar: a list is refused "
     "without workload = random, and warned about beside another workload)"},
    {"tri_tri", "pairs", CD_KEY_INT, "8192", 1, 1e8, NULL, NULL, 1,
     "pairs per set; one frame is one timed pass over all of them (8192 pairs = 1.2 MB, cache-resident)"},
};

enum { BRANCHES = CD_TT_WHY_COUNT };

static const cd_column frame_columns[] = {
    {"repeat", 0, "repeat, 0-based"},
    {"frame", 0, "timed pass within the repeat, 0-based"},
    {"workload", 0, "[tri_tri] workload"},
    {"algorithm", 0, "[tri_tri] algorithm"},
    {"a_over_h", 0, "[tri_tri] a_over_h (NA unless workload = random)"},
    {"pass_ms", 1, "time of one pass over all pairs"},
    {"ns_per_test", 1, "pass_ms / pairs in nanoseconds"},
    {"mtests_per_s", 1, "million tests per second in this pass"},
    {"hits", 0, "pairs reported intersecting in this pass"},
    {"float_pass_ms", 1, "a pass of the plain-float twin over the same pairs, run right after this one"},
    {"ratio_to_float", 1, "pass_ms / float_pass_ms: this algorithm's time relative to plain float"},
};

// Per-branch columns: <branch>_n, <branch>_ops_mean, <branch>_ops_max, in cd_tri_tri_why order.
#define BRANCH_COLUMNS(b, help)                                                                          \
    {#b "_n", 0, "pairs decided by " help},                                                              \
        {#b "_ops_mean", 0, "mean arithmetic operations of pairs decided by " help " (NA if none)"},     \
    {                                                                                                    \
#b "_ops_max", 0, "largest arithmetic operation count of pairs decided by " help " (NA if none)" \
    }

static const cd_column summary_columns[] = {
    {"workload", 0, "[tri_tri] workload"},
    {"algorithm", 0, "[tri_tri] algorithm"},
    {"a_over_h", 0, "[tri_tri] a_over_h (NA unless workload = random)"},
    {"pairs", 0, "[tri_tri] pairs"},
    {"hits", 0, "intersecting pairs"},
    {"ops_mean", 0, "mean arithmetic operations (add/sub + mul + div) per test, counting build"},
    {"ops_max", 0, "largest arithmetic operation count of one test"},
    {"addsub_mean", 0, "mean additions and subtractions per test"},
    {"mul_mean", 0, "mean multiplications per test"},
    {"div_mean", 0, "mean divisions per test"},
    {"cmp_mean", 0, "mean floating-point comparisons (incl. max/min) per test"},
    {"abs_mean", 0, "mean absolute values per test"},
    {"exact_mean", 0, "mean calls of an exact expansion predicate per test (filter failures)"},
    {"mtests_per_s_median", 1, "million tests per second, median over frames x repeats"},
    {"mtests_per_s_p05", 1, "5th percentile"},
    {"mtests_per_s_p95", 1, "95th percentile"},
    {"mtests_per_s_best", 1, "fastest pass: the least disturbed by other load on a shared machine"},
    {"ns_per_test_median", 1, "nanoseconds per test, median"},
    {"pass_ms_cv", 1, "coefficient of variation of pass_ms"},
    {"ratio_to_float_median", 1,
     "median over frames of pass_ms / float_pass_ms (interleaved passes, thread CPU "
     "time): the time relative to plain float, robust to load that comes and goes"},
    BRANCH_COLUMNS(plane_a, "the plane of a"),
    BRANCH_COLUMNS(plane_b, "the plane of b"),
    BRANCH_COLUMNS(slices_disjoint, "disjoint slices"),
    BRANCH_COLUMNS(slices_overlap, "overlapping slices"),
    BRANCH_COLUMNS(coplanar_apart, "a separating edge (coplanar)"),
    BRANCH_COLUMNS(coplanar_overlap, "no separating edge (coplanar)"),
    BRANCH_COLUMNS(degenerate_disjoint, "the zero-area routines (disjoint)"),
    BRANCH_COLUMNS(degenerate_overlap, "the zero-area routines (overlap)"),
    {"seed", 0, "[experiment] seed"},
};

// ---------------------------------------------------------------------------------------------
// Workloads

static cd_vec3 rand_box(cd_rng *r, double side)
{
    return cd_v3(cd_rng_range(r, 0, side), cd_rng_range(r, 0, side), cd_rng_range(r, 0, side));
}

// A triangle of size a: vertices at c + a·u, u uniform in [-1/2, 1/2]³.
static cd_triangle rand_triangle(cd_rng *r, cd_vec3 c, double a)
{
    cd_triangle t;
    for (int i = 0; i < 3; ++i)
        t.v[i] = cd_v3_add(c, cd_v3_scale(cd_v3_sub(rand_box(r, 1.0), cd_v3(0.5, 0.5, 0.5)), a));
    return t;
}

static void gen_random(cd_rng *r, double a, cd_triangle *ta, cd_triangle *tb)
{
    *ta = rand_triangle(r, rand_box(r, 1.0), a);
    *tb = rand_triangle(r, rand_box(r, 1.0), a);
}

// b's first vertex at distance 10^-U(3,15) from a point inside a (on either side); b's other two
// vertices on the far side (disjoint by that distance) or, for half the pairs, across a's plane.
static void gen_near(cd_rng *r, cd_triangle *ta, cd_triangle *tb)
{
    *ta = rand_triangle(r, rand_box(r, 1.0), 1.0);
    cd_vec3 n = cd_v3_cross(cd_v3_sub(ta->v[1], ta->v[0]), cd_v3_sub(ta->v[2], ta->v[0]));
    double len = cd_v3_len(n);
    n = len > 0 ? cd_v3_scale(n, 1.0 / len) : cd_v3(0, 0, 1);
    double u = cd_rng_uniform(r), v = cd_rng_uniform(r);
    if (u + v > 1) u = 1 - u, v = 1 - v;
    cd_vec3 x = cd_v3_add(ta->v[0], cd_v3_add(cd_v3_scale(cd_v3_sub(ta->v[1], ta->v[0]), u),
                                              cd_v3_scale(cd_v3_sub(ta->v[2], ta->v[0]), v)));
    double side = cd_rng_below(r, 2) ? 1.0 : -1.0;
    double gap = side * pow(10.0, -cd_rng_range(r, 3, 15));
    double far = cd_rng_below(r, 2) ? side : -side;
    tb->v[0] = cd_v3_add(x, cd_v3_scale(n, gap));
    for (int i = 1; i < 3; ++i) {
        cd_vec3 t = cd_v3_sub(rand_box(r, 1.0), cd_v3(0.5, 0.5, 0.5));
        tb->v[i] = cd_v3_add(tb->v[0], cd_v3_add(cd_v3_scale(n, far * cd_rng_range(r, 0.2, 1.0)), t));
    }
}

// Both triangles on the plane o + i·u + j·v with small integer u, v: every vertex is an exact
// double, so the pair is exactly coplanar.
static void gen_coplanar(cd_rng *r, cd_triangle *ta, cd_triangle *tb)
{
    cd_vec3 o = cd_v3((double)cd_rng_below(r, 201) - 100, (double)cd_rng_below(r, 201) - 100,
                      (double)cd_rng_below(r, 201) - 100);
    cd_vec3 u, v;
    do {
        u = cd_v3((double)cd_rng_below(r, 7) - 3, (double)cd_rng_below(r, 7) - 3, (double)cd_rng_below(r, 7) - 3);
        v = cd_v3((double)cd_rng_below(r, 7) - 3, (double)cd_rng_below(r, 7) - 3, (double)cd_rng_below(r, 7) - 3);
    } while (cd_v3_len2(cd_v3_cross(u, v)) == 0);
    cd_triangle *t[2] = {ta, tb};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 3; ++i) {
            double a = (double)cd_rng_below(r, 11), b = (double)cd_rng_below(r, 11);
            t[k]->v[i] = cd_v3_add(o, cd_v3_add(cd_v3_scale(u, a), cd_v3_scale(v, b)));
        }
}

// ---------------------------------------------------------------------------------------------

typedef int (*tri_tri_fn)(const cd_triangle *, const cd_triangle *);
typedef int (*tri_tri_explain_fn)(const cd_triangle *, const cd_triangle *, cd_tri_tri_why *);

// One point: its triangle pairs, the builds it measures, and what the counting pass found.
typedef struct tt_point {
    const char *workload, *algorithm;
    double a_over_h;
    int is_random;
    size_t n;
    cd_triangle *ta, *tb;
    tri_tri_fn fn;
    tri_tri_explain_fn counted;
    uint64_t sum[6], ops_max, branch_n[BRANCHES], branch_sum[BRANCHES], branch_max[BRANCHES];
    int64_t hits;
} tt_point;

// The seeded pairs of point p and the build its algorithm names.
static void tt_setup(const cd_point *p, tt_point *t)
{
    *t = (tt_point){.workload = cd_point_text(p, "tri_tri", "workload"),
                    .algorithm = cd_point_text(p, "tri_tri", "algorithm"),
                    .a_over_h = cd_point_num(p, "tri_tri", "a_over_h"),
                    .n = (size_t)cd_point_num(p, "tri_tri", "pairs"),
                    .fn = cd_tri_tri_overlap,
                    .counted = cd_count_tri_tri_overlap_explain};
    t->is_random = strcmp(t->workload, "random") == 0;
    t->ta = cd_alloc(t->n * sizeof *t->ta), t->tb = cd_alloc(t->n * sizeof *t->tb);
    cd_rng rng = cd_rng_make((uint64_t)cd_point_num(p, "experiment", "seed"), CD_STREAM_TRIANGLES);
    for (size_t i = 0; i < t->n; ++i) {
        if (t->is_random)
            gen_random(&rng, t->a_over_h, &t->ta[i], &t->tb[i]);
        else if (strcmp(t->workload, "near") == 0)
            gen_near(&rng, &t->ta[i], &t->tb[i]);
        else
            gen_coplanar(&rng, &t->ta[i], &t->tb[i]);
    }
    if (strcmp(t->algorithm, "float") == 0)
        t->fn = cd_tri_tri_overlap_float, t->counted = cd_count_tri_tri_overlap_float_explain;
    if (strcmp(t->algorithm, "gd") == 0)
        t->fn = cd_tri_tri_overlap_gd, t->counted = cd_count_tri_tri_overlap_gd_explain;
}

// Counting pass: deterministic, outside the timing.
static void tt_count(tt_point *t)
{
    for (size_t i = 0; i < t->n; ++i) {
        cd_op_tally = (cd_op_counts){0};
        cd_tri_tri_why why;
        t->hits += t->counted(&t->ta[i], &t->tb[i], &why);
        const cd_op_counts *c = &cd_op_tally;
        uint64_t ops = c->addsub + c->mul + c->div;
        uint64_t *sum = t->sum;
        sum[0] += c->addsub, sum[1] += c->mul, sum[2] += c->div, sum[3] += c->cmp, sum[4] += c->abs, sum[5] += c->exact;
        if (ops > t->ops_max) t->ops_max = ops;
        t->branch_n[why]++, t->branch_sum[why] += ops;
        if (ops > t->branch_max[why]) t->branch_max[why] = ops;
    }
}

// The timed passes' samples (frames × repeats each).
typedef struct tt_samples {
    double *mt, *pass, *ratio;
    size_t total;
} tt_samples;

// One repeat's frames as cd_run_frames drives them.
typedef struct tt_repeat {
    const tt_point *t;
    tt_samples *sm;
    uint32_t rep;
    size_t k;  // the sample of the next measured frame
    int h;     // the hits of the frame in flight
} tt_repeat;

// One frame: a pass of the build over every pair (timed on the thread's CPU clock).
static int tt_frame(void *ctx, int64_t f)
{
    static volatile int sink;
    tt_repeat *u = ctx;
    const tt_point *t = u->t;
    int h = 0;
    for (size_t i = 0; i < t->n; ++i) h += t->fn(&t->ta[i], &t->tb[i]);
    if (f < 0) sink += h;
    u->h = h;
    return 0;
}

// Measured frame f done (dt ns of thread CPU time): a float pass right after it (a ratio of
// neighbouring passes cancels most of the load of a shared machine), the samples and the row. 0,
// or -1 after cd_run_fail when the build disagrees with the counting pass.
static int tt_frame_done(cd_run *r, void *ctx, uint32_t f, uint64_t dt)
{
    static volatile int sink;
    tt_repeat *u = ctx;
    const tt_point *t = u->t;
    tt_samples *sm = u->sm;
    size_t k = u->k++;
    int h = u->h, hf = 0;
    uint64_t t1 = cd_thread_cpu_ns();
    for (size_t i = 0; i < t->n; ++i) hf += cd_tri_tri_overlap_float(&t->ta[i], &t->tb[i]);
    uint64_t df = cd_thread_cpu_ns() - t1;
    sink += h + hf;
    sm->ratio[k] = df > 0 ? (double)dt / (double)df : NAN;
    if (h != t->hits) {
        cd_run_fail(r, "tri_tri: pass %zu found %d hits, the counting build %lld: builds disagree", k, h,
                    (long long)t->hits);
        return -1;
    }
    sm->pass[k] = (double)dt * 1e-6;
    double ns = (double)dt / (double)t->n;
    sm->mt[k] = ns > 0 ? 1e3 / ns : NAN;
    cd_cell row[] = {
        cd_cell_int(u->rep),
        cd_cell_int(f),
        cd_cell_text(t->workload),
        cd_cell_text(t->algorithm),
        t->is_random ? cd_cell_real(t->a_over_h) : cd_cell_na(),
        cd_cell_real(sm->pass[k]),
        cd_cell_real(ns),
        cd_cell_real(sm->mt[k]),
        cd_cell_int(h),
        cd_cell_real((double)df * 1e-6),
        cd_cell_real(sm->ratio[k]),
    };
    _Static_assert(sizeof row / sizeof row[0] == sizeof frame_columns / sizeof frame_columns[0],
                   "one cell per frame column");
    cd_run_frame_row(r, row);
    return 0;
}

static void tt_summary(cd_run *r, const cd_point *p, const tt_point *t, const tt_samples *sm)
{
    cd_stats ms = cd_stats_compute(sm->mt, sm->total), ps = cd_stats_compute(sm->pass, sm->total);
    cd_run_warn_noisy(r, p, "pass_ms", ps.cv);
    double dn = (double)t->n;
    static const char *const op_columns[6] = {"addsub_mean", "mul_mean", "div_mean",
                                              "cmp_mean",    "abs_mean", "exact_mean"};
    cd_row row = cd_run_summary_begin(r);
    cd_row_set(&row, "workload", cd_cell_text(t->workload));
    cd_row_set(&row, "algorithm", cd_cell_text(t->algorithm));
    cd_row_set(&row, "a_over_h", t->is_random ? cd_cell_real(t->a_over_h) : cd_cell_na());
    cd_row_set(&row, "pairs", cd_cell_int((int64_t)t->n));
    cd_row_set(&row, "hits", cd_cell_int(t->hits));
    cd_row_set(&row, "ops_mean", cd_cell_real((double)(t->sum[0] + t->sum[1] + t->sum[2]) / dn));
    cd_row_set(&row, "ops_max", cd_cell_int((int64_t)t->ops_max));
    for (int j = 0; j < 6; ++j) cd_row_set(&row, op_columns[j], cd_cell_real((double)t->sum[j] / dn));
    cd_row_set(&row, "mtests_per_s_median", cd_cell_real(ms.median));
    cd_row_set(&row, "mtests_per_s_p05", cd_cell_real(ms.p05));
    cd_row_set(&row, "mtests_per_s_p95", cd_cell_real(ms.p95));
    cd_row_set(&row, "mtests_per_s_best", cd_cell_real(ms.max));
    cd_row_set(&row, "ns_per_test_median", cd_cell_real(ms.median > 0 ? 1e3 / ms.median : NAN));
    cd_row_set(&row, "pass_ms_cv", cd_cell_real(ps.cv));
    cd_row_set(&row, "ratio_to_float_median", cd_cell_real(cd_stats_compute(sm->ratio, sm->total).median));
    for (int b = 0; b < BRANCHES; ++b) {
        char column[64];
        const char *name = cd_tri_tri_why_name((cd_tri_tri_why)b);
        snprintf(column, sizeof column, "%s_n", name);
        cd_row_set(&row, column, cd_cell_int((int64_t)t->branch_n[b]));
        snprintf(column, sizeof column, "%s_ops_mean", name);
        cd_row_set(&row, column,
                   t->branch_n[b] ? cd_cell_real((double)t->branch_sum[b] / (double)t->branch_n[b]) : cd_cell_na());
        snprintf(column, sizeof column, "%s_ops_max", name);
        cd_row_set(&row, column, t->branch_n[b] ? cd_cell_int((int64_t)t->branch_max[b]) : cd_cell_na());
    }
    cd_row_set(&row, "seed", cd_cell_int((int64_t)cd_point_num(p, "experiment", "seed")));
    cd_run_summary_end(r, &row);
}

static int tri_tri_run_point(cd_run *r, const cd_point *p)
{
    uint32_t warmup = (uint32_t)cd_point_num(p, "experiment", "warmup");
    uint32_t frames = (uint32_t)cd_point_num(p, "experiment", "frames");
    uint32_t repeats = (uint32_t)cd_point_num(p, "experiment", "repeats");
    tt_point t;
    tt_setup(p, &t);
    tt_count(&t);
    tt_samples sm = {.total = (size_t)frames * repeats};
    sm.mt = cd_alloc(sm.total * sizeof *sm.mt), sm.pass = cd_alloc(sm.total * sizeof *sm.pass);
    sm.ratio = cd_alloc(sm.total * sizeof *sm.ratio);
    int rc = 0;
    tt_repeat u = {.t = &t, .sm = &sm};
    for (uint32_t rep = 0; rep < repeats && !rc; ++rep) {
        u.rep = rep;
        // The warm-up passes come once, before the point's first repeat.
        cd_frames fr = {.warmup = rep == 0 ? warmup : 0,
                        .frames = frames,
                        .cpu_clock = 1,
                        .ctx = &u,
                        .frame = tt_frame,
                        .done = tt_frame_done};
        rc = cd_run_frames(r, &fr);
    }
    if (!rc) tt_summary(r, p, &t, &sm);
    cd_free(t.ta), cd_free(t.tb), cd_free(sm.mt), cd_free(sm.pass), cd_free(sm.ratio);
    return rc;
}

// Shards: a pass's work is its pairs.
static double tri_tri_cost(const cd_point *p) { return cd_point_num(p, "tri_tri", "pairs"); }

// The pairs' triangles (tt_setup), most of a point's memory: 1e8 pairs are 14.4 GB.
static double tri_tri_data_bytes(const cd_point *p)
{
    return cd_point_num(p, "tri_tri", "pairs") * 2.0 * (double)sizeof(cd_triangle);
}

// a_over_h swept where no workload is random (near and coplanar do not read it) would repeat the
// points. With random among the workloads the other workloads' points still repeat, by the
// cartesian product: a warning says so.
static int tri_tri_validate(cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *w = cd_config_key_get(c, "tri_tri", "workload"),
                        *a = cd_config_key_get(c, "tri_tri", "a_over_h");
    size_t random = 0;
    for (size_t i = 0; i < w->count; ++i) random += strcmp(w->values[i].text, "random") == 0;
    if (!random) {
        char reader[256];
        cd_config_key_text(w, reader, sizeof reader);
        return cd_config_refuse_unread_sweep(c, a, reader, err, err_len);
    }
    if (a->count > 1 && random < w->count)
        cd_config_warn(c, a,
                       "[tri_tri] a_over_h takes %zu values, which only workload = random reads: the points "
                       "of the other workloads repeat %zu times",
                       a->count, a->count);
    return 0;
}

const cd_kind cd_kind_tri_tri = {
    .name = "tri_tri",
    .description = "triangle–triangle tests: operation counts per branch (counting build) and throughput",
    .keys = tri_tri_keys,
    .key_count = sizeof tri_tri_keys / sizeof tri_tri_keys[0],
    .figures = "tri_tri_ops",
    .all_figures = "tri_tri_ops, tri_tri_throughput",
    .validate = tri_tri_validate,
    .frame_columns = frame_columns,
    .frame_column_count = sizeof frame_columns / sizeof frame_columns[0],
    .summary_columns = summary_columns,
    .summary_column_count = sizeof summary_columns / sizeof summary_columns[0],
    .run_point = tri_tri_run_point,
    .cost = tri_tri_cost,
    .data_bytes = tri_tri_data_bytes,
};
