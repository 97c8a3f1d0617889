// SPDX-License-Identifier: MIT
// meta.ini, the provenance sidecar of a run: build, source, machine, pinning, counters, config
// digest, plan and outcome, written as meta.ini.part (the runner renames it once the run is
// complete); and cd_run_dir_check, which every reader of a run directory asks first.
#include "build_commit.h"
#include "build_flags.h"
#include "cd_build_config.h"
#include "cd_core.h"
#include "cd_harness_cli.h"
#include "run_private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

// key = value on one line; newlines in values become spaces so the INI stays parseable.
static void vkv(FILE *f, const char *key, const char *fmt, va_list ap)
{
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    for (char *p = buf; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
    // Long lists continue on indented lines after a ", " so that every line stays inside inih's
    // 200-byte line buffer (inih and Python's configparser both read indented continuations).
    fprintf(f, "%s = ", key);
    size_t col = strlen(key) + 3;
    for (char *p = buf; *p;) {
        char *comma = strstr(p, ", ");
        size_t n = comma ? (size_t)(comma - p) + 1 : strlen(p);
        if (col + n > 150 && col > 4) {
            fputs("\n    ", f);
            col = 4;
        }
        fwrite(p, 1, n, f);
        col += n;
        p += n;
        if (comma) {
            p++;  // the space after the comma
            if (*p) fputc(' ', f), col++;
        }
    }
    fputc('\n', f);
}

static void kv(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kv(FILE *f, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vkv(f, key, fmt, ap);
    va_end(ap);
}

void cd_meta_kv(FILE *f, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vkv(f, key, fmt, ap);
    va_end(ap);
}

void cd_meta_index_list(FILE *f, const char *key, const size_t *v, size_t n)
{
    fprintf(f, "%s =", key);
    size_t col = strlen(key) + 2;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) ++j;
        char item[64];
        int k = j > i ? snprintf(item, sizeof item, "%zu-%zu", v[i], v[j]) : snprintf(item, sizeof item, "%zu", v[i]);
        if (col + (size_t)k + 2 > 150) {
            fputs(i ? ",\n   " : "\n   ", f);
            col = 3;
        } else if (i) {
            fputc(',', f), col++;
        }
        fprintf(f, " %s", item);
        col += (size_t)k + 1;
        i = j + 1;
    }
    fputc('\n', f);
}

static void write_columns(FILE *f, const cd_run *r)
{
    const cd_kind *k = r->cfg->kind;
    // Columns that differ between two runs of the same config: wall-clock ones and counters.
    char buf[2048];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < k->frame_column_count; ++i)
        if (k->frame_columns[i].varies)
            n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", n ? ", " : "",
                                  k->frame_columns[i].name);
    for (size_t i = 0; i < r->counters.count; ++i)
        n +=
            (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", n ? ", " : "", r->counters.names[i]);
    kv(f, "frames_varying", "%s", buf);
    n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < k->summary_column_count; ++i)
        if (k->summary_columns[i].varies)
            n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", n ? ", " : "",
                                  k->summary_columns[i].name);
    n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%speak_rss_bytes", n ? ", " : "");
    for (size_t i = 0; i < r->counters.count; ++i)
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, ", %s", r->counters.names[i]);
    kv(f, "summary_varying", "%s", buf);
    // The key columns (after `point` in both files): what tells one point's rows from another's.
    size_t nk;
    size_t *keys = cd_run_key_columns(r->cfg, &nk);
    n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < nk; ++i)
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", i ? ", " : "",
                              r->cfg->keys[keys[i]].spec->name);
    cd_free(keys);
    kv(f, "keys", "%s", buf);
}

static void write_values(FILE *f, const cd_config *c)
{
    for (size_t i = 0; i < c->key_count; ++i) {
        const cd_config_key *k = &c->keys[i];
        char buf[1800];
        size_t n = 0;
        buf[0] = '\0';
        for (size_t j = 0; j < k->count && n < sizeof buf; ++j)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", j ? ", " : "", k->values[j].text);
        char key[128];
        snprintf(key, sizeof key, "%s.%s", k->spec->section, k->spec->name);
        kv(f, key, "%s", buf);
    }
}

