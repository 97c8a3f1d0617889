// SPDX-License-Identifier: MIT
// `cdlab snapshot CONFIG|RUN_DIR [--frame K] [-o STEM]`: the scene a cubes or bodies point
// measures (cd_kinds_view), at frame K, drawn by gnuplot (plots/snapshot.gp) as PNG and SVG: the
// boxes as wireframes (a seeded sample above --max-boxes), the boxes of overlapping pairs
// highlighted, and the broad phase's cells (octree nodes, grid rows) where the method lists them
// (cd_broad_method.cells). The seed report debugged its octree with exactly this picture.
#include "cd_broad.h"
#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "cli.h"
#include "options.h"
#include "rundir.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// The 12 edges of a box given by its 8 corners (corner k: bit a set = high side of axis a), as
// the fewest polylines: every corner has three edges, so at least four; here one of nine edges
// (the low-z face, an edge up, the high-z face) and three single edges. Fewer, longer paths keep
// the SVG small (gnuplot writes one element per path).
static void edges(FILE *f, const cd_vec3 c[8], int tag, double ext[2])
{
    for (int k = 0; k < 8; ++k) {  // the plot's range: gnuplot drops lines that leave it
        ext[0] = fmin(ext[0], fmin(c[k].x, fmin(c[k].y, c[k].z)));
        ext[1] = fmax(ext[1], fmax(c[k].x, fmax(c[k].y, c[k].z)));
    }
    static const int path[] = {0, 1, 3, 2, 0, 4, 5, 7, 6, 4, -1, 1, 5, -1, 3, 7, -1, 2, 6, -1};
    for (size_t k = 0; k < sizeof path / sizeof path[0]; ++k) {
        if (path[k] < 0) {
            fputs("\n\n", f);  // two blank lines: a new block, not joined to the last as a surface
            continue;
        }
        fprintf(f, "%.7g %.7g %.7g %d\n", c[path[k]].x, c[path[k]].y, c[path[k]].z, tag);
    }
}

static void obb_edges(FILE *f, const cd_obb *o, double ext[2])
{
    cd_vec3 c[8];
    for (int k = 0; k < 8; ++k) {
        cd_vec3 v = o->c;
        for (int a = 0; a < 3; ++a) {
            double h = (&o->half.x)[a] * ((k >> a) & 1 ? 1 : -1);
            v = cd_v3_add(v, cd_v3_scale(o->axes.col[a], h));
        }
        c[k] = v;
    }
    edges(f, c, 0, ext);
}

typedef struct cell_out {
    FILE *f;
    size_t count;
    int max_level;
    double *ext;
} cell_out;

static void on_cell(void *ctx, const cd_aabb *b, int level)
{
    cell_out *o = ctx;
    cd_vec3 c[8];
    for (int k = 0; k < 8; ++k)
        c[k] = cd_v3(k & 1 ? b->hi.x : b->lo.x, k & 2 ? b->hi.y : b->lo.y, k & 4 ? b->hi.z : b->lo.z);
    edges(o->f, c, level + 1, o->ext);  // gnuplot's `lc variable` colours by level, from linetype 1
    o->count++;
    if (level > o->max_level) o->max_level = level;
}

typedef struct snapshot_args {
    const char *source, *stem, *plots;
    const char *where[16];  // KEY=VALUE conditions on the point
    int nwhere;
    uint64_t frame, point, max_boxes;
    int have_point;
} snapshot_args;

// The largest --frame: the last frame a run can measure ([experiment] warmup and frames at their
// maxima, 10^7 each, frame K = warmup + f + 1), so any frame of any run can be drawn and a typo
// cannot start a run of 10^12 frames.
#define SNAPSHOT_MAX_FRAME 20000000ull
#define SNAPSHOT_MAX_FRAME_TEXT "20000000"

// The output files: STEM.png and STEM.svg, or the one file a stem ending in .png or .svg names.
typedef struct outputs {
    char path[2][4300];
    const char *format[2];
    int count;
} outputs;

static void outputs_of(const char *stem, outputs *o)
{
    static const char *const formats[] = {"png", "svg"};
    size_t len = strlen(stem);
    o->count = 0;
    for (int e = 0; e < 2; ++e)
        if (len > 4 && stem[len - 4] == '.' && strcmp(stem + len - 3, formats[e]) == 0) {
            snprintf(o->path[0], sizeof o->path[0], "%s", stem);
            o->format[o->count++] = formats[e];
        }
    for (int e = 0; o->count == 0 && e < 2; ++e) {
        snprintf(o->path[e], sizeof o->path[e], "%s.%s", stem, formats[e]);
        o->format[e] = formats[e];
    }
    if (o->count == 0) o->count = 2;
}

