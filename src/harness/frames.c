// SPDX-License-Identifier: MIT
// The one frame-sampling loop every kind measures with (cd_harness.h, cd_run_frames).
#include "cd_harness.h"

int cd_run_frames(cd_run *r, const cd_frames *fr)
{
    // A thread's CPU clock misses OpenMP workers' time: the kinds ask for it on serial frames only.
    uint64_t (*clock_ns)(void) = fr->cpu_clock ? cd_thread_cpu_ns : cd_now_ns;
    // Every repeat binds its workers: in rounds, the point before may have used other threads.
    if (fr->threads > 1) cd_pin_workers(fr->threads, cd_run_pinned_cpu(r));
    for (uint32_t w = 0; w < fr->warmup; ++w)
        if (fr->frame(fr->ctx, -1) != 0) return -1;
    for (uint32_t f = 0; f < fr->frames; ++f) {
        cd_run_counters_begin(r);
        uint64_t t0 = clock_ns();
        int rc = fr->frame(fr->ctx, f);
        uint64_t t1 = clock_ns();
        cd_run_counters_end(r);
        if (rc != 0 || fr->done(r, fr->ctx, f, t1 - t0) != 0) return -1;
    }
    return 0;
}