// What a resumed run must share with the attempt that started it (progress.part's "same" lines):
// the build as compiled in (not git_commit and git_dirty, which describe the source checkout when
// the run starts: a commit or an edit there, the binary unchanged, would refuse a requeued batch
// job's resume) and the SIMD paths.
enum { SAME_VALUES = 5 };
static void same_values(const char *name[SAME_VALUES], char value[SAME_VALUES][600])
{
    static const char *const names[SAME_VALUES] = {"build_commit", "build_type", "c_flags", "sanitize", "simd"};
    const char *simd_switch = cd_cpu_simd_switch();
    const char *v[SAME_VALUES] = {CD_BUILD_COMMIT, CD_BUILD_TYPE, CD_C_FLAGS, CD_SANITIZE, cd_cpu_simd()};
    for (int k = 0; k < SAME_VALUES; ++k) {
        name[k] = names[k];
        snprintf(value[k], sizeof value[k], "%s", v[k]);
        value[k][strcspn(value[k], "\n")] = '\0';  // one line each
    }
    if (simd_switch) snprintf(value[SAME_VALUES - 1], sizeof value[0], "%s (%s set)", cd_cpu_simd(), simd_switch);
}

void cd_run_same_lines(FILE *f)
{
    const char *name[SAME_VALUES];
    char value[SAME_VALUES][600];
    same_values(name, value);
    for (int k = 0; k < SAME_VALUES; ++k) fprintf(f, "same %s %s\n", name[k], value[k]);
}

void cd_run_same_check(const char *line, char *why, size_t len)
{
    const char *name[SAME_VALUES];
    char value[SAME_VALUES][600];
    same_values(name, value);
    for (int k = 0; k < SAME_VALUES; ++k) {
        size_t n = strlen(name[k]);
        if (strncmp(line + 5, name[k], n) != 0 || line[5 + n] != ' ') continue;
        const char *then = line + 5 + n + 1;
        if (strcmp(then, value[k]) != 0)
            snprintf(why, len,
                     "its %s was %.200s when it started, this cdlab's is %.200s (a run's points come from one "
                     "build on one set of SIMD paths: resume with those, or start a new run)",
                     name[k], then, value[k]);
        return;
    }
}

// A derived input file, for meta.ini's [inputs] (here beside the warnings: run.c and resume.c both
// record them).
int cd_run_derived_input(cd_run *r, const char *path, const char *sha256, uint64_t bytes, const char *what, char *why,
                         size_t why_len)
{
    CD_ASSERT(what[0] && strlen(what) < sizeof r->inputs->derived && !strpbrk(what, " \t\n"));  // progress.part's word
    char real[PATH_MAX];
    const char *at = realpath(path, real) ? real : path;
    for (size_t i = 0; i < r->input_count; ++i) {
        const cd_run_input *in = &r->inputs[i];
        if (strcmp(in->path, at) != 0) continue;
        if (strcmp(in->sha256, sha256) == 0) return 0;
        snprintf(why, why_len,
                 "%s: SHA-256 %.12s..., %llu bytes, but this run's earlier points (or the attempt it resumes) read "
                 "%.12s..., %llu bytes: two different files would pass for one input (start the run afresh)",
                 at, sha256, (unsigned long long)bytes, in->sha256, (unsigned long long)in->bytes);
        return -1;
    }
    if (r->input_count == r->input_cap) {
        r->input_cap = r->input_cap ? 2 * r->input_cap : 4;
        r->inputs = cd_realloc(r->inputs, r->input_cap * sizeof *r->inputs);
    }
    cd_run_input *in = &r->inputs[r->input_count++];
    *in = (cd_run_input){.bytes = bytes};
    snprintf(in->path, sizeof in->path, "%s", at);
    snprintf(in->sha256, sizeof in->sha256, "%s", sha256);
    snprintf(in->derived, sizeof in->derived, "%s", what);
    return 0;
}

// The text of warning pos, for r->warning_index.
static const char *warning_text(const void *ctx, size_t pos) { return ((const cd_run *)ctx)->warnings[pos]; }

