// SPDX-License-Identifier: MIT
// bvh: every variant reports exactly brute force's triangle-pair set over many seeded poses of
// small meshes; first hit agrees with all pairs; solid mode finds nesting; volumes enclose their
// triangles (also after refit); builds are deterministic and follow the layer plan.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_bvh.h"
#include "cd_csv.h"
#include "cd_narrow.h"
#include "cd_verify.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The variants under test: every named one, hybrids whose layers all occur in small trees, and
// leaf sizes above 1.
typedef struct tvariant {
    const char *name;
    int x, y;
    uint32_t leaf;
} tvariant;
static const tvariant variants[] = {{"sphere", 0, 0, 1},     {"aabb", 0, 0, 1},   {"obb", 0, 0, 1},
                                    {"obb_sphere", 0, 0, 1}, {"hybrid", 2, 3, 1}, {"hybrid", 4, 4, 1},
                                    {"hybrid", 1, 0, 4},     {"obb", 0, 0, 3},    {"aabb", 0, 0, 8}};
#define NVAR (sizeof variants / sizeof variants[0])

static cd_bvh *build_variant(const cd_mesh *m, const tvariant *v)
{
    const cd_bvh_variant *var = cd_bvh_variant_find(v->name);
    assert_non_null(var);
    cd_param_settings set = {0};
    cd_param_settings_put(&set, "hybrid_x", "%d", v->x);
    cd_param_settings_put(&set, "hybrid_y", "%d", v->y);
    cd_bvh_plan plan = cd_bvh_variant_plan(var, &set);
    return cd_bvh_build(m, &plan, v->leaf);
}

// A seeded pose: uniform rotation, translation in a random direction with length in [0, dmax].
static cd_pose random_pose(cd_rng *r, double dmax)
{
    cd_pose p;
    p.q = cd_rng_rotation(r);
    p.t = cd_v3_scale(cd_rng_unit_vector(r), cd_rng_range(r, 0.0, dmax));
    return p;
}

static int same_pairs(cd_bvh_result *x, cd_bvh_result *y)
{
    cd_bvh_result_sort(x);
    cd_bvh_result_sort(y);
    return x->count == y->count && (x->count == 0 || memcmp(x->pairs, y->pairs, sizeof *x->pairs * x->count) == 0);
}

static int contains_pair(const cd_bvh_result *all, cd_tri_pair p)
{
    for (size_t i = 0; i < all->count; ++i)
        if (all->pairs[i].a == p.a && all->pairs[i].b == p.b) return 1;
    return 0;
}

// Run poses of mesh pair (sa, sb) through every variant against brute force. Returns the number of
// poses with at least one pair (so the caller can check the cases are not all trivial).
static int agree_on_poses(const char *sa, const char *sb, int poses, double dmax, uint64_t seed, int *checked)
{
    cd_mesh ma = test_mesh(sa), mb = test_mesh(sb);
    cd_bvh *ha[NVAR], *hb[NVAR];
    for (size_t v = 0; v < NVAR; ++v)
        ha[v] = build_variant(&ma, &variants[v]), hb[v] = build_variant(&mb, &variants[v]);
    cd_rng rng = cd_rng_make(seed, CD_STREAM_TEST);
    cd_bvh_result ref = {0}, all = {0}, first = {0};
    int hits = 0;
    for (int k = 0; k < poses; ++k) {
        cd_pose pose = random_pose(&rng, dmax);
        cd_bvh_brute_force(&ma, &mb, &pose, &ref);
        hits += ref.count > 0;
        for (size_t v = 0; v < NVAR; ++v) {
            cd_bvh_query(ha[v], hb[v], &pose, CD_BVH_ALL_PAIRS, &all);
            if (!same_pairs(&all, &ref))
                fail_msg("%s/%s pose %d variant %s(%d,%d) leaf %u: %zu pairs, brute force %zu", sa, sb, k,
                         variants[v].name, variants[v].x, variants[v].y, variants[v].leaf, all.count, ref.count);
            // Culling must pay: fewer triangle tests than brute force on these meshes.
            assert_true(all.stats.tri_tests <= ref.stats.tri_tests);
            cd_bvh_query(ha[v], hb[v], &pose, CD_BVH_FIRST_HIT, &first);
            assert_int_equal(first.overlap, ref.count > 0);
            assert_int_equal(first.count, ref.count > 0);
            if (first.count) assert_true(contains_pair(&ref, first.pairs[0]));
            ++*checked;
        }
    }
    cd_bvh_result_free(&ref);
    cd_bvh_result_free(&all);
    cd_bvh_result_free(&first);
    for (size_t v = 0; v < NVAR; ++v) cd_bvh_destroy(ha[v]), cd_bvh_destroy(hb[v]);
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
    return hits;
}

