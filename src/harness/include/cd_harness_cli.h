// SPDX-License-Identifier: MIT
// cdlab harness, what a program (the cdlab CLI, a test, a benchmark) uses: loading a config and
// walking its plan, running it (cd_run_config), shards and merges, hardware counters and pinning,
// provenance and the bootstrap interval. A kind needs only cd_harness.h.
#ifndef CD_HARNESS_CLI_H
#define CD_HARNESS_CLI_H

#include "cd_harness.h"
#include "cd_sha256.h"  // cd_sha256_hex, cd_sha256_file: the digests of meta.ini

#include <stdio.h>

// ---------------------------------------------------------------------------------------------
// Configs and plans, as a program reads them.

/// Load and validate path: syntax, sections, keys, values, ranges, then the kind's cross-key
/// checks. Returns 0, or -1 with "path:line: what was expected" in err (c is then empty).
int cd_config_load(const cd_kind_set *kinds, const char *path, cd_config *c, char *err, size_t err_len);
/// Same from text in memory; path names the source in messages.
int cd_config_parse(const cd_kind_set *kinds, const char *path, const char *text, size_t len, cd_config *c, char *err,
                    size_t err_len);
/// Free everything c holds.
void cd_config_free(cd_config *c);
/// The keys every kind shares ([experiment] and [run]); *count receives their number.
const cd_key_spec *cd_common_keys(size_t *count);
/// 1 when name is taken by a key of any section of any kind of kinds (the common ones included) or
/// a column of their CSVs (the runner's point and peak_rss_bytes, a kind's frame and summary
/// columns), with what takes it in what; else 0. A method's parameter of such a name would be a
/// second key of that name in a config, or a second column of its CSVs (cd_plugins_load refuses
/// it in a plugin).
int cd_config_name_taken(const cd_kind_set *kinds, const char *name, char *what, size_t len);
/// Number of points of c (product of the value counts), saturating at SIZE_MAX.
size_t cd_plan_size(const cd_config *c);
/// Fill p for point index (p->pick must hold cfg->key_count entries).
void cd_point_at(const cd_config *c, size_t index, cd_point *p);
/// "key=value key=value" of the swept keys at this point (for progress lines).
void cd_point_label(const cd_point *p, char *buf, size_t len);

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
// Hardware counters (PAPI low-level API) and pinning (hwloc).

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
    size_t count;                       ///< requested events
    char names[CD_COUNTERS_MAX][64];    ///< as requested
    int live[CD_COUNTERS_MAX];          ///< 1 when counted (by either source)
    int source[CD_COUNTERS_MAX];        ///< cd_counter_source
    char reason[CD_COUNTERS_MAX][224];  ///< "ok", "ok (perf_event_open; PAPI: why not)", or why NA
    int slot[CD_COUNTERS_MAX];          ///< index in the PAPI event set or in the perf group
    int live_count;                     ///< live events of both sources
    int papi_count;                     ///< events in the PAPI event set
    int event_set;                      ///< PAPI event set (PAPI_NULL when none)
    int running;                        ///< the PAPI event set is started
    int perf_count;                     ///< events in the perf_event group
    int perf_fd[CD_COUNTERS_MAX];       ///< their descriptors; perf_fd[0] leads the group
    int perf_running;                   ///< the group is enabled
    char papi_version[32];              ///< "7.0.0.0", or "unavailable"
    char papi_status[200];              ///< library/component state in one line
    long long last[CD_COUNTERS_MAX];    ///< values of the last begin/end interval; -1 when NA
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
    int requested;     ///< OS index of the requested PU (-1: none)
    int actual;        ///< CPU the thread ran on after binding (-1: unknown)
    int ok;            ///< 1 when bound and verified
    char status[200];  ///< "bound and verified", or what failed
} cd_pin_result;

/// Bind the calling thread to PU cpu (OS index) and verify with the last CPU location.
/// Returns 0, or -1 when mode is REQUIRED and it failed (r->status says why).
int cd_pin_thread(cd_pin_mode mode, int cpu, cd_pin_result *r);
/// The first PU (OS index) of the calling process's CPU binding, i.e. of the allocation a batch
/// system gave it, or -1 when hwloc cannot tell.
int cd_pin_first_allowed(void);
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

/// Whether the file at path is the one its run wrote: want_bytes bytes with SHA-256 want_sha (the
/// run's meta.ini [files]). 0, or -1 with "path: N bytes, but its run wrote M (meta.ini [files]):
/// cut short or changed since", "path: SHA-256 X, but its run wrote Y (meta.ini [files]): changed
/// since" or "path: <why it cannot be read>" in err.
int cd_run_file_check(const char *path, const char *want_bytes, const char *want_sha, char *err, size_t len);
/// cd_run_file_check of a file read already: text[0..n) as read from path (named in err). The
/// bytes checked are then the bytes the caller parses, read once through the bounded reader.
int cd_run_text_check(const char *path, const char *text, size_t n, const char *want_bytes, const char *want_sha,
                      char *err, size_t len);
/// CPU model name from /proc/cpuinfo ("unknown" when absent).
void cd_cpu_model(char *buf, size_t len);
/// Git commit of the source tree and whether it is dirty ("unknown" when git or .git is absent).
void cd_git_describe(char *commit, size_t commit_len, char *dirty, size_t dirty_len);

// ---------------------------------------------------------------------------------------------
// Shards: a sweep split over N runs (shard.c), merged back into one run (merge.c).

/// Most shards of one sweep.
#define CD_SHARD_MAX 100000u
/// Most points of one config's plan: a config of more is refused (a sweep's per-point arrays stay
/// small), and so is a shard whose meta.ini says more (merge allocates per plan point).
#define CD_PLAN_MAX_POINTS ((size_t)1000000)

