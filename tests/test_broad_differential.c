// SPDX-License-Identifier: MIT
// differential: every registered broad phase against naive over >= 10 000 seeded scenes, through
// the verify module (cd_verify.h says what the scenes hold and what each frame checks), which
// `cdlab verify` runs too. Every method of cd_registry_methods() is checked (peer methods,
// wrappers of FCL and Bullet, on every 4th scene); a new method needs no line here. cdlab's own
// methods are checked again on each narrower SIMD path this CPU has (<method>_avx2: what
// CDLAB_NO_AVX512 selects, grid_multi's AVX2 row map and the narrow step's eight-lane float
// filter; <method>_sse2: CDLAB_NO_AVX2, their SSE2 twins and the baseline SAT), on the same
// scenes against the same naive frames, so one process covers every path: on every scene for a
// method that chooses a SIMD path when created, on every 4th for one that runs its native code
// there (cd_verify_tally_set_path says why that is enough).
// The first part also replays traces (cd_verify_broad_traces): a recorded family scene, a Broadmark
// .aabbs file written here and, with Bullet, a short run of every simulation.
// CD_DIFF_SCENES overrides the scene count (sanitizer builds default to 1 500), CD_DIFF_METHODS=a,b
// limits the methods, CD_DIFF_PART=K/N checks the K-th of N equal runs of the scenes (meson runs
// the quarters two at a time).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_registry.h"
#include "cd_verify.h"
#include "test_util.h"
#include "cd_build_config.h"  // CD_SANITIZE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Sanitizer builds run ~10x slower: they default to SANITIZED_SCENES so `meson test` stays within
// its timeout there; release builds run the full DEFAULT_SCENES.
enum { DEFAULT_SCENES = 10000, SANITIZED_SCENES = 1500, MAX_METHODS = 128 };

static int sanitized(void) { return strcmp(CD_SANITIZE, "none") != 0 && CD_SANITIZE[0] != '\0'; }

static struct run {
    uint32_t scenes_requested, first, end;  // all scenes; this part's [first, end)
    int traces;                             // traces replayed (the first part), -1 when one failed
    cd_verify_totals totals;
    size_t methods;
    cd_verify_tally t[MAX_METHODS];
} run;

// CD_DIFF_PART=K/N (1 <= K <= N): the K-th of N equal runs of the scenes; the whole by default.
static void part_of_scenes(void)
{
    const char *env = getenv("CD_DIFF_SCENES");
    run.scenes_requested = env && *env   ? (uint32_t)strtoul(env, NULL, 10)
                           : sanitized() ? SANITIZED_SCENES
                                         : DEFAULT_SCENES;
    unsigned k = 1, n = 1;
    const char *part = getenv("CD_DIFF_PART");
    if (part && *part && (sscanf(part, "%u/%u", &k, &n) != 2 || k < 1 || k > n)) {
        fprintf(stderr, "CD_DIFF_PART=%s: expected K/N with 1 <= K <= N\n", part);
        exit(2);
    }
    run.first = (uint32_t)((uint64_t)run.scenes_requested * (k - 1) / n);
    run.end = (uint32_t)((uint64_t)run.scenes_requested * k / n);
}

static int sweep(void **state)
{
    (void)state;
    // One thread: meson runs two tests at once on the project's two-core machines.
    cd_verify_options o = {.scenes = run.end, .first = run.first, .seed = 0, .threads = 1};
    cd_verify_broad(run.t, run.methods, &o, &run.totals);
    if (run.first == 0) {
        char dir[] = "/tmp/cd_diff_traces_XXXXXX", err[600], cmd[64];
        assert_non_null(mkdtemp(dir));
        cd_verify_totals tt = {0};
        run.traces = cd_verify_broad_traces(run.t, run.methods, dir, &tt, err, sizeof err);
        if (run.traces < 0)
            print_message("# traces: %s\n", err);
        else
            print_message("# %d traces replayed, %llu frames, N up to %llu\n", run.traces,
                          (unsigned long long)tt.frames, (unsigned long long)tt.max_n);
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
    }
    return 0;
}

static void scene_count(void **state)
{
    (void)state;
    uint64_t missed = 0, dup = 0, pairs = 0;
    for (size_t m = 0; m < run.methods; ++m) {
        missed += run.t[m].missed + run.t[m].aabb_missing;
        dup += run.t[m].extra + run.t[m].dup_candidates;
        pairs += run.t[m].pairs_compared;
    }
    print_message("# differential: %u scenes, %llu scene-frames, N up to %llu, %zu methods, %llu pairs compared, "
                  "%llu missed, %llu duplicated or extra\n",
                  run.totals.scenes, (unsigned long long)run.totals.frames, (unsigned long long)run.totals.max_n,
                  run.methods, (unsigned long long)pairs, (unsigned long long)missed, (unsigned long long)dup);
    print_message("# scenes %u to %u of %u\n", run.first, run.end, run.scenes_requested);
    assert_int_equal(run.totals.scenes, run.end - run.first);
    if (!getenv("CD_DIFF_SCENES"))
        assert_true(run.scenes_requested >= (sanitized() ? SANITIZED_SCENES : DEFAULT_SCENES));
    if (sanitized()) print_message("# sanitizer build (%s): %u scenes by default\n", CD_SANITIZE, run.totals.scenes);
    assert_true(run.totals.max_n >= 1500 || run.totals.scenes < 1000);  // the large-N tail was drawn
    assert_true(pairs > 0);
#ifdef CD_HAVE_SIMULATE
    const int traces = 6;  // the recorded scene, the .aabbs and the four simulations
#else
    const int traces = 2;
#endif
    if (run.first == 0) assert_int_equal(run.traces, traces);
    // The methods that choose a SIMD path when created are found so, and see every scene on every
    // path; the others see every 4th there.
    for (size_t m = 0; m < run.methods; ++m) {
        const cd_verify_tally *t = &run.t[m];
        if (t->path == CD_VERIFY_NATIVE) continue;
        const char *name = t->method->name;
        int chooses = strcmp(name, "grid_multi") == 0 || strcmp(name, "lbvh") == 0 || strcmp(name, "lbvh_refit") == 0;
        if (chooses) assert_int_equal(t->stride, 1);
        if (strcmp(name, "sap") == 0) assert_int_equal(t->stride, 4);
    }
}