static void every_variant_equals_brute_force(void **state)
{
    (void)state;
    int checked = 0, poses = 0, hits = 0;
    struct {
        const char *a, *b;
        int poses;
        double dmax;
    } cases[] = {
        {"icosphere:320", "torus:400", 300, 2.5},
        {"noisy_sphere:500", "pencil:200", 300, 2.0},
        {"torus:300", "torus:300", 250, 2.2},
        {"pencil:150", "pencil:150", 200, 0.5},
        {"icosphere:2000", "noisy_sphere:2000", 12, 2.0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        hits += agree_on_poses(cases[c].a, cases[c].b, cases[c].poses, cases[c].dmax, 1000 + c, &checked);
        poses += cases[c].poses;
    }
    printf("# brute-force agreement: %d poses, %d with contact, %d variant checks, all equal\n", poses, hits, checked);
    assert_true(poses >= 1000);
    assert_true(hits > poses / 4 && hits < poses);  // both contact and separation well represented
}

static void solid_mode_finds_nesting(void **state)
{
    (void)state;
    cd_mesh outer = test_mesh("noisy_sphere:1500"), inner = test_mesh("torus:800");
    for (uint32_t i = 0; i < inner.nverts; ++i) inner.verts[i] = cd_v3_scale(inner.verts[i], 0.4);
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ho = build_variant(&outer, &variants[v]), *hi = build_variant(&inner, &variants[v]);
        assert_true(cd_bvh_is_closed(ho) && cd_bvh_is_closed(hi));
        cd_bvh_result r = {0};
        cd_rng rng = cd_rng_make(5, CD_STREAM_TEST + 1);
        for (int k = 0; k < 20; ++k) {
            cd_pose pose = {cd_rng_rotation(&rng), cd_v3_scale(cd_rng_unit_vector(&rng), 0.2)};
            cd_bvh_query(ho, hi, &pose, CD_BVH_FIRST_HIT, &r);
            assert_false(r.overlap);  // no surface contact
            cd_bvh_query(ho, hi, &pose, CD_BVH_SOLID, &r);
            assert_true(r.overlap && r.inside);  // inner inside outer
            cd_bvh_query(hi, ho, &pose, CD_BVH_SOLID, &r);
            assert_true(r.overlap && r.inside);  // outer contains the (posed) inner: the other direction
            pose.t = cd_v3(3.0, 0, 0);           // apart
            cd_bvh_query(ho, hi, &pose, CD_BVH_SOLID, &r);
            assert_false(r.overlap);
        }
        // An open mesh cannot contain anything: solid mode falls back to surface contact.
        cd_mesh open = test_mesh("noisy_sphere:1500");
        open.ntris -= 1;
        cd_bvh *hopen = build_variant(&open, &variants[v]);
        assert_false(cd_bvh_is_closed(hopen));
        cd_pose id = {cd_q_identity(), cd_v3(0, 0, 0)};
        cd_bvh_query(hopen, hi, &id, CD_BVH_SOLID, &r);
        assert_false(r.overlap);
        cd_bvh_destroy(hopen);
        open.ntris += 1;
        cd_mesh_free(&open);
        cd_bvh_result_free(&r);
        cd_bvh_destroy(ho);
        cd_bvh_destroy(hi);
    }
    cd_mesh_free(&outer);
    cd_mesh_free(&inner);
}

// Solid mode on closed meshes that are not one outward surface: a sphere wound inward holds what
// it encloses (the nonzero rule), and a mesh of two separate spheres is inside another when its
// second part is, though its first lies outside (every part's vertex is tested).
static void solid_mode_inward_and_parts(void **state)
{
    (void)state;
    cd_mesh outer = test_mesh("icosphere:320"), small = test_mesh("icosphere:80"), two;
    for (uint32_t t = 0; t < outer.ntris; ++t) {  // inward: each triangle's winding reversed
        uint32_t v = outer.tris[t][1];
        outer.tris[t][1] = outer.tris[t][2], outer.tris[t][2] = v;
    }
    cd_mesh_alloc(&two, 2 * small.nverts, 2 * small.ntris);
    for (int p = 0; p < 2; ++p) {  // part 0 around x = +1.5, part 1 around x = -1.5, radius 0.1
        for (uint32_t i = 0; i < small.nverts; ++i)
            two.verts[p * small.nverts + i] = cd_v3_add(cd_v3_scale(small.verts[i], 0.1), cd_v3(p ? -1.5 : 1.5, 0, 0));
        for (uint32_t t = 0; t < small.ntris; ++t)
            for (int k = 0; k < 3; ++k) two.tris[p * small.ntris + t][k] = small.tris[t][k] + p * small.nverts;
    }
    uint32_t part[2 * 80 * 2];
    assert_true(two.ntris <= sizeof part / sizeof part[0]);
    assert_int_equal(cd_mesh_part_vertices(&two, part), 2);
    assert_int_equal(part[0], two.tris[0][0]);
    assert_true(part[1] >= small.nverts);
    assert_int_equal(cd_mesh_part_vertices(&outer, part), 1);
    cd_mesh_free(&small);
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ho = build_variant(&outer, &variants[v]), *ht = build_variant(&two, &variants[v]);
        assert_true(cd_bvh_is_closed(ho) && cd_bvh_is_closed(ht));
        cd_bvh_result r = {0};
        cd_pose in = {cd_q_identity(), cd_v3(1.5, 0, 0)}, out = {cd_q_identity(), cd_v3(4.0, 0, 0)};
        // Posed at +1.5 on x: part 0 at x = 3 lies outside, part 1 at x = 0 inside the sphere.
        cd_bvh_query(ho, ht, &in, CD_BVH_FIRST_HIT, &r);
        assert_false(r.overlap);
        cd_bvh_query(ho, ht, &in, CD_BVH_SOLID, &r);
        assert_true(r.overlap && r.inside);
        cd_pose back = {cd_q_identity(), cd_v3(-1.5, 0, 0)};  // the other direction: A in B's frame
        cd_bvh_query(ht, ho, &back, CD_BVH_SOLID, &r);
        assert_true(r.overlap && r.inside);
        cd_bvh_query(ho, ht, &out, CD_BVH_SOLID, &r);  // both parts outside
        assert_false(r.overlap);
        cd_bvh_result_free(&r);
        cd_bvh_destroy(ho);
        cd_bvh_destroy(ht);
    }
    cd_mesh_free(&outer);
    cd_mesh_free(&two);
}

