// SPDX-License-Identifier: MIT
// Incremental dynamic AABB trees (the family of Bullet's btDbvtBroadphase and Box2D's
// b2DynamicTree): the method keeps its structure from frame to frame and does work only for what
// moved.
//
// - Each object has a fat box: its box grown by DT_MARGIN of its largest extent, kept while the
//   box stays inside. Only an object whose box left its fat box gets a new fat box and is
//   reinserted (removed and inserted again).
// - Two trees of fat boxes, each a Box2D-style dynamic tree (node pool with a free list; insertion
//   descends to the sibling of least perimeter cost, then AVL rotations rebalance on the way up):
//   the static tree holds the objects whose box has not changed for DT_REST updates, the dynamic
//   tree the others. An object moves between them, with its fat box, when it starts or has rested
//   that long. A tree that gets many leaves at once is built again in bulk instead (tree_rebuild).
// - A persistent pair set (open-addressing hash of cube pairs): it holds every pair whose fat boxes
//   overlap. Only reinserted objects query the trees (each against both, on every thread), and
//   their new pairs are added; pairs whose fat boxes parted stay until the next cleanup, since a
//   pair is reported only when its current boxes overlap anyway.
// - Each pair of the set carries a flag: its boxes overlap now. Update tests the flag again only
//   for the pairs with a cube that moved; candidates reads the flagged pairs in the set's slot order
//   in CD_BROAD_PARTS parts (the same pairs in the same order for any thread count).
//
// Exactness. Invariant: after update(), the set holds every pair of objects whose fat boxes overlap,
// once. Fat boxes change only for reinserted objects; a pair of two others keeps its fat boxes, so
// it stays in the set or stays out as it was. A pair with a reinserted object i whose fat boxes now
// overlap is found by i's query of the tree holding the other (the trees' boxes are float unions of
// the fat boxes they hold, so every ancestor of a leaf contains it), and the set keeps one copy of
// each key. Every box lies in its fat box (the margin is added in float and rounds outward of the
// box: fl(lo − m) ≤ lo, fl(hi + m) ≥ hi), so two overlapping boxes have overlapping fat boxes and
// their pair is in the set. A flag is set from the boxes when its pair enters the set (or the set
// is rebuilt) and tested again whenever one of the two boxes changed, so it tells whether the boxes
// overlap now; candidates reports the flagged pairs, each once.
//
// Objects are numbered by cube (cd_scene.ident), not by slot: a reorder of the scene's slots then
// changes nothing here but the map from cubes to slots.
#include "float_bounds.h"

#include <omp.h>

// Fat box: DT_MARGIN of the box's largest extent on every side, and DT_AHEAD frames of its last
// displacement ahead. On the standard scene at 100 000 cubes (everything moving, after 20 frames
// of warm-up) 0.2 and 8 took 85 ms a frame, 0.05 and 8 101 ms, 0.8 without lookahead 113 ms; at
// 10 000 cubes without lookahead 0.05, 0.1, 0.2, 0.4, 0.8 took 12.5, 4.2, 3.3, 2.6, 2.5 ms.
#define DT_MARGIN 0.2
#define DT_AHEAD 8.0f
// The lookahead, at most this share of the box's largest extent. Without a bound, boxes that all
// head for one point (Bullet's gravity ball, where they collapse into a dense ball) got fat boxes
// reaching far towards it, all overlapping one another: 25 million pairs in the set for 10 000
// boxes and 26 000 overlapping pairs, 540 ms a frame. Frame ms of dtree alone on the 2-vCPU Intel
// Xeon guest for bounds 0.25 / 0.5 / 1 / 2 / none: gravity ball 27-28 / 35 / 51-53 / 87 / 542-575,
// Brownian 13.4-14.0 / 15.3 / 35-38 / 28 / 80, free fall 12.1-12.3 / 12.5 / 14.1-14.9 / 13.8-14.5
// / 9.1-9.3 (falling side by side, the boxes gain from looking far ahead); 100 000 standard cubes
// the same within the noise (27-34 ms) for 0.25 and up, 47-49 for 0 and 0.1.
#define DT_AHEAD_MAX 0.25
#define DT_NULL UINT32_MAX
enum { DT_STACK = 256, DT_PARALLEL_MIN = 2048, DT_STATIC = 1, DT_DYNAMIC = 2 };
// A tree is built again (tree_rebuild) when an update brings it at least DT_BULK_MIN new leaves
// and at least 1/DT_BULK_SHARE of its leaves after the update.
enum { DT_BULK_MIN = 256, DT_BULK_SHARE = 2 };
// A cube of the dynamic tree goes to the static tree once it has not moved for DT_REST updates.
// Where cubes rest and wake every few frames, moving each between the trees as it stops and starts
// (DT_REST 1) took about 40 % of the frame. dtree alone on the 2-vCPU Intel Xeon guest, sleep = 4,
// frame ms for DT_REST 1 / 2 / 4 / 8 / 16 / 64: 100 000 cubes 52-53 / 55-57 / 44-47 / 33-35 /
// 28-30 / 27-28, 10 000 cubes 2.73-2.76 / 2.46-2.50 / 2.20-2.25 / 1.85-1.86 / 1.64-1.66 / 1.59-1.61;
// the pile, the gravity ball, 100 000 moving cubes and the moving fractions of
// configs/broad_coherence.ini the same within the noise for 1 and 16.
#define DT_REST 16
#define DT_EMPTY UINT64_MAX   // a free slot of the pair set
#define DT_OVER (1ull << 63)  // a set entry's flag: the two boxes overlap now (cubes < 2^31)

