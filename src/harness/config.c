// SPDX-License-Identifier: MIT
// Config files: inih reads the INI syntax; every key is looked up in the tables of cd_key_spec
// (common keys here, the kind's keys in its own file), so this parser never names a kind's key.
#include "cd_core.h"
#include "cd_harness_cli.h"
#include "config_private.h"
#include "harness_private.h"

#include <ini.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const pin_words[] = {"optional", "required", "off", NULL};
static const char *const order_words[] = {"points", "rounds", NULL};
static const char *const isolate_words[] = {"auto", "process", "none", NULL};

static const char *check_name(const char *w)
{
    // The name becomes a directory under [run] output, so it must stay one path component.
    if (strchr(w, '/') || w[0] == '.') return "a directory name (no '/', not starting with '.')";
    return NULL;
}

enum { KIND_KEY = 1 };  // common_keys[KIND_KEY] is [experiment] kind

static const cd_key_spec common_keys[] = {
    {"experiment", "name", CD_KEY_WORD, "", 0, 0, NULL, check_name, 0,
     "experiment name: results go to <output>/<name>/<run-id>/ (default: config file name)"},
    // KIND_KEY; checked against the caller's kind set before any other key (cd_config_parse).
    {"experiment", "kind", CD_KEY_WORD, "cubes", 0, 0, NULL, NULL, 0,
     "experiment kind: cubes, max_fps, tri_tri, mesh or bodies"},
    {"experiment", "seed", CD_KEY_INT, "42", 0, 9007199254740992.0, NULL, NULL, 1,
     "seed of every random draw (scene placement and motion)"},
    {"experiment", "warmup", CD_KEY_INT, "10", 0, 1e7, NULL, NULL, 1, "unrecorded frames before each repeat"},
    {"experiment", "frames", CD_KEY_INT, "100", 1, 1e7, NULL, NULL, 1, "measured frames per repeat"},
    {"experiment", "repeats", CD_KEY_INT, "3", 1, 1e5, NULL, NULL, 1,
     "repeats per point (each rebuilds the scene from the seed)"},
    {"experiment", "order", CD_KEY_WORD, "points", 0, 0, order_words, NULL, 0,
     "points: each point's repeats back to back; rounds: repeat 1 of every point, then repeat 2 of every point, "
     "... (a slow spell of a shared machine then spreads over all points)"},
    {"run", "cpu", CD_KEY_INT, "0", -1, 65535, NULL, NULL, 0, "OS index of the PU to pin the runner to; -1: none"},
    {"run", "pin", CD_KEY_WORD, "optional", 0, 0, pin_words, NULL, 0,
     "optional (warn on failure), required (fail), off (no binding)"},
    {"run", "counters", CD_KEY_WORDS, "PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_BR_MSP", 0, 0, NULL,
     NULL, 0, "PAPI events read per frame (presets or native names); empty: none"},
    {"run", "output", CD_KEY_TEXT, "results", 0, 0, NULL, NULL, 0,
     "results root directory, relative to the working directory as --output is (an output, unlike the files a "
     "config reads, which are relative to the config's directory)"},
    {"run", "isolate", CD_KEY_WORD, "auto", 0, 0, isolate_words, NULL, 0,
     "process: every point (every round of a point) in its own child process, with a fresh heap and its own "
     "peak RSS; none: all in the runner; auto: process unless [run] counters names events (PAPI's event "
     "sets do not follow a fork)"},
    {"run", "point_timeout", CD_KEY_REAL, "0", 0, 1e9, NULL, NULL, 0,
     "seconds a point (with order = rounds: one round of it) may run; one that runs longer fails like any "
     "failed point: its process is killed (with isolate = none the runner ends at once, INCOMPLETE saying "
     "why); 0: no limit"},
    {"run", "cv_warn", CD_KEY_REAL, "0.10", 0, 1e9, NULL, NULL, 0,
     "warn when a point's frame_ms coefficient of variation exceeds this"},
    {"run", "figures", CD_KEY_WORDS, "", 0, 0, NULL, NULL, 0,
     "figures `cdlab plot` renders (plots/<name>.gp), among those its kind draws; default: the kind's"},
};

