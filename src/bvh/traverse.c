// SPDX-License-Identifier: MIT
// The one pair traversal for every variant: a stack of node pairs, descending the larger node;
// B's volumes are moved into A's frame (R·c + t, R·axes) once per query and node, through a
// per-query cache, and B's vertices only at leaves. The node kinds decide which volume tests run,
// cheapest first.
//
// Compiled three times (src/bvh/meson.build): for the baseline ISA; with AVX2, whose all_pairs
// queries test their batches of node pairs four to a 256-bit register; and with AVX-512 for CPUs
// that have it, whose 32 vector registers hold the paired box test without spills (10.8 instead
// of 12.8 ns per volume test on Zen 5) and whose all_pairs batches go eight to a register.
// -ffp-contract=off keeps fused multiply-adds out of all three, so they compute the same bits;
// query.c picks one per process (AVX-512, else AVX2, else baseline). CD_BVH_ISA names the build
// (baseline, avx2, avx512).
#include "bvh_internal.h"
#include "cd_narrow.h"
#define CD_SAT_W 2
#include "cd_sat_lanes.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifndef CD_BVH_ISA
#error "define CD_BVH_ISA (baseline or avx512): see src/bvh/meson.build"
#endif
#define CD_BVH_CAT2(a, b) a##_##b
#define CD_BVH_CAT(a, b) CD_BVH_CAT2(a, b)
#define CD_BVH_ISA_NAME(f) CD_BVH_CAT(f, CD_BVH_ISA)

// A node of B moved into A's frame and enlarged by the margin m (its sphere is box.c with radius
// r + m of the node): 128 bytes, two cache lines. Entries are appended in the order the query
// first meets the nodes, so a cold query writes a few hundred kilobytes sequentially instead of
// taking a read-for-ownership miss on two random lines of a node-indexed array per node.
typedef struct cd_bvh_moved {
    cd_obb box;
    double r;  ///< the node's sphere radius, scaled and enlarged: s·r + m
} cd_bvh_moved;
_Static_assert(sizeof(cd_bvh_moved) == 128, "a moved node is two cache lines");

// Where B's node sits in the moved array, valid when stamp is the query's epoch: 8 bytes per node,
// so siblings (adjacent ids) share one line and the whole map is a sixteenth of the entries.
typedef struct cd_bvh_slot {
    uint32_t stamp, idx;
} cd_bvh_slot;

// A vertex of B moved into A's frame, valid when stamp is the query's epoch.
typedef struct cd_bvh_moved_vert {
    cd_vec3 v;
    uint32_t stamp, pad;
} cd_bvh_moved_vert;

static inline void move_node(const cd_bvh_node *nb, const cd_mat3 *R, cd_vec3 t, double s, double m, cd_bvh_moved *out)
{
    out->box.c = cd_pose_apply_scaled(R, t, s, nb->c);
    out->r = s * nb->r + m;
    if (nb->kind & (CD_BV_OBB | CD_BV_AABB)) {
        cd_vec3 a0 = cd_m3_mul_v(*R, nb->ax0), a1 = cd_m3_mul_v(*R, nb->ax1);
        out->box.axes = (cd_mat3){{a0, a1, cd_m3_mul_v(*R, cd_v3_cross(nb->ax0, nb->ax1))}};
        out->box.half = cd_v3_add(cd_v3_scale(nb->half, s), cd_v3(m, m, m));
    }
}

// cd_obb_obb_overlap on (cd_bvh_node_box(na), b) with every quantity computed by the same
// expression, so the answer is bit-identical; inlined, and lazy: a's third axis and the rows of
// R = aᵀ·b are formed only when the face tests before them did not separate (most rejected pairs
// fall at the first one or two), which made the test a third cheaper.
static inline int obb_obb_node(const cd_bvh_node *na, const cd_obb *b)
{
    const cd_vec3 *bc = b->axes.col;
    const double ea[3] = {na->half.x, na->half.y, na->half.z}, eb[3] = {b->half.x, b->half.y, b->half.z};
    const cd_vec3 d = cd_v3_sub(b->c, na->c);
    cd_vec3 ax[3] = {na->ax0, na->ax1, cd_v3(0, 0, 0)};
    double R[3][3], AR[3][3], t[3];
    for (int i = 0; i < 3; ++i) {
        if (i == 2) ax[2] = cd_v3_cross(na->ax0, na->ax1);
        for (int j = 0; j < 3; ++j) {
            R[i][j] = cd_v3_dot(ax[i], bc[j]);
            AR[i][j] = fabs(R[i][j]) + CD_SAT_EPSILON;
        }
        t[i] = cd_v3_dot(d, ax[i]);
        double rb = eb[0] * AR[i][0] + eb[1] * AR[i][1] + eb[2] * AR[i][2];
        if (fabs(t[i]) > ea[i] + rb) return 0;
    }
    for (int j = 0; j < 3; ++j) {
        double ra = ea[0] * AR[0][j] + ea[1] * AR[1][j] + ea[2] * AR[2][j];
        double tj = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        if (fabs(tj) > ra + eb[j]) return 0;
    }
    for (int i = 0; i < 3; ++i) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = ea[i1] * AR[i2][j] + ea[i2] * AR[i1][j];
            double rb = eb[j1] * AR[i][j2] + eb[j2] * AR[i][j1];
            double tl = t[i2] * R[i1][j] - t[i1] * R[i2][j];
            if (fabs(tl) > ra + rb) return 0;
        }
    }
    return 1;
}

// The AVX-512 build tests its pairs with the 256-bit form of the lane test (cd_sat_wide.h: the
// same bits in about three quarters of the arithmetic instructions).
#ifdef CD_BVH_TRAVERSE_BASELINE
#define CD_BVH_SAT2 cd_sat2
#else
#include "cd_sat_wide.h"
#define CD_BVH_SAT2 cd_sat2_wide
#endif