typedef struct dt_node {
    float lo[3], hi[3];
    uint32_t parent;          // or the next free node
    uint32_t child1, child2;  // DT_NULL for a leaf
    uint32_t obj;             // a leaf's object
    int32_t height;           // leaf 0, free −1
    uint32_t pad;
} dt_node;
_Static_assert(sizeof(dt_node) == 48, "three nodes in two cache lines");

typedef struct dt_tree {
    dt_node *node;
    uint32_t cap, root, free_list, leaves;
} dt_tree;

typedef struct dt_item {  // a leaf in a bulk build: its centre's key on each axis, its node
    uint64_t key[3];
} dt_item;

typedef struct dtree {
    int threads;
    uint32_t n;                         // objects the state was made for (UINT32_MAX: none yet)
    uint64_t layout;                    // the scene's layout slot_of follows
    uint64_t moves;                     // the scene's move list last seen (cd_scene_moves_since)
    dt_tree tree[3];                    // [DT_STATIC], [DT_DYNAMIC]; [0] unused
    cd_aabbf *box;                      // per cube: its box at the last update
    cd_aabbf *fat;                      // per cube: its fat box
    float (*disp)[3];                   // per cube: its box's last displacement (centre, per axis)
    uint32_t *leaf;                     // per cube: its leaf node
    uint8_t *where;                     // per cube: DT_STATIC or DT_DYNAMIC
    uint8_t *moved;                     // per cube: its box changed at the last update
    uint8_t *fresh;                     // per cube: reinserted at the last update (queries)
    uint32_t *slot_of;                  // per cube: its slot
    uint32_t *moved_list, nmoved;       // cubes whose box changed, in cube order
    uint8_t *stays;                     // per entry of moved_list: its box stayed in its fat box
    uint32_t *prev_list, nprev;         // the same of the update before
    uint32_t *fresh_list, nfresh;       // reinserted cubes, in cube order
    uint32_t *pending[3], npending[3];  // per tree: leaves to insert at this update (move_leaves)
    uint32_t *calm, ncalm;              // resting cubes of the dynamic tree, each once (move_leaves)
    uint32_t *last_moved, update_no;    // per cube: the update that last saw it move; updates so far
    dt_item *items;                     // a bulk build's leaves (tree_rebuild)
    size_t items_cap;
    uint64_t *set;  // pair set: (a << 32 | b), a < b cubes; DT_EMPTY free
    uint64_t set_cap, set_count;
    cd_pair_list found[CD_BROAD_PARTS];  // new pairs per query part
    uint64_t update_tests;               // node tests of the last update's queries
} dtree;

// ---------------------------------------------------------------------------------------------
// Boxes

static inline void box_union(float lo[3], float hi[3], const dt_node *a, const dt_node *b)
{
    for (int k = 0; k < 3; ++k) {
        lo[k] = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
        hi[k] = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
    }
}

static inline float perimeter(const float lo[3], const float hi[3])
{
    return (hi[0] - lo[0]) + (hi[1] - lo[1]) + (hi[2] - lo[2]);
}

static inline int boxes_overlap(const float alo[3], const float ahi[3], const float blo[3], const float bhi[3])
{
    return (alo[0] <= bhi[0]) & (blo[0] <= ahi[0]) & (alo[1] <= bhi[1]) & (blo[1] <= ahi[1]) & (alo[2] <= bhi[2]) &
           (blo[2] <= ahi[2]);
}

static inline int contains(const cd_aabbf *fat, const cd_aabbf *b)
{
    return (fat->lo[0] <= b->lo[0]) & (fat->lo[1] <= b->lo[1]) & (fat->lo[2] <= b->lo[2]) & (b->hi[0] <= fat->hi[0]) &
           (b->hi[1] <= fat->hi[1]) & (b->hi[2] <= fat->hi[2]);
}

// b grown by DT_MARGIN of its largest extent on every side, and by DT_AHEAD frames of its last
// displacement d on the side it moves to (as Bullet's and Box2D's trees predict motion), at most
// DT_AHEAD_MAX of its largest extent. Each sum
// rounds outward of b: fl(lo − m) ≤ lo, and adding a negative number never rounds up. A margin
// or displacement that is not finite counts as 0.
static cd_aabbf fatten(const cd_aabbf *b, const float d[3])
{
    float m = (float)(DT_MARGIN * aabbf_max_extent(b)), ahead = DT_AHEAD;
    float cap = (float)(DT_AHEAD_MAX * aabbf_max_extent(b));
    if (!(m >= 0.0f && m < INFINITY)) m = 0.0f;
    if (!(cap >= 0.0f && cap < INFINITY)) cap = 0.0f;
    cd_aabbf f;
    for (int k = 0; k < 3; ++k) {
        float a = ahead * d[k];
        if (!(a > -INFINITY && a < INFINITY)) a = 0.0f;
        a = a > cap ? cap : a < -cap ? -cap : a;
        f.lo[k] = b->lo[k] - m;
        f.hi[k] = b->hi[k] + m;
        if (a < 0.0f) f.lo[k] += a;
        if (a > 0.0f) f.hi[k] += a;
    }
    return f;
}

