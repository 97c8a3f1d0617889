// SPDX-License-Identifier: MIT
// cdlab harness: an INI config (inih) becomes a plan (the cartesian product of every swept key),
// the runner measures each point through its experiment kind and writes frames.csv, summary.csv
// and meta.ini; statistics, PAPI counters, hwloc pinning, SHA-256 and provenance live here too.
//
// An experiment kind fills cd_kind — its config keys as a table, its CSV columns, a cross-key
// check and a run-point function. cdlab's kinds (cubes, max_fps, mesh, tri_tri) live in the kinds
// module, one file each; the parser and the runner know them only through the cd_kind_set they
// are given, and never name a kind's keys.
#ifndef CD_HARNESS_H
#define CD_HARNESS_H

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
    int sweep;                 ///< 1 when the key may hold a list or range (a sweep dimension)
    const char *help;          ///< one line for `cdlab run --keys` and docs/config.md
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
} cd_config_key;

struct cd_kind;

/// A parsed and validated config.
typedef struct cd_config {
    char *path;                  ///< as given
    char *text;                  ///< the file's bytes (copied into the run directory)
    size_t text_len;
    char sha256[65];             ///< hex SHA-256 of text
    const struct cd_kind *kind;  ///< from [experiment] kind
    cd_config_key *keys;         ///< common keys then the kind's keys, in table order
    size_t key_count;
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

/// The kind of set called name, or NULL.
const struct cd_kind *cd_kind_set_find(const cd_kind_set *kinds, const char *name);

/// Load and validate path: syntax, sections, keys, values, ranges, then the kind's cross-key
/// checks. Returns 0, or -1 with "path:line: what was expected" in err (c is then empty).
int cd_config_load(const cd_kind_set *kinds, const char *path, cd_config *c, char *err, size_t err_len);
/// Same from text in memory; path names the source in messages.
int cd_config_parse(const cd_kind_set *kinds, const char *path, const char *text, size_t len, cd_config *c,
                    char *err, size_t err_len);
/// Free everything c holds.
void cd_config_free(cd_config *c);
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
/// Write "path:line: msg" into err for key k (line 0 becomes the config's path alone).
void cd_config_error(const cd_config *c, const cd_config_key *k, char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/// Parse one value list as config keys do (lists, `a..b`, `a..b +s`, `a..b *f`), for tests and
/// for kinds. Returns 0, or -1 with the reason (no file:line) in why.
int cd_values_parse(const cd_key_spec *spec, const char *text, cd_value **out, size_t *count, char *why, size_t why_len);
/// Free a value array from cd_values_parse.
void cd_values_free(cd_value *v, size_t count);

/// The keys every kind shares ([experiment] and [run]); *count receives their number.
const cd_key_spec *cd_common_keys(size_t *count);

// ---------------------------------------------------------------------------------------------
// Plan: the cartesian product of all keys; the first swept key in table order varies slowest.

/// Number of points of c (product of the value counts), saturating at SIZE_MAX.
size_t cd_plan_size(const cd_config *c);

/// One point of the plan: which value every key takes.
typedef struct cd_point {
    const cd_config *cfg;
    size_t index;  ///< 0-based point number
    size_t *pick;  ///< pick[k] = value index of cfg->keys[k]
} cd_point;

/// Fill p for point index (p->pick must hold cfg->key_count entries).
void cd_point_at(const cd_config *c, size_t index, cd_point *p);
/// Number of section.name at this point.
double cd_point_num(const cd_point *p, const char *section, const char *name);
/// Text of section.name at this point.
const char *cd_point_text(const cd_point *p, const char *section, const char *name);
/// "key=value key=value" of the swept keys at this point (for progress lines).
void cd_point_label(const cd_point *p, char *buf, size_t len);

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

/// A ratio of two medians with its confidence interval.
typedef struct cd_ratio_ci {
    double ratio;   ///< median(b) / median(a)
    double lo, hi;  ///< percentile bootstrap interval
} cd_ratio_ci;

/// median(b) / median(a) (type-7 medians, as cd_stats_compute) and its percentile bootstrap
/// interval at `level` (e.g. 0.95): `resamples` times, both samples are redrawn with replacement
/// from seed's CD_STREAM_BOOTSTRAP and the ratio of the redrawn medians taken; lo and hi are the
/// (1 - level)/2 and (1 + level)/2 quantiles of those ratios. The same inputs and seed give the same
/// interval. na, nb > 0, median(a) > 0.
cd_ratio_ci cd_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb, size_t resamples,
                                      double level, uint64_t seed);

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
    cd_cell *cells;            ///< one per column
    unsigned char *set;        ///< 1 where the cell was set
} cd_row;