const cd_key_spec *cd_common_keys(size_t *count)
{
    *count = sizeof common_keys / sizeof common_keys[0];
    return common_keys;
}

const char *const cd_runner_columns[CD_RUNNER_COLUMNS] = {"point", "peak_rss_bytes"};

// Is name a key of the table spec[0, n)? Says which in what.
static int table_has(const cd_key_spec *spec, size_t n, const char *kind, const char *name, char *what, size_t len)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(spec[i].name, name) == 0) {
            snprintf(what, len, "the key [%s] %s of %s%s", spec[i].section, name, kind ? "kind " : "every kind",
                     kind ? kind : "");
            return 1;
        }
    return 0;
}

// Is name a column of col[0, n), the kind's columns of file? Says which in what.
static int columns_have(const cd_column *col, size_t n, const char *file, const char *kind, const char *name,
                        char *what, size_t len)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(col[i].name, name) == 0)
            return snprintf(what, len, "the %s column %s of kind %s", file, name, kind), 1;
    return 0;
}

int cd_config_name_taken(const cd_kind_set *kinds, const char *name, char *what, size_t len)
{
    if (table_has(common_keys, sizeof common_keys / sizeof common_keys[0], NULL, name, what, len)) return 1;
    for (size_t i = 0; i < CD_RUNNER_COLUMNS; ++i)
        if (strcmp(cd_runner_columns[i], name) == 0) return snprintf(what, len, "the column %s of every kind", name), 1;
    for (size_t i = 0; i < kinds->count; ++i) {
        const cd_kind *k = kinds->kinds[i];
        if (table_has(k->keys, k->key_count, k->name, name, what, len) ||
            table_has(k->more_keys, k->more_key_count, k->name, name, what, len) ||
            columns_have(k->frame_columns, k->frame_column_count, "frames.csv", k->name, name, what, len) ||
            columns_have(k->summary_columns, k->summary_column_count, "summary.csv", k->name, name, what, len))
            return 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Raw INI entries, collected with their line numbers.

typedef struct entry {
    char *section, *name, *value;
    int line;
} entry;

typedef struct section_line {
    char *name;
    int line;
} section_line;

typedef struct raw {
    const char *path;
    const char *text;
    size_t len, pos;
    int line;           // line the reader handed out last
    int line_indented;  // it started with white space (an inih continuation)
    int too_long;       // first line longer than inih's buffer
    entry *e;
    size_t count, cap;
    section_line *sec;
    size_t sec_count, sec_cap;
    int bad_line;  // first line a handler rejected
    char *err;
    size_t err_len;
} raw;

static char *dup_str(const char *s)
{
    size_t n = strlen(s);
    char *d = cd_alloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

// The longest line inih's buffer of INI_MAX_LINE bytes holds whole, with its newline and NUL.
#define MAX_LINE_CHARS (INI_MAX_LINE - 2)

// inih reads through this fgets-like reader so that we know the line of every callback, catch
// lines longer than Debian inih's 200-byte buffer (it would silently truncate them) and see
// section headers (this inih build calls the handler only for key = value lines).
static char *reader(char *str, int num, void *stream)
{
    raw *r = stream;
    if (r->pos >= r->len) return NULL;
    const char *start = r->text + r->pos;
    const char *nl = memchr(start, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - start) + 1 : r->len - r->pos;
    r->pos += n;
    r->line++;
    size_t chars = n - (n && start[n - 1] == '\n');  // the line without its newline
    if (chars > MAX_LINE_CHARS && !r->too_long) r->too_long = r->line;
    size_t copy = n < (size_t)num - 1 ? n : (size_t)num - 1;
    memcpy(str, start, copy);
    str[copy] = '\0';
    r->line_indented = n > 0 && (start[0] == ' ' || start[0] == '\t');
    size_t lead = strspn(start, " \t");
    if (lead < n && start[lead] == '[') {
        const char *close = memchr(start + lead, ']', n - lead);
        if (close) {
            size_t m = (size_t)(close - start - lead - 1);
            char *name = cd_alloc(m + 1);
            memcpy(name, start + lead + 1, m);
            name[m] = '\0';
            cd_grow((void **)&r->sec, sizeof *r->sec, &r->sec_cap, r->sec_count + 1);
            r->sec[r->sec_count++] = (section_line){name, r->line};
        }
    }
    return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    raw *r = user;
    // An indented line continuing the previous key (inih's multi-line values) extends its list,
    // so long sweeps can span lines despite the line limit.
    if (r->count && r->line_indented) {
        entry *last = &r->e[r->count - 1];
        if (strcmp(last->section, section) == 0 && strcmp(last->name, name) == 0) {
            // This inih strips inline comments ("; ..." after white space) from key lines but
            // hands continuation lines over whole: strip them here by the same rule.
            size_t b = strlen(value);
            for (size_t i = 1; i < b; ++i)
                if (value[i] == ';' && (value[i - 1] == ' ' || value[i - 1] == '\t')) {
                    b = i;
                    break;
                }
            while (b && (value[b - 1] == ' ' || value[b - 1] == '\t')) --b;
            size_t a = strlen(last->value);
            last->value = cd_realloc(last->value, a + b + 3);
            int has_comma = (a && last->value[a - 1] == ',') || value[0] == ',';
            snprintf(last->value + a, b + 3, "%s%.*s", has_comma ? " " : ", ", (int)b, value);
            return 1;
        }
    }
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(r->e[i].section, section) == 0 && strcmp(r->e[i].name, name) == 0) {
            if (!r->bad_line) {
                r->bad_line = r->line;
                snprintf(r->err, r->err_len, "%s:%d: key '%s' in [%s] given twice (first on line %d): expected it once",
                         r->path, r->line, name, section, r->e[i].line);
            }
            return 0;
        }
    cd_grow((void **)&r->e, sizeof *r->e, &r->cap, r->count + 1);
    r->e[r->count++] = (entry){dup_str(section), dup_str(name), dup_str(value), r->line};
    return 1;
}

static void raw_free(raw *r)
{
    for (size_t i = 0; i < r->count; ++i) {
        cd_free(r->e[i].section);
        cd_free(r->e[i].name);
        cd_free(r->e[i].value);
    }
    cd_free(r->e);
    for (size_t i = 0; i < r->sec_count; ++i) cd_free(r->sec[i].name);
    cd_free(r->sec);
}

// ---------------------------------------------------------------------------------------------

static int known_section(const cd_config *c, const char *name)
{
    for (size_t i = 0; i < c->key_count; ++i)
        if (strcmp(c->keys[i].spec->section, name) == 0) return 1;
    return 0;
}

static void list_keys(const cd_config *c, const char *section, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->key_count && n < len; ++i)
        if (strcmp(c->keys[i].spec->section, section) == 0)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->keys[i].spec->name);
}