// ---------------------------------------------------------------------------------------------
// The dynamic tree (after Box2D's b2DynamicTree)

static uint32_t node_alloc(dt_tree *t)
{
    if (t->free_list == DT_NULL) {
        uint32_t old = t->cap, cap = old ? 2 * old : 64;
        dt_node *nn = cd_alloc((size_t)cap * sizeof *nn);
        if (old) memcpy(nn, t->node, (size_t)old * sizeof *nn);
        cd_free(t->node);
        t->node = nn;
        for (uint32_t k = old; k < cap; ++k)
            t->node[k] = (dt_node){.parent = k + 1 < cap ? k + 1 : DT_NULL, .height = -1};
        t->free_list = old;
        t->cap = cap;
    }
    uint32_t k = t->free_list;
    t->free_list = t->node[k].parent;
    t->node[k] = (dt_node){.parent = DT_NULL, .child1 = DT_NULL, .child2 = DT_NULL, .obj = DT_NULL};
    return k;
}

static void node_free(dt_tree *t, uint32_t k)
{
    t->node[k].parent = t->free_list;
    t->node[k].height = -1;
    t->free_list = k;
}

static inline int is_leaf(const dt_node *n) { return n->child1 == DT_NULL; }

static inline int32_t max_i(int32_t a, int32_t b) { return a > b ? a : b; }

// Refresh node k's box and height from its children.
static inline void refresh(dt_tree *t, uint32_t k)
{
    dt_node *n = &t->node[k];
    box_union(n->lo, n->hi, &t->node[n->child1], &t->node[n->child2]);
    n->height = 1 + max_i(t->node[n->child1].height, t->node[n->child2].height);
}

static inline void replace_child(dt_tree *t, uint32_t parent, uint32_t old, uint32_t now)
{
    if (parent == DT_NULL) {
        t->root = now;
    } else if (t->node[parent].child1 == old) {
        t->node[parent].child1 = now;
    } else {
        t->node[parent].child2 = now;
    }
}

// Rotate the taller grandchild of a up when a's children differ in height by more than one (an
// AVL rotation, as b2DynamicTree::Balance); returns the subtree's new root.
static uint32_t balance(dt_tree *t, uint32_t ia)
{
    dt_node *a = &t->node[ia];
    if (is_leaf(a) || a->height < 2) return ia;
    uint32_t ib = a->child1, ic = a->child2;
    int32_t d = t->node[ic].height - t->node[ib].height;
    if (d > 1 || d < -1) {
        int up_c = d > 1;              // raise c (right child) or b (left child)
        uint32_t iu = up_c ? ic : ib;  // u goes up
        dt_node *u = &t->node[iu];
        uint32_t i1 = u->child1, i2 = u->child2;
        u->child1 = ia;
        u->parent = a->parent;
        a->parent = iu;
        replace_child(t, u->parent, ia, iu);
        // u keeps its taller child; the shorter one replaces u under a.
        uint32_t keep = t->node[i1].height > t->node[i2].height ? i1 : i2, give = keep == i1 ? i2 : i1;
        u->child2 = keep;
        if (up_c)
            a->child2 = give;
        else
            a->child1 = give;
        t->node[give].parent = ia;
        refresh(t, ia);
        refresh(t, iu);
        return iu;
    }
    return ia;
}

// Boxes and heights from k's parent up to the root, rebalancing on the way.
static void fix_upwards(dt_tree *t, uint32_t k)
{
    while (k != DT_NULL) {
        k = balance(t, k);
        refresh(t, k);
        k = t->node[k].parent;
    }
}

// Insert leaf k (its box set): descend to the sibling whose union with the leaf costs least in
// perimeter, counting what every ancestor grows by (b2DynamicTree::InsertLeaf).
static void insert_leaf(dt_tree *t, uint32_t leaf)
{
    t->leaves++;
    if (t->root == DT_NULL) {
        t->root = leaf;
        t->node[leaf].parent = DT_NULL;
        return;
    }
    const dt_node *l = &t->node[leaf];
    uint32_t k = t->root;
    while (!is_leaf(&t->node[k])) {
        const dt_node *n = &t->node[k];
        float lo[3], hi[3];
        box_union(lo, hi, n, l);
        float area = perimeter(n->lo, n->hi), combined = perimeter(lo, hi);
        float cost = 2.0f * combined, inherit = 2.0f * (combined - area);
        float c[2];
        for (int s = 0; s < 2; ++s) {
            const dt_node *ch = &t->node[s ? n->child2 : n->child1];
            box_union(lo, hi, ch, l);
            c[s] = perimeter(lo, hi) + inherit - (is_leaf(ch) ? 0.0f : perimeter(ch->lo, ch->hi));
        }
        if (cost < c[0] && cost < c[1]) break;
        k = c[0] < c[1] ? n->child1 : n->child2;
    }
    uint32_t sibling = k, old_parent = t->node[sibling].parent, np = node_alloc(t);
    dt_node *p = &t->node[np];
    p->parent = old_parent;
    p->child1 = sibling;
    p->child2 = leaf;
    t->node[sibling].parent = np;
    t->node[leaf].parent = np;
    replace_child(t, old_parent, sibling, np);
    fix_upwards(t, np);
}

