// SPDX-License-Identifier: MIT
// Reading a run directory back: meta.ini, summary.csv, frames.csv and what each column is.
#include "rundir.h"

#include "cd_core.h"
#include "cd_harness_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *dup_range(const char *s, size_t n)
{
    char *d = cd_alloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
    return s;
}

int cd_ini_read(const char *path, cd_ini *ini, char *err, size_t err_len)
{
    *ini = (cd_ini){0};
    cd_text_file f;
    if (cd_text_open(&f, path, err, err_len)) return -1;  // bounded: no device, no endless line
    char *line, *section = dup_range("", 0);
    size_t lineno = 0;
    int rc = 0, last_key = 0;  // last_key: the previous line was a key or its continuation
    while (cd_text_getline(&f, &line) >= 0) {
        lineno++;
        int indented = line[0] == ' ' || line[0] == '\t';
        char *s = trim(line);
        if (*s == '\0' || *s == ';' || *s == '#') {
            last_key = last_key && *s != '\0';
            continue;
        }
        if (indented && last_key) {  // a continuation of the value above
            cd_ini_entry *e = &ini->items[ini->count - 1];
            size_t a = strlen(e->value), b = strlen(s);
            e->value = cd_realloc(e->value, a + b + 2);
            if (a) e->value[a++] = ' ';
            memcpy(e->value + a, s, b + 1);
            continue;
        }
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (!end) {
                snprintf(err, err_len, "%s:%zu: expected [section]", path, lineno);
                rc = -1;
                break;
            }
            cd_free(section);
            section = dup_range(s + 1, (size_t)(end - s - 1));
            last_key = 0;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, err_len, "%s:%zu: expected key = value", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        cd_grow((void **)&ini->items, sizeof *ini->items, &ini->capacity, ini->count + 1);
        ini->items[ini->count++] = (cd_ini_entry){
            .section = dup_range(section, strlen(section)),
            .key = dup_range(trim(s), strlen(trim(s))),
            .value = dup_range(trim(eq + 1), strlen(trim(eq + 1))),
            .line = lineno,
        };
        last_key = 1;
    }
    cd_free(section);
    cd_text_close(&f);
    if (rc) cd_ini_free(ini);
    return rc;
}

const char *cd_ini_get(const cd_ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->count; ++i)
        if (strcmp(ini->items[i].section, section) == 0 && strcmp(ini->items[i].key, key) == 0)
            return ini->items[i].value;
    return NULL;
}

void cd_ini_free(cd_ini *ini)
{
    for (size_t i = 0; i < ini->count; ++i) {
        cd_free(ini->items[i].section);
        cd_free(ini->items[i].key);
        cd_free(ini->items[i].value);
    }
    cd_free(ini->items);
    *ini = (cd_ini){0};
}

int cd_table_column(const cd_csv_table *t, const char *name)
{
    if (t->count == 0) return -1;
    for (size_t j = 0; j < t->rows[0].count; ++j)
        if (strcmp(t->rows[0].fields[j], name) == 0) return (int)j;
    return -1;
}

const char *cd_table_field(const cd_csv_table *t, size_t i, int col)
{
    if (i >= t->count || col < 0 || (size_t)col >= t->rows[i].count) return "";
    return t->rows[i].fields[col];
}

const char *cd_rundir_meta(const cd_rundir *r, const char *section, const char *key, const char *def)
{
    const char *v = cd_ini_get(&r->meta, section, key);
    return v ? v : def;
}

size_t cd_rundir_distinct(const cd_rundir *r, int col)
{
    return col >= 0 && r->summary.count && (size_t)col < r->summary.rows[0].count ? r->summary_distinct[col] : 0;
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

// The distinct values of every summary column, counted once by sorting (the report and compare
// ask per row and column: asking by scanning made a 2 000-point run take a minute).
static size_t *distinct_counts(const cd_csv_table *t)
{
    size_t cols = t->count ? t->rows[0].count : 0, rows = t->count ? t->count - 1 : 0;
    size_t *d = cd_alloc_zero(cols ? cols : 1, sizeof *d);
    const char **v = cd_alloc((rows ? rows : 1) * sizeof *v);
    for (size_t j = 0; j < cols; ++j) {
        for (size_t i = 0; i < rows; ++i) v[i] = cd_table_field(t, i + 1, (int)j);
        qsort(v, rows, sizeof *v, cmp_text);
        for (size_t i = 0; i < rows; ++i) d[j] += i == 0 || strcmp(v[i], v[i - 1]) != 0;
    }
    cd_free(v);
    return d;
}

// Is name one of the comma-separated words of list?
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t w = strcspn(p, ", ");
        if (w == n && strncmp(p, name, n) == 0) return 1;
        p += w;
    }
    return 0;
}