// The third axis of the A boxes in lanes a, as cd_v3_cross forms it from the first two.
#define CD_BVH_THIRD_AXIS(a)                                                   \
    ((a).ax[2][0] = (a).ax[0][1] * (a).ax[1][2] - (a).ax[0][2] * (a).ax[1][1], \
     (a).ax[2][1] = (a).ax[0][2] * (a).ax[1][0] - (a).ax[0][0] * (a).ax[1][2], \
     (a).ax[2][2] = (a).ax[0][0] * (a).ax[1][1] - (a).ax[0][1] * (a).ax[1][0])

// Lanes a (A's nodes) and b (B's moved boxes) field by field, through the caller's CD_LA(field)
// and CD_LB(field), which build one lane vector of the field.
#define CD_BVH_GATHER_LANES(a, b)                                                              \
    do {                                                                                       \
        (a).e[0] = CD_LA(half.x), (a).e[1] = CD_LA(half.y), (a).e[2] = CD_LA(half.z);          \
        (b).e[0] = CD_LB(half.x), (b).e[1] = CD_LB(half.y), (b).e[2] = CD_LB(half.z);          \
        (a).c[0] = CD_LA(c.x), (a).c[1] = CD_LA(c.y), (a).c[2] = CD_LA(c.z);                   \
        (b).c[0] = CD_LB(c.x), (b).c[1] = CD_LB(c.y), (b).c[2] = CD_LB(c.z);                   \
        (a).ax[0][0] = CD_LA(ax0.x), (a).ax[0][1] = CD_LA(ax0.y), (a).ax[0][2] = CD_LA(ax0.z); \
        (a).ax[1][0] = CD_LA(ax1.x), (a).ax[1][1] = CD_LA(ax1.y), (a).ax[1][2] = CD_LA(ax1.z); \
        CD_BVH_THIRD_AXIS(a);                                                                  \
        for (int j_ = 0; j_ < 3; ++j_)                                                         \
            (b).ax[j_][0] = CD_LB(axes.col[j_].x), (b).ax[j_][1] = CD_LB(axes.col[j_].y),      \
            (b).ax[j_][2] = CD_LB(axes.col[j_].z);                                             \
    } while (0)

// Two OBB–OBB tests at once, pair k in lane k (A nodes a0, a1; moved B boxes b0, b1), by the
// shared lane test (cd_sat_lanes.h, or its 256-bit form): each lane evaluates obb_obb_node's expressions in its order,
// so each answer has the same bits as that test (the cull stays conservative for the same
// reason); returns bit k set when pair k overlaps.
static inline unsigned obb_obb_two(const cd_bvh_node *a0, const cd_bvh_node *a1, const cd_obb *b0, const cd_obb *b1)
{
    cd_obb_lanes2 a, b;
#define CD_LA(f) ((cd_lanes2){a0->f, a1->f})
#define CD_LB(f) ((cd_lanes2){b0->f, b1->f})
    CD_BVH_GATHER_LANES(a, b);
#undef CD_LA
#undef CD_LB
    return CD_BVH_SAT2(&a, &b);
}

#if defined(__AVX512F__)
#define CD_SAT_W 8
#include "cd_sat_lanes.h"

// Rows r[0..8) of eight doubles each, transposed: f[j] lane l = r[l][j]. 24 shuffles (8 unpacks
// within 128-bit lanes, then two rounds of 8 lane shuffles).
static inline void transpose8_pd(const __m512d r[8], __m512d f[8])
{
    __m512d t[8], u[8];
    for (int k = 0; k < 8; k += 2)
        t[k] = _mm512_unpacklo_pd(r[k], r[k + 1]), t[k + 1] = _mm512_unpackhi_pd(r[k], r[k + 1]);
    for (int k = 0; k < 8; k += 4) {  // u[k + j]: rows k..k + 3 of fields (0, 4), (2, 6), (1, 5), (3, 7)
        u[k] = _mm512_shuffle_f64x2(t[k], t[k + 2], 0x88), u[k + 1] = _mm512_shuffle_f64x2(t[k], t[k + 2], 0xDD);
        u[k + 2] = _mm512_shuffle_f64x2(t[k + 1], t[k + 3], 0x88),
              u[k + 3] = _mm512_shuffle_f64x2(t[k + 1], t[k + 3], 0xDD);
    }
    static const int field[4][2] = {{0, 4}, {2, 6}, {1, 5}, {3, 7}};
    for (int j = 0; j < 4; ++j)
        f[field[j][0]] = _mm512_shuffle_f64x2(u[j], u[j + 4], 0x88),
        f[field[j][1]] = _mm512_shuffle_f64x2(u[j], u[j + 4], 0xDD);
}

// The 128 bytes of eight records (nodes or moved nodes) from p[k], fields 0-7 in f and 8-15 in g.
static inline void records8(const double *const p[8], __m512d f[8], __m512d g[8])
{
    __m512d r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_pd(p[k]);
    transpose8_pd(r, f);
    for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_pd(p[k] + 8);
    transpose8_pd(r, g);
}

// Eight OBB–OBB tests at once, pair k in lane k (A node na[k], moved B node mb[k]), by the shared
// lane test in 512-bit registers: the same expressions as obb_obb_two's lanes, so the same bits.
// Each record is 128 bytes of doubles, read whole and transposed: a node is c, r, ax0, ax1, half
// (13 doubles, then its integers), a moved node c, three axes, half, r.
static inline unsigned obb_obb_eight(const cd_bvh_node *const na[8], const cd_bvh_moved *const mb[8])
{
    _Static_assert(offsetof(cd_bvh_node, half) == 10 * sizeof(double) && sizeof(cd_bvh_node) >= 128,
                   "a node starts with 13 doubles, 128 bytes in all");
    _Static_assert(offsetof(cd_bvh_moved, r) == 15 * sizeof(double), "a moved node is 16 doubles");
    __m512d f[8], g[8];
    const double *p[8];
    cd_obb_lanes8 a, b;
    for (int k = 0; k < 8; ++k) p[k] = &na[k]->c.x;
    records8(p, f, g);
    for (int k = 0; k < 3; ++k)
        a.c[k] = (cd_lanes8)f[k], a.ax[0][k] = (cd_lanes8)f[4 + k], a.e[k] = (cd_lanes8)g[2 + k];
    a.ax[1][0] = (cd_lanes8)f[7], a.ax[1][1] = (cd_lanes8)g[0], a.ax[1][2] = (cd_lanes8)g[1];
    CD_BVH_THIRD_AXIS(a);
    for (int k = 0; k < 8; ++k) p[k] = &mb[k]->box.c.x;
    records8(p, f, g);
    for (int k = 0; k < 3; ++k)
        b.c[k] = (cd_lanes8)f[k], b.ax[0][k] = (cd_lanes8)f[3 + k], b.ax[2][k] = (cd_lanes8)g[1 + k],
        b.e[k] = (cd_lanes8)g[4 + k];
    b.ax[1][0] = (cd_lanes8)f[6], b.ax[1][1] = (cd_lanes8)f[7], b.ax[1][2] = (cd_lanes8)g[0];
    return cd_sat8(&a, &b);
}
#elif defined(__AVX2__)
#define CD_SAT_W 4
#include "cd_sat_lanes.h"

