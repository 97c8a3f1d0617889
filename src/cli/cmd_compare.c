// SPDX-License-Identifier: MIT
// `cdlab compare BASE NEW`: two runs of one kind, point by point. Points are joined by their
// parameters (the summary columns that carry config keys, `repeats` aside: every repeat starts
// from the seeded scene). Per joined point: the ratio NEW/BASE of the median of a frames.csv time
// column with a 95 % percentile bootstrap interval over the frames, and a verdict; the
// deterministic columns (meta.ini [columns] lists the others) must be equal, in summary.csv and
// frame by frame, or the point raises a correctness alarm. Differences of machine, CPU, build,
// pinning or measurement settings are warnings: the times may then differ for those reasons.
#include "cd_core.h"
#include "cd_harness_cli.h"
#include "cli.h"
#include "options.h"
#include "rundir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RESAMPLES 2000
#define LEVEL 0.95

typedef struct side {
    cd_rundir r;
    const char *name;  // "BASE" or "NEW"
    int metric;        // frames.csv column of the time
    int point_col;     // frames.csv `point`
    int *matched;      // per summary row: joined
} side;

typedef struct options {
    double threshold;  // 0.05 for 5 %
    int csv;
    uint64_t seed;
    const char *metric;
    const char *ignore;  // deterministic columns not to check
} options;

typedef struct tally {
    int faster, slower, same, within, skipped, alarms, only_base, only_new;
} tally;

static int word_in(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list ? list : ""; *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t k = strcspn(p, ", ");
        if (k == n && strncmp(p, w, n) == 0) return 1;
        p += k;
    }
    return 0;
}

// A parameter column that identifies a point.
static int join_param(const side *s, size_t j)
{
    return s->r.summary_role[j] == CD_COL_PARAM && strcmp(s->r.summary.rows[0].fields[j], "repeats") != 0;
}

// Does BASE row i name the same point as NEW row k? Every join parameter of either run must be a
// column of both with the same text.
static int same_point(const side *b, size_t i, const side *n, size_t k)
{
    const side *s[2] = {b, n};
    const size_t row[2] = {i, k};
    for (int t = 0; t < 2; ++t) {
        const cd_csv_row *h = &s[t]->r.summary.rows[0];
        for (size_t j = 0; j < h->count; ++j) {
            if (!join_param(s[t], j)) continue;
            int o = cd_table_column(&s[1 - t]->r.summary, h->fields[j]);
            if (o < 0) return 0;
            if (strcmp(cd_table_field(&s[t]->r.summary, row[t], (int)j),
                       cd_table_field(&s[1 - t]->r.summary, row[1 - t], o)) != 0)
                return 0;
        }
    }
    return 1;
}

// The columns shown for a point: parameters that take more than one value in either run.
static int shown_param(const side *b, const side *n, const char *name)
{
    int jb = cd_table_column(&b->r.summary, name), jn = cd_table_column(&n->r.summary, name);
    return (jb >= 0 && b->r.summary_role[jb] == CD_COL_PARAM && cd_rundir_distinct(&b->r, jb) > 1) ||
           (jn >= 0 && n->r.summary_role[jn] == CD_COL_PARAM && cd_rundir_distinct(&n->r, jn) > 1);
}

// The parameters shown for a point: those with more than one value in either run, BASE's in its
// column order, then NEW's own. At most max names; returns how many.
static size_t shown_names(const side *b, const side *n, const char **names, size_t max)
{
    const side *t[2] = {b, n};
    size_t k = 0;
    for (int u = 0; u < 2; ++u) {
        const cd_csv_row *h = &t[u]->r.summary.rows[0];
        for (size_t j = 0; j < h->count && k < max; ++j) {
            if (!join_param(t[u], j) || !shown_param(b, n, h->fields[j])) continue;
            if (u == 1 && cd_table_column(&b->r.summary, h->fields[j]) >= 0) continue;  // listed with BASE's
            names[k++] = h->fields[j];
        }
    }
    return k;
}

