// SPDX-License-Identifier: MIT
// The mesh kind: the standard mesh pair. Both meshes are scaled into [-1,1]³ about their
// bounding-box centres; B is placed by seeded random rotations at centre distance `distance`
// along x (or by poses read from CSV); each pose is one query of the pair traversal of src/bvh.
// One frames.csv row per pose, one summary.csv row per point with the cost-model terms.
#include "cd_bvh.h"
#include "cd_harness_cli.h"
#include "cd_plugins.h"
#include "cd_registry.h"
#include "kind_cubes.h"
#include "cd_harness.h"
#include "kind_mesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const gens[] = {"icosphere:", "torus:", "noisy_sphere:", "pencil:"};

// A bare generator name ("torus"): its face count comes from [mesh] faces.
int kinds_is_bare_generator(const char *w)
{
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; ++k)
        if (strncmp(w, gens[k], strlen(w)) == 0 && strlen(w) + 1 == strlen(gens[k])) return 1;
    return 0;
}

void kinds_warn_rounded_faces(cd_config *c, const cd_config_key *faces, const char *const *names, size_t n)
{
    char list[512] = "";
    size_t len = 0, shown = 0, rounded = 0;
    for (size_t i = 0; i < faces->count; ++i) {
        uint32_t v = (uint32_t)faces->values[i].num;
        for (size_t k = 0; k < n && v; ++k) {
            uint32_t got = cd_mesh_generator_faces(names[k], v);
            if (!got || fabs((double)got - v) <= 0.1 * v) continue;
            ++rounded;
            if (shown < 4 && len < sizeof list)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s:%u has %u", shown ? ", " : "", names[k], v,
                                        got),
                    ++shown;
        }
    }
    if (rounded)
        cd_config_warn(c, faces,
                       "the mesh generators round face counts: %s%s; the faces column keeps the count asked for", list,
                       rounded > shown ? ", ..." : "");
    for (size_t i = 0; i < faces->count; ++i)
        for (size_t j = i + 1; j < faces->count; ++j) {
            uint32_t a = (uint32_t)faces->values[i].num, b = (uint32_t)faces->values[j].num;
            int same = a != b && n > 0;
            for (size_t k = 0; k < n && same; ++k)
                same = cd_mesh_generator_faces(names[k], a) == cd_mesh_generator_faces(names[k], b);
            if (same)
                cd_config_warn(c, faces, "faces = %u and %u make the same meshes: their points measure one scene", a,
                               b);
        }
}

// A generator spec ("torus:5000", "box"); anything else that is not a bare name is a file path.
int kinds_is_generator_spec(const char *w)
{
    if (strcmp(w, "box") == 0) return 1;
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; ++k)
        if (strncmp(w, gens[k], strlen(gens[k])) == 0) return 1;
    return 0;
}

const char *kinds_check_mesh(const char *w)
{
    static const char *expected = "a mesh: icosphere:N, torus:N, noisy_sphere:N or pencil:N (N faces in 1..10000000), "
                                  "a bare generator name with the section's faces key, or a readable mesh file";
    if (kinds_is_bare_generator(w) || strcmp(w, "box") == 0) return NULL;
    uint32_t faces;
    // A mesh file otherwise: read, relative to the config's directory, by the kind's validate.
    return cd_mesh_parse_generator_spec(w, &faces) < 0 ? expected : NULL;
}

void kinds_mesh_path(const cd_config *c, const char *spec, char *out, size_t len)
{
    if (kinds_is_bare_generator(spec) || kinds_is_generator_spec(spec))
        snprintf(out, len, "%s", spec);
    else
        cd_config_resolve(c, spec, out, len);
}

// Mesh files named by [mesh] a and b, read when the config is checked (a file the reader rejects
// is a config error, before any output exists) and copied from here by each point, so a file is
// parsed once per process; a point's child process inherits the copies.
typedef struct file_mesh {
    char *path;
    cd_mesh mesh;
} file_mesh;
static file_mesh *file_meshes;
static size_t file_mesh_count;

static const cd_mesh *file_mesh_find(const char *path)
{
    for (size_t i = 0; i < file_mesh_count; ++i)
        if (strcmp(file_meshes[i].path, path) == 0) return &file_meshes[i].mesh;
    return NULL;
}

