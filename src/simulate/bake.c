// SPDX-License-Identifier: MIT
// Simulated scenes baked into cdlab traces and cached by their parameters (cd_simulate.h).
#include "cd_simulate.h"
#include "cd_core.h"
#include "cd_sha256.h"
#include "cd_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// The version of what simulate.cpp computes: raise it with every change to its scenes, so that
// no cache serves a trace of the old code.
#define SIM_VERSION 3

void cd_sim_cache_key(const cd_sim_params *p, char key[17])
{
    char text[512];
    snprintf(text, sizeof text, "cdlab simulate %d|%s|%u|%llu|%u|%.17g|%.17g|%.17g|%llu|bullet %d", SIM_VERSION,
             cd_sim_kind_names[p->kind], p->objects, (unsigned long long)p->frames, p->steps, p->size, p->size_ratio,
             p->density, (unsigned long long)p->seed, cd_sim_bullet_version());
    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64
    for (const char *c = text; *c; ++c) h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    snprintf(key, 17, "%016llx", (unsigned long long)h);
}

typedef struct bake_ctx {
    cd_trace_writer *w;
    int failed;  // the writer's failure (cd_trace.h), 0 while it writes
    cd_posef *pose;
    const float *half;
    const cd_sim_params *p;
    int progress;
    uint64_t start_ns, shown_ns;
    char *err;
    size_t err_len;
} bake_ctx;

static int on_frame(void *arg, uint64_t frame, const float *raw)
{
    bake_ctx *b = arg;
    for (uint32_t i = 0; i < b->p->objects; ++i) {
        const float *r = raw + 7 * (size_t)i;
        b->pose[i] = (cd_posef){
            {r[4], r[5], r[6]}, {r[0], r[1], r[2], r[3]}, {b->half[3 * i], b->half[3 * i + 1], b->half[3 * i + 2]}};
    }
    if ((b->failed = cd_trace_writer_frame(b->w, b->pose, b->err, b->err_len)) != 0) return -1;
    uint64_t now = cd_now_ns();
    if (b->progress && (now - b->shown_ns > 1000000000ULL || frame + 1 == b->p->frames)) {
        b->shown_ns = now;
        fprintf(stderr, "simulate: %s, %u boxes: frame %llu of %llu baked (%.1f s)\n", cd_sim_kind_names[b->p->kind],
                b->p->objects, (unsigned long long)frame + 1, (unsigned long long)b->p->frames,
                (double)(now - b->start_ns) * 1e-9);
    }
    return 0;
}

// The SHA-256 that the sidecar side records (a sha256sum line: 64 hex digits, two spaces, the
// trace's name) into want. 0, or -1 with why not (of the trace, which the caller names).
static int read_sidecar(const char *side, char want[65], char *why, size_t len)
{
    FILE *f = fopen(side, "r");
    if (!f) {
        if (errno == ENOENT)
            snprintf(why, len,
                     "no .sha256 sidecar records its SHA-256 (its bake was cut short, or an older cdlab "
                     "baked it)");
        else
            snprintf(why, len, "its .sha256 sidecar cannot be read: %s", strerror(errno));
        return -1;
    }
    char line[160];
    int ok = fgets(line, sizeof line, f) != NULL && strspn(line, "0123456789abcdef") == 64 && line[64] == ' ';
    fclose(f);
    if (!ok) {
        snprintf(why, len, "its .sha256 sidecar holds no SHA-256 (expected a sha256sum line)");
        return -1;
    }
    memcpy(want, line, 64);
    want[64] = '\0';
    return 0;
}

// The last traces this process found whole: a trace is digested once per process while its file
// stays the same (inode, size, mtime and ctime: a write changes the ctime, which no call sets),
// not once per repeat; a point's process forked by the runner inherits what the runner found
// (cd_sim_cache_warm). A few entries, for sweeps over simulations in rounds; replaced in turn.
enum { CHECKED_TRACES = 8 };
static struct {
    char path[4096], sha256[65];
    struct stat st;
} checked[CHECKED_TRACES];
static unsigned checked_next;

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

// Remember c's trace, stat st, as found whole (in its own entry, or the next one in turn).
static void remember(const cd_sim_cached *c, const struct stat *st)
{
    unsigned k = 0;
    while (k < CHECKED_TRACES && strcmp(checked[k].path, c->path) != 0) ++k;
    if (k == CHECKED_TRACES) k = checked_next++ % CHECKED_TRACES;
    snprintf(checked[k].path, sizeof checked[k].path, "%s", c->path);
    memcpy(checked[k].sha256, c->sha256, sizeof checked[k].sha256);
    checked[k].st = *st;
}

