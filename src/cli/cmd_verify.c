// SPDX-License-Identifier: MIT
// `cdlab verify`: the differential test on the user's methods (cd_verify.h): broad phases against
// naive on seeded scenes, hierarchy variants against brute force on small mesh pairs. One verdict
// line per method; a failing method gets a reproducer: its first failing frame as a scene CSV (or
// pose CSV) and a config that `cdlab run` measures it with beside a reference. The broad phases
// are checked in child processes (check_group), so a plugin's method that crashes fails alone.
#include "cd_core.h"
#include "cd_harness.h"
#include "cd_plugins.h"
#include "cd_registry.h"
#include "cd_verify.h"
#include "cli.h"
#include "options.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { DEFAULT_SCENES = 2000, DEFAULT_POSES = 64, MAX_NAMES = 128 };
// The name beside a repro.ini of the link to a plugin whose path is no config word (plugin_line).
#define REPRO_PLUGIN_LINK "plugin.so"

typedef struct progress {
    double t0;
    int last_tenth;
    const char *what;
    struct group_state *group;  // where a child marks its scenes (check_group), or NULL
} progress;

static void on_progress(uint32_t done, uint32_t total, void *ctx)
{
    progress *p = ctx;
    int tenth = total ? (int)(10ull * done / total) : 10;
    if (tenth == p->last_tenth) return;
    p->last_tenth = tenth;
    fprintf(stderr, "verify: %s %u/%u (%d%%), %.1f s\n", p->what, done, total, tenth * 10,
            (double)(cd_now_ns()) * 1e-9 - p->t0);
}

static int make_dir(const char *path) { return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1; }

// mkdir -p: path's missing ancestors, then path. 0, or -1 with errno set.
static int make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *q = buf + 1; *q; ++q)
        if (*q == '/' && q[-1] != '/') {
            *q = '\0';
            if (make_dir(buf)) return -1;
            *q = '/';
        }
    return make_dir(buf);
}

// Can reproducers go to --out: an existing directory this process may write, or a path whose
// nearest existing ancestor is one (the rest is made when a method fails)? Checked before any
// scene runs. 0, or -1 after saying why.
static int out_usable(const char *out)
{
    char at[4096];
    snprintf(at, sizeof at, "%s", out);
    struct stat st;
    for (;;) {
        if (stat(at, &st) == 0) {
            const char *why = !S_ISDIR(st.st_mode)      ? "not a directory"
                              : access(at, W_OK | X_OK) ? strerror(errno)
                                                        : NULL;
            if (!why) return 0;
            fprintf(stderr,
                    "cdlab verify: --out %s: %s: %s: expected a directory cdlab verify can write reproducers to, or "
                    "one it can make\n",
                    out, at, why);
            return -1;
        }
        if ((errno != ENOENT && errno != ENOTDIR) || strcmp(at, ".") == 0) {
            fprintf(stderr, "cdlab verify: --out %s: %s: %s\n", out, at, strerror(errno));
            return -1;
        }
        char *slash = strrchr(at, '/');  // on to the parent
        while (slash && slash > at && slash[1] == '\0') *slash = '\0', slash = strrchr(at, '/');
        if (!slash)
            snprintf(at, sizeof at, ".");
        else
            slash[slash == at] = '\0';  // "/x" -> "/", "a/b" -> "a"
    }
}

// OUT/<name>/ for a reproducer, into dir (OUT made with its parents); 0, or -1 after saying why.
static int reproducer_dir(const char *out, const char *name, char *dir, size_t len)
{
    snprintf(dir, len, "%s/%s", out, name);
    if (make_dirs(out) == 0 && make_dir(dir) == 0) return 0;
    fprintf(stderr, "cdlab verify: cannot make %s: %s\n", dir, strerror(errno));
    return -1;
}

// A reproducer's config, printf-style; 0, or -1 after saying why.
static int write_config(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int write_config(const char *path, const char *fmt, ...)
{
    FILE *f = fopen(path, "w");
    if (f) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        if (fclose(f) == 0) return 0;
    }
    fprintf(stderr, "cdlab verify: %s: %s\n", path, strerror(errno));
    return -1;
}