static int check_mesh_files(const cd_config *c, char *err, size_t err_len)
{
    for (int b = 0; b < 2; ++b) {
        const cd_config_key *k = cd_config_key_get(c, "mesh", b ? "b" : "a");
        for (size_t i = 0; i < k->count; ++i) {
            const char *spec = k->values[i].text;
            if (kinds_is_bare_generator(spec) || kinds_is_generator_spec(spec)) continue;
            char path[4096];
            cd_config_resolve(c, spec, path, sizeof path);
            if (file_mesh_find(path)) continue;
            cd_mesh m;
            char why[1024];
            if (cd_mesh_read(path, &m, why, sizeof why)) {
                cd_config_error(c, k, err, err_len, "mesh %s: %s", b ? "b" : "a", why);
                return -1;
            }
            file_meshes = cd_realloc(file_meshes, sizeof *file_meshes * (file_mesh_count + 1));
            size_t len = strlen(path) + 1;
            file_meshes[file_mesh_count].path = memcpy(cd_alloc(len), path, len);
            file_meshes[file_mesh_count++].mesh = m;
        }
    }
    return 0;
}

const char *kinds_check_hierarchy(const char *w)
{
    if (cd_registry_variant_find(w)) return NULL;
    static char known[600];  // built per message; config loading is single-threaded
    size_t len = (size_t)snprintf(known, sizeof known, "a hierarchy variant ("), n;
    const cd_bvh_variant *const *v = cd_registry_variants(&n);
    for (size_t i = 0; i < n && len < sizeof known; ++i)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", v[i]->name);
    if (len < sizeof known) snprintf(known + len, sizeof known - len, ")");
    return known;
}

static const char *const mode_words[] = {"first_hit", "all_pairs", "solid", NULL};

// [mesh] before [method]: the first swept key varies slowest, so the hierarchies compared on one
// mesh pair and distance run back to back; on a loaded machine drifting load then hits them alike
// instead of one whole sweep after the other.
static const cd_key_spec mesh_keys[] = {
    {"mesh", "a", CD_KEY_WORD, "icosphere:20000", 0, 0, NULL, kinds_check_mesh, 1,
     "mesh A (at the identity): box, icosphere:N, torus:N, noisy_sphere:N, pencil:N or a mesh file (relative to "
     "the config's directory)"},
    {"mesh", "b", CD_KEY_WORD, "torus:20000", 0, 0, NULL, kinds_check_mesh, 1, "mesh B (posed), same forms as a"},
    {"mesh", "faces", CD_KEY_INT, "0", 0, 1e7, NULL, NULL, 1,
     "faces of both meshes when a and b are bare generator names (a face-count sweep; each generator rounds to its "
     "grid, icosphere to 20*f^2, torus to 4*n^2: a count rounded by over a tenth, or two counts that make the "
     "same meshes, is a warning; faces_a and faces_b hold what was made); 0: a and b say"},
    {"mesh", "distance", CD_KEY_REAL, "1.0", 0, 1e6, NULL, NULL, 1, "centre distance of B along x"},
    {"mesh", "poses", CD_KEY_INT, "200", 1, 1e7, NULL, NULL, 1,
     "seeded random rotations of B (a list is refused with poses_file)"},
    {"mesh", "poses_file", CD_KEY_PATH, "", 0, 0, NULL, NULL, 0,
     "read poses from CSV (qw,qx,qy,qz,tx,ty,tz; relative to the config's directory), overriding distance and "
     "poses"},
    CD_KINDS_PLUGIN_KEY,
    {"method", "hierarchy", CD_KEY_WORD, "hybrid", 0, 0, NULL, kinds_check_hierarchy, 1,
     "hierarchy variant: sphere, aabb, obb (RAPID), obb_sphere, hybrid (HBVHS)"},
    {"method", "mode", CD_KEY_WORD, "all_pairs", 0, 0, mode_words, NULL, 1,
     "query: first_hit, all_pairs, or solid (adds point-in-mesh for closed meshes)"},
    {"method", "leaf_size", CD_KEY_INT, "1", 1, 1024, NULL, NULL, 1, "most triangles per leaf (1 as in RAPID)"},
};

const char *cd_kinds_variant_at(size_t i, const cd_param_spec **params, size_t *count)
{
    size_t n;
    const cd_bvh_variant *const *v = cd_registry_variants(&n);
    if (i >= n) return NULL;
    *params = v[i]->params;
    *count = v[i]->param_count;
    return v[i]->name;
}

static const cd_method_key hierarchy_key[] = {CD_KINDS_HIERARCHY_KEY};

// "name = value, ..." of a variant's parameters p, or "its defaults" when it has none.
static void params_text(const cd_params *p, char *buf, size_t len)
{
    snprintf(buf, len, "%s", p->count ? "" : "its defaults");
    for (size_t i = 0, n = 0; i < p->count && n < len; ++i) {
        char v[64];
        cd_params_format(p, i, v, sizeof v);
        n += (size_t)snprintf(buf + n, len - n, "%s%s = %s", i ? ", " : "", p->spec[i].name, v);
    }
}

