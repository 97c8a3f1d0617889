// SPDX-License-Identifier: MIT
// `cdlab run --dry-run`'s plan with each point's estimated time and peak memory, and the warning
// before a run whose point will not fit in this machine's memory (estimates: harness/estimate.c).
// Points that [measure] budget_ms is estimated to skip are marked so, and neither counted in the
// total nor warned about. A file a point makes before it measures (cd_kind.derived_file: a
// simulated scene's trace) is listed under the point with its size; the files a run will make are
// checked against the free space of their file system.
#include "cli.h"

#include "cd_harness_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

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

// The files the listed points make before they measure (cd_kind.derived_file), each once.
typedef struct derived {
    char path[4096];
    double bytes;
    size_t point;  // the first listed point that needs it
    int cached;    // there already: nothing to make
} derived;

typedef struct derived_list {
    const char *root;  // the run's output root
    derived *d;
    size_t n, cap;
} derived_list;

// Point p's derived file, added to l unless it is there (NULL: p makes none); what says how it is
// made, *first whether p is the first point of l to need it.
static const derived *derived_of(derived_list *l, const cd_config *c, const cd_point *p, size_t i, char *what,
                                 size_t what_len, int *first)
{
    derived d = {.point = i};
    *first = 0;
    if (!c->kind->derived_file ||
        (d.bytes = c->kind->derived_file(p, l->root, d.path, sizeof d.path, &d.cached, what, what_len)) <= 0)
        return NULL;
    for (size_t k = 0; k < l->n; ++k)
        if (strcmp(l->d[k].path, d.path) == 0) return &l->d[k];
    cd_grow((void **)&l->d, sizeof *l->d, &l->cap, l->n + 1);
    l->d[l->n] = d;
    *first = 1;
    return &l->d[l->n++];
}

typedef struct totals {
    double seconds, peak;
    size_t points, unmodelled, skipped, extrapolated;
    double spread;
    derived_list files;
    size_t to_make;     // files not there yet
    double make_bytes;  // their size
} totals;

// The line under point i about its derived file (none: nothing).
static void print_derived(totals *t, const cd_config *c, const cd_point *p, size_t i)
{
    char what[400], size[64];
    int first;
    const derived *d = derived_of(&t->files, c, p, i, what, sizeof what, &first);
    if (!d) return;
    cd_bytes_format(d->bytes, size, sizeof size);
    if (d->cached) {
        printf("    reads %s (%s, there already)\n", d->path, size);
    } else if (!first) {
        printf("    reads %s (%s, made for point %zu)\n", d->path, size, d->point);
    } else {
        t->to_make++;
        t->make_bytes += d->bytes;
        printf("    first makes %s (%s on disk, %s; its time not estimated)\n", d->path, size, what);
    }
}

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
        return;  // it makes no file either
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
        print_derived(t, c, p, i);
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
    print_derived(t, c, p, i);
}

// The run's output root: --output, else [run] output (as the runner takes it).
static const char *output_root(const cd_config *c, const char *output)
{
    return output ? output : cd_config_text(c, "run", "output");
}

void cd_cli_print_plan(const cd_config *c, const uint32_t *owner, uint32_t shard, const char *output)
{
    printf("%s: experiment %s, kind %s, %zu point(s), sha256 %s\n", c->path, cd_config_text(c, "experiment", "name"),
           c->kind->name, cd_plan_size(c), c->sha256);
    totals t = {.files.root = output_root(c, output)};
    each_point(c, owner, shard, print_one, &t);
    char est[64];
    cd_estimate_format(t.seconds, t.peak, est, sizeof est);
    if (t.points > t.unmodelled + t.skipped) {
        printf("  estimate: %s for %zu point(s) (time in all, largest peak memory); model: %s, within x%.3g of its "
               "measured points%s",
               est, t.points - t.unmodelled - t.skipped, cd_estimate_source(), t.spread,
               t.extrapolated ? ", extrapolated beyond them" : "");
    } else {  // no time to give; the kind may know its data's size
        cd_bytes_format(t.peak, est, sizeof est);
        printf("  estimate: none of time%s%s", t.peak > 0 ? "; largest data " : "", t.peak > 0 ? est : "");
    }
    if (t.skipped) printf("; %zu point(s) skipped by budget_ms (estimated), not counted", t.skipped);
    if (t.unmodelled) printf("; %zu point(s) without a model, not counted", t.unmodelled);
    if (t.to_make) {
        cd_bytes_format(t.make_bytes, est, sizeof est);
        printf("; %zu file(s) to make first, %s on disk, their time not counted", t.to_make, est);
    }
    printf("\n");
    cd_free(t.files.d);
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

static void add_derived(const cd_config *c, const cd_point *p, size_t i, const char *label, const cd_estimate *e,
                        void *ctx)
{
    (void)label;
    char what[400];
    int first;
    if (!e->skipped) derived_of(ctx, c, p, i, what, sizeof what, &first);
}

// Bytes free to an unprivileged writer on the file system of path's directory, or of the nearest
// directory above it that exists (the cache may not be made yet); -1 when unknown. dir receives
// the directory asked.
static double free_bytes(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash) {
            snprintf(dir, len, ".");
        } else {
            *slash = '\0';
            if (!dir[0]) snprintf(dir, len, "/");
        }
        struct statvfs v;
        if (statvfs(dir, &v) == 0) return (double)v.f_bavail * (double)v.f_frsize;
        if (errno != ENOENT || strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0) return -1;
    }
}

void cd_cli_warn_disk(const cd_config *c, const uint32_t *owner, uint32_t shard, const char *output)
{
    derived_list l = {.root = output_root(c, output)};
    each_point(c, owner, shard, add_derived, &l);
    // The files to make, by the directory whose file system they go to.
    typedef struct disk {
        char dir[4096];
        double avail, need;
        size_t files;
        const char *example;
    } disk;
    disk *d = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < l.n; ++k) {
        if (l.d[k].cached) continue;
        char dir[4096];
        double avail = free_bytes(l.d[k].path, dir, sizeof dir);
        size_t j = 0;
        while (j < n && strcmp(d[j].dir, dir) != 0) ++j;
        if (j == n) {
            cd_grow((void **)&d, sizeof *d, &cap, n + 1);
            d[n] = (disk){.avail = avail, .example = l.d[k].path};
            snprintf(d[n++].dir, sizeof d->dir, "%s", dir);
        }
        d[j].need += l.d[k].bytes, d[j].files++;
    }
    for (size_t j = 0; j < n; ++j) {
        if (d[j].avail < 0 || d[j].need <= d[j].avail) continue;
        char need[64], avail[64];
        cd_bytes_format(d[j].need, need, sizeof need);
        cd_bytes_format(d[j].avail, avail, sizeof avail);
        fprintf(stderr,
                "cdlab run: warning: %s: the %zu file(s) its points make before they measure (%s, e.g. %s) exceed "
                "the %s free on the file system of %s\n",
                c->path, d[j].files, need, d[j].example, avail, d[j].dir);
    }
    cd_free(d);
    cd_free(l.d);
}
