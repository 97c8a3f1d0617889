// SPDX-License-Identifier: MIT
// `cdlab run CONFIG...`: check every config first (exit 2 before anything is written), then run.
#include "cd_kinds.h"
#include "cd_plugins.h"
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: cdlab run [options] CONFIG.ini...\n\n"
               "Run every point of each config (the cartesian product of its lists and ranges) and write\n"
               "<output>/<experiment>/<run-id>/{frames.csv, summary.csv, meta.ini, config.ini}; the newest\n"
               "complete run of an experiment is also reachable as <output>/<experiment>/latest.\n"
               "All configs are checked before the first point runs; a bad config exits 2 with\n"
               "file:line and writes nothing. Ctrl-C or SIGTERM stops after the current point (exit 130 or 143).\n"
               "Until a run is complete its rows are in *.part files and the file INCOMPLETE marks the\n"
               "directory; a run that stops short (interrupted, a failed point, a write error such as a\n"
               "full disk: exit 1, naming the file and the cause) keeps them, INCOMPLETE says why, and\n"
               "latest stays where it was. cdlab plot refuses such a directory.\n"
               "[method] plugin = lib.so loads a plugin's broad phases and hierarchy variants while the\n"
               "config is checked; meta.ini's [plugins] records each one's path, size and SHA-256.\n\n"
               "options (before or after the configs; everything after -- is a config):\n"
               "  --output DIR   results root (overrides [run] output)\n"
               "  --run-id ID    name of the run directory (default: UTC time, e.g. 20260101T120000Z);\n"
               "                 with several configs, each must be of a different experiment\n"
               "  --quiet, -q    no progress or warnings on stderr\n"
               "  --dry-run      check the configs and print the plan, run nothing\n"
               "  --shard I/N    run only shard I (0 <= I < N) of the configs' points: the points split\n"
               "                 into N shards of similar estimated cost, the same split on every machine;\n"
               "                 meta.ini [shard] names the points; `cdlab merge` joins the N shards\n"
               "  --cpu N|auto   pin to PU N instead of [run] cpu; auto: the first PU of this process's\n"
               "                 CPU binding (a batch job's allocation), found with hwloc\n"
               "  --resume       continue the incomplete run --run-id names (without --run-id: the newest\n"
               "                 incomplete run of the same config and shard), keeping its finished points;\n"
               "                 with no such run, start one; a complete one is left as it is\n"
               "  --keys         list every config key of every kind with its default, then exit\n"
               "  --markdown     with --keys: the config reference as Markdown (docs/config.md), with\n"
               "                 every kind's frames.csv and summary.csv columns\n"
               "  -h, --help     this text\n");
}

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

static void print_keys(const cd_key_spec *k, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        char key[80];
        snprintf(key, sizeof key, "[%s] %s", k[i].section, k[i].name);
        printf("  %-22s %-9s %-5s default %-8s  %s\n", key, type_name(k[i].type), k[i].sweep ? "sweep" : "",
               k[i].def && k[i].def[0] ? k[i].def : "-", k[i].help);
    }
}

