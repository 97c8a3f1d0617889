// SPDX-License-Identifier: MIT
// What every subcommand asks first (apart from main.c, so a subcommand's file links without it).
#include "cli.h"

#include <string.h>

int cd_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
    return 0;
}
