// SPDX-License-Identifier: MIT
// Top-down build and refit. The split rule (median centroid along the longest axis of the
// centroids' box) ignores the node kind, so every variant of one mesh has the same topology and a
// comparison between variants measures only the volumes and their tests.
#include "bvh_internal.h"

_Static_assert(sizeof(cd_bvh_node) == 128, "a node is two cache lines");

#include <float.h>
#include <string.h>

// A triangle during the build: its centroid travels with its id, so the split's selection and
// the centroid box stream one contiguous array instead of gathering through ids (the gather was a
// fifth of the build).
typedef struct build_item {
    double c[3];  // an array, so the split key is one indexed load
    uint32_t id;
} build_item;

typedef struct builder {
    cd_bvh *bvh;
    cd_bvh_build_ctx ctx;
    build_item *items;
} builder;

static inline int less(const build_item *x, const build_item *y, int axis)
{
    double kx = x->c[axis], ky = y->c[axis];
    return (kx < ky) | ((kx == ky) & (x->id < y->id));  // ties by id: the build is deterministic
}

static inline void swap_items(build_item *x, build_item *y)
{
    build_item t = *x;
    *x = *y;
    *y = t;
}

// Quickselect: afterwards it[k] is the k-th smallest by (centroid[axis], id), smaller ones before.
// The partition is Lomuto's without a branch (always swap, advance by the comparison): which side
// an item falls on is a coin flip, and the mispredicted branch of the plain loop made selection a
// fifth of the build. The key order is total (ties by id), so the k smallest form one set however
// they are found: the children, and hence the tree, do not depend on the partition scheme.
static void select_kth(build_item *it, uint32_t n, uint32_t k, int axis)
{
    uint32_t lo = 0, hi = n - 1;
    while (hi > lo) {
        uint32_t mid = lo + (hi - lo) / 2;
        // Median of three to the end, then partition around it.
        if (less(&it[mid], &it[lo], axis)) swap_items(&it[mid], &it[lo]);
        if (less(&it[hi], &it[lo], axis)) swap_items(&it[hi], &it[lo]);
        if (less(&it[hi], &it[mid], axis)) swap_items(&it[hi], &it[mid]);
        swap_items(&it[mid], &it[hi]);
        const build_item pivot = it[hi];
        uint32_t store = lo;
        for (uint32_t i = lo; i < hi; ++i) {
            int c = less(&it[i], &pivot, axis);
            swap_items(&it[i], &it[store]);
            store += (uint32_t)c;
        }
        swap_items(&it[hi], &it[store]);
        if (store == k) return;
        if (store < k) lo = store + 1;
        else hi = store - 1;
    }
}

static void moment_add(cd_tri_moment *s, const cd_tri_moment *x)
{
    s->area += x->area;
    s->ac = cd_v3_add(s->ac, x->ac);
    for (int k = 0; k < 6; ++k) s->s[k] += x->s[k];
}

// Children first (post-order): a node's covariance moments are its children's sums, O(1) per
// node instead of a pass over its triangles; leaves write their ids into order, so by the time a
// node is fitted its whole range of order is final.
// pos: where this node's point list goes in ctx.pts (after the lists of pending left siblings);
// *np: its length.
static cd_tri_moment build_rec(builder *b, uint32_t ni, uint32_t first, uint32_t count, int depth, uint32_t pos,
                               uint32_t *np)
{
    cd_bvh *bvh = b->bvh;
    CD_ASSERT(depth < 255);
    cd_bvh_node *nd = &bvh->nodes[ni];
    nd->kind = cd_bvh_plan_kind(&bvh->plan, depth);
    nd->depth = (uint8_t)depth;
    if (depth > bvh->depth) bvh->depth = depth;
    build_item *it = b->items + first;
    cd_tri_moment sum = {0};
    if (count <= bvh->leaf_size) {
        for (uint32_t i = 0; i < count; ++i) {
            bvh->order[first + i] = it[i].id;
            if (b->ctx.moments) moment_add(&sum, &b->ctx.moments[it[i].id]);
        }
        nd->first = first;
        nd->count = count;
        *np = cd_bvh_points_gather(&b->ctx, bvh->order + first, count, pos);
    } else {
        cd_vec3 lo = cd_v3(it[0].c[0], it[0].c[1], it[0].c[2]), hi = lo;
        for (uint32_t i = 1; i < count; ++i) {
            cd_vec3 c = cd_v3(it[i].c[0], it[i].c[1], it[i].c[2]);
            lo = cd_bvh_vmin(lo, c), hi = cd_bvh_vmax(hi, c);
        }
        cd_vec3 ext = cd_v3_sub(hi, lo);
        int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
        uint32_t half = count / 2;
        select_kth(it, count, half, axis);
        uint32_t left = bvh->nnodes;
        bvh->nnodes += 2;
        nd->first = left;
        nd->count = 0;
        uint32_t nl, nr;
        cd_tri_moment l = build_rec(b, left, first, half, depth + 1, pos, &nl);
        cd_tri_moment r = build_rec(b, left + 1, first + half, count - half, depth + 1, pos + nl, &nr);
        moment_add(&sum, &l);
        moment_add(&sum, &r);
        *np = cd_bvh_points_merge(&b->ctx, pos, nl + nr);
    }
    cd_bvh_fit_node(&b->ctx, nd, bvh->order + first, count, b->ctx.pts + pos, *np, b->ctx.moments ? &sum : NULL,
                    bvh->margin);
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
        if (b->ctx.moments) b->ctx.moments[t] = cd_tri_moment_of(p, q, r);
    }
    double scale = 0;
    for (uint32_t v = 0; v < m->nverts; ++v) scale = fmax(scale, fmax(fabs(m->verts[v].x), fmax(fabs(m->verts[v].y), fabs(m->verts[v].z))));
    b->bvh->margin = 1e-12 * scale + DBL_MIN;
}

