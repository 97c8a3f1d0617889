// SPDX-License-Identifier: MIT
// cdlab command-line entry: dispatches to the subcommands of commands.c.
#include "cli.h"

#include <errno.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: cdlab <command> [options]   (cdlab help <command> or cdlab <command> --help for "
               "details)\n\ncommands:\n");
    for (const cd_cli_command *c = cd_cli_commands; c->name; ++c) fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

static int is_help(const char *word)
{
    return strcmp(word, "help") == 0 || strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0;
}

// `cdlab help [COMMAND]` (or --help, -h) with argc words after it: the list of commands, or
// COMMAND's own help as `cdlab COMMAND --help` prints it. Anything else is refused, exit 2, as
// `cdlab version x` is: a word that is no command, an option, a second word.
static int help(int argc, char **argv)
{
    if (argc == 0 || (argc == 1 && is_help(argv[0]))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "cdlab help: too many arguments: expected at most one command (cdlab help COMMAND)\n");
        return 2;
    }
    if (argv[0][0] == '-') {
        fprintf(stderr, "cdlab help: unknown option '%s': expected a command (cdlab help COMMAND)\n", argv[0]);
        return 2;
    }
    for (const cd_cli_command *c = cd_cli_commands; c->name; ++c)
        if (strcmp(c->name, argv[0]) == 0) {
            char *args[] = {argv[0], "--help", NULL};
            return c->fn(2, args);
        }
    fprintf(stderr, "cdlab help: unknown command '%s'\n", argv[0]);
    usage(stderr);
    return 2;
}

// Run the command argv[1]; its exit code.
static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (is_help(name)) return help(argc - 2, argv + 2);
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

int main(int argc, char **argv)
{
    // Standard output on a file past a file size limit (ulimit -f) is then a write error that
    // close_stdout reports (exit 1), not SIGXFSZ ending the command with its output cut short.
    cd_file_size_limit_as_error();
    return close_stdout(dispatch(argc, argv));
}