int kinds_plan_refused(const cd_bvh_variant *v, const cd_params *vp, const cd_bvh_plan *plan, char *why, size_t len)
{
    char what[300], at[400];
    if (cd_bvh_plan_check(plan, what, sizeof what) == 0) return 0;
    params_text(vp, at, sizeof at);
    const cd_plugin_file *f = cd_plugins_variant_owner(v);
    snprintf(why, len, "hierarchy variant %s (plugin %s) at %s: its plan: %s", v->name, f ? f->path : "?", at, what);
    return -1;
}

int kinds_check_plans(cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *hk = cd_config_key_get(c, "method", "hierarchy");
    size_t h = (size_t)(hk - c->keys);
    size_t *pick = cd_alloc_zero(c->key_count, sizeof *pick);
    cd_point p = {.cfg = c, .index = 0, .pick = pick};
    int rc = 0;
    for (size_t v = 0; v < hk->count && rc == 0; ++v) {
        const cd_bvh_variant *var = cd_registry_variant_find(hk->values[v].text);
        if (!var || !cd_plugins_variant_owner(var)) continue;  // cdlab's own plans hold by construction
        pick[h] = v;
        for (;;) {
            cd_params vp = cd_point_params(&p, "method", "hierarchy", var->params, var->param_count);
            cd_bvh_plan plan = var->plan(&vp);
            char why[1200];
            if (kinds_plan_refused(var, &vp, &plan, why, sizeof why)) {
                cd_config_error(c, hk, err, err_len, "[method] hierarchy: %s", why);
                rc = -1;
                break;
            }
            // The next combination of the values the config gives the variant's parameters (the
            // parameter keys follow the hierarchy key; a key the config leaves out has one value).
            size_t k = h + 1;
            for (; k < c->key_count && c->keys[k].owner == h + 1; ++k) {
                if (!c->keys[k].read_by[v] || !c->keys[k].line) continue;
                if (++pick[k] < c->keys[k].count) break;
                pick[k] = 0;
            }
            if (k == c->key_count || c->keys[k].owner != h + 1) break;
        }
    }
    cd_free(pick);
    return rc;
}

static int check_faces(const cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *faces = cd_config_key_get(c, "mesh", "faces");
    int want_bare = 0;
    for (size_t i = 0; i < faces->count; ++i) want_bare |= faces->values[i].num > 0;
    for (int m = 0; m < 2; ++m) {
        const cd_config_key *k = cd_config_key_get(c, "mesh", m ? "b" : "a");
        for (size_t i = 0; i < k->count; ++i) {
            int bare = kinds_is_bare_generator(k->values[i].text);
            if (bare == want_bare) continue;
            if (bare)
                cd_config_error(c, k, err, err_len,
                                "'%s' is a bare generator name: expected [mesh] faces > 0 to give its face count",
                                k->values[i].text);
            else  // the key named is the one whose value is not a generator name (b as well as a)
                cd_config_error(c, faces, err, err_len,
                                "faces > 0 sizes bare generator names, but %s = '%s' is not one: expected %s = "
                                "icosphere, torus, noisy_sphere or pencil, or faces = 0",
                                m ? "b" : "a", k->values[i].text, m ? "b" : "a");
            return -1;
        }
        for (size_t i = 0; i < faces->count && want_bare; ++i)
            if (faces->values[i].num == 0) {
                cd_config_error(c, faces, err, err_len, "faces = 0 with bare generator names: expected faces >= 1");
                return -1;
            }
    }
    return 0;
}

static int mesh_validate(cd_config *c, char *err, size_t err_len)
{
    if (check_faces(c, err, err_len) || check_mesh_files(c, err, err_len) || kinds_check_plans(c, err, err_len))
        return -1;
    const char *bare[64];
    size_t nbare = 0;
    for (int m = 0; m < 2; ++m) {
        const cd_config_key *k = cd_config_key_get(c, "mesh", m ? "b" : "a");
        for (size_t i = 0; i < k->count && nbare < 64; ++i)
            if (kinds_is_bare_generator(k->values[i].text)) bare[nbare++] = k->values[i].text;
    }
    kinds_warn_rounded_faces(c, cd_config_key_get(c, "mesh", "faces"), bare, nbare);
    // Swept keys no point reads would repeat the points: frames (a point queries its poses), and
    // with a poses file the keys that make the seeded poses.
    if (cd_config_refuse_unread_sweep(c, cd_config_key_get(c, "experiment", "frames"),
                                      "the mesh kind (it queries "
                                      "each pose; warmup and repeats count)",
                                      err, err_len))
        return -1;
    const cd_config_key *file = cd_config_key_get(c, "mesh", "poses_file");
    if (file->count == 0) return 0;
    char reader[64];
    snprintf(reader, sizeof reader, "poses_file (line %d), which fixes the poses,", file->line);
    static const char *const seeded_poses[][2] = {{"mesh", "distance"}, {"mesh", "poses"}, {"experiment", "seed"}};
    for (size_t k = 0; k < sizeof seeded_poses / sizeof seeded_poses[0]; ++k)
        if (cd_config_refuse_unread_sweep(c, cd_config_key_get(c, seeded_poses[k][0], seeded_poses[k][1]), reader, err,
                                          err_len))
            return -1;
    cd_pose *p;
    size_t n;
    char why[600], path[4096];
    cd_config_resolve(c, file->values[0].text, path, sizeof path);
    if (cd_poses_read_csv(path, &p, &n, why, sizeof why)) {
        cd_config_error(c, file, err, err_len, "poses_file: %s", why);
        return -1;
    }
    cd_free(p);
    return 0;
}