static void winding_number_inside_outside(void **state)
{
    (void)state;
    cd_mesh m = test_mesh("torus:1000");
    // The torus' tube centre circle (radius 1/1.35 after normalisation) is inside; the hole is not.
    assert_true(fabs(cd_bvh_winding_number(&m, cd_v3(1.0 / 1.35, 0, 0)) - 1.0) < 1e-9);
    assert_true(fabs(cd_bvh_winding_number(&m, cd_v3(0, 0, 0))) < 1e-9);
    assert_true(fabs(cd_bvh_winding_number(&m, cd_v3(5, 1, 2))) < 1e-9);
    cd_mesh_free(&m);
}

// Every node's sphere and box hold every vertex of its triangles.
static void check_enclosure(const cd_bvh *h, uint32_t ni, uint32_t *first, uint32_t *count)
{
    const cd_bvh_node *n = &h->nodes[ni];
    if (n->count) {
        *first = n->first, *count = n->count;
    } else {
        uint32_t f0, c0, f1, c1;
        check_enclosure(h, n->first, &f0, &c0);
        check_enclosure(h, n->first + 1, &f1, &c1);
        assert_int_equal(f1, f0 + c0);
        *first = f0, *count = c0 + c1;
    }
    assert_int_equal(n->kind, cd_bvh_plan_kind(&h->plan, n->depth));
    for (uint32_t i = *first; i < *first + *count; ++i)
        for (int k = 0; k < 3; ++k) {
            cd_vec3 p = h->mesh->verts[h->mesh->tris[h->order[i]][k]];
            assert_true(cd_v3_len(cd_v3_sub(p, n->c)) <= n->r);
            if (n->kind & (CD_BV_OBB | CD_BV_AABB)) {
                cd_obb box = cd_bvh_node_box(n);
                cd_vec3 q = cd_m3_tmul_v(box.axes, cd_v3_sub(p, box.c));
                assert_true(fabs(q.x) <= box.half.x && fabs(q.y) <= box.half.y && fabs(q.z) <= box.half.z);
            }
        }
}

static void build_structure_and_enclosure(void **state)
{
    (void)state;
    cd_mesh m = test_mesh("noisy_sphere:3000");
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *h = build_variant(&m, &variants[v]);
        if (variants[v].leaf == 1) assert_int_equal(h->nnodes, 2 * m.ntris - 1);
        uint32_t f, c;
        check_enclosure(h, 0, &f, &c);
        assert_int_equal(c, m.ntris);
        // order is a permutation of the triangles.
        uint8_t *seen = calloc(m.ntris, 1);
        for (uint32_t i = 0; i < m.ntris; ++i) assert_false(seen[h->order[i]]++);
        free(seen);
        // Median split: depth is ceil(log2(leaves)).
        assert_true(h->depth <= (int)ceil(log2((double)m.ntris / variants[v].leaf)) + 1);
        cd_bvh *h2 = build_variant(&m, &variants[v]);
        assert_memory_equal(h->nodes, h2->nodes, sizeof *h->nodes * h->nnodes);
        cd_bvh_destroy(h2);
        cd_bvh_destroy(h);
    }
    cd_mesh_free(&m);
}

// A refit of an unchanged mesh fits every node again through the scalar per-node path; the build
// fits internal nodes two at a time (fit.c's paired axes where SSE2 is available). Equal bytes
// show that both give the same volumes, over meshes whose nodes take the rare paths too
// (degenerate triangles, flat and isotropic nodes).
static void refit_of_unchanged_mesh_equals_build(void **state)
{
    (void)state;
    const char *specs[] = {"icosphere:2000", "torus:3000", "noisy_sphere:3000", "pencil:2000", "pencil:500"};
    const size_t nspecs = sizeof specs / sizeof *specs;
    for (size_t s = 0; s < nspecs; ++s) {
        cd_mesh m = test_mesh(specs[s]);
        if (s == nspecs - 1)  // degenerate triangles: every 7th collapsed to a segment or a point
            for (uint32_t t = 0; t < m.ntris; t += 7) m.tris[t][2] = m.tris[t][t % 2];
        for (size_t v = 0; v < NVAR; ++v) {
            cd_bvh *h = build_variant(&m, &variants[v]);
            cd_bvh_node *built = malloc(sizeof *built * h->nnodes);
            memcpy(built, h->nodes, sizeof *built * h->nnodes);
            assert_int_equal(cd_bvh_refit(h), h->nnodes);
            assert_memory_equal(built, h->nodes, sizeof *built * h->nnodes);
            free(built);
            cd_bvh_destroy(h);
        }
        cd_mesh_free(&m);
    }
}

