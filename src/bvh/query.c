// SPDX-License-Identifier: MIT
// Pair queries: the build of the traversal (traverse.c) this CPU runs.
#include "bvh_internal.h"

#include <stdatomic.h>

int cd_bvh_isa_runs(cd_bvh_isa isa)
{
    switch (isa) {
    case CD_BVH_ISA_BASELINE: return 1;
#if CD_X86_SIMD
    case CD_BVH_ISA_AVX512: return cd_cpu_avx512();
    case CD_BVH_ISA_AVX2: return cd_cpu_avx2() != 0;
#endif
    default: return 0;
    }
}

// The traversal in build isa, which the caller has checked runs here.
static void traverse_on(cd_bvh_isa isa, const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                        cd_bvh_mode mode, const cd_bvh_hint *hint, cd_bvh_result *res)
{
    CD_ASSERT(scale > 0);
#if CD_X86_SIMD
    if (isa == CD_BVH_ISA_AVX512) {
        cd_bvh_traverse_avx512(a, b, pose, scale, mode, hint, res);
        return;
    }
    if (isa == CD_BVH_ISA_AVX2) {
        cd_bvh_traverse_avx2(a, b, pose, scale, mode, hint, res);
        return;
    }
#endif
    (void)isa;
    cd_bvh_traverse_baseline(a, b, pose, scale, mode, hint, res);
}

void cd_bvh_query_isa(cd_bvh_isa isa, const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                      cd_bvh_mode mode, cd_bvh_result *res)
{
    CD_ASSERT(cd_bvh_isa_runs(isa));
    traverse_on(isa, a, b, pose, scale, mode, NULL, res);
}

void cd_bvh_query_hinted_isa(cd_bvh_isa isa, const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                             cd_bvh_mode mode, const cd_bvh_hint *hint, cd_bvh_result *res)
{
    CD_ASSERT(cd_bvh_isa_runs(isa));
    traverse_on(isa, a, b, pose, scale, mode, hint, res);
}

// The build cd_bvh_query runs, chosen once per process.
static cd_bvh_isa query_isa(void)
{
    static _Atomic int chosen = -1;
    int isa = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (isa < 0) {
        isa = cd_bvh_isa_runs(CD_BVH_ISA_AVX512) ? CD_BVH_ISA_AVX512
              : cd_bvh_isa_runs(CD_BVH_ISA_AVX2) ? CD_BVH_ISA_AVX2
                                                 : CD_BVH_ISA_BASELINE;
        atomic_store_explicit(&chosen, isa, memory_order_relaxed);
    }
    return (cd_bvh_isa)isa;
}

// The queries run the build query_isa chose once: no per-query look at the CPU or the environment
// (cd_bvh_isa_runs reads CDLAB_NO_AVX512 each call).
void cd_bvh_query(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, cd_bvh_mode mode, cd_bvh_result *res)
{
    traverse_on(query_isa(), a, b, pose, 1.0, mode, NULL, res);
}

void cd_bvh_query_scaled(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                         cd_bvh_result *res)
{
    traverse_on(query_isa(), a, b, pose, scale, mode, NULL, res);
}

void cd_bvh_query_hinted(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                         const cd_bvh_hint *hint, cd_bvh_result *res)
{
    traverse_on(query_isa(), a, b, pose, scale, mode, hint, res);
}

// The replays run in the build the queries run, so the costs are those of the measured frames.
void cd_bvh_measure_costs(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                          double *cv_ns, double *cp_ns)
{
#if CD_X86_SIMD
    if (query_isa() == CD_BVH_ISA_AVX512) {
        cd_bvh_measure_costs_avx512(a, b, pose, scale, mode, cv_ns, cp_ns);
        return;
    }
    if (query_isa() == CD_BVH_ISA_AVX2) {
        cd_bvh_measure_costs_avx2(a, b, pose, scale, mode, cv_ns, cp_ns);
        return;
    }
#endif
    cd_bvh_measure_costs_baseline(a, b, pose, scale, mode, cv_ns, cp_ns);
}
