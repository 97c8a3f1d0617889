// SPDX-License-Identifier: MIT
// `cdlab run --dry-run`'s plan with each point's estimated time and peak memory, and the warning
// before a run whose point will not fit in this machine's memory (estimates: harness/estimate.c).
// Points that [measure] budget_ms is estimated to skip are marked so, and neither counted in the
// total nor warned about.
#include "cli.h"

#include "cd_harness_cli.h"

#include <stdlib.h>
#include <string.h>

// The points of c that this run owns (all, or shard's when owner is given), with their estimates
// over the whole plan (a budget's skips depend on the points before): each calls
// fn(c, p, i, label, estimate, ctx).
typedef void (*each_fn)(const cd_config *c, const cd_point *p, size_t i, const char *label, const cd_estimate *e,
                        void *ctx);

static void each_point(const cd_config *c, const uint32_t *owner, uint32_t shard, each_fn fn, void *ctx)
{
    size_t n = cd_plan_size(c);
    size_t *pick = calloc(c->key_count ? c->key_count : 1, sizeof *pick);
    cd_estimate *e = cd_plan_estimate(c);
    for (size_t i = 0; i < n && pick; ++i) {
        if (owner && owner[i] != shard) continue;
        cd_point p = {.pick = pick};
        cd_point_at(c, i, &p);
        char label[400];
        cd_point_label(&p, label, sizeof label);
        fn(c, &p, i, label, &e[i], ctx);
    }
    cd_free(e);
    free(pick);
}

typedef struct totals {
    double seconds, peak;
    size_t points, unmodelled, skipped, extrapolated;
    double spread;
} totals;

static void print_one(const cd_config *c, const cd_point *p, size_t i, const char *label, const cd_estimate *e,
                      void *ctx)
{
    totals *t = ctx;
    char est[64];
    cd_estimate_format(e->seconds, e->peak_bytes, est, sizeof est);
    if (!label[0]) label = "(no sweep)";
    t->points++;
    if (e->skipped) {  // it will not run: hours of it would be no estimate of the run
        t->skipped++;
        printf("  point %zu: %s  (skipped by budget_ms, estimated: its series is over it at %.0f cubes)\n", i, label,
               e->over_at);
        return;
    }
    if (!e->modelled) {  // the nominal rate balances shards; as a time it would mislead
        t->unmodelled++;
        char data[64] = "";
        if (e->peak_bytes > 0) {  // the kind knows its data's size (cd_kind.data_bytes)
            cd_bytes_format(e->peak_bytes, data, sizeof data);
            t->peak = e->peak_bytes > t->peak ? e->peak_bytes : t->peak;
        }
        printf("  point %zu: %s  (no time estimate: no model for %s %s%s%s)\n", i, label, c->kind->name,
               strcmp(c->kind->name, "cubes") == 0 ? cd_point_text(p, "method", "method") : "points",
               data[0] ? "; its data " : "", data);
        return;
    }
    t->seconds += e->seconds;
    t->peak = e->peak_bytes > t->peak ? e->peak_bytes : t->peak;
    t->spread = e->spread > t->spread ? e->spread : t->spread;
    t->extrapolated += e->extrapolated != 0;
    char over[96] = "";
    if (e->over_budget)
        snprintf(over, sizeof over, ", ~%.3g ms per frame, over budget_ms %g: its series skips larger cubes after it",
                 e->frame_ms, cd_point_num(p, "measure", "budget_ms"));
    printf("  point %zu: %s  (~%s%s%s)\n", i, label, est, e->extrapolated ? ", beyond the measured sizes" : "", over);
}

void cd_cli_print_plan(const cd_config *c, const uint32_t *owner, uint32_t shard)
{
    printf("%s: experiment %s, kind %s, %zu point(s), sha256 %s\n", c->path, cd_config_text(c, "experiment", "name"),
           c->kind->name, cd_plan_size(c), c->sha256);
    totals t = {0};
    each_point(c, owner, shard, print_one, &t);
    char est[64];
    cd_estimate_format(t.seconds, t.peak, est, sizeof est);
    if (t.points > t.unmodelled + t.skipped) {
        printf("  estimate: %s for %zu point(s) (time in all, largest peak memory)", est,
               t.points - t.unmodelled - t.skipped);
    } else {  // no time to give; the kind may know its data's size
        cd_bytes_format(t.peak, est, sizeof est);
        printf("  estimate: none of time%s%s", t.peak > 0 ? "; largest data " : "", t.peak > 0 ? est : "");
    }
    if (t.points > t.unmodelled + t.skipped)
        printf("; model: %s, within x%.3g of its measured points%s", cd_estimate_source(), t.spread,
               t.extrapolated ? ", extrapolated beyond them" : "");
    if (t.skipped) printf("; %zu point(s) skipped by budget_ms (estimated), not counted", t.skipped);
    if (t.unmodelled) printf("; %zu point(s) without a model, not counted", t.unmodelled);
    printf("\n");
}

void cd_cli_warn_config(const cd_config *c)
{
    for (size_t i = 0; i < c->warning_count; ++i) fprintf(stderr, "cdlab run: warning: %s\n", c->warnings[i]);
}

static void warn_one(const cd_config *c, const cd_point *p, size_t i, const char *label, const cd_estimate *e,
                     void *ctx)
{
    (void)p;
    double phys = *(const double *)ctx;
    if (e->skipped || e->peak_bytes <= phys) return;  // peak_bytes 0: unknown
    fprintf(stderr,
            "cdlab run: warning: %s point %zu%s%s%s: estimated peak memory %.3g GiB exceeds this machine's "
            "%.3g GiB of physical memory\n",
            c->path, i, label[0] ? " (" : "", label, label[0] ? ")" : "", e->peak_bytes / 1073741824.0,
            phys / 1073741824.0);
}

void cd_cli_warn_memory(const cd_config *c, const uint32_t *owner, uint32_t shard)
{
    double phys = cd_physical_memory();
    if (phys > 0) each_point(c, owner, shard, warn_one, &phys);
}