// Step the view to frame a->frame, its pairs into pairs, with progress and an ETA on stderr every
// second once it runs longer than one. 0, or -1 with why set (cd_kinds_view_frame).
static int run_frames(cd_kinds_view *v, const snapshot_args *a, cd_pair_list *pairs, char *why, size_t len)
{
    uint64_t t0 = cd_now_ns(), shown = t0;
    // Frame k = k frames of motion from the start of a repeat, each with the method's frame (methods
    // that follow motion see every one); frame 0 is the seeded scene's own pairs.
    for (uint64_t k = 0; k < a->frame; ++k) {
        if (cd_kinds_view_frame(v, 1, pairs, why, len)) return -1;
        uint64_t now = cd_now_ns();
        if (now - shown > 1000000000ull) {
            double spent = (double)(now - t0) * 1e-9, left = spent / (double)(k + 1) * (double)(a->frame - k - 1);
            fprintf(stderr, "cdlab snapshot: frame %" PRIu64 " of %" PRIu64 " (%.0f%%), %.0f s, ETA %.0f s\n", k + 1,
                    a->frame, 100.0 * (double)(k + 1) / (double)a->frame, spent, left);
            shown = now;
        }
    }
    return a->frame == 0 ? cd_kinds_view_frame(v, 0, pairs, why, len) : 0;
}

typedef struct drawn_count {
    size_t drawn, hits;
} drawn_count;