static const cd_column frame_columns[] = {
    {"pose", 0, "pose number, 0-based"},
    {"distance", 0, "[mesh] distance (NA with poses_file)"},
    {"pairs", 0, "intersecting triangle pairs reported (first_hit/solid: 0 or 1)"},
    {"bv_tests", 0, "bounding-volume tests, all kinds (Nv)"},
    {"tri_tests", 0, "triangle-triangle tests (Np)"},
    {"query_us", 1, "query time in microseconds, fastest of the repeats"},
    {"overlap", 0, "1 when the meshes intersect (solid: or one contains the other)"},
    {"sphere_sphere", 0, "sphere-sphere tests"},
    {"sphere_obb", 0, "sphere-OBB tests"},
    {"obb_obb", 0, "OBB-OBB tests"},
    {"aabb_aabb", 0, "AABB-AABB tests"},
    {"node_pairs", 0, "node pairs visited"},
};

static const cd_column summary_columns[] = {
    {"faces_a", 0, "triangles of A"},
    {"faces_b", 0, "triangles of B"},
    {"distance", 0, "[mesh] distance (NA with poses_file)"},
    {"poses", 0, "poses queried"},
    {"repeats", 0, "timed queries per pose"},
    {"build_ms", 1, "building both hierarchies: fastest of `repeats` builds (one above 4e5 triangles)"},
    {"query_us_median", 1, "median over poses of query_us"},
    {"pairs_mean", 0, "mean pairs per pose"},
    {"bv_tests_mean", 0, "mean BV tests per pose (Nv)"},
    {"tri_tests_mean", 0, "mean triangle tests per pose (Np)"},
    {"cv_ns", 1, "measured cost of one BV test with its move into A's frame (Cv), tested as the mode tests them"},
    {"cp_ns", 1, "measured cost of one triangle test with its move (Cp)"},
    {"query_us_p05", 1, "5th percentile of query_us"},
    {"query_us_p95", 1, "95th percentile of query_us"},
    {"query_us_mad", 1, "median absolute deviation of query_us"},
    {"query_us_cv", 1, "coefficient of variation of query_us"},
    {"qps_median", 1, "1e6 / query_us_median: queries (\"frames\") per second"},
    {"overlap_fraction", 0, "fraction of poses with overlap"},
    {"sphere_sphere_mean", 0, "mean sphere-sphere tests per pose"},
    {"sphere_obb_mean", 0, "mean sphere-OBB tests per pose"},
    {"obb_obb_mean", 0, "mean OBB-OBB tests per pose"},
    {"aabb_aabb_mean", 0, "mean AABB-AABB tests per pose"},
    {"node_pairs_mean", 0, "mean node pairs visited per pose"},
    {"nu", 0, "nodes refitted by one refit of B (Nu)"},
    {"cu_ns", 1, "refit time of B per node (Cu)"},
    {"nodes", 0, "nodes of both hierarchies"},
    {"bytes", 0, "bytes of both hierarchies"},
    {"depth_a", 0, "depth of A's hierarchy"},
    {"depth_b", 0, "depth of B's hierarchy"},
};

static int load_mesh(cd_run *r, const cd_point *p, const char *spec, uint32_t faces, cd_mesh *m)
{
    char err[1024], full[4096];
    if (faces)
        snprintf(full, sizeof full, "%s:%u", spec, faces);
    else
        kinds_mesh_path(p->cfg, spec, full, sizeof full);
    spec = full;
    const cd_mesh *read = file_mesh_find(spec);
    if (read) {
        cd_mesh_alloc(m, read->nverts, read->ntris);
        memcpy(m->verts, read->verts, sizeof *m->verts * read->nverts);
        memcpy(m->tris, read->tris, sizeof *m->tris * read->ntris);
    } else if (cd_mesh_from_spec(spec, m, err, sizeof err)) {
        cd_run_fail(r, "%s", err);
        return -1;
    }
    cd_mesh_normalize(m);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y);
}

typedef struct mesh_point {
    cd_mesh ma, mb;
    cd_bvh *ha, *hb;
    cd_pose *poses;
    size_t nposes;
    int have_distance;
} mesh_point;

