// SPDX-License-Identifier: MIT
// The runner: pin, open counters, make the run directory (only after every check passed) with an
// INCOMPLETE marker in it, measure each point through its kind into frames.csv.part and
// summary.csv.part, checking every write, and only when every point ran and every byte is written
// give the files their final names (meta.ini last), drop the marker and move `latest`. A run that
// stops short keeps its .part files as evidence and the marker says why, so a file that looks
// whole is whole, in a directory that looks complete only when it is. The runner (and a point's
// process, which dies with it) holds a lock on the marker for as long as it may write there, so
// readers tell a run in progress from an abandoned one (cd_run_marker_state). SIGINT stops after
// the current point; a second one, a crash or [run] point_timeout end it at once (see Signals).
#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "run_private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------
// Signals
//
// SIGINT (Ctrl-C) and SIGTERM (what a batch system sends before it preempts a job) stop the run
// after the current point. A second one ends the current point at once: its process is killed
// (isolate = process) and the run stops as interrupted; with isolate = none the point runs in the
// runner, which cannot be stopped where it is, so the handler writes INCOMPLETE and ends the
// runner. A third one gets the default action. A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT:
// an assertion or an allocation that failed) and, with isolate = none, [run] point_timeout write
// INCOMPLETE the same way. The handlers read only what run_signals_setup prepared and call only
// async-signal-safe functions (getpid, kill, lseek, write, ftruncate, signal, raise, _exit).

static volatile sig_atomic_t stop_requested, stop_count;

static struct {
    pid_t runner;   // in a point's process (a fork) the handlers pass
    int marker_fd;  // INCOMPLETE, locked by the runner; -1 outside a run
    int isolate;
    volatile sig_atomic_t in_point;  // a point (round) is running ...
    volatile pid_t child;            // ... in this process (isolate = process), else 0
    volatile size_t done;            // points done so far
    char where[64];                  // the point (round) running: "point 3", "point 3, round 2 of 3"
    size_t planned;
    char timeout[96];  // "it ran past [run] point_timeout = 5 s"
    char tail[1200];   // INCOMPLETE after its first line
    char dir[4600];    // for the message on stderr
} sig_run = {.marker_fd = -1};

void cd_run_request_stop(void) { stop_requested = SIGINT; }

// A string built with async-signal-safe code only.
typedef struct safe_text {
    char buf[2048];
    size_t n;
} safe_text;

static void safe_add(safe_text *t, const char *s)
{
    while (*s && t->n + 1 < sizeof t->buf) t->buf[t->n++] = *s++;
}

static void safe_num(safe_text *t, size_t v)
{
    char d[24];
    size_t k = 0;
    do d[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (k && t->n + 1 < sizeof t->buf) t->buf[t->n++] = d[--k];
}

// From a handler in the runner: INCOMPLETE says "<what> during point P<why>; D of N points done"
// ("point P<why>; ..." when what is ""), then the tail prepared at the start; the same first
// line goes to stderr.
static void marker_from_handler(const char *what, const char *why)
{
    if (sig_run.marker_fd < 0) return;
    safe_text t = {.n = 0};
    safe_add(&t, what);
    if (sig_run.in_point) {
        safe_add(&t, what[0] ? " during " : "");
        safe_add(&t, sig_run.where);
    } else {
        safe_add(&t, " between points");
    }
    safe_add(&t, why);
    safe_add(&t, "; ");
    safe_num(&t, sig_run.done);
    safe_add(&t, " of ");
    safe_num(&t, sig_run.planned);
    safe_add(&t, " points done\n");
    size_t first = t.n;
    safe_add(&t, sig_run.tail);
    if (lseek(sig_run.marker_fd, 0, SEEK_SET) == 0 && write(sig_run.marker_fd, t.buf, t.n) == (ssize_t)t.n)
        (void)!ftruncate(sig_run.marker_fd, (off_t)t.n);
    safe_text e = {.n = 0};
    safe_add(&e, "cdlab: ");
    t.buf[first - 1] = '\0';
    safe_add(&e, t.buf);
    safe_add(&e, "; incomplete run left in ");
    safe_add(&e, sig_run.dir);
    safe_add(&e, "\n");
    (void)!write(STDERR_FILENO, e.buf, e.n);
}

static void on_stop_signal(int s)
{
    if (getpid() != sig_run.runner) return;  // a point's process that has not yet ignored it
    stop_requested = s;
    if (++stop_count < 2) return;
    signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL);  // a third one ends the runner as it is
    if (sig_run.isolate) {
        pid_t c = sig_run.child;
        if (c > 0) kill(c, SIGKILL);
        return;
    }
    if (!sig_run.in_point) return;  // between points the run stops on its own
    marker_from_handler(s == SIGTERM ? "interrupted (SIGTERM, a second time)" : "interrupted (SIGINT, a second time)",
                        ": cut short (isolate = none: the runner ended at once)");
    _exit(128 + s);
}

static void on_crash(int s)
{
    if (getpid() == sig_run.runner) {
        const char *why = cd_fatal_message();
        safe_text w = {.n = 0};
        if (s == SIGABRT && why[0]) {
            safe_add(&w, ": ");
            safe_add(&w, why);
        }
        safe_text what = {.n = 0};
        safe_add(&what, "crashed (");
        safe_add(&what, cd_signal_name(s));
        safe_add(&what, ")");
        what.buf[what.n] = '\0', w.buf[w.n] = '\0';
        marker_from_handler(what.buf, w.buf);
    }
    signal(s, SIG_DFL);
    raise(s);  // delivered when the handler returns: the default action, a core dump where enabled
}

// [run] point_timeout with isolate = none: the point cannot be stopped where it is.
static void on_point_timeout(int s)
{
    (void)s;
    if (getpid() != sig_run.runner || !sig_run.in_point) return;
    marker_from_handler("", sig_run.timeout);
    _exit(1);
}

// An alternate stack, so that the crash handler runs even when the stack overflowed.
static char crash_stack[64 * 1024];
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
enum { CRASH_SIGNALS = sizeof crash_signals / sizeof crash_signals[0] };

typedef struct saved_signals {
    struct sigaction stop[2], crash[CRASH_SIGNALS], alarm;
    stack_t stack;
} saved_signals;

// Fill sig_run for r and install the handlers (the old ones into saved).
static void run_signals_setup(cd_run *r, saved_signals *saved)
{
    sig_run.runner = getpid();
    sig_run.marker_fd = r->lock_fd;
    sig_run.isolate = r->isolate;
    sig_run.in_point = 0, sig_run.child = 0;
    sig_run.done = r->points_done, sig_run.planned = r->points_planned;
    snprintf(sig_run.timeout, sizeof sig_run.timeout,
             ": it ran past [run] point_timeout = %g s (isolate = none: the runner ended at once)", r->point_timeout);
    snprintf(sig_run.dir, sizeof sig_run.dir, "%s", r->dir);
    char shard[64];
    cd_run_shard_line(r, shard, sizeof shard);
    snprintf(sig_run.tail, sizeof sig_run.tail,
             "run %s of %s: started %s by pid %ld on %s; ended by a signal (isolate = %s)\n%s"
             "kept as written: frames.csv.part summary.csv.part config.ini.part progress.part "
             "(no meta.ini.part: the runner ended at once)\n",
             r->run_id, r->cfg->path, r->date_start, r->pid, r->host, r->isolate ? "process" : "none", shard);
    stop_requested = 0, stop_count = 0;
    struct sigaction sa = {0};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, &saved->stop[0]);
    sigaction(SIGTERM, &sa, &saved->stop[1]);
    stack_t st = {.ss_sp = crash_stack, .ss_size = sizeof crash_stack};
    sigaltstack(&st, &saved->stack);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    for (size_t i = 0; i < CRASH_SIGNALS; ++i) sigaction(crash_signals[i], &sa, &saved->crash[i]);
    sa.sa_handler = on_point_timeout;
    sa.sa_flags = 0;
    sigaction(SIGALRM, &sa, &saved->alarm);
}

