// SPDX-License-Identifier: MIT
// `cdlab merge`: the shards of a sweep (cdlab run --shard I/N) joined into one run directory as
// an unsharded run writes it: frames.csv and summary.csv with the points in plan order (each
// point's rows as its shard wrote them, byte for byte through the one CSV reader and writer),
// config.ini, and meta.ini. summary.csv gains two columns, shard and host: where each point ran.
//
// Refused, before anything is written: a directory that is not a complete shard run (or whose
// [shard] numbers are damaged); shards of different configs (config SHA-256), builds, source trees
// or SIMD paths; shards that read one input path with different SHA-256 or loaded different
// plugins; different shard counts or plans; a shard given twice; points missing or measured twice;
// rows that disagree with their shard's meta.ini, a point's summary rows (one, or one per probe for
// max_fps) split by another point's, or headers that differ; CSVs that are not what the
// shard's run wrote (their size and SHA-256 in its meta.ini [files]: cut short, rows gone, edited);
// a config.ini that is not the config its meta.ini [config] sha256 records; a shard file that is no
// regular file or over its size limit (read once, through the bounded reader). Shards measured on
// different CPU models are merged with a warning: their times are not comparable across shards.
// meta.ini's [inputs] lists every shard's input files once: the traces of simulated scenes differ
// by shard (those its points replayed).
//
// Written as a run is: the INCOMPLETE marker, locked, then .part files renamed when whole. A
// failure, or SIGINT or SIGTERM while it writes, removes what it made (parent directories too).
#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "run_private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------
// meta.ini as a list of entries, continuation lines joined with a space. Read here line by line
// without a length limit: inih's 200-byte lines would cut a long value (c_flags_extra has no ", "
// for the writer to wrap at).

typedef struct entry {
    char section[64], key[96];
    char *value;
} entry;

typedef struct meta {
    entry *e;
    size_t n, cap;
} meta;

static void on_entry(void *user, const char *section, const char *name, const char *value)
{
    meta *m = user;
    entry *last = m->n ? &m->e[m->n - 1] : NULL;
    if (last && name[0] && strcmp(last->section, section) == 0 && strcmp(last->key, name) == 0) {  // a continuation
        size_t a = strlen(last->value), b = strlen(value), sep = a > 0;  // "key =" then the value below
        last->value = cd_realloc(last->value, a + b + 2);
        if (sep) last->value[a] = ' ';
        memcpy(last->value + a + sep, value, b + 1);
        return;
    }
    cd_grow((void **)&m->e, sizeof *m->e, &m->cap, m->n + 1);
    entry *e = &m->e[m->n++];
    snprintf(e->section, sizeof e->section, "%s", section);
    snprintf(e->key, sizeof e->key, "%s", name);
    size_t len = strlen(value);
    e->value = cd_alloc(len + 1);
    memcpy(e->value, value, len + 1);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') ++s;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) *--e = '\0';
    return s;
}

// Read path into m. 0, or the 1-based line that is not INI (-1: cannot open).
static int meta_read(const char *path, meta *m)
{
    cd_text_file f;
    char why[512];
    if (cd_text_open(&f, path, why, sizeof why)) return -1;  // bounded: no device, no endless line
    char *line, section[64] = "", key[96] = "";
    int n = 0, bad = 0;
    while (!bad && cd_text_getline(&f, &line) >= 0) {
        ++n;
        int indented = line[0] == ' ' || line[0] == '\t';
        char *t = trim(line), *eq;
        if (!*t || ((*t == ';' || *t == '#') && indented)) continue;
        if (*t == ';' || *t == '#') {  // a comment line, kept as an entry without a key
            on_entry(m, section, "", t);
            key[0] = '\0';
        } else if (indented && key[0]) {
            on_entry(m, section, key, t);
        } else if (*t == '[') {
            char *close = strchr(t, ']');
            if (!close) {
                bad = n;
                continue;
            }
            *close = '\0';
            snprintf(section, sizeof section, "%s", t + 1);
            key[0] = '\0';
        } else if ((eq = strchr(t, '=')) != NULL) {
            *eq = '\0';
            snprintf(key, sizeof key, "%s", trim(t));
            on_entry(m, section, key, trim(eq + 1));
        } else {
            bad = n;
        }
    }
    cd_text_close(&f);
    return bad;
}

static void meta_free(meta *m)
{
    for (size_t i = 0; i < m->n; ++i) cd_free(m->e[i].value);
    cd_free(m->e);
    memset(m, 0, sizeof *m);
}

// The value of section.key, or NULL.
static const char *meta_get(const meta *m, const char *section, const char *key)
{
    for (size_t i = 0; i < m->n; ++i)
        if (strcmp(m->e[i].section, section) == 0 && strcmp(m->e[i].key, key) == 0) return m->e[i].value;
    return NULL;
}

static const char *meta_str(const meta *m, const char *section, const char *key)
{
    const char *v = meta_get(m, section, key);
    return v ? v : "";
}

// ---------------------------------------------------------------------------------------------
// The shards as read.

typedef struct shard {
    const char *dir;
    meta m;
    uint32_t index;
    size_t *points, npoints;  // [shard] points
    cd_csv_table frames, summary;
} shard;

// Parse "a, b-c, ..." into sorted indices below plan. 0; -1 when not such a list; or -2 with
// *beyond the first index not below plan, found before its range is expanded: a damaged range
// (0-99999999999) costs no memory, and sorted, each index once and below plan, the list holds
// at most plan indices.
static int parse_points(const char *text, size_t plan, size_t **out, size_t *n, unsigned long long *beyond)
{
    size_t cap = 0;
    *out = NULL, *n = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ' || *p == ',') ++p;
        if (!*p) break;
        char *end;
        if (*p < '0' || *p > '9') return -1;
        errno = 0;
        unsigned long long a = strtoull(p, &end, 10), b = a;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9') return -1;
            b = strtoull(end + 1, &end, 10);
        }
        if (errno == ERANGE || b < a || (*end && *end != ',' && *end != ' ')) return -1;
        if (b >= plan) return *beyond = b, -2;
        for (unsigned long long i = a; i <= b; ++i) {
            if (*n && i <= (*out)[*n - 1]) return -1;  // sorted, each once
            cd_grow((void **)out, sizeof **out, &cap, *n + 1);
            (*out)[(*n)++] = (size_t)i;
        }
        p = end;
    }
    return 0;
}

