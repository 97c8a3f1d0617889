// SPDX-License-Identifier: MIT
// The runner's state, shared by run.c and meta.c only (kinds see cd_run as opaque).
#ifndef RUN_PRIVATE_H
#define RUN_PRIVATE_H

#include "cd_harness.h"

#include <stdio.h>

enum { CD_RUN_MAX_WARNINGS = 64, CD_RUN_MAX_NOTES = 256 };

/// A kind's note on a sweep (cd_run_note_series).
typedef struct cd_series_note {
    char series[256];
    double at, value;
} cd_series_note;

struct cd_run {
    const cd_config *cfg;
    int quiet;
    const char *argv0;
    void (*meta_extra)(FILE *f, const cd_config *c, void *ctx);  // cd_run_options
    void *meta_ctx;
    char name[128];
    char run_id[96];
    char dir[4096 + 400];
    char date_start[32], date_end[32];
    char git_commit[128], git_dirty[16];  // the source tree when the run started
    FILE *frames, *summary;              // frames.csv.part, summary.csv.part
    int frames_errno, summary_errno;     // the first write error of each (0: none)
    int write_errno;                     // the run's first output error (0: none) ...
    const char *write_op, *write_file;   // ... "writing", "creating", ... and which file
    char host[256];
    long pid;                            // the runner's, for INCOMPLETE
    cd_pin_result pin;
    int keeps_freed;                     // cd_alloc_keep_freed succeeded
    cd_counters counters;
    int counters_fresh;                  // counters_end since the last frame row
    double counter_sum[CD_COUNTERS_MAX];  // per summary row
    size_t counter_n[CD_COUNTERS_MAX];
    size_t *pick;
    int64_t point_rss;  // > 0: the peak RSS the summary row reports (order = rounds), else getrusage
    size_t point_index, points_done, points_planned;
    size_t points_short;  // order = rounds, stopped: points with a summary row but fewer repeats
    int summary_written;
    uint64_t start_ns;
    double duration_s;
    int status;
    char failure[512];
    char reason[1024];      // why the run is incomplete: INCOMPLETE's first line, meta.ini failure
    int output_reported;    // reason is the output error (write_errno)
    char *warnings[CD_RUN_MAX_WARNINGS];
    size_t warning_count;
    cd_series_note *notes;  // cd_run_note_series
    size_t note_count;
    int isolate;            // points (rounds) in child processes
    const char *isolate_why;
    int64_t child_rss;      // the last child's peak RSS
};

/// Write meta.ini.part (fsynced; the runner renames it once the run is complete); 0 or the errno
/// of the failure.
int cd_meta_write(const cd_run *r);

#endif