static void run_signals_restore(const saved_signals *saved)
{
    sigaction(SIGINT, &saved->stop[0], NULL);
    sigaction(SIGTERM, &saved->stop[1], NULL);
    for (size_t i = 0; i < CRASH_SIGNALS; ++i) sigaction(crash_signals[i], &saved->crash[i], NULL);
    sigaction(SIGALRM, &saved->alarm, NULL);
    sigaltstack(&saved->stack, NULL);
    sig_run.marker_fd = -1;
}

// Between run_point_begin and run_point_end a point (round) runs: a handler names it by where
// ("point 3", "point 3, round 2 of 3").
static void run_point_begin(const cd_run *r, const char *where)
{
    snprintf(sig_run.where, sizeof sig_run.where, "%s", where);
    sig_run.done = r->points_done;
    atomic_signal_fence(memory_order_seq_cst);  // where is whole before a handler can read it
    sig_run.in_point = 1;
}

static void run_point_end(void) { sig_run.in_point = 0; }

// The exit status of a run stopped by a signal: 128 + its number, as a shell reports it.
static int stop_status(void) { return 128 + (stop_requested ? (int)stop_requested : SIGINT); }

static int is_stop_status(int status) { return status == 128 + SIGINT || status == 128 + SIGTERM; }

// ---------------------------------------------------------------------------------------------
// Kind-facing API

void cd_run_counters_begin(cd_run *r) { cd_counters_begin(&r->counters); }

void cd_run_counters_end(cd_run *r)
{
    cd_counters_end(&r->counters);
    r->counters_fresh = 1;
}

static void write_cells(FILE *f, const cd_cell *cells, size_t n, int first)
{
    char buf[128];
    for (size_t i = 0; i < n; ++i) {
        cd_cell_format(&cells[i], buf, sizeof buf);
        cd_csv_write_field(f, buf, first && i == 0);
    }
}

// A stream's first write error, seen right after the row that hit it (errno is then that write's).
static void note_write_error(FILE *f, int *err)
{
    if (!*err && ferror(f)) *err = errno ? errno : EIO;
}

void cd_run_frame_row(cd_run *r, const cd_cell *cells)
{
    cd_cell point = cd_cell_int((int64_t)r->point_index);
    write_cells(r->frames, &point, 1, 1);
    cd_run_write_key_cells(r, r->frames);
    write_cells(r->frames, cells, r->cfg->kind->frame_column_count, 0);
    cd_counters *k = &r->counters;
    for (size_t i = 0; i < k->count; ++i) {
        cd_cell c = cd_cell_na();
        if (r->counters_fresh && k->live[i] && k->last[i] >= 0) {
            c = cd_cell_int(k->last[i]);
            r->counter_sum[i] += (double)k->last[i];
            r->counter_n[i]++;
        }
        write_cells(r->frames, &c, 1, 0);
    }
    fputc('\n', r->frames);
    note_write_error(r->frames, &r->frames_errno);
    r->counters_fresh = 0;
    r->point_frame_rows++;
}

static int64_t peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (int64_t)ru.ru_maxrss * 1024;  // Linux reports KiB
}

void cd_run_summary_row(cd_run *r, const cd_cell *cells)
{
    cd_cell point = cd_cell_int((int64_t)r->point_index);
    write_cells(r->summary, &point, 1, 1);
    cd_run_write_key_cells(r, r->summary);
    write_cells(r->summary, cells, r->cfg->kind->summary_column_count, 0);
    cd_cell rss = cd_cell_int(r->point_rss > 0 ? r->point_rss : peak_rss_bytes());
    write_cells(r->summary, &rss, 1, 0);
    for (size_t i = 0; i < r->counters.count; ++i) {
        cd_cell c = r->counter_n[i] ? cd_cell_real(r->counter_sum[i] / (double)r->counter_n[i]) : cd_cell_na();
        write_cells(r->summary, &c, 1, 0);
    }
    fputc('\n', r->summary);
    note_write_error(r->summary, &r->summary_errno);
    // A kind that writes several summary rows per point (a search) gets per-row counter means.
    memset(r->counter_sum, 0, sizeof r->counter_sum);
    memset(r->counter_n, 0, sizeof r->counter_n);
    r->summary_written = 1;
    r->point_summary_rows++;
}

// Keep a warning for meta.ini.

static void add_note(cd_run *r, const char *prefix, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!r->quiet) fprintf(stderr, "cdlab: %s: %s\n", prefix, msg);
    cd_run_keep_warning(r, msg);
}

void cd_run_warn(cd_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_note(r, "warning", fmt, ap);
    va_end(ap);
}

void cd_run_fail(cd_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->failure, sizeof r->failure, fmt, ap);
    va_end(ap);
}

double cd_run_cv_warn(const cd_run *r) { return cd_config_num(r->cfg, "run", "cv_warn"); }

const char *cd_run_directory(const cd_run *r) { return r->dir; }

const char *cd_run_output_root(const cd_run *r) { return r->root; }

int cd_run_quiet(const cd_run *r) { return r->quiet; }

// ---------------------------------------------------------------------------------------------
// Output errors: the first one stops the run and names what was done to which file, and why.

static const char FRAMES_PART[] = "frames.csv.part", SUMMARY_PART[] = "summary.csv.part";

// Keep the run's first output error (op: "writing", "creating", ...; file: in the run directory,
// a string that outlives the run). Returns -1.
static int output_error(cd_run *r, const char *op, const char *file, int e)
{
    if (!r->write_errno) r->write_errno = e ? e : EIO, r->write_op = op, r->write_file = file;
    return -1;
}

// Flush a row stream; its first write error becomes the run's. 0 or -1.
static int flush_stream(cd_run *r, FILE *f, int *err, const char *file)
{
    if (!*err && fflush(f) != 0) *err = errno ? errno : EIO;
    if (!*err && ferror(f)) *err = EIO;
    return *err ? output_error(r, "writing", file, *err) : 0;
}

static int flush_rows(cd_run *r)
{
    int a = flush_stream(r, r->frames, &r->frames_errno, FRAMES_PART);
    int b = flush_stream(r, r->summary, &r->summary_errno, SUMMARY_PART);
    return a | b;
}

// fsync errors that only say the file system has nothing to sync.
static int sync_unsupported(int e) { return e == EINVAL || e == EROFS || e == ENOTSUP; }

// The output error as the run's reason (INCOMPLETE's first line) and as err, which gives the
// file's path. where: "point 2", "point 2, round 3", or NULL at the end of the run.
static void output_reason(cd_run *r, const char *where, char *err, size_t err_len)
{
    const char *w = where ? where : "", *sep = where ? ": " : "", *why = strerror(r->write_errno);
    snprintf(r->reason, sizeof r->reason, "%s%s%s %s: %s", w, sep, r->write_op, r->write_file, why);
    snprintf(err, err_len, "%s: %s%s%s %s/%s: %s", r->cfg->path, w, sep, r->write_op, r->dir, r->write_file, why);
    r->output_reported = 1;
}

// A point (or round) that failed: its failure, or the output error that stopped it. Returns 1.
static int point_failed(cd_run *r, const char *where, char *err, size_t err_len)
{
    if (!r->failure[0] && r->write_errno) {
        output_reason(r, where, err, err_len);
        return 1;
    }
    snprintf(r->reason, sizeof r->reason, "%s: %s", where, r->failure[0] ? r->failure : "failed");
    snprintf(err, err_len, "%s: %s", r->cfg->path, r->reason);
    return 1;
}