// "[method] plugin = PATH" into buf for a method or variant plugin p provides, else "". A path a
// config cannot hold as a word (a comma splits values, a space or # is no word) is named through
// a symbolic link dir/plugin.so to it, which `cdlab run` resolves against the config's directory.
// *name: what the line names (the path, the link's name, or NULL without a plugin). 0, or -1 after
// saying why.
static int plugin_line(const cd_plugin_file *p, const char *dir, char *buf, size_t len, const char **name)
{
    buf[0] = '\0';
    *name = NULL;
    if (!p) return 0;
    if (cd_config_is_word(p->path)) {
        snprintf(buf, len, "plugin = %s\n", p->path);
        *name = p->path;
        return 0;
    }
    char link[4300];
    snprintf(link, sizeof link, "%s/%s", dir, REPRO_PLUGIN_LINK);
    // An earlier run's link is replaced; a file of another kind under the name is left, and refused.
    struct stat st;
    if (lstat(link, &st) == 0 && S_ISLNK(st.st_mode)) unlink(link);
    if (symlink(p->path, link) != 0) {
        fprintf(stderr,
                "cdlab verify: %s: cannot make a link to the plugin %s there: %s (its path is no config word, so "
                "the reproducer names the plugin through the link)\n",
                link, p->path, strerror(errno));
        return -1;
    }
    snprintf(buf, len, "plugin = %s\n", REPRO_PLUGIN_LINK);
    *name = REPRO_PLUGIN_LINK;
    return 0;
}

// Pairs of method m on scene s, one fresh frame; *bad: the candidates a plugin's method named
// outside the scene (cd_broad.bad), which `cdlab run` refuses.
static size_t frame_pairs(const cd_broad_method *m, const cd_param_settings *p, const cd_scene *s, cd_broad_bad *bad)
{
    cd_broad *b = cd_verify_broad_create(m, p, s);
    cd_pair_list out = {0};
    cd_broad_stats st;
    cd_broad_frame(b, s, &out, &st, NULL);
    size_t n = out.count;
    *bad = b->bad;
    cd_pair_list_free(&out);
    cd_broad_destroy(b);
    return n;
}

// The FAIL line of a broad phase: its first failure, and the scene its reproducer holds when
// that is another (a frame that fails alone, preferably one that loses pairs).
static void broad_verdict(const cd_verify_tally *x)
{
    printf("FAIL  %-24s %llu scenes, %llu frames: %llu of %llu pairs missed, %llu extra, %llu duplicated "
           "candidates, %llu bad candidates, %llu overlapping boxes never a candidate",
           x->method->name, (unsigned long long)x->scenes, (unsigned long long)x->frames, (unsigned long long)x->missed,
           (unsigned long long)x->pairs_compared, (unsigned long long)x->extra, (unsigned long long)x->dup_candidates,
           (unsigned long long)x->bad_candidates, (unsigned long long)x->aabb_missing);
    if (x->bad_moves)  // only a coherent method can have them: the others' line stays as it was
        printf(", %llu coherent frames with a move list naming no slots of the scene",
               (unsigned long long)x->bad_moves);
    printf("; first failure: scene %lld frame %d", (long long)x->first_bad, x->first_bad_frame);
    if (x->repro >= 0 && (x->repro != x->first_bad || x->repro_frame != x->first_bad_frame))
        printf("; reproducer: scene %lld frame %d", (long long)x->repro, x->repro_frame);
    printf("\n");
}

// What a reproducer's frame shows: the scene read back from its CSV, naive's and the method's pairs.
typedef struct repro_frame {
    uint32_t scene, cubes;
    int frame, alone;
    size_t want, got;
    cd_broad_bad bad;   // the method's candidates that name no pair of the scene's cubes
    char history[200];  // what t counted that the frame alone cannot show ("": a contract failure)
} repro_frame;

