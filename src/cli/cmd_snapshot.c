// SPDX-License-Identifier: MIT
// `cdlab snapshot CONFIG|RUN_DIR [--frame K] [-o STEM]`: the scene a cubes or bodies point
// measures (cd_kinds_view), at frame K, drawn by gnuplot (plots/snapshot.gp) as PNG and SVG: the
// boxes as wireframes (a seeded sample above --max-boxes), the boxes of overlapping pairs
// highlighted, and the broad phase's cells (octree nodes, grid rows) where the method lists them
// (cd_broad_method.cells). The seed report debugged its octree with exactly this picture.
#include "cd_broad.h"
#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness.h"
#include "cd_kinds.h"
#include "cli.h"

#include <errno.h>
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

static int parse_count(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return *s && *s != '-' && !*end && !errno ? 0 : -1;
}

static void remove_scratch(const char *dir)
{
    static const char *const names[] = {"boxes.dat", "pairs.dat", "cells.dat", "out.png", "out.svg"};
    char path[4300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
}

typedef struct snapshot_args {
    const char *source, *stem, *plots;
    const char *where[16];  // KEY=VALUE conditions on the point
    int nwhere;
    unsigned long long frame, point, max_boxes;
    int have_point;
} snapshot_args;

// Draw point p of c at frame a->frame into a->stem.png and .svg. 0, 1 (gnuplot failed) or 2.
static int draw(const cd_config *c, const cd_point *p, const snapshot_args *a, const char *stem)
{
    char plots[4096], script[4200];
    if (cd_cli_plots_dir(plots, sizeof plots, a->plots) != 0) {
        fprintf(stderr, "cdlab snapshot: no plot scripts: expected %s, --plots DIR or $CDLAB_PLOTS\n", plots);
        return 2;
    }
    snprintf(script, sizeof script, "%s/snapshot.gp", plots);
    char scratch[4096] = "/tmp/cdlab-snapshot-XXXXXX";
    const char *tmp = getenv("TMPDIR");
    if (tmp && tmp[0]) snprintf(scratch, sizeof scratch, "%s/cdlab-snapshot-XXXXXX", tmp);
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "cdlab snapshot: %s: cannot make a scratch directory: %s\n", scratch, strerror(errno));
        return 1;
    }
    char why[4400];
    cd_kinds_view *v = cd_kinds_view_open(p, why, sizeof why);
    if (!v) {
        fprintf(stderr, "cdlab snapshot: %s: point %zu: %s\n", c->path, p->index, why);
        remove_scratch(scratch);
        return 2;
    }
    const cd_scene *s = cd_kinds_view_scene(v);
    const cd_broad *b = cd_kinds_view_broad(v);
    const char *noun = cd_kinds_view_noun(v);
    cd_pair_list pairs = {0};
    uint64_t t0 = cd_now_ns(), shown = t0;
    // Frame k = k frames of motion from the start of a repeat, each with the method's frame (methods
    // that follow motion see every one); frame 0 is the seeded scene's own pairs.
    for (unsigned long long k = 0; k < a->frame; ++k) {
        cd_kinds_view_frame(v, 1, &pairs);
        uint64_t now = cd_now_ns();
        if (now - shown > 1000000000ull) {
            fprintf(stderr, "cdlab snapshot: frame %llu of %llu, %.0f s\n", k + 1, a->frame, (double)(now - t0) * 1e-9);
            shown = now;
        }
    }
    if (a->frame == 0) cd_kinds_view_frame(v, 0, &pairs);

    char path[4300];
    // Cubes of overlapping pairs (by ident) are all drawn; the rest up to max_boxes, a seeded
    // sample (reservoir order from CD_STREAM_SNAPSHOT) when there are more.
    unsigned char *hit = cd_alloc_zero(s->count ? s->count : 1, 1);
    for (size_t i = 0; i < pairs.count; ++i) hit[pairs.items[i].a] = hit[pairs.items[i].b] = 1;
    uint32_t *order = cd_alloc((s->count ? s->count : 1) * sizeof *order);
    for (uint32_t i = 0; i < s->count; ++i) order[i] = i;
    cd_rng rng = cd_rng_make((uint64_t)cd_point_num(p, "experiment", "seed"), CD_STREAM_SNAPSHOT);
    for (uint32_t i = s->count; i > 1; --i) {
        uint32_t j = (uint32_t)cd_rng_below(&rng, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    snprintf(path, sizeof path, "%s/boxes.dat", scratch);
    FILE *fb = fopen(path, "w");
    snprintf(path, sizeof path, "%s/pairs.dat", scratch);
    FILE *fp = fopen(path, "w");
    snprintf(path, sizeof path, "%s/cells.dat", scratch);
    double ext[2] = {0, s->world};  // the world cube, and whatever is drawn beyond it
    cell_out cells = {fopen(path, "w"), 0, 0, ext};
    int rc = 0;
    if (!fb || !fp || !cells.f) {
        fprintf(stderr, "cdlab snapshot: %s: cannot write: %s\n", scratch, strerror(errno));
        rc = 1;
    }
    size_t drawn = 0, hits = 0;
    for (uint32_t k = 0; !rc && k < s->count; ++k) {
        uint32_t slot = order[k];
        int in_pair = hit[cd_scene_ident(s, slot)];
        if (!in_pair && drawn >= a->max_boxes) continue;
        cd_obb o = cd_scene_obb(s, slot);
        obb_edges(in_pair ? fp : fb, &o, ext);
        in_pair ? hits++ : drawn++;
    }
    if (!rc && b->method->cells) b->method->cells(b->self, s, on_cell, &cells);  // the structure as the frame left it
    if (fb && fclose(fb) != 0) rc = 1;
    if (fp && fclose(fp) != 0) rc = 1;
    if (cells.f && fclose(cells.f) != 0) rc = 1;
    char title[1024], label[512], lo[64], hi[64], out[4300];
    cd_point_label(p, label, sizeof label);
    snprintf(title, sizeof title, "%s, point %zu (%s): %s, %u %s, frame %llu: %zu overlapping pairs (red)%s; %s",
             cd_config_text(c, "experiment", "name"), p->index, label[0] ? label : "no sweep", b->method->name, s->count,
             noun, a->frame, pairs.count, drawn + hits < s->count ? ", a seeded sample of the others" : "",
             b->method->cells ? "cells coloured by level" : "the method lists no cells");
    snprintf(lo, sizeof lo, "%.9g", ext[0]);
    snprintf(hi, sizeof hi, "%.9g", ext[1]);
    snprintf(out, sizeof out, "%s/out", scratch);
    if (!rc) {
        char key[64];
        snprintf(key, sizeof key, "%s", strcmp(noun, "bodies") == 0 ? "bodies (their boxes)" : noun);
        char *args[] = {"gnuplot", "-c", script, scratch, out, title, lo, hi, key, NULL};
        rc = cd_cli_spawn_ok(args) ? 0 : 1;
        if (rc) fprintf(stderr, "cdlab snapshot: %s failed (is gnuplot with cairo installed?)\n", script);
    }
    static const char *const format[] = {"png", "svg"};
    for (int e = 0; !rc && e < 2; ++e) {
        char from[4400], to[4400];
        snprintf(from, sizeof from, "%s.%s", out, format[e]);
        snprintf(to, sizeof to, "%s.%s", stem, format[e]);
        struct stat sb;
        if (stat(from, &sb) != 0 || sb.st_size == 0) {
            fprintf(stderr, "cdlab snapshot: gnuplot wrote no %s\n", from);
            rc = 1;
        } else if (rename(from, to) != 0) {
            // Another file system: copy through.
            FILE *in = fopen(from, "rb"), *o = fopen(to, "wb");
            char buf[1 << 16];
            size_t n;
            while (in && o && (n = fread(buf, 1, sizeof buf, in)) > 0)
                if (fwrite(buf, 1, n, o) != n) rc = 1;
            if (!in || !o || ferror(in)) rc = 1;
            if (in) fclose(in);
            if (o && fclose(o) != 0) rc = 1;
            if (rc) {
                fprintf(stderr, "cdlab snapshot: %s: cannot write: %s\n", to, strerror(errno));
                remove(to);
            }
        }
        if (!rc) printf("%s\n", to);
    }
    if (!rc)
        fprintf(stderr, "cdlab snapshot: %u %s (%zu drawn, %zu in %zu overlapping pairs), %zu cells to level %d\n",
                s->count, noun, drawn + hits, hits, pairs.count, cells.count, cells.max_level);
    remove_scratch(scratch);
    cd_free(hit);
    cd_free(order);
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
        const char *v = cd_point_text(p, spec->section, spec->name);
        if (strcmp(v, eq + 1) == 0) return 1;
        double x, y;
        return cd_csv_parse_double(v, &x) == 0 && cd_csv_parse_double(eq + 1, &y) == 0 && x == y;
    }
    return -1;
}