static void ctx_init(builder *b)
{
    uint32_t n = b->bvh->mesh->ntris;
    b->ctx.mesh = b->bvh->mesh;
    b->ctx.centroids = cd_alloc(sizeof(cd_vec3) * n);
    b->ctx.stamp = cd_alloc_zero(b->bvh->mesh->nverts ? b->bvh->mesh->nverts : 1, sizeof(uint32_t));
    b->ctx.epoch = 0;
    b->ctx.pts = cd_alloc(sizeof(cd_vec3) * 3 * (size_t)n);
    b->ctx.pid = cd_alloc(sizeof(uint32_t) * 3 * (size_t)n);
    b->ctx.moments = plan_has_obb(&b->bvh->plan) ? cd_alloc(sizeof(cd_tri_moment) * n) : NULL;
    precompute(b);
}

static void ctx_free(builder *b)
{
    cd_free(b->ctx.centroids);
    cd_free(b->ctx.stamp);
    cd_free(b->ctx.pts);
    cd_free(b->ctx.pid);
    cd_free(b->ctx.moments);
}

cd_bvh *cd_bvh_build(const cd_mesh *mesh, const cd_bvh_plan *plan, uint32_t leaf_size)
{
    CD_ASSERT(mesh->ntris > 0 && leaf_size >= 1 && plan->count >= 1 && plan->count <= CD_BVH_PLAN_MAX);
    cd_bvh *bvh = cd_alloc_zero(1, sizeof *bvh);
    bvh->mesh = mesh;
    bvh->plan = *plan;
    bvh->leaf_size = leaf_size;
    // Zeroed: padding and the unused box of sphere nodes stay deterministic (nodes compare bytewise).
    bvh->nodes_block = cd_alloc_zero(2 * (size_t)mesh->ntris, sizeof(cd_bvh_node));
    bvh->nodes = (cd_bvh_node *)(((uintptr_t)bvh->nodes_block + 63) & ~(uintptr_t)63);
    bvh->order = cd_alloc(sizeof(uint32_t) * mesh->ntris);
    for (uint32_t t = 0; t < mesh->ntris; ++t) bvh->order[t] = t;
    bvh->closed = cd_mesh_is_closed(mesh);
    builder b = {bvh, {0}, NULL};
    ctx_init(&b);
    b.items = cd_alloc(sizeof *b.items * mesh->ntris);
    for (uint32_t t = 0; t < mesh->ntris; ++t) b.items[t] = (build_item){{b.ctx.centroids[t].x, b.ctx.centroids[t].y, b.ctx.centroids[t].z}, t};
    bvh->nnodes = 1;
    uint32_t np;
    build_rec(&b, 0, 0, mesh->ntris, 0, 0, &np);
    cd_free(b.items);
    ctx_free(&b);
    return bvh;
}

// Children first, as in the build: a node's range and moments come from its children.
static cd_tri_moment refit_rec(builder *b, uint32_t ni, uint32_t *first, uint32_t *count, uint32_t pos, uint32_t *np)
{
    cd_bvh *bvh = b->bvh;
    cd_bvh_node *nd = &bvh->nodes[ni];
    cd_tri_moment sum = {0};
    if (nd->count) {
        *first = nd->first, *count = nd->count;
        for (uint32_t i = 0; i < nd->count && b->ctx.moments; ++i) moment_add(&sum, &b->ctx.moments[bvh->order[nd->first + i]]);
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
    cd_bvh_fit_node(&b->ctx, nd, bvh->order + *first, *count, b->ctx.pts + pos, *np, b->ctx.moments ? &sum : NULL,
                    bvh->margin);
    return sum;
}

uint32_t cd_bvh_refit(cd_bvh *bvh)
{
    builder b = {bvh, {0}, NULL};
    ctx_init(&b);
    uint32_t f, c, np;
    refit_rec(&b, 0, &f, &c, 0, &np);
    ctx_free(&b);
    return bvh->nnodes;
}

void cd_bvh_destroy(cd_bvh *bvh)
{
    if (!bvh) return;
    cd_free(bvh->nodes_block);
    cd_free(bvh->order);
    cd_free(bvh);
}

size_t cd_bvh_memory(const cd_bvh *bvh)
{
    return sizeof *bvh + sizeof(cd_bvh_node) * (size_t)bvh->nnodes + sizeof(uint32_t) * bvh->mesh->ntris;
}
