// SPDX-License-Identifier: MIT
// Counters through PAPI's low-level API, with Linux's software events as a fallback. Events are
// added one at a time so one that cannot be counted (unknown, disabled component, no PMU in a VM,
// conflict) becomes NA with PAPI's reason and the others still count; with none live the run
// simply has NA columns.
//
// The fallback. PAPI reads Linux's software events (task clock, page faults, context switches, ...)
// through its perf_event component under libpfm's names, perf::TASK-CLOCK and so on. That component
// is disabled when libpfm knows no core PMU for the CPU — on KVM guests of CPUs newer than the
// libpfm release (Debian 12: libpfm 4.13 on AMD family 26) — and then PAPI knows none of these
// names although the kernel counts them for any thread. For exactly those names, when PAPI cannot
// provide one, it is opened here with perf_event_open as PAPI would open it: PERF_TYPE_SOFTWARE,
// the calling thread on any CPU (pid 0, cpu -1, not inherited by threads or children it creates),
// user mode only (exclude_kernel, exclude_hv: PAPI's perf_event component counts in its default
// domain PAPI_DOM_USER; it is also what perf_event_paranoid = 2 allows without privileges). The
// events form one group, started and stopped inside PAPI's start/stop, so both sources count the
// same interval of the same thread. Measured on Linux 6.18: in user mode the task clock still
// counts the thread's kernel time (it equals CLOCK_THREAD_CPUTIME_ID to 0.5 %), page faults are
// those the thread's own code takes, and context switches and CPU migrations read 0 (the kernel
// counts them in kernel mode) — through PAPI too, whose default domain is the same.
#include "cd_harness_cli.h"

#include <papi.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// PAPI_library_init once per process; its result (or failure text) is kept for every caller.
static int lib_state;  // 0 untried, 1 ready, -1 failed
static char lib_error[160];

static int library(void)
{
    if (lib_state) return lib_state;
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        snprintf(lib_error, sizeof lib_error, "PAPI_library_init: %s", v > 0 ? "version mismatch" : PAPI_strerror(v));
        lib_state = -1;
    } else {
        lib_state = 1;
    }
    return lib_state;
}