static void refit_follows_deformation(void **state)
{
    (void)state;
    cd_mesh ma = test_mesh("torus:600"), mb = test_mesh("noisy_sphere:600");
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ha = build_variant(&ma, &variants[v]), *hb = build_variant(&mb, &variants[v]);
        cd_mesh_free(&mb);
        mb = test_mesh("noisy_sphere:600");
        // Deform B in place: a twist about z and a stretch along x.
        for (uint32_t i = 0; i < mb.nverts; ++i) {
            cd_vec3 p = mb.verts[i];
            double a = 0.8 * p.z, c = cos(a), s = sin(a);
            mb.verts[i] = cd_v3(1.4 * (c * p.x - s * p.y), s * p.x + c * p.y, p.z);
        }
        assert_int_equal(cd_bvh_refit(hb), hb->nnodes);
        uint32_t f, n;
        check_enclosure(hb, 0, &f, &n);
        cd_rng rng = cd_rng_make(77, CD_STREAM_TEST + 2);
        cd_bvh_result ref = {0}, all = {0};
        for (int k = 0; k < 30; ++k) {
            cd_pose pose = random_pose(&rng, 2.2);
            cd_bvh_brute_force(&ma, &mb, &pose, &ref);
            cd_bvh_query(ha, hb, &pose, CD_BVH_ALL_PAIRS, &all);
            assert_true(same_pairs(&all, &ref));
        }
        cd_bvh_result_free(&ref);
        cd_bvh_result_free(&all);
        cd_bvh_destroy(ha);
        cd_bvh_destroy(hb);
    }
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
}

static void counters_are_deterministic_and_by_kind(void **state)
{
    (void)state;
    cd_mesh ma = test_mesh("icosphere:1280"), mb = test_mesh("torus:1000");
    cd_pose pose = {cd_q_normalize((cd_quat){0.9, 0.1, -0.3, 0.2}), cd_v3(1.0, 0.1, 0)};
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ha = build_variant(&ma, &variants[v]), *hb = build_variant(&mb, &variants[v]);
        cd_bvh_result r1 = {0}, r2 = {0};
        cd_bvh_query(ha, hb, &pose, CD_BVH_ALL_PAIRS, &r1);
        cd_bvh_query(ha, hb, &pose, CD_BVH_ALL_PAIRS, &r2);
        assert_memory_equal(&r1.stats, &r2.stats, sizeof r1.stats);
        assert_true(r1.count > 0);
        const cd_bvh_stats *s = &r1.stats;
        const char *n = variants[v].name;
        // Which tests run follows the kinds: a sphere tree never tests boxes, and so on.
        if (!strcmp(n, "sphere"))
            assert_true(s->bv_tests[CD_BVT_SPHERE_SPHERE] && !s->bv_tests[CD_BVT_OBB_OBB] &&
                        !s->bv_tests[CD_BVT_AABB_AABB]);
        if (!strcmp(n, "aabb"))
            assert_true(s->bv_tests[CD_BVT_AABB_AABB] && !s->bv_tests[CD_BVT_SPHERE_SPHERE] &&
                        !s->bv_tests[CD_BVT_OBB_OBB]);
        if (!strcmp(n, "obb"))
            assert_true(s->bv_tests[CD_BVT_OBB_OBB] && !s->bv_tests[CD_BVT_SPHERE_SPHERE] &&
                        !s->bv_tests[CD_BVT_SPHERE_OBB]);
        if (!strcmp(n, "hybrid")) assert_true(s->bv_tests[CD_BVT_SPHERE_SPHERE] && s->bv_tests[CD_BVT_OBB_OBB]);
        if (!strcmp(n, "hybrid") && variants[v].y == 0) assert_true(s->bv_tests[CD_BVT_SPHERE_OBB]);
        // Every popped pair costs at least one volume test.
        assert_true(cd_bvh_stats_bv_total(s) >= s->node_pairs);
        double cv, cp;
        cd_bvh_measure_costs(ha, hb, &pose, 1.0, CD_BVH_ALL_PAIRS, &cv, &cp);
        assert_true(cv > 0 && cp > 0);
        cd_bvh_result_free(&r1);
        cd_bvh_result_free(&r2);
        cd_bvh_destroy(ha);
        cd_bvh_destroy(hb);
    }
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
}