static void list_sections(const cd_config *c, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->key_count && n < len; ++i) {
        const char *s = c->keys[i].spec->section;
        size_t j = 0;  // each section once: a kind's table may add keys to a common section ([scene])
        while (j < i && strcmp(c->keys[j].spec->section, s) != 0) ++j;
        if (j < i) continue;
        n += (size_t)snprintf(buf + n, len - n, "%s[%s]", n ? ", " : "", s);
    }
}

static cd_config_key *find_key(cd_config *c, const char *section, const char *name)
{
    for (size_t i = 0; i < c->key_count; ++i)
        if (strcmp(c->keys[i].spec->section, section) == 0 && strcmp(c->keys[i].spec->name, name) == 0)
            return &c->keys[i];
    return NULL;
}

// The key table: the common specs, then the kind's table(s), in order (the plan's order).
static void setup_keys(cd_config *c, const cd_kind *kind)
{
    size_t nc;
    const cd_key_spec *common = cd_common_keys(&nc);
    c->kind = kind;
    c->key_count = nc + kind->key_count + kind->more_key_count;
    c->keys = cd_alloc_zero(c->key_count, sizeof *c->keys);
    for (size_t i = 0; i < nc; ++i) c->keys[i].spec = &common[i];
    for (size_t i = 0; i < kind->key_count; ++i) c->keys[nc + i].spec = &kind->keys[i];
    for (size_t i = 0; i < kind->more_key_count; ++i) c->keys[nc + kind->key_count + i].spec = &kind->more_keys[i];
    // A table declared with a fixed size but fewer entries would leave zeroed specs.
    for (size_t i = 0; i < c->key_count; ++i) CD_ASSERT(c->keys[i].spec->section && c->keys[i].spec->name);
}