// text as a whole number in [min, max]: 0 with *v, or -1.
static int parse_count(const char *text, unsigned long long min, unsigned long long max, unsigned long long *v)
{
    char *end;
    errno = 0;
    if (!text || *text < '0' || *text > '9') return -1;
    *v = strtoull(text, &end, 10);
    return errno || *end || *v < min || *v > max ? -1 : 0;
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

// Read shard s (its directory's meta.ini). 0, or -1 with err.
static int read_shard(shard *s, char *err, size_t len)
{
    char why[700], path[4600];
    if (cd_run_dir_check(s->dir, why, sizeof why)) return fail(err, len, "%s: %s: not a shard to merge", s->dir, why);
    snprintf(path, sizeof path, "%s/meta.ini", s->dir);
    int line = meta_read(path, &s->m);
    if (line) return fail(err, len, "%s:%d: cannot read meta.ini", path, line < 0 ? 0 : line);
    const char *index = meta_get(&s->m, "shard", "index"), *points = meta_get(&s->m, "shard", "points");
    const char *count = meta_get(&s->m, "shard", "count"), *plan = meta_get(&s->m, "shard", "plan_points");
    if (!index || !count || !points)
        return fail(err, len, "%s: not a shard: meta.ini has no [shard] (a run of cdlab run without --shard)", s->dir);
    // The numbers that size what merge allocates, checked before they do: a damaged line is
    // refused, not an allocation of hundreds of gigabytes.
    unsigned long long c, i, p, beyond = 0;
    if (parse_count(count, 1, CD_SHARD_MAX, &c))
        return fail(err, len, "%s: [shard] count: expected a number of shards from 1 to %u, got '%.80s'", path,
                    CD_SHARD_MAX, count);
    if (parse_count(index, 0, c - 1, &i))
        return fail(err, len, "%s: [shard] index: expected a number from 0 to %llu (below count), got '%.80s'", path,
                    c - 1, index);
    if (parse_count(plan, 1, CD_PLAN_MAX_POINTS, &p))
        return fail(err, len, "%s: [shard] plan_points: expected a number of points from 1 to %zu, got '%.80s'", path,
                    CD_PLAN_MAX_POINTS, plan ? plan : "");
    s->index = (uint32_t)i;
    int bad = parse_points(points, (size_t)p, &s->points, &s->npoints, &beyond);
    if (bad == -2)
        return fail(err, len, "%s: [shard] points: point %llu is beyond the plan's %llu points", path, beyond, p);
    if (bad) return fail(err, len, "%s: [shard] points: expected sorted indices and ranges, got '%.80s'", path, points);
    return 0;
}

// Keys that must be equal in every shard: same config, same build, same plan, and the same SIMD
// paths: as for a resumed run (cd_run_same_check: build_commit, build_type, c_flags, sanitize and
// simd), a run's points come from one build on one set of SIMD paths, which decide the code a
// point ran and so its times. Not git_commit and git_dirty, which a resume does not compare
// either: they describe the checkout when a shard started (a commit or an edit there between a
// job array's tasks, the binary unchanged), while build_commit (`git describe --dirty` at build
// time) names the code; [merge] lists each shard's.
static const struct {
    const char *section, *key, *what;
} same_keys[] = {
    {"config", "sha256", "different configs"},
    {"run", "experiment", "different experiments"},
    {"run", "kind", "different kinds"},
    {"cdlab", "version", "different builds"},
    {"cdlab", "build_commit", "different builds"},
    {"cdlab", "build_type", "different builds"},
    {"cdlab", "compiler", "different builds"},
    {"cdlab", "c_flags", "different builds"},
    {"cdlab", "c_flags_extra", "different builds"},
    {"cdlab", "cxx_flags", "different builds"},
    {"cdlab", "sanitize", "different builds"},
    {"machine", "simd", "different SIMD paths"},
    {"shard", "count", "different shard counts"},
    {"shard", "plan_points", "different plans"},
};

static int check_same(const shard *s, size_t n, char *err, size_t len)
{
    for (size_t k = 0; k < sizeof same_keys / sizeof same_keys[0]; ++k)
        for (size_t i = 1; i < n; ++i) {
            const char *a = meta_str(&s[0].m, same_keys[k].section, same_keys[k].key);
            const char *b = meta_str(&s[i].m, same_keys[k].section, same_keys[k].key);
            if (strcmp(a, b) != 0)
                return fail(err, len, "%s: %s has [%s] %s = %.100s, %s has %.100s", same_keys[k].what, s[0].dir,
                            same_keys[k].section, same_keys[k].key, a, s[i].dir, b);
        }
    return 0;
}

// One file of a shard's meta.ini [inputs]: iK_path, iK_bytes, iK_sha256 and iK_derived.
typedef struct input {
    const char *path, *bytes, *sha256, *derived;
    size_t shard;  // the shard (index into s) that lists it
} input;

// Append shard i's [inputs] to *v (*count of them, *cap allocated), in file order. Found by their
// iK_path keys, not by [inputs] count: a damaged count cannot make this loop for ever.
static void shard_inputs(const shard *s, size_t i, input **v, size_t *count, size_t *cap)
{
    const meta *m = &s[i].m;
    for (size_t k = 0; k < m->n; ++k) {
        const entry *e = &m->e[k];
        size_t len = strlen(e->key), digits = strspn(e->key + 1, "0123456789");
        if (strcmp(e->section, "inputs") != 0 || e->key[0] != 'i' || digits == 0 ||
            strcmp(e->key + 1 + digits, "_path"))
            continue;
        char key[128];
        int stem = (int)(len - 5);
        input in = {.path = e->value, .shard = i};
        snprintf(key, sizeof key, "%.*s_bytes", stem, e->key);
        in.bytes = meta_str(m, "inputs", key);
        snprintf(key, sizeof key, "%.*s_sha256", stem, e->key);
        in.sha256 = meta_str(m, "inputs", key);
        snprintf(key, sizeof key, "%.*s_derived", stem, e->key);
        in.derived = meta_get(m, "inputs", key);
        cd_grow((void **)v, sizeof **v, cap, *count + 1);
        (*v)[(*count)++] = in;
    }
}

static int by_path(const void *a, const void *b)
{
    const input *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    if (!c) c = strcmp(x->sha256, y->sha256);
    return c ? c : (x->shard > y->shard) - (x->shard < y->shard);
}

// The shards read the same files: an input path (a file the config names, or one derived from it:
// a simulated scene's trace) that two shards list with different SHA-256 means they measured
// different inputs under one config (a poses file rewritten between two shards' runs), and the
// merged summary would mix them as if one run had measured both. Sorted by path and digest, so a
// sweep of many shards costs n log n. Files at different paths are not compared: shards that ran
// from different directories name their own copies. 0, or -1 with err.
static int check_inputs(const shard *s, size_t n, char *err, size_t len)
{
    input *v = NULL;
    size_t count = 0, cap = 0;
    for (size_t i = 0; i < n; ++i) shard_inputs(s, i, &v, &count, &cap);
    if (count) qsort(v, count, sizeof *v, by_path);
    int bad = 0;
    for (size_t k = 1; k < count && !bad; ++k)
        if (strcmp(v[k].path, v[k - 1].path) == 0 && strcmp(v[k].sha256, v[k - 1].sha256) != 0)
            bad = fail(err, len,
                       "different input files: %s has SHA-256 %.12s... in %s, %.12s... in %s%s%s%s: the shards did "
                       "not read the same file (run them again on one version of it)",
                       v[k].path, v[k - 1].sha256, s[v[k - 1].shard].dir, v[k].sha256, s[v[k].shard].dir,
                       v[k].derived ? " (derived: " : "", v[k].derived ? v[k].derived : "", v[k].derived ? ")" : "");
    cd_free(v);
    return bad;
}

// The same plugins: every [plugins] key (path, size, SHA-256, name, what it provides, its build)
// of shard 0 in every shard with the same value, and no other. Shards that loaded different
// plugin code measured different methods under the same names. 0, or -1 with err.
static int check_plugins(const shard *s, size_t n, char *err, size_t len)
{
    for (size_t i = 1; i < n; ++i)
        for (int way = 0; way < 2; ++way) {
            const meta *a = &s[way ? i : 0].m, *b = &s[way ? 0 : i].m;
            for (size_t k = 0; k < a->n; ++k) {
                const entry *e = &a->e[k];
                if (strcmp(e->section, "plugins") != 0 || !e->key[0]) continue;
                const char *other = meta_get(b, "plugins", e->key);
                if (other && strcmp(other, e->value) == 0) continue;
                const char *v0 = way ? (other ? other : "(none)") : e->value, *vi = way ? e->value : other;
                return fail(err, len, "different plugins: %s has [plugins] %s = %.100s, %s has %.100s", s[0].dir,
                            e->key, v0, s[i].dir, vi ? vi : "(none)");
            }
        }
    return 0;
}

// Every point of the plan in exactly one shard, and the shards 0..N-1 each once; owner[p] = the
// shard (index into s) of point p.
static int check_cover(const shard *s, size_t n, size_t plan, uint32_t count, size_t *owner, char *err, size_t len)
{
    size_t *by_index = cd_alloc_zero(count, sizeof *by_index);  // 1 + position in s
    int bad = 0;
    for (size_t i = 0; i < n && !bad; ++i) {
        if (s[i].index >= count)
            bad = fail(err, len, "%s: [shard] index %u is not below count %u", s[i].dir, s[i].index, count);
        else if (by_index[s[i].index])
            bad = fail(err, len, "duplicate shard %u/%u: %s and %s", s[i].index, count, s[by_index[s[i].index] - 1].dir,
                       s[i].dir);
        else
            by_index[s[i].index] = i + 1;
    }
    for (size_t p = 0; p < plan; ++p) owner[p] = SIZE_MAX;
    for (size_t i = 0; i < n && !bad; ++i)
        for (size_t j = 0; j < s[i].npoints && !bad; ++j) {
            size_t p = s[i].points[j];
            if (p >= plan)
                bad = fail(err, len, "%s: point %zu of [shard] points is beyond the plan's %zu points", s[i].dir, p,
                           plan);
            else if (owner[p] != SIZE_MAX)
                bad = fail(err, len, "point %zu measured twice: by %s and by %s", p, s[owner[p]].dir, s[i].dir);
            else
                owner[p] = i;
        }
    if (!bad) {
        char missing[600] = "", shards[300] = "";
        size_t k = 0, m = 0, ks = 0;
        for (size_t p = 0; p < plan; ++p)
            if (owner[p] == SIZE_MAX && m++ < 12)
                k += (size_t)snprintf(missing + k, sizeof missing - k, "%s%zu", m > 1 ? ", " : "", p);
        for (uint32_t i = 0; i < count && ks < sizeof shards; ++i)
            if (!by_index[i]) ks += (size_t)snprintf(shards + ks, sizeof shards - ks, "%s%u", ks ? ", " : "", i);
        if (m)
            bad = fail(err, len, "missing %zu of %zu points (%s%s)%s%s%s", m, plan, missing, m > 12 ? ", ..." : "",
                       ks ? ": shard(s) " : "", shards, ks ? " not given" : "");
        else if (ks)
            bad = fail(err, len, "missing shard(s) %s of %u (they hold no points, but the sweep had them)", shards,
                       count);
    }
    cd_free(by_index);
    return bad;
}

static int same_header(const cd_csv_row *a, const cd_csv_row *b)
{
    if (a->count != b->count) return 0;
    for (size_t i = 0; i < a->count; ++i)
        if (strcmp(a->fields[i], b->fields[i]) != 0) return 0;
    return 1;
}

// The file path as its shard's runner wrote it: text[0..n), as read, has the size and SHA-256 that
// meta.ini [files] records (name: "frames" or "summary"). A shard cut short or edited after its
// run (a point without its frames, two of three repeats, half a row) is refused. 0, or -1 with err.
static int check_digest(const shard *s, const char *name, const char *path, const char *text, size_t n, char *err,
                        size_t len)
{
    char key[32];
    snprintf(key, sizeof key, "%s_sha256", name);
    const char *want = meta_get(&s->m, "files", key);
    snprintf(key, sizeof key, "%s_bytes", name);
    const char *want_bytes = meta_get(&s->m, "files", key);
    if (!want || !want_bytes)
        return fail(err, len,
                    "%s/meta.ini: no [files] %s: cannot check its rows against what its run wrote (a shard "
                    "of an older cdlab: run it again)",
                    s->dir, key);
    return cd_run_text_check(path, text, n, want_bytes, want, err, len);
}

// Read shard i's CSVs and check them: the bytes its run wrote (check_digest), the same header as
// shard 0's, every row as many fields as the header, every row's point one of the shard's, and
// summary rows for each of its points, together. A point writes one summary row (most kinds) or
// several (max_fps: one per probe), one after the other, since the runner measures one point at a
// time and a point's rows are flushed before the next starts (order = rounds too: each point's row
// comes from its finish_point); so a point's rows that another point's row splits are no run's.
// rows[p] counts the summary rows of point p. Frames are not held together: with order = rounds a
// point's frames are written round by round, between those of the other points.
// Each file is read once, through the bounded reader (a regular file of at most
// CD_FILE_MAX_BYTES: a FIFO, a device or a directory is refused before a byte is read), and
// the bytes digested are the bytes parsed.
static int read_rows(shard *s, size_t i, size_t plan, const size_t *owner, size_t *rows, char *err, size_t len)
{
    static const char *const names[] = {"frames.csv", "summary.csv"};
    unsigned long long last = ULLONG_MAX;  // the point of the summary row before
    for (int k = 0; k < 2; ++k) {
        char path[4600], why[512];
        snprintf(path, sizeof path, "%s/%s", s[i].dir, names[k]);
        char *text;
        size_t n;
        if (cd_file_load(path, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &text, &n, why, sizeof why))
            return fail(err, len, "%s: %s", path, why);
        cd_csv_table *t = k ? &s[i].summary : &s[i].frames;
        int bad = check_digest(&s[i], k ? "summary" : "frames", path, text, n, err, len) ||
                  cd_csv_parse_text(path, text, n, t, err, len);
        cd_free(text);
        if (bad) return -1;
        if (t->count == 0) return fail(err, len, "%s: empty: expected a header", path);
        const cd_csv_table *t0 = k ? &s[0].summary : &s[0].frames;
        if (i && !same_header(&t->rows[0], &t0->rows[0]))
            return fail(err, len, "%s:1: the header differs from %s/%s's", path, s[0].dir, names[k]);
        for (size_t r = 1; r < t->count; ++r) {
            const cd_csv_row *row = &t->rows[r];
            if (row->count != t->rows[0].count)
                return fail(err, len, "%s:%zu: %zu fields: expected %zu as in the header", path, row->line, row->count,
                            t->rows[0].count);
            char *end;
            unsigned long long p = strtoull(row->fields[0], &end, 10);
            if (!row->fields[0][0] || *end || p >= plan || owner[p] != i)
                return fail(err, len, "%s:%zu: point '%s' is not one of this shard's (meta.ini [shard] points)", path,
                            row->line, row->fields[0]);
            if (k && p != last && rows[p])
                return fail(err, len,
                            "%s:%zu: a row of point %llu after a row of point %llu: expected each point's summary rows "
                            "together",
                            path, row->line, p, last);
            if (k) rows[p]++, last = p;
        }
    }
    for (size_t j = 0; j < s[i].npoints; ++j)
        if (!rows[s[i].points[j]])
            return fail(err, len, "%s/summary.csv: no row of point %zu, which meta.ini [shard] points lists", s[i].dir,
                        s[i].points[j]);
    return 0;
}

// The shards' config.ini, read through the bounded reader as any config is (a regular file of at
// most CD_CONFIG_MAX_BYTES: a FIFO or a device is refused before a byte is read): shard 0's into
// *text, *n bytes (cd_free it). Every shard's must hash to its meta.ini [config] sha256, the one
// the run computed from the config it measured (check_same has found them equal): a copy edited
// since would give the merged run a config.ini that its meta.ini, and its results, do not
// describe. 0, or -1 with err.
static int read_config(const shard *s, size_t count, char **text, size_t *n, char *err, size_t len)
{
    *text = NULL, *n = 0;
    for (size_t i = 0; i < count; ++i) {
        char path[4600], why[512], sha[65];
        char *t;
        size_t k;
        snprintf(path, sizeof path, "%s/config.ini", s[i].dir);
        if (cd_file_load(path, CD_CONFIG_MAX_BYTES, CD_FILE_REGULAR, &t, &k, why, sizeof why)) {
            cd_free(*text), *text = NULL;
            return fail(err, len, "%s: %s", path, why);
        }
        cd_sha256_hex(t, k, sha);
        const char *want = meta_str(&s[i].m, "config", "sha256");
        if (strcmp(sha, want) != 0) {
            cd_free(t), cd_free(*text), *text = NULL;
            return fail(err, len,
                        "%s: SHA-256 %s, but its meta.ini [config] sha256 is %.64s: not the config its run "
                        "measured (changed since)",
                        path, sha, want);
        }
        if (i == 0)
            *text = t, *n = k;
        else
            cd_free(t);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Writing the merged run.

// The signal (SIGINT, SIGTERM) that interrupted the merge while it wrote, or 0. The handler only
// sets it: the merge sees it between rows and between files, stops and removes what it made, so
// that an interrupted merge, like a failed one, leaves nothing (an INCOMPLETE marker and .part
// files would block the next merge with "exists"). SA_RESETHAND: a second signal ends the
// process at once, as without the handler.
static volatile sig_atomic_t merge_stop;

static void on_merge_signal(int s) { merge_stop = s; }

typedef struct merge_signals {
    struct sigaction stop[2], xfsz;
} merge_signals;

// Install the handlers for the writing (the old ones into saved). A file size limit (RLIMIT_FSIZE)
// fails the write with EFBIG, which is then a write error like any other, instead of SIGXFSZ
// killing the process with the files half-written.
static void merge_signals_setup(merge_signals *saved)
{
    merge_stop = 0;
    struct sigaction sa = {0};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_merge_signal;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &saved->stop[0]);
    sigaction(SIGTERM, &sa, &saved->stop[1]);
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = 0;
    sigaction(SIGXFSZ, &sa, &saved->xfsz);
}

static void merge_signals_restore(const merge_signals *saved)
{
    sigaction(SIGINT, &saved->stop[0], NULL);
    sigaction(SIGTERM, &saved->stop[1], NULL);
    sigaction(SIGXFSZ, &saved->xfsz, NULL);
}

typedef struct row_ref {
    size_t point, shard, row;
} row_ref;

static int by_point(const void *a, const void *b)
{
    const row_ref *x = a, *y = b;
    if (x->point != y->point) return x->point < y->point ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;  // one shard per point: its file order
}

// The rows of every shard's table (frames = 1: frames.csv) in plan order; *n of them.
static row_ref *plan_order(const shard *s, size_t n, int frames, size_t *count)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; ++i) total += (frames ? s[i].frames.count : s[i].summary.count) - 1;
    row_ref *v = cd_alloc((total ? total : 1) * sizeof *v);
    for (size_t i = 0; i < n; ++i) {
        const cd_csv_table *t = frames ? &s[i].frames : &s[i].summary;
        for (size_t r = 1; r < t->count; ++r) v[k++] = (row_ref){strtoull(t->rows[r].fields[0], NULL, 10), i, r};
    }
    qsort(v, total, sizeof *v, by_point);
    *count = total;
    return v;
}

