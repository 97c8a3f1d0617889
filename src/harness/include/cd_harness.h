// SPDX-License-Identifier: MIT
// cdlab harness, what an experiment kind uses: an INI config (inih) becomes a plan (every
// combination of the swept keys, each method crossed with its own parameters), the runner measures
// each point through its experiment kind and writes frames.csv, summary.csv and meta.ini. This
// header is the kinds' side: key tables, points, statistics, rows and the calls a kind makes while
// it measures. What a program does with configs and runs (loading, running, shards, counters,
// pinning, provenance) is in cd_harness_cli.h; what stays inside the harness, in its private
// headers.
//
// An experiment kind fills cd_kind — its config keys as a table, its CSV columns, a cross-key
// check and a run-point function. cdlab's kinds (cubes, max_fps, mesh, tri_tri) live in the kinds
// module, one file each; the parser and the runner know them only through the cd_kind_set they
// are given, and never name a kind's keys.
#ifndef CD_HARNESS_H
#define CD_HARNESS_H

#include "cd_core.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// ---------------------------------------------------------------------------------------------
// Config keys are declared in tables (one per kind plus the common [experiment] and [run]).

/// What a key's value must be.
typedef enum cd_key_type {
    CD_KEY_INT,    ///< integer in [min, max]; list or range allowed when sweep is set
    CD_KEY_REAL,   ///< finite number in [min, max]; list or range allowed when sweep is set
    CD_KEY_WORD,   ///< a word (checked by words[] or check()); list allowed when sweep is set
    CD_KEY_TEXT,   ///< free text taken whole (paths, names); never a list
    CD_KEY_WORDS,  ///< a comma list of words that is ONE value (e.g. counters); may be empty
    CD_KEY_PATH,   ///< a file path taken whole, or empty for none (no value); never a list
} cd_key_type;

/// One config key: where it lives, what it accepts, its default and its documentation.
typedef struct cd_key_spec {
    const char *section;       ///< e.g. "scene"
    const char *name;          ///< e.g. "cubes"
    cd_key_type type;          ///< accepted values
    const char *def;           ///< default, written as in a config file
    double min, max;           ///< bounds for INT and REAL
    const char *const *words;  ///< NULL-terminated allowed words for WORD (NULL: use check)
    /// For WORD/WORDS without words[]: NULL when w is acceptable, else what was expected.
    const char *(*check)(const char *w);
    int sweep;         ///< 1 when the key may hold a list or range (a sweep dimension)
    const char *help;  ///< one line for `cdlab run --keys` and docs/config.md
} cd_key_spec;

/// One value of a key: its text as written (ranges expanded) and, for numbers, its number.
typedef struct cd_value {
    char *text;
    double num;
} cd_value;

/// A key as configured: the spec, its values (a sweep when count > 1) and the line it came from.
typedef struct cd_config_key {
    const cd_key_spec *spec;
    cd_value *values;
    size_t count;
    int line;  ///< 1-based line in the config, 0 when the default applies
    /// A method's parameter (cd_method_key): 1 + the index of the key that names the method; 0 for
    /// every other key. With line 0 each method takes its own default.
    size_t owner;
    unsigned char *read_by;  ///< a parameter: read_by[v] = 1 when the owner's value v declares it
    cd_key_spec *own_spec;   ///< a parameter: its spec, made from the methods' tables (freed with the config)
} cd_config_key;

/// A key whose value names a method with parameters of its own: [method] method names a broad phase,
/// [method] hierarchy a hierarchy variant. Each listed method's parameters (cd_param_spec) become
/// keys of the same section: checked against the tables of the listed methods that declare them,
/// crossed by the plan only with those methods (one point per distinct setting), and key columns of
/// frames.csv and summary.csv. A parameter no listed method reads is a warning, and adds no points.
typedef struct cd_method_key {
    const char *section, *name;
    /// The i-th method the key may name (i = 0, 1, ...) with its parameter table; NULL after the last.
    const char *(*method_at)(size_t i, const cd_param_spec **params, size_t *count);
} cd_method_key;

struct cd_kind;

