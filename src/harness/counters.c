// SPDX-License-Identifier: MIT
// Hardware counters through PAPI's low-level API. Events are added one at a time so one that
// cannot be counted (unknown, disabled component, no PMU in a VM, conflict) becomes NA with
// PAPI's reason and the others still count; with none live the run simply has NA columns.
#include "cd_harness.h"

#include <papi.h>

#include <string.h>

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

static void describe_library(cd_counters *k)
{
    snprintf(k->papi_version, sizeof k->papi_version, "%d.%d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION), PAPI_VERSION_INCREMENT(PAPI_VERSION));
    if (library() < 0) {
        snprintf(k->papi_status, sizeof k->papi_status, "%s", lib_error);
        return;
    }
    // The CPU component (perf_event) decides whether presets can count; say why when it cannot.
    int n = PAPI_num_components();
    for (int i = 0; i < n; ++i) {
        const PAPI_component_info_t *ci = PAPI_get_component_info(i);
        if (!ci || strcmp(ci->name, "perf_event") != 0) continue;
        if (ci->disabled)
            snprintf(k->papi_status, sizeof k->papi_status, "perf_event component disabled: %.140s", ci->disabled_reason);
        else
            snprintf(k->papi_status, sizeof k->papi_status, "perf_event component enabled, %d counters", ci->num_cntrs);
        return;
    }
    snprintf(k->papi_status, sizeof k->papi_status, "no perf_event component in this PAPI build");
}

void cd_counters_open(cd_counters *k, const char *const *names, size_t n)
{
    *k = (cd_counters){.event_set = PAPI_NULL};
    if (n > CD_COUNTERS_MAX) n = CD_COUNTERS_MAX;
    k->count = n;
    describe_library(k);
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
        k->slot[i] = k->live_count++;
        snprintf(k->reason[i], sizeof k->reason[i], "ok");
    }
    // Probe once: an event can be added yet fail to start (e.g. perf_event_paranoid); then all are NA.
    if (k->live_count) {
        int rc = PAPI_start(k->event_set);
        long long tmp[CD_COUNTERS_MAX];
        if (rc == PAPI_OK) rc = PAPI_stop(k->event_set, tmp);
        if (rc != PAPI_OK) {
            for (size_t i = 0; i < n; ++i)
                if (k->live[i]) {
                    k->live[i] = 0;
                    snprintf(k->reason[i], sizeof k->reason[i], "added but cannot start: %s", PAPI_strerror(rc));
                }
            k->live_count = 0;
        }
    }
}

void cd_counters_begin(cd_counters *k)
{
    if (!k->live_count) return;
    if (PAPI_start(k->event_set) == PAPI_OK) k->running = 1;
}

void cd_counters_end(cd_counters *k)
{
    long long v[CD_COUNTERS_MAX] = {0};
    int ok = k->running && PAPI_stop(k->event_set, v) == PAPI_OK;
    k->running = 0;
    for (size_t i = 0; i < k->count; ++i) k->last[i] = ok && k->live[i] ? v[k->slot[i]] : -1;
}

void cd_counters_close(cd_counters *k)
{
    if (k->event_set != PAPI_NULL) {
        if (k->running) {
            long long v[CD_COUNTERS_MAX];
            PAPI_stop(k->event_set, v);
        }
        PAPI_cleanup_eventset(k->event_set);
        PAPI_destroy_eventset(&k->event_set);
    }
    k->event_set = PAPI_NULL;
    k->live_count = 0;
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

void cd_counters_library(char *version, size_t version_len, char *status, size_t status_len)
{
    cd_counters k = {.event_set = PAPI_NULL};
    describe_library(&k);
    snprintf(version, version_len, "%s", k.papi_version);
    snprintf(status, status_len, "%s", k.papi_status);
}