static int set_key(cd_config *c, cd_config_key *k, const char *text, int line, char *err, size_t err_len)
{
    char why[400];
    k->line = line;
    if (cd_values_parse(k->spec, text, &k->values, &k->count, why, sizeof why)) {
        cd_config_error(c, k, err, err_len, "[%s] %s: %s", k->spec->section, k->spec->name, why);
        return -1;
    }
    return 0;
}

// Is name one of the comma list's names?
static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        s += strspn(s, ", ");
        size_t len = strcspn(s, ", ");
        if (len == n && strncmp(s, name, n) == 0) return 1;
        s += len;
    }
    return 0;
}

// [run] figures names figures the kind draws: `cdlab plot` writes RUN_DIR/<name>.png from
// plots/<name>.gp, so a name that is not one of them ("nope", "../plots/fps_vs_cubes") fails
// there or writes outside the run directory.
static int check_figures(cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *fig = find_key(c, "run", "figures");
    const char *all = c->kind->all_figures ? c->kind->all_figures : c->kind->figures;
    for (size_t i = 0; i < fig->count; ++i)
        if (!list_has(all, fig->values[i].text)) {
            cd_config_error(c, fig, err, err_len, "[run] figures: '%s' is not a figure of kind %s: expected one of %s",
                            fig->values[i].text, c->kind->name, all);
            return -1;
        }
    return 0;
}

// Checks that hold for every kind.
static int validate_common(cd_config *c, char *err, size_t err_len)
{
    if (check_figures(c, err, err_len)) return -1;
    const cd_config_key *order = find_key(c, "experiment", "order");
    if (strcmp(order->values[0].text, "rounds") == 0 && !c->kind->run_round) {
        cd_config_error(c, order, err, err_len,
                        "[experiment] order = rounds: kind %s measures point by point: expected order = points",
                        c->kind->name);
        return -1;
    }
    const cd_config_key *pin = find_key(c, "run", "pin"), *cpu = find_key(c, "run", "cpu");
    int cpu_n = (int)cpu->values[0].num;
    if (strcmp(pin->values[0].text, "off") == 0 && cpu->line && cpu_n >= 0) {
        cd_config_error(c, cpu, err, err_len,
                        "[run] cpu = %d contradicts pin = off (line %d): expected cpu = -1 or pin = optional/required",
                        cpu_n, pin->line);
        return -1;
    }
    if (strcmp(pin->values[0].text, "required") == 0 && cpu_n < 0) {
        cd_config_error(c, pin, err, err_len, "[run] pin = required with cpu = -1: expected a cpu to pin to");
        return -1;
    }
    const cd_config_key *ctr = find_key(c, "run", "counters");
    if (ctr->count > CD_COUNTERS_MAX) {
        cd_config_error(c, ctr, err, err_len, "[run] counters: %zu events: expected at most %d", ctr->count,
                        CD_COUNTERS_MAX);
        return -1;
    }
    for (size_t i = 0; i < ctr->count; ++i)
        if (strlen(ctr->values[i].text) >= 64) {
            cd_config_error(c, ctr, err, err_len, "[run] counters: event name too long: expected < 64 characters");
            return -1;
        }
    // Each event is a column of both CSVs: one of a key's, the kind's or the runner's name would be
    // a second column of that name (e.g. a method parameter named like a PAPI preset).
    for (size_t i = 0; i < ctr->count; ++i) {
        const char *e = ctr->values[i].text, *what = NULL;
        for (size_t j = 0; j < CD_RUNNER_COLUMNS; ++j)
            if (strcmp(cd_runner_columns[j], e) == 0) what = "the runner's";
        for (size_t j = 0; !what && j < c->key_count; ++j)
            if (c->keys[j].spec->sweep && strcmp(c->keys[j].spec->name, e) == 0) what = "a key's";
        char col[200];
        if (!what &&
            (columns_have(c->kind->frame_columns, c->kind->frame_column_count, "", "", e, col, sizeof col) ||
             columns_have(c->kind->summary_columns, c->kind->summary_column_count, "", "", e, col, sizeof col)))
            what = "the kind's";
        if (what) {
            cd_config_error(c, ctr, err, err_len,
                            "[run] counters: event %s: the CSVs have %s column of that name already: expected an "
                            "event whose name no key or column has",
                            e, what);
            return -1;
        }
    }
    const cd_config_key *iso = find_key(c, "run", "isolate");
    if (strcmp(iso->values[0].text, "process") == 0 && ctr->count) {
        cd_config_error(c, iso, err, err_len,
                        "[run] isolate = process with counters (line %d): PAPI's event sets do not follow a fork: "
                        "expected counters = (empty) or isolate = auto/none",
                        ctr->line);
        return -1;
    }
    if (strcmp(iso->values[0].text, "process") == 0 && strcmp(order->values[0].text, "rounds") == 0 &&
        !c->kind->pack_state) {
        cd_config_error(c, iso, err, err_len,
                        "[run] isolate = process with order = rounds: kind %s keeps its rounds in the runner: "
                        "expected isolate = auto/none",
                        c->kind->name);
        return -1;
    }
    // Per-point sample arrays hold frames × repeats values; keep them to a sane size.
    const cd_config_key *frames = find_key(c, "experiment", "frames"), *reps = find_key(c, "experiment", "repeats");
    for (size_t i = 0; i < frames->count; ++i)
        for (size_t j = 0; j < reps->count; ++j)
            if (frames->values[i].num * reps->values[j].num > 1e8) {
                cd_config_error(c, frames, err, err_len,
                                "frames = %s with repeats = %s (line %d) is over 1e8 measured frames per point: "
                                "expected frames * repeats <= 1e8",
                                frames->values[i].text, reps->values[j].text, reps->line);
                return -1;
            }
    if (cd_plan_size(c) > CD_PLAN_MAX_POINTS) {
        cd_config_error(c, NULL, err, err_len, "the sweep has %zu points: expected at most %zu", cd_plan_size(c),
                        CD_PLAN_MAX_POINTS);
        return -1;
    }
    return 0;
}

