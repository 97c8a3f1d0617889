// SPDX-License-Identifier: MIT
// The command table: adding a subcommand is a cd_cmd_<name> in its own file and one line here.
#include "cli.h"

const cd_cli_command cd_cli_commands[] = {
    {"methods", "list the registered broad phases", cd_cmd_methods},
    {"version", "print the version", cd_cmd_version},
    {"run", "run experiment configs: frames.csv, summary.csv, meta.ini", cd_cmd_run},
    {"merge", "join the shard runs of a sweep (run --shard I/N) into one run directory", cd_cmd_merge},
    {"info", "machine, topology, pinning, PAPI counters, build options", cd_cmd_info},
    {"plot", "render the figures of run directories with gnuplot", cd_cmd_plot},
    {"report", "one self-contained HTML page of runs: figures, summaries, provenance", cd_cmd_report},
    {"compare", "compare two runs point by point: ratios with 95% CIs, correctness alarms", cd_cmd_compare},
    {"verify", "check broad phases against naive and hierarchy variants against brute force", cd_cmd_verify},
    {"snapshot", "draw a cubes point's scene at frame K with the broad phase's cells (PNG, SVG)", cd_cmd_snapshot},
    {"query", "answer overlap questions (tri-tri, obb-obb, sphere-obb, sphere-sphere) from a CSV", cd_cmd_query},
    {"poses", "export seeded mesh-pair poses as CSV (qw,qx,qy,qz,tx,ty,tz)", cd_cmd_poses},
    {"trace", "record, import, export and describe recorded traces (replayed by [scene] trace)", cd_cmd_trace},
    {NULL, NULL, NULL},
};
