// SPDX-License-Identifier: MIT
// Narrow-step benchmark of a body scene (not a test): records the hierarchy queries of `frames`
// frames of a moving body scene (the pairs of bodies whose boxes overlap, exact test, the
// lower-numbered body as A, as the bodies kind's narrow step asks them), then replays them in
// blocks, interleaving the hierarchy variants and the traversal's builds (baseline, and AVX-512
// where the CPU runs it) block by block, so the load of a shared machine drifts over all of them
// alike. Per variant and build: the fastest block per frame, ns per query, and the median over
// the blocks of each block's time over the first row's time in the same block, which resolves
// differences of one or two percent where run-to-run medians of `cdlab run` vary by ten. Thread
// CPU time. The counters (pairs, volume and triangle tests) of every build must be equal; the
// program exits 1 otherwise.
// Usage: bench_bodies_narrow [-n bodies] [-m mesh[,mesh...]] [-d density] [-f frames] [-B blocks]
//                            [-v variant[,variant...]] [-a]
// Defaults: 1 000 bodies of icosphere:2000, torus:2000, noisy_sphere:2000, density 0.05, 30
// frames, 15 blocks, obb and hybrid:1:0; -a: all_pairs instead of first_hit. A variant is a name
// of `cdlab methods`' hierarchy table, or hybrid:X:Y (hybrid_x = X, hybrid_y = Y).
#include "cd_bodies.h"
#include "cd_harness_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 8
#define MAX_BLOCKS 256

typedef struct query {
    cd_pose pose;
    double scale;
    uint32_t shape_a, shape_b;
} query;

typedef struct row {
    char name[40];
    cd_bodies *bodies;
    cd_bvh_isa isa;
    double ns[MAX_BLOCKS];
    uint64_t pairs, bv, tri;
} row;

// The queries of frames frames of b's scene, in the narrow step's orientation (A the lower body).
static query *record(cd_bodies *b, int frames, size_t *n)
{
    query *q = NULL;
    size_t cap = 0;
    *n = 0;
    for (int f = 0; f < frames; ++f) {
        cd_scene_step(b->scene);
        const cd_scene *s = b->scene;
        for (uint32_t i = 0; i < s->count; ++i)
            for (uint32_t j = i + 1; j < s->count; ++j) {
                uint32_t x = i, y = j;
                if (cd_scene_ident(s, x) > cd_scene_ident(s, y)) x = j, y = i;
                if (!cd_cube_pair_overlap(s, x, y)) continue;
                if (*n == cap) q = cd_realloc(q, (cap = 2 * cap + 1024) * sizeof *q);
                q[*n].pose = cd_bodies_relative_pose(b, x, y, &q[*n].scale);
                q[*n].shape_a = b->shape_of[cd_scene_ident(s, x)], q[*n].shape_b = b->shape_of[cd_scene_ident(s, y)];
                ++*n;
            }
    }
    return q;
}

// The scene with variant spec's hierarchies, or NULL (message printed).
static cd_bodies *bodies_for(const char *spec, cd_bodies_params p)
{
    char name[40];
    int x = -1, y = -1;
    snprintf(name, sizeof name, "%s", spec);
    char *colon = strchr(name, ':');
    if (colon) *colon = 0, sscanf(colon + 1, "%d:%d", &x, &y);
    const cd_bvh_variant *v = cd_bvh_variant_find(name);
    if (!v || (colon && (x < 0 || y < 0))) {
        fprintf(stderr, "bench_bodies_narrow: unknown variant '%s'\n", spec);
        return NULL;
    }
    cd_param_settings set = {0};
    if (colon) cd_param_settings_put(&set, "hybrid_x", "%d", x), cd_param_settings_put(&set, "hybrid_y", "%d", y);
    p.plan = cd_bvh_variant_plan(v, &set);
    char err[256];
    cd_bodies *b = cd_bodies_create(&p, err, sizeof err);
    if (!b) fprintf(stderr, "bench_bodies_narrow: %s\n", err);
    return b;
}