// Whether this process found the trace at path (stat st) whole with SHA-256 want, and it stayed.
static int found_whole(const char *path, const char *want, const struct stat *st)
{
    for (unsigned k = 0; k < CHECKED_TRACES; ++k)
        if (strcmp(checked[k].path, path) == 0)
            return strcmp(checked[k].sha256, want) == 0 && same_file(&checked[k].st, st);
    return 0;
}

// Whether the trace at c->path (stat st) is the one its sidecar side records: 1 with c->sha256 and
// c->bytes set, or 0 with why not in why.
static int cached_whole(cd_sim_cached *c, const struct stat *st, const char *side, char *why, size_t len)
{
    char want[65], reason[200];
    if (!S_ISREG(st->st_mode)) {
        snprintf(why, len, "%s is not a regular file", c->path);
        return 0;
    }
    if (read_sidecar(side, want, reason, sizeof reason)) {
        snprintf(why, len, "%s: %s", c->path, reason);
        return 0;
    }
    if (found_whole(c->path, want, st)) {
        memcpy(c->sha256, want, sizeof c->sha256);
        c->bytes = (uint64_t)st->st_size;
        return 1;
    }
    int e = cd_sha256_file(c->path, c->sha256, &c->bytes);
    if (e) {
        snprintf(why, len, "%s: cannot read: %s", c->path, strerror(e));
        return 0;
    }
    if (strcmp(c->sha256, want) != 0) {
        snprintf(why, len,
                 "%s: SHA-256 %.16s..., %llu bytes, but its .sha256 sidecar records %.16s...: changed since "
                 "it was baked",
                 c->path, c->sha256, (unsigned long long)c->bytes, want);
        return 0;
    }
    remember(c, st);
    return 1;
}

// The trace writer's failure rc for the trace at path: -1 with why in err, where a refusal (which
// names no file) is prefixed with path, as a write error is.
static int writer_failed(int rc, const char *path, char *err, size_t err_len)
{
    if (rc == CD_TRACE_REFUSED) cd_trace_refusal_name(err, err_len, path, 0);
    return -1;
}

// Bake p into c->path (a temporary file renamed into place). 0, or -1 with why in err.
static int bake(const cd_sim_params *p, int progress, cd_sim_cached *c, char *err, size_t err_len)
{
    float *half = cd_alloc(3 * (size_t)p->objects * sizeof *half);
    // The half-extents are the simulation's first draws: a run with zero frames gives them.
    cd_sim_params first = *p;
    bake_ctx b = {.p = p, .progress = progress, .err = err, .err_len = err_len, .half = half};
    first.frames = 0;
    cd_sim_run(&first, half, on_frame, &b);
    int rc = cd_trace_writer_open(&b.w, c->path, p->objects, half, err, err_len);
    if (rc) {
        cd_free(half);
        return writer_failed(rc, c->path, err, err_len);
    }
    b.pose = cd_alloc((size_t)p->objects * sizeof *b.pose);
    b.start_ns = b.shown_ns = cd_now_ns();
    rc = cd_sim_run(p, half, on_frame, &b);
    cd_free(b.pose);
    cd_free(half);
    if (rc) {
        cd_trace_writer_abort(b.w);
        return writer_failed(b.failed, c->path, err, err_len);
    }
    rc = cd_trace_writer_close(b.w, NULL, NULL, err, err_len);
    return rc ? writer_failed(rc, c->path, err, err_len) : 0;
}

// The baked trace's SHA-256 into c and its sidecar side (a temporary file renamed into place). 0,
// or -1 with why in err.
static int write_sidecar(cd_sim_cached *c, const char *side, char *err, size_t err_len)
{
    int e = cd_sha256_file(c->path, c->sha256, &c->bytes);
    if (e) {
        snprintf(err, err_len, "%s: cannot read what was baked: %s", c->path, strerror(e));
        return -1;
    }
    // Written as every output (cd_file_out: fsynced before its rename, as the trace is; a failed
    // write shows in the stream's error flag, which the commit reports).
    const char *name = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
    char why[256];
    cd_file_out o;
    int rc = cd_file_out_open(&o, side, why, sizeof why);
    if (rc == 0) fprintf(o.f, "%s  %s\n", c->sha256, name), rc = cd_file_out_commit(&o, why, sizeof why);
    if (rc) {
        int n = snprintf(err, err_len, "%s: ", side);  // then why: "cannot write: <cause>"
        if (n >= 0 && (size_t)n < err_len) snprintf(err + n, err_len - (size_t)n, "%s", why);
        return -1;
    }
    struct stat st;
    if (stat(c->path, &st) == 0) remember(c, &st);
    return 0;
}