static void point_label(char *buf, size_t len, const side *b, const side *n, const side *s, size_t i)
{
    const char *names[256];
    size_t k = shown_names(b, n, names, 256), o = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < k && o < len; ++j) {
        int c = cd_table_column(&s->r.summary, names[j]);
        if (c >= 0)
            o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", o ? " " : "", names[j],
                                  cd_table_field(&s->r.summary, i, c));
    }
    if (!buf[0]) snprintf(buf, len, "point %s", cd_table_field(&s->r.summary, i, 0));
}

// For --format csv: the shown parameters of row i of s as fields (empty where s lacks the
// column), each followed by a comma. Returns how many.
static size_t csv_params(FILE *f, const side *b, const side *n, const side *s, size_t i)
{
    const char *names[256];
    size_t k = shown_names(b, n, names, 256);
    for (size_t j = 0; j < k; ++j) {
        int c = cd_table_column(&s->r.summary, names[j]);
        cd_csv_write_field(f, c >= 0 ? cd_table_field(&s->r.summary, i, c) : "", 1);
        fputc(',', f);
    }
    return k;
}

// The first fields of a CSV row: the shown parameters, or the point index when none is shown.
static void csv_row_start(FILE *f, const side *b, const side *n, const side *s, size_t i)
{
    if (csv_params(f, b, n, s, i) == 0) fprintf(f, "%s,", cd_table_field(&s->r.summary, i, 0));
}

// The metric's values over the frames of summary row i (NA frames left out).
static double *frames_of(const side *s, size_t i, size_t *count, size_t **rows)
{
    const char *point = cd_table_field(&s->r.summary, i, cd_table_column(&s->r.summary, "point"));
    double *v = NULL;
    size_t n = 0, cap = 0, rcap = 0;
    *rows = NULL;
    for (size_t f = 1; f < s->r.frames.count; ++f) {
        if (strcmp(cd_table_field(&s->r.frames, f, s->point_col), point) != 0) continue;
        double x;
        if (cd_csv_parse_double(cd_table_field(&s->r.frames, f, s->metric), &x) != 0) continue;
        cd_grow((void **)&v, sizeof *v, &cap, n + 1);
        cd_grow((void **)rows, sizeof **rows, &rcap, n + 1);
        (*rows)[n] = f;
        v[n++] = x;
    }
    *count = n;
    return v;
}