// ---------------------------------------------------------------------------------------------
// Points in child processes ([run] isolate = process)
//
// A point's child starts from the runner's memory as it was before any measurement (the runner
// itself measures nothing), so every point gets a fresh heap and its own peak RSS: in one process,
// FCL's managers ran up to 1.6× slower after the 10⁶-cube points of other methods had been through
// the heap, and ru_maxrss only ever grows. The child writes its frame and summary rows to the
// runner's files (flushed before the fork, so the shared file offset is where it continues),
// flushes and checks them, and sends back over a pipe what the runner keeps: status, failure, the
// cause of a write error, its new warnings, series notes and derived input files
// (cd_run_derived_input), its peak RSS and, for rounds, the kind's packed state. The runner itself
// starts no OpenMP threads (libgomp's pool does not survive a fork): every frame runs in a child.

typedef struct child_report {
    int32_t status, summary_written;
    int32_t write_errno, write_file;  // the first write error (errno) of frames (1) or summary (2)
    int64_t rss;
    uint64_t frame_rows, summary_rows;  // the point's rows so far (cd_run point_frame_rows, ...)
    uint32_t warnings, notes, inputs;
    uint64_t state_bytes;
    char failure[512];
} child_report;

// The kind's work for point p: run_point, or round `round` of run_round when state is not NULL.
static int point_work(cd_run *r, const cd_point *p, uint32_t round, void **state)
{
    const cd_kind *kind = r->cfg->kind;
    return state ? kind->run_round(r, p, round, state) : kind->run_point(r, p);
}

static _Noreturn void child_side(cd_run *r, const cd_point *p, uint32_t round, void **state, int fd)
{
    size_t w0 = r->warning_count, n0 = r->note_count, i0 = r->input_count;
    child_report h = {.status = point_work(r, p, round, state)};
    flush_rows(r);
    h.write_errno = r->write_errno;
    h.write_file = r->write_file == FRAMES_PART ? 1 : 2;
    int ok = 1;
    h.summary_written = r->summary_written;
    h.frame_rows = r->point_frame_rows;
    h.summary_rows = r->point_summary_rows;
    h.rss = peak_rss_bytes();
    h.warnings = (uint32_t)(r->warning_count - w0);
    h.notes = (uint32_t)(r->note_count - n0);
    h.inputs = (uint32_t)(r->input_count - i0);
    snprintf(h.failure, sizeof h.failure, "%s", r->failure);
    size_t bytes = 0;
    void *block = state && *state ? r->cfg->kind->pack_state(*state, &bytes) : NULL;
    h.state_bytes = bytes;
    ok &= cd_write_all(fd, &h, sizeof h) == 0;
    for (size_t i = w0; ok && i < r->warning_count; ++i) {
        uint32_t len = (uint32_t)strlen(r->warnings[i]);
        ok = cd_write_all(fd, &len, sizeof len) == 0 && cd_write_all(fd, r->warnings[i], len) == 0;
    }
    if (ok && h.notes) ok = cd_write_all(fd, r->notes + n0, h.notes * sizeof *r->notes) == 0;
    if (ok && h.inputs) ok = cd_write_all(fd, r->inputs + i0, h.inputs * sizeof *r->inputs) == 0;
    if (ok && bytes) ok = cd_write_all(fd, block, bytes) == 0;
    _exit(ok ? 0 : 1);
}

// What the child sent; -1 with r->failure set when the report is cut short.
static int runner_side(cd_run *r, void **state, int fd)
{
    child_report h;
    if (cd_read_all(fd, &h, sizeof h)) return -1;
    if (h.write_errno) output_error(r, "writing", h.write_file == 1 ? FRAMES_PART : SUMMARY_PART, h.write_errno);
    for (uint32_t i = 0; i < h.warnings; ++i) {
        uint32_t len;
        char msg[512];
        if (cd_read_all(fd, &len, sizeof len) || len >= sizeof msg || cd_read_all(fd, msg, len)) return -1;
        msg[len] = '\0';
        cd_run_keep_warning(r, msg);  // the child printed it
    }
    for (uint32_t i = 0; i < h.notes; ++i) {
        cd_series_note n;
        if (cd_read_all(fd, &n, sizeof n)) return -1;
        n.series[sizeof n.series - 1] = '\0';
        cd_run_note_series(r, n.series, n.at, n.value);
    }
    for (uint32_t i = 0; i < h.inputs; ++i) {
        cd_run_input in;
        char why[sizeof h.failure];
        if (cd_read_all(fd, &in, sizeof in)) return -1;
        in.path[sizeof in.path - 1] = in.sha256[sizeof in.sha256 - 1] = in.derived[sizeof in.derived - 1] = '\0';
        // The child checked it against the runner's record as the fork left it, which is this one.
        if (cd_run_derived_input(r, in.path, in.sha256, in.bytes, in.derived, why, sizeof why) && !h.failure[0])
            memcpy(h.failure, why, sizeof why), h.status = -1;
    }
    if (h.state_bytes) {
        void *block = cd_alloc(h.state_bytes);
        int bad = cd_read_all(fd, block, h.state_bytes);
        if (!bad) *state = r->cfg->kind->unpack_state(*state, block, h.state_bytes);
        cd_free(block);
        if (bad) return -1;
    }
    r->summary_written = h.summary_written;
    r->point_frame_rows = h.frame_rows;
    r->point_summary_rows = h.summary_rows;
    r->child_rss = h.rss;
    h.failure[sizeof h.failure - 1] = '\0';
    if (h.failure[0]) snprintf(r->failure, sizeof r->failure, "%s", h.failure);
    return h.status;
}

// Arm (seconds > 0) or disarm (0) SIGALRM for point_timeout with isolate = none.
static void alarm_in(double seconds)
{
    struct itimerval t = {{0, 0}, {0, 0}};
    if (seconds > 0) {
        t.it_value.tv_sec = (time_t)seconds;
        t.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
        if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
    }
    setitimer(ITIMER_REAL, &t, NULL);
}

// Wait until the child's report can be read (or the child is gone), at most r->point_timeout
// seconds (0: no limit). 0, or 1 when the time ran out.
static int wait_report(const cd_run *r, int fd)
{
    uint64_t end = cd_now_ns() + (uint64_t)(r->point_timeout * 1e9);
    for (;;) {
        int ms = -1;
        if (r->point_timeout > 0) {
            uint64_t now = cd_now_ns();
            if (now >= end) return 1;
            uint64_t left = (end - now) / 1000000 + 1;            // up to 10^12 ms: point_timeout goes to 10^9 s
            ms = left < (uint64_t)INT_MAX ? (int)left : INT_MAX;  // the loop waits again after INT_MAX ms
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int k = poll(&p, 1, ms);
        if (k > 0 || (k < 0 && errno != EINTR)) return 0;  // a poll that fails: the read says why
    }
}

// The child of run_work: dies with the runner (PR_SET_PDEATHSIG; a runner that died before that
// call is seen as a new parent), and leaves SIGINT and SIGTERM to the runner, which stops the run
// after this point or kills this process.
static void child_start(void)
{
    signal(SIGINT, SIG_IGN), signal(SIGTERM, SIG_IGN);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != sig_run.runner) _exit(1);
}