// Four OBB–OBB tests at once, pair k in lane k, in 256-bit registers: obb_obb_two's lanes, so the
// same bits. The fields are gathered one by one (a transpose of four 128-byte records takes as
// many shuffles).
static inline unsigned obb_obb_four(const cd_bvh_node *const na[4], const cd_bvh_moved *const mb[4])
{
    cd_obb_lanes4 a, b;
#define CD_LA(f) ((cd_lanes4){na[0]->f, na[1]->f, na[2]->f, na[3]->f})
#define CD_LB(f) ((cd_lanes4){mb[0]->box.f, mb[1]->box.f, mb[2]->box.f, mb[3]->box.f})
    CD_BVH_GATHER_LANES(a, b);
#undef CD_LA
#undef CD_LB
    return cd_sat4(&a, &b);
}
#endif

// m (inside mb) covers the rounding of moving B's volumes and of the tests, so the cull never
// rejects a pair that the exact triangle test on the moved vertices would accept. Cheapest test
// first: sphere–sphere when both carry spheres, then box–box, or sphere–box across kinds.
static inline int overlap_moved(const cd_bvh_node *na, const cd_bvh_node *nb, const cd_bvh_moved *mb, double m,
                                cd_bvh_stats *s)
{
    uint8_t ka = na->kind, kb = nb->kind;
    if (ka & kb & CD_BV_SPHERE) {
        ++s->bv_tests[CD_BVT_SPHERE_SPHERE];
        cd_sphere sa = cd_bvh_node_sphere(na), sb = {mb->box.c, mb->r};
        if (!cd_sphere_sphere_overlap(&sa, &sb)) return 0;
    }
    const uint8_t boxes = CD_BV_OBB | CD_BV_AABB;
    if ((ka & boxes) && (kb & boxes)) {
        if (ka == CD_BV_AABB && kb == CD_BV_AABB) {
            // B's box, rotated, is re-enclosed by an A-frame AABB. Its half-extents already carry
            // the margin m, which dwarfs the rounding of this radius sum, so no outward rounding
            // (nextafter made this test 4x dearer) is needed.
            ++s->bv_tests[CD_BVT_AABB_AABB];
            cd_aabb bb;
            double rb[3];
            for (int i = 0; i < 3; ++i) rb[i] = cd_obb_world_radius(&mb->box, i);
            bb.lo = cd_v3(mb->box.c.x - rb[0], mb->box.c.y - rb[1], mb->box.c.z - rb[2]);
            bb.hi = cd_v3(mb->box.c.x + rb[0], mb->box.c.y + rb[1], mb->box.c.z + rb[2]);
            cd_vec3 h = cd_v3_add(na->half, cd_v3(m, m, m));
            cd_aabb ab = {cd_v3_sub(na->c, h), cd_v3_add(na->c, h)};
            return cd_aabb_aabb_overlap(&ab, &bb);
        }
        ++s->bv_tests[CD_BVT_OBB_OBB];
        return obb_obb_node(na, &mb->box);
    }
    if (ka & boxes) {  // b carries only a sphere
        ++s->bv_tests[CD_BVT_SPHERE_OBB];
        cd_obb ba = cd_bvh_node_box(na);
        cd_sphere sb = {mb->box.c, mb->r};
        return cd_sphere_obb_overlap(&sb, &ba);
    }
    if (kb & boxes) {  // a carries only a sphere
        ++s->bv_tests[CD_BVT_SPHERE_OBB];
        cd_sphere sa = cd_bvh_node_sphere(na);
        return cd_sphere_obb_overlap(&sa, &mb->box);
    }
    return 1;  // both sphere-only: decided above
}

static void push_pair(cd_bvh_result *res, uint32_t a, uint32_t b)
{
    cd_grow((void **)&res->pairs, sizeof *res->pairs, &res->capacity, res->count + 1);
    res->pairs[res->count++] = (cd_tri_pair){a, b};
}

static inline cd_triangle tri_of(const cd_mesh *m, uint32_t t)
{
    return (cd_triangle){{m->verts[m->tris[t][0]], m->verts[m->tris[t][1]], m->verts[m->tris[t][2]]}};
}

static inline cd_triangle moved_tri(const cd_mesh *m, uint32_t t, const cd_mat3 *R, cd_vec3 tr, double s)
{
    return (cd_triangle){{cd_pose_apply_scaled(R, tr, s, m->verts[m->tris[t][0]]),
                          cd_pose_apply_scaled(R, tr, s, m->verts[m->tris[t][1]]),
                          cd_pose_apply_scaled(R, tr, s, m->verts[m->tris[t][2]])}};
}

