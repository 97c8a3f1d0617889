// SPDX-License-Identifier: MIT
// The mesh kind: the standard mesh pair. Both meshes are scaled into [-1,1]³ about their
// bounding-box centres; B is placed by seeded random rotations at centre distance `distance`
// along x (or by poses read from CSV); each pose is one query of the pair traversal of src/bvh.
// One frames.csv row per pose, one summary.csv row per point with the cost-model terms.
#include "cd_bvh.h"
#include "cd_registry.h"
#include "kind_cubes.h"
#include "cd_harness.h"
#include "kind_mesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const gens[] = {"icosphere:", "torus:", "noisy_sphere:", "pencil:"};

// A bare generator name ("torus"): its face count comes from [mesh] faces.
int kinds_is_bare_generator(const char *w)
{
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; ++k)
        if (strncmp(w, gens[k], strlen(w)) == 0 && strlen(w) + 1 == strlen(gens[k])) return 1;
    return 0;
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
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; ++k) {
        size_t len = strlen(gens[k]);
        if (strncmp(w, gens[k], len) != 0) continue;
        char *end;
        double n = strtod(w + len, &end);
        return (w[len] >= '0' && w[len] <= '9' && *end == '\0' && n >= 1 && n <= 1e7 && n == floor(n)) ? NULL
                                                                                                     : expected;
    }
    return NULL;  // a mesh file: read, relative to the config's directory, by the kind's validate
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
     "faces of both meshes when a and b are bare generator names (a face-count sweep); 0: a and b say"},
    {"mesh", "distance", CD_KEY_REAL, "1.0", 0, 1e6, NULL, NULL, 1, "centre distance of B along x"},
    {"mesh", "poses", CD_KEY_INT, "200", 1, 1e7, NULL, NULL, 1, "seeded random rotations of B"},
    {"mesh", "poses_file", CD_KEY_PATH, "", 0, 0, NULL, NULL, 0,
     "read poses from CSV (qw,qx,qy,qz,tx,ty,tz; relative to the config's directory), overriding distance and "
     "poses"},
    CD_KINDS_PLUGIN_KEY,
    {"method", "hierarchy", CD_KEY_WORD, "hybrid", 0, 0, NULL, kinds_check_hierarchy, 1,
     "hierarchy variant: sphere, aabb, obb (RAPID), obb_sphere, hybrid (HBVHS)"},
    {"method", "mode", CD_KEY_WORD, "all_pairs", 0, 0, mode_words, NULL, 1,
     "query: first_hit, all_pairs, or solid (adds point-in-mesh for closed meshes)"},
    {"method", "leaf_size", CD_KEY_INT, "1", 1, 1024, NULL, NULL, 1, "most triangles per leaf (1 as in RAPID)"},
    {"method", "hybrid_x", CD_KEY_INT, "4", 0, 64, NULL, NULL, 1, "hybrid: sphere layers at the top (layer X)"},
    {"method", "hybrid_y", CD_KEY_INT, "4", 0, 64, NULL, NULL, 1,
     "hybrid: OBB+sphere layers below X (layer Y); OBBs below (layer Z)"},
};

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
            cd_config_error(c, bare ? k : faces, err, err_len,
                            bare ? "'%s' is a bare generator name: expected [mesh] faces > 0 to give its face count"
                                 : "faces > 0 sizes bare generator names, but '%s' is not one: expected a = icosphere, "
                                   "torus, noisy_sphere or pencil, or faces = 0",
                            k->values[i].text);
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

