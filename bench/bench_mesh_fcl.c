// SPDX-License-Identifier: MIT
// Mesh-hierarchy benchmark against FCL (not a test; built only with the `peers` feature): builds
// cdlab's hierarchies and FCL's BVHModel<OBB> and <OBBRSS> for the same normalised meshes, then
// queries the same seeded poses, interleaving the methods pose by pose so load drift hits all.
// Per pose and method: one cold query (after a 16 MiB buffer is written, which evicts L1/L2 of
// everything, and with cdlab's per-query caches invalid as for any new pose), then the fastest
// of `repeats` warm queries. Prints medians over poses and the FCL/cdlab ratios. Times are the
// thread's CPU time: on a shared, loaded machine it is steadier than the wall clock (a preempted
// single cold query would otherwise count the other job's slice).
// Freed memory stays in the process (cd_alloc_keep_freed) unless -k 0: then a build whose arrays
// cross glibc's mmap threshold gets fresh pages, zeroed by the kernel, on every repetition.
// Usage: bench_mesh_fcl [-a spec] [-b spec] [-d distance] [-p poses] [-r repeats] [-B builds]
//                       [-v variant[,variant...]] [-s seed] [-k 0|1]
// Defaults: icosphere:75000, torus:52000, d = 1.0, 30 poses, 5 repeats, 5 builds, obb, seed 7, -k 1.
#include "cd_bvh.h"
#include "cd_harness_cli.h"
#include "fcl_mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_METHODS 8

// Median through the harness's one statistics routine.
static double median(const double *v, int n) { return cd_stats_compute(v, (size_t)n).median; }

// Evicts L1 and L2 (4 MiB per core here) before a cold query; the same for every method.
static void flush_caches(void)
{
    static volatile unsigned char *buf;
    enum { BYTES = 16u << 20 };
    if (!buf) buf = cd_alloc_zero(BYTES, 1);
    for (size_t i = 0; i < BYTES; i += 64) buf[i] = (unsigned char)(buf[i] + 1);
}

typedef struct method {
    char name[48];
    int fcl;                   // 0: cdlab variant; else 1 + enum cd_fcl_bv
    cd_bvh_plan plan;
    cd_bvh *ha, *hb;
    cd_fcl_mesh *fa, *fb;
    double *build_ms;          // per build round
    double *q[2][2];           // [mode: 0 first hit, 1 all pairs][0 cold, 1 warm] per pose, µs
    double pairs;              // all-pairs count summed over poses
} method;

static void load(const char *spec, cd_mesh *m)
{
    char err[512];
    if (cd_mesh_from_spec(spec, m, err, sizeof err) != 0) {
        fprintf(stderr, "bench_mesh_fcl: %s\n", err);
        exit(2);
    }
    cd_mesh_normalize(m);
}

static void free_hier(method *me)
{
    cd_bvh_destroy(me->ha), cd_bvh_destroy(me->hb);
    cd_fcl_mesh_destroy(me->fa), cd_fcl_mesh_destroy(me->fb);
    me->ha = me->hb = NULL, me->fa = me->fb = NULL;
}

static double build(method *me, const cd_mesh *a, const cd_mesh *b)
{
    free_hier(me);
    uint64_t t0 = cd_thread_cpu_ns();
    if (me->fcl) {
        enum cd_fcl_bv bv = (enum cd_fcl_bv)(me->fcl - 1);
        me->fa = cd_fcl_mesh_build(bv, &a->verts[0].x, a->nverts, &a->tris[0][0], a->ntris);
        me->fb = cd_fcl_mesh_build(bv, &b->verts[0].x, b->nverts, &b->tris[0][0], b->ntris);
    } else {
        me->ha = cd_bvh_build(a, &me->plan, 1);
        me->hb = cd_bvh_build(b, &me->plan, 1);
    }
    return (double)(cd_thread_cpu_ns() - t0) * 1e-6;
}

static double query(method *me, const cd_pose *p, int all, cd_bvh_result *res, uint64_t *pairs)
{
    uint64_t t0 = cd_thread_cpu_ns();
    if (me->fcl) {
        double q[4] = {p->q.w, p->q.x, p->q.y, p->q.z}, t[3] = {p->t.x, p->t.y, p->t.z};
        *pairs = cd_fcl_mesh_collide(me->fa, me->fb, q, t, all ? UINT64_MAX / 2 : 1);
    } else {
        cd_bvh_query(me->ha, me->hb, p, all ? CD_BVH_ALL_PAIRS : CD_BVH_FIRST_HIT, res);
        *pairs = res->count;
    }
    return (double)(cd_thread_cpu_ns() - t0) * 1e-3;
}

