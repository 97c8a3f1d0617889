// SPDX-License-Identifier: MIT
// Small informational subcommands.
#include "cd_plugins.h"
#include "cd_registry.h"
#include "cd_build_config.h"
#include "cli.h"

#include <string.h>

int cd_cli_load_plugin(const char *cmd, const char *path)
{
    char err[1200];
    if (cd_plugins_load(path, err, sizeof err) == 0) return 0;
    fprintf(stderr, "cdlab %s: --plugin %s\n", cmd, err);
    return -1;
}

int cd_cmd_methods(int argc, char **argv)
{
    if (cd_cli_wants_help(argc, argv)) {
        printf("usage: cdlab methods [--plugin FILE]...\n\n"
               "List every registered broad phase, then every hierarchy variant, with a one-line\n"
               "description; --plugin loads a plugin first (repeatable) and marks what it adds.\n");
        return 0;
    }
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
            if (cd_cli_load_plugin("methods", argv[++i])) return 2;
        } else {
            fprintf(stderr, "cdlab methods: unknown argument '%s': expected --plugin FILE\n", argv[i]);
            return 2;
        }
    }
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    for (size_t i = 0; i < n; ++i) {
        const cd_plugin_file *p = cd_plugins_method_owner(m[i]);
        printf("%-24s %s%s%s%s\n", m[i]->name, m[i]->description, p ? " (plugin " : "", p ? p->path : "", p ? ")" : "");
    }
    const cd_bvh_variant *const *v = cd_registry_variants(&n);
    printf("\nhierarchy variants ([method] hierarchy):\n");
    for (size_t i = 0; i < n; ++i) {
        const cd_plugin_file *p = cd_plugins_variant_owner(v[i]);
        printf("%-24s %s%s%s%s\n", v[i]->name, v[i]->summary, p ? " (plugin " : "", p ? p->path : "", p ? ")" : "");
    }
    return 0;
}

int cd_cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("cdlab %s (%s, %s)\n", CD_VERSION, CD_BUILD_TYPE, CD_COMPILER);
    return 0;
}