// What t's checks counted beyond the candidate contract (pairs lost or added, bad move lists)
// when its reproducer's frame is no frame that fails alone: those came only with the frames before
// it (a coherent frame's kept pairs, state kept across frames) or with boxes grown onto split
// planes, which a one-frame run of the CSV cannot show; "" otherwise (only the contract failed,
// which the pair set cannot show either).
static void history_failure(const cd_verify_tally *t, const repro_frame *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (r->alone || (t->missed | t->extra | t->bad_moves) == 0) return;
    size_t n = 0;
    if (t->missed) n += (size_t)snprintf(buf + n, len - n, "%llu missed pair(s)", (unsigned long long)t->missed);
    if (t->extra && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s%llu extra pair(s)", n ? " and " : "", (unsigned long long)t->extra);
    if (t->bad_moves && n < len)
        snprintf(buf + n, len - n, "%s%llu coherent frame(s) with a bad move list", n ? " and " : "",
                 (unsigned long long)t->bad_moves);
}

// The comment at the top of a broad reproducer: what `cdlab run` of it shows. plugin: what its
// [method] plugin names (plugin_line), or NULL.
static void repro_comment(char *buf, size_t len, const cd_verify_tally *t, uint64_t seed, const repro_frame *r,
                          const char *plugin)
{
    const char *m = t->method->name;
    int k = snprintf(buf, len, "; cdlab verify: %s fails on this frame (seed %llu, scene %u, frame %d).\n", m,
                     (unsigned long long)seed, r->scene, r->frame);
    if (r->bad.count) {
        snprintf(buf + k, len - (size_t)k,
                 "; cdlab run this file: the point fails (exit 1): %s reports %llu candidate(s) naming no pair\n"
                 "; of the scene's %u cubes, the first (%u, %u).\n",
                 m, (unsigned long long)r->bad.count, r->cubes, r->bad.first.a, r->bad.first.b);
        return;
    }
    if (r->want != r->got) {
        snprintf(buf + k, len - (size_t)k,
                 "; cdlab run this file: summary.csv's pairs_mean of naive (%zu) and of %s "
                 "(%zu) differ.\n",
                 r->want, m, r->got);
        return;
    }
    // The plugin as this file names it: its path, one word, or the link beside this file (a
    // path with a space or a newline would break the command, or this comment).
    int linked = plugin && strcmp(plugin, REPRO_PLUGIN_LINK) == 0;
    if (r->history[0])
        k += snprintf(buf + k, len - (size_t)k,
                      "; Both find the same %zu pairs on this frame alone. What cdlab verify counted came only with\n"
                      "; the frames before it (a coherent frame's kept pairs, state kept across frames) or with\n"
                      "; boxes grown onto split planes, which this file cannot hold, so cdlab run of it shows\n"
                      "; equal pairs_mean: %s. What shows it:\n",
                      r->want, r->history);
    else
        k += snprintf(buf + k, len - (size_t)k,
                      "; Both find the same %zu pairs here: %s broke the candidate contract (an overlapping box pair\n"
                      "; never a candidate, a candidate twice, or an untested one) where the narrow step hides it, so\n"
                      "; cdlab run of this file shows equal pairs_mean. What shows it:\n",
                      r->want, m);
    snprintf(buf + k, len - (size_t)k, "; cdlab verify%s%s --method %s --seed %llu --scenes %u\n%s",
             plugin ? " --plugin " : "", plugin ? plugin : "", m, (unsigned long long)seed, r->scene + 1,
             linked ? "; (in this file's directory: " REPRO_PLUGIN_LINK " links to the plugin)\n" : "");
}

// Write DIR/<method>/scene.csv and repro.ini for t's failure and say what they show.
static void broad_reproducer(const cd_verify_tally *t, uint64_t seed, const char *out)
{
    repro_frame r = {.alone = t->repro >= 0};
    r.scene = (uint32_t)(r.alone ? t->repro : t->first_bad);
    r.frame = r.alone ? t->repro_frame : t->first_bad_frame;
    char dir[4200], csv[4300], ini[4300], err[4600], plug[4200], comment[6000];
    if (reproducer_dir(out, t->method->name, dir, sizeof dir)) return;
    snprintf(csv, sizeof csv, "%s/scene.csv", dir);
    snprintf(ini, sizeof ini, "%s/repro.ini", dir);
    cd_param_settings p;
    cd_scene *s = cd_verify_broad_scene(seed, r.scene, r.frame, &p);
    // The settings the method reads, as [method] lines (naive reads none), with the values the
    // check ran it with: its defaults where the scene's settings are out of its range.
    char params[600] = "";
    cd_params used = cd_verify_broad_params(t->method, &p);
    for (size_t i = 0, n = 0; i < p.count && n < sizeof params; ++i) {
        int j = cd_params_index(&used, p.item[i].name);
        if (j < 0) continue;
        char value[200];
        cd_params_format(&used, (size_t)j, value, sizeof value);
        n += (size_t)snprintf(params + n, sizeof params - n, "%s = %s\n", p.item[i].name, value);
    }
    int bad = cd_scene_export_csv(s, csv, err, sizeof err);
    cd_scene_destroy(s);
    // What `cdlab run` will see: the scene read back from the file, naive beside the method.
    cd_scene *back = bad ? NULL : cd_scene_import_csv(csv, err, sizeof err);
    if (!back) {
        fprintf(stderr, "cdlab verify: %s\n", err);
        return;
    }
    r.cubes = back->count;
    cd_broad_bad none;
    r.want = frame_pairs(cd_registry_find("naive"), &p, back, &none), r.got = frame_pairs(t->method, &p, back, &r.bad);
    cd_scene_destroy(back);
    history_failure(t, &r, r.history, sizeof r.history);
    const char *plugin;
    if (plugin_line(cd_plugins_method_owner(t->method), dir, plug, sizeof plug, &plugin)) return;
    repro_comment(comment, sizeof comment, t, seed, &r, plugin);
    if (write_config(ini,
                     "%s[experiment]\nname = verify_%s\nwarmup = 0\nframes = 1\nrepeats = 1\n\n"
                     "[scene]\nfile = scene.csv\n\n"
                     "[method]\n%smethod = naive, %s\n%s\n"
                     "[run]\ncounters =\n",
                     comment, t->method->name, plug, t->method->name, params))
        return;
    printf("      reproduce: cdlab run %s   (scene %u frame %d, %u cubes; ", ini, r.scene, r.frame, r.cubes);
    if (r.bad.count)
        printf("%s reports candidates naming no pair of the scene's cubes, the first (%u, %u): cdlab run "
               "refuses the point",
               t->method->name, r.bad.first.a, r.bad.first.b);
    else if (r.want != r.got)
        printf("naive finds %zu pairs, %s %zu", r.want, t->method->name, r.got);
    else if (r.history[0])
        printf("naive and %s both find %zu pairs on this frame alone: the %s needed the frames before it",
               t->method->name, r.want, r.history);
    else
        printf("naive and %s both find %zu pairs: a candidate-contract failure the pair set cannot show; "
               "the file's comment says how to see it",
               t->method->name, r.want);
    printf("%s)\n", r.alone ? ""
                    : r.history[0]
                        ? " (or boxes grown onto split planes), which the CSV cannot hold: it is the first failing "
                          "frame all the same; the file's comment says how to see it"
                        : "; the failure needed the frames before it (or boxes grown onto split planes), "
                          "which the CSV cannot hold: it is the first failing frame all the same");
}

// A parameter setting as text: "name = value" items joined by sep ("": the defaults).
static void setting_text(const cd_param_settings *set, const char *sep, char *buf, size_t len)
{
    buf[0] = '\0';
    for (uint32_t i = 0, n = 0; i < set->count && n < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, "%s%s = %s", i ? sep : "", set->item[i].name, set->item[i].text);
}

static void bvh_reproducer(const cd_verify_bvh_tally *t, uint64_t seed, uint32_t poses, const char *out)
{
    size_t np;
    const cd_verify_mesh_pair *mp = &cd_verify_mesh_pairs(&np)[t->first_bad_pair];
    cd_pose *all = cd_alloc((size_t)poses * sizeof *all);
    cd_poses_generate(seed + (uint64_t)t->first_bad_pair, mp->distance, poses, all);
    char dir[4200], csv[4300], ini[4300], err[4600], plug[4200];
    int bad = reproducer_dir(out, t->variant->name, dir, sizeof dir);
    snprintf(csv, sizeof csv, "%s/pose.csv", dir);
    snprintf(ini, sizeof ini, "%s/repro.ini", dir);
    if (!bad && cd_poses_write_csv(csv, &all[t->first_bad], 1, err, sizeof err)) {
        fprintf(stderr, "cdlab verify: %s\n", err);
        bad = 1;
    }
    cd_free(all);
    const char *plugin;
    if (bad || plugin_line(cd_plugins_variant_owner(t->variant), dir, plug, sizeof plug, &plugin)) return;
    const char *ref = strcmp(t->variant->name, "obb") == 0 ? "sphere" : "obb";
    char params[1200];  // the failing setting, as [method] lines
    setting_text(&t->first_bad_params, "\n", params, sizeof params);
    if (write_config(
            ini,
            "; cdlab verify: hierarchy %s disagrees with brute force on this pose (seed %llu, mesh pair %d,\n"
            "; pose %lld, leaf size %d). cdlab run this file: summary.csv's pairs_mean of %s and of %s differ.\n"
            "[experiment]\nkind = mesh\nname = verify_%s\nwarmup = 0\nframes = 1\nrepeats = 1\n\n"
            "[mesh]\na = %s\nb = %s\nposes_file = pose.csv\n\n"
            "[method]\n%shierarchy = %s, %s\nmode = all_pairs\nleaf_size = %d\n%s%s\n[run]\ncounters =\n",
            t->variant->name, (unsigned long long)seed, t->first_bad_pair, (long long)t->first_bad, t->first_bad_leaf,
            ref, t->variant->name, t->variant->name, mp->a, mp->b, plug, ref, t->variant->name, t->first_bad_leaf,
            params, params[0] ? "\n" : ""))
        return;
    printf("      reproduce: cdlab run %s   (%s against %s, one pose)\n", ini, mp->a, mp->b);
}

// The command line of a verification.
typedef struct verify_args {
    uint64_t scenes, poses, seed, threads;
    const char *out;
    const char *names[MAX_NAMES];
    size_t nnames;
    int plugins;
} verify_args;

static int take_plugin(const char *v, void *ctx, char *err, size_t len)
{
    (void)err, (void)len;
    verify_args *a = ctx;
    if (cd_cli_load_plugin("verify", v)) return -1;  // it said why
    a->plugins++;
    return 0;
}

static int take_method(const char *v, void *ctx, char *err, size_t len)
{
    verify_args *a = ctx;
    if (a->nnames == MAX_NAMES) {
        snprintf(err, len, "at most %d methods", MAX_NAMES);
        return -1;
    }
    a->names[a->nnames++] = v;
    return 0;
}

// The command line into a; -1 to go on, else the exit code.
static int verify_parse(int argc, char **argv, verify_args *a)
{
    const cli_opt opts[] = {
        {.name = "plugin",
         .arg = "FILE",
         .help = "load a plugin first (repeatable); without --method, verify only what the\n"
                 "plugins add",
         .type = CLI_CALL,
         .call = take_plugin,
         .ctx = a},
        {.name = "method",
         .arg = "M",
         .help = "a broad phase or hierarchy variant (repeatable); default: every one",
         .type = CLI_CALL,
         .call = take_method,
         .ctx = a},
        {.name = "scenes",
         .arg = "N",
         .help = "broad-phase scenes (default 2000)",
         .type = CLI_COUNT,
         .dest = &a->scenes,
         .lo = 1,
         .hi = 100000000},
        {.name = "poses",
         .arg = "N",
         .help = "poses per mesh pair for the hierarchies (default 64)",
         .type = CLI_COUNT,
         .dest = &a->poses,
         .lo = 1,
         .hi = 1000000},
        {.name = "seed",
         .arg = "S",
         .help = "other scenes and poses (0: those of the differential test)",
         .type = CLI_COUNT,
         .dest = &a->seed,
         .lo = 0,
         .hi = UINT32_MAX},
        {.name = "threads",
         .arg = "T",
         .help = "scenes checked at once (default 1); the verdicts do not depend on it",
         .type = CLI_COUNT,
         .dest = &a->threads,
         .lo = 1,
         .hi = 1024},
        {.name = "out",
         .arg = "DIR",
         .help = "where reproducers go, made with its parents when a method fails\n"
                 "(default cdlab-verify)",
         .type = CLI_TEXT,
         .dest = &a->out},
    };
    const cli_spec spec = {
        .command = "verify",
        .usage = "[--plugin FILE]... [--method M]... [--scenes N] [--poses N] [--seed S]\n"
                 "                    [--threads T] [--out DIR]",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .about = "Check broad phases against naive and hierarchy variants against brute force, as cdlab's own\n"
                 "differential test does (docs/usage.md#cdlab-verify). Broad phases run on N seeded scenes\n"
                 "built to break them: touching lattices, boxes on octree split planes and beyond the walls,\n"
                 "sizes 1:10, densities 0.005..0.5, up to 3 000 cubes, 1..4 frames, reorders; every frame\n"
                 "must give naive's pairs and report each overlapping box pair once (cdlab's peers see every\n"
                 "4th scene, its all every 8th; a plugin's methods every scene). Hierarchy variants run on N\n"
                 "poses of 4 small mesh pairs, leaf sizes 1 and 4, all-pairs and first-hit queries, at\n"
                 "their parameters' defaults and each end of each range, against brute force.\n",
        .after = "Prints progress on stderr and one verdict line per method; exit 0 when all pass, 1 when\n"
                 "one fails (its reproducer: DIR/<method>/repro.ini with the failing frame, run by\n"
                 "`cdlab run DIR/<method>/repro.ini`) or crashes (checked in a process of its own,\n"
                 "it fails with the signal and its scene), 2 on bad usage, a bad plugin, or a check that\n"
                 "cannot run (nothing but naive named, no directory under $TMPDIR, an unusable --out).\n"};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    cli_operands_free(&ops);
    return rc;
}

// What to verify: the named methods, else what the plugins add, else everything but naive. Fills
// bm[0..*nb) and bt[0..*nh).variant; 0, or 2 after naming an unknown method.
static int choose(const verify_args *a, const cd_broad_method **bm, size_t *nb, cd_verify_bvh_tally *bt, size_t *nh)
{
    size_t nm, nv;
    const cd_broad_method *const *methods = cd_registry_methods(&nm);
    const cd_bvh_variant *const *variants = cd_registry_variants(&nv);
    *nb = *nh = 0;
    for (size_t k = 0; k < a->nnames; ++k) {
        const cd_broad_method *m = cd_registry_find(a->names[k]);
        const cd_bvh_variant *var = cd_registry_variant_find(a->names[k]);
        if (!m && !var) {
            fprintf(stderr,
                    "cdlab verify: --method %s: no such broad phase or hierarchy variant (cdlab methods%s "
                    "lists them)\n",
                    a->names[k], a->plugins ? " --plugin FILE" : "");
            return 2;
        }
        if (m && strcmp(m->name, "naive") == 0) {  // the reference itself
            fprintf(stderr, "cdlab verify: --method naive: naive is the reference the broad phases are checked "
                            "against: not checked itself\n");
            m = NULL;
        }
        for (size_t j = 0; m && j < *nb; ++j) m = bm[j] == m ? NULL : m;
        for (size_t j = 0; var && j < *nh; ++j) var = bt[j].variant == var ? NULL : var;
        if (m) bm[(*nb)++] = m;
        if (var) bt[(*nh)++].variant = var;
    }
    if (a->nnames == 0) {
        for (size_t k = 0; k < nm; ++k)
            if (strcmp(methods[k]->name, "naive") != 0 && (!a->plugins || cd_plugins_method_owner(methods[k])))
                bm[(*nb)++] = methods[k];
        for (size_t k = 0; k < nv; ++k)
            if (!a->plugins || cd_plugins_variant_owner(variants[k])) bt[(*nh)++].variant = variants[k];
    }
    return 0;
}

// A new directory under $TMPDIR for the replayed traces, made before any scene runs; its path in
// dir. It holds plain files only (the traces, the simulations' .sha256 and .lock files beside
// theirs), and a scratch directory (cd_scratch_dir_make): SIGINT, SIGTERM or SIGHUP removes it
// until it is removed or kept. 0, or -1 after saying why (an environment problem: exit 2).
static int make_trace_dir(char *dir, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, len, "%s/cdlab-verify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (cd_scratch_dir_make(dir) == 0) return 0;
    fprintf(stderr,
            "cdlab verify: %s: cannot create a directory for the traces: %s: expected $TMPDIR (or /tmp) to be a "
            "writable directory\n",
            dir, strerror(errno));
    dir[0] = '\0';
    return -1;
}

// The replayed traces (cd_verify_broad_traces) in dir. -1 when they could not be written or read.
static int verify_traces(cd_verify_tally *t, size_t nb, const char *dir, double t0)
{
    fprintf(stderr, "verify: replaying traces, %.1f s\n", (double)cd_now_ns() * 1e-9 - t0);
    cd_verify_totals tot = {0};
    char err[600];
    if (cd_verify_broad_traces(t, nb, dir, &tot, err, sizeof err) >= 0) return 0;
    fprintf(stderr, "cdlab verify: traces: %s\n", err);
    return -1;
}

// ---------------------------------------------------------------------------------------------
// The broad phases in child processes: a plugin's method runs its own code in verify's process,
// and one that crashes (a signal) would take every verdict with it and leave the traces' directory.
// Each plugin's method is checked in a child of its own; a run of cdlab's own methods next to each
// other shares one (they share naive's reference and the traces: one child each would double the
// time of a plain `cdlab verify`). The children run one after another, each on --threads workers,
// and print their verdicts themselves, so the lines keep the methods' order. verify itself starts
// no OpenMP threads before the last child is done: libgomp's pool does not survive a fork.

// What a child was doing, in memory it shares with verify, which reads it once the child is gone.
typedef enum group_phase { PHASE_SCENES, PHASE_TRACES, PHASE_VERDICTS, PHASE_DONE } group_phase;
typedef struct group_state {
    volatile int phase;         // group_phase
    volatile int result;        // with PHASE_DONE: 0 all passed, 1 one failed, 2 the traces could not be read
    volatile uint32_t printed;  // methods whose verdict is out (flushed)
    volatile int64_t scene[];   // the scene each worker is on, -1 none
} group_state;

static void mark_scene(int worker, int64_t scene, void *ctx)
{
    const progress *p = ctx;
    p->group->scene[worker] = scene;
}

// The methods bm[0..n) in this process: scenes, traces, then a verdict line each and a reproducer
// for each failure. 0, 1 when one failed, 2 when the traces could not be written or read (no
// verdicts).
static int check_group(const verify_args *a, const cd_broad_method **bm, size_t n, const char *dir, double t0,
                       group_state *g)
{
    cd_verify_tally *t = cd_alloc(n * sizeof *t);
    cd_verify_tallies_init(t, bm, n);
    progress pr = {t0, -1, "scene", g};
    cd_verify_options o = {.scenes = (uint32_t)a->scenes,
                           .seed = a->seed,
                           .threads = (int)a->threads,
                           .progress = on_progress,
                           .scene_mark = mark_scene,
                           .ctx = &pr};
    cd_verify_totals tot;
    cd_verify_broad(t, n, &o, &tot);
    g->phase = PHASE_TRACES;
    if (verify_traces(t, n, dir, t0)) return 2;
    g->phase = PHASE_VERDICTS;
    int failed = 0;
    for (size_t k = 0; k < n; ++k) {
        const cd_verify_tally *x = &t[k];
        if (cd_verify_tally_ok(x)) {
            printf(
                "ok    %-24s %llu scenes, %llu traces, %llu frames, %llu pairs: naive's pairs, each candidate once\n",
                x->method->name, (unsigned long long)x->scenes, (unsigned long long)x->traces,
                (unsigned long long)x->frames, (unsigned long long)x->pairs_compared);
        } else {
            failed = 1;
            broad_verdict(x);
            if (x->trace_bad[0]) printf("      first failing trace frame: %s\n", x->trace_bad);
        }
        fflush(stdout);  // the verdict is out before the reproducer runs the method again
        g->printed = (uint32_t)k + 1;
        if (!cd_verify_tally_ok(x)) broad_reproducer(x, a->seed, a->out);
    }
    fflush(stdout);
    cd_free(t);
    return failed;
}

// The child being waited for, and the handlers it replaced: a terminating signal to verify kills
// the child, waits for it, and then takes the action it had (the traces' directory removed by the
// scratch directory's handler, cd_scratch_dir_make), so no child writes there after it is gone.
static volatile pid_t group_child;
static const int group_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction group_saved[3];

static void on_group_signal(int s)
{
    pid_t pid = group_child;
    if (pid > 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    for (int k = 0; k < 3; ++k)
        if (group_signals[k] == s) sigaction(s, &group_saved[k], NULL);
    raise(s);  // held until this handler returns, then the action verify had
}

// The verdicts of bm[0..n) whose child ended before it said them (status as waitpid gave it): FAIL,
// naming the signal and where the child was; a line under the verdict when it was already out.
static void group_died(const cd_broad_method **bm, size_t n, const group_state *g, int threads, int status)
{
    char how[160], where[400];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "crashed: %s (%s)", cd_signal_name(WTERMSIG(status)), strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "its process ended (exit status %d) before its verdict", WEXITSTATUS(status));
    if (g->phase == PHASE_SCENES) {  // the scenes its workers were on: one of them crashed it
        int on = 0;
        for (int w = 0; w < threads; ++w) on += g->scene[w] >= 0;
        size_t k = (size_t)snprintf(where, sizeof where, "%s",
                                    on == 0   ? " while checking scenes"
                                    : on == 1 ? " on scene "
                                              : " on one of scenes ");
        for (int w = 0, seen = 0; w < threads && k < sizeof where; ++w)
            if (g->scene[w] >= 0)
                k +=
                    (size_t)snprintf(where + k, sizeof where - k, "%s%lld", seen++ ? ", " : "", (long long)g->scene[w]);
    } else {
        snprintf(where, sizeof where, "%s", g->phase == PHASE_TRACES ? " in the replayed traces" : "");
    }
    size_t done = g->phase == PHASE_VERDICTS ? g->printed : 0;
    if (done > 0)  // verdict out, then the reproducer ran the method again
        printf("      %s while writing its reproducer\n", how);
    for (size_t k = done; k < n; ++k) printf("FAIL  %-24s %s%s\n", bm[k]->name, how, where);
    fflush(stdout);
}

// check_group of bm[0..n) in a child process, g shared with it. What check_group returned, or 3
// when the child died first (its methods' verdicts said here).
static int run_group(const verify_args *a, const cd_broad_method **bm, size_t n, const char *dir, double t0,
                     group_state *g)
{
    g->phase = PHASE_SCENES, g->result = 0, g->printed = 0;
    for (uint64_t w = 0; w < a->threads; ++w) g->scene[w] = -1;
    fflush(NULL);  // nothing buffered is written twice
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cdlab verify: cannot start a process for the broad phases: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        // Dies with verify (a verify gone before the call is seen as another parent), and leaves
        // SIGINT, SIGTERM and SIGHUP to it: verify kills this process before it ends by one.
        signal(SIGINT, SIG_IGN), signal(SIGTERM, SIG_IGN), signal(SIGHUP, SIG_IGN);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
        int rc = check_group(a, bm, n, dir, t0, g);
        fflush(NULL);
        g->result = rc;
        g->phase = PHASE_DONE;
        _exit(0);
    }
    group_child = pid;
    for (int k = 0; k < 3; ++k) {
        struct sigaction sa = {.sa_handler = on_group_signal};
        sigfillset(&sa.sa_mask);
        sigaction(group_signals[k], NULL, &group_saved[k]);
        if (group_saved[k].sa_handler != SIG_IGN) sigaction(group_signals[k], &sa, NULL);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    for (int k = 0; k < 3; ++k) sigaction(group_signals[k], &group_saved[k], NULL);
    group_child = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && g->phase == PHASE_DONE) return g->result;
    group_died(bm, n, g, (int)a->threads, status);
    return 3;
}