static void default_name(cd_config *c, cd_config_key *k)
{
    // Default experiment name: the config file's base name without extension.
    const char *base = strrchr(c->path, '/');
    base = base ? base + 1 : c->path;
    size_t n = strcspn(base, ".");
    char buf[128];
    if (n == 0 || n >= sizeof buf) n = 0;
    memcpy(buf, base, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n; ++i)
        if (!isalnum((unsigned char)buf[i]) && buf[i] != '-' && buf[i] != '_') buf[i] = '_';
    if (!n) snprintf(buf, sizeof buf, "experiment");
    k->values = cd_alloc_zero(1, sizeof *k->values);
    k->values[0].text = dup_str(buf);
    k->count = 1;
}

// inih over r's text: 0, or -1 with r->err set (a line too long, a handler's error, a syntax
// error, or no settings at all).
static int read_ini(raw *r)
{
    int bad = ini_parse_stream(reader, r, handler, r);
    if (r->too_long) {
        snprintf(r->err, r->err_len,
                 "%s:%d: line longer than %d characters: expected a shorter line (split a long "
                 "list over indented continuation lines)",
                 r->path, r->too_long, MAX_LINE_CHARS);
        return -1;
    }
    if (r->bad_line) return -1;
    if (bad) {
        snprintf(r->err, r->err_len, "%s:%d: syntax error: expected '[section]', 'key = value' or a ; comment", r->path,
                 bad > 0 ? bad : 1);
        return -1;
    }
    if (r->count == 0) {  // it would run one point of every default, which nobody asked for
        snprintf(r->err, r->err_len,
                 "%s:1: no settings (the file is empty or all comments): expected at least "
                 "[experiment] kind = ... and the keys to set",
                 r->path);
        return -1;
    }
    return 0;
}

// The kind [experiment] kind names (the default when the config names none), or NULL with err set.
static const cd_kind *find_kind(const cd_kind_set *kinds, const raw *r, char *err, size_t err_len)
{
    const char *kind_name = common_keys[KIND_KEY].def;
    int kind_line = 0;
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(r->e[i].section, "experiment") == 0 && strcmp(r->e[i].name, "kind") == 0)
            kind_name = r->e[i].value, kind_line = r->e[i].line;
    const cd_kind *kind = cd_kind_set_find(kinds, kind_name);
    if (kind) return kind;
    char names[200] = "";
    size_t n = 0;
    for (size_t j = 0; j < kinds->count && n < sizeof names; ++j)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", j ? ", " : "", kinds->kinds[j]->name);
    snprintf(err, err_len, "%s:%d: [experiment] kind: unknown kind '%s': expected one of %s", r->path, kind_line,
             kind_name, names);
    return NULL;
}