static int setup(cd_run *r, const cd_point *p, mesh_point *mp, double *build_ms)
{
    uint32_t faces = (uint32_t)cd_point_num(p, "mesh", "faces");
    if (load_mesh(r, p, cd_point_text(p, "mesh", "a"), faces, &mp->ma) ||
        load_mesh(r, p, cd_point_text(p, "mesh", "b"), faces, &mp->mb))
        return -1;
    const cd_bvh_variant *v = cd_registry_variant_find(cd_point_text(p, "method", "hierarchy"));
    CD_ASSERT(v);  // the config check accepted only registered variants
    cd_params vp = cd_point_params(p, "method", "hierarchy", v->params, v->param_count);
    cd_bvh_plan plan = v->plan(&vp);
    char why[1200];
    if (kinds_plan_refused(v, &vp, &plan, why, sizeof why)) {  // a plugin's plan, checked as it is made
        cd_run_fail(r, "%s", why);
        return -1;
    }
    uint32_t leaf = (uint32_t)cd_point_num(p, "method", "leaf_size");
    // The fastest of up to `repeats` builds, as for queries; a single build once the pair
    // exceeds 4·10⁵ triangles, where one build takes seconds.
    uint32_t builds =
        mp->ma.ntris + (uint64_t)mp->mb.ntris <= 400000 ? (uint32_t)cd_point_num(p, "experiment", "repeats") : 1;
    *build_ms = INFINITY;
    for (uint32_t k = 0; k < builds; ++k) {
        cd_bvh_destroy(mp->ha);
        cd_bvh_destroy(mp->hb);
        uint64_t t0 = cd_now_ns();
        mp->ha = cd_bvh_build(&mp->ma, &plan, leaf);
        mp->hb = cd_bvh_build(&mp->mb, &plan, leaf);
        *build_ms = fmin(*build_ms, (double)(cd_now_ns() - t0) * 1e-6);
    }
    const char *file = cd_point_text(p, "mesh", "poses_file");
    if (file[0]) {
        char err[1024], path[4096];
        cd_config_resolve(p->cfg, file, path, sizeof path);
        if (cd_poses_read_csv(path, &mp->poses, &mp->nposes, err, sizeof err)) {
            cd_run_fail(r, "%s", err);
            return -1;
        }
    } else {
        mp->have_distance = 1;
        mp->nposes = (size_t)cd_point_num(p, "mesh", "poses");
        mp->poses = cd_alloc(sizeof *mp->poses * mp->nposes);
        cd_poses_generate((uint64_t)cd_point_num(p, "experiment", "seed"), cd_point_num(p, "mesh", "distance"),
                          mp->nposes, mp->poses);
    }
    return 0;
}

static void teardown(mesh_point *mp)
{
    cd_bvh_destroy(mp->ha);
    cd_bvh_destroy(mp->hb);
    cd_mesh_free(&mp->ma);
    cd_mesh_free(&mp->mb);
    cd_free(mp->poses);
}

// What the poses of one point measured.
typedef struct mesh_sums {
    double *query_us;   // per pose: the fastest of its repeats
    double rep_cv_sum;  // spread of repeats of one pose: poses differ in work by design
    double pairs, bv, tri, np, kind[CD_BVT_COUNT], overlaps;
    size_t busiest;  // the pose with the most triangle tests
    uint64_t busiest_tri;
} mesh_sums;

// What a pose's query found (the same on every repeat: the query is deterministic).
typedef struct pose_result {
    uint64_t count;
    int overlap;
    cd_bvh_stats stats;
} pose_result;

// Queries as cd_run_frames drives them: a warm-up frame queries the next warm-up pose, a measured
// frame pose `pose` (points order: one pose's repeats) or pose f (rounds: every pose once).
typedef struct mesh_frames {
    const mesh_point *mp;
    cd_bvh_mode mode;
    cd_bvh_result res;
    uint32_t warm;  // warm-up queries so far
    int64_t pose;   // >= 0: every measured frame queries this pose; < 0: frame f queries pose f
    double *us;     // where measured frame f's µs go: us[f * stride]
    size_t stride;
    pose_result *pr;  // rounds: pose f's result in pr[f]; points order: NULL
} mesh_frames;

static int mesh_frame(void *ctx, int64_t f)
{
    mesh_frames *q = ctx;
    const mesh_point *mp = q->mp;
    size_t k = f < 0 ? q->warm++ % mp->nposes : q->pose >= 0 ? (size_t)q->pose : (size_t)f;
    cd_bvh_query(mp->ha, mp->hb, &mp->poses[k], q->mode, &q->res);
    return 0;
}

