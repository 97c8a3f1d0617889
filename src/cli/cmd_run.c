// SPDX-License-Identifier: MIT
// `cdlab run CONFIG...`: check every config first (exit 2 before anything is written), then run.
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "cd_plugins.h"
#include "cli.h"
#include "options.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(cd_key_type t)
{
    switch (t) {
    case CD_KEY_INT: return "integer";
    case CD_KEY_REAL: return "number";
    case CD_KEY_WORD: return "word";
    case CD_KEY_TEXT: return "text";
    case CD_KEY_PATH: return "path";
    default: return "word list";
    }
}

// Whether key k is one that kind refuses (cd_kind.refused_more_keys).
static int refused(const char *const *names, const cd_key_spec *k)
{
    for (; names && *names; ++names) {
        size_t n = strlen(k->section);
        if (strncmp(*names, k->section, n) == 0 && (*names)[n] == '.' && strcmp(*names + n + 1, k->name) == 0) return 1;
    }
    return 0;
}

static void print_keys(const cd_key_spec *k, size_t n, const char *const *skip)
{
    for (size_t i = 0; i < n; ++i) {
        if (refused(skip, &k[i])) continue;
        char key[80];
        snprintf(key, sizeof key, "[%s] %s", k[i].section, k[i].name);
        printf("  %-22s %-9s %-5s default %-8s  %s\n", key, type_name(k[i].type), k[i].sweep ? "sweep" : "",
               k[i].def && k[i].def[0] ? k[i].def : "-", k[i].help);
    }
}

// Method `name`'s parameters, one line each as print_keys writes keys.
static void print_params(const char *name, const cd_param_spec *spec, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        char key[80], accepts[200];
        snprintf(key, sizeof key, "[method] %s", spec[i].name);
        cd_param_accepts(&spec[i], accepts, sizeof accepts);
        printf("  %-22s %-9s %-5s default %-8s  %s: %s (%s)\n", key, "", "sweep", spec[i].def, name, spec[i].help,
               accepts);
    }
}

static void list_keys(void)
{
    size_t n;
    const cd_key_spec *common = cd_common_keys(&n);
    printf("common keys (every kind):\n");
    print_keys(common, n, NULL);
    const cd_kind_set *kinds = cd_kinds();
    for (size_t i = 0; i < kinds->count; ++i) {
        const cd_kind *k = kinds->kinds[i];
        printf("\nkind %s: %s (figures: %s; default %s)\n", k->name, k->description,
               k->all_figures ? k->all_figures : k->figures, k->figures);
        print_keys(k->keys, k->key_count, NULL);
        if (k->more_keys) print_keys(k->more_keys, k->more_key_count, k->refused_more_keys);
    }
    // The [method] keys the methods bring (as `cdlab methods` lists them, builtins only).
    printf("\nmethod parameters ([method] keys of the configs that list the method; not plugins':"
           " cdlab methods --plugin):\n");
    size_t nm;
    const cd_broad_method *const *m = cd_broad_builtin_methods(&nm);
    for (size_t i = 0; i < nm; ++i) print_params(m[i]->name, m[i]->params, m[i]->param_count);
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v) print_params(v->name, v->params, v->param_count);
}

// ---------------------------------------------------------------------------------------------
// The same as Markdown: docs/config.md is this output (the docs_config test compares them).

// s with the characters that would end a table cell or start markup escaped.
static void md_text(const char *s)
{
    for (; *s; ++s) {
        if (*s == '|' || *s == '*' || *s == '_' || *s == '<') putchar('\\');
        putchar(*s);
    }
}

// A bound as a config would write it: integers in full, others as %g.
static void md_number(double v)
{
    if (v == (double)(long long)v && fabs(v) < 1e16)
        printf("%lld", (long long)v);
    else
        printf("%g", v);
}