// Every build of the traversal (baseline, AVX-512 where the CPU has it) gives the same answer, the
// same pairs in the same order and the same counters, in every mode and variant, at three scales of
// B (body scenes with size_ratio > 1), over seeded poses with and without contact. With this, the
// exactness tests on the build the CPU picks cover the other build too. Where a build cannot run
// here the test says which it checked.
static void every_isa_gives_the_same_bits(void **state)
{
    (void)state;
    cd_mesh ma = test_mesh("noisy_sphere:1500"), mb = test_mesh("torus:1200");
    cd_rng rng = cd_rng_make(77, CD_STREAM_TEST);
    const cd_bvh_mode modes[] = {CD_BVH_FIRST_HIT, CD_BVH_ALL_PAIRS, CD_BVH_SOLID};
    const double scales[] = {1.0, 1.7, 0.6};
    int compared = 0, isas = 0, hits = 0;
    for (int isa = 0; isa < CD_BVH_ISA_COUNT; ++isa) isas += cd_bvh_isa_runs((cd_bvh_isa)isa);
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ha = build_variant(&ma, &variants[v]), *hb = build_variant(&mb, &variants[v]);
        for (int k = 0; k < 40; ++k) {
            cd_pose pose = random_pose(&rng, 2.4);
            const double scale = scales[k % 3];
            for (size_t mo = 0; mo < sizeof modes / sizeof modes[0]; ++mo) {
                cd_bvh_result ref = {0};
                cd_bvh_query_isa(CD_BVH_ISA_BASELINE, ha, hb, &pose, scale, modes[mo], &ref);
                hits += ref.overlap;
                for (int isa = 1; isa < CD_BVH_ISA_COUNT; ++isa) {
                    if (!cd_bvh_isa_runs((cd_bvh_isa)isa)) continue;
                    cd_bvh_result r = {0};
                    cd_bvh_query_isa((cd_bvh_isa)isa, ha, hb, &pose, scale, modes[mo], &r);
                    assert_int_equal(r.overlap, ref.overlap);
                    assert_int_equal(r.inside, ref.inside);
                    assert_int_equal(r.count, ref.count);
                    if (r.count) assert_memory_equal(r.pairs, ref.pairs, sizeof *r.pairs * r.count);
                    assert_memory_equal(&r.stats, &ref.stats, sizeof r.stats);
                    ++compared;
                    cd_bvh_result_free(&r);
                }
                cd_bvh_result_free(&ref);
            }
        }
        cd_bvh_destroy(ha);
        cd_bvh_destroy(hb);
    }
    printf("# traversal builds: %d run here, %d queries compared bit for bit, %d with contact\n", isas, compared, hits);
    assert_true(hits > 0);
    if (isas > 1) assert_int_equal(compared, (int)(NVAR * 40 * 3) * (isas - 1));
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
}

// Leaf node n of h holds triangle t.
static int leaf_holds(const cd_bvh *h, uint32_t n, uint32_t t)
{
    const cd_bvh_node *nd = &h->nodes[n];
    for (uint32_t i = nd->first; nd->count && i < nd->first + nd->count; ++i)
        if (h->order[i] == t) return 1;
    return 0;
}

// The leaf of h holding triangle t.
static uint32_t leaf_of(const cd_bvh *h, uint32_t t)
{
    for (uint32_t n = 0; n < h->nnodes; ++n)
        if (leaf_holds(h, n, t)) return n;
    fail_msg("triangle %u in no leaf", t);
    return 0;
}

// The leaves under node n of h, appended to out (count *k).
static void leaves_under(const cd_bvh *h, uint32_t n, uint32_t *out, int *k)
{
    if (h->nodes[n].count) {
        out[(*k)++] = n;
        return;
    }
    leaves_under(h, h->nodes[n].first, out, k);
    leaves_under(h, h->nodes[n].first + 1, out, k);
}

// A pose touching on a few triangle pairs only: hinted at every pair of leaves near the contact
// (under the ancestors three levels up of the leaves of one touching pair), whose widening
// searches pass the contact's subtree at every level, first_hit still finds it. Returns the hints
// tried.
static int near_hints_find_a_lone_contact(const cd_bvh *ha, const cd_bvh *hb, const cd_pose *pose, double scale,
                                          const cd_bvh_result *all)
{
    uint32_t la = leaf_of(ha, all->pairs[0].a), lb = leaf_of(hb, all->pairs[0].b);
    for (int up = 0; up < 3; ++up) la = ha->parent[la], lb = hb->parent[lb];
    uint32_t near_a[64], near_b[64];
    int na = 0, nb = 0;
    leaves_under(ha, la, near_a, &na);
    leaves_under(hb, lb, near_b, &nb);
    int tried = 0;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j, ++tried) {
            cd_bvh_result r = {0};
            const cd_bvh_hint hint = {near_a[i], near_b[j]};
            cd_bvh_query_hinted(ha, hb, pose, scale, CD_BVH_FIRST_HIT, &hint, &r);
            assert_int_equal(r.count, 1);
            assert_true(contains_pair(all, r.pairs[0]));
            cd_bvh_result_free(&r);
        }
    return tried;
}