static void remove_leaf(dt_tree *t, uint32_t leaf)
{
    t->leaves--;
    if (leaf == t->root) {
        t->root = DT_NULL;
        return;
    }
    uint32_t parent = t->node[leaf].parent, grand = t->node[parent].parent;
    uint32_t sibling = t->node[parent].child1 == leaf ? t->node[parent].child2 : t->node[parent].child1;
    replace_child(t, grand, parent, sibling);
    t->node[sibling].parent = grand;
    node_free(t, parent);
    fix_upwards(t, grand);
}

// Leaves of t whose boxes overlap (lo, hi), appended to out as objects; returns the boxes tested.
static uint64_t tree_query(const dt_tree *t, const float lo[3], const float hi[3], uint32_t *out, uint32_t *nout,
                           uint32_t cap)
{
    if (t->root == DT_NULL) return 0;
    uint32_t stack[DT_STACK], top = 0;
    uint64_t tests = 0;
    stack[top++] = t->root;
    while (top > 0) {
        const dt_node *n = &t->node[stack[--top]];
        ++tests;
        if (!boxes_overlap(n->lo, n->hi, lo, hi)) continue;
        if (is_leaf(n)) {
            if (*nout < cap) out[*nout] = n->obj;
            ++*nout;
        } else {
            CD_ASSERT(top + 2 <= DT_STACK);  // AVL balance keeps the height near log2 of the leaves
            stack[top++] = n->child2;
            stack[top++] = n->child1;
        }
    }
    return tests;
}

// A bulk build, for when many leaves arrive at once (the first update, a reset, many objects
// waking or resting in one frame): inserted one by one, each descends greedily to the sibling of
// least perimeter cost, and a few huge leaves spoil that. A floor slab spanning the world lies in
// every box it is united with, so every descent follows the slab's path at no cost and each cube
// ends beside a subtree anywhere in the world, which then spans it. In the level layout at 100 000
// cubes each query then tested about 32 000 nodes against about 480 in the uniform layout, and
// long after the slabs had gone to the static tree (2-vCPU Intel Xeon guest). The bulk build
// splits the leaves at the median of their centres along the axis where the centres spread
// most, down to single leaves: a balanced tree (AVL heights within one) whose subtrees are
// compact in space, in O(n log n), whatever the leaves' sizes. Only the boxes matter for
// exactness (each node the float union of its children), not the shape.
//
// An axis key of a leaf: its centre's sum lo + hi mapped to an order-preserving integer (NaN
// included: a total order), above its node's index, so the keys are distinct and the split the
// same on every run.
static inline uint64_t axis_key(const dt_node *n, int a, uint32_t k)
{
    return (uint64_t)float_order_key(n->lo[a] + n->hi[a]) << 32 | k;
}

static inline uint32_t item_node(const dt_item *it) { return (uint32_t)it->key[0]; }

// Items [0, n) reordered so that item m holds the m-th smallest key on axis a, those before it
// smaller, those after it larger (Hoare's selection, the middle of three as pivot).
static void select_median(dt_item *it, uint32_t n, uint32_t m, int a)
{
    int64_t lo = 0, hi = (int64_t)n - 1;
    while (hi > lo) {
        int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
        uint64_t x = it[lo].key[a], y = it[mid].key[a], z = it[hi].key[a];
        uint64_t pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        while (i <= j) {  // the keys are distinct and the pivot one of them: the scans stop in range
            while (it[i].key[a] < pivot) ++i;
            while (it[j].key[a] > pivot) --j;
            if (i <= j) {
                dt_item w = it[i];
                it[i++] = it[j], it[j--] = w;
            }
        }
        if ((int64_t)m <= j)
            hi = j;
        else if ((int64_t)m >= i)
            lo = i;
        else
            return;  // m holds the pivot, between the two parts
    }
}

// A subtree over items [0, n), n ≥ 1; returns its root (its parent left for the caller to set).
static uint32_t build_range(dt_tree *t, dt_item *it, uint32_t n)
{
    if (n == 1) return item_node(it);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = 0; k < n; ++k) {
        const dt_node *l = &t->node[item_node(&it[k])];
        for (int a = 0; a < 3; ++a) {
            float c = l->lo[a] + l->hi[a];  // NaN and ±inf leave the spread alone or make it +inf
            lo[a] = c < lo[a] ? c : lo[a];
            hi[a] = c > hi[a] ? c : hi[a];
        }
    }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    uint32_t half = n / 2;
    select_median(it, n, half, axis);
    uint32_t c1 = build_range(t, it, half), c2 = build_range(t, it + half, n - half);
    uint32_t k = node_alloc(t);
    dt_node *p = &t->node[k];
    p->child1 = c1, p->child2 = c2;
    t->node[c1].parent = k, t->node[c2].parent = k;
    refresh(t, k);
    return k;
}

