// SPDX-License-Identifier: MIT
// Linear BVH over the float boxes: objects in Morton order of their AABB centres, LBVH_LEAF objects
// per leaf, and an implicit complete binary tree above the leaves (node k has children 2k and
// 2k + 1, leaf b is node P + b), so building is a sort plus one bottom-up pass of box unions.
// Candidates come from the tree's self-collision (see lbvh_candidates): every overlapping pair once.
//   lbvh        re-sorts by Morton code every frame (a fresh tree for the moved scene);
//   lbvh_refit  keeps the first frame's order and only refits the boxes (no sort; the tree
//              loosens as the objects drift).
// Rebuilding wins for moving scenes: the two cost the same at first, but after a few hundred
// frames of motion the refitted tree's boxes overlap so much that it is an order of magnitude
// slower (bench_frame -w 300 shows it).
// The Morton grid spans the world box; centres beyond the walls are clamped into it, which only
// costs tree quality, never a pair.
#include "float_bounds.h"

enum { LBVH_LEAF = 4, LBVH_STACK = 64 };

typedef struct lbvh_node {
    float lo[3], hi[3];
} lbvh_node;

typedef struct lbvh {
    int refit_only;   // 1: keep the first order and refit
    int ordered;      // order[] holds a valid order for n objects
    uint32_t n;       // objects
    uint32_t nleaf;   // leaves in use
    uint32_t P;       // leaf slots: a power of two ≥ nleaf
    int H;            // log2(P)
    size_t obj_cap, node_cap;
    uint32_t *order, *key, *tmp_key, *tmp_id;
    id_box *obj;     // boxes in leaf order, padded to nleaf · LBVH_LEAF with empty boxes
    lbvh_node *node;   // 2P nodes, node[1] is the root
} lbvh;

static void *lbvh_create_mode(int refit_only)
{
    lbvh *t = cd_alloc_zero(1, sizeof *t);
    t->refit_only = refit_only;
    return t;
}

static void *lbvh_create_rebuild(const cd_broad_params *p, const cd_scene *s)
{
    (void)p;
    (void)s;
    return lbvh_create_mode(0);
}

static void *lbvh_create_refit(const cd_broad_params *p, const cd_scene *s)
{
    (void)p;
    (void)s;
    return lbvh_create_mode(1);
}

static void lbvh_free_arrays(lbvh *t)
{
    cd_free(t->order);
    cd_free(t->key);
    cd_free(t->tmp_key);
    cd_free(t->tmp_id);
    cd_free(t->obj);
}

static void lbvh_destroy(void *self)
{
    lbvh *t = self;
    lbvh_free_arrays(t);
    cd_free(t->node);
    cd_free(t);
}

static void lbvh_reserve(lbvh *t, uint32_t n)
{
    t->nleaf = (n + LBVH_LEAF - 1) / LBVH_LEAF;
    uint32_t P = 1;
    int H = 0;
    while (P < t->nleaf) P *= 2, ++H;
    t->P = P;
    t->H = H;
    size_t need = (size_t)t->nleaf * LBVH_LEAF + 1;
    if (need > t->obj_cap) {
        lbvh_free_arrays(t);
        t->order = cd_alloc(need * sizeof *t->order);
        t->key = cd_alloc(need * sizeof *t->key);
        t->tmp_key = cd_alloc(need * sizeof *t->tmp_key);
        t->tmp_id = cd_alloc(need * sizeof *t->tmp_id);
        t->obj = cd_alloc(need * sizeof *t->obj);
        t->obj_cap = need;
    }
    buf_reserve((void **)&t->node, sizeof *t->node, &t->node_cap, 2 * (size_t)P);
}

// Spread the low 10 bits of v to every third bit.
static inline uint32_t spread3(uint32_t v)
{
    v &= 0x3ff;
    v = (v | v << 16) & 0x030000ff;
    v = (v | v << 8) & 0x0300f00f;
    v = (v | v << 4) & 0x030c30c3;
    v = (v | v << 2) & 0x09249249;
    return v;
}

static inline uint32_t quantise(double c, double scale)
{
    double q = c * scale;
    if (!(q >= 0.0)) return 0;
    return q >= 1023.0 ? 1023u : (uint32_t)q;
}

static void sort_morton(lbvh *t, const cd_scene *s)
{
    double scale = s->world > 0.0 ? 1024.0 / s->world : 1.0;
    for (uint32_t i = 0; i < t->n; ++i) {
        const cd_aabbf *b = &s->box[i];
        uint32_t x = quantise(0.5 * (double)b->lo[0] + 0.5 * (double)b->hi[0], scale);
        uint32_t y = quantise(0.5 * (double)b->lo[1] + 0.5 * (double)b->hi[1], scale);
        uint32_t z = quantise(0.5 * (double)b->lo[2] + 0.5 * (double)b->hi[2], scale);
        t->key[i] = spread3(x) | spread3(y) << 1 | spread3(z) << 2;
        t->order[i] = i;
    }
    cd_radix_sort_u32(t->key, t->order, t->tmp_key, t->tmp_id, t->n);
}

static inline lbvh_node node_union(const lbvh_node *a, const lbvh_node *b)
{
    lbvh_node u;
    for (int k = 0; k < 3; ++k) {
        u.lo[k] = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
        u.hi[k] = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
    }
    return u;
}

