// SPDX-License-Identifier: MIT
// Top-down build and refit. The split rule (median centroid along the longest axis of the
// centroids' box) ignores the node kind, so every variant of one mesh has the same topology and a
// comparison between variants measures only the volumes and their tests.
#include "bvh_internal.h"

_Static_assert(sizeof(cd_bvh_node) == 128, "a node is two cache lines");

#include <float.h>
#include <stdatomic.h>
#include <string.h>

// The split needs, per node, the median triangle by (centroid[axis], id) and the extent of the
// centroids. Three id lists, each sorted once by one axis (radix sort) and then split stably at
// every node, give both in O(1) per node — the median is the middle entry, the extents the end
// entries — where a quickselect per node plus a pass for the box were half of the build.
typedef struct builder {
    cd_bvh *bvh;
    cd_bvh_build_ctx ctx;
    uint32_t *list[3];      // list[a][first .. first + count): the node's triangles by (centroid[a], id)
    uint32_t *tmp;          // scratch for the stable splits: 2·ntris
    uint8_t *left;          // per triangle: in the left child of the node being split
    uint32_t *key, *count;  // sort keys (ntris) and radix counters (2·2¹⁶)
    void *scratch_block;    // holds all of the above and ctx's arrays (ctx_init)
} builder;

// Order-preserving map of a finite double, rounded to float, to an unsigned key (−0 as +0, so
// equal values tie and fall back to the id order that a stable sort of ids keeps). Float keys
// halve the radix passes; centroids closer than float precision (2⁻²⁴ relative) tie and split
// by id, which only moves the median among near-equal candidates.
static inline uint32_t sort_key(double x)
{
    float f = (float)x;
    uint32_t u;
    if (f == 0.0f) f = 0.0f;
    memcpy(&u, &f, sizeof u);
    return (u >> 31) ? ~u : u | (1u << 31);
}

// LSD radix sort of ids 0..n−1 by key[id], stable: ties stay in id order. Two 16-bit digits,
// both histograms from one read of the keys, and a digit that every key shares is skipped.
static void radix_sort_ids(const uint32_t *key, uint32_t n, uint32_t *out, uint32_t *tmp, uint32_t *count)
{
    enum { BITS = 16, BUCKETS = 1 << BITS, PASSES = 32 / BITS };
    memset(count, 0, sizeof(uint32_t) * PASSES * BUCKETS);
    for (uint32_t i = 0; i < n; ++i)
        for (int p = 0; p < PASSES; ++p) ++count[p * BUCKETS + ((key[i] >> (p * BITS)) & (BUCKETS - 1))];
    uint32_t *src = out, *dst = tmp;
    for (uint32_t i = 0; i < n; ++i) src[i] = i;
    for (int p = 0; p < PASSES; ++p) {
        uint32_t *c = count + (size_t)p * BUCKETS, shift = (uint32_t)(p * BITS), sum = 0;
        if (c[(key[0] >> shift) & (BUCKETS - 1)] == n) continue;  // one digit for all: order kept
        for (uint32_t k = 0; k < BUCKETS; ++k) {
            uint32_t m = c[k];
            c[k] = sum, sum += m;
        }
        for (uint32_t i = 0; i < n; ++i) dst[c[(key[src[i]] >> shift) & (BUCKETS - 1)]++] = src[i];
        uint32_t *t = src;
        src = dst, dst = t;
    }
    if (src != out) memcpy(out, src, sizeof(uint32_t) * n);
}

// Split the two lists l0 and l1 (count entries each) stably into the triangles marked left, then
// the others. Both in one loop: each list's pass is a chain through its write positions, and
// two independent chains run side by side.
static void split_lists(builder *b, uint32_t *l0, uint32_t *l1, uint32_t count)
{
    uint32_t *t0 = b->tmp, *t1 = b->tmp + count;
    uint32_t n0 = 0, r0 = 0, n1 = 0, r1 = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t id0 = l0[i], id1 = l1[i], f0 = b->left[id0], f1 = b->left[id1];
        l0[n0] = id0, t0[r0] = id0;  // n ≤ i: never overwrites an unread entry
        l1[n1] = id1, t1[r1] = id1;
        n0 += f0, r0 += 1 - f0;
        n1 += f1, r1 += 1 - f1;
    }
    memcpy(l0 + n0, t0, sizeof(uint32_t) * r0);
    memcpy(l1 + n1, t1, sizeof(uint32_t) * r1);
}