// A query of a and b at pose and scale hinted, checked against the same query from the roots
// (ref) and all_pairs' pairs (all): the same answer, and the same bits in every build; res holds
// it (the caller frees it).
static void query_hinted(const cd_bvh *ha, const cd_bvh *hb, const cd_pose *pose, double scale, cd_bvh_mode mode,
                         const cd_bvh_hint *hint, const cd_bvh_result *all, const cd_bvh_result *ref, cd_bvh_result *r)
{
    cd_bvh_query_hinted(ha, hb, pose, scale, mode, hint, r);
    assert_int_equal(r->overlap, ref->overlap);
    assert_int_equal(r->inside, ref->inside);
    assert_int_equal(r->count, ref->count);
    if (r->count) {
        assert_true(contains_pair(all, r->pairs[0]));
        assert_true(leaf_holds(ha, r->hit.a, r->pairs[0].a) && leaf_holds(hb, r->hit.b, r->pairs[0].b));
    }
    for (int isa = 1; isa < CD_BVH_ISA_COUNT; ++isa) {
        if (!cd_bvh_isa_runs((cd_bvh_isa)isa)) continue;
        cd_bvh_result x = {0}, y = {0};
        cd_bvh_query_hinted_isa(CD_BVH_ISA_BASELINE, ha, hb, pose, scale, mode, hint, &x);
        cd_bvh_query_hinted_isa((cd_bvh_isa)isa, ha, hb, pose, scale, mode, hint, &y);
        assert_int_equal(x.count, y.count);
        if (x.count) assert_memory_equal(x.pairs, y.pairs, sizeof *x.pairs * x.count);
        assert_memory_equal(&x.stats, &y.stats, sizeof x.stats);
        cd_bvh_result_free(&x), cd_bvh_result_free(&y);
    }
}

// Hinted queries (cd_bvh_query_hinted) answer as unhinted ones whatever the hint: along seeded
// trajectories of small steps (B drifts and turns past A), each first_hit and solid query is
// hinted with the leaves its previous step found touching, then with a random pair of leaves, a
// pair of internal nodes and indices out of range. The triangle pair found is one of all_pairs'
// and lies in the leaves res.hit names; every build gives the same bits. Contacts at their onset
// (a few touching triangle pairs) are found from every pair of leaves near them. And the hint
// pays: over the steps after a touching step the hinted queries test fewer volumes than the
// queries from the roots (and a query without a hint is the query from the roots).
static void hinted_queries_answer_as_unhinted(void **state)
{
    (void)state;
    cd_mesh ma = test_mesh("noisy_sphere:1500"), mb = test_mesh("torus:1200");
    cd_rng rng = cd_rng_make(91, CD_STREAM_TEST);
    const cd_bvh_mode modes[] = {CD_BVH_FIRST_HIT, CD_BVH_SOLID};
    uint64_t plain[2] = {0}, hinted[2] = {0};  // steps after one apart [0], after one touching [1]
    int steps = 0, compared = 0, lone = 0, near = 0;
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ha = build_variant(&ma, &variants[v]), *hb = build_variant(&mb, &variants[v]);
        // Contacts at their onset, where only a few triangle pairs touch: B's offset along a
        // seeded direction bisected down to the last distance that still touches.
        for (int c = 0; c < 8 && variants[v].leaf == 1; ++c) {
            cd_pose pose = random_pose(&rng, 0.0);
            const cd_vec3 dir = cd_rng_unit_vector(&rng);
            double lo = 0.0, hi = 4.0;
            cd_bvh_result all = {0};
            for (int it = 0; it < 40; ++it) {
                pose.t = cd_v3_scale(dir, 0.5 * (lo + hi));
                cd_bvh_query(ha, hb, &pose, CD_BVH_FIRST_HIT, &all);
                *(all.count ? &lo : &hi) = 0.5 * (lo + hi);
            }
            pose.t = cd_v3_scale(dir, lo);
            cd_bvh_query(ha, hb, &pose, CD_BVH_ALL_PAIRS, &all);
            assert_true(all.count > 0);
            if (all.count <= 4) near += near_hints_find_a_lone_contact(ha, hb, &pose, 1.0, &all), ++lone;
            cd_bvh_result_free(&all);
        }
        for (int traj = 0; traj < 3; ++traj) {
            cd_pose pose = random_pose(&rng, 1.2);
            const cd_vec3 drift = cd_v3_scale(cd_rng_unit_vector(&rng), 0.03);
            const cd_vec3 turn = cd_v3_scale(cd_rng_unit_vector(&rng), 0.02);
            const double scale = traj == 2 ? 1.3 : 1.0;
            cd_bvh_hint prev[2] = {{0, 0}, {0, 0}};
            int touched[2] = {0, 0};
            for (int k = 0; k < 40; ++k, ++steps) {
                pose.t = cd_v3_add(pose.t, drift);
                pose.q = cd_q_normalize(cd_q_mul(cd_q_from_rotvec(turn), pose.q));
                cd_bvh_result all = {0};
                cd_bvh_query_scaled(ha, hb, &pose, scale, CD_BVH_ALL_PAIRS, &all);
                for (size_t mo = 0; mo < 2; ++mo) {
                    cd_bvh_result ref = {0}, r = {0};
                    cd_bvh_query_scaled(ha, hb, &pose, scale, modes[mo], &ref);
                    // Hinted where the previous step touched; its result hints the next step.
                    query_hinted(ha, hb, &pose, scale, modes[mo], touched[mo] ? &prev[mo] : NULL, &all, &ref, &r);
                    if (mo == 0)
                        plain[touched[0]] += cd_bvh_stats_bv_total(&ref.stats),
                            hinted[touched[0]] += cd_bvh_stats_bv_total(&r.stats);
                    touched[mo] = r.count > 0, prev[mo] = r.hit;
                    cd_bvh_result_free(&r);
                    const cd_bvh_hint hints[] = {
                        {(uint32_t)cd_rng_below(&rng, ha->nnodes), (uint32_t)cd_rng_below(&rng, hb->nnodes)},
                        {0, 0},
                        {ha->nnodes, hb->nnodes + 7},
                    };
                    for (size_t h = 0; h < sizeof hints / sizeof hints[0]; ++h, ++compared) {
                        query_hinted(ha, hb, &pose, scale, modes[mo], &hints[h], &all, &ref, &r);
                        cd_bvh_result_free(&r);
                    }
                    cd_bvh_result_free(&ref);
                    ++compared;
                }
                cd_bvh_result_free(&all);
            }
        }
        cd_bvh_destroy(ha);
        cd_bvh_destroy(hb);
    }
    printf("# hinted queries: %d steps, %d queries compared; volume tests after a touching step %llu (from the roots "
           "%llu); %d contacts at their onset found from %d leaves near them\n",
           steps, compared, (unsigned long long)hinted[1], (unsigned long long)plain[1], lone, near);
    assert_true(lone >= 20);
    assert_true(hinted[1] < plain[1] && hinted[0] == plain[0]);
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
}