// Write one merged CSV to path: frames.csv as the shards wrote it, summary.csv with the columns
// shard and host. 0 or an errno: EINTR when a signal stopped it between rows (merge_stop).
static int write_csv(const char *path, const shard *s, size_t n, int frames, char (*hosts)[256])
{
    FILE *f = fopen(path, "w");
    if (!f) return errno ? errno : EIO;
    errno = 0;
    const cd_csv_row *h = frames ? &s[0].frames.rows[0] : &s[0].summary.rows[0];
    for (size_t i = 0; i < h->count; ++i) cd_csv_write_field(f, h->fields[i], i == 0);
    if (!frames) cd_csv_write_field(f, "shard", 0), cd_csv_write_field(f, "host", 0);
    fputc('\n', f);
    size_t count;
    row_ref *v = plan_order(s, n, frames, &count);
    int stopped = 0;
    for (size_t k = 0; k < count && !(stopped = merge_stop != 0); ++k) {
        const cd_csv_row *row = &(frames ? &s[v[k].shard].frames : &s[v[k].shard].summary)->rows[v[k].row];
        for (size_t i = 0; i < row->count; ++i) cd_csv_write_field(f, row->fields[i], i == 0);
        if (!frames) {
            char index[16];
            snprintf(index, sizeof index, "%u", s[v[k].shard].index);
            cd_csv_write_field(f, index, 0);
            cd_csv_write_field(f, hosts[v[k].shard], 0);
        }
        fputc('\n', f);
    }
    cd_free(v);
    int e = stopped ? EINTR : (fflush(f) != 0 || ferror(f)) ? (errno ? errno : EIO) : 0;
    if (!e && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) e = errno;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e;
}