// Every section header of the file is one of the kind's. 0, or -1 with err set.
static int check_sections(const cd_config *c, const raw *r, char *err, size_t err_len)
{
    for (size_t i = 0; i < r->sec_count; ++i)
        if (!known_section(c, r->sec[i].name)) {
            char secs[300];
            list_sections(c, secs, sizeof secs);
            snprintf(err, err_len, "%s:%d: unknown section [%s] for kind %s: expected one of %s", r->path,
                     r->sec[i].line, r->sec[i].name, c->kind->name, secs);
            return -1;
        }
    return 0;
}

// The kind's preload key as the file sets it, handed to the kind's preload. 0, or -1 with err set.
static int set_preload(cd_config *c, const raw *r, cd_config_key *pre, char *err, size_t err_len)
{
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(r->e[i].section, pre->spec->section) == 0 && strcmp(r->e[i].name, pre->spec->name) == 0 &&
            (set_key(c, pre, r->e[i].value, r->e[i].line, err, err_len) || c->kind->preload(c, pre, err, err_len)))
            return -1;
    return 0;
}

// Every key the file does not set takes its default (line 0).
static void set_defaults(cd_config *c)
{
    for (size_t i = 0; i < c->key_count; ++i) {
        cd_config_key *k = &c->keys[i];
        if (k->line) continue;
        if (strcmp(k->spec->section, "experiment") == 0 && strcmp(k->spec->name, "name") == 0) {
            default_name(c, k);
            continue;
        }
        const char *def = k->spec->def;
        if (strcmp(k->spec->section, "run") == 0 && strcmp(k->spec->name, "figures") == 0) def = c->kind->figures;
        char err[400];
        int rc = set_key(c, k, def, 0, err, sizeof err);
        CD_ASSERT(rc == 0);  // defaults in the tables must parse
        k->line = 0;
    }
}

int cd_config_parse(const cd_kind_set *kinds, const char *path, const char *text, size_t len, cd_config *c, char *err,
                    size_t err_len)
{
    *c = (cd_config){0};
    c->path = dup_str(path);
    c->text = cd_alloc(len + 1);
    memcpy(c->text, text, len);
    c->text[len] = '\0';
    c->text_len = len;
    cd_sha256_hex(text, len, c->sha256);
    err[0] = '\0';

    raw r = {.path = path, .text = c->text, .len = len, .err = err, .err_len = err_len};
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *q = text; q < nul; ++q) line += *q == '\n';
        snprintf(err, err_len, "%s:%d: binary data (NUL byte): expected an INI text file", path, line);
        goto fail;
    }
    if (read_ini(&r)) goto fail;
    // The kind decides which keys exist, so read it first.
    const cd_kind *kind = find_kind(kinds, &r, err, err_len);
    if (!kind) goto fail;
    c->kinds = kinds;
    setup_keys(c, kind);
    if (check_sections(c, &r, err, err_len)) goto fail;
    // The kind's preload key first: what it loads decides what the other keys may hold.
    cd_config_key *pre = kind->preload ? find_key(c, kind->preload_section, kind->preload_name) : NULL;
    if (pre && set_preload(c, &r, pre, err, err_len)) goto fail;
    cd_config_entry *params = cd_alloc_zero(r.count ? r.count : 1, sizeof *params);
    size_t param_count = 0;
    for (size_t i = 0; i < r.count; ++i) {
        entry *e = &r.e[i];
        if (pre && strcmp(e->section, pre->spec->section) == 0 && strcmp(e->name, pre->spec->name) == 0)
            continue;  // set above
        if (e->section[0] == '\0') {
            snprintf(err, err_len, "%s:%d: key '%s' before any section: expected a [section] header first", path,
                     e->line, e->name);
            goto fail_params;
        }
        cd_config_key *k = find_key(c, e->section, e->name);
        if (!k && cd_config_param_section(c, e->section)) {  // a method's parameter, once the methods are known
            params[param_count++] = (cd_config_entry){e->section, e->name, e->value, e->line};
            continue;
        }
        if (!k) {
            char keys[400];
            list_keys(c, e->section, keys, sizeof keys);
            snprintf(err, err_len, "%s:%d: unknown key '%s' in [%s]: expected one of %s", path, e->line, e->name,
                     e->section, keys);
            goto fail_params;
        }
        if (set_key(c, k, e->value, e->line, err, err_len)) goto fail_params;
    }
    set_defaults(c);
    if (cd_config_add_params(c, params, param_count, err, err_len)) goto fail_params;
    cd_free(params);
    if (validate_common(c, err, err_len)) goto fail;
    if (kind->validate && kind->validate(c, err, err_len)) goto fail;
    raw_free(&r);
    return 0;