// Start a query against b: size the caches for b and invalidate them by a new epoch.
static void cache_begin(cd_bvh_result *res, const cd_bvh *b)
{
    if (res->cached_nodes < b->nnodes) {
        // Slots and entries share one block of 2 MiB pages: a cold query's random slot reads
        // would otherwise each take a TLB miss on 4 KiB pages.
        cd_free(res->moved_block);
        const size_t slot_bytes = (sizeof *res->slots * (size_t)b->nnodes + 63) & ~(size_t)63;
        char *p = cd_bvh_alloc_huge(slot_bytes + sizeof *res->moved * (size_t)b->nnodes, &res->moved_block, 0);
        res->slots = (cd_bvh_slot *)p;
        memset(res->slots, 0, slot_bytes);  // every stamp 0, never a valid epoch
        res->moved = (cd_bvh_moved *)(p + slot_bytes);
        res->cached_nodes = b->nnodes;
    }
    if (res->cached_verts < b->mesh->nverts) {
        cd_free(res->moved_verts);
        res->moved_verts = cd_alloc_zero(b->mesh->nverts, sizeof *res->moved_verts);
        res->cached_verts = b->mesh->nverts;
    }
    res->nmoved = 0;
    if (++res->epoch == 0) {  // wrapped: clear the stamps once every 2³² queries
        for (uint32_t i = 0; i < res->cached_nodes; ++i) res->slots[i].stamp = 0;
        for (uint32_t i = 0; i < res->cached_verts; ++i) res->moved_verts[i].stamp = 0;
        res->epoch = 1;
    }
}

static inline const cd_bvh_moved *moved_node(cd_bvh_result *res, const cd_bvh *b, uint32_t ib, const cd_mat3 *R,
                                             cd_vec3 t, double s, double m)
{
    cd_bvh_slot *sl = &res->slots[ib];
    if (sl->stamp != res->epoch) {
        sl->stamp = res->epoch;
        sl->idx = res->nmoved++;
        move_node(&b->nodes[ib], R, t, s, m, &res->moved[sl->idx]);
    }
    return &res->moved[sl->idx];
}

// B's triangle t in A's frame; each vertex is moved by cd_pose_apply_scaled once per query, giving
// the same bits as brute force's per-triangle moves.
static inline cd_triangle moved_tri_cached(cd_bvh_result *res, const cd_mesh *mb, const uint32_t vi[3],
                                           const cd_mat3 *R, cd_vec3 tr, double s)
{
    cd_triangle out;
    for (int k = 0; k < 3; ++k) {
        uint32_t v = vi[k];
        cd_bvh_moved_vert *mv = &res->moved_verts[v];
        if (mv->stamp != res->epoch) {
            mv->v = cd_pose_apply_scaled(R, tr, s, mb->verts[v]);
            mv->stamp = res->epoch;
        }
        out.v[k] = mv->v;
    }
    return out;
}

static void reset(cd_bvh_result *res)
{
    res->overlap = 0;
    res->inside = 0;
    res->count = 0;
    memset(&res->stats, 0, sizeof res->stats);
}

// Optional record of what one traversal visited, for replaying in cost measurements.
typedef struct cd_bvh_trace {
    uint32_t (*node_pairs)[2], (*tri_pairs)[2];
    size_t nodes, tris, max;
} cd_bvh_trace;

// Point p lies inside h's closed mesh by the nonzero rule: its winding number is ±1 (or more where
// parts nest), so a mesh wound inward holds its points as one wound outward does.
static int contains_point(const cd_bvh *h, cd_vec3 p, cd_bvh_stats *s)
{
    const cd_bvh_node *root = &h->nodes[0];
    if (cd_v3_len2(cd_v3_sub(p, root->c)) > root->r * root->r) return 0;  // cheap outside
    ++s->point_tests;
    return fabs(cd_bvh_winding_number(h->mesh, p)) > 0.5;
}

// Both meshes closed and no surface contact. Then each connected part of either surface lies
// wholly inside the other solid or wholly outside it (the winding number is constant on a
// connected set that meets no surface of the other mesh), so one vertex of each part decides.
// And if no part of either surface lies inside the other solid, the solids are apart: their
// intersection would be a bounded set whose boundary is made of such parts, and it has none.
static void solid_check(const cd_bvh *a, const cd_bvh *b, const cd_mat3 *R, cd_vec3 t, double s, cd_bvh_result *res)
{
    if (!cd_bvh_is_closed(a) || !cd_bvh_is_closed(b)) return;
    uint32_t na, nb;
    const uint32_t *va = cd_bvh_solid_vertices(a, &na), *vb = cd_bvh_solid_vertices(b, &nb);
    for (uint32_t k = 0; k < nb; ++k)
        if (contains_point(a, cd_pose_apply_scaled(R, t, s, b->mesh->verts[vb[k]]), &res->stats)) {
            res->overlap = res->inside = 1;
            return;
        }
    for (uint32_t k = 0; k < na; ++k) {
        // Into B's frame: Rᵀ·(x − t) / s.
        cd_vec3 pa = cd_v3_scale(cd_m3_tmul_v(*R, cd_v3_sub(a->mesh->verts[va[k]], t)), 1.0 / s);
        if (contains_point(b, pa, &res->stats)) {
            res->overlap = res->inside = 1;
            return;
        }
    }
}

// The plan has a layer of pure OBB nodes.
static int plan_has_obb_only(const cd_bvh_plan *p)
{
    for (int k = 0; k < p->count; ++k)
        if (p->kind[k] == CD_BV_OBB) return 1;
    return 0;
}

// A stack entry is a pair (A node, B node); this bit in the A index marks a pair already tested
// and found overlapping.
#define CD_BVH_KNOWN 0x80000000u

// The descent rule: descend A's node (else B's, scaled by s) of a pair that is not two leaves. The
// larger node (by enclosing radius) goes down, so the two volumes tested next stay of comparable
// size; a leaf is never descended.
static inline int descend_a(const cd_bvh_node *na, const cd_bvh_node *nb, double s)
{
    return nb->count || (!na->count && na->r >= s * nb->r);
}