// Deterministic columns of a joined point: summary cells, then frame by frame over the frames
// both runs have. Writes the first difference into why; 1 when there is one.
static int alarm(const side *b, size_t i, const side *n, size_t k, const size_t *fb, size_t nfb, const size_t *fn,
                 size_t nfn, const options *o, char *why, size_t len)
{
    const cd_csv_row *h = &b->r.summary.rows[0];
    for (size_t j = 0; j < h->count; ++j) {
        if (b->r.summary_role[j] != CD_COL_EXACT || word_in(o->ignore, h->fields[j])) continue;
        int m = cd_table_column(&n->r.summary, h->fields[j]);
        if (m < 0 || n->r.summary_role[m] != CD_COL_EXACT) continue;
        const char *x = cd_table_field(&b->r.summary, i, (int)j), *y = cd_table_field(&n->r.summary, k, m);
        if (strcmp(x, y) != 0) {
            snprintf(why, len, "summary %s: %s (BASE) vs %s (NEW)", h->fields[j], x, y);
            return 1;
        }
    }
    const cd_csv_row *fh = &b->r.frames.rows[0];
    size_t rows = nfb < nfn ? nfb : nfn;
    for (size_t j = 0; j < fh->count; ++j) {
        if (b->r.frames_role[j] != CD_COL_EXACT || word_in(o->ignore, fh->fields[j])) continue;
        int m = cd_table_column(&n->r.frames, fh->fields[j]);
        if (m < 0 || n->r.frames_role[m] != CD_COL_EXACT) continue;
        for (size_t r = 0; r < rows; ++r) {
            const char *x = cd_table_field(&b->r.frames, fb[r], (int)j), *y = cd_table_field(&n->r.frames, fn[r], m);
            if (strcmp(x, y) != 0) {
                snprintf(why, len, "frames.csv %s at the point's frame %zu: %s (BASE line %zu) vs %s (NEW line %zu)",
                         fh->fields[j], r, x, b->r.frames.rows[fb[r]].line, y, n->r.frames.rows[fn[r]].line);
                return 1;
            }
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Warnings: what makes the two runs' times incomparable.

static void warn_diff(FILE *f, int csv, int *count, const side *b, const side *n, const char *sec, const char *key,
                      const char *what)
{
    const char *x = cd_rundir_meta(&b->r, sec, key, "(none)"), *y = cd_rundir_meta(&n->r, sec, key, "(none)");
    if (strcmp(x, y) == 0) return;
    ++*count;
    if (csv)
        fprintf(stderr, "cdlab compare: warning: %s differs: [%s] %s = %s (BASE) vs %s (NEW)\n", what, sec, key, x, y);
    else
        fprintf(f, "- **%s differs**: `[%s] %s` = `%s` (BASE) vs `%s` (NEW)\n", what, sec, key, x, y);
}

static int warnings(FILE *f, int csv, const side *b, const side *n)
{
    static const char *const keys[][3] = {
        {"run", "host", "host"},
        {"machine", "cpu_model", "CPU"},
        {"machine", "cpus_online", "CPU count"},
        {"machine", "topology", "topology"},
        {"machine", "simd", "SIMD paths"},
        {"cdlab", "build_type", "build"},
        {"cdlab", "compiler", "compiler"},
        {"cdlab", "c_flags", "build flags"},
        {"cdlab", "c_flags_extra", "build flags"},
        {"cdlab", "cxx_flags", "build flags"},
        {"cdlab", "sanitize", "sanitizers"},
        {"pinning", "status", "pinning"},
        {"pinning", "actual_cpu", "pinned CPU"},
        {"pinning", "allocator", "allocator"},
        {"run", "isolate", "isolation"},
    };
    int count = 0;
    if (!csv) fprintf(f, "\n## Warnings\n\n");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        warn_diff(f, csv, &count, b, n, keys[i][0], keys[i][1], keys[i][2]);
    // Every config value that is not a point's parameter (clock, order, isolate, ...).
    for (size_t i = 0; i < b->r.meta.count; ++i) {
        const cd_ini_entry *e = &b->r.meta.items[i];
        if (strcmp(e->section, "values") != 0) continue;
        const char *dot = strchr(e->key, '.');
        if (dot && cd_table_column(&b->r.summary, dot + 1) >= 0) continue;
        if (strcmp(e->key, "run.output") == 0) continue;
        warn_diff(f, csv, &count, b, n, "values", e->key, "setting");
    }
    if (!csv && count == 0) fprintf(f, "None: same host, CPU, build, flags, pinning and settings.\n");
    return count;
}

// ---------------------------------------------------------------------------------------------

static const char *verdict(const cd_ratio_ci *c, double t, tally *s)
{
    if (c->lo > 1 + t) return s->slower++, "slower";
    if (c->hi < 1 / (1 + t)) return s->faster++, "faster";
    if (c->lo > 1 || c->hi < 1) return s->within++, "within_threshold";
    return s->same++, "no_change";
}

static const char *verdict_md(const char *v)
{
    if (strcmp(v, "no_change") == 0) return "no significant change";
    if (strcmp(v, "within_threshold") == 0) return "changed, within threshold";
    if (strcmp(v, "slower") == 0) return "**slower**";
    if (strcmp(v, "faster") == 0) return "faster";
    return v;
}

static void header(FILE *f, const options *o, const side *b, const side *n)
{
    if (o->csv) {
        const char *names[256];
        size_t k = shown_names(b, n, names, 256);
        for (size_t j = 0; j < k; ++j) fprintf(f, "%s,", names[j]);
        if (!k) fprintf(f, "point,");
        fprintf(f, "base_median,new_median,ratio,ci_low,ci_high,verdict,alarm\n");
        return;
    }
    fprintf(f, "# cdlab compare\n\n");
    const side *s[2] = {b, n};
    for (int t = 0; t < 2; ++t) {
        // A merged run whose shards ran from different checkouts has no one commit (merge's marker).
        const char *commit = cd_rundir_meta(&s[t]->r, "cdlab", "git_commit", "?");
        const char *dirty = cd_rundir_meta(&s[t]->r, "cdlab", "git_dirty", "false");
        int several = strcmp(commit, CD_MERGE_DIFFERS) == 0;
        fprintf(f, "- %s: `%s` (%s, kind %s, %s%.12s%s, %s)\n", s[t]->name, s[t]->r.dir,
                cd_rundir_meta(&s[t]->r, "run", "experiment", "?"), cd_rundir_meta(&s[t]->r, "run", "kind", "?"),
                several ? "commits of its shards in meta.ini [merge]" : "commit ", several ? "" : commit,
                strcmp(dirty, "true") == 0             ? " dirty"
                : strcmp(dirty, CD_MERGE_DIFFERS) == 0 ? ", some shards dirty"
                                                       : "",
                cd_rundir_meta(&s[t]->r, "run", "date_start", "?"));
    }
    fprintf(f,
            "- metric: `%s` of frames.csv; ratio = NEW median / BASE median; 95 %% percentile bootstrap interval "
            "over the frames (%d resamples, seed %llu); threshold %g %%: slower when the whole interval is above "
            "%.4g, faster when below %.4g\n",
            b->r.frames.rows[0].fields[b->metric], RESAMPLES, (unsigned long long)o->seed, o->threshold * 100,
            1 + o->threshold, 1 / (1 + o->threshold));
}

// The alarms of a comparison: one line per joined point whose deterministic columns differ.
typedef struct alarm_list {
    char **line;
    size_t count, capacity;
} alarm_list;

static void alarm_add(alarm_list *a, const char *label, const char *why)
{
    cd_grow((void **)&a->line, sizeof *a->line, &a->capacity, a->count + 1);
    size_t len = strlen(label) + strlen(why) + 4;
    a->line[a->count] = cd_alloc(len);
    snprintf(a->line[a->count++], len, "%s: %s", label, why);
}

// The row of BASE point i joined with NEW point k: medians, ratio, interval, verdict, alarm.
static void joined_row(FILE *f, side *b, size_t i, side *n, size_t k, const options *o, tally *t, alarm_list *al)
{
    char label[1024], why[1200];
    point_label(label, sizeof label, b, n, b, i);
    size_t nb, nn, *rb, *rn;
    double *vb = frames_of(b, i, &nb, &rb), *vn = frames_of(n, k, &nn, &rn);
    int bad = alarm(b, i, n, k, rb, nb, rn, nn, o, why, sizeof why);
    if (bad) {
        t->alarms++;
        alarm_add(al, label, why);
    }
    if (nb == 0 || nn == 0) {
        t->skipped++;
        if (o->csv) {
            csv_row_start(f, b, n, b, i);
            fprintf(f, "NA,NA,NA,NA,NA,skipped_in_%s,%d\n", nb ? "new" : "base", bad);
        } else {
            fprintf(f, "| %s | %s | %s | | | skipped in %s%s |\n", label, nb ? "" : "skipped", nn ? "" : "skipped",
                    nb ? "NEW" : "BASE", bad ? ", **correctness alarm**" : "");
        }
    } else {
        cd_stats sb = cd_stats_compute(vb, nb), sn = cd_stats_compute(vn, nn);
        cd_ratio_ci c = sb.median > 0 ? cd_bootstrap_median_ratio(vb, nb, vn, nn, RESAMPLES, LEVEL, o->seed)
                                      : (cd_ratio_ci){NAN, NAN, NAN};
        const char *v = sb.median > 0 ? verdict(&c, o->threshold, t) : (t->same++, "no_change");
        if (o->csv) {
            csv_row_start(f, b, n, b, i);
            fprintf(f, "%.6g,%.6g,%.4f,%.4f,%.4f,%s,%d\n", sb.median, sn.median, c.ratio, c.lo, c.hi, v, bad);
        } else
            fprintf(f, "| %s | %.4g | %.4g | %.3f | %.3f – %.3f | %s%s |\n", label, sb.median, sn.median, c.ratio, c.lo,
                    c.hi, verdict_md(v), bad ? ", **correctness alarm**" : "");
    }
    cd_free(vb);
    cd_free(vn);
    cd_free(rb);
    cd_free(rn);
}

// The rows of the points of one run only.
static void unmatched_rows(FILE *f, const side *b, const side *n, const options *o, tally *t)
{
    const side *s[2] = {b, n};
    for (int u = 0; u < 2; ++u)
        for (size_t i = 1; i < s[u]->r.summary.count; ++i) {
            if (s[u]->matched[i]) continue;
            u ? t->only_new++ : t->only_base++;
            char label[1024];
            point_label(label, sizeof label, b, n, s[u], i);
            if (o->csv) {
                csv_row_start(f, b, n, s[u], i);
                fprintf(f, "NA,NA,NA,NA,NA,only_in_%s,0\n", u ? "new" : "base");
            } else
                fprintf(f, "| %s | %s | %s | | | only in %s |\n", label, u ? "" : "yes", u ? "yes" : "", s[u]->name);
        }
}

// The alarms (a section of the report, or stderr with --format csv), then freed.
static void alarms_out(FILE *f, const options *o, alarm_list *al)
{
    if (!o->csv) {
        fprintf(f, "\n## Correctness\n\n");
        if (!al->count)
            fprintf(f, "The deterministic columns (pairs, candidates, tests, ...) of every joined point are equal.\n");
        for (size_t a = 0; a < al->count; ++a) fprintf(f, "- **correctness alarm**: %s\n", al->line[a]);
    } else {
        for (size_t a = 0; a < al->count; ++a) fprintf(stderr, "cdlab compare: correctness alarm: %s\n", al->line[a]);
    }
    for (size_t a = 0; a < al->count; ++a) cd_free(al->line[a]);
    cd_free(al->line);
}

// Whether some point of b joins one of n (same_point): else there is nothing to compare, and
// nothing is written. compare() is called only when one does, so it joins at least one point.
static int share_a_point(const side *b, const side *n)
{
    for (size_t i = 1; i < b->r.summary.count; ++i)
        for (size_t k = 1; k < n->r.summary.count; ++k)
            if (same_point(b, i, n, k)) return 1;
    return 0;
}

static int compare(FILE *f, side *b, side *n, const options *o, tally *t)
{
    warnings(o->csv ? stderr : f, o->csv, b, n);
    const char *metric = b->r.frames.rows[0].fields[b->metric];
    if (!o->csv)
        fprintf(f,
                "\n## Points\n\n| point | BASE %s | NEW %s | ratio | 95 %% CI | verdict |\n|---|---|---|---|---|---|\n",
                metric, metric);
    alarm_list al = {NULL, 0, 0};
    for (size_t i = 1; i < b->r.summary.count; ++i) {
        size_t k = 1;
        while (k < n->r.summary.count && (n->matched[k] || !same_point(b, i, n, k))) k++;
        if (k == n->r.summary.count) continue;
        b->matched[i] = n->matched[k] = 1;
        joined_row(f, b, i, n, k, o, t, &al);
    }
    unmatched_rows(f, b, n, o, t);
    alarms_out(f, o, &al);
    int joined = t->faster + t->slower + t->same + t->within + t->skipped;
    FILE *sf = o->csv ? stderr : f;
    fprintf(sf,
            "%s%d joined point(s): %d slower, %d faster, %d no significant change, %d changed within the "
            "threshold, %d skipped; %d only in BASE, %d only in NEW; %d correctness alarm(s)\n",
            o->csv ? "cdlab compare: " : "\n## Result\n\n", joined, t->slower, t->faster, t->same, t->within,
            t->skipped, t->only_base, t->only_new, t->alarms);
    if (t->alarms) return 3;
    return t->slower ? 1 : 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

// Whether frames.csv column name of run r is a cost, lower being better, as the verdicts read it:
// a time (_ms, _us, _ns, ns_per_...) or a counter that the run read ([counters] name = ok). FPS,
// throughputs (mtests_per_s) and ratios are not: a higher value would read as slower. 1, or 0 with
// why in err.
static int is_cost(const cd_rundir *r, const char *dir, const char *name, char *err, size_t len)
{
    if (ends_with(name, "_ms") || ends_with(name, "_us") || ends_with(name, "_ns") || strncmp(name, "ns_per_", 7) == 0)
        return 1;
    // Read: "ok", or "ok (perf_event_open; PAPI: ...)" for an event cdlab opened itself.
    const char *counter = cd_rundir_meta(r, "counters", name, NULL);
    if (counter && strncmp(counter, "ok", 2) == 0 && (counter[2] == '\0' || counter[2] == ' ')) return 1;
    if (counter)
        snprintf(err, len, "%s: counter %s was not read in this run (meta.ini [counters]: %s): nothing to compare", dir,
                 name, counter);
    else
        snprintf(err, len,
                 "%s/frames.csv: --metric %s: expected a time (a column ending in _ms, _us or _ns) or a counter the "
                 "run read: compare takes a lower value as faster",
                 dir, name);
    return 0;
}

static int open_side(side *s, const char *dir, const char *name, const char *metric, char *err, size_t len)
{
    s->name = name;
    if (cd_rundir_read(dir, &s->r, err, len)) return -1;
    s->point_col = cd_table_column(&s->r.frames, "point");
    if (strcmp(cd_rundir_meta(&s->r, "run", "kind", ""), "max_fps") == 0) {
        snprintf(err, len,
                 "%s: a max_fps run: its frames belong to the probes of a search, not to one point; "
                 "compare the cubes runs of the answers instead",
                 dir);
        return -1;
    }
    if (metric) {
        s->metric = cd_table_column(&s->r.frames, metric);
        if (s->metric < 0 || s->r.frames_role[s->metric] != CD_COL_VARYING) {
            snprintf(err, len,
                     "%s/frames.csv: no time column '%s': expected one of [columns] frames_varying in meta.ini", dir,
                     metric);
            return -1;
        }
        if (!is_cost(&s->r, dir, metric, err, len)) return -1;
    } else {
        // The kind's first varying frames column is its time (frame_ms, query_us, pass_ms, ...).
        s->metric = -1;
        for (size_t j = 0; j < s->r.frames.rows[0].count && s->metric < 0; ++j)
            if (s->r.frames_role[j] == CD_COL_VARYING) s->metric = (int)j;
    }
    if (s->metric < 0 || s->point_col < 0) {
        snprintf(err, len, "%s/frames.csv: no `point` column or no time column: expected a run of cdlab run", dir);
        return -1;
    }
    s->matched = cd_alloc_zero(s->r.summary.count, sizeof *s->matched);
    return 0;
}

// --threshold T: a fraction (0.05) or a percentage (5%).
static int parse_threshold(const char *v, void *ctx, char *err, size_t len)
{
    char *end;
    double t = strtod(v, &end);
    if (end != v && *end == '%') t /= 100, end++;
    if (end == v || *end || !(t >= 0 && t < 10)) {
        snprintf(err, len, "a percentage such as 5%% or a fraction such as 0.05");
        return -1;
    }
    *(double *)ctx = t;
    return 0;
}

// Each --ignore word must name a deterministic column of BASE or NEW (summary.csv or frames.csv):
// a misspelt one would silently check what it meant to skip. 0, or -1 with why in err.
static int check_ignored(const side *b, const side *n, const char *list, char *err, size_t len)
{
    for (const char *p = list ? list : ""; *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t k = strcspn(p, ", ");
        if (!k) break;
        int found = 0;
        const side *s[2] = {b, n};
        for (int t = 0; t < 2 && !found; ++t) {
            const cd_csv_row *h[2] = {&s[t]->r.summary.rows[0], &s[t]->r.frames.rows[0]};
            const cd_col_role *role[2] = {s[t]->r.summary_role, s[t]->r.frames_role};
            for (int f = 0; f < 2 && !found; ++f)
                for (size_t j = 0; j < h[f]->count && !found; ++j)
                    found = role[f][j] == CD_COL_EXACT && strlen(h[f]->fields[j]) == k &&
                            strncmp(h[f]->fields[j], p, k) == 0;
        }
        if (!found) {
            snprintf(err, len,
                     "--ignore %.*s: no deterministic column of that name in either run (summary.csv or frames.csv "
                     "columns that meta.ini [columns] does not list as varying or parameters)",
                     (int)k, p);
            return -1;
        }
        p += k;
    }
    return 0;
}

// Why no point joins: the parameters whose values in BASE and NEW have none in common (or that one
// run lacks), "warmup (BASE 1; NEW 2), ..." into buf; "" when every parameter shares a value and
// only their combinations differ.
static void disjoint_params(const side *b, const side *n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    const cd_csv_row *h = &b->r.summary.rows[0];
    for (size_t j = 0; j < h->count && used + 1 < len; ++j) {
        if (!join_param(b, j)) continue;
        int o = cd_table_column(&n->r.summary, h->fields[j]);
        int common = 0;
        for (size_t i = 1; o >= 0 && i < b->r.summary.count && !common; ++i)
            for (size_t k = 1; k < n->r.summary.count && !common; ++k)
                common = strcmp(cd_table_field(&b->r.summary, i, (int)j), cd_table_field(&n->r.summary, k, o)) == 0;
        if (common) continue;
        int w;
        if (o < 0)
            w = snprintf(buf + used, len - used, "%s%s (not in NEW)", used ? ", " : "", h->fields[j]);
        else
            w = snprintf(buf + used, len - used, "%s%s (BASE %s; NEW %s)", used ? ", " : "", h->fields[j],
                         cd_table_field(&b->r.summary, 1, (int)j), cd_table_field(&n->r.summary, 1, o));
        used += w > 0 ? (size_t)w : 0;
        if (used >= len) used = len - 1;
    }
    const cd_csv_row *hn = &n->r.summary.rows[0];
    for (size_t j = 0; j < hn->count && used + 1 < len; ++j)
        if (join_param(n, j) && cd_table_column(&b->r.summary, hn->fields[j]) < 0) {
            int w = snprintf(buf + used, len - used, "%s%s (not in BASE)", used ? ", " : "", hn->fields[j]);
            used += w > 0 ? (size_t)w : 0;
            if (used >= len) used = len - 1;
        }
}

// The two runs opened, checked to be comparable, compared on stdout: the command's exit status.
static int compare_dirs(const char *const dirs[2], const options *o)
{
    side b = {0}, n = {0};
    char err[4600];
    int rc = 0;
    if (open_side(&b, dirs[0], "BASE", o->metric, err, sizeof err) ||
        open_side(&n, dirs[1], "NEW", o->metric, err, sizeof err)) {
        fprintf(stderr, "cdlab compare: %s\n", err);
        rc = 2;
    } else if (strcmp(cd_rundir_meta(&b.r, "run", "kind", ""), cd_rundir_meta(&n.r, "run", "kind", "")) != 0) {
        fprintf(stderr, "cdlab compare: %s is a %s run, %s a %s run: expected two runs of one kind\n", dirs[0],
                cd_rundir_meta(&b.r, "run", "kind", "?"), dirs[1], cd_rundir_meta(&n.r, "run", "kind", "?"));
        rc = 2;
    } else if (strcmp(b.r.frames.rows[0].fields[b.metric], n.r.frames.rows[0].fields[n.metric]) != 0) {
        fprintf(stderr, "cdlab compare: the time columns differ: %s (BASE) vs %s (NEW)\n",
                b.r.frames.rows[0].fields[b.metric], n.r.frames.rows[0].fields[n.metric]);
        rc = 2;
    } else if (check_ignored(&b, &n, o->ignore, err, sizeof err)) {
        fprintf(stderr, "cdlab compare: %s\n", err);
        rc = 2;
    } else if (b.r.summary.count < 2 || n.r.summary.count < 2) {  // a shard that got none of the points
        fprintf(
            stderr,
            "cdlab compare: %s has no points (a summary.csv of no rows, as a shard given none): nothing to compare\n",
            dirs[b.r.summary.count < 2 ? 0 : 1]);
        rc = 2;
    } else if (!share_a_point(&b, &n)) {
        char why[2048];
        disjoint_params(&b, &n, why, sizeof why);
        if (why[0])
            fprintf(stderr, "cdlab compare: the runs share no point: no value in common for %s\n", why);
        else
            fprintf(stderr, "cdlab compare: the runs share no point: every parameter has a value in both, but no "
                            "point has the same values of all (see `[values]` in each meta.ini)\n");
        rc = 2;
    } else {
        tally t = {0};
        header(stdout, o, &b, &n);
        rc = compare(stdout, &b, &n, o, &t);
    }
    cd_rundir_free(&b.r);
    cd_rundir_free(&n.r);
    cd_free(b.matched);
    cd_free(n.matched);
    return rc;
}

static const char compare_about[] =
    "Compare two runs point by point. Points are joined by their parameters (the summary columns\n"
    "named after config keys, repeats aside); per point the ratio NEW/BASE of the median time over\n"
    "the frames (default: the kind's first varying frames.csv column, e.g. frame_ms) with a 95 %\n"
    "percentile bootstrap interval (2000 resamples of the frames, seeded), and a verdict:\n"
    "slower (the whole interval above 1 + threshold), faster (below 1 / (1 + threshold)), changed\n"
    "within the threshold, or no significant change (the interval holds 1). Points of one run only\n"
    "are listed. The deterministic columns (pairs, candidates, BV and narrow tests, ...: every\n"
    "column meta.ini does not list as varying) must be equal in summary.csv and frame by frame;\n"
    "a difference is a correctness alarm. Differences of host, CPU, build, flags, pinning or\n"
    "settings are warnings.\n";

static const char compare_after[] =
    "Exit 0: no point slower; 1: a point significantly slower beyond the threshold; 3: a\n"
    "correctness alarm (deterministic columns differ); 2: bad usage, a directory that is not a\n"
    "complete run, runs of different kinds, or no point in common.\n";

int cd_cmd_compare(int argc, char **argv)
{
    options o = {.threshold = 0.05, .seed = 42};
    static const char *const formats[] = {"md", "csv", NULL};
    const char *format = "md";
    uint64_t seed = 42;
    const cli_opt opts[] = {
        {.name = "threshold",
         .arg = "T",
         .help = "relative change that counts, as 5% or 0.05 (default 5%)",
         .type = CLI_CALL,
         .call = parse_threshold,
         .ctx = &o.threshold},
        {.name = "format",
         .arg = "F",
         .help = "md (default: Markdown report) or csv (one row per point; warnings, alarms\n"
                 "and the tally on stderr)",
         .type = CLI_WORD,
         .dest = &format,
         .words = formats},
        {.name = "metric",
         .arg = "COLUMN",
         .help = "the frames.csv column to compare: a time (_ms, _us, _ns, ns_per_...) or\n"
                 "a counter the runs read (lower is faster)",
         .type = CLI_TEXT,
         .dest = &o.metric},
        {.name = "seed",
         .arg = "S",
         .help = "bootstrap seed (default 42)",
         .type = CLI_COUNT,
         .dest = &seed,
         .lo = 0,
         .hi = UINT64_MAX},
        {.name = "ignore",
         .arg = "C,...",
         .help = "deterministic columns not to check (e.g. bytes_mean after a layout change)",
         .type = CLI_TEXT,
         .dest = &o.ignore},
    };
    const cli_spec spec = {.command = "compare",
                           .usage = "[--threshold 5%] [--format md|csv] [--metric COLUMN] [--seed S]\n"
                                    "                     [--ignore COLUMN,...] BASE NEW",
                           .opts = opts,
                           .count = sizeof opts / sizeof opts[0],
                           .min_operands = 2,
                           .max_operands = 2,
                           .operands = "two run directories, BASE and NEW",
                           .about = compare_about,
                           .after = compare_after};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    const char *dirs[2] = {ops.n > 0 ? ops.v[0] : NULL, ops.n > 1 ? ops.v[1] : NULL};
    cli_operands_free(&ops);
    if (rc >= 0) return rc;
    o.csv = strcmp(format, "csv") == 0;
    o.seed = seed;
    return compare_dirs(dirs, &o);
}
