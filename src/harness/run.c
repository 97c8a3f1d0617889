// SPDX-License-Identifier: MIT
// The runner: pin, open counters, make the run directory (only after every check passed), measure
// each point through its kind, write frames.csv / summary.csv / meta.ini under temporary names and
// rename them when closed, so a file that looks whole is whole. SIGINT stops after the current point.
#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness.h"
#include "run_private.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

void cd_run_request_stop(void) { stop_requested = 1; }

static void on_sigint(int sig)
{
    (void)sig;
    stop_requested = 1;  // SA_RESETHAND restores the default, so a second Ctrl-C kills at once
}

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

void cd_run_frame_row(cd_run *r, const cd_cell *cells)
{
    cd_cell point = cd_cell_int((int64_t)r->point_index);
    write_cells(r->frames, &point, 1, 1);
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
    r->counters_fresh = 0;
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
    write_cells(r->summary, cells, r->cfg->kind->summary_column_count, 0);
    cd_cell rss = cd_cell_int(r->point_rss > 0 ? r->point_rss : peak_rss_bytes());
    write_cells(r->summary, &rss, 1, 0);
    for (size_t i = 0; i < r->counters.count; ++i) {
        cd_cell c = r->counter_n[i] ? cd_cell_real(r->counter_sum[i] / (double)r->counter_n[i]) : cd_cell_na();
        write_cells(r->summary, &c, 1, 0);
    }
    fputc('\n', r->summary);
    // A kind that writes several summary rows per point (a search) gets per-row counter means.
    memset(r->counter_sum, 0, sizeof r->counter_sum);
    memset(r->counter_n, 0, sizeof r->counter_n);
    r->summary_written = 1;
}

// Keep a warning for meta.ini.
static void keep_warning(cd_run *r, const char *msg)
{
    if (r->warning_count < CD_RUN_MAX_WARNINGS) {
        size_t n = strlen(msg);
        r->warnings[r->warning_count] = cd_alloc(n + 1);
        memcpy(r->warnings[r->warning_count++], msg, n + 1);
    }
}

static void add_note(cd_run *r, const char *prefix, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!r->quiet) fprintf(stderr, "cdlab: %s: %s\n", prefix, msg);
    keep_warning(r, msg);
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

void cd_run_note_series(cd_run *r, const char *series, double at, double value)
{
    if (!r->notes) r->notes = cd_alloc_zero(CD_RUN_MAX_NOTES, sizeof *r->notes);
    if (r->note_count == CD_RUN_MAX_NOTES) return;
    cd_series_note *n = &r->notes[r->note_count++];
    snprintf(n->series, sizeof n->series, "%s", series);
    n->at = at, n->value = value;
}