// The pair that comes after a passing test is known before the test: the children of the node
// the descent rule picks. Fetching them now overlaps their misses with the test.
static inline void prefetch_children(const cd_bvh *a, const cd_bvh *b, const cd_bvh_result *res, const cd_bvh_node *na,
                                     const cd_bvh_node *nb, double s)
{
    if (na->count && nb->count) {
        // Two leaves: a passing test is followed by the triangle test, which reads their vertices.
        if (na->count == 1 && nb->count == 1)
            for (int k = 0; k < 3; ++k) {
                __builtin_prefetch(&a->mesh->verts[na->tri[k]]);
                __builtin_prefetch(&b->mesh->verts[nb->tri[k]]);
                __builtin_prefetch(&res->moved_verts[nb->tri[k]]);
            }
        return;
    }
    if (descend_a(na, nb, s)) {
        const char *p = (const char *)&a->nodes[na->first];
        for (int l = 0; l < 4; ++l) __builtin_prefetch(p + 64 * l);
    } else {
        const char *p = (const char *)&b->nodes[nb->first];
        for (int l = 0; l < 4; ++l) __builtin_prefetch(p + 64 * l);
        __builtin_prefetch(&res->slots[nb->first]), __builtin_prefetch(&res->slots[nb->first + 1]);
    }
}

// Volume test of pair (ia, ib), and of (ia2, ib2) when two: bit k of the result is set when
// pair k overlaps. Two pure OBB pairs run in the two lanes of obb_obb_two.
static inline unsigned test_pairs(const cd_bvh *a, const cd_bvh *b, cd_bvh_result *res, cd_bvh_stats *st,
                                  const cd_mat3 *R, cd_vec3 t, double s, double m, cd_bvh_trace *tr, uint32_t ia,
                                  uint32_t ib, uint32_t ia2, uint32_t ib2, int two)
{
    const cd_bvh_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
    const cd_bvh_moved *mb = moved_node(res, b, ib, R, t, s, m);
    ++st->node_pairs;
    if (tr && tr->nodes < tr->max) tr->node_pairs[tr->nodes][0] = ia, tr->node_pairs[tr->nodes++][1] = ib;
    if (!two) return (unsigned)overlap_moved(na, nb, mb, m, st);
    const cd_bvh_node *na2 = &a->nodes[ia2], *nb2 = &b->nodes[ib2];
    const cd_bvh_moved *mb2 = moved_node(res, b, ib2, R, t, s, m);
    ++st->node_pairs;
    if (tr && tr->nodes < tr->max) tr->node_pairs[tr->nodes][0] = ia2, tr->node_pairs[tr->nodes++][1] = ib2;
    if (na->kind == CD_BV_OBB && na2->kind == CD_BV_OBB && nb->kind == CD_BV_OBB && nb2->kind == CD_BV_OBB) {
        st->bv_tests[CD_BVT_OBB_OBB] += 2;
        return obb_obb_two(na, na2, &mb->box, &mb2->box);
    }
    unsigned p0 = (unsigned)overlap_moved(na, nb, mb, m, st);
    return p0 | (unsigned)overlap_moved(na2, nb2, mb2, m, st) << 1;
}

// Pairs popped and tested together by the all_pairs traversal (traverse_all_pairs).
enum { CD_BVH_BATCH = 32 };  // at most 32 (a bit per pair in an unsigned), a multiple of 8

// Volume tests of the n ≤ CD_BVH_BATCH pairs (ia[k], ib[k]): bit k of the result is set when pair
// k overlaps. With pairwise set, the pairs whose nodes are both pure OBB run in lanes, eight to a
// test in the AVX-512 build (obb_obb_eight), four in the AVX2 build (obb_obb_four), two in the
// baseline build (obb_obb_two); the others one at a time. Every build gives the same bits.
static inline unsigned test_batch(const cd_bvh *a, const cd_bvh *b, cd_bvh_result *res, cd_bvh_stats *st,
                                  const cd_mat3 *R, cd_vec3 t, double s, double m, cd_bvh_trace *tr, const uint32_t *ia,
                                  const uint32_t *ib, unsigned n, int pairwise)
{
    const cd_bvh_node *na[CD_BVH_BATCH], *lane_a[CD_BVH_BATCH];
    const cd_bvh_moved *lane_b[CD_BVH_BATCH];
    unsigned lane_of[CD_BVH_BATCH], lanes = 0, bits = 0;
    st->node_pairs += n;
    for (unsigned k = 0; k < n; ++k) {
        na[k] = &a->nodes[ia[k]];
        const cd_bvh_node *nb = &b->nodes[ib[k]];
        const cd_bvh_moved *mb = moved_node(res, b, ib[k], R, t, s, m);
        if (tr && tr->nodes < tr->max) tr->node_pairs[tr->nodes][0] = ia[k], tr->node_pairs[tr->nodes++][1] = ib[k];
        if (pairwise && na[k]->kind == CD_BV_OBB && nb->kind == CD_BV_OBB)
            lane_a[lanes] = na[k], lane_b[lanes] = mb, lane_of[lanes++] = k;
        else
            bits |= (unsigned)overlap_moved(na[k], nb, mb, m, st) << k;
    }
    if (!lanes) return bits;
    st->bv_tests[CD_BVT_OBB_OBB] += lanes;
    for (unsigned l = lanes; l % 8; ++l) lane_a[l] = lane_a[lanes - 1], lane_b[l] = lane_b[lanes - 1];  // whole tests
    unsigned pass = 0;
#if defined(__AVX512F__)
    for (unsigned l = 0; l < lanes; l += 8) pass |= obb_obb_eight(lane_a + l, lane_b + l) << l;
#elif defined(__AVX2__)
    for (unsigned l = 0; l < lanes; l += 4) pass |= obb_obb_four(lane_a + l, lane_b + l) << l;
#else
    for (unsigned l = 0; l < lanes; l += 2)
        pass |= obb_obb_two(lane_a[l], lane_a[l + 1], &lane_b[l]->box, &lane_b[l + 1]->box) << l;
#endif
    for (unsigned l = 0; l < lanes; ++l) bits |= (pass >> l & 1u) << lane_of[l];
    return bits;
}

// How many descents above a hinted leaf pair the search starts (see witness_start).
#define CD_BVH_WITNESS_DESCENTS 4