// The node array is tens of megabytes touched for the first time by the build and then read at
// random by queries: with 4 KiB pages the build spent a tenth of its time in page faults and a
// cold query missed the TLB on most node loads; 2 MiB pages cut both.
void *cd_bvh_alloc_huge(size_t bytes, void **block, int zero)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < huge) {  // small trees: 64-byte alignment, no 2 MiB of slack to zero per build
        *block = zero ? cd_alloc_zero(1, bytes + 64) : cd_alloc(bytes + 64);
        return (void *)(((uintptr_t)*block + 63) & ~(uintptr_t)63);
    }
    // A block of 4 MiB or more: cd_alloc advises all its pages to use huge pages, and the 2 MiB
    // alignment puts every one of the array's 2 MiB pages wholly inside it.
    *block = zero ? cd_alloc_zero(1, bytes + huge) : cd_alloc(bytes + huge);
    return (void *)(((uintptr_t)*block + huge - 1) & ~(uintptr_t)(huge - 1));
}

static void moment_add(cd_tri_moment *s, const cd_tri_moment *x)
{
    s->area += x->area;
    s->ac = cd_v3_add(s->ac, x->ac);
    for (int k = 0; k < 6; ++k) s->s[k] += x->s[k];
}

// A leaf's triangle moments, computed where they are summed: its vertices were just read for the
// point list, where a precomputed per-triangle array was an extra cache miss per leaf and 80
// bytes per triangle to fault in.
static void add_moment_of(const builder *b, uint32_t id, cd_tri_moment *sum)
{
    const cd_mesh *m = b->ctx.mesh;
    const uint32_t *t = m->tris[id];
    cd_tri_moment x = cd_tri_moment_of(m->verts[t[0]], m->verts[t[1]], m->verts[t[2]]);
    moment_add(sum, &x);
}

// Fit an internal node from its moments sum and its point list at pos (np points).
static void fit_internal(builder *b, uint32_t ni, uint32_t first, uint32_t count, uint32_t pos, uint32_t np,
                         const cd_tri_moment *sum)
{
    cd_bvh_node *nd = &b->bvh->nodes[ni];
    cd_mat3 ax = cd_m3_identity();
    if (nd->kind & CD_BV_OBB) ax = cd_bvh_obb_axes(&b->ctx, b->bvh->order + first, count, sum);
    cd_bvh_fit_node(&b->ctx, nd, pos, np, &ax, b->bvh->margin);
}

// The two children left, left + 1 of a node of count triangles from first (left has half; their
// point lists at pos and pos + nl): the internal ones are fitted here, together, because each fit
// is a long chain of dependent square roots and divisions (the eigen-solve): two of them run in
// the two lanes of one chain (cd_bvh_obb_axes_two). Leaves fitted themselves.
static void fit_children(builder *b, uint32_t left, uint32_t first, uint32_t count, uint32_t half, uint32_t pos,
                         uint32_t nl, uint32_t nr, const cd_tri_moment *l, const cd_tri_moment *r)
{
    cd_bvh_node *nl_ = &b->bvh->nodes[left], *nr_ = nl_ + 1;
    const uint32_t *order = b->bvh->order;
    cd_mat3 axl = cd_m3_identity(), axr = axl;
    const int obb_l = !nl_->count && (nl_->kind & CD_BV_OBB), obb_r = !nr_->count && (nr_->kind & CD_BV_OBB);
    if (obb_l && obb_r) {
        const uint32_t *ids[2] = {order + first, order + first + half}, n[2] = {half, count - half};
        const cd_tri_moment *sums[2] = {l, r};
        cd_mat3 ax[2];
        cd_bvh_obb_axes_two(&b->ctx, ids, n, sums, ax);
        axl = ax[0], axr = ax[1];
    } else {
        if (obb_l) axl = cd_bvh_obb_axes(&b->ctx, order + first, half, l);
        if (obb_r) axr = cd_bvh_obb_axes(&b->ctx, order + first + half, count - half, r);
    }
    if (!nl_->count) cd_bvh_fit_node(&b->ctx, nl_, pos, nl, &axl, b->bvh->margin);
    if (!nr_->count) cd_bvh_fit_node(&b->ctx, nr_, pos + nl, nr, &axr, b->bvh->margin);
}

