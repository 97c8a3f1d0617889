// SPDX-License-Identifier: MIT
// Simulated scenes baked into cdlab traces and cached by their parameters (cd_simulate.h).
#include "cd_simulate.h"
#include "cd_core.h"
#include "cd_trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
    if (cd_trace_writer_frame(b->w, b->pose, b->err, b->err_len)) return -1;
    uint64_t now = cd_now_ns();
    if (b->progress && (now - b->shown_ns > 1000000000ULL || frame + 1 == b->p->frames)) {
        b->shown_ns = now;
        fprintf(stderr, "simulate: %s, %u boxes: frame %llu of %llu baked (%.1f s)\n", cd_sim_kind_names[b->p->kind],
                b->p->objects, (unsigned long long)frame + 1, (unsigned long long)b->p->frames,
                (double)(now - b->start_ns) * 1e-9);
    }
    return 0;
}

int cd_sim_bake_cached(const cd_sim_params *p, const char *dir, int progress, char *path, size_t path_len, int *baked,
                       char *err, size_t err_len)
{
    char key[17];
    cd_sim_cache_key(p, key);
    *baked = 0;
    if (p->objects == 0) {  // a trace holds at least one object; an empty scene needs no simulation
        snprintf(err, err_len, "no boxes to simulate: a simulated scene's trace holds 1 box or more");
        return -1;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create the simulation cache: %s", dir, strerror(errno));
        return -1;
    }
    int n = snprintf(path, path_len, "%s/simulate-%s.trace", dir, key);
    if (n < 0 || (size_t)n >= path_len) {
        snprintf(err, err_len, "%s: path too long for the simulation cache", dir);
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return 0;  // renamed into place whole
    float *half = cd_alloc(3 * (size_t)p->objects * sizeof *half);
    // The half-extents are the simulation's first draws: a run with zero frames gives them.
    cd_sim_params first = *p;
    bake_ctx b = {.p = p, .progress = progress, .err = err, .err_len = err_len, .half = half};
    first.frames = 0;
    cd_sim_run(&first, half, on_frame, &b);
    b.w = cd_trace_writer_open(path, p->objects, half, err, err_len);
    if (!b.w) {
        cd_free(half);
        return -1;
    }
    b.pose = cd_alloc((size_t)p->objects * sizeof *b.pose);
    b.start_ns = b.shown_ns = cd_now_ns();
    int rc = cd_sim_run(p, half, on_frame, &b);
    cd_free(b.pose);
    cd_free(half);
    if (rc) {
        cd_trace_writer_abort(b.w);
        return -1;
    }
    if (cd_trace_writer_close(b.w, NULL, NULL, err, err_len)) return -1;
    *baked = 1;
    return 0;
}