// Write text[0..n) to path (config.ini: the shards' copy of the config, as read). 0 or an errno.
static int write_text(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return errno ? errno : EIO;
    errno = 0;
    int e = n && fwrite(text, 1, n, f) != n ? (errno ? errno : EIO) : 0;
    if (!e) e = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (!e && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) e = errno;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e;
}

// mkdir -p of path's parent. 0 or an errno; *made is the length of the first directory it made
// (0: none), for remove_parents: a merge that fails after it leaves nothing behind.
static int mkdir_parents(const char *path, size_t *made)
{
    char buf[4600];
    *made = 0;
    snprintf(buf, sizeof buf, "%s", path);
    char *last = strrchr(buf, '/');
    if (!last || last == buf) return 0;
    *last = '\0';
    for (char *p = buf + 1;; ++p) {
        if (*p && *p != '/') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) == 0) {
            if (!*made) *made = strlen(buf);
        } else if (errno != EEXIST) {
            return errno;
        }
        if (!c) return 0;
        *p = c;
    }
}

// Remove the parents of path that mkdir_parents made (made: the length of the first of them),
// deepest first. Every later one lies inside the first, so these are the prefixes of path at
// least made long; one that was never made (its name too long, after the first) fails alone.
// rmdir only: a directory that another process has put something in stays.
static void remove_parents(const char *path, size_t made)
{
    if (!made) return;
    char buf[4600];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *last; (last = strrchr(buf, '/')) != NULL && (size_t)(last - buf) >= made;) {
        *last = '\0';
        (void)rmdir(buf);
    }
}