// Tree t built again over its leaves and the n leaves of extra (allocated, with their boxes and
// objects); the old internal nodes go back to the free list. items is the caller's scratch.
static void tree_rebuild(dt_tree *t, const uint32_t *extra, uint32_t n, dt_item **items, size_t *cap)
{
    uint32_t total = t->leaves + n, m = 0;
    cd_grow((void **)items, sizeof **items, cap, total ? total : 1);
    dt_item *it = *items;
    if (t->root != DT_NULL) {  // the old leaves by a walk that frees the internal nodes
        uint32_t stack[DT_STACK], top = 0;
        stack[top++] = t->root;
        while (top > 0) {
            uint32_t k = stack[--top];
            dt_node *nd = &t->node[k];
            if (is_leaf(nd)) {
                it[m++].key[0] = k;
                continue;
            }
            CD_ASSERT(top + 2 <= DT_STACK);
            stack[top++] = nd->child2;
            stack[top++] = nd->child1;
            node_free(t, k);
        }
    }
    for (uint32_t j = 0; j < n; ++j) it[m++].key[0] = extra[j];
    CD_ASSERT(m == total);
    t->leaves = total;
    t->root = DT_NULL;
    if (!total) return;
    for (uint32_t j = 0; j < total; ++j) {
        uint32_t k = item_node(&it[j]);
        for (int a = 0; a < 3; ++a) it[j].key[a] = axis_key(&t->node[k], a, k);
    }
    t->root = build_range(t, it, total);
    t->node[t->root].parent = DT_NULL;
}

// ---------------------------------------------------------------------------------------------
// The pair set

static inline uint64_t over_flag(const dtree *t, uint64_t key)
{
    uint32_t a = (uint32_t)(key >> 32) & 0x7fffffffu, b = (uint32_t)key;
    return cd_aabbf_overlap(&t->box[a], &t->box[b]) ? DT_OVER : 0;
}

// Add entry (a key and its flag) if its key is absent. The update puts a new pair unflagged: each
// holds a fresh cube, which moved, so set_refresh sets its flag after the merge (the boxes' test
// there, in parallel, not here on one thread).
static void set_put(dtree *t, uint64_t entry)
{
    uint64_t key = entry & ~DT_OVER, h = cd_hash_slot(key, t->set_cap - 1);
    while (t->set[h] != DT_EMPTY) {
        if ((t->set[h] & ~DT_OVER) == key) return;
        h = (h + 1) & (t->set_cap - 1);
    }
    t->set[h] = entry;
    t->set_count++;
}

// Slots [k0, k1) of the set: the flag of every pair with a cube that moved is tested again (the
// others' boxes are as they were). Returns the box tests.
static uint64_t set_refresh(dtree *t, uint64_t k0, uint64_t k1)
{
    uint64_t tests = 0;
    for (uint64_t k = k0; k < k1; ++k) {
        uint64_t e = t->set[k];
        if (e == DT_EMPTY) continue;
        uint32_t a = (uint32_t)(e >> 32) & 0x7fffffffu, b = (uint32_t)e;
        if (!(t->moved[a] | t->moved[b])) continue;
        ++tests;
        t->set[k] = (e & ~DT_OVER) | over_flag(t, e);
    }
    return tests;
}

// Fat-overlapping pairs of the set into a fresh table of capacity cap (a power of two), in the old
// slot order, each with its flag (still right where neither cube moved; set_refresh tests the
// others); the pairs whose fat boxes parted are dropped.
static void set_rebuild(dtree *t, uint64_t cap)
{
    uint64_t *old = t->set, old_cap = t->set_cap;
    t->set = cd_alloc(cap * sizeof *t->set);
    for (uint64_t k = 0; k < cap; ++k) t->set[k] = DT_EMPTY;
    t->set_cap = cap;
    t->set_count = 0;
    for (uint64_t k = 0; k < old_cap; ++k) {
        uint64_t key = old[k];
        if (key == DT_EMPTY) continue;
        uint32_t a = (uint32_t)(key >> 32) & 0x7fffffffu, b = (uint32_t)key;
        if (boxes_overlap(t->fat[a].lo, t->fat[a].hi, t->fat[b].lo, t->fat[b].hi)) set_put(t, key);
    }
    cd_free(old);
}

// Room for `more` pairs at a load of at most one half: first drop the parted pairs, then grow.
static void set_reserve(dtree *t, uint64_t more)
{
    if (2 * (t->set_count + more) <= t->set_cap) return;
    if (t->set_cap) set_rebuild(t, t->set_cap);
    uint64_t cap = t->set_cap ? t->set_cap : 1024;
    while (2 * (t->set_count + more) > cap) cap *= 2;
    if (cap != t->set_cap) set_rebuild(t, cap);
}

