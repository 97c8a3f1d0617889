// SPDX-License-Identifier: MIT
// Linux's software events measure what they name, whichever source reads them (PAPI, or
// perf_event_open where PAPI cannot): between cd_counters_begin and cd_counters_end, writing to N
// fresh pages counts at least N page faults and burning CPU counts the thread's CPU time; the next
// interval starts from zero; names match as libpfm matches them; NA events beside them stay NA.
// Skips (TAP plan 1..0) when the kernel refuses perf_event_open and PAPI cannot read the events.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_core.h"
#include "cd_harness_cli.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { TASK_CLOCK, PAGE_FAULTS, MINOR_FAULTS, CONTEXT_SWITCHES, UNKNOWN, EVENTS };
static const char *const names[EVENTS] = {"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::minor-faults",
                                          "perf::CONTEXT-SWITCHES", "perf::NOT-AN-EVENT"};

// Why the kernel refuses perf_event_open for the task clock PAPI cannot read either, or NULL.
static const char *refused(const cd_counters *k)
{
    const char *r = k->reason[TASK_CLOCK];
    return !k->live[TASK_CLOCK] && strstr(r, "perf_event_open: ") && strstr(r, "(errno ") ? r : NULL;
}

// Burn at least ns of this thread's CPU time.
static void burn(uint64_t ns)
{
    volatile double x = 1;
    uint64_t t0 = cd_thread_cpu_ns();
    while (cd_thread_cpu_ns() - t0 < ns)
        for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
}

static void test_software_events_measure(void **state)
{
    (void)state;
    cd_counters k;
    cd_counters_open(&k, names, EVENTS);
    for (int e = TASK_CLOCK; e <= CONTEXT_SWITCHES; ++e) {
        print_message("# %s = %s%s\n", names[e], k.live[e] ? "" : "NA: ", k.reason[e]);
        assert_true(k.live[e]);
        assert_true(strncmp(k.reason[e], "ok", 2) == 0);
        assert_true(k.source[e] == CD_COUNTER_PAPI || k.source[e] == CD_COUNTER_PERF);
    }
    assert_false(k.live[UNKNOWN]);
    assert_non_null(strstr(k.reason[UNKNOWN], "unknown event"));
    assert_int_equal(k.live_count, CONTEXT_SWITCHES + 1);

    // Pages the thread writes for the first time fault in user mode, one fault per small page.
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = 2048, bytes = pages * (size_t)page;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, bytes, MADV_NOHUGEPAGE);
    cd_counters_begin(&k);
    uint64_t t0 = cd_thread_cpu_ns();
    for (size_t i = 0; i < pages; ++i) p[i * (size_t)page] = 1;
    burn(20000000);
    uint64_t cpu = cd_thread_cpu_ns() - t0;
    cd_counters_end(&k);
    munmap(p, bytes);
    print_message("# %zu pages, %.3f ms CPU: task clock %lld ns, page faults %lld, minor %lld, context switches %lld\n",
                  pages, (double)cpu * 1e-6, k.last[TASK_CLOCK], k.last[PAGE_FAULTS], k.last[MINOR_FAULTS],
                  k.last[CONTEXT_SWITCHES]);
    assert_true(k.last[PAGE_FAULTS] >= (long long)pages && k.last[PAGE_FAULTS] < (long long)pages + 1000);
    assert_true(k.last[MINOR_FAULTS] >= (long long)pages && k.last[MINOR_FAULTS] <= k.last[PAGE_FAULTS]);
    // The task clock and CLOCK_THREAD_CPUTIME_ID both count the thread's time on a CPU (kernel
    // time included: the page faults' zeroing is in both).
    assert_true(k.last[TASK_CLOCK] >= (long long)(cpu * 9 / 10));
    assert_true(k.last[TASK_CLOCK] <= (long long)(cpu * 3 / 2 + 5000000));
    assert_true(k.last[CONTEXT_SWITCHES] >= 0);
    assert_int_equal(k.last[UNKNOWN], -1);

    // The next interval counts from zero: no new pages, a little CPU.
    cd_counters_begin(&k);
    t0 = cd_thread_cpu_ns();
    burn(2000000);
    cpu = cd_thread_cpu_ns() - t0;
    cd_counters_end(&k);
    assert_true(k.last[PAGE_FAULTS] >= 0 && k.last[PAGE_FAULTS] < 100);
    assert_true(k.last[TASK_CLOCK] >= (long long)(cpu * 9 / 10) && k.last[TASK_CLOCK] < 20000000);
    cd_counters_close(&k);
}

typedef struct tally {
    size_t n, live;
} tally;

static void each_software(const char *name, const char *description, void *ctx)
{
    tally *t = ctx;
    char reason[256];
    int live = cd_counters_probe(name, reason, sizeof reason);
    print_message("# %s (%s) = %s%s\n", name, description, live ? "" : "NA: ", reason);
    assert_true(strncmp(name, "perf::", 6) == 0 && strlen(description) > 0);
    t->n++;
    t->live += (size_t)live;
}

static void test_software_event_list(void **state)
{
    (void)state;
    // Every listed event is the kernel's own: readable wherever the task clock is.
    tally t = {0, 0};
    size_t n = cd_counters_software(each_software, &t);
    assert_int_equal(n, 7);
    assert_int_equal(t.n, n);
    assert_int_equal(t.live, n);
}

int main(void)
{
    // The one skip: neither PAPI nor the kernel lets this process count (meson reads this TAP plan
    // as a skipped test).
    cd_counters k;
    cd_counters_open(&k, names, EVENTS);
    const char *why = refused(&k);
    if (why) {
        printf("1..0 # SKIP %s = NA: %s\n", names[TASK_CLOCK], why);
        cd_counters_close(&k);
        return 0;
    }
    cd_counters_close(&k);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_software_events_measure),
        cmocka_unit_test(test_software_event_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