// Fill the stack as the traversal from the roots would hold it on reaching the pair
// CD_BVH_WITNESS_DESCENTS descents above the leaves h, with that pair on top: following the
// descent rule down the two leaves' ancestor paths, each descent leaves the other child's pair
// below. The search then starts where the surfaces touched a frame before and widens from there,
// the nearest subtrees first; every leaf pair still lies under exactly one stacked pair, so the
// search is as exhaustive as the one from the roots. The pairs on the path above the top are
// never tested (tests only cull). Returns the stack's size, 0 when h names no leaves of a and b.
static size_t witness_start(const cd_bvh *a, const cd_bvh *b, double s, const cd_bvh_hint *h, uint32_t *stack)
{
    if (h->a >= a->nnodes || h->b >= b->nnodes || !a->nodes[h->a].count || !b->nodes[h->b].count) return 0;
    uint32_t pa[256], pb[256];  // node depths are 8 bits
    const int da = a->nodes[h->a].depth, db = b->nodes[h->b].depth;
    for (int d = da, n = (int)h->a; d >= 0; n = (int)a->parent[n], --d) pa[d] = (uint32_t)n;
    for (int d = db, n = (int)h->b; d >= 0; n = (int)b->parent[n], --d) pb[d] = (uint32_t)n;
    int i = 0, j = 0;
    size_t top = 0;
    for (int step = da + db - CD_BVH_WITNESS_DESCENTS; step > 0; --step) {
        if (descend_a(&a->nodes[pa[i]], &b->nodes[pb[j]], s)) {
            const uint32_t l = a->nodes[pa[i]].first;
            stack[top++] = pa[i + 1] == l ? l + 1 : l, stack[top++] = pb[j];
            ++i;
        } else {
            const uint32_t l = b->nodes[pb[j]].first;
            stack[top++] = pa[i], stack[top++] = pb[j + 1] == l ? l + 1 : l;
            ++j;
        }
    }
    stack[top++] = pa[i], stack[top++] = pb[j];
    return top;
}

// The triangle tests of leaf pair (ia, ib); every intersecting pair is added to res. Returns 1
// when the query stops there (a hit outside all_pairs).
static inline int leaf_pair(const cd_bvh *a, const cd_bvh *b, cd_bvh_result *res, cd_bvh_stats *st, const cd_mat3 *R,
                            cd_vec3 t, double s, cd_bvh_trace *tr, uint32_t ia, uint32_t ib, cd_bvh_mode mode)
{
    const cd_bvh_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
    const cd_mesh *ma = a->mesh, *mb = b->mesh;
    if (na->count == 1 && nb->count == 1) {  // one triangle each (RAPID's leaves): indices in the nodes
        const uint32_t *va = na->tri;
        cd_triangle A = {{ma->verts[va[0]], ma->verts[va[1]], ma->verts[va[2]]}};
        cd_triangle B = moved_tri_cached(res, mb, nb->tri, R, t, s);
        ++st->tri_tests;
        if (tr && tr->tris < tr->max)
            tr->tri_pairs[tr->tris][0] = a->order[na->first], tr->tri_pairs[tr->tris++][1] = b->order[nb->first];
        if (!cd_tri_tri_overlap(&A, &B)) return 0;
        res->overlap = 1;
        if (!res->count) res->hit = (cd_bvh_hint){ia, ib};
        push_pair(res, a->order[na->first], b->order[nb->first]);
        return mode != CD_BVH_ALL_PAIRS;
    }
    for (uint32_t i = na->first; i < na->first + na->count; ++i) {
        uint32_t ta = a->order[i];
        cd_triangle A = tri_of(ma, ta);
        for (uint32_t j = nb->first; j < nb->first + nb->count; ++j) {
            uint32_t tb = b->order[j];
            cd_triangle B = moved_tri_cached(res, mb, mb->tris[tb], R, t, s);
            ++st->tri_tests;
            if (tr && tr->tris < tr->max) tr->tri_pairs[tr->tris][0] = ta, tr->tri_pairs[tr->tris++][1] = tb;
            if (!cd_tri_tri_overlap(&A, &B)) continue;
            res->overlap = 1;
            if (!res->count) res->hit = (cd_bvh_hint){ia, ib};
            push_pair(res, ta, tb);
            if (mode != CD_BVH_ALL_PAIRS) return 1;
        }
    }
    return 0;
}

// all_pairs tests every pair under a passing pair, in whatever order, so it pops the top
// CD_BVH_BATCH pairs of the stack at once and tests them together (test_batch: eight OBB tests in
// the lanes of one); the passing ones are then handled from the bottom up, their children pushed,
// so that the top pair's children come next, as in the one-pair walk. The same pairs are tested
// (the same counters) as by that walk, and the same triangle pairs found, in another order. The
// stack holds at most CD_BVH_BATCH pairs more than it gives per round, so it grows when needed.
static inline __attribute__((always_inline)) void traverse_all_pairs(const cd_bvh *a, const cd_bvh *b, const cd_mat3 *R,
                                                                     cd_vec3 t, double s, double m, int pairwise,
                                                                     cd_bvh_result *res, cd_bvh_stats *st,
                                                                     cd_bvh_trace *tr)
{
    size_t top = 0;
    res->stack[top++] = 0, res->stack[top++] = 0;
    while (top) {
        const unsigned n = top / 2 < CD_BVH_BATCH ? (unsigned)(top / 2) : CD_BVH_BATCH;
        top -= 2 * (size_t)n;
        uint32_t ia[CD_BVH_BATCH], ib[CD_BVH_BATCH];
        for (unsigned k = 0; k < n; ++k) ia[k] = res->stack[top + 2 * k], ib[k] = res->stack[top + 2 * k + 1];
        for (unsigned k = 0; k < n; ++k) prefetch_children(a, b, res, &a->nodes[ia[k]], &b->nodes[ib[k]], s);
        unsigned pass = test_batch(a, b, res, st, R, t, s, m, tr, ia, ib, n, pairwise);
        cd_grow((void **)&res->stack, sizeof *res->stack, &res->stack_capacity, top + 4 * (size_t)n);
        uint32_t *stack = res->stack;
        for (; pass; pass &= pass - 1) {
            const unsigned k = (unsigned)__builtin_ctz(pass);
            const cd_bvh_node *na = &a->nodes[ia[k]], *nb = &b->nodes[ib[k]];
            if (na->count && nb->count) {
                leaf_pair(a, b, res, st, R, t, s, tr, ia[k], ib[k], CD_BVH_ALL_PAIRS);
            } else if (descend_a(na, nb, s)) {
                stack[top++] = na->first + 1, stack[top++] = ib[k];
                stack[top++] = na->first, stack[top++] = ib[k];
            } else {
                stack[top++] = ia[k], stack[top++] = nb->first + 1;
                stack[top++] = ia[k], stack[top++] = nb->first;
            }
        }
    }
}