// `cdlab verify`'s hierarchy check (src/verify, the one implementation the program and this test
// share) passes every registered variant: all-pairs and first-hit answers equal brute force on its
// seeded poses of its mesh pairs, at leaf sizes 1 and 4.
static void verify_passes_every_variant(void **state)
{
    (void)state;
    cd_verify_bvh_tally t[16];
    size_t n = 0;
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name && n < 16; ++v)
        t[n++] = (cd_verify_bvh_tally){.variant = v};
    cd_verify_bvh(t, n, 16, 11, 1);
    size_t pairs = 0;
    for (size_t k = 0; k < n; ++k) {
        if (t[k].missed || t[k].extra || t[k].first_hit_wrong)
            fail_msg("%s: %llu missed, %llu extra, %llu first-hit answers wrong (pose %lld)", t[k].variant->name,
                     (unsigned long long)t[k].missed, (unsigned long long)t[k].extra,
                     (unsigned long long)t[k].first_hit_wrong, (long long)t[k].first_bad);
        assert_true(t[k].queries > 0 && t[k].pairs_compared > 0);
        assert_int_equal(t[k].first_bad, -1);
        pairs += t[k].pairs_compared;
    }
    printf("# cdlab verify's hierarchy check: %zu variants, %zu triangle pairs compared, all equal\n", n, pairs);
}

static void variant_table(void **state)
{
    (void)state;
    const char *names[] = {"sphere", "aabb", "obb", "obb_sphere", "hybrid"};
    for (int i = 0; i < 5; ++i) assert_non_null(cd_bvh_variant_find(names[i]));
    assert_null(cd_bvh_variant_find("kdop"));
    cd_param_settings set = {0};
    cd_param_settings_put(&set, "hybrid_x", "2");
    cd_param_settings_put(&set, "hybrid_y", "3");
    cd_bvh_plan plan = cd_bvh_variant_plan(cd_bvh_variant_find("hybrid"), &set);
    uint8_t expect[7] = {CD_BV_SPHERE,     CD_BV_SPHERE, CD_BV_OBB_SPHERE, CD_BV_OBB_SPHERE,
                         CD_BV_OBB_SPHERE, CD_BV_OBB,    CD_BV_OBB};
    for (int d = 0; d < 7; ++d) assert_int_equal(cd_bvh_plan_kind(&plan, d), expect[d]);
    assert_int_equal(cd_bvh_plan_kind(&plan, 200), CD_BV_OBB);
}

// A soup of random small triangles in which a third are degenerate (a point, or three collinear
// vertices): the fits' fallbacks (zero-area covariance, flat and zero-extent boxes) still enclose,
// so every variant keeps brute force's pair set.
static cd_mesh degenerate_soup(uint64_t seed, uint32_t n)
{
    cd_mesh m = {0};
    cd_mesh_alloc(&m, 3 * n, n);
    cd_rng r = cd_rng_make(seed, CD_STREAM_TEST + 3);
    for (uint32_t t = 0; t < n; ++t) {
        cd_vec3 c = cd_v3(cd_rng_range(&r, -1, 1), cd_rng_range(&r, -1, 1), cd_rng_range(&r, -1, 1));
        cd_vec3 e1 = cd_v3_scale(cd_rng_unit_vector(&r), 0.2), e2 = cd_v3_scale(cd_rng_unit_vector(&r), 0.2);
        uint32_t kind = t % 3;
        if (kind == 1) e2 = cd_v3_scale(e1, 0.5);  // collinear
        if (kind == 2) e1 = e2 = cd_v3(0, 0, 0);   // a point
        m.verts[3 * t] = c, m.verts[3 * t + 1] = cd_v3_add(c, e1), m.verts[3 * t + 2] = cd_v3_add(c, e2);
        m.tris[t][0] = 3 * t, m.tris[t][1] = 3 * t + 1, m.tris[t][2] = 3 * t + 2;
    }
    return m;
}

