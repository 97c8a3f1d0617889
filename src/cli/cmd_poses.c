// SPDX-License-Identifier: MIT
// `cdlab poses --seed S --poses N --distance D OUT.csv`: export the mesh-pair poses that a mesh
// config with the same seed, poses and distance queries (qw,qx,qy,qz,tx,ty,tz), so other tools can
// run exactly the same queries; `[mesh] poses_file` reads such a file back.
#include "cd_bvh.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *f)
{
    fprintf(f, "usage: cdlab poses [--seed S] [--poses N] [--distance D] OUT.csv\n\n"
               "Write N seeded poses of mesh B (uniform random rotations from seed S, translation (D, 0, 0))\n"
               "as CSV qw,qx,qy,qz,tx,ty,tz with 17 significant digits; the same poses a mesh config with\n"
               "[experiment] seed = S, [mesh] poses = N, distance = D queries. Defaults: S 42, N 200, D 1.0.\n");
    return f == stdout ? 0 : 2;
}

// Parse a number option; 0 or -1 after printing what was expected.
static int number(const char *opt, const char *text, double lo, double hi, int integer, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= lo && v <= hi) || (integer && v != floor(v))) {
        fprintf(stderr, "cdlab poses: %s '%s': expected %s in [%g, %g]\n", opt, text, integer ? "an integer" : "a number",
                lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cd_cmd_poses(int argc, char **argv)
{
    if (cd_cli_wants_help(argc, argv)) return usage(stdout);
    double seed = 42, n = 200, distance = 1.0;
    const char *out = NULL;
    for (int i = 1; i < argc; ++i) {
        int has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--seed") && has_value) {
            if (number("--seed", argv[++i], 0, 9007199254740992.0, 1, &seed)) return 2;
        } else if (!strcmp(argv[i], "--poses") && has_value) {
            if (number("--poses", argv[++i], 1, 1e7, 1, &n)) return 2;
        } else if (!strcmp(argv[i], "--distance") && has_value) {
            if (number("--distance", argv[++i], 0, 1e6, 0, &distance)) return 2;
        } else if (argv[i][0] != '-' && !out) {
            out = argv[i];
        } else {
            fprintf(stderr, "cdlab poses: unexpected argument '%s'\n", argv[i]);
            return usage(stderr);
        }
    }
    if (!out) return usage(stderr);
    cd_pose *p = cd_alloc(sizeof *p * (size_t)n);
    cd_poses_generate((uint64_t)seed, distance, (size_t)n, p);
    char err[600];
    int rc = cd_poses_write_csv(out, p, (size_t)n, err, sizeof err);
    cd_free(p);
    if (rc) {
        fprintf(stderr, "cdlab poses: %s\n", err);
        return 1;
    }
    return 0;
}