/// A parsed and validated config.
typedef struct cd_config {
    char *path;  ///< as given
    char *text;  ///< the file's bytes (copied into the run directory)
    size_t text_len;
    char sha256[65];                  ///< hex SHA-256 of text
    const struct cd_kind *kind;       ///< from [experiment] kind
    const struct cd_kind_set *kinds;  ///< the kinds it was checked against (cd_config_load)
    cd_config_key *keys;              ///< common keys then the kind's keys, in table order; a method key's
                                      ///< parameters right after it
    size_t key_count;
    char **warnings;  ///< "path:line: ..." that do not stop the run (meta.ini keeps them)
    size_t warning_count;
    /// Every existing file that cd_config_resolve resolved: the files the config names (scene,
    /// meshes, poses, plugins), which meta.ini [inputs] records with their SHA-256.
    char **inputs;
    size_t input_count;
} cd_config;

/// The experiment kinds a config may name: cdlab passes the kinds module's table (cd_kinds.h), a
/// test may pass its own. The runner and the parser know kinds only through this set.
typedef struct cd_kind_set {
    const struct cd_kind *const *kinds;
    size_t count;
} cd_kind_set;

/// A path as c names it (a plugin, a scene, mesh or poses file): a relative one is resolved against
/// the directory of c's file, into out. Every path key goes through here; an existing file is
/// noted in c->inputs.
void cd_config_resolve(const cd_config *c, const char *path, char *out, size_t len);
/// The configured key section.name, or NULL when c's kind has no such key.
const cd_config_key *cd_config_key_find(const cd_config *c, const char *section, const char *name);
/// The configured key section.name (CD_ASSERT that the kind declares it).
const cd_config_key *cd_config_key_get(const cd_config *c, const char *section, const char *name);
/// First value's number / text of section.name (for keys that are not swept).
double cd_config_num(const cd_config *c, const char *section, const char *name);
/// First value's text of section.name.
const char *cd_config_text(const cd_config *c, const char *section, const char *name);
/// Keep a warning "path:line: msg" on c for key k (NULL: line 1), for the CLI and meta.ini.
void cd_config_warn(cd_config *c, const cd_config_key *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/// Write "path:line: msg" into err for key k (line 0 becomes the config's path alone).
void cd_config_error(const cd_config *c, const cd_config_key *k, char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/// "name = v1, v2, ...": key k as its values read in a message, into buf (cut to len).
void cd_config_key_text(const cd_config_key *k, char *buf, size_t len);
/// Refuse key k when it holds more than one value that no point reads (reader: what leaves it
/// unread, e.g. "[scene] trace"): its points would repeat each other under different labels.
/// 0 (one value or none), or -1 with "path:line: [section] name takes N values, but reader does
/// not read it: ..." in err.
int cd_config_refuse_unread_sweep(const cd_config *c, const cd_config_key *k, const char *reader, char *err,
                                  size_t err_len);

/// Parse one value list as config keys do (lists, `a..b`, `a..b +s`, `a..b *f`), for tests and
/// for kinds: an integer judged on its digits (its bounds read within ±2^53), no value twice.
/// Returns 0, or -1 with the reason (no file:line) in why.
int cd_values_parse(const cd_key_spec *spec, const char *text, cd_value **out, size_t *count, char *why,
                    size_t why_len);
/// Free a value array from cd_values_parse.
void cd_values_free(cd_value *v, size_t count);
/// Whether s holds only the characters of a config's word values: letters, digits and _ - : . /
/// + = (a comma splits values; a space, a quote or # is no word). Empty text has none to refuse.
int cd_config_is_word(const char *s);

// ---------------------------------------------------------------------------------------------
// Plan: the cartesian product of all keys; the first swept key in table order varies slowest.

/// One point of the plan: which value every key takes.
typedef struct cd_point {
    const cd_config *cfg;
    size_t index;  ///< 0-based point number
    size_t *pick;  ///< pick[k] = value index of cfg->keys[k]
} cd_point;

/// Number of section.name at this point.
double cd_point_num(const cd_point *p, const char *section, const char *name);
/// Text of section.name at this point.
const char *cd_point_text(const cd_point *p, const char *section, const char *name);
/// The parameters of the method that key section.name (a cd_method_key) names at point p, whose
/// table is spec[0, count): its defaults, then the values p gives the parameters it declares.
cd_params cd_point_params(const cd_point *p, const char *section, const char *name, const cd_param_spec *spec,
                          size_t count);
/// 1 when key k of p's config is a method parameter that the method named at p does not read (the
/// plan does not cross that method with it; its cells are NA).
int cd_point_unread(const cd_point *p, size_t k);
/// Key k's value at point p as its CSV cell shows it: "NA" for a parameter p's method does not
/// read, a parameter's default (the method's) where the config leaves it out, else the text given.
const char *cd_point_key_text(const cd_point *p, size_t k);

// ---------------------------------------------------------------------------------------------
// Statistics: the one routine every summary uses.

/// Order statistics and spread of a sample.
typedef struct cd_stats {
    size_t n;
    double mean, median, p05, p95;
    double mad;  ///< median absolute deviation from the median (unscaled)
    double cv;   ///< sample standard deviation / mean (0 when n < 2 or mean = 0)
    double min, max;
} cd_stats;

/// Statistics of x[0..n) (x is not modified). Percentiles interpolate linearly between order
/// statistics (Hyndman–Fan type 7, as R and numpy default). n = 0 gives all zeros.
cd_stats cd_stats_compute(const double *x, size_t n);

// ---------------------------------------------------------------------------------------------
// CSV rows: typed cells written through cd_csv.

/// Column value type.
typedef enum cd_cell_type { CD_CELL_NA = 0, CD_CELL_INT, CD_CELL_REAL, CD_CELL_TEXT } cd_cell_type;

/// One CSV cell.
typedef struct cd_cell {
    cd_cell_type type;
    int64_t i;
    double r;
    const char *t;
} cd_cell;

static inline cd_cell cd_cell_int(int64_t v) { return (cd_cell){.type = CD_CELL_INT, .i = v}; }
static inline cd_cell cd_cell_real(double v) { return (cd_cell){.type = CD_CELL_REAL, .r = v}; }
static inline cd_cell cd_cell_text(const char *v) { return (cd_cell){.type = CD_CELL_TEXT, .t = v}; }
static inline cd_cell cd_cell_na(void) { return (cd_cell){.type = CD_CELL_NA}; }

/// Format a cell: integers as %lld, reals as %.10g, NA as "NA".
void cd_cell_format(const cd_cell *c, char *buf, size_t len);

/// A CSV column a kind declares.
typedef struct cd_column {
    const char *name;
    int varies;        ///< 1 for wall-clock columns that differ run to run (times, FPS, memory)
    const char *help;  ///< one line for `cdlab run --keys --markdown` (docs/config.md)
} cd_column;

// ---------------------------------------------------------------------------------------------
// Summary rows by column name (the way kinds write them; see row.c).

/// A summary row under construction: cells set by column name, in any order.
typedef struct cd_row {
    const cd_column *columns;  ///< the kind's summary columns
    size_t count;
    cd_cell *cells;      ///< one per column
    unsigned char *set;  ///< 1 where the cell was set
} cd_row;

// ---------------------------------------------------------------------------------------------
// The runner and the kind interface.

typedef struct cd_run cd_run;
struct cd_estimate;  // cd_harness_cli.h: what a point is expected to take (cd_kind.estimate)

/// An experiment kind.
typedef struct cd_kind {
    const char *name;         ///< [experiment] kind
    const char *description;  ///< one line
    const cd_key_spec *keys;  ///< the kind's keys (sections other than experiment, run)
    size_t key_count;
    const cd_key_spec *more_keys;  ///< a second table, so a kind can reuse another's (may be NULL)
    size_t more_key_count;
    /// Keys of more_keys ("section.name", NULL-terminated; may be NULL) that the kind's validate
    /// refuses: left out of `cdlab run --keys` and config.md, which list what a config may set.
    const char *const *refused_more_keys;
    const char *figures;  ///< default [run] figures
    /// Every figure that draws this kind's runs (plots/<name>.gp), comma-separated: what [run]
    /// figures may name, figures among them. NULL: figures alone.
    const char *all_figures;
    /// Cross-key checks after every key parsed (contradicting values); 0 or -1 with err set
    /// through cd_config_error; what is legal but likely not meant is kept with cd_config_warn.
    /// May be NULL.
    int (*validate)(cd_config *c, char *err, size_t err_len);
    /// Optional: the key preload_section.preload_name is set before every other key and handed
    /// to preload when the config gives it (e.g. [method] plugin: the plugins it loads add the
    /// names that [method] method is then checked against). 0, or -1 with err set through
    /// cd_config_error.
    const char *preload_section, *preload_name;
    int (*preload)(cd_config *c, const cd_config_key *k, char *err, size_t err_len);
    /// Keys that name methods with parameters of their own (cd_method_key); may be NULL.
    const cd_method_key *method_keys;
    size_t method_key_count;
    const cd_column *frame_columns;  ///< frames.csv columns after `point`
    size_t frame_column_count;
    const cd_column *summary_columns;  ///< summary.csv columns after `point`, before peak_rss
    size_t summary_column_count;
    /// Measure one point: emit frame rows and its summary rows (one for most kinds, one per probe
    /// for max_fps; a point's rows one after another, as merge expects them). 0, or -1 after
    /// cd_run_fail.
    int (*run_point)(cd_run *r, const cd_point *p);
    /// Optional ([experiment] order = rounds): measure repeat `round` of point p, frame rows only,
    /// keeping what the summary needs in *state (NULL before the point's first round). 0, or -1
    /// after cd_run_fail.
    int (*run_round)(cd_run *r, const cd_point *p, uint32_t round, void **state);
    /// After p's last round (or a stop): its one summary row from the `rounds` it measured (none
    /// when rounds = 0: its first round failed), then free state. 0, or -1 after cd_run_fail.
    int (*finish_point)(cd_run *r, const cd_point *p, void *state, uint32_t rounds);
    /// Optional, with run_round, for rounds in child processes ([run] isolate): state as one
    /// block of *bytes bytes (cd_free it), and the state such a block describes (old: the
    /// runner's copy from before the round, or NULL; the result replaces it, old is freed).
    void *(*pack_state)(const void *state, size_t *bytes);
    void *(*unpack_state)(void *old, const void *block, size_t bytes);
    /// Optional: the work of one frame of point p relative to the kind's other points (e.g. its
    /// cube count), for balancing shards where no model estimates it (cd_point_estimate). NULL: 1.
    double (*cost)(const cd_point *p);
    /// Optional: the bytes point p's data will take, known from its keys whatever the machine
    /// (tri_tri: its triangle pairs), for --dry-run and the warning of a point that will not fit
    /// in memory where no model estimates the point (cd_point_estimate). NULL: unknown.
    double (*data_bytes)(const cd_point *p);
    /// Optional: when what point p measures depends on earlier points of the same run (notes of
    /// cd_run_note_series), the key of its chain in buf; points with the same key stay in one
    /// shard. buf[0] = '\0' (as given): no chain. NULL: no chains.
    void (*chain)(const cd_point *p, char *buf, size_t len);
    /// Optional: a file that point p makes from its keys before it measures (the cubes kind's
    /// simulated scene: its trace, baked into <root>/cache/ unless a whole one is there), for
    /// --dry-run and the warning of a run whose files will not fit on its disk. root is the run's
    /// output root ([run] output, or --output); the file's path goes to path, whether it is there
    /// already to *cached, and how it is made to what ("baked by simulation pile, ..."). Its size
    /// in bytes; 0: p makes no file.
    double (*derived_file)(const cd_point *p, const char *root, char *path, size_t path_len, int *cached, char *what,
                           size_t what_len);
    /// Optional: called in the runner before each process of point p starts (isolate = process),
    /// for work whose result the process inherits and need not redo: the cubes kind checks a
    /// simulated scene's cached trace there, so that its SHA-256 is computed once, not once per
    /// point and round. It fails nothing: the point's process does the work and reports.
    void (*before_fork)(const cd_run *r, const cd_point *p);
    /// Optional: the estimate of point p (struct cd_estimate, cd_harness_cli.h) where the work is
    /// not cost × (warmup + frames) × repeats: a max_fps search's probes, a mesh point's queries.
    /// Fills e as cd_point_estimate does and returns what it returns (0: a model covers it; -1:
    /// seconds in nominal units, CD_NOMINAL_SECONDS_PER_UNIT). NULL: cost × frames.
    int (*estimate)(const cd_point *p, struct cd_estimate *e);
} cd_kind;

// ---------------------------------------------------------------------------------------------
// What a kind calls while it measures a point.

/// Most counters one run reads.
#define CD_COUNTERS_MAX 16

/// Spread the `threads` OpenMP workers of later parallel regions over PUs: worker w is bound to
/// the w-th PU (in OS-index order, wrapping) counted from PU first_cpu, or, when first_cpu < 0,
/// to the whole machine. Workers otherwise inherit the main thread's single-PU binding and all
/// run on one core. Returns the number of workers bound.
int cd_pin_workers(int threads, int first_cpu);

/// The CPU the run's thread is pinned to (verified), or -1 when it is not pinned.
int cd_run_pinned_cpu(const cd_run *r);
/// One repeat's frames as every kind samples them (cd_run_frames): `warmup` untimed frames, then
/// `frames` measured ones, each inside the run's hardware counters and timed on one clock.
typedef struct cd_frames {
    uint32_t warmup, frames;
    int threads;    ///< > 1: bind the OpenMP workers first (cd_pin_workers)
    int cpu_clock;  ///< 1: the thread's CPU clock (serial frames only); 0: the wall clock
    void *ctx;      ///< the kind's, handed to frame and done
    /// One frame: f < 0 a warm-up frame, else measured frame f (inside the counters and the
    /// clock). 0, or -1 to end the repeat (after cd_run_fail, or with the kind's own reason).
    int (*frame)(void *ctx, int64_t f);
    /// After measured frame f, outside the counters: ns is the frame's time on the clock. The
    /// kind keeps its samples and writes the frame's row. 0, or -1 to end the repeat.
    int (*done)(cd_run *r, void *ctx, uint32_t f, uint64_t ns);
} cd_frames;

/// Run one repeat of fr: bind workers, warm up, then each measured frame between
/// cd_run_counters_begin and cd_run_counters_end on fr's clock, its done after. 0, or -1 when a
/// frame or done returned -1 (the repeat ends there).
int cd_run_frames(cd_run *r, const cd_frames *fr);
/// For kinds: start the hardware counters for one measured frame.
void cd_run_counters_begin(cd_run *r);
/// For kinds: stop them; their values go into the next frame row.
void cd_run_counters_end(cd_run *r);
/// For kinds: one frames.csv row (cells match frame_columns; counters appended by the runner).
void cd_run_frame_row(cd_run *r, const cd_cell *cells);
/// For kinds: a summary row of r's kind to fill with cd_row_set and write with cd_run_summary_end.
cd_row cd_run_summary_begin(cd_run *r);
/// Set column name's cell; the column must exist in the kind's table and not be set yet.
void cd_row_set(cd_row *row, const char *name, cd_cell c);
/// Set the columns name_median, name_p05, name_p95, name_mad, name_cv, name_mean, name_min and
/// name_max that the table has (at least one) from st; NA when st holds no sample.
void cd_row_set_stats(cd_row *row, const char *name, const cd_stats *st);
/// Set every column not set yet to NA (a point that was skipped).
void cd_row_set_rest_na(cd_row *row);
/// Write the row as cd_run_summary_row does (every column must be set) and free it.
void cd_run_summary_end(cd_run *r, cd_row *row);
/// For kinds: warn that point p is noisy when cv (of the statistic `what`) exceeds [run] cv_warn.
void cd_run_warn_noisy(cd_run *r, const cd_point *p, const char *what, double cv);
/// For kinds: a warning (stderr unless quiet, and meta.ini).
void cd_run_warn(cd_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// For kinds: fail the run with a message; run_point then returns -1.
void cd_run_fail(cd_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// For kinds: the run directory, <output>/<experiment>/<run-id>.
const char *cd_run_directory(const cd_run *r);
/// The results root the run directory lies in (--output or [run] output, as given): where
/// <root>/cache/ holds what the runs under it share (the simulated scenes' traces).
const char *cd_run_output_root(const cd_run *r);
/// For kinds: whether the run prints no progress on stderr.
int cd_run_quiet(const cd_run *r);
/// For kinds: a file a point read that the config does not name but the run derived from it (a
/// simulated scene's trace, baked into <output>/cache/), with the SHA-256 and size the point
/// checked; what is one word that says what derived it ("simulate"). meta.ini [inputs] lists it
/// after the config's files, once per path, and progress.part keeps it for a resume. 0; -1 with
/// why when this run (or the attempt it resumes) recorded path with another SHA-256: its points
/// would have replayed two different files under one name, so the caller fails the point.
int cd_run_derived_input(cd_run *r, const char *path, const char *sha256, uint64_t bytes, const char *what, char *why,
                         size_t why_len);
/// CV above which the runner warns ([run] cv_warn).
double cd_run_cv_warn(const cd_run *r);
/// For kinds: remember for the rest of the run that the sweep `series` (a kind's key for a point
/// without its size) passed a limit at size `at`, measuring `value` (the budget of the cubes
/// kind). Kept by the runner, so a point run in a child process ([run] isolate) still tells the
/// points after it.
void cd_run_note_series(cd_run *r, const char *series, double at, double value);
/// For kinds: the first note of `series` at a size below `below`: 1 with *at and *value, else 0.
int cd_run_series_noted(const cd_run *r, const char *series, double below, double *at, double *value);

#endif