static int mesh_frame_done(cd_run *r, void *ctx, uint32_t f, uint64_t ns)
{
    (void)r;
    mesh_frames *q = ctx;
    q->us[(size_t)f * q->stride] = (double)ns * 1e-3;
    if (q->pr) q->pr[f] = (pose_result){q->res.count, q->res.overlap, q->res.stats};
    return 0;
}

// Pose k done: its fastest repeat (the same query repeated differs only by what other processes
// and interrupts added, so the minimum is the estimate least disturbed by them) and the spread of
// its repeats `reps`, into the sums and its frames.csv row.
static void mesh_pose_done(cd_run *r, const mesh_point *mp, size_t k, double distance, double *reps, uint32_t n,
                           const pose_result *pr, mesh_sums *m)
{
    m->rep_cv_sum += cd_stats_compute(reps, n).cv;
    qsort(reps, n, sizeof *reps, cmp_double);
    m->query_us[k] = reps[0];
    const cd_bvh_stats *s = &pr->stats;
    uint64_t bv = cd_bvh_stats_bv_total(s);
    m->pairs += (double)pr->count, m->bv += (double)bv, m->tri += (double)s->tri_tests;
    m->np += (double)s->node_pairs, m->overlaps += pr->overlap;
    for (int j = 0; j < CD_BVT_COUNT; ++j) m->kind[j] += (double)s->bv_tests[j];
    if (s->tri_tests > m->busiest_tri) m->busiest_tri = s->tri_tests, m->busiest = k;
    cd_cell row[] = {
        cd_cell_int((int64_t)k),
        mp->have_distance ? cd_cell_real(distance) : cd_cell_na(),
        cd_cell_int((int64_t)pr->count),
        cd_cell_int((int64_t)bv),
        cd_cell_int((int64_t)s->tri_tests),
        cd_cell_real(m->query_us[k]),
        cd_cell_int(pr->overlap),
        cd_cell_int((int64_t)s->bv_tests[CD_BVT_SPHERE_SPHERE]),
        cd_cell_int((int64_t)s->bv_tests[CD_BVT_SPHERE_OBB]),
        cd_cell_int((int64_t)s->bv_tests[CD_BVT_OBB_OBB]),
        cd_cell_int((int64_t)s->bv_tests[CD_BVT_AABB_AABB]),
        cd_cell_int((int64_t)s->node_pairs),
    };
    _Static_assert(sizeof row / sizeof row[0] == sizeof frame_columns / sizeof frame_columns[0],
                   "one cell per frame column");
    cd_run_frame_row(r, row);
}

// Every pose of mp: `repeats` timed queries back to back, one frames.csv row each.
static void mesh_queries(cd_run *r, const mesh_point *mp, cd_bvh_mode mode, double distance, uint32_t repeats,
                         uint32_t warmup, mesh_sums *m)
{
    double *rep_us = cd_alloc(sizeof *rep_us * repeats);
    mesh_frames q = {.mp = mp, .mode = mode, .us = rep_us, .stride = 1};
    for (size_t k = 0; k < mp->nposes; ++k) {  // the warm-up queries come before the first pose's
        q.pose = (int64_t)k;
        cd_frames fr = {
            .warmup = k == 0 ? warmup : 0, .frames = repeats, .ctx = &q, .frame = mesh_frame, .done = mesh_frame_done};
        cd_run_frames(r, &fr);
        pose_result pr = {q.res.count, q.res.overlap, q.res.stats};
        mesh_pose_done(r, mp, k, distance, rep_us, repeats, &pr, m);
    }
    cd_bvh_result_free(&q.res);
    cd_free(rep_us);
}

static cd_bvh_mode point_mode(const cd_point *p);