// Depth first over node pairs. A popped untested pair is tested together with the next untested
// pair on the stack (usually its sibling); that one, if it passes, goes back on the stack marked
// as known, under the first pair's children (first_hit takes the closer of two overlapping pairs
// first, see below). So pairs are processed in the order of a one-pair traversal with that rule
// while the volume tests run two at a time. Inlined into its two callers so that the query's
// copy carries no trace code; counts go to a local copy of the stats, which stays in registers.
// With a hint (first_hit and solid), the stack starts as witness_start leaves it.
static inline __attribute__((always_inline)) void traverse(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose,
                                                           double s, cd_bvh_mode mode, const cd_bvh_hint *hint,
                                                           cd_bvh_result *res, cd_bvh_trace *tr)
{
    reset(res);
    const cd_mat3 R = cd_q_to_m3(cd_q_normalize(pose->q));
    const cd_vec3 t = pose->t;
    const double m = cd_bvh_pair_margin(a, b, pose, s);
    CD_ASSERT(a->nnodes <= CD_BVH_KNOWN);
    // Each descent pops one pair and pushes at most two, plus the known pair put back, so the
    // stack never holds more than depth(a) + depth(b) + 2 pairs.
    size_t need = 2 * ((size_t)a->depth + b->depth + 3);
    if (res->stack_capacity < need) {
        cd_free(res->stack);
        res->stack = cd_alloc(sizeof(uint32_t) * need);
        res->stack_capacity = need;
    }
    cache_begin(res, b);
    // Pairs are tested two at a time only where both trees have pure OBB layers: for the other
    // kinds the scalar tests gain nothing from it and the pairing costs (sphere and AABB trees
    // were slower paired).
    const int pairwise = plan_has_obb_only(&a->plan) && plan_has_obb_only(&b->plan);
    cd_bvh_stats st = {0};
    if (mode == CD_BVH_ALL_PAIRS) {
        traverse_all_pairs(a, b, &R, t, s, m, pairwise, res, &st, tr);
        goto done;
    }
    uint32_t *stack = res->stack;
    size_t top = hint ? witness_start(a, b, s, hint, stack) : 0;
    if (!top) stack[top++] = 0, stack[top++] = 0;
    while (top) {
        uint32_t ib = stack[--top], ia = stack[--top];
        const int known = (ia & CD_BVH_KNOWN) != 0;
        ia &= ~CD_BVH_KNOWN;
        const cd_bvh_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
        if (!known) {
            uint32_t ia2 = 0, ib2 = 0;
            const int two = pairwise && top && !(stack[top - 2] & CD_BVH_KNOWN);
            if (two) ib2 = stack[--top], ia2 = stack[--top];
            // The next pair's nodes are known now: fetching them while these pairs are tested
            // hides most of the cache misses of a cold query (the trees are megabytes, the pairs
            // scattered).
            if (top) {
                __builtin_prefetch(&a->nodes[stack[top - 2] & ~CD_BVH_KNOWN]);
                __builtin_prefetch(&b->nodes[stack[top - 1]]);
                __builtin_prefetch(&res->slots[stack[top - 1]]);
            }
            prefetch_children(a, b, res, na, nb, s);
            if (two) prefetch_children(a, b, res, &a->nodes[ia2], &b->nodes[ib2], s);
            unsigned pass = test_pairs(a, b, res, &st, &R, t, s, m, tr, ia, ib, ia2, ib2, two);
            // Both pairs overlap: a query that stops at its first hit goes first into the pair
            // whose centres are closer (B's moved centre to A's), where the surfaces more likely
            // cross. This cut the volume tests of touching bodies by 45 % (137 to 75 per touching
            // pair, 1 000 moving bodies of 2 000 faces); all_pairs visits every overlapping pair
            // anyway and keeps the plain order.
            if (pass == 3 && mode != CD_BVH_ALL_PAIRS) {
                const cd_bvh_node *na2 = &a->nodes[ia2];
                const cd_vec3 c0 = res->moved[res->slots[ib].idx].box.c, c1 = res->moved[res->slots[ib2].idx].box.c;
                if (cd_v3_len2(cd_v3_sub(c1, na2->c)) < cd_v3_len2(cd_v3_sub(c0, na->c))) {
                    uint32_t x = ia;
                    ia = ia2, ia2 = x, x = ib, ib = ib2, ib2 = x;
                    na = na2, nb = &b->nodes[ib];
                }
            }
            if (pass & 2) stack[top++] = ia2 | CD_BVH_KNOWN, stack[top++] = ib2;
            if (!(pass & 1)) continue;
        }
        if (na->count && nb->count) {
            if (leaf_pair(a, b, res, &st, &R, t, s, tr, ia, ib, mode)) goto done;
            continue;
        }
        if (descend_a(na, nb, s)) {
            stack[top++] = na->first + 1, stack[top++] = ib;
            stack[top++] = na->first, stack[top++] = ib;
        } else {
            stack[top++] = ia, stack[top++] = nb->first + 1;
            stack[top++] = ia, stack[top++] = nb->first;
        }
    }
done:
    res->stats = st;
    if (mode == CD_BVH_SOLID && !res->overlap) solid_check(a, b, &R, t, s, res);  // no surface contact found
}
void CD_BVH_ISA_NAME(cd_bvh_traverse)(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double s, cd_bvh_mode mode,
                                      const cd_bvh_hint *hint, cd_bvh_result *res)
{
    traverse(a, b, pose, s, mode, hint, res, NULL);
}