fail_params:
    cd_free(params);
fail:
    raw_free(&r);
    cd_config_free(c);
    return -1;
}

int cd_config_load(const cd_kind_set *kinds, const char *path, cd_config *c, char *err, size_t err_len)
{
    *c = (cd_config){0};
    char *text, why[256];
    size_t len;
    if (cd_file_load(path, CD_CONFIG_MAX_BYTES, CD_FILE_OR_PIPE, &text, &len, why, sizeof why)) {
        snprintf(err, err_len, "%s:0: %s", path, why);
        return -1;
    }
    int rc = cd_config_parse(kinds, path, text, len, c, err, err_len);
    cd_free(text);
    return rc;
}

const cd_kind *cd_kind_set_find(const cd_kind_set *kinds, const char *name)
{
    for (size_t i = 0; i < kinds->count; ++i)
        if (strcmp(kinds->kinds[i]->name, name) == 0) return kinds->kinds[i];
    return NULL;
}

void cd_config_free(cd_config *c)
{
    for (size_t i = 0; i < c->key_count; ++i) {
        cd_values_free(c->keys[i].values, c->keys[i].count);
        cd_free(c->keys[i].own_spec);
        cd_free(c->keys[i].read_by);
    }
    for (size_t i = 0; i < c->warning_count; ++i) cd_free(c->warnings[i]);
    cd_free(c->warnings);
    for (size_t i = 0; i < c->input_count; ++i) cd_free(c->inputs[i]);
    cd_free(c->inputs);
    cd_free(c->keys);
    cd_free(c->path);
    cd_free(c->text);
    *c = (cd_config){0};
}

// Keep path in c's list of inputs (once) when it names a regular file. The list is a record of
// what the config's checks and points read, not a part of the config's value: hence the cast.
static void note_input(const cd_config *cc, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
    cd_config *c = (cd_config *)cc;
    for (size_t i = 0; i < c->input_count; ++i)
        if (strcmp(c->inputs[i], path) == 0) return;
    size_t n = strlen(path) + 1;
    c->inputs = cd_realloc(c->inputs, (c->input_count + 1) * sizeof *c->inputs);
    c->inputs[c->input_count++] = memcpy(cd_alloc(n), path, n);
}

void cd_config_resolve(const cd_config *c, const char *path, char *out, size_t len)
{
    const char *slash = strrchr(c->path, '/');
    if (path[0] == '/' || !slash)
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%.*s/%s", (int)(slash - c->path), c->path, path);
    note_input(c, out);
}

const cd_config_key *cd_config_key_find(const cd_config *c, const char *section, const char *name)
{
    return find_key((cd_config *)c, section, name);
}

const cd_config_key *cd_config_key_get(const cd_config *c, const char *section, const char *name)
{
    cd_config_key *k = find_key((cd_config *)c, section, name);
    CD_ASSERT(k);
    return k;
}

double cd_config_num(const cd_config *c, const char *section, const char *name)
{
    const cd_config_key *k = cd_config_key_get(c, section, name);
    CD_ASSERT(k->count > 0);
    return k->values[0].num;
}

const char *cd_config_text(const cd_config *c, const char *section, const char *name)
{
    const cd_config_key *k = cd_config_key_get(c, section, name);
    return k->count ? k->values[0].text : "";
}