int cd_run_series_noted(const cd_run *r, const char *series, double below, double *at, double *value)
{
    for (size_t k = 0; k < r->note_count; ++k)
        if (r->notes[k].at < below && strcmp(r->notes[k].series, series) == 0) {
            *at = r->notes[k].at, *value = r->notes[k].value;
            return 1;
        }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Points in child processes ([run] isolate = process)
//
// A point's child starts from the runner's memory as it was before any measurement (the runner
// itself measures nothing), so every point gets a fresh heap and its own peak RSS: in one process,
// FCL's managers ran up to 1.6× slower after the 10⁶-cube points of other methods had been through
// the heap, and ru_maxrss only ever grows. The child writes its frame and summary rows to the
// runner's files (flushed before the fork, so the shared file offset is where it continues) and
// sends back over a pipe what the runner keeps: status, failure, its new warnings and series notes,
// its peak RSS and, for rounds, the kind's packed state. The runner itself starts no OpenMP threads
// (libgomp's pool does not survive a fork): every frame runs in a child.

typedef struct child_report {
    int32_t status, summary_written;
    int64_t rss;
    uint32_t warnings, notes;
    uint64_t state_bytes;
    char failure[512];
} child_report;

static int write_all(int fd, const void *p, size_t n)
{
    for (const char *c = p; n;) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    for (char *c = p; n;) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

// The kind's work for point p: run_point, or round `round` of run_round when state is not NULL.
static int point_work(cd_run *r, const cd_point *p, uint32_t round, void **state)
{
    const cd_kind *kind = r->cfg->kind;
    return state ? kind->run_round(r, p, round, state) : kind->run_point(r, p);
}

static _Noreturn void child_side(cd_run *r, const cd_point *p, uint32_t round, void **state, int fd)
{
    size_t w0 = r->warning_count, n0 = r->note_count;
    child_report h = {.status = point_work(r, p, round, state)};
    int ok = fflush(r->frames) == 0 && fflush(r->summary) == 0;
    h.summary_written = r->summary_written;
    h.rss = peak_rss_bytes();
    h.warnings = (uint32_t)(r->warning_count - w0);
    h.notes = (uint32_t)(r->note_count - n0);
    snprintf(h.failure, sizeof h.failure, "%s", r->failure);
    size_t bytes = 0;
    void *block = state && *state ? r->cfg->kind->pack_state(*state, &bytes) : NULL;
    h.state_bytes = bytes;
    ok &= write_all(fd, &h, sizeof h) == 0;
    for (size_t i = w0; ok && i < r->warning_count; ++i) {
        uint32_t len = (uint32_t)strlen(r->warnings[i]);
        ok = write_all(fd, &len, sizeof len) == 0 && write_all(fd, r->warnings[i], len) == 0;
    }
    if (ok && h.notes) ok = write_all(fd, r->notes + n0, h.notes * sizeof *r->notes) == 0;
    if (ok && bytes) ok = write_all(fd, block, bytes) == 0;
    _exit(ok ? 0 : 1);
}

// What the child sent; -1 with r->failure set when the report is cut short.
static int runner_side(cd_run *r, void **state, int fd)
{
    child_report h;
    if (read_all(fd, &h, sizeof h)) return -1;
    for (uint32_t i = 0; i < h.warnings; ++i) {
        uint32_t len;
        char msg[512];
        if (read_all(fd, &len, sizeof len) || len >= sizeof msg || read_all(fd, msg, len)) return -1;
        msg[len] = '\0';
        keep_warning(r, msg);  // the child printed it
    }
    for (uint32_t i = 0; i < h.notes; ++i) {
        cd_series_note n;
        if (read_all(fd, &n, sizeof n)) return -1;
        n.series[sizeof n.series - 1] = '\0';
        cd_run_note_series(r, n.series, n.at, n.value);
    }
    if (h.state_bytes) {
        void *block = cd_alloc(h.state_bytes);
        int bad = read_all(fd, block, h.state_bytes);
        if (!bad) *state = r->cfg->kind->unpack_state(*state, block, h.state_bytes);
        cd_free(block);
        if (bad) return -1;
    }
    r->summary_written = h.summary_written;
    r->child_rss = h.rss;
    h.failure[sizeof h.failure - 1] = '\0';
    if (h.failure[0]) snprintf(r->failure, sizeof r->failure, "%s", h.failure);
    return h.status;
}

// point_work, in a child process when the run isolates points.
static int run_work(cd_run *r, const cd_point *p, uint32_t round, void **state)
{
    if (!r->isolate) {
        int rc = point_work(r, p, round, state);
        r->child_rss = peak_rss_bytes();
        return rc;
    }
    fflush(NULL);  // nothing buffered is written twice
    int fds[2];
    if (pipe(fds)) {
        cd_run_fail(r, "cannot isolate the point: pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        cd_run_fail(r, "cannot isolate the point: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child_side(r, p, round, state, fds[1]);
    }
    close(fds[1]);
    int rc = runner_side(r, state, fds[0]), status = 0;
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    // The child wrote through the shared file offsets; put the runner's streams at the ends.
    fseek(r->frames, 0, SEEK_END);
    fseek(r->summary, 0, SEEK_END);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            cd_run_fail(r, "the point's process ended by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else if (!r->failure[0])
            cd_run_fail(r, "the point's process could not report (exit status %d)", WEXITSTATUS(status));
        return -1;
    }
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

static FILE *open_part(const cd_run *r, const char *name)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s.part", r->dir, name);
    return fopen(path, "w");
}

static int finish_part(const cd_run *r, const char *name)
{
    char from[4600], to[4600];
    snprintf(from, sizeof from, "%s/%s.part", r->dir, name);
    snprintf(to, sizeof to, "%s/%s", r->dir, name);
    return rename(from, to);
}

static void write_headers(cd_run *r)
{
    const cd_kind *kind = r->cfg->kind;
    cd_csv_write_field(r->frames, "point", 1);
    for (size_t i = 0; i < kind->frame_column_count; ++i) cd_csv_write_field(r->frames, kind->frame_columns[i].name, 0);
    for (size_t i = 0; i < r->counters.count; ++i) cd_csv_write_field(r->frames, r->counters.names[i], 0);
    fputc('\n', r->frames);
    cd_csv_write_field(r->summary, "point", 1);
    for (size_t i = 0; i < kind->summary_column_count; ++i)
        cd_csv_write_field(r->summary, kind->summary_columns[i].name, 0);
    cd_csv_write_field(r->summary, "peak_rss_bytes", 0);
    for (size_t i = 0; i < r->counters.count; ++i) cd_csv_write_field(r->summary, r->counters.names[i], 0);
    fputc('\n', r->summary);
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

// results/<name>/latest -> <run-id>, replaced atomically so scripts can follow the newest run.
static void link_latest(const cd_run *r, const char *root, const char *name)
{
    char tmp[4600], dst[4600];
    snprintf(tmp, sizeof tmp, "%s/%s/.latest.%ld", root, name, (long)getpid());
    snprintf(dst, sizeof dst, "%s/%s/latest", root, name);
    unlink(tmp);
    if (symlink(r->run_id, tmp) == 0 && rename(tmp, dst) != 0) unlink(tmp);
}

static int copy_config(const cd_run *r)
{
    FILE *f = open_part(r, "config.ini");
    if (!f) return -1;
    size_t n = fwrite(r->cfg->text, 1, r->cfg->text_len, f);
    int rc = fclose(f);
    if (n != r->cfg->text_len || rc) return -1;
    return finish_part(r, "config.ini");
}

// "point i/n" (what: "" or "round k/R, ") with the elapsed time and an ETA from the steps done.
static void progress_line(cd_run *r, const char *what, size_t step, size_t steps, size_t i, size_t n,
                          const cd_point *p)
{
    double elapsed = (double)(cd_now_ns() - r->start_ns) * 1e-9;
    if (r->quiet || elapsed < 1.0) return;
    char label[300];
    cd_point_label(p, label, sizeof label);
    double eta = step ? elapsed / (double)step * (double)(steps - step) : 0.0;
    if (step)
        fprintf(stderr, "cdlab: %s: %spoint %zu/%zu %s  (%.1f s elapsed, ETA %.0f s)\n", r->name, what, i + 1, n, label,
                elapsed, eta);
    else
        fprintf(stderr, "cdlab: %s: %spoint %zu/%zu %s\n", r->name, what, i + 1, n, label);
}

static void progress(cd_run *r, size_t i, size_t n, const cd_point *p) { progress_line(r, "", i, n, i, n, p); }

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
    for (size_t i = 0; i < r->warning_count; ++i) cd_free(r->warnings[i]);
    cd_free(r->pick);
    cd_free(r->notes);
}

// order = points: each point's repeats back to back (the kind's run_point).
static int run_points(cd_run *r, size_t n, char *err, size_t err_len)
{
    const cd_config *c = r->cfg;
    for (size_t i = 0; i < n; ++i) {
        if (stop_requested) return 130;
        cd_point p = {.pick = r->pick};
        cd_point_at(c, i, &p);
        progress(r, i, n, &p);
        r->point_index = i;
        r->summary_written = 0;
        memset(r->counter_sum, 0, sizeof r->counter_sum);
        memset(r->counter_n, 0, sizeof r->counter_n);
        if (run_work(r, &p, 0, NULL) != 0) {
            snprintf(err, err_len, "%s: point %zu: %s", c->path, i, r->failure[0] ? r->failure : "failed");
            return 1;
        }
        CD_ASSERT(r->summary_written);
        cd_alloc_release_freed();  // the next point starts without this one's freed blocks
        fflush(r->frames);
        fflush(r->summary);
        r->points_done++;
    }
    return 0;
}

// A point's runner state between rounds.
typedef struct round_slot {
    void *state;                            // the kind's
    uint32_t rounds_done, repeats;          // repeats: the point's [experiment] repeats
    int64_t rss;                            // peak RSS after its first round
    double counter_sum[CD_COUNTERS_MAX];    // its frames' counter sums so far
    size_t counter_n[CD_COUNTERS_MAX];
} round_slot;

// order = rounds: repeat 1 of every point in plan order, then repeat 2 of every point, ... (the
// kind's run_round), then the summary rows in point order (finish_point). A point with fewer
// repeats sits out the later rounds. Interrupted or failed, every point with a finished round
// still gets its summary row (repeats = the rounds it ran); it counts as done only when all ran.
static int run_rounds(cd_run *r, size_t n, char *err, size_t err_len)
{
    const cd_config *c = r->cfg;
    round_slot *slot = cd_alloc_zero(n ? n : 1, sizeof *slot);
    uint32_t rounds = 0;
    for (size_t i = 0; i < n; ++i) {
        cd_point p = {.pick = r->pick};
        cd_point_at(c, i, &p);
        slot[i].repeats = (uint32_t)cd_point_num(&p, "experiment", "repeats");
        if (slot[i].repeats > rounds) rounds = slot[i].repeats;
    }
    size_t steps = 0, step = 0;
    for (size_t i = 0; i < n; ++i) steps += slot[i].repeats;
    int status = 0;
    for (uint32_t k = 0; k < rounds && !status; ++k)
        for (size_t i = 0; i < n && !status; ++i) {
            if (k >= slot[i].repeats) continue;
            if (stop_requested) {
                status = 130;
                break;
            }
            cd_point p = {.pick = r->pick};
            cd_point_at(c, i, &p);
            progress_round(r, step++, steps, k, rounds, i, n, &p);
            r->point_index = i;
            memcpy(r->counter_sum, slot[i].counter_sum, sizeof r->counter_sum);
            memcpy(r->counter_n, slot[i].counter_n, sizeof r->counter_n);
            if (run_work(r, &p, k, &slot[i].state) != 0) {
                snprintf(err, err_len, "%s: point %zu, round %u: %s", c->path, i, k + 1,
                         r->failure[0] ? r->failure : "failed");
                status = 1;
            }
            memcpy(slot[i].counter_sum, r->counter_sum, sizeof r->counter_sum);
            memcpy(slot[i].counter_n, r->counter_n, sizeof r->counter_n);
            if (status == 0 && ++slot[i].rounds_done == 1) slot[i].rss = r->child_rss;
            cd_alloc_release_freed();  // the next point starts without this one's freed blocks
            fflush(r->frames);
        }
    for (size_t i = 0; i < n; ++i) {
        if (!slot[i].state) continue;
        cd_point p = {.pick = r->pick};
        cd_point_at(c, i, &p);
        r->point_index = i;
        r->summary_written = 0;
        r->point_rss = slot[i].rss;
        memcpy(r->counter_sum, slot[i].counter_sum, sizeof r->counter_sum);
        memcpy(r->counter_n, slot[i].counter_n, sizeof r->counter_n);
        if (slot[i].rounds_done < slot[i].repeats && slot[i].rounds_done > 0)
            cd_run_warn(r, "point %zu: %u of %u repeats measured (run stopped)", i, slot[i].rounds_done,
                        slot[i].repeats);
        if (c->kind->finish_point(r, &p, slot[i].state, slot[i].rounds_done) != 0 && status == 0) {
            snprintf(err, err_len, "%s: point %zu: %s", c->path, i, r->failure[0] ? r->failure : "failed");
            status = 1;
        }
        CD_ASSERT(r->summary_written == (slot[i].rounds_done > 0));  // no row when its first round failed
        if (slot[i].rounds_done == slot[i].repeats)
            r->points_done++;
        else if (slot[i].rounds_done)
            r->points_short++;
    }
    r->point_rss = 0;
    fflush(r->summary);
    cd_free(slot);
    return status;
}

int cd_run_config(const cd_config *c, const cd_run_options *o, char *dir, size_t dir_len, char *err, size_t err_len)
{
    cd_run r = {.cfg = c, .quiet = o->quiet, .argv0 = o->argv0};
    dir[0] = '\0';
    const char *root = o->output ? o->output : cd_config_text(c, "run", "output");
    snprintf(r.name, sizeof r.name, "%s", cd_config_text(c, "experiment", "name"));
    utc_stamp(r.date_start, sizeof r.date_start, "%Y-%m-%dT%H:%M:%SZ");
    cd_git_describe(r.git_commit, sizeof r.git_commit, r.git_dirty, sizeof r.git_dirty);

    // Pinning, then the event set, both before anything is written: a required pin that fails
    // leaves no directory behind.
    const char *pin = cd_config_text(c, "run", "pin");
    cd_pin_mode mode = strcmp(pin, "off") == 0 ? CD_PIN_OFF : strcmp(pin, "required") == 0 ? CD_PIN_REQUIRED : CD_PIN_OPTIONAL;
    if (cd_pin_thread(mode, (int)cd_config_num(c, "run", "cpu"), &r.pin)) {
        snprintf(err, err_len, "%s: pin = required but pinning failed: %s", c->path, r.pin.status);
        return 1;
    }
    if (mode != CD_PIN_OFF && !r.pin.ok && r.pin.requested >= 0)
        cd_run_warn(&r, "pinning to cpu %d failed: %s (run goes on unpinned)", r.pin.requested, r.pin.status);
    r.keeps_freed = cd_alloc_keep_freed() == 0;  // before any repetition allocates
    const char *names[CD_COUNTERS_MAX];
    const cd_config_key *ck = cd_config_key_get(c, "run", "counters");
    cd_counters_open(&r.counters, counter_names(c, names), ck->count);
    for (size_t i = 0; i < r.counters.count; ++i)
        if (!r.counters.live[i] && !r.quiet)
            fprintf(stderr, "cdlab: counter %s is NA: %s\n", r.counters.names[i], r.counters.reason[i]);

    const char *isolate = cd_config_text(c, "run", "isolate");
    int rounds = strcmp(cd_config_text(c, "experiment", "order"), "rounds") == 0;
    if (strcmp(isolate, "none") == 0)
        r.isolate = 0, r.isolate_why = "isolate = none";
    else if (strcmp(isolate, "process") == 0)
        r.isolate = 1, r.isolate_why = "isolate = process";
    else if (ck->count)
        r.isolate = 0, r.isolate_why = "isolate = auto, and counters are read (PAPI's event sets do not follow a fork)";
    else if (rounds && !c->kind->pack_state)
        r.isolate = 0, r.isolate_why = "isolate = auto, and the kind keeps its rounds in the runner";
    else
        r.isolate = 1, r.isolate_why = "isolate = auto";

    if (make_run_dir(&r, root, r.name, o->run_id, err, err_len)) {
        cd_counters_close(&r.counters);
        free_run(&r);
        return 2;
    }
    snprintf(dir, dir_len, "%s", r.dir);
    r.frames = open_part(&r, "frames.csv");
    r.summary = open_part(&r, "summary.csv");
    if (!r.frames || !r.summary) {
        snprintf(err, err_len, "%s: cannot write: %s", r.dir, strerror(errno));
        if (r.frames) fclose(r.frames);
        if (r.summary) fclose(r.summary);
        cd_counters_close(&r.counters);
        free_run(&r);
        return 1;
    }
    write_headers(&r);

    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    stop_requested = 0;

    size_t n = cd_plan_size(c);
    r.points_planned = n;
    r.pick = cd_alloc_zero(c->key_count, sizeof *r.pick);
    r.start_ns = cd_now_ns();
    int status = rounds ? run_rounds(&r, n, err, err_len) : run_points(&r, n, err, err_len);
    if (stop_requested && status == 0 && r.points_done < n) status = 130;
    sigaction(SIGINT, &old, NULL);
    r.duration_s = (double)(cd_now_ns() - r.start_ns) * 1e-9;
    utc_stamp(r.date_end, sizeof r.date_end, "%Y-%m-%dT%H:%M:%SZ");
    if (status == 130 && !r.quiet)
        fprintf(stderr, "cdlab: interrupted: kept %zu of %zu points (%zu more with fewer repeats) in %s\n",
                r.points_done, n, r.points_short, r.dir);
    r.status = status;

    int io = fclose(r.frames) | fclose(r.summary);
    io |= finish_part(&r, "frames.csv") | finish_part(&r, "summary.csv") | copy_config(&r);
    cd_counters_close(&r.counters);
    io |= cd_meta_write(&r);
    if (io && status == 0) {
        snprintf(err, err_len, "%s: writing results failed: %s", r.dir, strerror(errno));
        status = 1;
    }
    link_latest(&r, root, r.name);
    free_run(&r);
    return status;
}

int cd_run_pinned_cpu(const cd_run *r) { return r && r->pin.ok ? r->pin.actual : -1; }