static void list_keys(void)
{
    size_t n;
    const cd_key_spec *common = cd_common_keys(&n);
    printf("common keys (every kind):\n");
    print_keys(common, n);
    const cd_kind_set *kinds = cd_kinds();
    for (size_t i = 0; i < kinds->count; ++i) {
        const cd_kind *k = kinds->kinds[i];
        printf("\nkind %s: %s (figures: %s)\n", k->name, k->description, k->figures);
        print_keys(k->keys, k->key_count);
        if (k->more_keys) print_keys(k->more_keys, k->more_key_count);
    }
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

static void md_keys(const cd_key_spec *k, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
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
    md_keys(common, n);
    const cd_kind_set *kinds = cd_kinds();
    for (size_t i = 0; i < kinds->count; ++i) {
        const cd_kind *k = kinds->kinds[i];
        printf("\n## Kind `%s`\n\n", k->name);
        putchar(toupper((unsigned char)k->description[0]));
        md_text(k->description + 1);
        printf(". Default figures: `%s`.\n\n| key | accepts | default | meaning |\n|---|---|---|---|\n",
               k->figures);
        md_keys(k->keys, k->key_count);
        if (k->more_keys) md_keys(k->more_keys, k->more_key_count);
        printf("\n`frames.csv` of kind `%s`:\n\n| column | varies | meaning |\n|---|---|---|\n"
               "| `point` | | point number in the plan, 0-based |\n",
               k->name);
        md_columns(k->frame_columns, k->frame_column_count);
        printf("| *one per `[run] counters` event* | yes | the event's count over the frame (NA when it cannot be "
               "read here; meta.ini says why) |\n");
        printf("\n`summary.csv` of kind `%s`:\n\n| column | varies | meaning |\n|---|---|---|\n"
               "| `point` | | point number in the plan, 0-based |\n",
               k->name);
        md_columns(k->summary_columns, k->summary_column_count);
        printf("| `peak_rss_bytes` | yes | peak resident memory of the process that measured the point |\n"
               "| *one per `[run] counters` event* | yes | the event's mean over the point's frames (NA when it "
               "cannot be read) |\n");
    }
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
        fprintf(f, "\n");
    }
}

// The plan of c, or with a shard plan (sp, config k) only shard's points with their costs.
static void print_plan(const cd_config *c, const cd_shard_plan *sp, size_t k, uint32_t shard)
{
    size_t n = cd_plan_size(c);
    printf("%s: experiment %s, kind %s, %zu point(s), sha256 %s\n", c->path, cd_config_text(c, "experiment", "name"),
           c->kind->name, n, c->sha256);
    size_t *pick = calloc(c->key_count, sizeof *pick);
    for (size_t i = 0; i < n && pick; ++i) {
        if (sp && sp->owner[k][i] != shard) continue;
        cd_point p = {.pick = pick};
        cd_point_at(c, i, &p);
        if (sp) {
            char label[400];
            cd_point_label(&p, label, sizeof label);
            printf("  point %zu: %s  (cost %.4g)\n", i, label[0] ? label : "(no sweep)", cd_point_cost(&p));
            continue;
        }
        char label[400];
        cd_point_label(&p, label, sizeof label);
        printf("  point %zu: %s\n", i, label[0] ? label : "(no sweep)");
    }
    free(pick);
}