// Children first (post-order): a node's covariance moments are its children's sums, O(1) per
// node instead of a pass over its triangles; leaves write their ids into order, so by the time a
// node is fitted its whole range of order is final.
// pos: where this node's point list goes in ctx.px/py/pz (after the lists of pending left siblings);
// *np: its length.
// The fields every node sets before its fit: kind and depth by the plan, zeroed padding.
static cd_bvh_node *node_init(builder *b, uint32_t ni, int depth)
{
    cd_bvh *bvh = b->bvh;
    CD_ASSERT(depth < 255);
    cd_bvh_node *nd = &bvh->nodes[ni];
    memset(nd->pad, 0, sizeof nd->pad);
    memset(nd->tri, 0, sizeof nd->tri);
    nd->kind = cd_bvh_plan_kind(&bvh->plan, depth);
    nd->depth = (uint8_t)depth;
    if (depth > bvh->depth) bvh->depth = depth;
    return nd;
}

// A one-triangle leaf at order[first] (the triangle list[0][first]), before its fit; its triangle id.
static uint32_t leaf1_init(builder *b, cd_bvh_node *nd, uint32_t first)
{
    uint32_t id = b->list[0][first];
    b->bvh->order[first] = id;
    nd->first = first;
    nd->count = 1;
    memcpy(nd->tri, b->ctx.mesh->tris[id], sizeof nd->tri);
    return id;
}

// The two one-triangle leaves left, left + 1 (order[first], order[first + 1]), fitted together
// (cd_bvh_fit_leaf1_two: their chains of square roots and divisions side by side), as two calls
// of build_rec would fit them: their point counts and moments.
static void leaf_pair(builder *b, uint32_t left, uint32_t first, int depth, uint32_t pos, uint32_t *nl, uint32_t *nr,
                      cd_tri_moment *ml, cd_tri_moment *mr)
{
    cd_bvh_node *kids[2] = {node_init(b, left, depth), node_init(b, left + 1, depth)};
    const uint32_t ids[2] = {leaf1_init(b, kids[0], first), leaf1_init(b, kids[1], first + 1)};
    uint32_t n[2];
    cd_tri_moment m[2];
    memset(m, 0, sizeof m);  // stays zero when no OBB kind needs the moments
    cd_bvh_fit_leaf1_two(&b->ctx, kids, ids, pos, n, m, b->bvh->margin);
    *nl = n[0], *nr = n[1], *ml = m[0], *mr = m[1];
}