// One block of row r: every query once; the counters are kept.
static void replay(row *r, int block, const query *q, size_t n, cd_bvh_mode mode, cd_bvh_result *res)
{
    uint64_t pairs = 0, bv = 0, tri = 0, t0 = cd_thread_cpu_ns();
    for (size_t k = 0; k < n; ++k) {
        const cd_bvh *a = r->bodies->shapes[q[k].shape_a].bvh, *b = r->bodies->shapes[q[k].shape_b].bvh;
        cd_bvh_query_isa(r->isa, a, b, &q[k].pose, q[k].scale, mode, res);
        pairs += res->count, bv += cd_bvh_stats_bv_total(&res->stats), tri += res->stats.tri_tests;
    }
    r->ns[block] = (double)(cd_thread_cpu_ns() - t0);
    r->pairs = pairs, r->bv = bv, r->tri = tri;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

// The traversal builds by cd_bvh_isa.
static const char *const isa_names[CD_BVH_ISA_COUNT] = {"baseline", "avx512", "avx2"};

// Prints the table; 0 when every variant's builds agree on the counters.
static int report(const row *rows, int nrows, int blocks, int frames, size_t n)
{
    printf("| variant | build | best us/frame | ns/query | block / first row | pairs | bv tests | tri tests |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
    int rc = 0;
    for (int i = 0; i < nrows; ++i) {
        const row *r = &rows[i];
        double best = r->ns[0], ratio[MAX_BLOCKS];
        for (int k = 0; k < blocks; ++k) best = r->ns[k] < best ? r->ns[k] : best, ratio[k] = r->ns[k] / rows[0].ns[k];
        qsort(ratio, (size_t)blocks, sizeof *ratio, cmp_double);
        printf("| %s | %s | %.1f | %.1f | %.3f | %llu | %llu | %llu |\n", r->name,
               isa_names[r->isa], best * 1e-3 / frames, best / (double)n,
               ratio[blocks / 2], (unsigned long long)r->pairs, (unsigned long long)r->bv, (unsigned long long)r->tri);
        if (i && r->bodies == rows[i - 1].bodies &&
            (r->pairs != rows[i - 1].pairs || r->bv != rows[i - 1].bv || r->tri != rows[i - 1].tri)) {
            fprintf(stderr, "bench_bodies_narrow: %s: the builds' counters differ\n", r->name);
            rc = 1;
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    int frames = 30, blocks = 15, all = 0;
    uint32_t bodies = 1000;
    double density = 0.05;
    const char *meshes = "icosphere:2000,torus:2000,noisy_sphere:2000", *variants = "obb,hybrid:1:0";
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-a")) {
            all = 1;
            continue;
        }
        if (!v) goto usage;
        ++i;
        if (!strcmp(a, "-n"))
            bodies = (uint32_t)atol(v);
        else if (!strcmp(a, "-m"))
            meshes = v;
        else if (!strcmp(a, "-d"))
            density = atof(v);
        else if (!strcmp(a, "-f"))
            frames = atoi(v);
        else if (!strcmp(a, "-B"))
            blocks = atoi(v);
        else if (!strcmp(a, "-v"))
            variants = v;
        else
            goto usage;
    }
    if (frames < 1 || blocks < 1 || blocks > MAX_BLOCKS || bodies < 2 || density <= 0) goto usage;
    char mesh_buf[512], var_buf[512];
    snprintf(mesh_buf, sizeof mesh_buf, "%s", meshes), snprintf(var_buf, sizeof var_buf, "%s", variants);
    const char *mesh_list[16];
    uint32_t nmesh = 0;
    for (char *t = strtok(mesh_buf, ","); t && nmesh < 16; t = strtok(NULL, ",")) mesh_list[nmesh++] = t;
    cd_bodies_params p = {.meshes = mesh_list, .mesh_count = nmesh, .leaf_size = 1};
    p.scene = cd_scene_params_default();
    p.scene.cubes = bodies, p.scene.density = density;
    row rows[MAX_ROWS];
    int nrows = 0;
    for (char *t = strtok(var_buf, ","); t && nrows + CD_BVH_ISA_COUNT <= MAX_ROWS; t = strtok(NULL, ",")) {
        cd_bodies *b = bodies_for(t, p);
        if (!b) return 2;
        for (int isa = 0; isa < CD_BVH_ISA_COUNT; ++isa)
            if (cd_bvh_isa_runs((cd_bvh_isa)isa)) {
                rows[nrows] = (row){.bodies = b, .isa = (cd_bvh_isa)isa};
                snprintf(rows[nrows++].name, sizeof rows[0].name, "%s", t);
            }
    }
    // Every variant's scene has the same seed, so the same poses: one recording serves them all.
    size_t n;
    query *q = record(rows[0].bodies, frames, &n);
    cd_bvh_result res = {0};
    for (int k = 0; k < blocks; ++k)
        for (int i = 0; i < nrows; ++i) {  // odd blocks in reverse, so no row always runs first
            int r = (k & 1) ? nrows - 1 - i : i;
            replay(&rows[r], k, q, n, all ? CD_BVH_ALL_PAIRS : CD_BVH_FIRST_HIT, &res);
        }
    printf("%u bodies, %s, density %g, %d frames: %zu queries, %s, %d blocks\n\n", bodies, meshes, density, frames, n,
           all ? "all_pairs" : "first_hit", blocks);
    int rc = report(rows, nrows, blocks, frames, n);
    for (int i = 0; i < nrows; ++i)
        if (!i || rows[i].bodies != rows[i - 1].bodies) cd_bodies_destroy(rows[i].bodies);
    cd_bvh_result_free(&res);
    cd_free(q);
    return rc;
usage:
    fprintf(stderr, "usage: bench_bodies_narrow [-n bodies] [-m mesh,...] [-d density] [-f frames] [-B blocks] "
                    "[-v variant,...] [-a]\n");
    return 2;
}