static void md_accepts(const cd_key_spec *k)
{
    switch (k->type) {
    case CD_KEY_INT:
    case CD_KEY_REAL:
        printf("%s in [", k->type == CD_KEY_INT ? "integer" : "number");
        md_number(k->min);
        printf(", ");
        md_number(k->max);
        printf("]");
        break;
    case CD_KEY_WORD:
        if (k->words) {
            printf("one of ");
            for (const char *const *w = k->words; *w; ++w) printf("%s`%s`", w == k->words ? "" : ", ", *w);
        } else {
            printf("word");
        }
        break;
    case CD_KEY_TEXT: printf("text"); break;
    case CD_KEY_PATH: printf("a file path, or empty for none"); break;
    default: printf("comma list of words"); break;
    }
    if (k->sweep) printf(k->type == CD_KEY_WORD ? "; list" : "; list or range");
}

static void md_keys(const cd_key_spec *k, size_t n, const char *const *skip)
{
    for (size_t i = 0; i < n; ++i) {
        if (refused(skip, &k[i])) continue;
        printf("| `[%s] %s` | ", k[i].section, k[i].name);
        md_accepts(&k[i]);
        printf(" | %s%s%s | ", k[i].def && k[i].def[0] ? "`" : "", k[i].def && k[i].def[0] ? k[i].def : "(none)",
               k[i].def && k[i].def[0] ? "`" : "");
        md_text(k[i].help);
        printf(" |\n");
    }
}

static void md_columns(const cd_column *c, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        printf("| `%s` | %s | ", c[i].name, c[i].varies ? "yes" : "");
        md_text(c[i].help);
        printf(" |\n");
    }
}

// One method's parameter table (nothing for a method without parameters).
static void md_params(const char *name, const char *what, const cd_param_spec *spec, size_t count)
{
    if (!count) return;
    printf("\n#### `%s`\n\n", name);
    putchar(toupper((unsigned char)what[0]));
    md_text(what + 1);
    printf(".\n\n| key | accepts | default | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < count; ++i) {
        char accepts[200];
        cd_param_accepts(&spec[i], accepts, sizeof accepts);
        printf("| `[method] %s` | %s; list or range | `%s` | ", spec[i].name, accepts, spec[i].def);
        md_text(spec[i].help);
        printf(" |\n");
    }
}

// The parameters cdlab's broad phases and hierarchy variants declare (peers and plugins aside:
// `cdlab methods --plugin` lists a plugin's).
static void md_method_params(void)
{
    printf("\n## Method parameters\n\n"
           "Each broad phase and hierarchy variant declares its own parameters (name, accepted values, default,\n"
           "meaning) in a table in its source file; they are `[method]` keys of the configs that list it, checked\n"
           "against that table, and key columns of `frames.csv` and `summary.csv`. A method is crossed only\n"
           "with the parameters it declares (`method = naive, octree` with `depth = 0..24` is 1 + 25 points);\n"
           "a parameter that no listed method reads is a warning. `cdlab methods` lists them too.\n\n"
           "### Broad phases (`[method] method`)\n");
    size_t n;
    const cd_broad_method *const *m = cd_broad_builtin_methods(&n);
    for (size_t i = 0; i < n; ++i) md_params(m[i]->name, m[i]->description, m[i]->params, m[i]->param_count);
    printf("\n### Hierarchy variants (`[method] hierarchy`)\n");
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v)
        md_params(v->name, v->summary, v->params, v->param_count);
}