static void degenerate_triangles_equal_brute_force(void **state)
{
    (void)state;
    cd_mesh ma = degenerate_soup(1, 400), mb = degenerate_soup(2, 300);
    cd_rng rng = cd_rng_make(11, CD_STREAM_TEST + 4);
    cd_bvh_result ref = {0}, all = {0};
    int hits = 0;
    for (size_t v = 0; v < NVAR; ++v) {
        cd_bvh *ha = build_variant(&ma, &variants[v]), *hb = build_variant(&mb, &variants[v]);
        uint32_t f, c;
        check_enclosure(ha, 0, &f, &c);
        for (int k = 0; k < 40; ++k) {
            cd_pose pose = random_pose(&rng, 1.0);
            cd_bvh_brute_force(&ma, &mb, &pose, &ref);
            cd_bvh_query(ha, hb, &pose, CD_BVH_ALL_PAIRS, &all);
            hits += ref.count > 0;
            if (!same_pairs(&all, &ref))
                fail_msg("variant %zu pose %d: %zu pairs, brute force %zu", v, k, all.count, ref.count);
        }
        cd_bvh_destroy(ha);
        cd_bvh_destroy(hb);
    }
    assert_true(hits > 0);
    cd_bvh_result_free(&ref);
    cd_bvh_result_free(&all);
    cd_mesh_free(&ma);
    cd_mesh_free(&mb);
}

static void poses_csv_round_trip_and_errors(void **state)
{
    (void)state;
    char dir[] = "/tmp/cd_test_poses_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/poses.csv", dir);
    cd_pose p[50];
    cd_poses_generate(7, 1.25, 50, p);
    for (int i = 0; i < 50; ++i) assert_true(p[i].t.x == 1.25 && p[i].t.y == 0 && p[i].t.z == 0);
    assert_int_equal(cd_poses_write_csv(path, p, 50, err, sizeof err), 0);
    cd_pose *q;
    size_t n;
    assert_int_equal(cd_poses_read_csv(path, &q, &n, err, sizeof err), 0);
    assert_int_equal(n, 50);
    assert_memory_equal(p, q, sizeof p);  // 17 significant digits: exact
    cd_free(q);
    // Bad files: the message names path:line and what was expected.
    // Then a translation past 1e30 (1e160 overflowed the query's margin, and every volume test
    // passed), and one just past it; 1e30 itself is read. Last, a number that rounds to 0.
    const char *bad[] = {"qw,qx,qy,qz,tx,ty\n1,0,0,0,0,0\n",
                         "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,zz\n",
                         "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n0,0,0,0,1,1,1\n",
                         "qw,qx,qy,qz,tx,ty,tz\n",
                         "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,1e30,-1e30,0\n1,0,0,0,1e160,0,0\n",
                         "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,-1.0000001e30\n",
                         "qw,qx,qy,qz,tx,ty,tz\n1,1e-400,0,0,0,0,0\n",
                         "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1e-300,0,0,0,0,0,0\n"};
    const char *line[] = {":1:",
                          ":2:",
                          ":3:",
                          ":1:",
                          ":3: expected a translation",
                          ":2: expected a translation",
                          ":2: expected 7 finite numbers qw,qx,qy,qz,tx,ty,tz, found '1e-400' in column qx (it rounds "
                          "to 0; for zero write 0)",
                          ":3: expected a quaternion of norm above 1e-12"};
    for (int i = 0; i < 8; ++i) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(bad[i], f);
        fclose(f);
        assert_int_equal(cd_poses_read_csv(path, &q, &n, err, sizeof err), -1);
        char want[400];
        snprintf(want, sizeof want, "%s%s", path, line[i]);
        if (!strstr(err, want)) fail_msg("case %d: '%s' lacks '%s'", i, err, want);
        assert_null(q);
    }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(variant_table),
        cmocka_unit_test(build_structure_and_enclosure),
        cmocka_unit_test(winding_number_inside_outside),
        cmocka_unit_test(every_variant_equals_brute_force),
        cmocka_unit_test(solid_mode_finds_nesting),
        cmocka_unit_test(solid_mode_inward_and_parts),
        cmocka_unit_test(refit_of_unchanged_mesh_equals_build),
        cmocka_unit_test(refit_follows_deformation),
        cmocka_unit_test(counters_are_deterministic_and_by_kind),
        cmocka_unit_test(every_isa_gives_the_same_bits),
        cmocka_unit_test(hinted_queries_answer_as_unhinted),
        cmocka_unit_test(verify_passes_every_variant),
        cmocka_unit_test(degenerate_triangles_equal_brute_force),
        cmocka_unit_test(poses_csv_round_trip_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