static int mesh_validate(const cd_config *c, char *err, size_t err_len)
{
    if (check_faces(c, err, err_len) || check_mesh_files(c, err, err_len)) return -1;
    const cd_config_key *file = cd_config_key_get(c, "mesh", "poses_file");
    if (file->count == 0) return 0;
    const cd_config_key *dist = cd_config_key_get(c, "mesh", "distance");
    if (dist->count > 1) {
        cd_config_error(c, dist, err, err_len, "distance is swept but poses_file (line %d) fixes the poses: "
                        "expected one distance or no poses_file", file->line);
        return -1;
    }
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
    {"hierarchy", 0, "[method] hierarchy"},
    {"mode", 0, "[method] mode"},
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
    {"hierarchy", 0, "[method] hierarchy"},
    {"mode", 0, "[method] mode"},
    {"a", 0, "[mesh] a"},
    {"b", 0, "[mesh] b"},
    {"faces_a", 0, "triangles of A"},
    {"faces_b", 0, "triangles of B"},
    {"distance", 0, "[mesh] distance (NA with poses_file)"},
    {"leaf_size", 0, "[method] leaf_size"},
    {"hybrid_x", 0, "[method] hybrid_x"},
    {"hybrid_y", 0, "[method] hybrid_y"},
    {"poses", 0, "poses queried"},
    {"repeats", 0, "timed queries per pose"},
    {"build_ms", 1, "building both hierarchies: fastest of `repeats` builds (one above 4e5 triangles)"},
    {"query_us_median", 1, "median over poses of query_us"},
    {"pairs_mean", 0, "mean pairs per pose"},
    {"bv_tests_mean", 0, "mean BV tests per pose (Nv)"},
    {"tri_tests_mean", 0, "mean triangle tests per pose (Np)"},
    {"cv_ns", 1, "measured cost of one BV test with its move into A's frame (Cv)"},
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
    {"seed", 0, "[experiment] seed"},
};

static const char *mode_name(cd_bvh_mode m)
{
    return m == CD_BVH_FIRST_HIT ? "first_hit" : (m == CD_BVH_ALL_PAIRS ? "all_pairs" : "solid");
}

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
    cd_bvh_variant_params vp = {(int)cd_point_num(p, "method", "hybrid_x"), (int)cd_point_num(p, "method", "hybrid_y")};
    cd_bvh_plan plan = v->plan(&vp);
    uint32_t leaf = (uint32_t)cd_point_num(p, "method", "leaf_size");
    // The fastest of up to `repeats` builds, as for queries; a single build once the pair
    // exceeds 4·10⁵ triangles, where one build takes seconds.
    uint32_t builds = mp->ma.ntris + (uint64_t)mp->mb.ntris <= 400000 ? (uint32_t)cd_point_num(p, "experiment", "repeats") : 1;
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