static void method_matches_naive(void **state)
{
    const cd_verify_tally *t = *state;
    print_message(
        "# %s%s: %llu scenes, %llu scene-frames, %llu pairs compared, %llu missed, %llu extra/duplicated pairs, "
        "%llu duplicated candidates, %llu bad candidates, %llu AABB pairs not reported"
        " (every %u scene(s); first failing scene %lld; %llu traces)\n",
        t->method->name,
        t->path == CD_VERIFY_NO_AVX512 ? " (avx2 path)"
        : t->path == CD_VERIFY_NO_AVX2 ? " (sse2 path)"
                                       : "",
        (unsigned long long)t->scenes, (unsigned long long)t->frames, (unsigned long long)t->pairs_compared,
        (unsigned long long)t->missed, (unsigned long long)t->extra, (unsigned long long)t->dup_candidates,
        (unsigned long long)t->bad_candidates, (unsigned long long)t->aabb_missing, t->stride, (long long)t->first_bad,
        (unsigned long long)t->traces);
    assert_true(t->frames > 0);
    if (t->trace_bad[0]) print_message("# first failing trace frame: %s\n", t->trace_bad);
    if (run.first == 0) assert_true(t->traces == (uint64_t)run.traces);
    // The scenes idx of [first, end) with idx % stride == 0.
    EXPECT_EQ(t->scenes, (run.end + t->stride - 1) / t->stride - (run.first + t->stride - 1) / t->stride);
    EXPECT_EQ(t->missed, 0);
    EXPECT_EQ(t->extra, 0);
    EXPECT_EQ(t->dup_candidates, 0);
    EXPECT_EQ(t->bad_candidates, 0);
    EXPECT_EQ(t->aabb_missing, 0);
    assert_true(cd_verify_tally_ok(t));
}

// True when name is an entry of the comma-separated list.
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0) return 1;
        p += n + (end != NULL);
    }
    return 0;
}

// The narrower SIMD paths this CPU has, for cdlab's own methods (peers run their own code).
static size_t paths_of(const cd_broad_method *m, cd_verify_path *paths)
{
    size_t n = 0;
    paths[n++] = CD_VERIFY_NATIVE;
    if (strncmp(m->description, "peer:", 5) == 0) return n;
    if (cd_cpu_avx512()) paths[n++] = CD_VERIFY_NO_AVX512;
    if (cd_cpu_avx2()) paths[n++] = CD_VERIFY_NO_AVX2;
    return n;
}

int main(void)
{
    part_of_scenes();
    // CD_DIFF_METHODS=a,b restricts the run to those methods (debugging one method).
    const char *only = getenv("CD_DIFF_METHODS");
    size_t count;
    const cd_broad_method *const *methods = cd_registry_methods(&count);
    const cd_broad_method *chosen[MAX_METHODS];
    cd_verify_path path[MAX_METHODS];
    for (size_t i = 0; i < count; ++i) {
        if (strcmp(methods[i]->name, "naive") == 0) continue;  // the reference itself
        if (only && !listed(only, methods[i]->name)) continue;
        cd_verify_path p[3];
        for (size_t k = 0, n = paths_of(methods[i], p); k < n && run.methods < MAX_METHODS; ++k) {
            chosen[run.methods] = methods[i];
            path[run.methods++] = p[k];
        }
    }
    cd_verify_tallies_init(run.t, chosen, run.methods);
    static const char *const suffix[] = {"", "_avx2", "_sse2"};
    static char names[MAX_METHODS][80];
    struct CMUnitTest tests[MAX_METHODS + 1];
    size_t k = 0;
    tests[k++] = (struct CMUnitTest){"scenes_run_and_totals", scene_count, NULL, NULL, NULL};
    for (size_t m = 0; m < run.methods; ++m) {
        cd_verify_tally_set_path(&run.t[m], path[m]);
        snprintf(names[m], sizeof names[m], "%s%s", chosen[m]->name, suffix[path[m]]);
        tests[k++] = (struct CMUnitTest){names[m], method_matches_naive, NULL, NULL, &run.t[m]};
    }
    return _cmocka_run_group_tests("differential", tests, k, sweep, NULL);
}