// The broad phases against naive, the traces in dir: a verdict line each, a reproducer for each
// failure; 1 when one failed, 2 when the traces could not be written or read (no verdicts). The
// traces are kept (and named) when a method failed on the checks, removed when every failure was
// a crash (nothing in them to look into).
static int verify_broad(const verify_args *a, const cd_broad_method **bm, size_t nb, const char *dir, double t0)
{
    size_t bytes = sizeof(group_state) + a->threads * sizeof(int64_t);
    group_state *g = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (g == MAP_FAILED) {
        fprintf(stderr, "cdlab verify: cannot map memory to share with the checks' processes: %s\n", strerror(errno));
        cd_scratch_dir_remove(dir);
        return 2;
    }
    int failed = 0, crashed = 0, rc = 0;
    for (size_t k = 0, end; k < nb && rc != 2; k = end) {
        // A plugin's method alone; cdlab's own, as many as follow each other.
        end = k + 1;
        while (!cd_plugins_method_owner(bm[k]) && end < nb && !cd_plugins_method_owner(bm[end])) ++end;
        rc = run_group(a, bm + k, end - k, dir, t0, g);
        failed |= rc == 1, crashed |= rc == 3;
    }
    munmap(g, bytes);
    if (rc == 2 || failed) {
        cd_scratch_dir_keep(dir);  // named to look into: a signal in the hierarchy check leaves it
        printf("      the traces are kept in %s\n", dir);
    } else {
        cd_scratch_dir_remove(dir);
    }
    // The verdicts are out before the hierarchy check, which may take long: a signal that ends
    // it does not take them with stdout's buffer.
    fflush(stdout);
    return rc == 2 ? 2 : failed || crashed;
}