// A column is a parameter when it carries a config key's name ([values] holds section.key for
// every key of the kind); a varying one when meta.ini [columns] lists it; else deterministic.
static cd_col_role *roles(const cd_rundir *r, const cd_csv_table *t, const char *varying)
{
    size_t n = t->count ? t->rows[0].count : 0;
    cd_col_role *role = cd_alloc_zero(n ? n : 1, sizeof *role);
    for (size_t j = 0; j < n; ++j) {
        const char *name = t->rows[0].fields[j];
        if (strcmp(name, "point") == 0) {
            role[j] = CD_COL_POINT;
            continue;
        }
        role[j] = in_list(varying, name) ? CD_COL_VARYING : CD_COL_EXACT;
        for (size_t i = 0; i < r->meta.count; ++i) {
            const cd_ini_entry *e = &r->meta.items[i];
            const char *dot = strchr(e->key, '.');
            if (strcmp(e->section, "values") == 0 && dot && strcmp(dot + 1, name) == 0) role[j] = CD_COL_PARAM;
        }
    }
    return role;
}

// The CSVs are the ones the run wrote: the bytes and SHA-256 that meta.ini [files] records (a
// run of an older cdlab has no [files]: nothing to check). A file edited or cut since (a negative
// or infinite time, a frame row deleted or repeated, a BOM) would otherwise be read as results
// and compared, reported or plotted. 0, or -1 with err.
static int check_files(const char *dir, const cd_ini *meta, char *err, size_t len)
{
    static const char *const names[] = {"summary", "frames"};
    for (int k = 0; k < 2; ++k) {
        char key[32], path[4200];
        snprintf(key, sizeof key, "%s_sha256", names[k]);
        const char *want = cd_ini_get(meta, "files", key);
        snprintf(key, sizeof key, "%s_bytes", names[k]);
        const char *want_bytes = cd_ini_get(meta, "files", key);
        if (!want || !want_bytes) continue;
        snprintf(path, sizeof path, "%s/%s.csv", dir, names[k]);
        if (cd_run_file_check(path, want_bytes, want, err, len)) return -1;
    }
    return 0;
}

