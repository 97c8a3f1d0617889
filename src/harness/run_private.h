// SPDX-License-Identifier: MIT
// The runner's state, shared by run.c, meta.c, resume.c and merge.c only (kinds see cd_run as
// opaque).
#ifndef RUN_PRIVATE_H
#define RUN_PRIVATE_H

#include "harness_private.h"

#include <stdio.h>

/// An open-addressed index of strings kept elsewhere (text_index.c): a used slot holds an item's
/// position + 1 (0: empty); a cd_text_key gives the string of the item at a position.
typedef struct cd_text_index {
    size_t *slot;  // mask + 1 slots (NULL: none yet), at most half of them used
    size_t mask, count;
} cd_text_index;
typedef const char *(*cd_text_key)(const void *ctx, size_t pos);
/// The position of the item whose string is s, or SIZE_MAX.
size_t cd_text_index_find(const cd_text_index *x, const char *s, cd_text_key key, const void *ctx);
/// Index the item at position pos, whose string is s (not in x yet).
void cd_text_index_add(cd_text_index *x, const char *s, size_t pos, cd_text_key key, const void *ctx);
void cd_text_index_free(cd_text_index *x);

/// A kind's note on a sweep (cd_run_note_series).
typedef struct cd_series_note {
    char series[256];
    double at, value;
} cd_series_note;

/// A file the config names (cd_config.inputs), as the run read it when it started, or one the run
/// derived from the config (cd_run_derived_input), as a point read it: its real path, SHA-256 and
/// size (meta.ini [inputs]; progress.part, which a resume checks the config's files against).
typedef struct cd_run_input {
    char path[4096];
    char sha256[65];
    uint64_t bytes;
    char derived[32];  // what derived it, one word ("simulate"); "" for a file the config names
} cd_run_input;

struct cd_run {
    const cd_config *cfg;
    int quiet;
    const char *argv0;
    void (*meta_extra)(FILE *f, const cd_config *c, void *ctx);  // cd_run_options
    void *meta_ctx;
    char name[128];
    char run_id[96];
    char dir[4096 + 400];  // <root>/<experiment>/<run-id>
    const char *root;      // the results root: --output or [run] output, as given
    char date_start[32], date_end[32];
    char git_commit[128], git_dirty[16];  // the source tree when the run started
    FILE *frames, *summary;               // frames.csv.part, summary.csv.part
    int frames_errno, summary_errno;      // the first write error of each (0: none)
    int write_errno;                      // the run's first output error (0: none) ...
    const char *write_op, *write_file;    // ... "writing", "creating", ... and which file
    char host[256];
    long pid;     // the runner's, for INCOMPLETE
    int lock_fd;  // INCOMPLETE, held with an exclusive flock (-1: none)
    cd_pin_result pin;
    int keeps_freed;  // cd_alloc_keep_freed succeeded
    cd_counters counters;
    int counters_fresh;                   // counters_end since the last frame row
    double counter_sum[CD_COUNTERS_MAX];  // per summary row
    size_t counter_n[CD_COUNTERS_MAX];
    size_t *pick;     // the current point's value of every key
    size_t *key_col;  // the key columns (cd_run_key_columns), on first use
    size_t key_col_count;
    int64_t point_rss;  // > 0: the peak RSS the summary row reports (order = rounds), else getrusage
    size_t point_index, points_done, points_planned;
    size_t points_short;  // order = rounds, stopped: points with a summary row but fewer repeats
    int summary_written;
    uint64_t point_frame_rows, point_summary_rows;  // the current point's rows so far (progress.part)
    uint64_t start_ns;
    double duration_s;
    int status;
    char failure[512];
    char reason[1024];    // why the run is incomplete: INCOMPLETE's first line, meta.ini failure
    int output_reported;  // reason is the output error (write_errno)
    char **warnings;      // cd_run_keep_warning: every one, each once (no cap: none is lost)
    size_t warning_count, warning_cap;
    cd_text_index warning_index;  // the warnings by text
    cd_series_note *notes;        // cd_run_note_series: every one (no cap: a skip is never lost)
    size_t note_count, note_cap;
    size_t *note_next;         // the next note of the same series (SIZE_MAX: none), note_cap of them
    cd_text_index note_index;  // each series' first note, by series
    int isolate;               // points (rounds) in child processes
    const char *isolate_why;
    int64_t child_rss;     // the last child's peak RSS
    double point_timeout;  // [run] point_timeout: seconds a point (a round) may run; 0: no limit
    int cut;               // the current point was cut short by a second SIGINT/SIGTERM
    size_t *todo;          // the points this run measures (global plan indices, in plan order)
    size_t todo_count;
    uint32_t shard_index, shard_count;  // shard_count > 0: a shard run (cd_run_options)
    double shard_cost, shard_total;
    size_t *shard_points;  // a shard's points in plan order (for meta.ini)
    size_t shard_point_count;
    FILE *progress;              // progress.part: the points done so far, for --resume
    size_t warnings_journaled;   // r->warnings[0, this) are in progress.part
    double eta_total, eta_done;  // the progress ETA: estimated seconds of this attempt's points, of those run
    int resumed;                 // this run continues an earlier attempt's directory (--resume)
    size_t points_resumed;       // done by an earlier attempt (--resume; 0 when it finished none)
    char resumed_from[600];      // the earlier attempt's INCOMPLETE, first line
    cd_run_input *inputs;        // the config's files, digested when the run started, then the derived ones
    size_t input_count, input_cap;
    size_t inputs_journaled;  // r->inputs[0, this) are in progress.part
};