// The run's warnings, for meta.ini's [warnings]: every one, each once. None is left out: a cap
// would drop warnings from meta.ini and progress.part without a word. No cap is needed for
// memory: a warning is one line of at most 511 bytes, and a run raises a few per point at most
// (a skipped point, a noisy one), about what its summary.csv takes.
void cd_run_keep_warning(cd_run *r, const char *msg)
{
    // One line each (a path or a plugin's build string may hold a line break): meta.ini's
    // "wN = ..." and progress.part's "warn ..." lines read back what was written.
    char line[512];
    snprintf(line, sizeof line, "%s", msg);
    for (char *c = line; *c; ++c)
        if (*c == '\n' || *c == '\r') *c = ' ';
    // A resumed run meets its config's warnings again.
    if (cd_text_index_find(&r->warning_index, line, warning_text, r) != SIZE_MAX) return;
    cd_grow((void **)&r->warnings, sizeof *r->warnings, &r->warning_cap, r->warning_count + 1);
    size_t n = strlen(line), k = r->warning_count++;
    r->warnings[k] = cd_alloc(n + 1);
    memcpy(r->warnings[k], line, n + 1);
    cd_text_index_add(&r->warning_index, r->warnings[k], k, warning_text, r);
}

void cd_run_take_warnings(cd_run *r, char ***w, size_t *n)
{
    *w = r->warnings, *n = r->warning_count;
    r->warnings = NULL;
    r->warning_count = r->warning_cap = 0;
    cd_text_index_free(&r->warning_index);
}

// [cdlab]: the build that measured.
static void write_build(FILE *f, const cd_run *r)
{
    fprintf(f, "; cdlab run metadata (provenance of frames.csv and summary.csv)\n[cdlab]\n");
    kv(f, "version", "%s", CD_VERSION);
    kv(f, "build_commit", "%s", CD_BUILD_COMMIT);
    kv(f, "git_commit", "%s", r->git_commit);
    kv(f, "git_dirty", "%s", r->git_dirty);
    kv(f, "build_type", "%s", CD_BUILD_TYPE);
    kv(f, "compiler", "%s", CD_COMPILER);
    kv(f, "c_flags", "%s", CD_C_FLAGS);
    kv(f, "c_flags_extra", "%s", CD_C_FLAGS_EXTRA);
    kv(f, "cxx_flags", "%s", CD_CXX_FLAGS);
    kv(f, "sanitize", "%s", CD_SANITIZE);
}

// [run]: what ran, when, where, and how it ended.
static void write_run(FILE *f, const cd_run *r)
{
    const cd_config *c = r->cfg;
    fprintf(f, "\n[run]\n");
    kv(f, "id", "%s", r->run_id);
    kv(f, "experiment", "%s", r->name);
    kv(f, "kind", "%s", c->kind->name);
    kv(f, "date_start", "%s", r->date_start);
    kv(f, "date_end", "%s", r->date_end);
    kv(f, "duration_s", "%.3f", r->duration_s);
    kv(f, "host", "%s", r->host);
    kv(f, "command", "%s", r->argv0 ? r->argv0 : "");
    kv(f, "points_planned", "%zu", r->points_planned);
    kv(f, "points_done", "%zu", r->points_done);
    // Every resume says so, also one that found no point finished (points_resumed = 0): the
    // earlier attempt's directory, marker and time are this run's, and merge warns of it.
    if (r->resumed) {
        kv(f, "points_resumed", "%zu", r->points_resumed);
        kv(f, "resumed_from", "%s", r->resumed_from);
    }
    if (r->points_short) kv(f, "points_short", "%zu", r->points_short);  // order = rounds, stopped
    kv(f, "isolate", "%s", r->isolate ? "process" : "none");
    kv(f, "isolate_why", "%s", r->isolate_why ? r->isolate_why : "");
    kv(f, "complete", "%s", r->status == 0 && r->points_done == r->points_planned ? "true" : "false");
    kv(f, "status", "%s", r->status == 0 ? "ok" : r->status == 130 || r->status == 143 ? "interrupted" : "failed");
    // A failed run's reason names the point (or the file that could not be written).
    const char *failure = r->status == 1 && r->reason[0] ? r->reason : r->failure;
    if (failure[0]) kv(f, "failure", "%s", failure);
}