// The point's summary row; the cost model terms Cv and Cp replayed on the pose with the most
// triangle tests, Cu from one refit of B (its vertices are unchanged, so the volumes come out the
// same).
static void mesh_summary(cd_run *r, const cd_point *p, const mesh_point *mp, double build_ms, double distance,
                         uint32_t repeats, const mesh_sums *m)
{
    size_t n = mp->nposes;
    double cv = 0, cp = 0;
    cd_bvh_measure_costs(mp->ha, mp->hb, &mp->poses[m->busiest], 1.0, point_mode(p), &cv, &cp);
    uint64_t t0 = cd_now_ns();
    uint32_t nu = cd_bvh_refit(mp->hb);
    double cu_ns = (double)(cd_now_ns() - t0) / (double)nu;
    cd_stats q = cd_stats_compute(m->query_us, n);
    if (repeats > 1)
        cd_run_warn_noisy(r, p, "query_us (mean over poses of a pose's repeats)", m->rep_cv_sum / (double)n);
    double dn = (double)n;
    cd_row row = cd_run_summary_begin(r);
    cd_row_set(&row, "faces_a", cd_cell_int(mp->ma.ntris));
    cd_row_set(&row, "faces_b", cd_cell_int(mp->mb.ntris));
    cd_row_set(&row, "distance", mp->have_distance ? cd_cell_real(distance) : cd_cell_na());
    cd_row_set(&row, "poses", cd_cell_int((int64_t)n));
    cd_row_set(&row, "repeats", cd_cell_int(repeats));
    cd_row_set(&row, "build_ms", cd_cell_real(build_ms));
    cd_row_set_stats(&row, "query_us", &q);  // median, p05, p95, mad, cv
    cd_row_set(&row, "pairs_mean", cd_cell_real(m->pairs / dn));
    cd_row_set(&row, "bv_tests_mean", cd_cell_real(m->bv / dn));
    cd_row_set(&row, "tri_tests_mean", cd_cell_real(m->tri / dn));
    cd_row_set(&row, "cv_ns", cd_cell_real(cv));
    cd_row_set(&row, "cp_ns", cd_cell_real(cp));
    cd_row_set(&row, "qps_median", cd_cell_real(q.median > 0 ? 1e6 / q.median : NAN));
    cd_row_set(&row, "overlap_fraction", cd_cell_real(m->overlaps / dn));
    cd_row_set(&row, "sphere_sphere_mean", cd_cell_real(m->kind[CD_BVT_SPHERE_SPHERE] / dn));
    cd_row_set(&row, "sphere_obb_mean", cd_cell_real(m->kind[CD_BVT_SPHERE_OBB] / dn));
    cd_row_set(&row, "obb_obb_mean", cd_cell_real(m->kind[CD_BVT_OBB_OBB] / dn));
    cd_row_set(&row, "aabb_aabb_mean", cd_cell_real(m->kind[CD_BVT_AABB_AABB] / dn));
    cd_row_set(&row, "node_pairs_mean", cd_cell_real(m->np / dn));
    cd_row_set(&row, "nu", cd_cell_int(nu));
    cd_row_set(&row, "cu_ns", cd_cell_real(cu_ns));
    cd_row_set(&row, "nodes", cd_cell_int(mp->ha->nnodes + mp->hb->nnodes));
    cd_row_set(&row, "bytes", cd_cell_int((int64_t)(cd_bvh_memory(mp->ha) + cd_bvh_memory(mp->hb))));
    cd_row_set(&row, "depth_a", cd_cell_int(mp->ha->depth));
    cd_row_set(&row, "depth_b", cd_cell_int(mp->hb->depth));
    cd_run_summary_end(r, &row);
}

static cd_bvh_mode point_mode(const cd_point *p)
{
    const char *mode_text = cd_point_text(p, "method", "mode");
    return !strcmp(mode_text, "first_hit") ? CD_BVH_FIRST_HIT
                                           : (!strcmp(mode_text, "solid") ? CD_BVH_SOLID : CD_BVH_ALL_PAIRS);
}

static int mesh_run_point(cd_run *r, const cd_point *p)
{
    mesh_point mp = {0};
    double build_ms = 0;
    if (setup(r, p, &mp, &build_ms)) {
        teardown(&mp);
        return -1;
    }
    cd_bvh_mode mode = point_mode(p);
    double distance = cd_point_num(p, "mesh", "distance");
    uint32_t repeats = (uint32_t)cd_point_num(p, "experiment", "repeats");
    uint32_t warmup = (uint32_t)cd_point_num(p, "experiment", "warmup");
    mesh_sums m = {.query_us = cd_alloc(sizeof(double) * mp.nposes)};
    mesh_queries(r, &mp, mode, distance, repeats, warmup, &m);
    mesh_summary(r, p, &mp, build_ms, distance, repeats, &m);
    cd_free(m.query_us);
    teardown(&mp);
    return 0;
}

// [experiment] order = rounds: round k times repeat k of every pose of the point; the point's
// meshes, hierarchies and every pose's repeats wait in its state, the rows come at the end.
typedef struct mesh_rounds {
    mesh_point mp;
    int ready;  // set up (the meshes read and the hierarchies built)
    double build_ms, distance;
    cd_bvh_mode mode;
    uint32_t repeats;
    double *reps;  // poses × repeats, pose-major
    pose_result *pr;
} mesh_rounds;

static int mesh_run_round(cd_run *r, const cd_point *p, uint32_t round, void **state)
{
    mesh_rounds *m = *state;
    if (!m) {
        m = *state = cd_alloc_zero(1, sizeof *m);
        m->mode = point_mode(p);
        m->distance = cd_point_num(p, "mesh", "distance");
        m->repeats = (uint32_t)cd_point_num(p, "experiment", "repeats");
        if (setup(r, p, &m->mp, &m->build_ms)) return -1;
        m->ready = 1;
        m->reps = cd_alloc(sizeof *m->reps * m->mp.nposes * m->repeats);
        m->pr = cd_alloc(sizeof *m->pr * m->mp.nposes);
    }
    if (!m->ready) return -1;
    mesh_frames q = {
        .mp = &m->mp, .mode = m->mode, .pose = -1, .us = &m->reps[round], .stride = m->repeats, .pr = m->pr};
    cd_frames fr = {.warmup = (uint32_t)cd_point_num(p, "experiment", "warmup"),
                    .frames = (uint32_t)m->mp.nposes,
                    .ctx = &q,
                    .frame = mesh_frame,
                    .done = mesh_frame_done};
    cd_run_frames(r, &fr);
    cd_bvh_result_free(&q.res);
    return 0;
}