// ---------------------------------------------------------------------------------------------
// Hardware counters (PAPI low-level API) and pinning (hwloc).

/// Most counters one run reads.
#define CD_COUNTERS_MAX 16

/// Where a counter's values come from.
typedef enum cd_counter_source {
    CD_COUNTER_NA = 0,  ///< nowhere: NA in every row
    CD_COUNTER_PAPI,    ///< PAPI's event set
    CD_COUNTER_PERF,    ///< perf_event_open, for a Linux software event PAPI cannot provide here
} cd_counter_source;

/// The counters of a run: each requested event is either live or NA with a reason. PAPI is asked
/// first; a Linux software event under PAPI's name (perf::TASK-CLOCK, perf::PAGE-FAULTS, ...) that
/// PAPI cannot provide is opened with perf_event_open, counting like PAPI would (this thread only,
/// user mode) between the same begin and end.
typedef struct cd_counters {
    size_t count;                        ///< requested events
    char names[CD_COUNTERS_MAX][64];     ///< as requested
    int live[CD_COUNTERS_MAX];           ///< 1 when counted (by either source)
    int source[CD_COUNTERS_MAX];         ///< cd_counter_source
    char reason[CD_COUNTERS_MAX][224];   ///< "ok", "ok (perf_event_open; PAPI: why not)", or why NA
    int slot[CD_COUNTERS_MAX];           ///< index in the PAPI event set or in the perf group
    int live_count;                      ///< live events of both sources
    int papi_count;                      ///< events in the PAPI event set
    int event_set;                       ///< PAPI event set (PAPI_NULL when none)
    int running;                         ///< the PAPI event set is started
    int perf_count;                      ///< events in the perf_event group
    int perf_fd[CD_COUNTERS_MAX];        ///< their descriptors; perf_fd[0] leads the group
    int perf_running;                    ///< the group is enabled
    char papi_version[32];               ///< "7.0.0.0", or "unavailable"
    char papi_status[200];               ///< library/component state in one line
    long long last[CD_COUNTERS_MAX];     ///< values of the last begin/end interval; -1 when NA
} cd_counters;

/// Set up the named events, adding them one at a time; never fails — unusable events are NA with
/// a reason. Call after pinning, on the thread to be measured: both sources count that thread only.
void cd_counters_open(cd_counters *k, const char *const *names, size_t n);
/// Start counting from zero (no-op when no event is live).
void cd_counters_begin(cd_counters *k);
/// Stop and read into k->last.
void cd_counters_end(cd_counters *k);
/// Release the event set and the perf_event descriptors.
void cd_counters_close(cd_counters *k);
/// 1 when event name can be counted here; reason gets "ok" (or "ok (perf_event_open; ...)") or why not.
int cd_counters_probe(const char *name, char *reason, size_t len);
/// Call each(name, description, ctx) for every PAPI preset this PAPI knows; returns how many.
size_t cd_counters_presets(void (*each)(const char *name, const char *description, void *ctx), void *ctx);
/// Call each(name, description, ctx) for every Linux software event cdlab can open itself when PAPI
/// cannot (PAPI's perf:: names); returns how many.
size_t cd_counters_software(void (*each)(const char *name, const char *description, void *ctx), void *ctx);
/// PAPI version and the CPU component's state in one line (why counters are missing, if they are).
void cd_counters_library(char *version, size_t version_len, char *status, size_t status_len);

/// Pinning policy from [run] pin.
typedef enum cd_pin_mode { CD_PIN_OFF = 0, CD_PIN_OPTIONAL, CD_PIN_REQUIRED } cd_pin_mode;

/// The outcome of a pinning request.
typedef struct cd_pin_result {
    cd_pin_mode mode;
    int requested;    ///< OS index of the requested PU (-1: none)
    int actual;       ///< CPU the thread ran on after binding (-1: unknown)
    int ok;           ///< 1 when bound and verified
    char status[200]; ///< "bound and verified", or what failed
} cd_pin_result;