// Sections of a shard's meta.ini that the merged run does not copy: [shard], and [files], whose
// digests the merge writes for its own CSVs.
static int own_section(const char *section) { return strcmp(section, "shard") == 0 || strcmp(section, "files") == 0; }

// Is key a value of one shard's own ([run] keys that the merge sets itself)?
static int merge_sets(const char *section, const char *key)
{
    static const char *const run_keys[] = {
        "id",           "date_start",     "date_end",    "duration_s",   "host",
        "command",      "points_planned", "points_done", "points_short", "points_resumed",
        "resumed_from", "complete",       "status",      "failure",      NULL};
    if (own_section(section) || strcmp(section, "warnings") == 0) return 1;
    if (strcmp(section, "run") != 0) return 0;
    for (const char *const *k = run_keys; *k; ++k)
        if (strcmp(key, *k) == 0) return 1;
    return 0;
}

// Append s to a ", "-separated list unless it is there already.
static void add_distinct(char *list, size_t cap, const char *s)
{
    size_t n = strlen(list), k = strlen(s);
    for (const char *p = list; (p = strstr(p, s)) != NULL; p += k)
        if ((p == list || p[-1] == ' ') && (p[k] == ',' || p[k] == '\0')) return;
    snprintf(list + n, cap - n, "%s%s", n ? ", " : "", s);
}