/// The key columns of c: the index of every key that can vary (swept keys and method parameters)
/// whose name the kind does not use for a column of its own, in table order; *n of them
/// (cd_free the array).
size_t *cd_run_key_columns(const cd_config *c, size_t *n);
/// Write the key cells of r's current point (r->pick) after a row's `point` cell.
void cd_run_write_key_cells(cd_run *r, FILE *f);

/// The header of frames.csv (frames = 1) or summary.csv: *n names in a cd_alloc'ed array.
const char **cd_run_header_fields(const cd_run *r, int frames, size_t *n);
/// INCOMPLETE's line that names the run's shard: "shard: I/N\n" or "shard: none\n".
void cd_run_shard_line(const cd_run *r, char *buf, size_t len);
/// --resume: the directory to continue. 0: r->dir (and run_id) is an incomplete run of r's config
/// and shard; 1: none (run_id given: r->run_id and r->dir name it); 2: r->dir is already a
/// complete run; -1: run_id names a run that cannot be continued (err says why).
int cd_resume_find(cd_run *r, const char *root, const char *run_id, char *err, size_t len);
/// progress.part's first lines: "input SHA256 BYTES PATH" for each of the config's files in
/// r->inputs, "derived SHA256 BYTES WHAT PATH" for each derived one (cd_run_derived_input), then
/// "same NAME VALUE" for what a resume must find unchanged besides them (cd_run_same_lines).
void cd_run_journal_inputs(cd_run *r);
/// "derived SHA256 BYTES WHAT PATH" for r->inputs[i] into f.
void cd_run_journal_derived(const cd_run *r, size_t i, FILE *f);
/// "same NAME VALUE\n" lines into f: the build (its commit, source tree, flags, sanitizers) and the
/// SIMD paths this process takes (CDLAB_NO_AVX512 / CDLAB_NO_AVX2): a run's times come from one
/// build on one set of paths.
void cd_run_same_lines(FILE *f);
/// A "same NAME VALUE" line of progress.part against this process: "" in why when it holds, else
/// what changed.
void cd_run_same_check(const char *line, char *why, size_t len);
/// Keep warning msg (once: a message already kept is not kept again).
void cd_run_keep_warning(cd_run *r, const char *msg);
/// Hand over r's warnings (*w, *n of them: cd_free each and the array) and keep none.
void cd_run_take_warnings(cd_run *r, char ***w, size_t *n);
/// Free r's series notes (cd_run_note_series).
void cd_run_free_notes(cd_run *r);
/// --resume in r->dir: keep the rows of the points progress.part lists as done (of points[0..n),
/// the run's points), set r->todo to the rest, reload the series notes, reopen progress.part.
/// 0; -2 (err set) when an input file differs from the one the earlier attempt read
/// (progress.part's "input" lines); -1 with err set on another failure.
int cd_resume_prepare(cd_run *r, const size_t *points, size_t n, char *err, size_t len);

/// Whether line, INCOMPLETE's first, is the one a runner writes at the start (it never said why
/// it stopped): found unlocked, the run was abandoned.
int cd_run_marker_is_start(const char *line);

/// The line after meta.ini's [shard].
#define CD_META_SHARD_COMMENT "; this run is one shard of a sweep (cdlab run --shard); cdlab merge joins the shards"

/// Write "key = value" into an INI file (meta.ini): newlines become spaces, and a long value
/// continues on indented lines after a ", " so that inih reads every line.
void cd_meta_kv(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/// Write "key = a, b-c, ..." for the sorted indices v[0..n) (runs of consecutive indices as
/// ranges), continuing on indented lines so that inih reads every line.
void cd_meta_index_list(FILE *f, const char *key, const size_t *v, size_t n);

/// The comment under meta.ini's [inputs].
#define CD_META_INPUTS_COMMENT                                                                                  \
    "the files the config names, resolved against its directory ([config] dir), as read when the run started, " \
    "then the files the run derived from the config (ik_derived says what derived it: simulate, a simulated "   \
    "scene's trace in <output>/cache/), as its points read them: path, bytes, SHA-256 (cdlab snapshot RUN_DIR " \
    "checks the config's files)"
/// The comment under meta.ini's [files].
#define CD_META_FILES_COMMENT "the CSVs as written: bytes and SHA-256 (cdlab merge checks them)"

/// meta.ini's [files]: frames_bytes, frames_sha256, summary_bytes, summary_sha256 of
/// dir/frames.csv<suffix> and dir/summary.csv<suffix>. 0, or the errno of a failed read.
int cd_meta_files(FILE *f, const char *dir, const char *suffix);

/// Write meta.ini.part (fsynced; the runner renames it once the run is complete); 0 or the errno
/// of the failure.
int cd_meta_write(const cd_run *r);

#endif
