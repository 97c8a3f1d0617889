// SPDX-License-Identifier: MIT
// cdlab command-line entry: dispatches to the subcommands of commands.c.
#include "cli.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: cdlab <command> [options]   (cdlab <command> --help for details)\n\ncommands:\n");
    for (const cd_cli_command *c = cd_cli_commands; c->name; ++c) fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

int main(int argc, char **argv)
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