static void list_keys_markdown(void)
{
    size_t n;
    const cd_key_spec *common = cd_common_keys(&n);
    printf("# Config reference\n\n"
           "<!-- Generated by `cdlab run --keys --markdown`; do not edit (the docs_config test checks that this "
           "page equals the program's output). -->\n\n"
           "Every key a config may set, by kind, with what it accepts and its default, then the columns of the\n"
           "kind's `frames.csv` and `summary.csv`. Keys marked *list or range* may hold a sweep (`a, b, c`,\n"
           "`a..b`, `a..b +step`, `a..b *factor`); the run measures the cartesian product of all sweeps (see\n"
           "[usage.md](usage.md#config-files)). Columns marked *varies* differ from run to run of the same\n"
           "config (times, memory, hardware counters); meta.ini lists them, and every other column is\n"
           "deterministic.\n\n"
           "## Common keys (every kind)\n\n"
           "| key | accepts | default | meaning |\n|---|---|---|---|\n");
    md_keys(common, n, NULL);
    const cd_kind_set *kinds = cd_kinds();
    for (size_t i = 0; i < kinds->count; ++i) {
        const cd_kind *k = kinds->kinds[i];
        printf("\n## Kind `%s`\n\n", k->name);
        putchar(toupper((unsigned char)k->description[0]));
        md_text(k->description + 1);
        printf(". Figures: `%s`; default: `%s`.\n\n| key | accepts | default | meaning |\n|---|---|---|---|\n",
               k->all_figures ? k->all_figures : k->figures, k->figures);
        md_keys(k->keys, k->key_count, NULL);
        if (k->more_keys) md_keys(k->more_keys, k->more_key_count, k->refused_more_keys);
        if (k->method_key_count)
            printf("\nThe methods that `[method] %s` names bring their own parameters as `[method]` keys (see [Method "
                   "parameters](#method-parameters)); the plan crosses each method only with the parameters it "
                   "declares.\n",
                   k->method_keys[0].name);
        printf("\n`frames.csv` of kind `%s`:\n\n| column | varies | meaning |\n|---|---|---|\n"
               "| `point` | | point number in the plan, 0-based |\n"
               "| *key columns* | | every key above marked *list or range*, and every parameter of a listed method, in "
               "table "
               "order: the point's value (NA for a parameter its method does not read); a column of the kind's own "
               "below of the same name takes the key's place |\n",
               k->name);
        md_columns(k->frame_columns, k->frame_column_count);
        printf("| *one per `[run] counters` event* | yes | the event's count over the frame (NA when it cannot be "
               "read here; meta.ini says why) |\n");
        printf("\n`summary.csv` of kind `%s`:\n\n| column | varies | meaning |\n|---|---|---|\n"
               "| `point` | | point number in the plan, 0-based |\n"
               "| *key columns* | | every key above marked *list or range*, and every parameter of a listed method, in "
               "table "
               "order: the point's value (NA for a parameter its method does not read); a column of the kind's own "
               "below of the same name takes the key's place |\n",
               k->name);
        md_columns(k->summary_columns, k->summary_column_count);
        printf("| `peak_rss_bytes` | yes | peak resident memory of the process that measured the point |\n"
               "| *one per `[run] counters` event* | yes | the event's mean over the point's frames (NA when it "
               "cannot be read) |\n");
    }
    md_method_params();
}

// meta.ini's [plugins]: each plugin the config's [method] plugin names, as loaded, so a run says
// exactly which code it measured.
static void meta_plugins(FILE *f, const cd_config *c, void *ctx)
{
    (void)ctx;
    const cd_config_key *k = cd_config_key_find(c, "method", "plugin");
    if (!k || k->count == 0) return;
    fprintf(f, "\n[plugins]\n; the shared objects [method] plugin loaded: path, bytes, SHA-256, what each provides\n");
    for (size_t i = 0; i < k->count; ++i) {
        char path[4096];
        cd_config_resolve(c, k->values[i].text, path, sizeof path);
        const cd_plugin_file *p = cd_plugins_find(path);
        CD_ASSERT(p);  // the config loaded it
        fprintf(f, "p%zu_path = %s\np%zu_size = %llu\np%zu_sha256 = %s\np%zu_name = %s\np%zu_provides = ", i + 1,
                p->path, i + 1, (unsigned long long)p->size, i + 1, p->sha256, i + 1, p->plugin->name, i + 1);
        for (size_t m = 0; m < p->plugin->method_count; ++m)
            fprintf(f, "%s%s", m ? ", " : "", p->plugin->methods[m]->name);
        for (size_t v = 0; v < p->plugin->variant_count; ++v)
            fprintf(f, "%s%s (hierarchy)", v || p->plugin->method_count ? ", " : "", p->plugin->variants[v].name);
        fprintf(f, "\np%zu_build = %s\n", i + 1, p->plugin->build);
    }
}