static int mesh_run_point(cd_run *r, const cd_point *p)
{
    mesh_point mp = {0};
    double build_ms = 0;
    if (setup(r, p, &mp, &build_ms)) {
        teardown(&mp);
        return -1;
    }
    const char *mode_text = cd_point_text(p, "method", "mode");
    cd_bvh_mode mode = !strcmp(mode_text, "first_hit") ? CD_BVH_FIRST_HIT
                                                        : (!strcmp(mode_text, "solid") ? CD_BVH_SOLID : CD_BVH_ALL_PAIRS);
    const char *hier = cd_point_text(p, "method", "hierarchy");
    double distance = cd_point_num(p, "mesh", "distance");
    uint32_t repeats = (uint32_t)cd_point_num(p, "experiment", "repeats");
    uint32_t warmup = (uint32_t)cd_point_num(p, "experiment", "warmup");
    uint64_t seed = (uint64_t)cd_point_num(p, "experiment", "seed");
    size_t n = mp.nposes;
    double *query_us = cd_alloc(sizeof *query_us * n), *rep_us = cd_alloc(sizeof *rep_us * repeats);
    cd_bvh_result res = {0};
    for (uint32_t w = 0; w < warmup; ++w) cd_bvh_query(mp.ha, mp.hb, &mp.poses[w % n], mode, &res);
    double rep_cv_sum = 0;  // spread of repeats of one pose: poses differ in work by design
    double sum_pairs = 0, sum_bv = 0, sum_tri = 0, sum_np = 0, sum_kind[CD_BVT_COUNT] = {0}, overlaps = 0;
    size_t busiest = 0;
    uint64_t busiest_tri = 0;
    for (size_t k = 0; k < n; ++k) {
        for (uint32_t rep = 0; rep < repeats; ++rep) {
            if (rep + 1 == repeats) cd_run_counters_begin(r);
            uint64_t t0 = cd_now_ns();
            cd_bvh_query(mp.ha, mp.hb, &mp.poses[k], mode, &res);
            rep_us[rep] = (double)(cd_now_ns() - t0) * 1e-3;
            if (rep + 1 == repeats) cd_run_counters_end(r);
        }
        rep_cv_sum += cd_stats_compute(rep_us, repeats).cv;
        // The fastest repeat: the same query repeated differs only by what other processes and
        // interrupts added, so the minimum is the estimate least disturbed by them.
        qsort(rep_us, repeats, sizeof *rep_us, cmp_double);
        query_us[k] = rep_us[0];
        const cd_bvh_stats *s = &res.stats;
        uint64_t bv = cd_bvh_stats_bv_total(s);
        sum_pairs += (double)res.count, sum_bv += (double)bv, sum_tri += (double)s->tri_tests;
        sum_np += (double)s->node_pairs, overlaps += res.overlap;
        for (int j = 0; j < CD_BVT_COUNT; ++j) sum_kind[j] += (double)s->bv_tests[j];
        if (s->tri_tests > busiest_tri) busiest_tri = s->tri_tests, busiest = k;
        cd_cell row[] = {
            cd_cell_int((int64_t)k), cd_cell_text(hier), cd_cell_text(mode_name(mode)),
            mp.have_distance ? cd_cell_real(distance) : cd_cell_na(), cd_cell_int((int64_t)res.count),
            cd_cell_int((int64_t)bv), cd_cell_int((int64_t)s->tri_tests), cd_cell_real(query_us[k]),
            cd_cell_int(res.overlap), cd_cell_int((int64_t)s->bv_tests[CD_BVT_SPHERE_SPHERE]),
            cd_cell_int((int64_t)s->bv_tests[CD_BVT_SPHERE_OBB]), cd_cell_int((int64_t)s->bv_tests[CD_BVT_OBB_OBB]),
            cd_cell_int((int64_t)s->bv_tests[CD_BVT_AABB_AABB]), cd_cell_int((int64_t)s->node_pairs),
        };
        _Static_assert(sizeof row / sizeof row[0] == sizeof frame_columns / sizeof frame_columns[0],
                       "one cell per frame column");
        cd_run_frame_row(r, row);
    }
    cd_bvh_result_free(&res);
    // Cost model terms: Cv and Cp replayed on the pose with the most triangle tests; Cu from one
    // refit of B (its vertices are unchanged, so the volumes come out the same).
    double cv = 0, cp = 0;
    cd_bvh_measure_costs(mp.ha, mp.hb, &mp.poses[busiest], 1.0, &cv, &cp);
    uint64_t t0 = cd_now_ns();
    uint32_t nu = cd_bvh_refit(mp.hb);
    double cu_ns = (double)(cd_now_ns() - t0) / (double)nu;
    cd_stats q = cd_stats_compute(query_us, n);
    if (repeats > 1) cd_run_warn_noisy(r, p, "query_us (mean over poses of a pose's repeats)", rep_cv_sum / (double)n);
    double dn = (double)n;
    cd_row row = cd_run_summary_begin(r);
    cd_row_set(&row, "hierarchy", cd_cell_text(hier));
    cd_row_set(&row, "mode", cd_cell_text(mode_name(mode)));
    cd_row_set(&row, "a", cd_cell_text(cd_point_text(p, "mesh", "a")));
    cd_row_set(&row, "b", cd_cell_text(cd_point_text(p, "mesh", "b")));
    cd_row_set(&row, "faces_a", cd_cell_int(mp.ma.ntris));
    cd_row_set(&row, "faces_b", cd_cell_int(mp.mb.ntris));
    cd_row_set(&row, "distance", mp.have_distance ? cd_cell_real(distance) : cd_cell_na());
    cd_row_set(&row, "leaf_size", cd_cell_int(mp.ha->leaf_size));
    cd_row_set(&row, "hybrid_x", cd_cell_int((int64_t)cd_point_num(p, "method", "hybrid_x")));
    cd_row_set(&row, "hybrid_y", cd_cell_int((int64_t)cd_point_num(p, "method", "hybrid_y")));
    cd_row_set(&row, "poses", cd_cell_int((int64_t)n));
    cd_row_set(&row, "repeats", cd_cell_int(repeats));
    cd_row_set(&row, "build_ms", cd_cell_real(build_ms));
    cd_row_set_stats(&row, "query_us", &q);  // median, p05, p95, mad, cv
    cd_row_set(&row, "pairs_mean", cd_cell_real(sum_pairs / dn));
    cd_row_set(&row, "bv_tests_mean", cd_cell_real(sum_bv / dn));
    cd_row_set(&row, "tri_tests_mean", cd_cell_real(sum_tri / dn));
    cd_row_set(&row, "cv_ns", cd_cell_real(cv));
    cd_row_set(&row, "cp_ns", cd_cell_real(cp));
    cd_row_set(&row, "qps_median", cd_cell_real(q.median > 0 ? 1e6 / q.median : NAN));
    cd_row_set(&row, "overlap_fraction", cd_cell_real(overlaps / dn));
    cd_row_set(&row, "sphere_sphere_mean", cd_cell_real(sum_kind[CD_BVT_SPHERE_SPHERE] / dn));
    cd_row_set(&row, "sphere_obb_mean", cd_cell_real(sum_kind[CD_BVT_SPHERE_OBB] / dn));
    cd_row_set(&row, "obb_obb_mean", cd_cell_real(sum_kind[CD_BVT_OBB_OBB] / dn));
    cd_row_set(&row, "aabb_aabb_mean", cd_cell_real(sum_kind[CD_BVT_AABB_AABB] / dn));
    cd_row_set(&row, "node_pairs_mean", cd_cell_real(sum_np / dn));
    cd_row_set(&row, "nu", cd_cell_int(nu));
    cd_row_set(&row, "cu_ns", cd_cell_real(cu_ns));
    cd_row_set(&row, "nodes", cd_cell_int(mp.ha->nnodes + mp.hb->nnodes));
    cd_row_set(&row, "bytes", cd_cell_int((int64_t)(cd_bvh_memory(mp.ha) + cd_bvh_memory(mp.hb))));
    cd_row_set(&row, "depth_a", cd_cell_int(mp.ha->depth));
    cd_row_set(&row, "depth_b", cd_cell_int(mp.hb->depth));
    cd_row_set(&row, "seed", cd_cell_int((int64_t)seed));
    cd_run_summary_end(r, &row);
    cd_free(query_us);
    cd_free(rep_us);
    teardown(&mp);
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

static double mesh_cost(const cd_point *p)
{
    return cd_point_num(p, "mesh", "poses") * (mesh_faces(p, "a") + mesh_faces(p, "b"));
}

const cd_kind cd_kind_mesh = {
    .name = "mesh",
    .description = "mesh pair under a hierarchy variant: build, per-pose query time, BV/triangle tests, Cv/Cp/Cu",
    .keys = mesh_keys,
    .key_count = sizeof mesh_keys / sizeof mesh_keys[0],
    .figures = "mesh_qps_vs_faces",
    .validate = mesh_validate,
    CD_KINDS_PLUGIN_PRELOAD,
    .frame_columns = frame_columns,
    .frame_column_count = sizeof frame_columns / sizeof frame_columns[0],
    .summary_columns = summary_columns,
    .summary_column_count = sizeof summary_columns / sizeof summary_columns[0],
    .run_point = mesh_run_point,
    .cost = mesh_cost,
};