// How the point's process ended, as the point's failure; -1.
static int child_failed(cd_run *r, int status, int timed_out)
{
    if (timed_out)
        cd_run_fail(r, "it ran past [run] point_timeout = %g s; its process was killed", r->point_timeout);
    else if (stop_count >= 2) {
        r->cut = 1;
        cd_run_fail(r, "cut short by a second %s", stop_requested == SIGTERM ? "SIGTERM" : "SIGINT");
    } else if (WIFSIGNALED(status))
        cd_run_fail(r, "the point's process ended by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (!r->failure[0])
        cd_run_fail(r, "the point's process could not report (exit status %d)", WEXITSTATUS(status));
    return -1;
}

// point_work, in the runner (isolate = none: point_timeout through SIGALRM); where names it.
static int run_here(cd_run *r, const cd_point *p, uint32_t round, void **state, const char *where)
{
    run_point_begin(r, where);
    alarm_in(r->point_timeout);
    int rc = point_work(r, p, round, state);
    alarm_in(0);
    run_point_end();
    r->child_rss = peak_rss_bytes();
    return rc;
}

// point_work, in a child process when the run isolates points; where names it ("point 3, round 2
// of 3") for the signal handlers.
static int run_work(cd_run *r, const cd_point *p, uint32_t round, void **state, const char *where)
{
    if (!r->isolate) return run_here(r, p, round, state, where);
    if (r->cfg->kind->before_fork) r->cfg->kind->before_fork(r, p);
    fflush(NULL);  // nothing buffered is written twice
    int fds[2];
    if (pipe(fds)) {
        cd_run_fail(r, "cannot isolate the point: pipe: %s", strerror(errno));
        return -1;
    }
    run_point_begin(r, where);
    pid_t pid = fork();
    if (pid < 0) {
        run_point_end();
        close(fds[0]), close(fds[1]);
        cd_run_fail(r, "cannot isolate the point: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        child_start();
        close(fds[0]);
        child_side(r, p, round, state, fds[1]);
    }
    sig_run.child = pid;
    if (stop_count >= 2) kill(pid, SIGKILL);  // the second signal came before the line above
    close(fds[1]);
    int timed_out = wait_report(r, fds[0]);
    if (timed_out) kill(pid, SIGKILL);
    int rc = timed_out ? -1 : runner_side(r, state, fds[0]), status = 0;
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    sig_run.child = 0;
    run_point_end();
    // The child wrote through the shared file offsets; put the runner's streams at the ends.
    fseek(r->frames, 0, SEEK_END);
    fseek(r->summary, 0, SEEK_END);
    if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return child_failed(r, status, timed_out);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// Output files

static int mkdir_p(const char *path, char *err, size_t err_len)
{
    char buf[4600];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, err_len, "%s: cannot create directory: %s", buf, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create directory: %s", buf, strerror(errno));
        return -1;
    }
    return 0;
}

// The files of a complete run, each written as <name>.part first; meta.ini is renamed last.
static const char *const final_names[] = {"frames.csv", "summary.csv", "config.ini", "meta.ini"};
static const char *const part_names[] = {FRAMES_PART, SUMMARY_PART, "config.ini.part", "meta.ini.part"};
enum { PART_COUNT = sizeof final_names / sizeof final_names[0] };

// Open part file name (one of part_names) for writing; NULL after output_error.
static FILE *open_part(cd_run *r, const char *name, const char *mode)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    FILE *f = fopen(path, mode);
    if (!f) output_error(r, "creating", name, errno);
    return f;
}

// Write INCOMPLETE in place, through the locked descriptor: its first write took a block, so a
// rewrite that is no longer needs no new space and the reason still lands on a full disk. Not
// synced: after a crash a run directory without it still has no meta.ini. 0 or the errno of the
// failure.
static int write_marker(const cd_run *r, const char *text)
{
    size_t n = strlen(text);
    errno = 0;
    if (lseek(r->lock_fd, 0, SEEK_SET) != 0) return errno;
    int e = cd_write_all(r->lock_fd, text, n) ? (errno ? errno : EIO) : 0;
    if (!e && ftruncate(r->lock_fd, (off_t)n) != 0) e = errno;
    return e;
}

// Open INCOMPLETE and lock it exclusively for the life of the run (cd_run_lock_held): a new run
// directory's is created empty (create = 1); a resumed run's is taken over only when no process
// holds it, and only while the directory is still incomplete. 0 (r->lock_fd set); 1 when the
// marker cannot be made, 2 when the run is in progress or complete (err set either way).
static int lock_marker(cd_run *r, int create, char *err, size_t err_len)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, r->dir);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_EXCL : 0), 0666);
    if (fd < 0 && !create && errno == ENOENT)  // a run killed before it made one, or complete now
        fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_CREAT | O_EXCL, 0666), create = 1;
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot write: %s; nothing was run", path, strerror(errno));
        return 1;
    }
    int locked = 0;
    for (int k = 0; k < 50 && !locked; ++k) {  // a reader's shared lock lasts microseconds
        locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
        if (!locked && cd_run_lock_unsupported(errno)) {  // the run goes on; readers cannot tell
            cd_run_warn(r,
                        "%s: the file system keeps no locks (%s): readers cannot tell this run in progress "
                        "from an abandoned one",
                        path, strerror(errno));
            locked = 1;
        }
        if (!locked && errno != EWOULDBLOCK) break;
        if (!locked) nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    char meta[4600];
    snprintf(meta, sizeof meta, "%s/meta.ini", r->dir);
    if (locked && !create && access(meta, F_OK) == 0) {  // its runner completed it meanwhile
        snprintf(err, err_len, "--resume: %s: complete now; nothing to resume", r->dir);
        locked = 0;
    } else if (!locked) {
        snprintf(err, err_len, "--resume: %s: cannot continue this run: in progress: another process holds its lock",
                 r->dir);
    }
    if (!locked) {
        if (create) unlink(path);
        close(fd);
        return 2;
    }
    r->lock_fd = fd;
    return 0;
}

// Flush and close the row files (sync: and fsync them first, for a run about to be renamed
// complete). 0, or -1 with the first error kept.
static int close_rows(cd_run *r, int sync)
{
    FILE **files[] = {&r->frames, &r->summary};
    int *errs[] = {&r->frames_errno, &r->summary_errno};
    int bad = 0;
    for (size_t k = 0; k < 2; ++k) {
        FILE *f = *files[k];
        if (!f) continue;
        if (flush_stream(r, f, errs[k], part_names[k]))
            bad = 1;
        else if (sync && fsync(fileno(f)) != 0 && !sync_unsupported(errno))
            bad = output_error(r, "syncing", part_names[k], errno);
        if (fclose(f) != 0 && !bad) bad = output_error(r, "closing", part_names[k], errno);
        *files[k] = NULL;
    }
    return bad ? -1 : 0;
}

// config.ini.part, a byte copy of the config, written before the first point so that even a run
// killed at once says what it was running. 0 or -1 after output_error.
static int copy_config(cd_run *r)
{
    FILE *f = open_part(r, part_names[2], "w");
    if (!f) return -1;
    errno = 0;
    int e = 0;
    if (fwrite(r->cfg->text, 1, r->cfg->text_len, f) != r->cfg->text_len || fflush(f) != 0) e = errno ? errno : EIO;
    if (!e && fsync(fileno(f)) != 0 && !sync_unsupported(errno)) e = errno;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e ? output_error(r, "writing", part_names[2], e) : 0;
}