// The plan of c, or with a shard plan (sp, config k) only shard's points with their costs.
// The command line of a run.
typedef struct run_args {
    cd_run_options o;
    int dry, keys, markdown;
    cli_operands configs;
} run_args;

// --shard I/N.
static int take_shard(const char *v, void *ctx, char *err, size_t len)
{
    run_args *a = ctx;
    if (cd_shard_parse(v, &a->o.shard_index, &a->o.shard_count) == 0) return 0;
    snprintf(err, len, "I/N with 0 <= I < N <= %u", CD_SHARD_MAX);
    return -1;
}

// --cpu N|auto.
static int take_cpu(const char *v, void *ctx, char *err, size_t len)
{
    run_args *a = ctx;
    uint64_t n;
    if (strcmp(v, "auto") == 0) {
        a->o.cpu = cd_pin_first_allowed();
        if (a->o.cpu < 0)
            fprintf(stderr, "cdlab run: --cpu auto: hwloc cannot tell this process's CPUs; not pinning\n");
    } else if (cli_parse_count(v, 0, 65535, &n) == 0) {
        a->o.cpu = (int)n;
    } else {
        snprintf(err, len, "a PU's OS index (0..65535) or auto");
        return -1;
    }
    a->o.cpu_set = 1;
    return 0;
}

// --run-id ID: one portable file name (POSIX's portable filename characters: letters, digits, '.',
// '_', '-'), at most RUN_ID_MAX of them, not starting with '.' or '-' (the run directory's
// neighbours `latest` and `.latest.<pid>`, options), and not `latest` itself.
enum { RUN_ID_MAX = 64 };
static int take_run_id(const char *v, void *ctx, char *err, size_t len)
{
    run_args *a = ctx;
    size_t n = strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
    if (v[0] && !v[n] && n <= RUN_ID_MAX && v[0] != '.' && v[0] != '-' && strcmp(v, "latest") != 0) {
        a->o.run_id = v;
        return 0;
    }
    snprintf(err, len,
             "a name of 1 to %d letters, digits, '.', '_' or '-', not starting with '.' or '-', and not "
             "'latest' (the link to the newest run)",
             RUN_ID_MAX);
    return -1;
}

// What cli_parse left in rc (< 0: go on) checked against the operands: --keys takes none, a run
// needs one; --keys lists the keys here (0).
static int run_parse_checked(run_args *a, int rc)
{
    const cd_run_options *o = &a->o;
    int run_opts = a->dry || o->shard_count || o->resume || o->output || o->run_id || o->cpu_set || o->quiet;
    if (rc < 0 && (a->keys || a->markdown) && (!a->keys || a->configs.n > 0 || run_opts)) {
        fprintf(stderr, "cdlab run: --keys [--markdown] takes no config and no other option\n");
        rc = 2;
    } else if (rc < 0 && !a->keys && a->configs.n == 0) {
        fprintf(stderr, "cdlab run: no config given (see cdlab run --help)\n");
        rc = 2;
    } else if (rc < 0 && a->keys) {
        if (a->markdown)
            list_keys_markdown();
        else
            list_keys();
        rc = 0;
    }
    return rc;
}