/// Bind the calling thread to PU cpu (OS index) and verify with the last CPU location.
/// Returns 0, or -1 when mode is REQUIRED and it failed (r->status says why).
int cd_pin_thread(cd_pin_mode mode, int cpu, cd_pin_result *r);
/// The first PU (OS index) of the calling process's CPU binding, i.e. of the allocation a batch
/// system gave it, or -1 when hwloc cannot tell.
int cd_pin_first_allowed(void);
/// Spread the `threads` OpenMP workers of later parallel regions over PUs: worker w is bound to
/// the w-th PU (in OS-index order, wrapping) counted from PU first_cpu, or, when first_cpu < 0,
/// to the whole machine. Workers otherwise inherit the main thread's single-PU binding and all
/// run on one core. Returns the number of workers bound.
int cd_pin_workers(int threads, int first_cpu);
/// Keep freed memory in the process (glibc: raise the mmap and trim thresholds) so that repeated
/// builds and frames reuse their pages instead of paying the kernel's zeroing of fresh ones on
/// each repetition; the same for every method in the process. Returns 0, or -1 where the C library
/// offers no such setting (the measurement is then as before).
int cd_alloc_keep_freed(void);
/// Return the freed memory kept since to the kernel (glibc's malloc_trim); between experiment points.
void cd_alloc_release_freed(void);
/// One-line hwloc topology summary: packages, cores, PUs, NUMA nodes, caches.
void cd_topology_summary(char *buf, size_t len);
/// 1 when hwloc reports thread binding support (reason in why either way).
int cd_pin_supported(char *why, size_t len);

// ---------------------------------------------------------------------------------------------
// Provenance.

/// SHA-256 of data as 64 lowercase hex digits plus NUL.
void cd_sha256_hex(const void *data, size_t len, char out[65]);
/// SHA-256 of the file at path (read in pieces) and its size. 0, or the errno of the failure.
int cd_sha256_file(const char *path, char out[65], uint64_t *bytes);
/// CPU model name from /proc/cpuinfo ("unknown" when absent).
void cd_cpu_model(char *buf, size_t len);
/// Git commit of the source tree and whether it is dirty ("unknown" when git or .git is absent).
void cd_git_describe(char *commit, size_t commit_len, char *dirty, size_t dirty_len);

// ---------------------------------------------------------------------------------------------
// The runner and the kind interface.

typedef struct cd_run cd_run;

/// An experiment kind.
typedef struct cd_kind {
    const char *name;              ///< [experiment] kind
    const char *description;       ///< one line
    const cd_key_spec *keys;       ///< the kind's keys (sections other than experiment, run)
    size_t key_count;
    const cd_key_spec *more_keys;  ///< a second table, so a kind can reuse another's (may be NULL)
    size_t more_key_count;
    const char *figures;           ///< default [run] figures
    /// Cross-key checks after every key parsed (contradicting values); 0 or -1 with err set
    /// through cd_config_error. May be NULL.
    int (*validate)(const cd_config *c, char *err, size_t err_len);
    /// Optional: the key preload_section.preload_name is set before every other key and handed
    /// to preload when the config gives it (e.g. [method] plugin: the plugins it loads add the
    /// names that [method] method is then checked against). 0, or -1 with err set through
    /// cd_config_error.
    const char *preload_section, *preload_name;
    int (*preload)(const cd_config *c, const cd_config_key *k, char *err, size_t err_len);
    const cd_column *frame_columns;    ///< frames.csv columns after `point`
    size_t frame_column_count;
    const cd_column *summary_columns;  ///< summary.csv columns after `point`, before peak_rss
    size_t summary_column_count;
    /// Measure one point: emit frame rows and exactly one summary row. 0, or -1 after
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
    /// cube count), for balancing shards (cd_point_cost). NULL: 1.
    double (*cost)(const cd_point *p);
    /// Optional: when what point p measures depends on earlier points of the same run (notes of
    /// cd_run_note_series), the key of its chain in buf; points with the same key stay in one
    /// shard. buf[0] = '\0' (as given): no chain. NULL: no chains.
    void (*chain)(const cd_point *p, char *buf, size_t len);
} cd_kind;