// ---------------------------------------------------------------------------------------------
// Life cycle

static void *dtree_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s, (void)p;
    dtree *t = cd_alloc_zero(1, sizeof *t);
    t->threads = threads > 1 ? threads : 1;
    t->n = UINT32_MAX;
    for (int k = 0; k < 3; ++k) t->tree[k] = (dt_tree){NULL, 0, DT_NULL, DT_NULL, 0};
    return t;
}

static void dtree_free_state(dtree *t)
{
    for (int k = 0; k < 3; ++k) {
        cd_free(t->tree[k].node);
        t->tree[k] = (dt_tree){NULL, 0, DT_NULL, DT_NULL, 0};
    }
    cd_free(t->box);
    cd_free(t->fat);
    cd_free(t->disp);
    cd_free(t->leaf);
    cd_free(t->where);
    cd_free(t->moved);
    cd_free(t->fresh);
    cd_free(t->slot_of);
    cd_free(t->moved_list);
    cd_free(t->stays);
    cd_free(t->prev_list);
    cd_free(t->fresh_list);
    for (int w = DT_STATIC; w <= DT_DYNAMIC; ++w) cd_free(t->pending[w]), t->pending[w] = NULL;
    cd_free(t->calm);
    cd_free(t->last_moved);
    t->calm = t->last_moved = NULL;
    cd_free(t->items);
    t->items = NULL, t->items_cap = 0;
    cd_free(t->set);
    t->set = NULL;
    t->set_cap = t->set_count = 0;
}

static void dtree_destroy(void *self)
{
    dtree *t = self;
    dtree_free_state(t);
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) cd_pair_list_free(&t->found[k]);
    cd_free(t);
}

// A fresh state for n objects: every one new, nothing in the trees or the set.
static void dtree_reset(dtree *t, uint32_t n)
{
    dtree_free_state(t);
    size_t c = (size_t)n + 1;
    t->box = cd_alloc(c * sizeof *t->box);
    t->fat = cd_alloc(c * sizeof *t->fat);
    t->disp = cd_alloc_zero(c, sizeof *t->disp);
    t->leaf = cd_alloc(c * sizeof *t->leaf);
    t->where = cd_alloc_zero(c, 1);
    t->moved = cd_alloc_zero(c, 1);
    t->fresh = cd_alloc_zero(c, 1);
    t->slot_of = cd_alloc(c * sizeof *t->slot_of);
    t->moved_list = cd_alloc(c * sizeof *t->moved_list);
    t->stays = cd_alloc(c);
    t->prev_list = cd_alloc(c * sizeof *t->prev_list);
    t->nmoved = t->nprev = t->nfresh = 0;
    t->fresh_list = cd_alloc(c * sizeof *t->fresh_list);
    for (int w = DT_STATIC; w <= DT_DYNAMIC; ++w)
        t->pending[w] = cd_alloc(c * sizeof *t->pending[w]), t->npending[w] = 0;
    t->calm = cd_alloc(c * sizeof *t->calm);
    t->last_moved = cd_alloc_zero(c, sizeof *t->last_moved);
    t->ncalm = t->update_no = 0;
    t->n = n;
    t->layout = UINT64_MAX;
    t->moves = CD_SCENE_MOVES_UNSEEN;
}

// ---------------------------------------------------------------------------------------------
// The frame's update

// Cube c (in slot i) moved: its displacement and box are kept, it is listed as entry k.
static void note_moved(dtree *t, const cd_scene *s, uint32_t c, uint32_t i, int first, uint32_t k)
{
    const cd_aabbf *b = &s->box[i];
    for (int a = 0; a < 3; ++a)
        t->disp[c][a] = first ? 0.0f : 0.5f * ((b->lo[a] + b->hi[a]) - (t->box[c].lo[a] + t->box[c].hi[a]));
    t->box[c] = *b;
    t->moved[c] = 1;
    t->last_moved[c] = t->update_no;
    t->moved_list[k] = c;
}

// Which cubes' boxes changed since the last update: the scene's move list, in its slot order, or
// every cube when the scene does not know (the first update, frames this method missed). The
// moved flags of the last update's list (prev_list) are cleared first. Each cube's records are its
// own: on the threads.
static void find_moved(dtree *t, const cd_scene *s, int first)
{
    uint32_t n = t->n;
    if (s->layout != t->layout) {
        for (uint32_t i = 0; i < n; ++i) t->slot_of[cd_scene_ident(s, i)] = i;
        t->layout = s->layout;
    }
    for (uint32_t k = 0; k < t->nprev; ++k) t->moved[t->prev_list[k]] = 0;
    cd_scene_moves m;
    int listed = cd_scene_moves_since(s, &t->moves, &m) && !first;
    t->nmoved = listed ? m.count : n;
    int threads = t->threads > 1 && t->nmoved >= DT_PARALLEL_MIN ? t->threads : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (uint32_t k = 0; k < t->nmoved; ++k) {
        uint32_t c = listed ? cd_scene_ident(s, m.slot[k]) : k;
        note_moved(t, s, c, listed ? m.slot[k] : t->slot_of[c], first, k);
    }
}