static const char run_about[] =
    "Run every point of each config (the cartesian product of its lists and ranges) and write\n"
    "<output>/<experiment>/<run-id>/{frames.csv, summary.csv, meta.ini, config.ini}; the newest\n"
    "complete run of an experiment is also reachable as <output>/<experiment>/latest.\n"
    "All configs are checked before the first point runs; a bad config exits 2 with\n"
    "file:line and writes nothing. Ctrl-C or SIGTERM stops after the current point (exit 130 or 143);\n"
    "a second one ends the current point at once, and [run] point_timeout fails a point that runs\n"
    "longer. A point's process dies with the runner; while the run may write, it holds a lock on\n"
    "INCOMPLETE, by which readers tell a run in progress from an abandoned one.\n"
    "Until a run is complete its rows are in *.part files and the file INCOMPLETE marks the\n"
    "directory; a run that stops short (interrupted, a failed point, a write error such as a\n"
    "full disk: exit 1, naming the file and the cause) keeps them, INCOMPLETE says why, and\n"
    "latest stays where it was. cdlab plot refuses such a directory.\n"
    "[method] plugin = lib.so loads a plugin's broad phases and hierarchy variants while the\n"
    "config is checked; meta.ini's [plugins] records each one's path, size and SHA-256.\n\n"
    "Options may come before or after the configs; everything after -- is a config.\n";

// The command line into a; -1 to go on, else the exit code.
static int run_parse(int argc, char **argv, run_args *a)
{
    int quiet = 0, resume = 0;
    const cli_opt opts[] = {
        {.name = "output",
         .arg = "DIR",
         .help = "results root (overrides [run] output)",
         .type = CLI_TEXT,
         .dest = &a->o.output},
        {.name = "run-id",
         .arg = "ID",
         .help = "name of the run directory (default: UTC time, e.g. 20260101T120000Z):\n"
                 "letters, digits, '.', '_', '-', at most 64, not 'latest'; with several\n"
                 "configs, each must be of a different experiment",
         .type = CLI_CALL,
         .call = take_run_id,
         .ctx = a},
        {.name = "quiet",
         .short_name = 'q',
         .help = "no progress or warnings on stderr",
         .type = CLI_FLAG,
         .dest = &quiet},
        {.name = "dry-run",
         .help = "check the configs and print the plan, run nothing",
         .type = CLI_FLAG,
         .dest = &a->dry},
        {.name = "shard",
         .arg = "I/N",
         .help = "run only shard I (0 <= I < N) of the configs' points: the points split\n"
                 "into N shards of similar estimated cost, the same split on every machine;\n"
                 "meta.ini [shard] names the points; `cdlab merge` joins the N shards",
         .type = CLI_CALL,
         .call = take_shard,
         .ctx = a},
        {.name = "cpu",
         .arg = "N|auto",
         .help = "pin to PU N instead of [run] cpu; auto: the first PU of this process's\n"
                 "CPU binding (a batch job's allocation), found with hwloc",
         .type = CLI_CALL,
         .call = take_cpu,
         .ctx = a},
        {.name = "resume",
         .help = "continue the incomplete run --run-id names (without --run-id: the newest\n"
                 "incomplete run of the same config and shard), keeping its finished points\n"
                 "(meta.ini [run] points_resumed, 0 when none, and resumed_from); with no such\n"
                 "run, start one; a complete one is left as it is",
         .type = CLI_FLAG,
         .dest = &resume},
        {.name = "keys",
         .help = "list every config key of every kind and every method parameter with its\n"
                 "default, then exit",
         .type = CLI_FLAG,
         .dest = &a->keys},
        {.name = "markdown",
         .help = "with --keys: the config reference as Markdown (docs/config.md), with\n"
                 "every kind's frames.csv and summary.csv columns",
         .type = CLI_FLAG,
         .dest = &a->markdown},
    };
    const cli_spec spec = {.command = "run",
                           .usage = "[options] CONFIG.ini...",
                           .opts = opts,
                           .count = sizeof opts / sizeof opts[0],
                           .min_operands = 0,
                           .max_operands = -1,
                           .operands = "config files",
                           .about = run_about};
    int rc = cli_parse(&spec, argc, argv, &a->configs);
    a->o.quiet = quiet, a->o.resume = resume;
    return run_parse_checked(a, rc);
}