int cd_rundir_read(const char *dir, cd_rundir *r, char *err, size_t err_len)
{
    *r = (cd_rundir){0};
    char why[1024], path[4200];
    if (cd_run_dir_check(dir, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", dir, why);
        return -1;
    }
    r->dir = dup_range(dir, strlen(dir));
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    if (cd_ini_read(path, &r->meta, err, err_len)) goto fail;
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (cd_csv_read(path, &r->summary, err, err_len)) goto fail;
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    if (cd_csv_read(path, &r->frames, err, err_len)) goto fail;
    if (r->summary.count == 0 || r->frames.count == 0) {
        snprintf(err, err_len, "%s: %s is empty: expected a header row", dir,
                 r->summary.count ? "frames.csv" : "summary.csv");
        goto fail;
    }
    for (int t = 0; t < 2; ++t) {
        const cd_csv_table *tab = t ? &r->frames : &r->summary;
        for (size_t i = 1; i < tab->count; ++i)
            if (tab->rows[i].count != tab->rows[0].count) {
                snprintf(err, err_len, "%s/%s.csv:%zu: %zu fields: expected %zu as in the header", dir,
                         t ? "frames" : "summary", tab->rows[i].line, tab->rows[i].count, tab->rows[0].count);
                goto fail;
            }
    }
    if (check_files(dir, &r->meta, err, err_len)) goto fail;
    r->summary_role = roles(r, &r->summary, cd_rundir_meta(r, "columns", "summary_varying", ""));
    r->summary_distinct = distinct_counts(&r->summary);
    r->frames_role = roles(r, &r->frames, cd_rundir_meta(r, "columns", "frames_varying", ""));
    return 0;
fail:
    cd_rundir_free(r);
    return -1;
}

void cd_rundir_free(cd_rundir *r)
{
    cd_free(r->dir);
    cd_ini_free(&r->meta);
    cd_csv_table_free(&r->summary);
    cd_csv_table_free(&r->frames);
    cd_free(r->summary_role);
    cd_free(r->frames_role);
    cd_free(r->summary_distinct);
    *r = (cd_rundir){0};
}

// The run's record of input path (meta.ini [inputs] iK_path = path): its SHA-256, or NULL.
static const char *recorded_sha(const cd_ini *meta, const char *path)
{
    for (size_t i = 0; i < meta->count; ++i) {
        const cd_ini_entry *e = &meta->items[i];
        size_t n = strlen(e->key);
        if (strcmp(e->section, "inputs") != 0 || n < 6 || strcmp(e->key + n - 5, "_path") != 0 ||
            strcmp(e->value, path) != 0)
            continue;
        char key[64];
        snprintf(key, sizeof key, "%.*s_sha256", (int)(n - 5), e->key);
        return cd_ini_get(meta, "inputs", key);
    }
    return NULL;
}

// Every file c names is the one the run read: the SHA-256 meta.ini [inputs] records. 0, or -1.
static int check_inputs(const char *dir, const cd_ini *meta, const cd_config *c, char *err, size_t len)
{
    for (size_t i = 0; i < c->input_count; ++i) {
        char real[4096], sha[65];
        uint64_t bytes;
        const char *path = realpath(c->inputs[i], real) ? real : c->inputs[i];
        const char *want = recorded_sha(meta, path);
        int e = cd_sha256_file(path, sha, &bytes);
        if (!want) {
            snprintf(err, len, "%s: %s is not among the files meta.ini [inputs] records", dir, path);
            return -1;
        }
        if (e || strcmp(sha, want) != 0) {
            snprintf(err, len, "%s: %s %s since the run (its SHA-256 was %.12s...)", dir, path,
                     e ? strerror(e) : "changed", want);
            return -1;
        }
    }
    return 0;
}

int cd_rundir_config(const cd_kind_set *kinds, const char *dir, cd_config *c, char *err, size_t len)
{
    char path[4200], as[4400];
    cd_ini meta;
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    if (cd_ini_read(path, &meta, err, len)) return -1;
    const char *cdir = cd_ini_get(&meta, "config", "dir"), *cpath = cd_ini_get(&meta, "config", "path");
    snprintf(path, sizeof path, "%s/config.ini", dir);
    int rc;
    if (!cdir || !cpath || !cd_ini_get(&meta, "inputs", "count")) {  // a run from before these were recorded
        rc = cd_config_load(kinds, path, c, err, len);
    } else {
        size_t n;
        char *text = cd_file_read(path, &n);
        const char *base = strrchr(cpath, '/');
        snprintf(as, sizeof as, "%s/%s", cdir, base ? base + 1 : cpath);
        rc = text ? cd_config_parse(kinds, as, text, n, c, err, len) : -1;
        if (!text) snprintf(err, len, "%s: cannot read: %s", path, strerror(errno));
        cd_free(text);
        if (rc == 0 && (rc = check_inputs(dir, &meta, c, err, len)) != 0) cd_config_free(c);
    }
    cd_ini_free(&meta);
    return rc;
}

int cd_rundir_results_root(const char *dir, char *out, size_t len, char *err, size_t err_len)
{
    char *real = realpath(dir, NULL);
    if (!real) {
        snprintf(err, err_len, "%s: %s", dir, strerror(errno));
        return -1;
    }
    for (int up = 0; up < 2; ++up) {  // <run-id>, then <experiment>
        char *slash = strrchr(real, '/');
        if (slash == real) {
            slash[1] = '\0';  // the run lies right under /: its results root is /
            break;
        }
        *slash = '\0';
    }
    snprintf(out, len, "%s", real);
    free(real);
    return 0;
}

// The length of the well-formed UTF-8 sequence at s of a character XML 1.0 allows, or 0 (the
// byte at s is to be replaced). The ranges are RFC 3629's table of well-formed sequences (second
// byte narrowed after E0, ED, F0 and F4: no overlong form, no surrogate, nothing past U+10FFFF).
// XML's Char production allows every character they encode but the controls below U+0020 other
// than tab, LF and CR, and U+FFFE and U+FFFF; CR is replaced as well, as a parser would read it
// as LF.
static size_t xml_char(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return c >= 0x20 || c == '\t' || c == '\n';
    unsigned lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : lo, hi = c == 0xed ? 0x9f : hi;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : lo, hi = c == 0xf4 ? 0x8f : hi;
    else
        return 0;                          // a continuation byte alone, C0, C1 (overlong), F5..FF
    if (s[1] < lo || s[1] > hi) return 0;  // also the terminating NUL: a cut sequence
    for (size_t i = 2; i < n; ++i)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf)) return 0;  // U+FFFE, U+FFFF
    return n;
}

char *cd_xml_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    char *out = cd_alloc(3 * strlen(s) + 1), *o = out;  // at most one U+FFFD (3 bytes) per byte
    while (*p) {
        size_t n = xml_char(p);
        if (n) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);  // U+FFFD for this byte; the next is read afresh
            o += 3;
            p++;
        }
    }
    *o = '\0';
    return out;
}

void cd_html_escape(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = xml_char(p);
        switch (n ? *p : 0) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case 0: fputs("\xef\xbf\xbd", f); break;
        default: fwrite(p, 1, n, f);
        }
        p += n ? n : 1;
    }
}