static void lbvh_update(void *self, const cd_scene *s)
{
    lbvh *t = self;
    uint32_t n = s->count;
    if (n != t->n || !t->ordered) {
        lbvh_reserve(t, n);
        t->n = n;
        t->ordered = 0;
    }
    if (!t->refit_only || !t->ordered) sort_morton(t, s);
    t->ordered = 1;
    for (uint32_t k = 0; k < n; ++k) t->obj[k] = id_box_from(&s->box[t->order[k]], t->order[k]);
    const lbvh_node empty = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (uint32_t k = n; k < t->nleaf * LBVH_LEAF; ++k)
        t->obj[k] = (id_box){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, UINT32_MAX, 0};
    lbvh_node *node = t->node;
    for (uint32_t b = 0; b < t->P; ++b) {
        lbvh_node u = empty;
        if (b < t->nleaf)
            for (int k = 0; k < LBVH_LEAF; ++k) {
                const id_box *o = &t->obj[b * LBVH_LEAF + k];
                lbvh_node ob = {{o->lo[0], o->lo[1], o->lo[2]}, {o->hi[0], o->hi[1], o->hi[2]}};
                u = node_union(&u, &ob);
            }
        node[t->P + b] = u;
    }
    for (uint32_t k = t->P - 1; k >= 1; --k) node[k] = node_union(&node[2 * k], &node[2 * k + 1]);
}

static inline int node_overlap(const lbvh_node *a, const lbvh_node *b)
{
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

// Objects of leaf a against objects of leaf b (a != b), or the pairs inside leaf a when b == a.
static inline uint64_t leaf_pairs(const lbvh *t, uint32_t a, uint32_t b, cd_pair_sink *sink)
{
    const id_box *oa = &t->obj[a * LBVH_LEAF], *ob = &t->obj[b * LBVH_LEAF];
    uint64_t tests = 0;
    for (int i = 0; i < LBVH_LEAF; ++i)
        for (int j = a == b ? i + 1 : 0; j < LBVH_LEAF; ++j) {
            ++tests;
            if (id_box_overlap(&oa[i], &ob[j])) cd_sink_push(sink, oa[i].id, ob[j].id);
        }
    return tests;
}

// Self-collision of the tree by simultaneous descent: self(k) = self(2k) + self(2k + 1) +
// pair(2k, 2k + 1), and pair(a, b) descends both (the tree is complete, so a and b are always on
// the same level). Every overlapping leaf pair is reached exactly once, and it was faster than one
// root-to-leaves query per leaf.
typedef struct lbvh_task {
    uint32_t a, b;  // a == b: self(a)
} lbvh_task;

static void lbvh_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    (void)s;
    lbvh *t = self;
    const lbvh_node *node = t->node;
    uint32_t P = t->P;
    uint64_t tests = 0;
    lbvh_task stack[4 * LBVH_STACK];
    int top = 0;
    if (t->nleaf > 0) stack[top++] = (lbvh_task){1, 1};
    while (top > 0) {
        lbvh_task k = stack[--top];
        if (k.a == k.b) {
            if (k.a >= P) {
                if (k.a - P < t->nleaf) tests += leaf_pairs(t, k.a - P, k.a - P, sink);
                continue;
            }
            CD_ASSERT(top + 3 <= 4 * LBVH_STACK);
            stack[top++] = (lbvh_task){2 * k.a, 2 * k.a + 1};
            stack[top++] = (lbvh_task){2 * k.a + 1, 2 * k.a + 1};
            stack[top++] = (lbvh_task){2 * k.a, 2 * k.a};
            continue;
        }
        ++tests;
        if (!node_overlap(&node[k.a], &node[k.b])) continue;
        if (k.a >= P) {  // both are leaves (same level)
            tests += leaf_pairs(t, k.a - P, k.b - P, sink);
            continue;
        }
        CD_ASSERT(top + 4 <= 4 * LBVH_STACK);
        stack[top++] = (lbvh_task){2 * k.a + 1, 2 * k.b + 1};
        stack[top++] = (lbvh_task){2 * k.a + 1, 2 * k.b};
        stack[top++] = (lbvh_task){2 * k.a, 2 * k.b + 1};
        stack[top++] = (lbvh_task){2 * k.a, 2 * k.b};
    }
    st->bv_tests += tests;
}

static void lbvh_shape_stats(void *self, cd_broad_stats *st)
{
    lbvh *t = self;
    st->nodes = 2 * (uint64_t)t->P - 1;
    st->bytes = sizeof *t + t->obj_cap * (4 * sizeof(uint32_t) + sizeof(id_box)) + t->node_cap * sizeof(lbvh_node);
    st->max_per_node = LBVH_LEAF;
    st->depth_reached = (uint64_t)t->H;
}

const cd_broad_method cd_broad_lbvh = {
    .name = "lbvh",
    .description = "linear BVH: Morton-sorted boxes, implicit binary tree, rebuilt every frame",
    .create = lbvh_create_rebuild,
    .update = lbvh_update,
    .candidates = lbvh_candidates,
    .boxes_tested = 1,
    .shape_stats = lbvh_shape_stats,
    .destroy = lbvh_destroy,
};

// The scene permuted its slots: the kept leaf order keeps its cubes under their new numbers (a
// refitted tree would otherwise hold other cubes in every leaf).
static void lbvh_remap(void *self, const cd_scene *s)
{
    lbvh *t = self;
    if (!t->ordered || t->n != s->count) return;
    cd_scene_renumber_slots(s, t->order, t->n, UINT32_MAX);
}

const cd_broad_method cd_broad_lbvh_refit = {
    .name = "lbvh_refit",
    .description = "linear BVH in the first frame's Morton order, boxes refitted every frame",
    .create = lbvh_create_refit,
    .update = lbvh_update,
    .candidates = lbvh_candidates,
    .remap = lbvh_remap,
    .boxes_tested = 1,
    .shape_stats = lbvh_shape_stats,
    .destroy = lbvh_destroy,
};
