// SPDX-License-Identifier: MIT
// `cdlab poses --seed S --poses N --distance D OUT.csv|-`: export the mesh-pair poses that a mesh
// config with the same seed, poses and distance queries (qw,qx,qy,qz,tx,ty,tz), so other tools can
// run exactly the same queries; `[mesh] poses_file` reads such a file back.
#include "cd_bvh.h"
#include "cli.h"
#include "options.h"

int cd_cmd_poses(int argc, char **argv)
{
    uint64_t seed = 42, n = 200;
    double distance = 1.0;
    const cli_opt opts[] = {
        {.name = "seed",
         .arg = "S",
         .help = "the config's [experiment] seed (default 42)",
         .type = CLI_COUNT,
         .dest = &seed,
         .lo = 0,
         .hi = 9007199254740992ull},
        {.name = "poses",
         .arg = "N",
         .help = "how many poses (default 200, at most 8000000)",
         .type = CLI_COUNT,
         .dest = &n,
         .lo = 1,
         // What [mesh] poses_file reads back: a line is at most 124 bytes (four quaternion
         // components and tx of 23 characters each as -1.2345678901234567e-05, ty and tz 0, six
         // commas and the newline), so 8·10⁶ lines stay under the readers' 1 GiB
         // (CD_FILE_MAX_BYTES); 10⁷ could pass it.
         .hi = 8000000},
        {.name = "distance",
         .arg = "D",
         .help = "centre distance along x (default 1.0)",
         .type = CLI_REAL,
         .dest = &distance,
         .min = 0,
         .max = 1e6},
    };
    const cli_spec spec = {
        .command = "poses",
        .usage = "[--seed S] [--poses N] [--distance D] OUT.csv|-",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .min_operands = 1,
        .max_operands = 1,
        .operands = "one output file (- for standard output)",
        .about = "Write N seeded poses of mesh B (uniform random rotations from seed S, translation (D, 0, 0))\n"
                 "as CSV qw,qx,qy,qz,tx,ty,tz with 17 significant digits; the same poses a mesh config with\n"
                 "[experiment] seed = S, [mesh] poses = N, distance = D queries. OUT.csv is written whole\n"
                 "or not at all; - writes standard output.\n"};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    if (rc >= 0) {
        cli_operands_free(&ops);
        return rc;
    }
    // The file is written whole or not at all (cd_cli_output_open).
    cd_cli_output out;
    rc = cd_cli_output_open(&out, "poses", ops.v[0]);
    if (rc == 0) {
        cd_pose *p = cd_alloc(sizeof *p * (size_t)n);
        cd_poses_generate(seed, distance, (size_t)n, p);
        cd_poses_write_rows(out.f, p, (size_t)n);
        cd_free(p);
        rc = cd_cli_output_close(&out);
    }
    cli_operands_free(&ops);
    return rc;
}