// The hierarchy variants against brute force, likewise.
static int verify_bvh(const verify_args *a, cd_verify_bvh_tally *bt, size_t nh, double t0)
{
    fprintf(stderr, "verify: %zu hierarchy variant(s), %.1f s\n", nh, (double)cd_now_ns() * 1e-9 - t0);
    cd_verify_bvh(bt, nh, (uint32_t)a->poses, a->seed, (int)a->threads);
    int failed = 0;
    for (size_t k = 0; k < nh; ++k) {
        const cd_verify_bvh_tally *x = &bt[k];
        if (x->first_bad < 0 && x->queries > 0) {
            printf("ok    %-24s %llu queries at %u parameter setting(s), %llu triangle pairs: brute force's pairs, "
                   "first hits right\n",
                   x->variant->name, (unsigned long long)x->queries, x->settings,
                   (unsigned long long)x->pairs_compared);
            continue;
        }
        failed = 1;
        char at[1200];
        setting_text(&x->first_bad_params, ", ", at, sizeof at);
        printf("FAIL  %-24s %llu queries at %u parameter setting(s): %llu of %llu triangle pairs missed, %llu "
               "extra, %llu first hits wrong; first failure: mesh pair %d, pose %lld, leaf size %d%s%s\n",
               x->variant->name, (unsigned long long)x->queries, x->settings, (unsigned long long)x->missed,
               (unsigned long long)x->pairs_compared, (unsigned long long)x->extra,
               (unsigned long long)x->first_hit_wrong, x->first_bad_pair, (long long)x->first_bad, x->first_bad_leaf,
               at[0] ? ", " : "", at);
        bvh_reproducer(x, a->seed, (uint32_t)a->poses, a->out);
    }
    return failed;
}