// The boxes into fp (those in a pair) and fb (the others, up to max_boxes: a seeded sample, in
// reservoir order from CD_STREAM_SNAPSHOT, when there are more).
static drawn_count write_boxes(const cd_scene *s, const cd_pair_list *pairs, const cd_point *p, uint64_t max_boxes,
                               FILE *fb, FILE *fp, double *ext)
{
    unsigned char *hit = cd_alloc_zero(s->count ? s->count : 1, 1);
    for (size_t i = 0; i < pairs->count; ++i) hit[pairs->items[i].a] = hit[pairs->items[i].b] = 1;
    uint32_t *order = cd_alloc((s->count ? s->count : 1) * sizeof *order);
    for (uint32_t i = 0; i < s->count; ++i) order[i] = i;
    cd_rng rng = cd_rng_make((uint64_t)cd_point_num(p, "experiment", "seed"), CD_STREAM_SNAPSHOT);
    for (uint32_t i = s->count; i > 1; --i) {
        uint32_t j = (uint32_t)cd_rng_below(&rng, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    drawn_count n = {0, 0};
    for (uint32_t k = 0; k < s->count; ++k) {
        uint32_t slot = order[k];
        int in_pair = hit[cd_scene_ident(s, slot)];
        if (!in_pair && n.drawn >= max_boxes) continue;
        cd_obb o = cd_scene_obb(s, slot);
        obb_edges(in_pair ? fp : fb, &o, ext);
        in_pair ? n.hits++ : n.drawn++;
    }
    cd_free(hit);
    cd_free(order);
    return n;
}

// gnuplot's file scratch/out.<format> to path, checked to be what its name says (a PNG's
// signature, an SVG's <svg element) and written as every output is (cd_file_out: whole or not at
// all, a link written through, an existing file's permissions kept, also across file systems,
// where a rename of the scratch file cannot go); 0 or 1.
static int move_output(const char *scratch, const char *format, const char *path)
{
    char from[4400], why[512];
    snprintf(from, sizeof from, "%s/out.%s", scratch, format);
    char *data;
    size_t n;
    if (cd_file_load(from, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &data, &n, why, sizeof why)) {
        fprintf(stderr, "cdlab snapshot: gnuplot wrote no %s: %s\n", from, why);
        return 1;
    }
    int png = strcmp(format, "png") == 0, svg = 0;
    for (size_t i = 0; !png && !svg && i + 4 <= n; ++i) svg = memcmp(data + i, "<svg", 4) == 0;
    if (png ? n < 8 || memcmp(data, CD_PNG_SIGNATURE, 8) != 0 : !svg) {
        fprintf(stderr, "cdlab snapshot: gnuplot's %s is not %s\n", from, png ? "a PNG" : "an SVG");
        cd_free(data);
        return 1;
    }
    cd_file_out o;  // a failed write shows in the stream's error flag, which the commit reports
    int rc = cd_file_out_open(&o, path, why, sizeof why) != 0;
    if (!rc) fwrite(data, 1, n, o.f), rc = cd_file_out_commit(&o, why, sizeof why) != 0;
    if (rc) fprintf(stderr, "cdlab snapshot: %s: %s\n", path, why);
    cd_free(data);
    return rc;
}

// What draw hands gnuplot: the scratch directory with its data, the title and the axes.
typedef struct picture {
    char scratch[4096];
    drawn_count n;
    cell_out cells;
    double ext[2];  // the world cube, and whatever is drawn beyond it
} picture;

// The data files of the picture into pic->scratch; 0 or 1.
static int write_picture(picture *pic, const cd_kinds_view *v, const cd_point *p, const cd_pair_list *pairs,
                         uint64_t max_boxes)
{
    const cd_scene *s = cd_kinds_view_scene(v);
    const cd_broad *b = cd_kinds_view_broad(v);
    char path[4300];
    snprintf(path, sizeof path, "%s/boxes.dat", pic->scratch);
    FILE *fb = fopen(path, "w");
    snprintf(path, sizeof path, "%s/pairs.dat", pic->scratch);
    FILE *fp = fopen(path, "w");
    snprintf(path, sizeof path, "%s/cells.dat", pic->scratch);
    pic->ext[0] = 0, pic->ext[1] = s->world;
    pic->cells = (cell_out){fopen(path, "w"), 0, 0, pic->ext};
    int rc = 0;
    if (!fb || !fp || !pic->cells.f) {
        fprintf(stderr, "cdlab snapshot: %s: cannot write: %s\n", pic->scratch, strerror(errno));
        rc = 1;
    }
    if (!rc) pic->n = write_boxes(s, pairs, p, max_boxes, fb, fp, pic->ext);
    if (!rc && b->method->cells) b->method->cells(b->self, s, on_cell, &pic->cells);  // as the frame left it
    if (fb && fclose(fb) != 0) rc = 1;
    if (fp && fclose(fp) != 0) rc = 1;
    if (pic->cells.f && fclose(pic->cells.f) != 0) rc = 1;
    return rc;
}

// gnuplot on the picture, its files moved to out's paths (printed); 0 or 1.
static int render(const picture *pic, const cd_config *c, const cd_point *p, const cd_kinds_view *v,
                  const cd_pair_list *pairs, const snapshot_args *a, const char *script, const outputs *out)
{
    const cd_scene *s = cd_kinds_view_scene(v);
    const cd_broad *b = cd_kinds_view_broad(v);
    const char *noun = cd_kinds_view_noun(v);
    char title[1024], label[512], lo[64], hi[64], stem[4300], key[64];
    cd_point_label(p, label, sizeof label);
    snprintf(title, sizeof title, "%s, point %zu (%s): %s, %u %s, frame %" PRIu64 ": %zu overlapping pairs (red)%s; %s",
             cd_config_text(c, "experiment", "name"), p->index, label[0] ? label : "no sweep", b->method->name,
             s->count, noun, a->frame, pairs->count,
             pic->n.drawn + pic->n.hits < s->count ? ", a seeded sample of the others" : "",
             b->method->cells ? "cells coloured by level" : "the method lists no cells");
    // '#': always a decimal point; gnuplot's real() refuses "5e-05" and "3e+09" without one.
    snprintf(lo, sizeof lo, "%#.9g", pic->ext[0]);
    snprintf(hi, sizeof hi, "%#.9g", pic->ext[1]);
    snprintf(stem, sizeof stem, "%s/out", pic->scratch);
    snprintf(key, sizeof key, "%s", strcmp(noun, "bodies") == 0 ? "bodies (their boxes)" : noun);
    char *args[] = {"gnuplot", "-c", (char *)script, (char *)pic->scratch, stem, title, lo, hi, key, NULL};
    if (!cd_cli_spawn_ok(args)) {
        fprintf(stderr,
                "cdlab snapshot: gnuplot -c %s failed (its messages are above; the picture needs gnuplot's "
                "pngcairo and svg terminals)\n",
                script);
        return 1;
    }
    for (int e = 0; e < out->count; ++e) {
        if (move_output(pic->scratch, out->format[e], out->path[e])) return 1;
        printf("%s\n", out->path[e]);
    }
    return 0;
}

// Draw point p of c at frame a->frame into out's files; a simulated scene's trace is the one under
// results_root/cache/. 0, 1 (gnuplot failed) or 2.
static int draw(const cd_config *c, const cd_point *p, const snapshot_args *a, const char *results_root,
                const outputs *out)
{
    char plots[4096], script[4200];
    for (int e = 0; e < out->count; ++e) {
        int bad = cd_cli_output_check("snapshot", out->path[e]);
        if (bad) return bad;
    }
    if (cd_cli_plots_dir(plots, sizeof plots, a->plots) != 0) {
        fprintf(stderr, "cdlab snapshot: no plot scripts: expected %s, --plots DIR or $CDLAB_PLOTS\n", plots);
        return 2;
    }
    snprintf(script, sizeof script, "%s/snapshot.gp", plots);
    picture pic = {.scratch = "/tmp/cdlab-snapshot-XXXXXX"};
    const char *tmp = getenv("TMPDIR");
    if (tmp && tmp[0]) snprintf(pic.scratch, sizeof pic.scratch, "%s/cdlab-snapshot-XXXXXX", tmp);
    if (cd_scratch_dir_make(pic.scratch) != 0) {
        fprintf(stderr, "cdlab snapshot: %s: cannot make a scratch directory: %s\n", pic.scratch, strerror(errno));
        return 1;
    }
    char why[4400];
    cd_kinds_view *v = cd_kinds_view_open(p, results_root, why, sizeof why);
    if (!v) {
        fprintf(stderr, "cdlab snapshot: %s: point %zu: %s\n", c->path, p->index, why);
        cd_scratch_dir_remove(pic.scratch);
        return 2;
    }
    if (cd_kinds_view_scene(v)->count == 0) {  // gnuplot would fail with "nothing to draw"
        fprintf(stderr, "cdlab snapshot: %s: point %zu: its scene holds no %s: nothing to draw\n", c->path, p->index,
                cd_kinds_view_noun(v));
        cd_kinds_view_close(v);
        cd_scratch_dir_remove(pic.scratch);
        return 2;
    }
    uint64_t frames = cd_kinds_view_frames(v);
    if (frames && a->frame >= frames) {
        fprintf(stderr, "cdlab snapshot: --frame %llu: point %zu replays a trace of %llu frames (0 to %llu)\n",
                (unsigned long long)a->frame, p->index, (unsigned long long)frames, (unsigned long long)frames - 1);
        cd_kinds_view_close(v);
        cd_scratch_dir_remove(pic.scratch);
        return 2;
    }
    cd_pair_list pairs = {0};
    int rc = 0;
    if (run_frames(v, a, &pairs, why, sizeof why)) {  // the point fails, as cdlab run fails it
        fprintf(stderr, "cdlab snapshot: %s: point %zu: %s\n", c->path, p->index, why);
        rc = 1;
    }
    if (!rc) rc = write_picture(&pic, v, p, &pairs, a->max_boxes);
    if (!rc) rc = render(&pic, c, p, v, &pairs, a, script, out);
    if (!rc)
        fprintf(stderr, "cdlab snapshot: %u %s (%zu drawn, %zu in %zu overlapping pairs), %zu cells to level %d\n",
                cd_kinds_view_scene(v)->count, cd_kinds_view_noun(v), pic.n.drawn + pic.n.hits, pic.n.hits, pairs.count,
                pic.cells.count, pic.cells.max_level);
    cd_scratch_dir_remove(pic.scratch);
    cd_pair_list_free(&pairs);
    cd_kinds_view_close(v);
    return rc;
}

// Does point p satisfy "KEY=VALUE" (KEY as `section.key` or `key`; VALUE as the config writes
// it, or the same number)? 1, 0, or -1 when the config has no such key.
static int point_matches(const cd_config *c, const cd_point *p, const char *cond)
{
    const char *eq = strchr(cond, '=');
    size_t klen = (size_t)(eq - cond);
    for (size_t k = 0; k < c->key_count; ++k) {
        const cd_key_spec *spec = c->keys[k].spec;
        char full[256];
        snprintf(full, sizeof full, "%s.%s", spec->section, spec->name);
        if (!((strlen(spec->name) == klen && strncmp(spec->name, cond, klen) == 0) ||
              (strlen(full) == klen && strncmp(full, cond, klen) == 0)))
            continue;
        const char *v = cd_point_key_text(p, k);  // a method's parameter too (NA where it is not read)
        if (strcmp(v, eq + 1) == 0) return 1;
        double x, y;
        return cd_csv_parse_double(v, &x) == 0 && cd_csv_parse_double(eq + 1, &y) == 0 && x == y;
    }
    return -1;
}

// --point I: remembered as given, so that --where can refuse it.
static int take_point(const char *v, void *ctx, char *err, size_t len)
{
    snapshot_args *a = ctx;
    if (cli_parse_count(v, 0, UINT32_MAX, &a->point) == 0) return a->have_point = 1, 0;
    snprintf(err, len, "a point number in [0, %u]", UINT32_MAX);
    return -1;
}

// --where KEY=VALUE, repeatable.
static int take_where(const char *v, void *ctx, char *err, size_t len)
{
    snapshot_args *a = ctx;
    if (a->nwhere == (int)(sizeof a->where / sizeof a->where[0]) || !strchr(v, '=')) {
        snprintf(err, len, "KEY=VALUE (at most %zu)", sizeof a->where / sizeof a->where[0]);
        return -1;
    }
    a->where[a->nwhere++] = v;
    return 0;
}

// The command line into a; -1 to go on, else the exit code.
static int snapshot_parse(int argc, char **argv, snapshot_args *a)
{
    const cli_opt opts[] = {
        {.name = "frame",
         .arg = "K",
         .help = "frame to draw (default 0: the seeded scene; at most " SNAPSHOT_MAX_FRAME_TEXT ",\n"
                 "the last frame a run can measure: warmup + frames at their maxima)",
         .type = CLI_COUNT,
         .dest = &a->frame,
         .lo = 0,
         .hi = SNAPSHOT_MAX_FRAME},
        {.name = "point",
         .arg = "I",
         .help = "the config's point I, in plan order as `cdlab run --dry-run` lists them\n"
                 "(default 0)",
         .type = CLI_CALL,
         .call = take_point,
         .ctx = a},
        {.name = "where",
         .arg = "K=V",
         .help = "the first point where key K (e.g. method, cubes, scene.cubes) is V;\n"
                 "repeat for several keys",
         .type = CLI_CALL,
         .call = take_where,
         .ctx = a},
        {.name = "output",
         .short_name = 'o',
         .arg = "STEM",
         .help = "output stem: STEM.png and STEM.svg (default <experiment>_p<I>_f<K>;\n"
                 "with a run directory, RUN_DIR/snapshot_p<I>_f<K>, which `cdlab report`\n"
                 "shows with the run); a name ending in .png or .svg is that one file",
         .type = CLI_TEXT,
         .dest = &a->stem},
        {.name = "max-boxes",
         .arg = "N",
         .help = "boxes drawn besides those in pairs; above it a seeded sample (default 3000)",
         .type = CLI_COUNT,
         .dest = &a->max_boxes,
         .lo = 0,
         .hi = UINT32_MAX},
        {.name = "plots",
         .arg = "DIR",
         .help = "gnuplot scripts (default as cdlab plot)",
         .type = CLI_TEXT,
         .dest = &a->plots},
    };
    const cli_spec spec = {
        .command = "snapshot",
        .usage = "[--frame K] [--point I | --where KEY=VALUE...] [-o STEM] [--max-boxes N]\n"
                 "                      [--plots DIR] CONFIG|RUN_DIR",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .min_operands = 1,
        .max_operands = 1,
        .operands = "one config or run directory",
        .about = "Draw the scene a point of a cubes or bodies config measures, at frame K (K motion steps\n"
                 "from the seeded scene, each followed by the method's frame), with gnuplot as STEM.png and\n"
                 "STEM.svg: the cubes (or the bodies' boxes) as wireframes, those of overlapping pairs in red\n"
                 "(for bodies: the pairs whose meshes touch), and the broad phase's\n"
                 "cells: octree nodes (the loose octree's loose bounds), grid rows, coloured by level,\n"
                 "where the method lists them. Progress with an ETA goes to stderr while the frames run.\n",
        .after = "A run directory (a complete run) stands for its config.ini, read as the config it copies\n"
                 "(relative paths as the run resolved them; each file it names must be unchanged: meta.ini\n"
                 "[inputs]). Prints the paths written. Exit 0; 1 when gnuplot\n"
                 "failed or the point failed as cdlab run fails it (a plugin's candidates that name no pair);\n"
                 "2 on bad usage, a bad config, a kind other than cubes or bodies, a bodies peer, no such\n"
                 "point, or a point whose scene is empty.\n"};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    if (rc < 0) a->source = ops.v[0];
    cli_operands_free(&ops);
    return rc;
}

int cd_cmd_snapshot(int argc, char **argv)
{
    snapshot_args a = {.max_boxes = 3000};
    int parsed = snapshot_parse(argc, argv, &a);
    if (parsed >= 0) return parsed;
    // "-" is standard output, where no picture goes (a stem would make it the files -.png and
    // -.svg): refused as every such output is, before the config is read.
    if (a.stem && strcmp(a.stem, "-") == 0) return cd_cli_output_check("snapshot", a.stem);
    if (a.nwhere && a.have_point) {
        fprintf(stderr, "cdlab snapshot: --point and --where both given: expected one\n");
        return 2;
    }
    struct stat sb;
    char cfg_path[4200];
    int is_run = stat(a.source, &sb) == 0 && S_ISDIR(sb.st_mode);
    snprintf(cfg_path, sizeof cfg_path, is_run ? "%s/config.ini" : "%s", a.source);
    cd_config c;
    char err[4600];
    if (is_run && cd_run_dir_check(a.source, err, sizeof err)) {  // no picture into a run still written
        fprintf(stderr, "cdlab snapshot: %s: %s\n", a.source, err);
        return 2;
    }
    // A run's config.ini is read as the config it copies, its files checked against the run's record.
    if (is_run ? cd_rundir_config(cd_kinds(), a.source, &c, err, sizeof err)
               : cd_config_load(cd_kinds(), cfg_path, &c, err, sizeof err)) {
        fprintf(stderr, "cdlab snapshot: %s\n", err);
        return 2;
    }
    int rc = 0;
    size_t points = cd_plan_size(&c);
    cd_point p = {0};
    p.pick = cd_alloc_zero(c.key_count ? c.key_count : 1, sizeof *p.pick);
    if (strcmp(c.kind->name, "cubes") != 0 && strcmp(c.kind->name, "bodies") != 0) {
        fprintf(stderr, "cdlab snapshot: %s: kind %s: expected a config of kind cubes or bodies\n", cfg_path,
                c.kind->name);
        rc = 2;
    } else if (a.nwhere) {
        size_t i = 0;
        const char *bad = NULL;
        for (; i < points && !bad; ++i) {
            cd_point_at(&c, i, &p);
            int all = 1;
            for (int w = 0; w < a.nwhere && all && !bad; ++w) {
                int r = point_matches(&c, &p, a.where[w]);
                if (r < 0) bad = a.where[w];
                all = r == 1;
            }
            if (all && !bad) break;
        }
        if (bad) {
            fprintf(stderr, "cdlab snapshot: --where %s: %s has no such key (see cdlab run --keys)\n", bad, cfg_path);
            rc = 2;
        } else if (i == points) {
            fprintf(stderr, "cdlab snapshot: %s: no point matches every --where\n", cfg_path);
            rc = 2;
        }
        a.point = i;
    } else if (a.point >= points) {
        fprintf(stderr, "cdlab snapshot: %s: no point %" PRIu64 ": the config has %zu (0 to %zu)\n", cfg_path, a.point,
                points, points - 1);
        rc = 2;
    } else {
        cd_point_at(&c, (size_t)a.point, &p);
    }
    // A simulated scene replays the trace a run of it bakes under <output>/cache/: for a run
    // directory the run's own results root, for a config [run] output (relative to the working
    // directory, as for cdlab run).
    char root[4200];
    if (!rc && is_run && cd_rundir_results_root(a.source, root, sizeof root, err, sizeof err)) {
        fprintf(stderr, "cdlab snapshot: %s\n", err);
        rc = 2;
    } else if (!rc && !is_run) {
        snprintf(root, sizeof root, "%s", cd_config_text(&c, "run", "output"));
    }
    if (!rc) {
        char stem[4200];
        if (a.stem)
            snprintf(stem, sizeof stem, "%s", a.stem);
        else if (is_run)
            snprintf(stem, sizeof stem, "%s/snapshot_p%" PRIu64 "_f%" PRIu64, a.source, a.point, a.frame);
        else
            snprintf(stem, sizeof stem, "%s_p%" PRIu64 "_f%" PRIu64, cd_config_text(&c, "experiment", "name"), a.point,
                     a.frame);
        outputs out;
        outputs_of(stem, &out);
        rc = draw(&c, &p, &a, root, &out);
    }
    cd_free(p.pick);
    cd_config_free(&c);
    return rc;
}
