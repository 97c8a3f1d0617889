// SPDX-License-Identifier: MIT
// `cdlab merge SHARD_DIR... -o RUN_DIR`: the shards of a sweep joined into one run directory.
#include "cd_harness.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: cdlab merge [--quiet] SHARD_DIR... -o RUN_DIR\n\n"
               "Join the run directories of one config's shards (cdlab run --shard I/N, one per shard)\n"
               "into the new run directory RUN_DIR, as an unsharded run writes it: frames.csv and\n"
               "summary.csv with the points in plan order, each row as its shard wrote it; summary.csv\n"
               "gains the columns shard and host (where each point ran); meta.ini says which shards,\n"
               "hosts and CPUs ([merge]). RUN_DIR must not exist; it is written as a run is (.part files\n"
               "and an INCOMPLETE marker until every file is whole).\n\n"
               "Refused (exit 2, nothing written): a shard directory that is not a complete shard run\n"
               "(interrupted, half-written, or made without --shard); shards of different configs\n"
               "(config SHA-256), builds, commits or source trees; different shard counts; a shard\n"
               "given twice; missing points or points measured twice; headers that differ.\n"
               "Shards measured on different CPU models are merged with a warning: compare their times\n"
               "within a shard, not across shards.\n\n"
               "options:\n"
               "  -o, --output RUN_DIR   the merged run directory (required)\n"
               "  --quiet, -q            no warnings on stderr (they still go to meta.ini)\n"
               "  -h, --help             this text\n");
}

int cd_cmd_merge(int argc, char **argv)
{
    if (cd_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char **dirs = calloc((size_t)argc, sizeof *dirs);
    const char *out = NULL;
    int n = 0, quiet = 0;
    char command[2048] = "cdlab";
    for (int i = 0; i < argc; ++i) {
        size_t k = strlen(command);
        snprintf(command + k, sizeof command - k, " %s", argv[i]);
    }
    for (int i = 1; i < argc; ++i) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cdlab merge: unknown option or missing value: %s\n", argv[i]);
            usage(stderr);
            free(dirs);
            return 2;
        } else {
            dirs[n++] = argv[i];
        }
    }
    if (!out || n == 0) {
        fprintf(stderr, "cdlab merge: %s\n", !out ? "no -o RUN_DIR given" : "no shard directories given");
        usage(stderr);
        free(dirs);
        return 2;
    }
    char err[2048];
    int rc = cd_run_merge(dirs, (size_t)n, out, command, quiet, err, sizeof err);
    if (rc)
        fprintf(stderr, "cdlab merge: %s\n", err);
    else
        printf("%s\n", out);
    free(dirs);
    return rc;
}