/// Which shard each point of a set of configs goes to.
typedef struct cd_shard_plan {
    uint32_t count;    ///< shards
    size_t configs;    ///< configs in the set
    uint32_t **owner;  ///< owner[k][i]: the shard of point i of config k
    double *cost;      ///< cost[s]: the estimated seconds of shard s's points (cd_plan_estimate)
    double total;      ///< of every point
} cd_shard_plan;

/// What a point is expected to take before it runs (estimate.c).
typedef struct cd_estimate {
    double seconds;     ///< wall time of the point's frames, warm-up and repeats included (0: skipped)
    double peak_bytes;  ///< peak memory of the process running it (0: no model, or skipped)
    double spread;      ///< the model's largest factor off a measured point
    double frame_ms;    ///< the model's milliseconds per frame (0: no model)
    int modelled;       ///< a model covers the point (else seconds is the kind's cost at a nominal rate)
    int extrapolated;   ///< the point lies outside the measured range
    /// cd_plan_estimate only: frame_ms is over [measure] budget_ms, so the point is the last its
    /// series measures; seconds counts what runs before the run sees that (order = rounds: one
    /// round of it, else all its repeats).
    int over_budget;
    /// cd_plan_estimate only: a smaller cube count of the point's series (over_at) is over
    /// budget_ms and runs before it, so the run will skip it: seconds and peak_bytes are 0.
    int skipped;
    double over_at;
} cd_estimate;

/// Seconds per unit of a kind's cost (cd_kind.cost × frames) where no model covers a point: about
/// what the reference run measured for the cubes kind's tree and grid methods per cube and frame
/// (grid 66 ns, lbvh 140 ns), so that shards of modelled and unmodelled points stay comparable.
#define CD_NOMINAL_SECONDS_PER_UNIT 1e-7

/// The model of cubes-kind broad phase method at n cubes of the seeded scene into e (frame_ms,
/// peak_bytes, spread, extrapolated; modelled = 1; seconds untouched): 1, or 0 when no model
/// covers the method. For kinds that run the cubes kind's frames (max_fps's probes).
int cd_model_cubes_frame(const char *method, double n, cd_estimate *e);

/// Estimate point p from the model of its method, fit to the committed reference runs
/// (scripts/estimate-model.sh): 0; or -1 when no model covers it, with e->seconds from the kind's
/// cost units at a nominal rate and no memory estimate. Alone, a point knows nothing of the
/// budget's skips: cd_plan_estimate does.
int cd_point_estimate(const cd_point *p, cd_estimate *e);
/// cd_point_estimate of every point of c, in plan order (cd_plan_size(c) entries; cd_free them),
/// with the skips of [measure] budget_ms foreseen: along each chain (cd_kind.chain: a series), in
/// plan order, a modelled point whose frame_ms is over the budget is marked over_budget and the
/// chain's later points at larger cube counts skipped, as the run decides on measured medians.
/// The cost of a point for --dry-run's total, the memory warning and the shard balance.
cd_estimate *cd_plan_estimate(const cd_config *c);
/// The reference run the models come from ("<machine> broad_scaling").
const char *cd_estimate_source(void);
/// This machine's physical memory in bytes (0 when unknown).
double cd_physical_memory(void);
/// "12 s, 340 MiB" (no memory part when bytes is 0).
void cd_estimate_format(double seconds, double bytes, char *buf, size_t len);
/// "340 MiB", "1.25 GiB".
void cd_bytes_format(double bytes, char *buf, size_t len);

/// Split the points of configs c[0..n) into `count` shards balanced by cd_plan_estimate: longest
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
/// row as its shard wrote it. Checks first (each a complete shard run with sane [shard] numbers;
/// one config, build, commit, SIMD paths, shard count and plan; the same input files and plugins;
/// every config.ini the config; every point in exactly one shard; equal headers) and writes
/// nothing when one fails; warns (stderr unless quiet, and meta.ini) when the shards' CPU models
/// differ. command goes to meta.ini. 0; 2 when the shards cannot be merged or out exists; 1 when
/// out cannot be written; 128 + the signal when SIGINT or SIGTERM stopped the writing (handled
/// while it writes); err says why. Nothing is left in out on a failure or a stop, nor the parent
/// directories made for it.
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
/// What follows "<date> by pid P on HOST" in the start line of cdlab merge's marker (then "N
/// shards"): a directory that a killed merge left is no run to resume, but one to merge again.
#define CD_MERGE_MARKER_TAG ": cdlab merge of "
/// The value a merged run's meta.ini gives a key whose value differs between its shards (each
/// shard's own is in [merge] or in the shards' meta.ini): readers say "several" where they show it.
#define CD_MERGE_DIFFERS "differs between shards (see [merge])"

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
/// The state and first line as a reader says them: "in progress: ...", "abandoned: ..." (with
/// "cdlab run --resume continues it", or for a merge's marker "remove it and merge again") or
/// the reason as written.
void cd_run_marker_describe(int state, const char *line, char *out, size_t len);
/// Whether another open file holds a flock on fd's file: 1, 0, or -1 with errno.
int cd_run_lock_held(int fd);
/// Whether flock's errno e says the file system keeps no locks (ENOLCK, ENOSYS, EINVAL, EOPNOTSUPP):
/// the runner then runs without its lock and readers say they cannot tell.
int cd_run_lock_unsupported(int e);

/// Request a stop after the current point (the SIGINT handler calls this).
void cd_run_request_stop(void);

#endif
