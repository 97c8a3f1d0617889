// SPDX-License-Identifier: MIT
// Small informational subcommands.
#include "cd_kinds.h"
#include "cd_plugins.h"
#include "cd_registry.h"
#include "cd_build_config.h"
#include "cli.h"
#include "options.h"

#include <string.h>

int cd_cli_load_plugin(const char *cmd, const char *path)
{
    char err[1200];
    if (cd_plugins_load(path, cd_kinds(), err, sizeof err) == 0) {
        const cd_plugin_file *f = cd_plugins_find(path);
        if (f && !f->plugin->optimized)
            fprintf(stderr,
                    "cdlab %s: warning: plugin %s was built %s: its times are not comparable with cdlab's "
                    "(build it with -Dbuildtype=release or -O2)\n",
                    cmd, f->plugin->name, f->plugin->build);
        return 0;
    }
    fprintf(stderr, "cdlab %s: --plugin %s\n", cmd, err);
    return -1;
}

// --plugin FILE: load it now, so the listing marks what it adds.
static int load_plugin(const char *path, void *ctx, char *err, size_t len)
{
    (void)ctx, (void)err, (void)len;
    return cd_cli_load_plugin("methods", path);
}

// A method's parameters, one line each under its name: `[method] name`, what it accepts, its
// default, what it means.
static void print_params(const cd_param_spec *spec, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        char accepts[200];
        cd_param_accepts(&spec[i], accepts, sizeof accepts);
        printf("    %-20s %s, default %s: %s\n", spec[i].name, accepts, spec[i].def, spec[i].help);
    }
}

int cd_cmd_methods(int argc, char **argv)
{
    const cli_opt opts[] = {
        {.name = "plugin",
         .arg = "FILE",
         .help = "load a plugin first (repeatable) and mark what it adds",
         .type = CLI_CALL,
         .call = load_plugin},
    };
    const cli_spec spec = {.command = "methods",
                           .usage = "[--plugin FILE]...",
                           .about = "List every registered broad phase, then every hierarchy variant, with a one-line\n"
                                    "description and, indented below it, the parameters it declares (its [method]\n"
                                    "keys: what each accepts, its default and what it means).\n",
                           .opts = opts,
                           .count = sizeof opts / sizeof opts[0]};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    cli_operands_free(&ops);
    if (rc >= 0) return rc;
    size_t n;
    const cd_broad_method *const *m = cd_registry_methods(&n);
    for (size_t i = 0; i < n; ++i) {
        const cd_plugin_file *p = cd_plugins_method_owner(m[i]);
        printf("%-24s %s%s%s%s\n", m[i]->name, m[i]->description, p ? " (plugin " : "", p ? p->path : "", p ? ")" : "");
        print_params(m[i]->params, m[i]->param_count);
    }
    const cd_bvh_variant *const *v = cd_registry_variants(&n);
    printf("\nhierarchy variants ([method] hierarchy):\n");
    for (size_t i = 0; i < n; ++i) {
        const cd_plugin_file *p = cd_plugins_variant_owner(v[i]);
        printf("%-24s %s%s%s%s\n", v[i]->name, v[i]->summary, p ? " (plugin " : "", p ? p->path : "", p ? ")" : "");
        print_params(v[i]->params, v[i]->param_count);
    }
    return 0;
}

int cd_cmd_version(int argc, char **argv)
{
    const cli_spec spec = {
        .command = "version", .usage = "", .about = "Print cdlab's version, build type and compiler.\n"};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    cli_operands_free(&ops);
    if (rc >= 0) return rc;
    printf("cdlab %s (%s, %s)\n", CD_VERSION, CD_BUILD_TYPE, CD_COMPILER);
    return 0;
}