// Every part file to its final name, meta.ini last, then the marker goes. On a failure the renamed
// files go back to their .part names: final names only ever stand for a complete run. 0 or -1.
static int rename_parts(cd_run *r)
{
    char from[4600], to[4600];
    size_t done = 0;
    int bad = 0;
    for (; done < PART_COUNT; ++done) {
        snprintf(from, sizeof from, "%s/%s", r->dir, part_names[done]);
        snprintf(to, sizeof to, "%s/%s", r->dir, final_names[done]);
        if (rename(from, to) != 0) {
            bad = output_error(r, "renaming", part_names[done], errno);
            break;
        }
    }
    if (!bad) {
        snprintf(from, sizeof from, "%s/" CD_RUN_INCOMPLETE, r->dir);
        if (unlink(from) != 0) bad = output_error(r, "removing", CD_RUN_INCOMPLETE, errno);
    }
    if (!bad) return 0;
    while (done-- > 0) {
        snprintf(from, sizeof from, "%s/%s", r->dir, final_names[done]);
        snprintf(to, sizeof to, "%s/%s", r->dir, part_names[done]);
        rename(from, to);
    }
    return -1;
}

// The renames and the marker's removal, on disk before `latest` points at the run.
static void sync_dir(const cd_run *r)
{
    int fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

static int write_headers(cd_run *r)
{
    for (int frames = 1; frames >= 0; --frames) {
        size_t n;
        const char **f = cd_run_header_fields(r, frames, &n);
        cd_csv_write_row(frames ? r->frames : r->summary, f, n);
        cd_free(f);
    }
    return flush_rows(r);
}

static void utc_stamp(char *buf, size_t len, const char *fmt)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, fmt, &tm);
}

