// SPDX-License-Identifier: MIT
// Frame benchmark (not a test): median ms per frame — motion step + broad phase + narrow step —
// for every registered method on the standard cube scene at several N.
// Usage: bench_frame [-n N[,N...]] [-m method[,method...]] [-f frames] [-w warmup] [-t threads]
// [-r reorder] [-M moving] (threads > 1: the OpenMP frame; cpu_ms then counts the main thread only, read
// frame_ms; reorder: frames between the scene's spatial reorders, 0 = never; moving: the fraction
// of the cubes that move, as [scene] moving). mean_ms is the mean
// frame, which counts the reorders' frames that the median leaves out.
// Defaults: N = 1000,10000,100000; every method except naive above 2000 cubes; 30 frames.
#include "cd_registry.h"
#include "cd_harness_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

// Median through the harness's one statistics routine.
static double median(const double *v, int n) { return cd_stats_compute(v, (size_t)n).median; }

// The next item of the comma-separated list at *p (its start; its length in *len), moving *p past
// it; NULL at the end.
static const char *next_item(const char **p, size_t *len)
{
    if (!*p || !**p) return NULL;
    const char *s = *p, *e = strchr(s, ',');
    *len = e ? (size_t)(e - s) : strlen(s);
    *p = e ? e + 1 : s + *len;
    return s;
}

static int listed(const char *list, const char *name)
{
    if (!list) return 1;
    size_t len = strlen(name), l;
    for (const char *s; (s = next_item(&list, &l));)
        if (l == len && strncmp(s, name, l) == 0) return 1;
    return 0;
}

static void run(const cd_broad_method *m, uint32_t n, int frames, int warmup, int threads, uint32_t reorder,
                double moving)
{
    cd_scene_params sp = cd_scene_params_default();
    sp.cubes = n;
    sp.reorder = reorder;
    sp.still = 1.0 - moving;
    cd_scene *s = cd_scene_create(&sp);
    cd_broad *b = cd_broad_create(m, NULL, threads, s);
    cd_pair_list out = {0};
    cd_broad_stats st;
    double *motion = cd_alloc((size_t)frames * sizeof *motion), *broad = cd_alloc((size_t)frames * sizeof *broad);
    double *narrow = cd_alloc((size_t)frames * sizeof *narrow), *total = cd_alloc((size_t)frames * sizeof *total);
    double *cpu = cd_alloc((size_t)frames * sizeof *cpu);
    for (int f = -warmup; f < frames; ++f) {
        uint64_t c0 = cd_thread_cpu_ns(), t0 = cd_now_ns();
        cd_scene_step_threads(s, threads);
        uint64_t t1 = cd_now_ns();
        cd_frame_times t;
        cd_broad_frame(b, s, &out, &st, &t);
        uint64_t t2 = cd_now_ns(), c2 = cd_thread_cpu_ns();
        if (f < 0) continue;
        motion[f] = (double)(t1 - t0) * 1e-6;
        broad[f] = t.broad_ms;
        narrow[f] = t.narrow_ms;
        total[f] = (double)(t2 - t0) * 1e-6;
        cpu[f] = (double)(c2 - c0) * 1e-6;
    }
    double scene_bytes = (double)cd_scene_bytes(s);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double med = median(total, frames), mean = cd_stats_compute(total, (size_t)frames).mean;
    printf("%-16s %8u %9.3f %9.3f %9.3f %9.3f %9.3f %8.1f %10llu %10llu %8.1f %8.1f %8.0f %9.3f\n", m->name, n, med,
           median(cpu, frames), median(motion, frames), median(broad, frames), median(narrow, frames), 1000.0 / med,
           (unsigned long long)st.candidates, (unsigned long long)st.pairs, (double)st.bytes / n, scene_bytes / n,
           (double)ru.ru_maxrss * 1024.0 / n, mean);
    fflush(stdout);
    cd_free(motion), cd_free(broad), cd_free(narrow), cd_free(total), cd_free(cpu);
    cd_pair_list_free(&out);
    cd_broad_destroy(b);
    cd_scene_destroy(s);
}

_Static_assert(CD_SCENE_REORDER_DEFAULT == 64, "the usage text names the default");

int main(int argc, char **argv)
{
    const char *sizes = "1000,10000,100000", *methods = NULL;
    int frames = 30, warmup = 3, threads = 1;
    uint32_t reorder = CD_SCENE_REORDER_DEFAULT;
    double moving = 1.0;
    (void)cd_alloc_keep_freed();  // as the harness does: every repetition reuses its pages
    static const char usage[] =
        "usage: bench_frame [-n N,...] [-m method,...] [-f frames] [-w warmup] [-t threads] [-r reorder]\n"
        "                   [-M moving]\n"
        "Median ms per frame (motion + broad + narrow) per method and cube count on the standard scene.\n"
        "-r: frames between the scene's spatial reorders (0 = never). -M: fraction of the cubes that move.\n"
        "Defaults: -n 1000,10000,100000, every method (naive only up to 2000 cubes), -f 30, -w 3, -t 1,\n"
        "-r 64 (CD_SCENE_REORDER_DEFAULT), -M 1.\n";
    for (int i = 1; i < argc; i += 2) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_frame: %s needs a value\n%s", argv[i], usage);
            return 2;
        }
        if (strcmp(argv[i], "-n") == 0)
            sizes = argv[i + 1];
        else if (strcmp(argv[i], "-m") == 0)
            methods = argv[i + 1];
        else if (strcmp(argv[i], "-f") == 0)
            frames = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-w") == 0)
            warmup = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-r") == 0)
            reorder = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "-M") == 0)
            moving = atof(argv[i + 1]);
        else {
            fprintf(stderr, "bench_frame: unknown option %s\n%s", argv[i], usage);
            return 2;
        }
    }
    // Every name in -m must be a registered method (a typo would otherwise print nothing).
    size_t l;
    for (const char *p = methods, *s; (s = next_item(&p, &l));) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(l < sizeof name ? l : sizeof name - 1), s);
        if (!cd_registry_find(name)) {
            fprintf(stderr, "bench_frame: unknown method '%s' (see `cdlab methods`)\n", name);
            return 2;
        }
    }
    if (frames < 1) frames = 1;
    if (!(moving >= 0.0 && moving <= 1.0)) {
        fprintf(stderr, "bench_frame: -M must lie in [0, 1]\n");
        return 2;
    }
    printf("%-16s %8s %9s %9s %9s %9s %9s %8s %10s %10s %8s %8s %8s %9s\n", "method", "cubes", "frame_ms", "cpu_ms",
           "motion_ms", "broad_ms", "narrow_ms", "fps", "candidates", "pairs", "B/obj", "scnB/obj", "rssB/obj",
           "mean_ms");
    size_t count;
    const cd_broad_method *const *all = cd_registry_methods(&count);
    for (const char *p = sizes; *p;) {
        uint32_t n = (uint32_t)strtoul(p, NULL, 10);
        for (size_t k = 0; k < count; ++k) {
            int naive = strcmp(all[k]->name, "naive") == 0;
            if (methods ? !listed(methods, all[k]->name) : (naive && n > 2000)) continue;
            run(all[k], n, frames, warmup, threads, reorder, moving);
        }
        const char *e = strchr(p, ',');
        if (!e) break;
        p = e + 1;
    }
    return 0;
}