static cd_tri_moment build_rec(builder *b, uint32_t ni, uint32_t first, uint32_t count, int depth, uint32_t pos,
                               uint32_t *np)
{
    cd_bvh *bvh = b->bvh;
    cd_bvh_node *nd = node_init(b, ni, depth);
    cd_tri_moment sum = {0};
    cd_mat3 ax = cd_m3_identity();
    if (count == 1) {
        uint32_t id = leaf1_init(b, nd, first);
        cd_bvh_fit_leaf1(&b->ctx, nd, id, pos, np, &sum, bvh->margin);
        return sum;
    }
    if (count <= bvh->leaf_size) {
        for (uint32_t i = 0; i < count; ++i) {
            uint32_t id = b->list[0][first + i];
            bvh->order[first + i] = id;
            if (b->ctx.obb) add_moment_of(b, id, &sum);
        }
        nd->first = first;
        nd->count = count;
        if (nd->kind & CD_BV_OBB) ax = cd_bvh_obb_axes(&b->ctx, bvh->order + first, count, &sum);
        *np = cd_bvh_points_gather(&b->ctx, bvh->order + first, count, pos);
    } else {
        // The leaves below read their triangles' indices and vertices, scattered over the mesh
        // (a leaf's first vertex load was its hottest instruction): fetch the indices a few levels
        // up and the vertices just above the leaves, so the misses overlap.
        const cd_mesh *me = b->ctx.mesh;
        const uint32_t *ids = b->list[0] + first;
        if (count > 8 && count <= 16)
            for (uint32_t i = 0; i < count; ++i) __builtin_prefetch(me->tris[ids[i]]);
        else if (count > 2 && count <= 4)
            for (uint32_t i = 0; i < count; ++i)
                for (int k = 0; k < 3; ++k) __builtin_prefetch(&me->verts[me->tris[ids[i]][k]]);
        const cd_vec3 *cen = b->ctx.centroids;
        uint32_t last = first + count - 1;
        cd_vec3 ext = cd_v3(cen[b->list[0][last]].x - cen[b->list[0][first]].x,
                            cen[b->list[1][last]].y - cen[b->list[1][first]].y,
                            cen[b->list[2][last]].z - cen[b->list[2][first]].z);
        int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
        uint32_t half = count / 2;
        // The half smallest by (centroid[axis], id) go left: list[axis] is already split.
        const uint32_t *sorted = b->list[axis] + first;
        if (count == 2) {  // two one-triangle leaves (so leaf_size is 1): they read only list[0]
            uint32_t l = sorted[0], r = sorted[1];
            b->list[0][first] = l, b->list[0][first + 1] = r;
        } else {
            for (uint32_t i = 0; i < half; ++i) b->left[sorted[i]] = 1;
            for (uint32_t i = half; i < count; ++i) b->left[sorted[i]] = 0;
            split_lists(b, b->list[axis == 0 ? 1 : 0] + first, b->list[axis == 2 ? 1 : 2] + first, count);
        }
        uint32_t left = bvh->nnodes;
        bvh->nnodes += 2;
        nd->first = left;
        nd->count = 0;
        uint32_t nl, nr;
        cd_tri_moment l, r;
        if (count == 2) {
            leaf_pair(b, left, first, depth + 1, pos, &nl, &nr, &l, &r);
        } else {
            l = build_rec(b, left, first, half, depth + 1, pos, &nl);
            r = build_rec(b, left + 1, first + half, count - half, depth + 1, pos + nl, &nr);
        }
        fit_children(b, left, first, count, half, pos, nl, nr, &l, &r);
        moment_add(&sum, &l);
        moment_add(&sum, &r);
        *np = cd_bvh_points_merge(&b->ctx, pos, nl + nr);
        return sum;  // fitted by its parent (fit_children), the root by cd_bvh_build
    }
    cd_bvh_fit_node(&b->ctx, nd, pos, *np, &ax, bvh->margin);
    return sum;
}

static int plan_has_obb(const cd_bvh_plan *p)
{
    for (int k = 0; k < p->count; ++k)
        if (p->kind[k] & CD_BV_OBB) return 1;
    return 0;
}

static void precompute(builder *b)
{
    const cd_mesh *m = b->bvh->mesh;
    for (uint32_t t = 0; t < m->ntris; ++t) {
        cd_vec3 p = m->verts[m->tris[t][0]], q = m->verts[m->tris[t][1]], r = m->verts[m->tris[t][2]];
        b->ctx.centroids[t] = cd_v3_scale(cd_v3_add(cd_v3_add(p, q), r), 1.0 / 3.0);
    }
    double scale = 0;
    for (uint32_t v = 0; v < m->nverts; ++v) {  // plain compares: fmax is a call per use here
        cd_vec3 a = cd_v3_abs(m->verts[v]);
        double mx = a.x > a.y ? a.x : a.y;
        mx = a.z > mx ? a.z : mx;
        scale = mx > scale ? mx : scale;
    }
    b->bvh->margin = 1e-12 * scale + DBL_MIN;
}

// Next 64-byte aligned piece of bytes from *p.
static void *carve(char **p, size_t bytes)
{
    void *r = *p;
    *p += (bytes + 63) & ~(size_t)63;
    return r;
}