// Whether each moved cube's box stayed in its fat box (stays[k]), and a new fat box for each that
// left it: per cube, on the threads, before move_leaves reinserts them.
static void refatten(dtree *t)
{
    int threads = t->threads > 1 && t->nmoved >= DT_PARALLEL_MIN ? t->threads : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (uint32_t k = 0; k < t->nmoved; ++k) {
        uint32_t c = t->moved_list[k];
        t->stays[k] = (uint8_t)(t->where[c] && contains(&t->fat[c], &t->box[c]));
        if (!t->stays[k]) t->fat[c] = fatten(&t->box[c], t->disp[c]);
    }
}

static void place(dtree *t, uint32_t c, int where)
{
    dt_tree *tr = &t->tree[where];
    uint32_t k = node_alloc(tr);
    dt_node *l = &tr->node[k];
    for (int a = 0; a < 3; ++a) l->lo[a] = t->fat[c].lo[a], l->hi[a] = t->fat[c].hi[a];
    l->obj = c;
    t->pending[where][t->npending[where]++] = k;  // inserted by move_leaves, after every removal
    t->leaf[c] = k;
    t->where[c] = (uint8_t)where;
}

static void unplace(dtree *t, uint32_t c)
{
    dt_tree *tr = &t->tree[t->where[c]];
    remove_leaf(tr, t->leaf[c]);
    node_free(tr, t->leaf[c]);
    t->where[c] = 0;
}

// The trees follow the motion, serially, in cube order: a cube that moved out of its fat box gets a
// new one and is reinserted into the dynamic tree (listed fresh); one that moved inside it, from the
// static tree, goes to the dynamic tree with its fat box; one that did not move, from the dynamic
// tree, goes to the static tree.
static void move_leaves(dtree *t)
{
    t->nfresh = 0;
    refatten(t);
    for (uint32_t k = 0; k < t->nmoved; ++k) {
        uint32_t c = t->moved_list[k];
        if (t->stays[k]) {
            if (t->where[c] == DT_STATIC) {
                unplace(t, c);
                place(t, c, DT_DYNAMIC);
            }
            continue;
        }
        if (t->where[c]) unplace(t, c);
        place(t, c, DT_DYNAMIC);
        t->fresh[c] = 1;
        t->fresh_list[t->nfresh++] = c;
    }
    // Cubes in the dynamic tree that have not moved for DT_REST updates: to the static tree. The
    // calm list holds the dynamic tree's cubes that rest (each once): last update's, still
    // resting, and those that moved the update before and not now.
    uint32_t ncalm = 0;
    for (uint32_t pass = 0; pass < 2; ++pass) {
        const uint32_t *from = pass ? t->prev_list : t->calm;
        uint32_t n = pass ? t->nprev : t->ncalm;
        for (uint32_t k = 0; k < n; ++k) {
            uint32_t c = from[k];
            if (t->moved[c] || t->where[c] != DT_DYNAMIC) continue;
            if (t->update_no - t->last_moved[c] < DT_REST) {
                t->calm[ncalm++] = c;  // writes behind the reads of pass 0: ncalm ≤ k
                continue;
            }
            unplace(t, c);
            place(t, c, DT_STATIC);
        }
    }
    t->ncalm = ncalm;
    // The new leaves of each tree, one by one where they are few, else in a bulk build.
    for (int w = DT_STATIC; w <= DT_DYNAMIC; ++w) {
        dt_tree *tr = &t->tree[w];
        uint32_t n = t->npending[w];
        if (n >= DT_BULK_MIN && n >= (tr->leaves + n) / DT_BULK_SHARE) {
            tree_rebuild(tr, t->pending[w], n, &t->items, &t->items_cap);
        } else {
            for (uint32_t k = 0; k < n; ++k) insert_leaf(tr, t->pending[w][k]);
        }
        t->npending[w] = 0;
    }
}

// Query part `part` of the fresh cubes against both trees; new pairs into found[part]. A pair of
// two fresh cubes is kept by the smaller cube's query only.
static uint64_t query_part(dtree *t, uint32_t part)
{
    uint32_t k0 = (uint32_t)((uint64_t)t->nfresh * part / CD_BROAD_PARTS);
    uint32_t k1 = (uint32_t)((uint64_t)t->nfresh * (part + 1) / CD_BROAD_PARTS);
    cd_pair_list *out = &t->found[part];
    out->count = 0;
    uint64_t tests = 0;
    uint32_t buf[512];
    for (uint32_t k = k0; k < k1; ++k) {
        uint32_t c = t->fresh_list[k];
        for (int w = DT_STATIC; w <= DT_DYNAMIC; ++w) {
            uint32_t m = 0;
            tests += tree_query(&t->tree[w], t->fat[c].lo, t->fat[c].hi, buf, &m, 512);
            if (m > 512) {  // more than the buffer holds: collect them again, by chunks of the heap
                uint32_t *all = cd_alloc((size_t)m * sizeof *all), m2 = 0;
                tree_query(&t->tree[w], t->fat[c].lo, t->fat[c].hi, all, &m2, m);
                for (uint32_t j = 0; j < m2; ++j)
                    if (all[j] != c && !(t->fresh[all[j]] && all[j] < c)) cd_pair_list_push(out, (cd_pair){c, all[j]});
                cd_free(all);
                continue;
            }
            for (uint32_t j = 0; j < m; ++j)
                if (buf[j] != c && !(t->fresh[buf[j]] && buf[j] < c)) cd_pair_list_push(out, (cd_pair){c, buf[j]});
        }
    }
    return tests;
}