int cd_cmd_snapshot(int argc, char **argv)
{
    if (cd_cli_wants_help(argc, argv)) {
        printf("usage: cdlab snapshot [--frame K] [--point I | --where KEY=VALUE...] [-o STEM] [--max-boxes N]\n"
               "                      [--plots DIR] CONFIG|RUN_DIR\n\n"
               "Draw the scene a point of a cubes or bodies config measures, at frame K (K motion steps\n"
               "from the seeded scene, each followed by the method's frame), with gnuplot as STEM.png and\n"
               "STEM.svg: the cubes (or the bodies' boxes) as wireframes, those of overlapping pairs in red\n"
               "(for bodies: the pairs whose meshes touch), and the broad phase's\n"
               "cells — octree nodes (the loose octree's loose bounds), grid rows — coloured by level,\n"
               "where the method lists them.\n\n"
               "  --frame K       frame to draw (default 0: the seeded scene)\n"
               "  --point I       the config's point I, in plan order as `cdlab run --dry-run` lists them\n"
               "                  (default 0)\n"
               "  --where K=V     the first point where key K (e.g. method, cubes, scene.cubes) is V;\n"
               "                  repeat for several keys\n"
               "  -o STEM         output stem (default <experiment>_p<I>_f<K>; with a run directory,\n"
               "                  RUN_DIR/snapshot_p<I>_f<K>, which `cdlab report` shows with the run)\n"
               "  --max-boxes N   boxes drawn besides those in pairs; above it a seeded sample (default 3000)\n"
               "  --plots DIR     gnuplot scripts (default as cdlab plot)\n\n"
               "A run directory stands for its config.ini. Prints both paths. Exit 0; 1 when gnuplot\n"
               "failed; 2 on bad usage, a bad config, a kind other than cubes or bodies, a bodies peer, or\n"
               "no such point.\n");
        return 0;
    }
    snapshot_args a = {.max_boxes = 3000};
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i];
        int has = i + 1 < argc;
        unsigned long long *num = strcmp(o, "--frame") == 0       ? &a.frame
                                  : strcmp(o, "--point") == 0     ? &a.point
                                  : strcmp(o, "--max-boxes") == 0 ? &a.max_boxes
                                                                  : NULL;
        if (num && has) {
            if (parse_count(argv[++i], num) != 0) {
                fprintf(stderr, "cdlab snapshot: %s %s: expected a non-negative integer\n", o, argv[i]);
                return 2;
            }
            a.have_point |= num == &a.point;
        } else if (strcmp(o, "-o") == 0 && has) {
            a.stem = argv[++i];
        } else if (strcmp(o, "--where") == 0 && has) {
            if (a.nwhere == 16 || !strchr(argv[i + 1], '=')) {
                fprintf(stderr, "cdlab snapshot: --where %s: expected KEY=VALUE (at most 16)\n", argv[i + 1]);
                return 2;
            }
            a.where[a.nwhere++] = argv[++i];
        } else if (strcmp(o, "--plots") == 0 && has) {
            a.plots = argv[++i];
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "cdlab snapshot: unknown option or missing value: %s (see cdlab snapshot --help)\n", o);
            return 2;
        } else if (!a.source) {
            a.source = o;
        } else {
            fprintf(stderr, "cdlab snapshot: one config or run directory expected, got %s and %s\n", a.source, o);
            return 2;
        }
    }
    if (!a.source) {
        fprintf(stderr, "cdlab snapshot: no config given (see cdlab snapshot --help)\n");
        return 2;
    }
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
    if (cd_config_load(cd_kinds(), cfg_path, &c, err, sizeof err)) {
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
        fprintf(stderr, "cdlab snapshot: %s: no point %llu: the config has %zu (0 to %zu)\n", cfg_path, a.point, points,
                points - 1);
        rc = 2;
    } else {
        cd_point_at(&c, (size_t)a.point, &p);
    }
    if (!rc) {
        char stem[4200];
        if (a.stem) snprintf(stem, sizeof stem, "%s", a.stem);
        else if (is_run) snprintf(stem, sizeof stem, "%s/snapshot_p%llu_f%llu", a.source, a.point, a.frame);
        else snprintf(stem, sizeof stem, "%s_p%llu_f%llu", cd_config_text(&c, "experiment", "name"), a.point, a.frame);
        rc = draw(&c, &p, &a, stem);
    }
    cd_free(p.pick);
    cd_config_free(&c);
    return rc;
}
