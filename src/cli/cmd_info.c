// SPDX-License-Identifier: MIT
// `cdlab info`: what this machine offers the harness — CPU, topology, pinning, PAPI counters, build.
#include "build_flags.h"
#include "cd_build_config.h"
#include "cli.h"
#include "options.h"
#include "cd_core.h"
#include "cd_harness_cli.h"

#include <string.h>
#include <unistd.h>

static const char *const default_events[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L2_DCM",
                                             "PAPI_BR_MSP"};

typedef struct preset_tally {
    size_t live;
    int print;
} preset_tally;

static void each_preset(const char *name, const char *description, void *ctx)
{
    preset_tally *t = ctx;
    char reason[200];
    int live = cd_counters_probe(name, reason, sizeof reason);
    t->live += (size_t)live;
    if (t->print) printf("  %-14s %-4s %-40.40s %s\n", name, live ? "yes" : "NA", description, live ? "" : reason);
}

// A Linux software event: `name = ok`, `name = ok (perf_event_open; PAPI: why not)` or `name = NA: why`.
static void each_software(const char *name, const char *description, void *ctx)
{
    (void)description, (void)ctx;
    char reason[256];
    int live = cd_counters_probe(name, reason, sizeof reason);
    printf("%s = %s%s\n", name, live ? "" : "NA: ", reason);
}

int cd_cmd_info(int argc, char **argv)
{
    int all = 0;
    const cli_opt opts[] = {
        {.name = "all",
         .help = "list every PAPI preset instead of the default presets",
         .type = CLI_FLAG,
         .dest = &all},
    };
    const cli_spec spec = {
        .command = "info",
        .usage = "[--all]",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .about = "Print the machine (CPU model, hwloc topology), whether threads can be pinned (and a trial\n"
                 "pin to PU 0), the PAPI version and which counters can be read here and why not (the default\n"
                 "presets and Linux's software events, e.g. perf::TASK-CLOCK, with where they are read from),\n"
                 "and the build options.\n"};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    cli_operands_free(&ops);
    if (rc >= 0) return rc;
    char buf[512], host[256] = "unknown";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    printf("[machine]\nhost = %s\n", host);
    cd_cpu_model(buf, sizeof buf);
    printf("cpu_model = %s\ncpus_online = %ld\n", buf, sysconf(_SC_NPROCESSORS_ONLN));
    cd_topology_summary(buf, sizeof buf);
    printf("topology = %s\n", buf);
    printf("simd = %s (cdlab's SIMD paths in this process; CDLAB_NO_AVX512=1 turns the AVX-512 ones off, "
           "CDLAB_NO_AVX2=1 the AVX2 ones too)\n",
           cd_cpu_simd());

    printf("\n[pinning]\n");
    int sup = cd_pin_supported(buf, sizeof buf);
    printf("supported = %s\nsupport = %s\n", sup ? "true" : "false", buf);
    cd_pin_result pr;
    cd_pin_thread(CD_PIN_OPTIONAL, 0, &pr);
    printf("trial_pin_cpu0 = %s (actual cpu %d)\n", pr.status, pr.actual);

    char version[64], status[300];
    cd_counters_library(version, sizeof version, status, sizeof status);
    printf("\n[papi]\nversion = %s\nstatus = %s\n", version, status);
    printf("\n[counters]\n; event = ok, or NA: why\n");
    preset_tally t = {0, all};
    if (all) {
        printf("; every PAPI preset (name, readable here, description, reason)\n");
        size_t n = cd_counters_presets(each_preset, &t);
        printf("presets_readable = %zu of %zu\n", t.live, n);
    } else {
        for (size_t i = 0; i < sizeof default_events / sizeof default_events[0]; ++i) {
            char reason[200];
            int live = cd_counters_probe(default_events[i], reason, sizeof reason);
            printf("%s = %s%s\n", default_events[i], live ? "" : "NA: ", reason);
        }
        t.print = 0;
        size_t n = cd_counters_presets(each_preset, &t);
        printf("presets_readable = %zu of %zu (cdlab info --all lists them)\n", t.live, n);
    }
    printf("; Linux software events under PAPI's names: PAPI's when it has them, else cdlab opens them\n"
           "; itself with perf_event_open (this thread, user mode, as PAPI counts)\n");
    cd_counters_software(each_software, NULL);

    printf("\n[build]\nversion = %s\nbuild_type = %s\ncompiler = %s\nc_flags = %s\nc_flags_extra = %s\n"
           "cxx_flags = %s\nsanitize = %s\nsource = %s\n",
           CD_VERSION, CD_BUILD_TYPE, CD_COMPILER, CD_C_FLAGS, CD_C_FLAGS_EXTRA, CD_CXX_FLAGS, CD_SANITIZE,
           CD_SOURCE_ROOT);
    char commit[128], dirty[16];
    cd_git_describe(commit, sizeof commit, dirty, sizeof dirty);
    printf("git_commit = %s\ngit_dirty = %s\n", commit, dirty);
    return 0;
}