static int mesh_finish_point(cd_run *r, const cd_point *p, void *state, uint32_t rounds)
{
    mesh_rounds *m = state;
    if (rounds) {
        mesh_sums s = {.query_us = cd_alloc(sizeof(double) * m->mp.nposes)};
        for (size_t k = 0; k < m->mp.nposes; ++k)
            mesh_pose_done(r, &m->mp, k, m->distance, &m->reps[k * m->repeats], rounds, &m->pr[k], &s);
        mesh_summary(r, p, &m->mp, m->build_ms, m->distance, rounds, &s);
        cd_free(s.query_us);
    }
    teardown(&m->mp);
    cd_free(m->reps), cd_free(m->pr), cd_free(m);
    return 0;
}

// Shards: a point's work grows with its poses and the faces of both meshes: [mesh] faces, or the N
// of a generator spec ("torus:20000"); a mesh file counts as 10 000 faces (its size is not known
// from the config; the balance is an estimate anyway).
static double mesh_faces(const cd_point *p, const char *key)
{
    double faces = cd_point_num(p, "mesh", "faces");
    if (faces > 0) return faces;
    const char *spec = cd_point_text(p, "mesh", key), *colon = strrchr(spec, ':');
    double n = colon ? strtod(colon + 1, NULL) : 0;
    return n > 0 ? n : 10000;
}

// cd_kind.estimate: a point builds both hierarchies `repeats` times and queries `warmup` poses,
// then every pose `repeats` times ([experiment] frames is not read): (builds + queries) × the
// faces of A and B in nominal units. Before, the harness multiplied a per-frame cost by
// (warmup + frames) × repeats, so frames = 10⁶ made a point a million times heavier.
static int mesh_estimate(const cd_point *p, cd_estimate *e)
{
    double repeats = cd_point_num(p, "experiment", "repeats");
    const char *file = cd_point_text(p, "mesh", "poses_file");
    double poses = cd_point_num(p, "mesh", "poses");
    if (file[0]) {  // the file's rows, read once for every point of a plan while the file stays
        static struct {
            char path[4096];
            struct stat st;
            double rows;
        } last;
        char path[4096], why[600];
        struct stat st;
        cd_config_resolve(p->cfg, file, path, sizeof path);
        int have = stat(path, &st) == 0;
        if (have && strcmp(path, last.path) == 0 && st.st_size == last.st.st_size &&
            st.st_mtim.tv_sec == last.st.st_mtim.tv_sec && st.st_mtim.tv_nsec == last.st.st_mtim.tv_nsec) {
            poses = last.rows;
        } else {
            cd_pose *q;
            size_t n;
            if (cd_poses_read_csv(path, &q, &n, why, sizeof why) == 0) {
                poses = (double)n, cd_free(q);
                if (have) snprintf(last.path, sizeof last.path, "%s", path), last.st = st, last.rows = poses;
            }
        }
    }
    double queries = cd_point_num(p, "experiment", "warmup") + poses * repeats;
    e->seconds = (repeats + queries) * (mesh_faces(p, "a") + mesh_faces(p, "b")) * CD_NOMINAL_SECONDS_PER_UNIT;
    return -1;
}

const cd_kind cd_kind_mesh = {
    .name = "mesh",
    .description = "mesh pair under a hierarchy variant: build, per-pose query time, BV/triangle tests, Cv/Cp/Cu",
    .keys = mesh_keys,
    .key_count = sizeof mesh_keys / sizeof mesh_keys[0],
    .figures = "mesh_qps_vs_faces",
    .all_figures = "mesh_qps_vs_faces, mesh_qps_vs_distance, mesh_layers",
    .validate = mesh_validate,
    CD_KINDS_PLUGIN_PRELOAD,
    .method_keys = hierarchy_key,
    .method_key_count = 1,
    .frame_columns = frame_columns,
    .frame_column_count = sizeof frame_columns / sizeof frame_columns[0],
    .summary_columns = summary_columns,
    .summary_column_count = sizeof summary_columns / sizeof summary_columns[0],
    .run_point = mesh_run_point,
    .run_round = mesh_run_round,
    .finish_point = mesh_finish_point,
    .estimate = mesh_estimate,
};
