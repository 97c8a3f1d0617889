// SPDX-License-Identifier: MIT
// Small informational subcommands.
#include "cd_registry.h"
#include "cd_build_config.h"
#include "cli.h"

int cd_cmd_methods(int argc, char **argv)
{
    if (cd_cli_wants_help(argc, argv)) {
        printf("usage: cdlab methods\n\nList every registered broad phase with a one-line description.\n");
        return 0;
    }
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    for (size_t i = 0; i < n; ++i) printf("%-24s %s\n", m[i]->name, m[i]->description);
    return 0;
}

int cd_cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("cdlab %s (%s, %s)\n", CD_VERSION, CD_BUILD_TYPE, CD_COMPILER);
    return 0;
}