// [shard] (a shard run), [config] and what the config read ([inputs]).
static void write_config(FILE *f, const cd_run *r)
{
    const cd_config *c = r->cfg;
    if (r->shard_count) {
        fprintf(f, "\n[shard]\n%s\n", CD_META_SHARD_COMMENT);
        kv(f, "index", "%u", r->shard_index);
        kv(f, "count", "%u", r->shard_count);
        kv(f, "plan_points", "%zu", cd_plan_size(c));
        kv(f, "cost", "%.6g", r->shard_cost);
        kv(f, "cost_total", "%.6g", r->shard_total);
        kv(f, "assignment", "longest estimated cost first, each to the cheapest shard so far");
        cd_meta_index_list(f, "points", r->shard_points, r->shard_point_count);
    }

    fprintf(f, "\n[config]\n");
    kv(f, "path", "%s", c->path);
    char real[PATH_MAX], *slash;
    if (realpath(c->path, real) && (slash = strrchr(real, '/')) != NULL) {
        *slash = '\0';  // where its relative paths point (a reader of the copy resolves against it)
        kv(f, "dir", "%s", slash == real ? "/" : real);
    }
    kv(f, "sha256", "%s", c->sha256);
    kv(f, "copy", "config.ini");
    kv(f, "seed", "%s", cd_config_text(c, "experiment", "seed"));
    {
        const cd_config_key *fig = cd_config_key_get(c, "run", "figures");
        char list[512] = "";
        size_t n = 0;
        for (size_t i = 0; i < fig->count && n < sizeof list; ++i)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", fig->values[i].text);
        kv(f, "figures", "%s", list);
    }
    if (r->meta_extra) r->meta_extra(f, c, r->meta_ctx);

    fprintf(f, "\n[inputs]\n; " CD_META_INPUTS_COMMENT "\n");
    kv(f, "count", "%zu", r->input_count);
    for (size_t i = 0; i < r->input_count; ++i) {
        char key[32];
        snprintf(key, sizeof key, "i%zu_path", i + 1);
        kv(f, key, "%s", r->inputs[i].path);
        snprintf(key, sizeof key, "i%zu_bytes", i + 1);
        kv(f, key, "%llu", (unsigned long long)r->inputs[i].bytes);
        snprintf(key, sizeof key, "i%zu_sha256", i + 1);
        kv(f, key, "%s", r->inputs[i].sha256);
        if (!r->inputs[i].derived[0]) continue;
        snprintf(key, sizeof key, "i%zu_derived", i + 1);
        kv(f, key, "%s", r->inputs[i].derived);
    }
}

// [machine], [pinning], [papi] and [counters].
static void write_machine(FILE *f, const cd_run *r)
{
    char cpu[256], topo[512];
    cd_cpu_model(cpu, sizeof cpu);
    cd_topology_summary(topo, sizeof topo);
    fprintf(f, "\n[machine]\n");
    kv(f, "cpu_model", "%s", cpu);
    kv(f, "cpus_online", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    const char *simd_switch = cd_cpu_simd_switch();
    kv(f, "simd", "%s%s%s%s", cd_cpu_simd(), simd_switch ? " (" : "", simd_switch ? simd_switch : "",
       simd_switch ? " set)" : "");
    kv(f, "topology", "%s", topo);
    if (cd_trace_streamed())
        kv(f, "trace_replay", "streamed (CDLAB_TRACE_STREAM=1)");
    else
        kv(f, "trace_replay", "in memory up to %llu MiB of frames", (unsigned long long)(CD_TRACE_REPLAY_MEMORY >> 20));

    fprintf(f, "\n[pinning]\n");
    kv(f, "mode", "%s", r->pin.mode == CD_PIN_OFF ? "off" : r->pin.mode == CD_PIN_REQUIRED ? "required" : "optional");
    kv(f, "requested_cpu", "%d", r->pin.requested);
    kv(f, "actual_cpu", "%d", r->pin.actual);
    kv(f, "pinned", "%s", r->pin.ok ? "true" : "false");
    kv(f, "status", "%s", r->pin.status);
    kv(f, "allocator", "%s", r->keeps_freed ? "keeps freed memory (glibc mmap/trim thresholds raised)" : "default");

    fprintf(f, "\n[papi]\n");
    kv(f, "version", "%s", r->counters.papi_version);
    kv(f, "status", "%s", r->counters.papi_status);
    kv(f, "events_live", "%d", r->counters.live_count);
    fprintf(f, "\n[counters]\n; one line per requested event: ok, or NA: why\n");
    for (size_t i = 0; i < r->counters.count; ++i)
        kv(f, r->counters.names[i], "%s%s", r->counters.live[i] ? "" : "NA: ", r->counters.reason[i]);
}

int cd_meta_write(const cd_run *r)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/meta.ini.part", r->dir);
    FILE *f = fopen(path, "w");
    if (!f) return errno ? errno : EIO;
    errno = 0;  // so that after a failed write it is that write's
    const cd_config *c = r->cfg;
    write_build(f, r);
    write_run(f, r);
    write_config(f, r);
    write_machine(f, r);
    fprintf(f, "\n[columns]\n");
    write_columns(f, r);

    fprintf(f, "\n[values]\n; every key as used (defaults included); several values make a sweep\n");
    write_values(f, c);

    fprintf(f, "\n[warnings]\n");
    kv(f, "count", "%zu", r->warning_count);
    for (size_t i = 0; i < r->warning_count; ++i) {
        char key[32];
        snprintf(key, sizeof key, "w%zu", i + 1);
        kv(f, key, "%s", r->warnings[i]);
    }
    int e = r->status == 0 ? cd_meta_files(f, r->dir, ".part") : 0;
    if (!e) e = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (!e && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) e = errno;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e;
}

