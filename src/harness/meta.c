// SPDX-License-Identifier: MIT
// meta.ini, the provenance sidecar of a run: build, source, machine, pinning, counters, config
// digest, plan and outcome, written as meta.ini.part (the runner renames it once the run is
// complete); and cd_run_dir_check, which every reader of a run directory asks first.
#include "build_commit.h"
#include "build_flags.h"
#include "cd_build_config.h"
#include "cd_core.h"
#include "cd_harness.h"
#include "run_private.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", n ? ", " : "",
                              r->counters.names[i]);
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

int cd_meta_write(const cd_run *r)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/meta.ini.part", r->dir);
    FILE *f = fopen(path, "w");
    if (!f) return errno ? errno : EIO;
    errno = 0;  // so that after a failed write it is that write's
    const cd_config *c = r->cfg;
    char cpu[256], topo[512];
    cd_cpu_model(cpu, sizeof cpu);
    cd_topology_summary(topo, sizeof topo);

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
    if (r->points_resumed) {  // --resume
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

    fprintf(f, "\n[machine]\n");
    kv(f, "cpu_model", "%s", cpu);
    kv(f, "cpus_online", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    const char *simd_switch = cd_cpu_simd_switch();
    kv(f, "simd", "%s%s%s%s", cd_cpu_simd(), simd_switch ? " (" : "", simd_switch ? simd_switch : "",
       simd_switch ? " set)" : "");
    kv(f, "topology", "%s", topo);

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
    int e = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (!e && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) e = errno;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e;
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

// A marker that still says "run in progress" outlives a runner that was killed: say so when the
// runner was on this host and its process is gone.
static void progress_hint(const char *line, char *hint, size_t len)
{
    char date[64], host[256], here[256];
    long pid;
    hint[0] = '\0';
    if (sscanf(line, "run in progress: started %63s by pid %ld on %255s", date, &pid, host) != 3 || pid <= 0) return;
    if (gethostname(here, sizeof here) != 0) return;
    here[sizeof here - 1] = '\0';
    if (strcmp(host, here) == 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        snprintf(hint, len, "; no such process now: it was killed or crashed");
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
    char path[4600], line[600];
    snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, dir);
    FILE *f = fopen(path, "r");
    if (f || errno != ENOENT) {
        if (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            char hint[80];
            progress_hint(line, hint, sizeof hint);
            snprintf(err, len, "incomplete run (%s%s)", line, hint);
        } else if (f) {
            snprintf(err, len, "incomplete run (" CD_RUN_INCOMPLETE " is empty)");
        } else {
            snprintf(err, len, "incomplete run (" CD_RUN_INCOMPLETE ": %s)", strerror(errno));
        }
        if (f) fclose(f);
        return -1;
    }
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    f = fopen(path, "r");
    if (!f) {
        int e = errno;
        if (e != ENOENT)
            snprintf(err, len, "meta.ini: %s", strerror(e));
        else if (exists(dir, "meta.ini.part") || exists(dir, "frames.csv.part") || exists(dir, "summary.csv.part"))
            snprintf(err, len, "incomplete run (no meta.ini, only .part files)");
        else
            snprintf(err, len, "no meta.ini: not a run directory");
        return -1;
    }
    // [run] complete and status (runs from before the INCOMPLETE marker said it only here).
    char complete[32] = "", status[64] = "";
    int in_run = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '[') in_run = strcmp(line, "[run]") == 0;
        if (!in_run) continue;
        if (strncmp(line, "complete = ", 11) == 0) snprintf(complete, sizeof complete, "%.31s", line + 11);
        if (strncmp(line, "status = ", 9) == 0) snprintf(status, sizeof status, "%.63s", line + 9);
    }
    fclose(f);
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