// Make <root>/<name>/<id>; a generated id gets -2, -3, ... when two runs start in one second.
static int make_run_dir(cd_run *r, const char *root, const char *name, const char *id, char *err, size_t err_len)
{
    char parent[4096 + 200];
    snprintf(parent, sizeof parent, "%s/%s", root, name);
    if (mkdir_p(parent, err, err_len)) return -1;
    char stamp[64];
    if (id)
        snprintf(stamp, sizeof stamp, "%s", id);
    else
        utc_stamp(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ");
    for (int k = 1; k < 1000; ++k) {
        if (k == 1)
            snprintf(r->run_id, sizeof r->run_id, "%s", stamp);
        else
            snprintf(r->run_id, sizeof r->run_id, "%s-%d", stamp, k);
        snprintf(r->dir, sizeof r->dir, "%s/%s", parent, r->run_id);
        if (mkdir(r->dir, 0777) == 0) return 0;
        if (errno != EEXIST || id) break;
    }
    snprintf(err, err_len, "%s: cannot create run directory: %s", r->dir, strerror(errno));
    return -1;
}

// results/<name>/latest -> <run-id>, replaced atomically so scripts can follow the newest run;
// for complete runs only. 0 or the errno of the failure.
static int link_latest(const cd_run *r, const char *root, const char *name)
{
    char tmp[4600], dst[4600];
    snprintf(tmp, sizeof tmp, "%s/%s/.latest.%ld", root, name, (long)getpid());
    snprintf(dst, sizeof dst, "%s/%s/latest", root, name);
    unlink(tmp);
    if (symlink(r->run_id, tmp) != 0) return errno;
    if (rename(tmp, dst) == 0) return 0;
    int e = errno;
    unlink(tmp);
    return e;
}

// "point i/n" (what: "" or "round k/R, ") with the elapsed time and an ETA: the elapsed time scaled
// by the estimated seconds left over those run (cd_plan_estimate: a point of 10^6 cubes weighs
// what its model says, not what a point of 10^3 took), else by the steps left over those run.
static void progress_line(cd_run *r, const char *what, size_t step, size_t steps, size_t i, size_t n, const cd_point *p)
{
    double elapsed = (double)(cd_now_ns() - r->start_ns) * 1e-9;
    if (r->quiet || elapsed < 1.0) return;
    char label[300];
    cd_point_label(p, label, sizeof label);
    double eta = r->eta_done > 0.0 ? elapsed * fmax(r->eta_total - r->eta_done, 0.0) / r->eta_done
                 : step            ? elapsed / (double)step * (double)(steps - step)
                                   : 0.0;
    if (step)
        fprintf(stderr, "cdlab: %s: %spoint %zu/%zu %s  (%.1f s elapsed, ETA %.0f s)\n", r->name, what, i + 1, n, label,
                elapsed, eta);
    else
        fprintf(stderr, "cdlab: %s: %spoint %zu/%zu %s\n", r->name, what, i + 1, n, label);
}

static void progress(cd_run *r, size_t i, size_t n, const cd_point *p) { progress_line(r, "", i, n, i, n, p); }

// The estimated cost of each of this attempt's points (todo order: cd_plan_estimate's seconds,
// 0 for a point the budget will skip) into cost[] and their sum into r->eta_total.
static void eta_costs(cd_run *r, double *cost)
{
    cd_estimate *e = cd_plan_estimate(r->cfg);
    r->eta_total = r->eta_done = 0.0;
    for (size_t j = 0; j < r->todo_count; ++j) r->eta_total += cost[j] = e[r->todo[j]].seconds;
    cd_free(e);
}

static void progress_round(cd_run *r, size_t step, size_t steps, uint32_t round, uint32_t rounds, size_t i, size_t n,
                           const cd_point *p)
{
    char what[64];
    snprintf(what, sizeof what, "round %u/%u, ", round + 1, rounds);
    progress_line(r, what, step, steps, i, n, p);
}

static const char *const *counter_names(const cd_config *c, const char **buf)
{
    const cd_config_key *k = cd_config_key_get(c, "run", "counters");
    for (size_t i = 0; i < k->count && i < CD_COUNTERS_MAX; ++i) buf[i] = k->values[i].text;
    return buf;
}

static void free_run(cd_run *r)
{
    char **warnings;
    size_t nw;
    cd_run_take_warnings(r, &warnings, &nw);
    for (size_t i = 0; i < nw; ++i) cd_free(warnings[i]);
    cd_free(warnings);
    cd_free(r->pick);
    cd_free(r->key_col);
    cd_run_free_notes(r);
    if (r->todo != r->shard_points) cd_free(r->todo);
    cd_free(r->shard_points);
    if (r->progress) fclose(r->progress);
    if (r->lock_fd >= 0) close(r->lock_fd);  // the run's lock goes with it
    cd_free(r->inputs);
}

// The config's files (c->inputs) as this run reads them: real path, SHA-256, size. 0, or -1 with
// err set when one cannot be read.
static int digest_inputs(cd_run *r, char *err, size_t err_len)
{
    const cd_config *c = r->cfg;
    r->input_cap = c->input_count ? c->input_count : 1;
    r->inputs = cd_alloc_zero(r->input_cap, sizeof *r->inputs);
    for (size_t i = 0; i < c->input_count; ++i) {
        cd_run_input *in = &r->inputs[i];
        char real[PATH_MAX];
        snprintf(in->path, sizeof in->path, "%s", realpath(c->inputs[i], real) ? real : c->inputs[i]);
        int e = cd_sha256_file(in->path, in->sha256, &in->bytes);
        if (e) {
            snprintf(err, err_len, "%s: %s: cannot read: %s", c->path, c->inputs[i], strerror(e));
            return -1;
        }
        r->input_count++;
    }
    return 0;
}

// The points this run measures, in plan order: the shard's (o->shard_count > 0) or all; *n of them.
static size_t *run_points_of(const cd_config *c, const cd_run_options *o, size_t *n)
{
    size_t plan = cd_plan_size(c), k = 0;
    size_t *v = cd_alloc((plan ? plan : 1) * sizeof *v);
    for (size_t i = 0; i < plan; ++i)
        if (!o->shard_count || o->shard_owner[i] == o->shard_index) v[k++] = i;
    *n = k;
    return v;
}

// progress.part, the points done so far (for --resume): "warn TEXT" for the warnings since the
// last point journaled, "derived SHA256 BYTES WHAT PATH" for the derived input files recorded
// since, "note AT VALUE SERIES" for the series notes the point made (from note `notes_from` on),
// then "done POINT FRAME_ROWS SUMMARY_ROWS" (the rows the point wrote to frames.csv.part and
// summary.csv.part, which a resume finds there or runs the point again), flushed. A line that
// cannot be written costs a resume only that point: no error.
static void journal_point(cd_run *r, size_t point, uint64_t frame_rows, uint64_t summary_rows, size_t notes_from)
{
    if (!r->progress) return;
    for (; r->warnings_journaled < r->warning_count; ++r->warnings_journaled)
        fprintf(r->progress, "warn %s\n", r->warnings[r->warnings_journaled]);
    for (; r->inputs_journaled < r->input_count; ++r->inputs_journaled)
        cd_run_journal_derived(r, r->inputs_journaled, r->progress);
    for (size_t k = notes_from; k < r->note_count; ++k)
        fprintf(r->progress, "note %.17g %.17g %s\n", r->notes[k].at, r->notes[k].value, r->notes[k].series);
    fprintf(r->progress, "done %zu %llu %llu\n", point, (unsigned long long)frame_rows,
            (unsigned long long)summary_rows);
    fflush(r->progress);
}

// Point r->todo[j] of run_points: its repeats back to back (the kind's run_point). 0, or the
// run's status.
static int run_one_point(cd_run *r, size_t j, char *err, size_t err_len)
{
    if (stop_requested) return stop_status();
    size_t i = r->todo[j];
    cd_point p = {.pick = r->pick};
    cd_point_at(r->cfg, i, &p);
    progress(r, j, r->todo_count, &p);
    r->point_index = i;
    r->summary_written = 0;
    r->point_frame_rows = r->point_summary_rows = 0;
    memset(r->counter_sum, 0, sizeof r->counter_sum);
    memset(r->counter_n, 0, sizeof r->counter_n);
    char where[64];
    snprintf(where, sizeof where, "point %zu", i);
    size_t notes = r->note_count;
    if (run_work(r, &p, 0, NULL, where) != 0) return r->cut ? stop_status() : point_failed(r, where, err, err_len);
    // Every point's rows are on disk, or the run stops here, naming the file and the cause.
    if (r->write_errno || flush_rows(r)) {
        output_reason(r, where, err, err_len);
        return 1;
    }
    CD_ASSERT(r->summary_written);
    journal_point(r, i, r->point_frame_rows, r->point_summary_rows, notes);
    cd_alloc_release_freed();  // the next point starts without this one's freed blocks
    r->points_done++;
    return 0;
}

// order = points: each point in plan order (run_one_point).
static int run_points(cd_run *r, char *err, size_t err_len)
{
    size_t n = r->todo_count;
    double *cost = cd_alloc((n ? n : 1) * sizeof *cost);
    eta_costs(r, cost);
    int status = 0;
    for (size_t j = 0; j < n && !status; ++j) {
        status = run_one_point(r, j, err, err_len);
        r->eta_done += cost[j];
    }
    cd_free(cost);
    return status;
}

// A point's runner state between rounds.
typedef struct round_slot {
    void *state;                          // the kind's
    uint32_t rounds_done, repeats;        // repeats: the point's [experiment] repeats
    int64_t rss;                          // peak RSS after its first round
    double counter_sum[CD_COUNTERS_MAX];  // its frames' counter sums so far
    size_t counter_n[CD_COUNTERS_MAX];
    uint64_t frame_rows, summary_rows;  // its rows so far (journal_point)
} round_slot;

// order = rounds: repeat 1 of every point in plan order, then repeat 2 of every point, ... (the
// kind's run_round), then the summary rows in point order (finish_point). A point with fewer
// repeats sits out the later rounds. Interrupted or failed, every point with a finished round
// still gets its summary row (repeats = the rounds it ran); it counts as done only when all ran.
// After the last round: each point's summary row from the rounds it measured (a stopped run's
// points too, with a warning). The status, made 1 by the first point that fails here.
static int finish_rounds(cd_run *r, round_slot *slot, size_t n, int status, char *err, size_t err_len)
{
    for (size_t j = 0; j < n; ++j) {
        round_slot *sl = &slot[j];
        size_t i = r->todo[j];
        if (!sl->state) continue;
        cd_point p = {.pick = r->pick};
        cd_point_at(r->cfg, i, &p);
        r->point_index = i;
        r->summary_written = 0;
        r->point_frame_rows = sl->frame_rows;  // a kind may write frame rows here too (mesh)
        r->point_summary_rows = 0;
        r->point_rss = sl->rss;
        memcpy(r->counter_sum, sl->counter_sum, sizeof r->counter_sum);
        memcpy(r->counter_n, sl->counter_n, sizeof r->counter_n);
        if (sl->rounds_done < sl->repeats && sl->rounds_done > 0)
            cd_run_warn(r, "point %zu: %u of %u repeats measured (run stopped)", i, sl->rounds_done, sl->repeats);
        if (r->cfg->kind->finish_point(r, &p, sl->state, sl->rounds_done) != 0 && status == 0) {
            char where[64];
            snprintf(where, sizeof where, "point %zu", i);
            status = point_failed(r, where, err, err_len);
        }
        CD_ASSERT(r->summary_written == (sl->rounds_done > 0));  // no row when its first round failed
        sl->frame_rows = r->point_frame_rows;
        sl->summary_rows = r->point_summary_rows;
        if (sl->rounds_done == sl->repeats)
            r->points_done++;
        else if (sl->rounds_done)
            r->points_short++;
    }
    return status;
}

static int run_rounds(cd_run *r, char *err, size_t err_len)
{
    const cd_config *c = r->cfg;
    size_t n = r->todo_count;  // slot[j] is point r->todo[j]
    round_slot *slot = cd_alloc_zero(n ? n : 1, sizeof *slot);
    uint32_t rounds = 0;
    for (size_t j = 0; j < n; ++j) {
        cd_point p = {.pick = r->pick};
        cd_point_at(c, r->todo[j], &p);
        slot[j].repeats = (uint32_t)cd_point_num(&p, "experiment", "repeats");
        if (slot[j].repeats > rounds) rounds = slot[j].repeats;
    }
    size_t steps = 0, step = 0, notes = r->note_count;
    for (size_t j = 0; j < n; ++j) steps += slot[j].repeats;
    double *cost = cd_alloc((n ? n : 1) * sizeof *cost);
    eta_costs(r, cost);
    int status = 0;
    for (uint32_t k = 0; k < rounds && !status; ++k)
        for (size_t j = 0; j < n && !status; ++j) {
            round_slot *sl = &slot[j];
            size_t i = r->todo[j];
            if (k >= sl->repeats) continue;
            if (stop_requested) {
                status = stop_status();
                break;
            }
            cd_point p = {.pick = r->pick};
            cd_point_at(c, i, &p);
            progress_round(r, step++, steps, k, rounds, j, n, &p);
            r->point_index = i;
            memcpy(r->counter_sum, sl->counter_sum, sizeof r->counter_sum);
            memcpy(r->counter_n, sl->counter_n, sizeof r->counter_n);
            r->point_frame_rows = sl->frame_rows;
            char where[64];
            // Rounds counted from 1, as the progress line counts them.
            snprintf(where, sizeof where, "point %zu, round %u of %u", i, k + 1, rounds);
            if (run_work(r, &p, k, &sl->state, where) != 0) {
                status = r->cut ? stop_status() : point_failed(r, where, err, err_len);
            } else if (r->write_errno || flush_stream(r, r->frames, &r->frames_errno, FRAMES_PART)) {
                output_reason(r, where, err, err_len);
                status = 1;
            }
            memcpy(sl->counter_sum, r->counter_sum, sizeof r->counter_sum);
            memcpy(sl->counter_n, r->counter_n, sizeof r->counter_n);
            sl->frame_rows = r->point_frame_rows;
            if (status == 0 && ++sl->rounds_done == 1) sl->rss = r->child_rss;
            cd_alloc_release_freed();  // the next point starts without this one's freed blocks
            r->eta_done += cost[j] / sl->repeats;
        }
    cd_free(cost);
    status = finish_rounds(r, slot, n, status, err, err_len);
    r->point_rss = 0;
    if (flush_stream(r, r->summary, &r->summary_errno, SUMMARY_PART) && status == 0) {
        output_reason(r, NULL, err, err_len);
        status = 1;
    } else if (!r->write_errno) {  // every row is out: the points that ran every round are done
        for (size_t j = 0; j < n; ++j)
            if (slot[j].rounds_done == slot[j].repeats) {
                journal_point(r, r->todo[j], slot[j].frame_rows, slot[j].summary_rows, notes);
                notes = r->note_count;
            }
    }
    cd_free(slot);
    return status;
}

// printf at buf + *n, advancing *n; nothing once buf is full.
static void appendf(char *buf, size_t cap, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    if (*n >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k > 0) *n += (size_t)k;
}

// A run that stopped short: its rows stay in the .part files (the evidence), meta.ini.part says
// what ran, and INCOMPLETE says why in its first line, then what is left; `latest` is not touched.
// Best effort: a full disk may refuse meta.ini.part, and INCOMPLETE then says so.
static void keep_incomplete(cd_run *r)
{
    if (is_stop_status(r->status)) {
        const char *sig = r->status == 128 + SIGTERM ? "SIGTERM" : "SIGINT";
        char cut[96] = "";
        if (r->cut) snprintf(cut, sizeof cut, ", a second time: point %zu cut short", r->point_index);
        int k = snprintf(r->reason, sizeof r->reason, "interrupted (%s%s) after %zu of %zu points", sig, cut,
                         r->points_done, r->points_planned);
        if (r->points_short && k > 0 && (size_t)k < sizeof r->reason)
            snprintf(r->reason + k, sizeof r->reason - (size_t)k, " (%zu more with fewer repeats)", r->points_short);
    } else if (!r->reason[0]) {
        snprintf(r->reason, sizeof r->reason, "failed");
    }
    close_rows(r, 0);
    int meta = cd_meta_write(r);
    if (meta) {  // an empty meta.ini.part (a full disk) is no evidence of anything
        char path[4600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", r->dir, part_names[3]);
        if (stat(path, &st) == 0 && st.st_size == 0) unlink(path);
    }
    char text[2048];
    size_t n = 0;
#define ADD(...) appendf(text, sizeof text, &n, __VA_ARGS__)
    ADD("%s\n", r->reason);
    ADD("run %s of %s: started %s by pid %ld on %s, stopped %s; %zu of %zu points done\n", r->run_id, r->cfg->path,
        r->date_start, r->pid, r->host, r->date_end, r->points_done, r->points_planned);
    if (r->write_errno && !r->output_reported)
        ADD("also: %s %s: %s\n", r->write_op, r->write_file, strerror(r->write_errno));
    if (meta) ADD("also: writing meta.ini.part: %s\n", strerror(meta));
    char shard[64];
    cd_run_shard_line(r, shard, sizeof shard);
    ADD("%s", shard);
    ADD("kept as written (rows of the points done, and of the point that stopped):");
    for (size_t i = 0; i < PART_COUNT; ++i) {
        char path[4600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", r->dir, part_names[i]);
        if (stat(path, &st) == 0) ADD(" %s", part_names[i]);
    }
    ADD("\n");
#undef ADD
    int e = write_marker(r, text);
    if (e)
        fprintf(stderr, "cdlab: %s/" CD_RUN_INCOMPLETE ": cannot write why the run stopped: %s\n", r->dir, strerror(e));
}

// Own the run directory (found: 1 a new one, 0 an incomplete one to resume): lock its marker,
// keep the points a resume finds done, and say in the marker that the run is in progress, all
// before anything else is written there, so that a run killed at any moment after is marked.
// r->todo takes points (or the resume's rest). 0, or the exit status with err set.
static int take_run_dir(cd_run *r, int found, size_t *points, size_t npoints, char *err, size_t err_len)
{
    int e = lock_marker(r, found == 1, err, err_len);
    if (e) {
        if (found == 1) rmdir(r->dir);
        return e;
    }
    if (found == 0 && (e = cd_resume_prepare(r, points, npoints, err, err_len)) != 0) return e == -2 ? 2 : 1;
    if (found == 1) r->todo = points, r->todo_count = npoints;
    char text[2048], shard[64];
    cd_run_shard_line(r, shard, sizeof shard);
    snprintf(text, sizeof text,
             CD_RUN_MARKER_START
             "%s by pid %ld on %s\n"
             "This directory is not a complete run while this file is here; rows go to the .part files.\n"
             "The run's processes hold a lock on this file (flock) while the run is in progress; readers that\n"
             "find it unlocked with this text here know the run was abandoned (killed or crashed).\n%s",
             r->date_start, r->pid, r->host, shard);
    e = write_marker(r, text);
    if (!e) return 0;
    snprintf(err, err_len, "%s/" CD_RUN_INCOMPLETE ": cannot write: %s; nothing was run", r->dir, strerror(e));
    if (found == 1) {
        char path[4600];
        snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, r->dir);
        unlink(path);
        rmdir(r->dir);
    }
    return 1;
}

// [run] isolate as this run applies it (counters: events are read; rounds: order = rounds).
static void choose_isolation(cd_run *r, size_t counters, int rounds)
{
    const char *isolate = cd_config_text(r->cfg, "run", "isolate");
    if (strcmp(isolate, "none") == 0)
        r->isolate = 0, r->isolate_why = "isolate = none";
    else if (strcmp(isolate, "process") == 0)
        r->isolate = 1, r->isolate_why = "isolate = process";
    else if (counters)
        r->isolate = 0,
        r->isolate_why = "isolate = auto, and counters are read (PAPI's event sets do not follow a fork)";
    else if (rounds && !r->cfg->kind->pack_state)
        r->isolate = 0, r->isolate_why = "isolate = auto, and the kind keeps its rounds in the runner";
    else
        r->isolate = 1, r->isolate_why = "isolate = auto";
}

// Every point ran: every row on disk, meta.ini.part, then the final names, no marker, and
// `latest`. 0, or 1 with err naming the output error.
static int complete_run(cd_run *r, const char *root, char *err, size_t err_len)
{
    int e;
    if (close_rows(r, 1) == 0 && (e = cd_meta_write(r)) != 0) output_error(r, "writing", part_names[3], e);
    if (r->write_errno || rename_parts(r)) {
        output_reason(r, NULL, err, err_len);
        return 1;
    }
    sync_dir(r);
    char path[4600];
    snprintf(path, sizeof path, "%s/progress.part", r->dir);
    unlink(path);  // a complete run needs no resume
    // A shard is a part of a sweep, not a run of the experiment: `latest` stays.
    if (!r->shard_count && (e = link_latest(r, root, r->name)) != 0)
        cd_run_warn(r, "%s/%s/latest: cannot point it at %s: %s", root, r->name, r->run_id, strerror(e));
    return 0;
}

// Pin the run's thread as [run] pin asks and open [run] counters, naming the NA ones. 1 with err
// set when pin = required and pinning failed.
static int pin_and_open_counters(cd_run *r, const cd_run_options *o, char *err, size_t err_len)
{
    const char *pin = cd_config_text(r->cfg, "run", "pin");
    cd_pin_mode mode = strcmp(pin, "off") == 0        ? CD_PIN_OFF
                       : strcmp(pin, "required") == 0 ? CD_PIN_REQUIRED
                                                      : CD_PIN_OPTIONAL;
    if (cd_pin_thread(mode, o->cpu_set ? o->cpu : (int)cd_config_num(r->cfg, "run", "cpu"), &r->pin)) {
        snprintf(err, err_len, "%s: pin = required but pinning failed: %s", r->cfg->path, r->pin.status);
        return 1;
    }
    if (mode == CD_PIN_OFF && o->cpu_set)  // a sweep passes --cpu auto to every config it runs
        cd_run_warn(r, "--cpu ignored: %s has [run] pin = off (the run is not pinned)", r->cfg->path);
    if (mode != CD_PIN_OFF && !r->pin.ok && r->pin.requested >= 0)
        cd_run_warn(r, "pinning to cpu %d failed: %s (run goes on unpinned)", r->pin.requested, r->pin.status);
    r->keeps_freed = cd_alloc_keep_freed() == 0;  // before any repetition allocates
    for (size_t i = 0; i < r->cfg->warning_count; ++i) cd_run_warn(r, "%s", r->cfg->warnings[i]);
    const char *names[CD_COUNTERS_MAX];
    const cd_config_key *ck = cd_config_key_get(r->cfg, "run", "counters");
    cd_counters_open(&r->counters, counter_names(r->cfg, names), ck->count);
    for (size_t i = 0; i < r->counters.count; ++i)
        if (!r->counters.live[i] && !r->quiet)
            fprintf(stderr, "cdlab: counter %s is NA: %s\n", r->counters.names[i], r->counters.reason[i]);
    return 0;
}

// Open the rows' parts (a fresh run: its config copy and headers too), then measure every point
// of the run (found: 1 a fresh run, 0 a resumed one) in the order [experiment] order asks. The
// run's status: 0, 1 after an output error (reason in err), or a stop status.
static int measure_all(cd_run *r, int found, int rounds, char *err, size_t err_len)
{
    int status = 0;
    const char *open_mode = found == 0 ? "a" : "w";
    if ((found == 1 && copy_config(r)) || !(r->frames = open_part(r, FRAMES_PART, open_mode)) ||
        !(r->summary = open_part(r, SUMMARY_PART, open_mode)) || (found == 1 && write_headers(r))) {
        output_reason(r, NULL, err, err_len);
        status = 1;
    } else {
        if (!r->progress) {  // a resume has reopened its own
            char path[4600];
            snprintf(path, sizeof path, "%s/progress.part", r->dir);
            r->progress = fopen(path, "w");
            cd_run_journal_inputs(r);  // what a resume must find unchanged
        }
        saved_signals saved;
        run_signals_setup(r, &saved);
        status = rounds ? run_rounds(r, err, err_len) : run_points(r, err, err_len);
        if (stop_requested && status == 0 && r->points_done < r->points_planned) status = stop_status();
        run_signals_restore(&saved);
    }
    return status;
}

// After the points: the run's times, the counters closed, and the run directory completed, or
// kept incomplete with why. The final status.
static int finish_run(cd_run *r, const char *root, int status, char *err, size_t err_len)
{
    r->duration_s = (double)(cd_now_ns() - r->start_ns) * 1e-9;
    utc_stamp(r->date_end, sizeof r->date_end, "%Y-%m-%dT%H:%M:%SZ");
    cd_counters_close(&r->counters);

    r->status = status;
    if (status == 0) r->status = status = complete_run(r, root, err, err_len);
    if (status != 0) keep_incomplete(r);
    if (is_stop_status(status))
        fprintf(stderr, "cdlab: %s: %s; incomplete run left in %s\n", r->name, r->reason, r->dir);
    else if (status != 0) {
        size_t k = strlen(err);
        snprintf(err + k, err_len - k, "; incomplete run left in %s", r->dir);
    }
    return status;
}

int cd_run_config(const cd_config *c, const cd_run_options *o, char *dir, size_t dir_len, char *err, size_t err_len)
{
    cd_run r = {.cfg = c,
                .quiet = o->quiet,
                .argv0 = o->argv0,
                .meta_extra = o->meta_extra,
                .meta_ctx = o->meta_ctx,
                .lock_fd = -1,
                .point_timeout = cd_config_num(c, "run", "point_timeout")};
    dir[0] = '\0';
    const char *root = r.root = o->output ? o->output : cd_config_text(c, "run", "output");
    snprintf(r.name, sizeof r.name, "%s", cd_config_text(c, "experiment", "name"));
    utc_stamp(r.date_start, sizeof r.date_start, "%Y-%m-%dT%H:%M:%SZ");
    cd_git_describe(r.git_commit, sizeof r.git_commit, r.git_dirty, sizeof r.git_dirty);

    // Pinning, then the event set, both before anything is written: a required pin that fails
    // leaves no directory behind.
    if (pin_and_open_counters(&r, o, err, err_len)) return 1;

    int rounds = strcmp(cd_config_text(c, "experiment", "order"), "rounds") == 0;
    choose_isolation(&r, cd_config_key_get(c, "run", "counters")->count, rounds);

    r.shard_index = o->shard_index, r.shard_count = o->shard_count;
    r.shard_cost = o->shard_cost, r.shard_total = o->shard_total;
    size_t npoints;
    size_t *points = run_points_of(c, o, &npoints);
    if (r.shard_count) r.shard_points = points, r.shard_point_count = npoints;
    r.points_planned = npoints;
    int found = digest_inputs(&r, err, err_len) ? -1
                : o->resume                     ? cd_resume_find(&r, root, o->run_id, err, err_len)
                                                : 1;
    if (found == 2) {  // complete already: nothing to do
        snprintf(dir, dir_len, "%s", r.dir);
        if (!r.quiet) fprintf(stderr, "cdlab: %s: %s is complete; nothing to resume\n", r.name, r.dir);
    }
    if (found < 0 || found == 2 || (found == 1 && make_run_dir(&r, root, r.name, o->run_id, err, err_len))) {
        cd_counters_close(&r.counters);
        if (!r.shard_count) cd_free(points);
        free_run(&r);
        return found == 2 ? 0 : 2;
    }
    r.pick = cd_alloc_zero(c->key_count, sizeof *r.pick);
    r.pid = (long)getpid();
    if (gethostname(r.host, sizeof r.host) != 0) snprintf(r.host, sizeof r.host, "unknown");
    r.host[sizeof r.host - 1] = '\0';
    int e = take_run_dir(&r, found, points, npoints, err, err_len);
    if (e) {
        cd_counters_close(&r.counters);
        if (!r.shard_count && r.todo != points) cd_free(points);
        free_run(&r);
        return e;
    }
    if (found == 0 && !r.shard_count) cd_free(points);  // the resume's todo is its own
    snprintf(dir, dir_len, "%s", r.dir);
    if (found == 0 && !r.quiet)
        fprintf(stderr, "cdlab: %s: resuming %s: %zu of %zu points done already (%s)\n", r.name, r.dir,
                r.points_resumed, r.points_planned, r.resumed_from);

    // A file size limit (RLIMIT_FSIZE) fails the write with EFBIG, which is then named like any
    // other write error, instead of killing the process.
    struct sigaction ign = {0}, old_xfsz;
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &old_xfsz);

    r.start_ns = cd_now_ns();
    int status = measure_all(&r, found, rounds, err, err_len);
    status = finish_run(&r, root, status, err, err_len);
    sigaction(SIGXFSZ, &old_xfsz, NULL);
    free_run(&r);
    return status;
}

int cd_run_pinned_cpu(const cd_run *r) { return r && r->pin.ok ? r->pin.actual : -1; }