int cd_meta_files(FILE *f, const char *dir, const char *suffix)
{
    fprintf(f, "\n[files]\n; " CD_META_FILES_COMMENT "\n");
    static const char *const names[] = {"frames", "summary"};
    for (int k = 0; k < 2; ++k) {
        char path[4700], sha[65], key[32];
        uint64_t bytes;
        snprintf(path, sizeof path, "%s/%s.csv%s", dir, names[k], suffix);
        int e = cd_sha256_file(path, sha, &bytes);
        if (e) return e;
        snprintf(key, sizeof key, "%s_bytes", names[k]);
        kv(f, key, "%llu", (unsigned long long)bytes);
        snprintf(key, sizeof key, "%s_sha256", names[k]);
        kv(f, key, "%s", sha);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Is a directory a complete run?

static int exists(const char *dir, const char *name)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return lstat(path, &st) == 0;
}

// The runner holds an exclusive flock on INCOMPLETE from the moment it creates (or, resuming,
// takes over) the directory until it is done with it; a forked point process inherits the open
// file, so the lock lasts while any process of the run can still write there, and the kernel
// drops it when the last one dies, however it dies. A reader asks for a shared lock without
// waiting and lets go at once: refused, the run is in progress; granted, nobody writes there.
// Unlike a pid in the marker this needs no host name, cannot name a recycled pid, and works on a
// file system shared by several hosts where the kernel passes flock on (NFS does, as POSIX locks).

int cd_run_lock_unsupported(int e) { return e == ENOLCK || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP; }

int cd_run_lock_held(int fd)
{
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        flock(fd, LOCK_UN);
        return 0;
    }
    return errno == EWOULDBLOCK ? 1 : -1;
}

// A start marker: the runner has not said why it stopped (its first line as written at the
// start, or the "run in progress" of older runs, or nothing yet).
int cd_run_marker_is_start(const char *line)
{
    return !line[0] || strncmp(line, CD_RUN_MARKER_START, strlen(CD_RUN_MARKER_START)) == 0 ||
           strncmp(line, "run in progress: ", 17) == 0;
}