// Not on the hot path: in the baseline build only.
#ifdef CD_BVH_TRAVERSE_BASELINE
int cd_bvh_node_overlap(const cd_bvh_node *na, const cd_bvh_node *nb, const cd_mat3 *R, cd_vec3 t, double scale,
                        double m, cd_bvh_stats *s)
{
    cd_bvh_moved mb;
    move_node(nb, R, t, scale, m, &mb);
    return overlap_moved(na, nb, &mb, m, s);
}

void cd_bvh_brute_force(const cd_mesh *a, const cd_mesh *b, const cd_pose *pose, cd_bvh_result *res)
{
    cd_bvh_brute_force_scaled(a, b, pose, 1.0, res);
}

void cd_bvh_brute_force_scaled(const cd_mesh *a, const cd_mesh *b, const cd_pose *pose, double scale,
                               cd_bvh_result *res)
{
    reset(res);
    const cd_mat3 R = cd_q_to_m3(cd_q_normalize(pose->q));
    for (uint32_t i = 0; i < a->ntris; ++i) {
        cd_triangle A = tri_of(a, i);
        for (uint32_t j = 0; j < b->ntris; ++j) {
            cd_triangle B = moved_tri(b, j, &R, pose->t, scale);
            ++res->stats.tri_tests;
            if (cd_tri_tri_overlap(&A, &B)) res->overlap = 1, push_pair(res, i, j);
        }
    }
}
#endif

// Replays of the visited node and triangle pairs, each loop repeated until it lasts ≥ 2 ms, so the
// per-test cost includes moving B's volume or triangle into A's frame, as in the traversal.
void CD_BVH_ISA_NAME(cd_bvh_measure_costs)(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                                           cd_bvh_mode mode, double *cv_ns, double *cp_ns)
{
    cd_bvh_trace tr = {0};
    tr.max = 1u << 16;
    tr.node_pairs = cd_alloc(sizeof *tr.node_pairs * tr.max);
    tr.tri_pairs = cd_alloc(sizeof *tr.tri_pairs * tr.max);
    cd_bvh_result res = {0};
    traverse(a, b, pose, scale, CD_BVH_ALL_PAIRS, NULL, &res, &tr);
    const cd_mat3 R = cd_q_to_m3(cd_q_normalize(pose->q));
    const double m = cd_bvh_pair_margin(a, b, pose, scale);
    const int pairwise = plan_has_obb_only(&a->plan) && plan_has_obb_only(&b->plan);
    volatile unsigned sink = 0;  // unsigned: the sum of pass masks wraps, which is defined
    *cv_ns = *cp_ns = 0;
    // Seven blocks of ≥ 1 ms each and the fastest one kept: preemption and cache pollution by
    // other processes only ever add time, so the minimum is the estimate least hurt by them.
    if (tr.nodes) {
        // A node pair costs one to three volume tests depending on the kinds; count them once.
        cd_bvh_stats once = {0};
        for (size_t k = 0; k < tr.nodes; ++k)
            cd_bvh_node_overlap(&a->nodes[tr.node_pairs[k][0]], &b->nodes[tr.node_pairs[k][1]], &R, pose->t, scale, m,
                                &once);
        uint64_t per_replay = cd_bvh_stats_bv_total(&once);
        double best = INFINITY;
        for (int block = 0; block < 7 && per_replay; ++block) {
            uint64_t reps = 0, t0 = cd_now_ns(), dt;
            do {
                cache_begin(&res, b);  // each replay moves B's nodes afresh, as a query does
                // As the traversal of mode tests them: all_pairs CD_BVH_BATCH at a time through
                // test_batch, the others two at a time through test_pairs.
                for (size_t k = 0; mode == CD_BVH_ALL_PAIRS && k < tr.nodes; k += CD_BVH_BATCH) {
                    uint32_t ia[CD_BVH_BATCH], ib[CD_BVH_BATCH];
                    const unsigned n = tr.nodes - k < CD_BVH_BATCH ? (unsigned)(tr.nodes - k) : CD_BVH_BATCH;
                    for (unsigned l = 0; l < n; ++l) ia[l] = tr.node_pairs[k + l][0], ib[l] = tr.node_pairs[k + l][1];
                    sink += test_batch(a, b, &res, &res.stats, &R, pose->t, scale, m, NULL, ia, ib, n, pairwise);
                }
                for (size_t k = 0; mode != CD_BVH_ALL_PAIRS && k < tr.nodes; k += 2) {
                    int two = k + 1 < tr.nodes;
                    sink += test_pairs(a, b, &res, &res.stats, &R, pose->t, scale, m, NULL, tr.node_pairs[k][0],
                                       tr.node_pairs[k][1], two ? tr.node_pairs[k + 1][0] : 0,
                                       two ? tr.node_pairs[k + 1][1] : 0, two);
                }
                ++reps;
            } while ((dt = cd_now_ns() - t0) < 1000000);
            best = fmin(best, (double)dt / (double)(per_replay * reps));
        }
        *cv_ns = per_replay ? best : 0.0;
    }
    if (tr.tris) {
        double best = INFINITY;
        for (int block = 0; block < 7; ++block) {
            uint64_t reps = 0, t0 = cd_now_ns(), dt;
            do {
                cache_begin(&res, b);
                for (size_t k = 0; k < tr.tris; ++k) {
                    cd_triangle A = tri_of(a->mesh, tr.tri_pairs[k][0]);
                    cd_triangle B =
                        moved_tri_cached(&res, b->mesh, b->mesh->tris[tr.tri_pairs[k][1]], &R, pose->t, scale);
                    sink += (unsigned)cd_tri_tri_overlap(&A, &B);
                }
                ++reps;
            } while ((dt = cd_now_ns() - t0) < 1000000);
            best = fmin(best, (double)dt / (double)(reps * tr.tris));
        }
        *cp_ns = best;
    }
    (void)sink;
    cd_free(tr.node_pairs);
    cd_free(tr.tri_pairs);
    cd_bvh_result_free(&res);
}