// All scratch of a build (build = 1: also the sorted lists and sort buffers) or refit in one
// block, on 2 MiB pages when large: a dozen separate arrays cost about two thousand 4 KiB
// page faults per build of 10⁵ triangles, a tenth of its time.
static void ctx_init(builder *b, int build)
{
    const cd_mesh *m = b->bvh->mesh;
    size_t n = m->ntris, nv = m->nverts ? m->nverts : 1, bytes = 0;
    const size_t sizes[] = {sizeof(cd_vec3) * n, sizeof(uint32_t) * nv, 3 * sizeof(double) * 3 * n,
                            sizeof(uint32_t) * 3 * n, build ? sizeof(uint32_t) * (6 * n + 2 * 65536) + n : 0};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) bytes += sizes[k];
    char *p = cd_bvh_alloc_huge(bytes + 16 * 64, &b->scratch_block, 0);  // each carve rounds up by < 64
    b->ctx.mesh = m;
    b->ctx.centroids = carve(&p, sizes[0]);
    b->ctx.stamp = carve(&p, sizes[1]);
    memset(b->ctx.stamp, 0, sizes[1]);  // no epoch yet; the rest needs no zeroing
    b->ctx.epoch = 0;
    b->ctx.px = carve(&p, sizes[2]);
    b->ctx.py = b->ctx.px + 3 * n;
    b->ctx.pz = b->ctx.py + 3 * n;
    b->ctx.pid = carve(&p, sizes[3]);
    if (build) {
        for (int a = 0; a < 3; ++a) b->list[a] = carve(&p, sizeof(uint32_t) * n);
        b->key = carve(&p, sizeof(uint32_t) * n);
        b->count = carve(&p, sizeof(uint32_t) * 2 * 65536);
        b->tmp = carve(&p, sizeof(uint32_t) * 2 * n);
        b->left = carve(&p, n);
    }
    b->ctx.obb = plan_has_obb(&b->bvh->plan);
    precompute(b);
}

cd_bvh *cd_bvh_build(const cd_mesh *mesh, const cd_bvh_plan *plan, uint32_t leaf_size)
{
    CD_ASSERT(mesh->ntris > 0 && leaf_size >= 1 && plan->count >= 1 && plan->count <= CD_BVH_PLAN_MAX);
    cd_bvh *bvh = cd_alloc_zero(1, sizeof *bvh);
    bvh->mesh = mesh;
    bvh->plan = *plan;
    bvh->leaf_size = leaf_size;
    // Not zeroed (calloc's memset of reused memory was a cost): the build writes every byte of
    // every node it makes, padding included, so nodes stay deterministic (they compare bytewise).
    bvh->nodes = cd_bvh_alloc_huge(2 * (size_t)mesh->ntris * sizeof(cd_bvh_node), &bvh->nodes_block, 0);
    bvh->order = cd_alloc(sizeof(uint32_t) * mesh->ntris);  // every entry written by its leaf
    builder b = {0};
    b.bvh = bvh;
    ctx_init(&b, 1);
    uint32_t n = mesh->ntris;
    for (int a = 0; a < 3; ++a) {
        for (uint32_t t = 0; t < n; ++t) b.key[t] = sort_key(cd_v3_get(b.ctx.centroids[t], a));
        radix_sort_ids(b.key, n, b.list[a], b.tmp, b.count);
    }
    bvh->nnodes = 1;
    uint32_t np;
    cd_tri_moment sum = build_rec(&b, 0, 0, n, 0, 0, &np);
    if (!bvh->nodes[0].count) fit_internal(&b, 0, 0, n, 0, np, &sum);
    cd_free(b.scratch_block);
    bvh->parent = cd_alloc(sizeof *bvh->parent * bvh->nnodes);
    bvh->parent[0] = 0;
    for (uint32_t i = 0; i < bvh->nnodes; ++i)
        if (!bvh->nodes[i].count) bvh->parent[bvh->nodes[i].first] = bvh->parent[bvh->nodes[i].first + 1] = i;
    return bvh;
}