int cd_run_marker_state(const char *dir, char *line, size_t len)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, dir);
    line[0] = '\0';
    for (int attempt = 0; attempt < 3; ++attempt) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) return errno == ENOENT ? CD_MARKER_NONE : -1;
        struct stat a, b;
        ssize_t n = fstat(fd, &a) == 0 && S_ISREG(a.st_mode) ? read(fd, line, len - 1) : -1;
        int held = n < 0 ? -1 : cd_run_lock_held(fd);
        int e = errno;
        close(fd);
        if (n < 0 || (held < 0 && !cd_run_lock_unsupported(e))) {
            errno = n < 0 && e == 0 ? EINVAL : e;
            return -1;
        }
        line[n] = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        if (held < 0) return cd_run_marker_is_start(line) ? CD_MARKER_UNKNOWN : CD_MARKER_STOPPED;
        if (held) return CD_MARKER_LIVE;
        // Unlocked: the runner may have just finished and removed the marker (a run then
        // complete), or a resume may have replaced it; look again.
        if (stat(path, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) continue;
        return cd_run_marker_is_start(line) ? CD_MARKER_ABANDONED : CD_MARKER_STOPPED;
    }
    return CD_MARKER_STOPPED;
}

void cd_run_marker_describe(int state, const char *line, char *out, size_t len)
{
    const char *l = line[0] ? line : CD_RUN_INCOMPLETE " is empty";
    if (state == CD_MARKER_LIVE)
        snprintf(out, len, "in progress: %s; its runner holds the run's lock", line[0] ? line : "starting");
    else if (state == CD_MARKER_UNKNOWN)
        snprintf(out, len, "%s; in progress or abandoned: the file system keeps no locks to tell", l);
    else if (state == CD_MARKER_ABANDONED && strstr(line, CD_MERGE_MARKER_TAG))  // no run: nothing to resume
        snprintf(out, len,
                 "abandoned: %s; no process holds the run's lock: the merge was killed or crashed "
                 "(remove the directory and merge again)",
                 l);
    else if (state == CD_MARKER_ABANDONED)
        snprintf(out, len,
                 "abandoned: %s; no process holds the run's lock: its runner was killed or crashed "
                 "(cdlab run --resume continues it)",
                 l);
    else
        snprintf(out, len, "%s", l);
}

int cd_run_dir_check(const char *dir, char *err, size_t len)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, len, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, len, "not a directory: expected a run directory");
        return -1;
    }
    char path[4600], line[600], what[1000];
    int state = cd_run_marker_state(dir, line, sizeof line);
    if (state < 0) {
        snprintf(err, len, "incomplete run (" CD_RUN_INCOMPLETE ": %s)", strerror(errno));
        return -1;
    }
    if (state != CD_MARKER_NONE) {
        cd_run_marker_describe(state, line, what, sizeof what);
        snprintf(err, len, "incomplete run (%s)", what);
        return -1;
    }
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    cd_text_file tf;
    char why[600];
    if (cd_text_open(&tf, path, why, sizeof why)) {  // bounded: no device, no endless line
        int e = errno;
        if (e != ENOENT)
            snprintf(err, len, "%s", why);
        else if (exists(dir, "meta.ini.part") || exists(dir, "frames.csv.part") || exists(dir, "summary.csv.part"))
            snprintf(err, len, "incomplete run (no meta.ini, only .part files)");
        else
            snprintf(err, len, "no meta.ini: not a run directory");
        return -1;
    }
    // [run] complete and status (runs from before the INCOMPLETE marker said it only here).
    char complete[32] = "", status[64] = "";
    int in_run = 0;
    char *text;
    while (cd_text_getline(&tf, &text) >= 0) {
        snprintf(line, sizeof line, "%.*s", (int)strcspn(text, "\r\n"), text);
        if (line[0] == '[') in_run = strcmp(line, "[run]") == 0;
        if (!in_run) continue;
        if (strncmp(line, "complete = ", 11) == 0) snprintf(complete, sizeof complete, "%.31s", line + 11);
        if (strncmp(line, "status = ", 9) == 0) snprintf(status, sizeof status, "%.63s", line + 9);
    }
    cd_text_close(&tf);
    if (strcmp(complete, "true") != 0) {
        snprintf(err, len, "incomplete run (meta.ini: complete = %s, status = %s)", complete[0] ? complete : "(none)",
                 status[0] ? status : "(none)");
        return -1;
    }
    static const char *const files[] = {"frames.csv", "summary.csv", "config.ini"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i)
        if (!exists(dir, files[i])) {
            snprintf(err, len, "incomplete run (no %s)", files[i]);
            return -1;
        }
    return 0;
}