static void dtree_update(void *self, const cd_scene *s)
{
    dtree *t = self;
    uint32_t n = s->count;
    int first = n != t->n;
    if (first) dtree_reset(t, n);
    CD_ASSERT(n < (1u << 31));  // a set entry holds two cubes and a flag in 64 bits
    for (uint32_t k = 0; k < t->nfresh; ++k) t->fresh[t->fresh_list[k]] = 0;
    // Last frame's moved list, kept aside: its cubes that rest now go to the static tree.
    uint32_t *x = t->prev_list;
    t->prev_list = t->moved_list;
    t->moved_list = x;
    t->nprev = t->nmoved;
    t->update_no++;
    find_moved(t, s, first);
    move_leaves(t);
    int threads = t->threads > 1 && t->nfresh >= DT_PARALLEL_MIN ? t->threads : 1;
    uint64_t tests = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1) reduction(+ : tests)
    for (int part = 0; part < (int)CD_BROAD_PARTS; ++part) tests += query_part(t, (uint32_t)part);
    t->update_tests = tests;
    uint64_t more = 0;  // the new pairs go in unflagged: the refresh below tests each
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) more += t->found[k].count;
    set_reserve(t, more);
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k)
        for (size_t j = 0; j < t->found[k].count; ++j)
            set_put(t, cd_pair_key(t->found[k].items[j].a, t->found[k].items[j].b));
    // The overlap flags of the pairs with a cube that moved, in parts of the set.
    int rthreads = t->threads > 1 && t->nmoved >= DT_PARALLEL_MIN ? t->threads : 1;
    uint64_t rtests = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(rthreads) if (rthreads > 1) reduction(+ : rtests)
    for (int part = 0; part < (int)CD_BROAD_PARTS; ++part)
        rtests += set_refresh(t, t->set_cap * (uint64_t)part / CD_BROAD_PARTS,
                              t->set_cap * (uint64_t)(part + 1) / CD_BROAD_PARTS);
    t->update_tests += rtests;
}

// ---------------------------------------------------------------------------------------------
// Candidates: the set's pairs flagged as overlapping now (update tested every pair whose boxes
// changed, and the flag of the others still holds).

static void scan_set(const dtree *t, uint64_t k0, uint64_t k1, cd_pair_sink *sink)
{
    for (uint64_t k = k0; k < k1; ++k) {
        uint64_t e = t->set[k];
        if (e == DT_EMPTY || !(e & DT_OVER)) continue;
        uint32_t a = (uint32_t)(e >> 32) & 0x7fffffffu, b = (uint32_t)e;
        cd_sink_push(sink, t->slot_of[a], t->slot_of[b]);
    }
}

static void dtree_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                  cd_broad_stats *st)
{
    (void)s;
    const dtree *t = self;
    if (t->n == UINT32_MAX || !t->set_cap) return;
    uint64_t k0 = t->set_cap * part / parts, k1 = t->set_cap * (part + 1) / parts;
    scan_set(t, k0, k1, sink);
    st->bv_tests += part == 0 ? t->update_tests : 0;
}

static void dtree_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    dtree_candidates_part(self, s, 0, 1, sink, st);
}

static void dtree_shape_stats(void *self, cd_broad_stats *st)
{
    dtree *t = self;
    if (t->n == UINT32_MAX) return;
    st->nodes = (uint64_t)t->tree[DT_STATIC].cap + t->tree[DT_DYNAMIC].cap;
    st->bytes = sizeof *t + (t->n + 1ull) * (2 * sizeof(cd_aabbf) + 4 * sizeof(uint32_t) + 3) +
                st->nodes * sizeof(dt_node) + t->set_cap * sizeof *t->set;
    st->max_per_node = 1;
    int32_t hs = t->tree[DT_STATIC].root == DT_NULL ? 0 : t->tree[DT_STATIC].node[t->tree[DT_STATIC].root].height;
    int32_t hd = t->tree[DT_DYNAMIC].root == DT_NULL ? 0 : t->tree[DT_DYNAMIC].node[t->tree[DT_DYNAMIC].root].height;
    st->depth_reached = (uint64_t)(hs > hd ? hs : hd);
}

const cd_broad_method cd_broad_dtree = {
    .name = "dtree",
    .description = "incremental dynamic AABB trees: fat boxes (margin and motion lookahead), only escaped objects "
                   "reinserted and queried, "
                   "static and dynamic trees, persistent pair set",
    .create = dtree_create,
    .update = dtree_update,
    .candidates = dtree_candidates,
    .candidates_part = dtree_candidates_part,
    .boxes_tested = 1,
    .shape_stats = dtree_shape_stats,
    .destroy = dtree_destroy,
};