// Children first, as in the build: a node's range and moments come from its children.
static cd_tri_moment refit_rec(builder *b, uint32_t ni, uint32_t *first, uint32_t *count, uint32_t pos, uint32_t *np)
{
    cd_bvh *bvh = b->bvh;
    cd_bvh_node *nd = &bvh->nodes[ni];
    cd_tri_moment sum = {0};
    cd_mat3 ax = cd_m3_identity();
    if (nd->count == 1) {
        *first = nd->first, *count = 1;
        cd_bvh_fit_leaf1(&b->ctx, nd, bvh->order[nd->first], pos, np, &sum, bvh->margin);
        return sum;
    }
    if (nd->count) {
        *first = nd->first, *count = nd->count;
        for (uint32_t i = 0; i < nd->count && b->ctx.obb; ++i) add_moment_of(b, bvh->order[nd->first + i], &sum);
        *np = cd_bvh_points_gather(&b->ctx, bvh->order + nd->first, nd->count, pos);
    } else {
        uint32_t f0, c0, f1, c1, n0, n1;
        cd_tri_moment l = refit_rec(b, nd->first, &f0, &c0, pos, &n0);
        cd_tri_moment r = refit_rec(b, nd->first + 1, &f1, &c1, pos + n0, &n1);
        CD_ASSERT(f1 == f0 + c0);
        *first = f0, *count = c0 + c1;
        moment_add(&sum, &l);
        moment_add(&sum, &r);
        *np = cd_bvh_points_merge(&b->ctx, pos, n0 + n1);
    }
    // Fitting from the triangles (not from the children's volumes) keeps the volumes as tight as
    // a fresh build's; the topology, and hence the comparison between variants, stays fixed.
    if (nd->kind & CD_BV_OBB) ax = cd_bvh_obb_axes(&b->ctx, bvh->order + *first, *count, &sum);
    cd_bvh_fit_node(&b->ctx, nd, pos, *np, &ax, bvh->margin);
    return sum;
}

uint32_t cd_bvh_refit(cd_bvh *bvh)
{
    builder b = {0};
    b.bvh = bvh;
    ctx_init(&b, 0);
    uint32_t f, c, np;
    refit_rec(&b, 0, &f, &c, 0, &np);
    cd_free(b.scratch_block);
    return bvh->nnodes;
}

// cd_bvh.solid: whether the mesh is closed, and if so a vertex of each connected part.
struct cd_bvh_solid {
    int closed;
    uint32_t count;
    uint32_t vertex[];
};

// bvh's solid record, found on the first call. The tree is logically const: the record is a
// property of its (unchanging) mesh topology. Threads that race each build one; the first
// published is kept and the others freed, so every caller sees one record.
static const struct cd_bvh_solid *bvh_solid(const cd_bvh *bvh)
{
    cd_bvh *h = (cd_bvh *)bvh;
    struct cd_bvh_solid *s = atomic_load_explicit(&h->solid, memory_order_acquire), *none = NULL;
    if (s) return s;
    int closed = cd_mesh_is_closed(bvh->mesh);
    uint32_t *parts = closed ? cd_alloc(sizeof *parts * bvh->mesh->ntris) : NULL;
    uint32_t n = closed ? cd_mesh_part_vertices(bvh->mesh, parts) : 0;
    s = cd_alloc(sizeof *s + sizeof *s->vertex * n);
    s->closed = closed, s->count = n;
    if (n) memcpy(s->vertex, parts, sizeof *parts * n);
    cd_free(parts);
    if (atomic_compare_exchange_strong_explicit(&h->solid, &none, s, memory_order_acq_rel, memory_order_acquire))
        return s;
    cd_free(s);
    return none;
}

int cd_bvh_is_closed(const cd_bvh *bvh) { return bvh_solid(bvh)->closed; }

const uint32_t *cd_bvh_solid_vertices(const cd_bvh *bvh, uint32_t *n)
{
    const struct cd_bvh_solid *s = bvh_solid(bvh);
    *n = s->count;
    return s->vertex;
}

void cd_bvh_destroy(cd_bvh *bvh)
{
    if (!bvh) return;
    cd_free(bvh->nodes_block);
    cd_free(bvh->order);
    cd_free(bvh->parent);
    cd_free(atomic_load_explicit(&bvh->solid, memory_order_relaxed));
    cd_free(bvh);
}

size_t cd_bvh_memory(const cd_bvh *bvh)
{
    return sizeof *bvh + (sizeof(cd_bvh_node) + sizeof *bvh->parent) * (size_t)bvh->nnodes +
           sizeof(uint32_t) * bvh->mesh->ntris;
}