// Processes that want one trace (the shards of a sweep started together, two runs of a config)
// take turns on a lock file beside it, held while the trace is checked or baked: the first bakes,
// the others wait and then find it whole, where each baked it before (and one that looked between
// another's rename of the trace and of its sidecar took the trace for a damaged one and baked it
// again, with a warning). The lock goes with its process, however that ends. The descriptor, or
// -1 where the lock file cannot be made (a cache that cannot be written: the check goes on without
// it, and a bake fails there anyway).
// With wait = 0, -2 at once where another process holds the lock.
static int lock_entry(const char *trace, int progress, int wait)
{
    char lock[4200];
    snprintf(lock, sizeof lock, "%s.lock", trace);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (!wait) {
            close(fd);
            return -2;
        }
        if (progress) fprintf(stderr, "simulate: waiting for another process that checks or bakes %s\n", trace);
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {}
    }
    return fd;
}

// cd_sim_bake_cached with c->path set and its lock held.
static int bake_cached_locked(const cd_sim_params *p, const char *dir, int progress, cd_sim_cached *c, char *err,
                              size_t err_len)
{
    char side[4200];
    snprintf(side, sizeof side, "%s.sha256", c->path);
    struct stat st;
    if (stat(c->path, &st) == 0) {
        if (cached_whole(c, &st, side, c->rebaked, sizeof c->rebaked)) return 0;
        // A regular file is replaced by the bake's rename; anything else must go first.
        if (!S_ISREG(st.st_mode) && remove(c->path) != 0) {
            snprintf(err, err_len, "%s, and it cannot be removed to bake it again: %s; remove it and run again",
                     c->rebaked, strerror(errno));
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(err, err_len, "%s: %s", c->path, strerror(errno));
        return -1;
    }
    // The old sidecar goes first: a bake cut short leaves a trace without one, which is refused.
    char why[4400] = "";
    int bad = remove(side) != 0 && errno != ENOENT;
    if (bad) snprintf(why, sizeof why, "%s: cannot remove: %s", side, strerror(errno));
    if (bad || bake(p, progress, c, why, sizeof why) || write_sidecar(c, side, why, sizeof why)) {
        if (c->rebaked[0])
            snprintf(err, err_len, "%s, and baking it again failed: %s (delete %s and %s, or make %s writable)",
                     c->rebaked, why, c->path, side, dir);
        else
            snprintf(err, err_len, "%s", why);
        return -1;
    }
    c->baked = 1;
    return 0;
}

// p's trace under dir into c->path: 0, or -1 when it is too long (room for ".sha256" and more).
static int entry_path(const cd_sim_params *p, const char *dir, cd_sim_cached *c)
{
    char key[17];
    cd_sim_cache_key(p, key);
    int n = snprintf(c->path, sizeof c->path, "%s/simulate-%s.trace", dir, key);
    return n < 0 || (size_t)n >= sizeof c->path - 16 ? -1 : 0;
}

void cd_sim_cache_warm(const cd_sim_params *p, const char *dir)
{
    cd_sim_cached c = {0};
    if (p->objects == 0 || entry_path(p, dir, &c)) return;  // cd_sim_bake_cached says why
    char side[4200];
    snprintf(side, sizeof side, "%s.sha256", c.path);
    // Never waits: the runner calls this before a point's process starts, where a stop signal
    // has no process to end; a trace another process is baking is left to the point's process,
    // which waits for it (and which the runner's second signal kills).
    int lock = lock_entry(c.path, 0, 0);
    if (lock == -2) return;
    struct stat st;
    if (stat(c.path, &st) == 0) (void)cached_whole(&c, &st, side, c.rebaked, sizeof c.rebaked);
    if (lock >= 0) close(lock);
}

int cd_sim_bake_cached(const cd_sim_params *p, const char *dir, int progress, cd_sim_cached *c, char *err,
                       size_t err_len)
{
    *c = (cd_sim_cached){0};
    if (p->objects == 0) {  // a trace holds at least one object; an empty scene needs no simulation
        snprintf(err, err_len, "no boxes to simulate: a simulated scene's trace holds 1 box or more");
        return -1;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create the simulation cache: %s", dir, strerror(errno));
        return -1;
    }
    if (entry_path(p, dir, c)) {
        snprintf(err, err_len, "%s: path too long for the simulation cache", dir);
        return -1;
    }
    int lock = lock_entry(c->path, progress, 1);
    int rc = bake_cached_locked(p, dir, progress, c, err, err_len);
    if (lock >= 0) close(lock);  // and with it the lock
    return rc;
}