int main(int argc, char **argv)
{
    const char *sa = "icosphere:75000", *sb = "torus:52000", *variants = "obb";
    double dist = 1.0;
    int poses = 30, repeats = 5, builds = 5;
    uint64_t seed = 7;
    int keep_freed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-a")) sa = argv[i + 1];
        else if (!strcmp(argv[i], "-b")) sb = argv[i + 1];
        else if (!strcmp(argv[i], "-d")) dist = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-p")) poses = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) repeats = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-B")) builds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-v")) variants = argv[i + 1];
        else if (!strcmp(argv[i], "-s")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-k")) keep_freed = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: bench_mesh_fcl [-a spec] [-b spec] [-d dist] [-p poses] [-r repeats] [-B builds] "
                            "[-v variants] [-s seed] [-k 0|1]\n");
            return 2;
        }
    }
    if (poses < 1 || repeats < 1 || builds < 1) return fprintf(stderr, "bench_mesh_fcl: counts must be >= 1\n"), 2;
    if (keep_freed && cd_alloc_keep_freed() != 0) fprintf(stderr, "bench_mesh_fcl: cannot keep freed memory here\n");
    cd_mesh a = {0}, b = {0};
    load(sa, &a), load(sb, &b);
    method ms[MAX_METHODS];
    int n = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", variants);
    for (char *tok = strtok(list, ","); tok && n < MAX_METHODS - 2; tok = strtok(NULL, ",")) {
        const cd_bvh_variant *v = cd_bvh_variant_find(tok);
        if (!v) return fprintf(stderr, "bench_mesh_fcl: unknown variant '%s'\n", tok), 2;
        ms[n] = (method){0};
        snprintf(ms[n].name, sizeof ms[n].name, "cdlab %s", v->name);
        ms[n++].plan = cd_bvh_variant_plan(v, NULL);
    }
    ms[n] = (method){0}, snprintf(ms[n].name, sizeof ms[n].name, "FCL OBB"), ms[n++].fcl = 1 + CD_FCL_OBB;
    ms[n] = (method){0}, snprintf(ms[n].name, sizeof ms[n].name, "FCL OBBRSS"), ms[n++].fcl = 1 + CD_FCL_OBBRSS;
    for (int k = 0; k < n; ++k) {
        ms[k].build_ms = cd_alloc(sizeof(double) * (size_t)builds);
        for (int m = 0; m < 2; ++m)
            for (int c = 0; c < 2; ++c) ms[k].q[m][c] = cd_alloc(sizeof(double) * (size_t)poses);
    }
    printf("# %s (%u tris) + %s (%u tris), d = %g, %d poses, %d warm repeats, %d builds, seed %llu, freed memory %s\n",
           sa, a.ntris, sb, b.ntris, dist, poses, repeats, builds, (unsigned long long)seed,
           keep_freed ? "kept" : "returned");
    for (int r = 0; r < builds; ++r)  // interleaved: every method once per round
        for (int k = 0; k < n; ++k) ms[k].build_ms[r] = build(&ms[k], &a, &b);
    cd_pose *ps = cd_alloc(sizeof *ps * (size_t)poses);
    cd_poses_generate(seed, dist, (size_t)poses, ps);
    cd_bvh_result res = {0};
    uint64_t pairs;
    for (int p = 0; p < poses; ++p)
        for (int mode = 0; mode < 2; ++mode) {
            for (int k = 0; k < n; ++k) {
                flush_caches();
                ms[k].q[mode][0][p] = query(&ms[k], &ps[p], mode, &res, &pairs);
                if (mode) ms[k].pairs += (double)pairs;
            }
            for (int k = 0; k < n; ++k) ms[k].q[mode][1][p] = INFINITY;
            for (int r = 0; r < repeats; ++r)
                for (int k = 0; k < n; ++k) {
                    double us = query(&ms[k], &ps[p], mode, &res, &pairs);
                    if (us < ms[k].q[mode][1][p]) ms[k].q[mode][1][p] = us;
                }
        }
    double med[MAX_METHODS][5];
    for (int k = 0; k < n; ++k) {
        med[k][0] = median(ms[k].build_ms, builds);
        for (int m = 0; m < 2; ++m)
            for (int c = 0; c < 2; ++c) med[k][1 + 2 * m + c] = median(ms[k].q[m][c], poses);
    }
    printf("| method | build ms (both) | first hit µs cold | first hit µs warm | all pairs µs cold | all pairs µs warm "
           "| pairs/pose |\n|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; ++k)
        printf("| %s | %.1f | %.1f | %.1f | %.0f | %.0f | %.1f |\n", ms[k].name, med[k][0], med[k][1], med[k][2], med[k][3],
               med[k][4], ms[k].pairs / poses);
    printf("\nRatios FCL OBB / cdlab (medians; > 1: cdlab faster)\n| method | build | first hit cold | first hit warm "
           "| all pairs cold | all pairs warm |\n|---|---|---|---|---|---|\n");
    const int fcl_obb = n - 2;
    for (int k = 0; k < n - 2; ++k) {
        printf("| %s |", ms[k].name);
        for (int c = 0; c < 5; ++c) printf(" %.2f |", med[fcl_obb][c] / med[k][c]);
        printf("\n");
    }
    for (int k = 0; k < n; ++k) {
        free_hier(&ms[k]);
        cd_free(ms[k].build_ms);
        for (int m = 0; m < 2; ++m)
            for (int c = 0; c < 2; ++c) cd_free(ms[k].q[m][c]);
    }
    cd_bvh_result_free(&res);
    cd_free(ps);
    cd_mesh_free(&a), cd_mesh_free(&b);
    return 0;
}