// meta.ini's [merge]: the shards and where each ran.
static void write_merge_section(FILE *f, const shard *s, size_t n)
{
    fprintf(f, "\n[merge]\n; the shards this run was merged from, and where each ran\n");
    cd_meta_kv(f, "shards", "%zu", n);
    for (size_t i = 0; i < n; ++i) {
        const meta *m = &s[i].m;
        char key[64];
        snprintf(key, sizeof key, "shard%u", s[i].index);
        cd_meta_kv(f, key, "%s | host %s | cpu %s | pinned %s cpu %s | %s | %s s | git %s%s | %zu points%s%s", s[i].dir,
                   meta_str(m, "run", "host"), meta_str(m, "machine", "cpu_model"), meta_str(m, "pinning", "pinned"),
                   meta_str(m, "pinning", "actual_cpu"), meta_str(m, "run", "date_start"),
                   meta_str(m, "run", "duration_s"), meta_str(m, "cdlab", "git_commit"),
                   strcmp(meta_str(m, "cdlab", "git_dirty"), "true") == 0 ? " dirty" : "", s[i].npoints,
                   meta_get(m, "run", "points_resumed") ? " | resumed " : "", meta_str(m, "run", "points_resumed"));
    }
}

// meta.ini's [inputs] after its comment: every input file of every shard once (by path and
// SHA-256), in shard order. The config's files are the same in shards that ran on one file system;
// the files derived from the config (ik_derived: a simulated scene's trace) are those each shard's
// points read, so the merged run lists them all.
static void write_inputs(FILE *f, const shard *s, size_t n)
{
    input *v = NULL, *all = NULL;
    size_t nv = 0, cap = 0, count = 0;
    for (size_t i = 0; i < n; ++i) shard_inputs(s, i, &v, &nv, &cap);
    all = cd_alloc((nv ? nv : 1) * sizeof *all);
    for (size_t k = 0; k < nv; ++k) {
        size_t j = 0;
        while (j < count && (strcmp(all[j].path, v[k].path) != 0 || strcmp(all[j].sha256, v[k].sha256) != 0)) ++j;
        if (j == count) all[count++] = v[k];
    }
    cd_free(v);
    cd_meta_kv(f, "count", "%zu", count);
    for (size_t j = 0; j < count; ++j) {
        char key[64];
        snprintf(key, sizeof key, "i%zu_path", j + 1);
        cd_meta_kv(f, key, "%s", all[j].path);
        snprintf(key, sizeof key, "i%zu_bytes", j + 1);
        cd_meta_kv(f, key, "%s", all[j].bytes);
        snprintf(key, sizeof key, "i%zu_sha256", j + 1);
        cd_meta_kv(f, key, "%s", all[j].sha256);
        if (!all[j].derived) continue;
        snprintf(key, sizeof key, "i%zu_derived", j + 1);
        cd_meta_kv(f, key, "%s", all[j].derived);
    }
    cd_free(all);
}