// Load every config; 0, or 2 after saying what is wrong with each bad one.
static int load_configs(const run_args *a, cd_config *cfg)
{
    char err[2400];
    int status = 0;
    for (int k = 0; k < a->configs.n; ++k)
        if (cd_config_load(cd_kinds(), a->configs.v[k], &cfg[k], err, sizeof err)) {
            fprintf(stderr, "cdlab run: %s\n", err);
            status = 2;
        }
    // --run-id names one run per experiment: configs of one experiment would share the directory.
    for (int k = 0; status == 0 && a->o.run_id && k < a->configs.n; ++k)
        for (int j = 0; j < k && status == 0; ++j)
            if (strcmp(cd_config_text(&cfg[j], "experiment", "name"), cd_config_text(&cfg[k], "experiment", "name")) ==
                0) {
                fprintf(stderr,
                        "cdlab run: --run-id with %s and %s, both experiment %s: expected one config per experiment\n",
                        a->configs.v[j], a->configs.v[k], cd_config_text(&cfg[k], "experiment", "name"));
                status = 2;
            }
    return status;
}

// Run (or with --dry-run, list) every config's points; the exit code.
static int run_configs(run_args *a, cd_config *cfg)
{
    cd_run_options *o = &a->o;
    cd_shard_plan sp = {0};
    int n = a->configs.n, status = 0;
    if (o->shard_count) {
        cd_shard_plan_make(cfg, (size_t)n, o->shard_count, &sp);
        o->shard_cost = sp.cost[o->shard_index], o->shard_total = sp.total;
        if (a->dry)
            printf("shard %u/%u: estimated %.4g s of %.4g s (%.1f %%)\n", o->shard_index, o->shard_count, o->shard_cost,
                   sp.total, sp.total > 0 ? 100.0 * o->shard_cost / sp.total : 0.0);
    }
    for (int k = 0; k < n && status == 0; ++k) {
        o->shard_owner = sp.count ? sp.owner[k] : NULL;
        if (a->dry) {
            cd_cli_print_plan(&cfg[k], o->shard_owner, o->shard_index, o->output);
            if (!o->quiet) {
                cd_cli_warn_config(&cfg[k]);
                cd_cli_warn_memory(&cfg[k], o->shard_owner, o->shard_index);
                cd_cli_warn_disk(&cfg[k], o->shard_owner, o->shard_index, o->output);
            }
            continue;
        }
        if (!o->quiet) {
            cd_cli_warn_memory(&cfg[k], o->shard_owner, o->shard_index);
            cd_cli_warn_disk(&cfg[k], o->shard_owner, o->shard_index, o->output);
        }
        char dir[4600], err[2400];
        int rc = cd_run_config(&cfg[k], o, dir, sizeof dir, err, sizeof err);
        if (dir[0]) printf("%s\n", dir);
        if (rc) {
            if (rc != 130 && rc != 143) fprintf(stderr, "cdlab run: %s\n", err);  // SIGINT, SIGTERM: said already
            status = rc;
        }
    }
    cd_shard_plan_free(&sp);
    return status;
}

int cd_cmd_run(int argc, char **argv)
{
    run_args a = {.o = {.argv0 = NULL, .meta_extra = meta_plugins}};
    char command[1024] = "cdlab";
    for (int i = 0; i < argc; ++i) {
        size_t n = strlen(command);
        snprintf(command + n, sizeof command - n, " %s", argv[i]);  // argv[0] is "run"
    }
    a.o.argv0 = command;
    int status = run_parse(argc, argv, &a);
    if (status >= 0) {
        cli_operands_free(&a.configs);
        return status;
    }
    cd_config *cfg = calloc((size_t)a.configs.n, sizeof *cfg);
    status = load_configs(&a, cfg);
    if (status == 0) status = run_configs(&a, cfg);
    for (int k = 0; k < a.configs.n; ++k) cd_config_free(&cfg[k]);
    free(cfg);
    cli_operands_free(&a.configs);
    return status;
}
