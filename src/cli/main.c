// SPDX-License-Identifier: MIT
// cdlab command-line entry: dispatches to the subcommands of commands.c.
#include "cli.h"

#include <errno.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: cdlab <command> [options]   (cdlab <command> --help for details)\n\ncommands:\n");
    for (const cd_cli_command *c = cd_cli_commands; c->name; ++c) fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

// Run the command argv[1]; its exit code.
static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) name = "version";
    for (const cd_cli_command *c = cd_cli_commands; c->name; ++c)
        if (strcmp(c->name, name) == 0) return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "cdlab: unknown command '%s'\n", name);
    usage(stderr);
    return 2;
}

// Output that never reached standard output is an error, as in coreutils' close_stdout: stdio
// reports a failed write only through the stream's error flag and the final flush, so check both
// once every command has written all it will (a full disk, /dev/full, a closed pipe's EIO).
static int close_stdout(int rc)
{
    errno = 0;
    int flush_failed = fflush(stdout) != 0, e = errno;
    int failed = flush_failed || ferror(stdout);
    if (fclose(stdout) != 0 && !failed) failed = 1, e = errno;
    if (!failed) return rc;
    // An earlier failed write set the flag; a flush that then succeeds no longer knows why, unless
    // the command that gave up at that write kept it (cd_cli_output_failed).
    if (!e) e = cd_cli_stdout_cause();
    fprintf(stderr, "cdlab: write error%s%s\n", e ? ": " : "", e ? strerror(e) : "");
    return rc ? rc : 1;
}

int main(int argc, char **argv) { return close_stdout(dispatch(argc, argv)); }