static int write_meta(const char *path, const char *out, const shard *s, size_t n, const char *id, const char *command,
                      char *const *warnings, size_t nwarnings)
{
    FILE *f = fopen(path, "w");
    if (!f) return errno ? errno : EIO;
    errno = 0;
    const meta *m0 = &s[0].m;
    char start[64], end[64], hosts[2048] = "";
    snprintf(start, sizeof start, "%s", meta_str(m0, "run", "date_start"));
    snprintf(end, sizeof end, "%s", meta_str(m0, "run", "date_end"));
    double duration = 0;
    for (size_t i = 0; i < n; ++i) {  // ISO 8601 UTC times order as strings
        const char *a = meta_str(&s[i].m, "run", "date_start"), *b = meta_str(&s[i].m, "run", "date_end");
        if (strcmp(a, start) < 0) snprintf(start, sizeof start, "%s", a);
        if (strcmp(b, end) > 0) snprintf(end, sizeof end, "%s", b);
        duration += strtod(meta_str(&s[i].m, "run", "duration_s"), NULL);
        add_distinct(hosts, sizeof hosts, meta_str(&s[i].m, "run", "host"));
    }
    const char *plan = meta_str(m0, "shard", "plan_points");
    fprintf(f,
            "; cdlab run metadata (provenance of frames.csv and summary.csv), merged from %zu shards by cdlab merge\n",
            n);
    const char *section = "";
    for (size_t k = 0; k < m0->n; ++k) {
        const entry *e = &m0->e[k];
        if (strcmp(e->section, section) != 0) {
            if (!own_section(e->section)) fprintf(f, "%s[%s]\n", section[0] ? "\n" : "", e->section);
            section = e->section;
        }
        if (k == 0 && !e->key[0] && !e->section[0]) {
            continue;  // the file's first comment: written above
        } else if (!e->key[0]) {
            if (!own_section(e->section)) fprintf(f, "%s\n", e->value);
        } else if (strcmp(e->section, "run") == 0 && strcmp(e->key, "id") == 0) {
            cd_meta_kv(f, "id", "%s", id);
        } else if (strcmp(e->section, "run") == 0 && strcmp(e->key, "date_start") == 0) {
            cd_meta_kv(f, "date_start", "%s", start);
            cd_meta_kv(f, "date_end", "%s", end);
            cd_meta_kv(f, "duration_s", "%.3f", duration);  // the shards' together
            cd_meta_kv(f, "host", "%s", hosts);
            cd_meta_kv(f, "command", "%s", command);
            cd_meta_kv(f, "points_planned", "%s", plan);
            cd_meta_kv(f, "points_done", "%s", plan);
            cd_meta_kv(f, "complete", "true");
            cd_meta_kv(f, "status", "ok");
        } else if (strcmp(e->section, "columns") == 0 && strcmp(e->key, "summary_varying") == 0) {
            cd_meta_kv(f, e->key, "%s, shard, host", e->value);  // where a point ran is no result
        } else if (strcmp(e->section, "inputs") == 0) {
            if (strcmp(e->key, "count") == 0) write_inputs(f, s, n);  // the section's other keys with it
        } else if (strcmp(e->section, "warnings") == 0 && strcmp(e->key, "count") == 0) {
            cd_meta_kv(f, "count", "%zu", nwarnings);
            for (size_t w = 0; w < nwarnings; ++w) {
                char key[32];
                snprintf(key, sizeof key, "w%zu", w + 1);
                cd_meta_kv(f, key, "%s", warnings[w]);
            }
        } else if (!merge_sets(e->section, e->key)) {
            int same = 1;
            for (size_t i = 1; i < n && same; ++i) {
                const char *v = meta_get(&s[i].m, e->section, e->key);
                same = v && strcmp(v, e->value) == 0;
            }
            if (same)
                cd_meta_kv(f, e->key, "%s", e->value);
            else
                cd_meta_kv(f, e->key, "%s", CD_MERGE_DIFFERS);
        }
    }
    write_merge_section(f, s, n);
    int e = cd_meta_files(f, out, ".part");  // the merged CSVs, as a run records its own
    if (!e) e = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (!e && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) e = errno;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e;
}

// The merged run's warnings: every one (*w, n of them, cap allocated).
typedef struct warnings {
    char **w;
    size_t n, cap;
} warnings;

static void keep(warnings *v, const char *msg)
{
    cd_grow((void **)&v->w, sizeof *v->w, &v->cap, v->n + 1);
    size_t k = strlen(msg);
    v->w[v->n] = cd_alloc(k + 1);
    memcpy(v->w[v->n++], msg, k + 1);
}

// Keep a warning for meta.ini and say it (unless quiet).
static void merge_warn(warnings *v, int quiet, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void merge_warn(warnings *v, int quiet, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!quiet) fprintf(stderr, "cdlab merge: warning: %s\n", msg);
    keep(v, msg);
}

// The merge's own warnings and every shard's (prefixed by their shard), into v.
static void collect_warnings(const shard *s, size_t n, int quiet, warnings *v)
{
    char models[1024] = "";
    for (size_t i = 0; i < n; ++i) add_distinct(models, sizeof models, meta_str(&s[i].m, "machine", "cpu_model"));
    if (strcmp(models, meta_str(&s[0].m, "machine", "cpu_model")) != 0)
        merge_warn(v, quiet,
                   "the shards ran on different CPU models (%s): times are comparable within a shard, not across "
                   "(the summary's shard column says which)",
                   models);
    for (size_t i = 0; i < n; ++i)
        if (meta_get(&s[i].m, "run", "points_resumed"))
            merge_warn(v, quiet, "shard %u was resumed: %s of its points were measured by an earlier attempt (%s)",
                       s[i].index, meta_str(&s[i].m, "run", "points_resumed"),
                       meta_str(&s[i].m, "run", "resumed_from"));
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < s[i].m.n; ++j) {
            const entry *e = &s[i].m.e[j];
            if (strcmp(e->section, "warnings") == 0 && strcmp(e->key, "count") != 0) {
                char msg[1100];
                snprintf(msg, sizeof msg, "shard %u: %s", s[i].index, e->value);
                keep(v, msg);
            }
        }
}

