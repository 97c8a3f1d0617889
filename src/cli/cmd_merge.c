// SPDX-License-Identifier: MIT
// `cdlab merge SHARD_DIR... -o RUN_DIR`: the shards of a sweep joined into one run directory.
#include "cd_harness_cli.h"
#include "cli.h"
#include "options.h"

#include <string.h>

int cd_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    int quiet = 0;
    const cli_opt opts[] = {
        {.name = "output",
         .short_name = 'o',
         .arg = "RUN_DIR",
         .help = "the merged run directory (required)",
         .type = CLI_TEXT,
         .dest = &out},
        {.name = "quiet",
         .short_name = 'q',
         .help = "no warnings on stderr (they still go to meta.ini)",
         .type = CLI_FLAG,
         .dest = &quiet},
    };
    const cli_spec spec = {
        .command = "merge",
        .usage = "[--quiet] SHARD_DIR... -o RUN_DIR",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .min_operands = 1,
        .max_operands = -1,
        .operands = "one or more shard directories",
        .about = "Join the run directories of one config's shards (cdlab run --shard I/N, one per shard)\n"
                 "into the new run directory RUN_DIR, as an unsharded run writes it: frames.csv and\n"
                 "summary.csv with the points in plan order, each row as its shard wrote it (a point's\n"
                 "summary rows together: one, or for kind max_fps one per probe); summary.csv gains the\n"
                 "columns shard and host (where each point ran); meta.ini says which shards, hosts and\n"
                 "CPUs ([merge]). RUN_DIR must not exist; it is written as a run is (.part files\n"
                 "and an INCOMPLETE marker until every file is whole); one that cannot be made or written\n"
                 "whole (exit 1: a name too long, a full disk) is removed with the parent directories\n"
                 "merge made for it. Interrupted by SIGINT or SIGTERM, it stops and removes what it wrote\n"
                 "the same way (exit 130 or 143); a RUN_DIR that a killed merge left (SIGKILL) holds its\n"
                 "INCOMPLETE marker: remove it and merge again.\n\n"
                 "Refused (exit 2, nothing written): a shard directory that is not a complete shard run\n"
                 "(interrupted, half-written, or made without --shard) or whose meta.ini [shard] is\n"
                 "damaged (count, index, plan_points, a points range beyond the plan); shards of different\n"
                 "configs (config SHA-256), builds, commits, source trees or SIMD paths (meta.ini\n"
                 "[machine] simd, as for --resume); shards that read one input path (meta.ini [inputs]:\n"
                 "poses, scene, mesh, plugin files, derived traces) with different SHA-256, or loaded\n"
                 "different plugins ([plugins]); different shard counts; a shard given twice; missing\n"
                 "points or points measured twice; a point's summary rows split by another point's;\n"
                 "headers that differ; a shard whose frames.csv or summary.csv is not what its run wrote\n"
                 "(the bytes and SHA-256 in its meta.ini [files]: a point's frames gone, a repeat short,\n"
                 "half a row, an edit); a config.ini that is not the config its meta.ini [config] sha256\n"
                 "records (edited); a frames.csv, summary.csv or config.ini that is no regular file (a\n"
                 "FIFO, a device) or over its limit (1 GiB a CSV, 1 MiB config.ini), refused before a\n"
                 "byte is read. Shards measured on different CPU models are merged with a warning:\n"
                 "compare their times within a shard, not across shards.\n"};
    char command[2048] = "cdlab";
    for (int i = 0; i < argc; ++i) {
        size_t k = strlen(command);
        snprintf(command + k, sizeof command - k, " %s", argv[i]);
    }
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    if (rc < 0 && !out) {
        fprintf(stderr, "cdlab merge: no -o RUN_DIR given (see cdlab merge --help)\n");
        rc = 2;
    }
    if (rc >= 0) {
        cli_operands_free(&ops);
        return rc;
    }
    char err[2048];
    rc = cd_run_merge(ops.v, (size_t)ops.n, out, command, quiet, err, sizeof err);
    if (rc)
        fprintf(stderr, "cdlab merge: %s\n", err);
    else
        printf("%s\n", out);
    cli_operands_free(&ops);
    return rc;
}