// ---------------------------------------------------------------------------------------------
// Shards: a sweep split over N runs (shard.c), merged back into one run (merge.c).

/// Most shards of one sweep.
#define CD_SHARD_MAX 100000u

/// Which shard each point of a set of configs goes to.
typedef struct cd_shard_plan {
    uint32_t count;    ///< shards
    size_t configs;    ///< configs in the set
    uint32_t **owner;  ///< owner[k][i]: the shard of point i of config k
    double *cost;      ///< cost[s]: the estimated cost of shard s's points (cd_point_cost)
    double total;      ///< of every point
} cd_shard_plan;

/// The estimated cost of point p in seconds: cd_point_estimate's, from its method's model or the
/// kind's cost (1 without one) × (warmup + frames) × repeats at a nominal rate.
double cd_point_cost(const cd_point *p);
/// What a point is expected to take before it runs (estimate.c).
typedef struct cd_estimate {
    double seconds;     ///< wall time of the point's frames, warm-up and repeats included
    double peak_bytes;  ///< peak memory of the process running it (0: no model)
    double spread;      ///< the model's largest factor off a measured point
    int extrapolated;   ///< the point lies outside the measured range
} cd_estimate;

/// Estimate point p from the model of its method, fit to the committed reference runs
/// (scripts/estimate-model.sh): 0; or -1 when no model covers it, with e->seconds from the kind's
/// cost units at a nominal rate and no memory estimate.
int cd_point_estimate(const cd_point *p, cd_estimate *e);
/// The reference run the models come from ("<machine> broad_scaling").
const char *cd_estimate_source(void);
/// This machine's physical memory in bytes (0 when unknown).
double cd_physical_memory(void);
/// "12 s, 340 MiB" (no memory part when bytes is 0).
void cd_estimate_format(double seconds, double bytes, char *buf, size_t len);

/// Split the points of configs c[0..n) into `count` shards balanced by cd_point_cost: longest
/// first, each to the cheapest shard so far; a kind's chain goes whole to one shard. A pure
/// function of the configs' values and count. 0, or -1 when count is 0.
int cd_shard_plan_make(const cd_config *c, size_t n, uint32_t count, cd_shard_plan *p);
/// Free what cd_shard_plan_make allocated.
void cd_shard_plan_free(cd_shard_plan *p);
/// Parse "I/N" (0 <= I < N <= CD_SHARD_MAX, decimal). 0, or -1.
int cd_shard_parse(const char *text, uint32_t *index, uint32_t *count);

/// Merge the shard run directories dirs[0..n) (cdlab run --shard, every shard of one sweep of one
/// config) into the new run directory out: frames.csv, summary.csv (plus the columns shard and
/// host), config.ini and meta.ini as an unsharded run writes them, points in plan order, every
/// row as its shard wrote it. Checks first (each a complete shard run; one config, build, commit,
/// shard count and plan; every point in exactly one shard; equal headers) and writes nothing
/// when one fails; warns (stderr unless quiet, and meta.ini) when the shards' CPU models differ.
/// command goes to meta.ini. 0; 2 when the shards cannot be merged or out exists; 1 when out
/// cannot be written (nothing is left there); err says why.
int cd_run_merge(const char *const *dirs, size_t n, const char *out, const char *command, int quiet, char *err,
                 size_t err_len);

/// Options of one `cdlab run`.
typedef struct cd_run_options {
    const char *output;  ///< overrides [run] output when not NULL
    const char *run_id;  ///< run directory name; NULL: UTC timestamp
    int quiet;           ///< no progress on stderr
    const char *argv0;   ///< command line for meta.ini
    /// Optional: write more sections into meta.ini (after [config]), e.g. the plugins a config
    /// loaded; f is meta.ini's stream.
    void (*meta_extra)(FILE *f, const cd_config *c, void *ctx);
    void *meta_ctx;
    /// shard_count > 0: run only the points of shard shard_index (shard_owner[i] == shard_index,
    /// from cd_shard_plan), record the shard in meta.ini and leave `latest` alone.
    uint32_t shard_index, shard_count;
    const uint32_t *shard_owner;
    double shard_cost, shard_total;  ///< the shard's and the whole plan's estimated cost, for meta.ini
    /// cpu_set: pin to cpu instead of [run] cpu (cdlab run --cpu).
    int cpu_set, cpu;
    /// Continue the incomplete run in the run directory (run_id, or the newest incomplete run of
    /// this config and shard): keep the points it finished, run the rest.
    int resume;
} cd_run_options;