// Fills k->papi_version and k->papi_status; 1 when PAPI's perf_event component can count.
static int describe_library(cd_counters *k)
{
    snprintf(k->papi_version, sizeof k->papi_version, "%d.%d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
             PAPI_VERSION_INCREMENT(PAPI_VERSION));
    if (library() < 0) {
        snprintf(k->papi_status, sizeof k->papi_status, "%s", lib_error);
        return 0;
    }
    // The CPU component (perf_event) decides whether presets can count; say why when it cannot.
    int n = PAPI_num_components();
    for (int i = 0; i < n; ++i) {
        const PAPI_component_info_t *ci = PAPI_get_component_info(i);
        if (!ci || strcmp(ci->name, "perf_event") != 0) continue;
        if (ci->disabled)
            snprintf(k->papi_status, sizeof k->papi_status, "perf_event component disabled: %.140s",
                     ci->disabled_reason);
        else
            snprintf(k->papi_status, sizeof k->papi_status, "perf_event component enabled, %d counters", ci->num_cntrs);
        return !ci->disabled;
    }
    snprintf(k->papi_status, sizeof k->papi_status, "no perf_event component in this PAPI build");
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Linux software events under libpfm's names (the aliases `papi_native_avail` lists under perf::).

typedef struct software_event {
    const char *name;
    uint64_t config;  // PERF_COUNT_SW_*
    const char *description;
} software_event;

static const software_event software_events[] = {
    {"perf::TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK, "ns of CPU time of the thread (its kernel time included)"},
    {"perf::CPU-CLOCK", PERF_COUNT_SW_CPU_CLOCK, "ns of the CPU clock while the thread runs"},
    {"perf::PAGE-FAULTS", PERF_COUNT_SW_PAGE_FAULTS, "page faults the thread's code takes"},
    {"perf::MINOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O"},
    {"perf::MAJOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that waited for I/O"},
    {"perf::CONTEXT-SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches (0 in user mode)"},
    {"perf::CPU-MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS, "moves to another CPU (0 in user mode)"},
};

static const software_event *find_software_event(const char *name)
{
    for (size_t i = 0; i < sizeof software_events / sizeof software_events[0]; ++i)
        if (strcasecmp(name, software_events[i].name) == 0) return &software_events[i];  // as libpfm
    return NULL;
}

// One event of the group led by `group` (-1: this one leads, and starts disabled).
static int perf_open(const software_event *e, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = e->config;
    a.disabled = group < 0;
    a.exclude_kernel = 1;  // PAPI_DOM_USER, as PAPI
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, (unsigned long)PERF_FLAG_FD_CLOEXEC);
}

// Zero the group and start it. Members count only while their leader does, so the leader alone
// is enabled and disabled, as PAPI does. (Enabling with PERF_IOC_FLAG_GROUP after a disable with it
// left the members at 0 on Linux 6.18: the task clock counted, page faults did not.)
static int perf_enable(const cd_counters *k)
{
    int lead = k->perf_fd[0];
    return ioctl(lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) == 0 && ioctl(lead, PERF_EVENT_IOC_ENABLE, 0) == 0;
}

// Stop the group and read it into v[0..perf_count); 0 on success, else errno.
static int perf_disable_read(const cd_counters *k, uint64_t *v)
{
    int lead = k->perf_fd[0];
    if (ioctl(lead, PERF_EVENT_IOC_DISABLE, 0) != 0) return errno;
    uint64_t buf[1 + CD_COUNTERS_MAX];  // PERF_FORMAT_GROUP: nr, then one value per event
    ssize_t got = read(lead, buf, sizeof buf);
    if (got < 0) return errno;
    if ((size_t)got != (size_t)(1 + k->perf_count) * sizeof buf[0] || buf[0] != (uint64_t)k->perf_count) return EIO;
    memcpy(v, buf + 1, (size_t)k->perf_count * sizeof buf[0]);
    return 0;
}

static void perf_close(cd_counters *k)
{
    for (int j = k->perf_count - 1; j >= 0; --j) close(k->perf_fd[j]);  // members before their leader
    k->perf_count = 0;
    k->perf_running = 0;
}

// Event i, a software event PAPI could not provide (k->reason[i] says why), from perf_event_open.
static void open_software(cd_counters *k, size_t i, const software_event *e, const char *papi_why)
{
    int fd = perf_open(e, k->perf_count ? k->perf_fd[0] : -1);
    if (fd < 0) {
        int err = errno;
        snprintf(k->reason[i], sizeof k->reason[i], "perf_event_open: %s (errno %d); PAPI: %.150s", strerror(err), err,
                 papi_why);
        return;
    }
    k->perf_fd[k->perf_count] = fd;
    k->slot[i] = k->perf_count++;
    k->source[i] = CD_COUNTER_PERF;
    k->live[i] = 1;
    snprintf(k->reason[i], sizeof k->reason[i], "ok (perf_event_open; PAPI: %.180s)", papi_why);
}

// ---------------------------------------------------------------------------------------------

void cd_counters_open(cd_counters *k, const char *const *names, size_t n)
{
    *k = (cd_counters){.event_set = PAPI_NULL};
    if (n > CD_COUNTERS_MAX) n = CD_COUNTERS_MAX;
    k->count = n;
    int component = describe_library(k);
    int set_ok = 0;
    if (lib_state == 1) {
        int rc = PAPI_create_eventset(&k->event_set);
        set_ok = rc == PAPI_OK;
        if (!set_ok) snprintf(lib_error, sizeof lib_error, "PAPI_create_eventset: %s", PAPI_strerror(rc));
    }
    for (size_t i = 0; i < n; ++i) {
        snprintf(k->names[i], sizeof k->names[i], "%s", names[i]);
        k->slot[i] = -1;
        if (!set_ok) {
            snprintf(k->reason[i], sizeof k->reason[i], "%.150s", lib_state == 1 ? lib_error : k->papi_status);
            continue;
        }
        int code;
        int rc = PAPI_event_name_to_code(k->names[i], &code);
        if (rc != PAPI_OK) {
            snprintf(k->reason[i], sizeof k->reason[i], "unknown event: %s", PAPI_strerror(rc));
            continue;
        }
        rc = PAPI_add_event(k->event_set, code);
        if (rc != PAPI_OK) {
            snprintf(k->reason[i], sizeof k->reason[i], "cannot be added: %s", PAPI_strerror(rc));
            continue;
        }
        k->live[i] = 1;
        k->source[i] = CD_COUNTER_PAPI;
        k->slot[i] = k->papi_count++;
        snprintf(k->reason[i], sizeof k->reason[i], "ok");
    }
    // Probe once: an event can be added yet fail to start (e.g. perf_event_paranoid); then all are NA.
    if (k->papi_count) {
        int rc = PAPI_start(k->event_set);
        long long tmp[CD_COUNTERS_MAX];
        if (rc == PAPI_OK) rc = PAPI_stop(k->event_set, tmp);
        if (rc != PAPI_OK) {
            for (size_t i = 0; i < n; ++i)
                if (k->source[i] == CD_COUNTER_PAPI) {
                    k->live[i] = 0;
                    k->source[i] = CD_COUNTER_NA;
                    k->slot[i] = -1;
                    snprintf(k->reason[i], sizeof k->reason[i], "added but cannot start: %s", PAPI_strerror(rc));
                }
            k->papi_count = 0;
        }
    }
    // The software events PAPI could not provide. With the component disabled PAPI's per-event
    // reason ("Event does not exist") hides why, so the component's state is quoted instead.
    for (size_t i = 0; i < n; ++i) {
        const software_event *e = k->live[i] ? NULL : find_software_event(k->names[i]);
        if (!e) continue;
        char papi_why[sizeof k->reason[0]];
        snprintf(papi_why, sizeof papi_why, "%s", component ? k->reason[i] : k->papi_status);
        open_software(k, i, e, papi_why);
    }
    // Probe the group as PAPI's set was probed: open is not yet proof that it counts and reads.
    if (k->perf_count) {
        uint64_t v[CD_COUNTERS_MAX];
        int err = perf_enable(k) ? perf_disable_read(k, v) : errno;
        if (err) {
            for (size_t i = 0; i < n; ++i)
                if (k->source[i] == CD_COUNTER_PERF) {
                    k->live[i] = 0;
                    k->source[i] = CD_COUNTER_NA;
                    k->slot[i] = -1;
                    snprintf(k->reason[i], sizeof k->reason[i],
                             "perf_event_open: opened but cannot be read: %s (errno %d)", strerror(err), err);
                }
            perf_close(k);
        }
    }
    for (size_t i = 0; i < n; ++i) k->live_count += k->live[i];
}

void cd_counters_begin(cd_counters *k)
{
    // PAPI's start is the costlier; the perf group counts inside PAPI's interval.
    if (k->papi_count && PAPI_start(k->event_set) == PAPI_OK) k->running = 1;
    if (k->perf_count) k->perf_running = perf_enable(k);
}

void cd_counters_end(cd_counters *k)
{
    uint64_t pv[CD_COUNTERS_MAX] = {0};
    int perf_ok = k->perf_running && perf_disable_read(k, pv) == 0;
    k->perf_running = 0;
    long long v[CD_COUNTERS_MAX] = {0};
    int ok = k->running && PAPI_stop(k->event_set, v) == PAPI_OK;
    k->running = 0;
    for (size_t i = 0; i < k->count; ++i) {
        long long x = -1;
        if (k->source[i] == CD_COUNTER_PAPI && ok) x = v[k->slot[i]];
        if (k->source[i] == CD_COUNTER_PERF && perf_ok && pv[k->slot[i]] <= (uint64_t)INT64_MAX)
            x = (long long)pv[k->slot[i]];
        k->last[i] = x;
    }
}

void cd_counters_close(cd_counters *k)
{
    if (k->perf_running) ioctl(k->perf_fd[0], PERF_EVENT_IOC_DISABLE, 0);
    perf_close(k);
    if (k->event_set != PAPI_NULL) {
        if (k->running) {
            long long v[CD_COUNTERS_MAX];
            PAPI_stop(k->event_set, v);
        }
        PAPI_cleanup_eventset(k->event_set);
        PAPI_destroy_eventset(&k->event_set);
    }
    k->event_set = PAPI_NULL;
    k->running = 0;
    k->papi_count = 0;  // live, source, reason and live_count still describe the run (meta.ini)
}

int cd_counters_probe(const char *name, char *reason, size_t len)
{
    cd_counters k;
    const char *names[1] = {name};
    cd_counters_open(&k, names, 1);
    snprintf(reason, len, "%s", k.reason[0]);
    int live = k.live[0];
    cd_counters_close(&k);
    return live;
}

size_t cd_counters_presets(void (*each)(const char *name, const char *description, void *ctx), void *ctx)
{
    if (library() < 0) return 0;
    int code = PAPI_PRESET_MASK;
    size_t n = 0;
    if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK) return 0;
    do {
        PAPI_event_info_t info;
        if (PAPI_get_event_info(code, &info) != PAPI_OK) continue;
        each(info.symbol, info.short_descr, ctx);
        n++;
    } while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
    return n;
}

size_t cd_counters_software(void (*each)(const char *name, const char *description, void *ctx), void *ctx)
{
    size_t n = sizeof software_events / sizeof software_events[0];
    for (size_t i = 0; i < n; ++i) each(software_events[i].name, software_events[i].description, ctx);
    return n;
}

void cd_counters_library(char *version, size_t version_len, char *status, size_t status_len)
{
    cd_counters k = {.event_set = PAPI_NULL};
    describe_library(&k);
    snprintf(version, version_len, "%s", k.papi_version);
    snprintf(status, status_len, "%s", k.papi_status);
}