int cd_cmd_run(int argc, char **argv)
{
    if (cd_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    cd_run_options o = {.argv0 = NULL, .meta_extra = meta_plugins};
    int dry = 0;
    const char *shard = NULL, *cpu = NULL;
    char command[1024] = "cdlab";
    for (int i = 0; i < argc; ++i) {
        size_t n = strlen(command);
        snprintf(command + n, sizeof command - n, " %s", argv[i]);  // argv[0] is "run"
    }
    o.argv0 = command;
    // Options may come before or after the configs (as with getopt's permutation); "--" ends them.
    const char **paths = calloc((size_t)argc, sizeof *paths);
    int n = 0, options_done = 0, keys = 0, markdown = 0;
    for (int i = 1; i < argc; ++i) {
        if (options_done || argv[i][0] != '-' || argv[i][1] == '\0') {
            paths[n++] = argv[i];
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            o.quiet = 1;
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            dry = 1;
        } else if (strcmp(argv[i], "--resume") == 0) {
            o.resume = 1;
        } else if (strcmp(argv[i], "--shard") == 0 && i + 1 < argc) {
            shard = argv[++i];
        } else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc) {
            cpu = argv[++i];
        } else if (strcmp(argv[i], "--keys") == 0) {
            keys = 1;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = 1;
        } else if ((strcmp(argv[i], "--output") == 0 || strcmp(argv[i], "--run-id") == 0) && i + 1 < argc) {
            if (argv[i][2] == 'o')
                o.output = argv[i + 1];
            else
                o.run_id = argv[i + 1];
            ++i;
        } else if (strcmp(argv[i], "--") == 0) {
            options_done = 1;
        } else {
            fprintf(stderr, "cdlab run: unknown option or missing value: %s\n", argv[i]);
            usage(stderr);
            free(paths);
            return 2;
        }
    }
    if (keys || markdown) {
        free(paths);
        if (!keys || n > 0) {
            fprintf(stderr, "cdlab run: --keys [--markdown] takes no config\n");
            return 2;
        }
        if (markdown)
            list_keys_markdown();
        else
            list_keys();
        return 0;
    }
    if (n == 0) {
        fprintf(stderr, "cdlab run: no config given\n");
        usage(stderr);
        free(paths);
        return 2;
    }
    if (shard && cd_shard_parse(shard, &o.shard_index, &o.shard_count)) {
        fprintf(stderr, "cdlab run: --shard '%s': expected I/N with 0 <= I < N <= %u\n", shard, CD_SHARD_MAX);
        free(paths);
        return 2;
    }
    if (cpu) {
        char *end;
        long v = strtol(cpu, &end, 10);
        if (strcmp(cpu, "auto") == 0) {
            o.cpu = cd_pin_first_allowed();
            if (o.cpu < 0) fprintf(stderr, "cdlab run: --cpu auto: hwloc cannot tell this process's CPUs; not pinning\n");
        } else if (*cpu && !*end && v >= 0 && v <= 65535) {
            o.cpu = (int)v;
        } else {
            fprintf(stderr, "cdlab run: --cpu '%s': expected a PU's OS index (0..65535) or auto\n", cpu);
            free(paths);
            return 2;
        }
        o.cpu_set = 1;
    }
    if (o.run_id && (!o.run_id[0] || strchr(o.run_id, '/') || strcmp(o.run_id, ".") == 0 ||
                     strcmp(o.run_id, "..") == 0)) {
        fprintf(stderr, "cdlab run: --run-id '%s': expected a non-empty name without '/'\n", o.run_id);
        free(paths);
        return 2;
    }
    cd_config *cfg = calloc((size_t)n, sizeof *cfg);
    char err[2400];
    int bad = 0;
    for (int k = 0; k < n; ++k)
        if (cd_config_load(cd_kinds(), paths[k], &cfg[k], err, sizeof err)) {
            fprintf(stderr, "cdlab run: %s\n", err);
            bad = 1;
        }
    int status = bad ? 2 : 0;
    // --run-id names one run per experiment: configs of one experiment would share the directory.
    for (int k = 0; !bad && o.run_id && k < n && status == 0; ++k)
        for (int j = 0; j < k; ++j)
            if (strcmp(cd_config_text(&cfg[j], "experiment", "name"), cd_config_text(&cfg[k], "experiment", "name")) == 0) {
                fprintf(stderr, "cdlab run: --run-id with %s and %s, both experiment %s: expected one config per experiment\n",
                        paths[j], paths[k], cd_config_text(&cfg[k], "experiment", "name"));
                status = 2;
                break;
            }
    cd_shard_plan sp = {0};
    if (status == 0 && o.shard_count) {
        cd_shard_plan_make(cfg, (size_t)n, o.shard_count, &sp);
        o.shard_cost = sp.cost[o.shard_index], o.shard_total = sp.total;
        if (dry)
            printf("shard %u/%u: estimated cost %.4g of %.4g (%.1f %%)\n", o.shard_index, o.shard_count,
                   o.shard_cost, sp.total, sp.total > 0 ? 100.0 * o.shard_cost / sp.total : 0.0);
    }
    for (int k = 0; k < n && status == 0; ++k) {
        o.shard_owner = sp.count ? sp.owner[k] : NULL;
        if (dry) {
            print_plan(&cfg[k], sp.count ? &sp : NULL, (size_t)k, o.shard_index);
            continue;
        }
        char dir[4600];
        int rc = cd_run_config(&cfg[k], &o, dir, sizeof dir, err, sizeof err);
        if (dir[0]) printf("%s\n", dir);
        if (rc) {
            if (rc != 130 && rc != 143) fprintf(stderr, "cdlab run: %s\n", err);  // SIGINT, SIGTERM: said already
            status = rc;
        }
    }
    cd_shard_plan_free(&sp);
    for (int k = 0; k < n; ++k) cd_config_free(&cfg[k]);
    free(cfg);
    free(paths);
    return status;
}