/// The marker file of a run directory that is not (yet) a complete run.
#define CD_RUN_INCOMPLETE "INCOMPLETE"

/// Run every point of c. Creates <output>/<name>/<run-id>/ only after every check passed, with
/// an INCOMPLETE marker in it at once; rows go to frames.csv.part and summary.csv.part. Only a
/// complete run (every point done, every write checked) gets the final names (meta.ini last),
/// loses the marker and becomes <output>/<name>/latest; any other run keeps its .part files, the
/// marker says why (first line) and latest is left alone. With [run] isolate = process the points
/// run in forked children: call it before this process starts OpenMP threads (libgomp's pool
/// does not survive a fork). Returns 0 when all points ran, 1 on a run failure or an output
/// error (err names the file and the cause), 130 when interrupted, 2 when the output directory
/// cannot be made. The run directory's path goes to dir (empty when none was left behind).
int cd_run_config(const cd_config *c, const cd_run_options *o, char *dir, size_t dir_len, char *err, size_t err_len);

/// Whether dir holds a complete run: no INCOMPLETE marker, meta.ini with [run] complete = true,
/// frames.csv, summary.csv and config.ini. 0, or -1 with the reason in err, e.g. "incomplete run
/// (interrupted (SIGINT) after 3 of 8 points)", "incomplete run (in progress: ...)", "incomplete
/// run (abandoned: ...)" (cd_run_marker_describe) or "no meta.ini: not a run directory". Every
/// reader of run directories asks this first.
int cd_run_dir_check(const char *dir, char *err, size_t len);

/// INCOMPLETE's first line as the runner writes it at the start (then "<date> by pid P on HOST").
#define CD_RUN_MARKER_START "run started "

/// What a run directory's INCOMPLETE marker says, told by its lock (cd_run_marker_state).
enum {
    CD_MARKER_NONE = 0,   ///< no marker
    CD_MARKER_LIVE,       ///< a process of the run holds the lock: in progress
    CD_MARKER_ABANDONED,  ///< no lock, and the runner never said why it stopped: killed or crashed
    CD_MARKER_STOPPED,    ///< no lock; the first line says why the run stopped
    CD_MARKER_UNKNOWN,    ///< the start line, on a file system without flock: cannot be told
};
/// The state of dir's INCOMPLETE marker (CD_MARKER_*), its first line in line; -1 with errno
/// when it cannot be read.
int cd_run_marker_state(const char *dir, char *line, size_t len);
/// The state and first line as a reader says them: "in progress: ...", "abandoned: ..." or the
/// reason as written.
void cd_run_marker_describe(int state, const char *line, char *out, size_t len);
/// Whether another open file holds a flock on fd's file: 1, 0, or -1 with errno.
int cd_run_lock_held(int fd);
/// Whether flock's errno e says the file system keeps no locks (ENOLCK, ENOSYS, EINVAL, EOPNOTSUPP):
/// the runner then runs without its lock and readers say they cannot tell.
int cd_run_lock_unsupported(int e);

/// Request a stop after the current point (the SIGINT handler calls this).
void cd_run_request_stop(void);

/// The CPU the run's thread is pinned to (verified), or -1 when it is not pinned.
int cd_run_pinned_cpu(const cd_run *r);
/// For kinds: start the hardware counters for one measured frame.
void cd_run_counters_begin(cd_run *r);
/// For kinds: stop them; their values go into the next frame row.
void cd_run_counters_end(cd_run *r);
/// For kinds: one frames.csv row (cells match frame_columns; counters appended by the runner).
void cd_run_frame_row(cd_run *r, const cd_cell *cells);
/// For kinds: the point's summary.csv row (peak RSS and counter means appended by the runner).
void cd_run_summary_row(cd_run *r, const cd_cell *cells);
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
/// For kinds: whether the run prints no progress on stderr.
int cd_run_quiet(const cd_run *r);
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
