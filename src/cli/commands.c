// SPDX-License-Identifier: MIT
// The command table: adding a subcommand is a cd_cmd_<name> in its own file and one line here.
#include "cd_cli.h"

const cd_cli_command cd_cli_commands[] = {
    {"methods", "list the registered broad phases", cd_cmd_methods},
    {"version", "print the version", cd_cmd_version},
    {NULL, NULL, NULL},
};
