// SPDX-License-Identifier: MIT
// Hierarchy variants against brute force: every triangle pair of A against every one of B.
#include "cd_verify.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

// Small pairs that touch in many ways at these distances: curved against curved, a thin pencil
// through a ring, flat faces against a sphere.
static const cd_verify_mesh_pair mesh_pairs[] = {
    {"icosphere:80", "torus:100", 1.1},
    {"noisy_sphere:180", "icosphere:80", 1.6},
    {"torus:144", "pencil:60", 0.9},
    {"box", "icosphere:320", 1.9},
};

const cd_verify_mesh_pair *cd_verify_mesh_pairs(size_t *count)
{
    *count = sizeof mesh_pairs / sizeof mesh_pairs[0];
    return mesh_pairs;
}

static const uint32_t leaf_sizes[] = {1, 4};
enum { LEAVES = sizeof leaf_sizes / sizeof leaf_sizes[0] };

static int same_pairs(cd_bvh_result *x, cd_bvh_result *y, uint64_t *missed, uint64_t *extra)
{
    cd_bvh_result_sort(x);
    cd_bvh_result_sort(y);
    // Merge the sorted lists: pairs of y (brute force) not in x, pairs of x not in y.
    size_t i = 0, j = 0;
    uint64_t mi = 0, ex = 0;
    while (i < x->count || j < y->count) {
        if (j == y->count || (i < x->count && (x->pairs[i].a < y->pairs[j].a ||
                                               (x->pairs[i].a == y->pairs[j].a && x->pairs[i].b < y->pairs[j].b)))) {
            ++ex, ++i;
        } else if (i == x->count || x->pairs[i].a != y->pairs[j].a || x->pairs[i].b != y->pairs[j].b) {
            ++mi, ++j;
        } else {
            ++i, ++j;
        }
    }
    *missed += mi;
    *extra += ex;
    return mi == 0 && ex == 0;
}

static int contains(const cd_bvh_result *all, cd_tri_pair p)
{
    for (size_t i = 0; i < all->count; ++i)
        if (all->pairs[i].a == p.a && all->pairs[i].b == p.b) return 1;
    return 0;
}

// Parameter settings a variant is checked at: its defaults and the ends of each parameter's range
// (cd_bvh_variant_probes).
enum { SETTINGS_MAX = 1 + 2 * CD_PARAMS_MAX + 32 };

// Variant t at parameter setting `set` on mesh pair `pair` (meshes ma, mb) over its poses; ref[k]
// is brute force's answer to pose k, sorted.
static void check_setting(cd_verify_bvh_tally *t, const cd_param_settings *set, int pair, const cd_mesh *ma,
                          const cd_mesh *mb, const cd_pose *poses, uint32_t n, cd_bvh_result *ref)
{
    cd_bvh_plan plan = cd_bvh_variant_plan(t->variant, set);
    cd_bvh_result all = {0}, first = {0};
    for (int l = 0; l < LEAVES; ++l) {
        cd_bvh *ha = cd_bvh_build(ma, &plan, leaf_sizes[l]), *hb = cd_bvh_build(mb, &plan, leaf_sizes[l]);
        for (uint32_t k = 0; k < n; ++k) {
            cd_bvh_query(ha, hb, &poses[k], CD_BVH_ALL_PAIRS, &all);
            cd_bvh_query(ha, hb, &poses[k], CD_BVH_FIRST_HIT, &first);
            t->queries += 2;
            t->pairs_compared += ref[k].count;
            int ok = same_pairs(&all, &ref[k], &t->missed, &t->extra);
            // First hit: overlap exactly when brute force finds a pair, and its pair is one of them.
            int first_ok = first.overlap == (ref[k].count > 0) &&
                           (!first.overlap || (first.count == 1 && contains(&ref[k], first.pairs[0])));
            t->first_hit_wrong += !first_ok;
            if ((!ok || !first_ok) && (t->first_bad < 0 || (int64_t)k < t->first_bad ||
                                       ((int64_t)k == t->first_bad && pair < t->first_bad_pair))) {
                t->first_bad = k;
                t->first_bad_pair = pair;
                t->first_bad_leaf = (int)leaf_sizes[l];
                t->first_bad_params = *set;
            }
        }
        cd_bvh_destroy(ha);
        cd_bvh_destroy(hb);
    }
    cd_bvh_result_free(&all);
    cd_bvh_result_free(&first);
}

// Variant t on mesh pair `pair` at each of its parameter settings.
static void check_variant(cd_verify_bvh_tally *t, int pair, const cd_mesh *ma, const cd_mesh *mb, const cd_pose *poses,
                          uint32_t n, cd_bvh_result *ref)
{
    cd_param_settings *set = cd_alloc(SETTINGS_MAX * sizeof *set);
    t->settings = (uint32_t)cd_bvh_variant_probes(t->variant, set, SETTINGS_MAX);
    for (uint32_t k = 0; k < t->settings; ++k) check_setting(t, &set[k], pair, ma, mb, poses, n, ref);
    cd_free(set);
}

void cd_verify_bvh(cd_verify_bvh_tally *t, size_t count, uint32_t poses, uint64_t seed, int threads)
{
    for (size_t v = 0; v < count; ++v) t[v] = (cd_verify_bvh_tally){.variant = t[v].variant, .first_bad = -1};
    for (int pair = 0; pair < (int)(sizeof mesh_pairs / sizeof mesh_pairs[0]); ++pair) {
        const cd_verify_mesh_pair *mp = &mesh_pairs[pair];
        cd_mesh ma = {0}, mb = {0};
        char err[300];
        int rc = cd_mesh_from_spec(mp->a, &ma, err, sizeof err) | cd_mesh_from_spec(mp->b, &mb, err, sizeof err);
        CD_ASSERT(rc == 0);  // procedural meshes
        cd_pose *pose = cd_alloc((poses ? poses : 1) * sizeof *pose);
        cd_poses_generate(seed + (uint64_t)pair, mp->distance, poses, pose);
        cd_bvh_result *ref = cd_alloc_zero(poses ? poses : 1, sizeof *ref);
#pragma omp parallel for schedule(dynamic) num_threads(threads > 0 ? threads : 1)
        for (uint32_t k = 0; k < poses; ++k) {
            cd_bvh_brute_force(&ma, &mb, &pose[k], &ref[k]);
            cd_bvh_result_sort(&ref[k]);
        }
#pragma omp parallel for schedule(dynamic) num_threads(threads > 0 ? threads : 1)
        for (size_t v = 0; v < count; ++v) check_variant(&t[v], pair, &ma, &mb, pose, poses, ref);
        for (uint32_t k = 0; k < poses; ++k) cd_bvh_result_free(&ref[k]);
        cd_free(ref);
        cd_free(pose);
        cd_mesh_free(&ma);
        cd_mesh_free(&mb);
    }
}