// What a failed merge made in out: the parts, the files and the marker, then out itself.
static void remove_merged(const char *out, const char *const *names, int count)
{
    char path[4600];
    for (int k = 0; k < count; ++k) {
        snprintf(path, sizeof path, "%s/%s.part", out, names[k]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, out);
    unlink(path);
    rmdir(out);
}

// Create the merge's INCOMPLETE marker at path `marker` and lock it (*lock, -1 when it could not be
// made), as a run does: readers take the directory for a run in progress. The marker appears with
// its text and its lock: written and locked under a temporary name in the directory, then linked
// to `marker` (which fails where one exists, as O_EXCL would). Created empty and written after, a
// merge killed in between left an empty marker, which readers take for a killed run's ("cdlab run
// --resume continues it") instead of a merge's ("remove the directory and merge again"). 0, or an
// errno value.
static int take_marker(const char *out, const char *marker, size_t n, int *lock)
{
    char tmp[4600], text[256], date[32], host[128] = "unknown";
    snprintf(tmp, sizeof tmp, "%s/." CD_RUN_INCOMPLETE ".XXXXXX", out);
    *lock = cd_file_make_temp(tmp, -1);  // the mode open(..., 0666) gave the marker
    if (*lock < 0) return errno;
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    gethostname(host, sizeof host - 1);
    snprintf(text, sizeof text, CD_RUN_MARKER_START "%s by pid %ld on %s" CD_MERGE_MARKER_TAG "%zu shards\n", date,
             (long)getpid(), host, n);
    errno = 0;
    int e = flock(*lock, LOCK_EX) != 0 || cd_write_all(*lock, text, strlen(text)) || link(tmp, marker) != 0
                ? (errno ? errno : EIO)
                : 0;
    unlink(tmp);
    return e;
}

int cd_run_merge(const char *const *dirs, size_t n, const char *out, const char *command, int quiet, char *err,
                 size_t err_len)
{
    if (n == 0) return fail(err, err_len, "no shard directories given"), 2;
    // "DIR/" is DIR: without the slash, or mkdir_parents would make DIR and mkdir("DIR/") then
    // find it there, failing with an empty DIR left behind, and the run id would be empty.
    char out_name[4096];
    size_t out_len = (size_t)snprintf(out_name, sizeof out_name, "%s", out);
    if (out_len >= sizeof out_name) return fail(err, err_len, "%.64s...: output path too long", out), 2;
    while (out_len > 1 && out_name[out_len - 1] == '/') out_name[--out_len] = '\0';
    out = out_name;
    shard *s = cd_alloc_zero(n, sizeof *s);
    int bad = 0;
    for (size_t i = 0; i < n && !bad; ++i) {
        s[i].dir = dirs[i];
        bad = read_shard(&s[i], err, err_len);
    }
    if (!bad) bad = check_same(s, n, err, err_len);
    if (!bad) bad = check_inputs(s, n, err, err_len);
    if (!bad) bad = check_plugins(s, n, err, err_len);
    size_t plan = bad ? 0 : (size_t)strtoull(meta_str(&s[0].m, "shard", "plan_points"), NULL, 10);
    uint32_t count = bad ? 0 : (uint32_t)strtoul(meta_str(&s[0].m, "shard", "count"), NULL, 10);
    size_t *owner = cd_alloc((plan ? plan : 1) * sizeof *owner), *rows = cd_alloc_zero(plan ? plan : 1, sizeof *rows);
    if (!bad) bad = check_cover(s, n, plan, count ? count : 1, owner, err, err_len);
    for (size_t i = 0; i < n && !bad; ++i) bad = read_rows(s, i, plan, owner, rows, err, err_len);
    char *config = NULL;
    size_t config_len = 0;
    if (!bad) bad = read_config(s, n, &config, &config_len, err, err_len);
    struct stat st;
    if (!bad && lstat(out, &st) == 0) {
        // What a merge or run killed there left says so: a merge's "remove the directory and merge
        // again" (cd_run_marker_describe).
        char line[600], what[1000] = "";
        int state = S_ISDIR(st.st_mode) ? cd_run_marker_state(out, line, sizeof line) : CD_MARKER_NONE;
        if (state > CD_MARKER_NONE) cd_run_marker_describe(state, line, what, sizeof what);
        bad = fail(err, err_len, "%s: exists%s%s%s: expected a new run directory", out, what[0] ? " (" : "", what,
                   what[0] ? ")" : "");
    }

    int status = bad ? 2 : 0;
    warnings w = {0};
    if (!bad) {
        collect_warnings(s, n, quiet, &w);
        status = 1;
        char(*hosts)[256] = cd_alloc(n * sizeof *hosts);
        for (size_t i = 0; i < n; ++i) snprintf(hosts[i], sizeof hosts[i], "%s", meta_str(&s[i].m, "run", "host"));
        char path[4600], from[4600], marker[4600];
        snprintf(marker, sizeof marker, "%s/" CD_RUN_INCOMPLETE, out);
        const char *id = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
        const char *step = "creating the directory";
        merge_signals saved;
        merge_signals_setup(&saved);
        size_t parents;
        int e = mkdir_parents(out, &parents), made = 0;
        if (!e) e = mkdir(out, 0777) != 0 ? errno : 0;
        made = !e;
        int lock = -1;  // the marker, locked while the merge writes (cd_run_lock_held), as a run's
        if (!e) {       // the marker first, as for a run: nothing here looks complete until it is
            step = "writing " CD_RUN_INCOMPLETE;
            e = take_marker(out, marker, n, &lock);
        }
        static const char *const names[] = {"frames.csv", "summary.csv", "config.ini", "meta.ini"};
        for (int k = 0; k < 4 && !e; ++k) {
            snprintf(path, sizeof path, "%s/%s.part", out, names[k]);
            step = names[k];
            if (merge_stop)
                e = EINTR;
            else if (k < 2)
                e = write_csv(path, s, n, k == 0, hosts);
            else if (k == 2)
                e = write_text(path, config, config_len);
            else
                e = write_meta(path, out, s, n, id, command, w.w, w.n);
        }
        if (!e && merge_stop) e = EINTR;  // the last moment to stop: the renames make it a run
        for (int k = 0; k < 4 && !e; ++k) {
            snprintf(from, sizeof from, "%s/%s.part", out, names[k]);
            snprintf(path, sizeof path, "%s/%s", out, names[k]);
            if (rename(from, path) != 0) e = errno, step = "renaming the .part files";
        }
        if (!e && unlink(marker) != 0) e = errno, step = "removing " CD_RUN_INCOMPLETE;
        cd_free(hosts);
        if (e == EINTR && merge_stop) {
            snprintf(err, err_len, "%s: interrupted (%s) while writing %s; nothing written", out,
                     merge_stop == SIGINT ? "SIGINT" : "SIGTERM", step);
            status = 128 + merge_stop;
        } else if (e) {
            snprintf(err, err_len, "%s: %s: %s; nothing written", out, step, strerror(e));
        } else {
            status = 0;
        }
        if (e) {  // nothing half-written: what was made goes again, the parents it made too
            if (made) remove_merged(out, names, 4);
            remove_parents(out, parents);
        }
        if (lock >= 0) close(lock);
        merge_signals_restore(&saved);
    }
    for (size_t i = 0; i < w.n; ++i) cd_free(w.w[i]);
    cd_free(w.w);
    for (size_t i = 0; i < n; ++i) {
        meta_free(&s[i].m);
        cd_free(s[i].points);
        cd_csv_table_free(&s[i].frames);
        cd_csv_table_free(&s[i].summary);
    }
    cd_free(s);
    cd_free(config);
    cd_free(owner);
    cd_free(rows);
    return status;
}