int cd_cmd_verify(int argc, char **argv)
{
    verify_args a = {.scenes = DEFAULT_SCENES, .poses = DEFAULT_POSES, .seed = 0, .threads = 1, .out = "cdlab-verify"};
    int rc = verify_parse(argc, argv, &a);
    if (rc >= 0) return rc;
    size_t nm, nv, nb, nh, npairs;
    cd_registry_methods(&nm);
    cd_registry_variants(&nv);
    const cd_broad_method **bm = cd_alloc((nm ? nm : 1) * sizeof *bm);
    cd_verify_bvh_tally *bt = cd_alloc_zero(nv ? nv : 1, sizeof *bt);
    rc = choose(&a, bm, &nb, bt, &nh);
    if (rc == 0 && nb + nh == 0) {
        fprintf(stderr, "cdlab verify: nothing to verify: expected a --method other than naive, or none for every "
                        "method\n");
        rc = 2;
    }
    // What the check needs from the machine, before any scene runs: an environment problem exits 2,
    // not 1 (a method that fails) after minutes of scenes.
    char traces[4096] = "";
    if (rc == 0 && (out_usable(a.out) || (nb && make_trace_dir(traces, sizeof traces)))) rc = 2;
    if (rc == 0) {
        cd_verify_mesh_pairs(&npairs);
        printf("cdlab verify: %zu broad phase(s) against naive on %llu scenes, %zu hierarchy variant(s) against brute "
               "force on %llu poses of %zu mesh pairs (seed %llu)\n",
               nb, (unsigned long long)a.scenes, nh, (unsigned long long)a.poses, npairs, (unsigned long long)a.seed);
        fflush(stdout);
        double t0 = (double)cd_now_ns() * 1e-9;
        if (nb) rc = verify_broad(&a, bm, nb, traces, t0);
        if (nh && rc != 2) rc |= verify_bvh(&a, bt, nh, t0);
        printf("cdlab verify: %s in %.1f s\n",
               rc == 2 ? "not completed (the traces could not be written or read)"
               : rc    ? "FAILED"
                       : "all passed",
               (double)cd_now_ns() * 1e-9 - t0);
    }
    cd_free(bm);
    cd_free(bt);
    return rc;
}
