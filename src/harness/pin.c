// SPDX-License-Identifier: MIT
// Pinning through hwloc: bind the calling thread to one PU before the PAPI event set is made
// (so the counters follow the measured thread), verify with the last CPU location, and report.
#include "cd_harness_cli.h"

#include <hwloc.h>
#include <omp.h>

#include <string.h>

static int load(hwloc_topology_t *t)
{
    if (hwloc_topology_init(t) != 0) return -1;
    if (hwloc_topology_load(*t) != 0) {
        hwloc_topology_destroy(*t);
        return -1;
    }
    return 0;
}

int cd_pin_supported(char *why, size_t len)
{
    hwloc_topology_t t;
    if (load(&t)) {
        snprintf(why, len, "hwloc topology could not be loaded");
        return 0;
    }
    const struct hwloc_topology_support *s = hwloc_topology_get_support(t);
    int bind = s->cpubind->set_thisthread_cpubind, where = s->cpubind->get_thisthread_last_cpu_location;
    snprintf(why, len, "thread binding %s, last-CPU-location query %s", bind ? "supported" : "not supported",
             where ? "supported" : "not supported");
    hwloc_topology_destroy(t);
    return bind && where;
}

int cd_pin_thread(cd_pin_mode mode, int cpu, cd_pin_result *r)
{
    *r = (cd_pin_result){.mode = mode, .requested = mode == CD_PIN_OFF ? -1 : cpu, .actual = -1};
    hwloc_topology_t t;
    if (load(&t)) {
        snprintf(r->status, sizeof r->status, "hwloc topology could not be loaded");
        return mode == CD_PIN_REQUIRED ? -1 : 0;
    }
    hwloc_bitmap_t where = hwloc_bitmap_alloc();
    if (mode == CD_PIN_OFF || cpu < 0) {
        snprintf(r->status, sizeof r->status, "not pinned (pin = %s, cpu = %d)",
                 mode == CD_PIN_OFF ? "off" : "optional", cpu);
    } else {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t, (unsigned)cpu);
        if (!pu) {
            snprintf(r->status, sizeof r->status, "no PU with OS index %d (this machine has %d)", cpu,
                     hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
        } else if (hwloc_set_cpubind(t, pu->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
            snprintf(r->status, sizeof r->status, "hwloc_set_cpubind to PU %d failed: %s", cpu, strerror(errno));
        } else if (hwloc_get_last_cpu_location(t, where, HWLOC_CPUBIND_THREAD) != 0) {
            snprintf(r->status, sizeof r->status, "bound to PU %d but the last CPU location is unknown: %s", cpu,
                     strerror(errno));
        } else {
            r->actual = hwloc_bitmap_first(where);
            r->ok = r->actual == cpu;
            if (r->ok)
                snprintf(r->status, sizeof r->status, "bound and verified");
            else
                snprintf(r->status, sizeof r->status, "bound to PU %d but running on %d", cpu, r->actual);
        }
    }
    if (r->actual < 0 && hwloc_get_last_cpu_location(t, where, HWLOC_CPUBIND_THREAD) == 0)
        r->actual = hwloc_bitmap_first(where);
    hwloc_bitmap_free(where);
    hwloc_topology_destroy(t);
    return mode == CD_PIN_REQUIRED && !r->ok ? -1 : 0;
}

int cd_pin_first_allowed(void)
{
    hwloc_topology_t t;
    if (load(&t)) return -1;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int first = -1;
    // The process's binding (a batch system's allocation: its cgroup or affinity mask) within the
    // PUs this process may use at all.
    if (set && hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(t));
        first = hwloc_bitmap_first(set);
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(t);
    return first;
}

static size_t cache_kb(hwloc_topology_t t, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
    return o && o->attr ? (size_t)(o->attr->cache.size / 1024) : 0;
}

void cd_topology_summary(char *buf, size_t len)
{
    hwloc_topology_t t;
    if (load(&t)) {
        snprintf(buf, len, "unknown (hwloc topology could not be loaded)");
        return;
    }
    int pk = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE), co = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int pu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), nn = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    snprintf(buf, len, "%d package(s), %d core(s), %d PU(s), %d NUMA node(s); L1d %zu KiB, L2 %zu KiB, L3 %zu KiB", pk,
             co, pu, nn, cache_kb(t, HWLOC_OBJ_L1CACHE), cache_kb(t, HWLOC_OBJ_L2CACHE),
             cache_kb(t, HWLOC_OBJ_L3CACHE));
    hwloc_topology_destroy(t);
}

int cd_pin_workers(int threads, int first_cpu)
{
    hwloc_topology_t t;
    if (threads < 1 || load(&t)) return 0;
    int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), bound = 0, base = 0;
    for (int k = 0; k < npu && first_cpu >= 0; ++k)
        if ((int)hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)k)->os_index == first_cpu) base = k;
#pragma omp parallel num_threads(threads) reduction(+ : bound)
    {
        hwloc_const_cpuset_t set = hwloc_topology_get_complete_cpuset(t);
        if (first_cpu >= 0 && npu > 0)
            set = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)((base + omp_get_thread_num()) % npu))->cpuset;
        bound += hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD) == 0;
    }
    hwloc_topology_destroy(t);
    return bound;
}
