// SPDX-License-Identifier: MIT
// Node pool, per-frame packing and exact pair search shared by the strict and loose octrees.
#include "octree_core.h"

#include <omp.h>
#include <string.h>

// Next double toward −inf for finite x, by bit arithmetic: nextafter is a libm call in the
// innermost query loop.
static inline double next_down(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    if (x > 0.0)
        u -= 1;
    else if (x < 0.0)
        u += 1;
    else
        u = 0x8000000000000001ULL;  // ±0 → −denorm_min
    memcpy(&x, &u, sizeof u);
    return x;
}

static const cd_aabb empty_box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};

// Plain comparisons instead of fmin/fmax: no NaN handling needed and they stay branch-free inline.
static inline cd_aabb box_union(cd_aabb a, const cd_aabb *b)
{
    a.lo.x = b->lo.x < a.lo.x ? b->lo.x : a.lo.x;
    a.lo.y = b->lo.y < a.lo.y ? b->lo.y : a.lo.y;
    a.lo.z = b->lo.z < a.lo.z ? b->lo.z : a.lo.z;
    a.hi.x = b->hi.x > a.hi.x ? b->hi.x : a.hi.x;
    a.hi.y = b->hi.y > a.hi.y ? b->hi.y : a.hi.y;
    a.hi.z = b->hi.z > a.hi.z ? b->hi.z : a.hi.z;
    return a;
}

void cd_otree_init(cd_otree *t, int depth, int loose, int threads)
{
    CD_ASSERT(depth >= 0 && depth <= CD_OTREE_MAX_DEPTH);
    memset(t, 0, sizeof *t);
    t->depth = depth;
    t->loose = loose;
    t->threads = threads > 1 ? (threads < CD_PART_QUEUE_MAX_THREADS ? threads : CD_PART_QUEUE_MAX_THREADS) : 1;
}

void cd_otree_free(cd_otree *t)
{
    cd_free(t->node);
    cd_free(t->cell);
    cd_free(t->obj_node);
    cd_free(t->item_obj);
    cd_free(t->item_box);
    cd_free(t->keys);
    cd_free(t->run);
    cd_free(t->path);
    memset(t, 0, sizeof *t);
}

static void reserve_nodes(cd_otree *t, size_t need)
{
    if (need <= t->node_cap) return;
    size_t cap = t->node_cap;
    cd_grow((void **)&t->node, sizeof *t->node, &cap, need);
    cap = t->node_cap;
    cd_grow((void **)&t->cell, sizeof *t->cell, &cap, need);
    t->node_cap = cap;
}

void cd_otree_reset(cd_otree *t, cd_vec3 c, double h, cd_aabb b)
{
    reserve_nodes(t, 1);
    t->nodes = 1;
    t->node[0] = (cd_otree_node){.sub = empty_box};
    t->cell[0] = (cd_otree_cell){.bounds = b, .centre = c, .half = h, .parent = 0, .level = 0};
}

uint32_t cd_otree_split(cd_otree *t, uint32_t p)
{
    CD_ASSERT(t->node[p].kids == 0 && t->nodes + 8 <= UINT32_MAX);
    reserve_nodes(t, t->nodes + 8);
    uint32_t k0 = (uint32_t)t->nodes;
    const cd_otree_cell pc = t->cell[p];
    for (uint32_t k = 0; k < 8; ++k) {
        t->node[k0 + k] = (cd_otree_node){.sub = empty_box};
        t->cell[k0 + k] = cd_otree_child_cell(&pc, p, k);
    }
    t->node[p].kids = k0;
    t->nodes += 8;
    return k0;
}

void cd_otree_reserve_objects(cd_otree *t, uint32_t n)
{
    if (n <= t->obj_cap) return;
    size_t cap = t->obj_cap;
    cd_grow((void **)&t->obj_node, sizeof *t->obj_node, &cap, n);
    cap = t->obj_cap;
    cd_grow((void **)&t->item_obj, sizeof *t->item_obj, &cap, n);
    cap = t->obj_cap;
    cd_grow((void **)&t->item_box, sizeof *t->item_box, &cap, n);
    cap = t->obj_cap;
    cd_grow((void **)&t->keys, sizeof *t->keys, &cap, n);
    t->obj_cap = cap;
}

void cd_otree_place_all(cd_otree *t, void *tree, const cd_scene *s, int climb, const cd_otree_placer *how)
{
    uint32_t n = s->count;
    int threads = t->threads > 1 && n >= CD_OTREE_PARALLEL_MIN ? t->threads : 1;
    if (n > t->path_cap) cd_grow((void **)&t->path, sizeof *t->path, &t->path_cap, n);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (uint32_t i = 0; i < n; ++i) {
        cd_aabb b = cd_scene_aabb(s, i);
        uint32_t k = climb ? t->obj_node[i] : 0;
        t->path[i] = how->path(t, tree, &k, &b, climb);
        t->obj_node[i] = k;
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t p = t->path[i];
        uint32_t k = t->obj_node[i];
        for (unsigned d = 0; d < cd_otree_path_len(p); ++d)
            k = (t->node[k].kids ? t->node[k].kids : how->split(tree, k)) + (uint32_t)(p >> (3 * d) & 7);
        if (p & CD_OTREE_PATH_MORE) {
            cd_aabb b = cd_scene_aabb(s, i);
            k = how->descend(tree, k, &b);
        }
        t->obj_node[i] = k;
    }
}

// ---------------------------------------------------------------------------------------------
// Sorting one run by key.

// Insertion sort that gives up after a move budget: last frame's order is nearly sorted, and when
// it is not (many objects entered the run) the caller falls back to quicksort.
static int insertion_sort_bounded(cd_otree_key *a, size_t n, size_t budget)
{
    size_t moves = 0;
    for (size_t i = 1; i < n; ++i) {
        cd_otree_key v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].key > v.key) {
            a[j] = a[j - 1];
            --j;
            if (++moves > budget) {
                a[j] = v;  // keep the array a permutation before handing it to quicksort
                return 0;
            }
        }
        a[j] = v;
    }
    return 1;
}

static void quick_sort(cd_otree_key *a, size_t n)
{
    while (n > 16) {
        size_t m = n / 2;
        // Median of three into a[m].
        if (a[m].key < a[0].key) {
            cd_otree_key x = a[m];
            a[m] = a[0];
            a[0] = x;
        }
        if (a[n - 1].key < a[m].key) {
            cd_otree_key x = a[m];
            a[m] = a[n - 1];
            a[n - 1] = x;
        }
        if (a[m].key < a[0].key) {
            cd_otree_key x = a[m];
            a[m] = a[0];
            a[0] = x;
        }
        double pivot = a[m].key;
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i].key < pivot) ++i;
            while (pivot < a[j].key) --j;
            if (i >= j) break;
            cd_otree_key x = a[i];
            a[i] = a[j];
            a[j] = x;
            ++i;
            --j;
        }
        // Recurse into the smaller half, loop on the larger: stack depth O(log n).
        size_t left = j + 1;
        if (left < n - left) {
            quick_sort(a, left);
            a += left;
            n -= left;
        } else {
            quick_sort(a + left, n - left);
            n = left;
        }
    }
    insertion_sort_bounded(a, n, SIZE_MAX);  // no budget: always completes
}

// ---------------------------------------------------------------------------------------------
// Packing.

// Node k's run (keys[first, first + count)) sorted by lo.x, its items and boxes written and its own
// bounds and widest x extent set.
static void pack_node(cd_otree *t, const cd_scene *s, size_t k, int keep)
{
    cd_otree_node *nd = &t->node[k];
    cd_otree_key *run = t->keys + nd->first;
    if (nd->count > 1 && !(keep && insertion_sort_bounded(run, nd->count, 8u * nd->count + 64)))
        quick_sort(run, nd->count);
    cd_aabb own = empty_box;
    double ext = 0.0;
    for (uint32_t j = nd->first; j < nd->first + nd->count; ++j) {
        uint32_t o = t->keys[j].obj;
        const cd_aabb box = cd_scene_aabb(s, o), *b = &box;
        t->item_obj[j] = o;
        t->item_box[j] = box;
        own = box_union(own, b);
        double e = b->hi.x - b->lo.x;
        ext = e > ext ? e : ext;
    }
    nd->sub = own;
    // Rounded up twice (difference, then float): the sweep window must never be too narrow.
    ext = cd_round_up(ext);
    float f = (float)ext;
    if ((double)f < ext) f = nextafterf(f, INFINITY);
    nd->ext_x = f;
}

// Packing on nt threads: thread t counts and scatters the objects of its slice [n·t/nt, n·(t+1)/nt)
// of the scatter order, its run of each node after those of the threads before it, so the runs
// hold their objects in the scatter order as one thread would place them; the nodes' sorts then
// run on any thread. The same runs, items and bounds for every thread count.
void cd_otree_pack(cd_otree *t, const cd_scene *s, int coherent)
{
    uint32_t n = s->count;
    size_t nodes = t->nodes;
    int threads = t->threads > 1 && n >= CD_OTREE_PARALLEL_MIN ? t->threads : 1;
    if ((size_t)threads * nodes > t->run_cap) cd_grow((void **)&t->run, sizeof *t->run, &t->run_cap, threads * nodes);
    // Scatter by node; the coherent path walks last frame's order so each run starts nearly sorted.
    int keep = coherent && t->n == n;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        uint32_t nt = (uint32_t)omp_get_num_threads(), me = (uint32_t)omp_get_thread_num();
        uint32_t j0 = (uint32_t)((uint64_t)n * me / nt), j1 = (uint32_t)((uint64_t)n * (me + 1) / nt);
        uint32_t *run = t->run + me * nodes;  // this thread's count, then next slot, per node
        memset(run, 0, nodes * sizeof *run);
        for (uint32_t j = j0; j < j1; ++j) run[t->obj_node[keep ? t->item_obj[j] : j]]++;
#pragma omp barrier
#pragma omp single
        {
            uint32_t acc = 0;
            for (size_t k = 0; k < nodes; ++k) {
                t->node[k].first = acc;
                for (uint32_t u = 0; u < nt; ++u) {
                    uint32_t c = t->run[u * nodes + k];
                    t->run[u * nodes + k] = acc;
                    acc += c;
                }
                t->node[k].count = acc - t->node[k].first;
            }
        }
        for (uint32_t j = j0; j < j1; ++j) {
            uint32_t o = keep ? t->item_obj[j] : j;
            t->keys[run[t->obj_node[o]]++] = (cd_otree_key){s->box[o].lo[0], o};
        }
#pragma omp barrier
#pragma omp for schedule(dynamic, 16)
        for (size_t k = 0; k < nodes; ++k) pack_node(t, s, k, keep);
    }
    // Children always have larger indices than their parent (split appends), so a reverse pass
    // refits bottom-up.
    size_t live = 0;
    for (size_t k = nodes; k-- > 0;) {
        cd_otree_node *nd = &t->node[k];
        if (nd->kids)
            for (uint32_t c = 0; c < 8; ++c) nd->sub = box_union(nd->sub, &t->node[nd->kids + c].sub);
        live += nd->sub.lo.x <= nd->sub.hi.x;
    }
    t->live_nodes = live;
    t->n = n;
}

// ---------------------------------------------------------------------------------------------
// Pair search.

typedef struct query {
    const cd_otree *t;
    cd_pair_sink *sink;
    uint64_t bv;
    uint32_t *list;  ///< when set, traversals collect the nodes to test instead of testing them
    uint32_t list_n, list_cap;
    int overflow;  ///< the list filled up: the caller falls back to one traversal per object
} query;

// Every pair of objects stored at node k whose first item (in the run's x order) is one of items
// [i0, i1), by a sweep along x over the sorted run.
static void sweep_node(query *q, uint32_t k, uint32_t i0, uint32_t i1)
{
    const cd_otree *t = q->t;
    const cd_aabb *box = t->item_box;
    uint32_t end = t->node[k].first + t->node[k].count;
    for (uint32_t i = i0; i < i1; ++i) {
        const cd_aabb a = box[i];
        for (uint32_t j = i + 1; j < end && box[j].lo.x <= a.hi.x; ++j) {
            q->bv++;
            // x overlaps: lo_i <= lo_j <= hi_i, and hi_j >= lo_j >= lo_i.
            if (a.lo.y <= box[j].hi.y && box[j].lo.y <= a.hi.y && a.lo.z <= box[j].hi.z && box[j].lo.z <= a.hi.z)
                cd_sink_push(q->sink, t->item_obj[i], t->item_obj[j]);
        }
    }
}

// Object o (box b) against every object stored at node k.
static void test_node(query *q, uint32_t k, const cd_aabb *b, uint32_t o)
{
    const cd_otree *t = q->t;
    const cd_otree_node *nd = &t->node[k];
    uint32_t j = nd->first, end = nd->first + nd->count;
    if (nd->count > 8) {
        // Objects with lo.x < b.lo.x − ext end before b starts; the bound is rounded down so the
        // window is never narrower than the exact one.
        double lo = next_down(next_down(b->lo.x - (double)nd->ext_x));
        uint32_t hi = end;
        while (j < hi) {
            uint32_t m = j + (hi - j) / 2;
            if (t->item_box[m].lo.x < lo)
                j = m + 1;
            else
                hi = m;
        }
    }
    for (; j < end && t->item_box[j].lo.x <= b->hi.x; ++j) {
        q->bv++;
        if (cd_aabb_aabb_overlap(b, &t->item_box[j])) cd_sink_push(q->sink, o, t->item_obj[j]);
    }
}

enum { STACK = 8 * (CD_OTREE_MAX_DEPTH + 2), LIST = 64 };

// A traversal reached node m whose objects b may meet: test them, or note m for the whole node.
static inline void visit_node(query *q, uint32_t m, const cd_aabb *b, uint32_t o)
{
    if (!q->list)
        test_node(q, m, b, o);
    else if (q->list_n < q->list_cap)
        q->list[q->list_n++] = m;
    else
        q->overflow = 1;
}

// Push the children of strict-tree node m that b can reach. Objects in a low child end strictly
// below the split plane (octree.c), so b meets them only if b.lo < plane; high children likewise.
// Six comparisons replace up to eight box tests.
static inline void push_kids(const cd_otree *t, uint32_t m, const cd_aabb *b, uint32_t *stack, uint32_t *top)
{
    const cd_vec3 c = t->cell[m].centre;
    uint32_t lo = (uint32_t)(b->lo.x < c.x) | (uint32_t)(b->lo.y < c.y) << 1 | (uint32_t)(b->lo.z < c.z) << 2;
    uint32_t hi = (uint32_t)(b->hi.x > c.x) | (uint32_t)(b->hi.y > c.y) << 1 | (uint32_t)(b->hi.z > c.z) << 2;
    uint32_t kids = t->node[m].kids;
    for (uint32_t k = 0; k < 8; ++k) {
        // Octant k takes the high side of axis a when bit a is set.
        uint32_t need_hi = k, need_lo = ~k & 7u;
        if ((need_hi & ~hi) == 0 && (need_lo & ~lo) == 0 && t->node[kids + k].sub.lo.x <= t->node[kids + k].sub.hi.x)
            stack[(*top)++] = kids + k;
    }
}

// Object o at node n against every object in n's proper subtree (the only partners a strict tree
// allows besides n itself: sibling subtrees are strictly separated by the split planes).
static void query_subtree(query *q, uint32_t n, const cd_aabb *b, uint32_t o)
{
    const cd_otree_node *node = q->t->node;
    uint32_t stack[STACK];
    uint32_t top = 0;
    push_kids(q->t, n, b, stack, &top);
    while (top && !q->overflow) {
        uint32_t m = stack[--top];
        q->bv++;
        if (!cd_aabb_aabb_overlap(b, &node[m].sub)) continue;
        if (node[m].count) visit_node(q, m, b, o);
        if (node[m].kids) push_kids(q->t, m, b, stack, &top);
    }
}

enum rel { ANCESTOR, SELF, DESCENDANT, COUSIN };

typedef struct visit {
    uint32_t node, level, rel;
} visit;

// Loose tree: object o at node n against everything it may meet. Each pair is reported once:
// same node by the sweep, ancestor–descendant by the ancestor's object, and two unrelated
// nodes by the object at the lower-indexed node.
static void query_loose(query *q, uint32_t n, const uint32_t *path, const cd_aabb *b, uint32_t o)
{
    const cd_otree_node *node = q->t->node;
    visit stack[STACK];
    uint32_t top = 0;
    stack[top++] = (visit){0, 0, n == 0 ? SELF : ANCESTOR};
    while (top && !q->overflow) {
        uint32_t m = stack[top - 1].node, lvl = stack[top - 1].level, rel = stack[top - 1].rel;
        --top;
        if (rel == ANCESTOR) {
            for (uint32_t c = 0; c < 8; ++c) {
                uint32_t k = node[m].kids + c;
                uint32_t r = k == path[lvl + 1] ? (k == n ? SELF : ANCESTOR) : COUSIN;
                stack[top++] = (visit){k, lvl + 1, r};
            }
            continue;
        }
        if (rel != SELF) {
            q->bv++;
            if (!cd_aabb_aabb_overlap(b, &node[m].sub)) continue;
            if (node[m].count && (rel == DESCENDANT || m > n)) visit_node(q, m, b, o);
        }
        if (node[m].kids) {
            uint32_t r = rel == SELF ? DESCENDANT : rel;
            for (uint32_t c = 0; c < 8; ++c) stack[top++] = (visit){node[m].kids + c, lvl + 1, r};
        }
    }
}

// Loose tree: the partners of node k's objects [i0, i1) (items of k's run): the same traversal as
// one object's, run once with the union of their boxes to collect the nodes, then each object
// tests only those nodes whose bounds it meets. Every node an object's own traversal would test has
// bounds meeting the object, hence the union, so the collected list holds it: the pair set is the
// same, the tree is walked once per node (per part of the node's run in a threaded frame). A list
// that overflows (large union: upper levels, big objects) falls back to per-object walks.
static void query_node(query *q, uint32_t k, const uint32_t *path, uint32_t i0, uint32_t end)
{
    const cd_otree *t = q->t;
    if (end - i0 >= 2) {
        cd_aabb u = t->item_box[i0];
        for (uint32_t j = i0 + 1; j < end; ++j) u = box_union(u, &t->item_box[j]);
        uint32_t list[LIST];
        q->list = list;
        q->list_n = 0;
        q->list_cap = LIST;
        q->overflow = 0;
        query_loose(q, k, path, &u, UINT32_MAX);
        q->list = NULL;
        if (!q->overflow) {
            for (uint32_t j = i0; j < end; ++j)
                for (uint32_t i = 0; i < q->list_n; ++i) {
                    q->bv++;
                    if (cd_aabb_aabb_overlap(&t->item_box[j], &t->node[list[i]].sub))
                        test_node(q, list[i], &t->item_box[j], t->item_obj[j]);
                }
            return;
        }
        q->overflow = 0;
    }
    for (uint32_t j = i0; j < end; ++j) query_loose(q, k, path, &t->item_box[j], t->item_obj[j]);
}

// The pairs whose reporting object is one of items [i0, i1) (the item arrays run node by node):
// each node's share of the range swept against its run, then queried against the nodes it may
// meet. Every pair has one reporting item (the first of the two in a shared run; the ancestor's,
// or the lower node's in a loose tree), so disjoint ranges report disjoint pair sets.
static void pairs_of_items(const cd_otree *t, uint32_t i0, uint32_t i1, cd_pair_sink *sink, cd_broad_stats *st)
{
    query q = {t, sink, 0, NULL, 0, 0, 0};
    uint32_t path[CD_OTREE_MAX_DEPTH + 2];
    // The first node whose run ends after i0 (the runs' ends do not decrease with the node index).
    uint32_t k0 = 0, hi = (uint32_t)t->nodes;
    while (k0 < hi) {
        uint32_t m = k0 + (hi - k0) / 2;
        if (t->node[m].first + t->node[m].count <= i0)
            k0 = m + 1;
        else
            hi = m;
    }
    for (uint32_t k = k0; k < t->nodes && t->node[k].first < i1; ++k) {
        const cd_otree_node *nd = &t->node[k];
        if (nd->count == 0) continue;
        uint32_t j0 = nd->first > i0 ? nd->first : i0, end = nd->first + nd->count, j1 = end < i1 ? end : i1;
        sweep_node(&q, k, j0, j1);
        if (t->loose) {
            uint32_t lvl = t->cell[k].level;
            for (uint32_t a = k, l = lvl;; a = t->cell[a].parent, --l) {
                path[l] = a;
                if (l == 0) break;
            }
            query_node(&q, k, path, j0, j1);
        } else if (nd->kids) {
            // Strict tree: each object's own walk is already narrow (push_kids), and collecting
            // measured slower, so walk per object.
            for (uint32_t j = j0; j < j1; ++j) query_subtree(&q, k, &t->item_box[j], t->item_obj[j]);
        }
    }
    st->bv_tests += q.bv;
}

void cd_otree_pairs(const cd_otree *t, cd_pair_sink *sink, cd_broad_stats *st) { pairs_of_items(t, 0, t->n, sink, st); }

void cd_otree_shape_stats(const cd_otree *t, cd_broad_stats *st)
{
    st->nodes = t->nodes;
    st->bytes = t->node_cap * (sizeof *t->node + sizeof *t->cell) +
                t->obj_cap * (sizeof *t->obj_node + sizeof *t->item_obj + sizeof *t->item_box + sizeof *t->keys) +
                t->run_cap * sizeof *t->run + t->path_cap * sizeof *t->path;
    for (size_t k = 0; k < t->nodes; ++k) {
        uint32_t c = t->node[k].count;
        if (!c) continue;
        uint32_t lvl = t->cell[k].level;
        st->per_level[lvl < CD_BROAD_MAX_LEVELS ? lvl : CD_BROAD_MAX_LEVELS - 1] += c;
        if (c > st->max_per_node) st->max_per_node = c;
        if (lvl > st->depth_reached) st->depth_reached = lvl;
    }
}

void cd_otree_method_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    (void)s;
    cd_otree_pairs((const cd_otree *)self, sink, st);
}

void cd_otree_method_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                     cd_broad_stats *st)
{
    (void)s;
    const cd_otree *t = self;
    pairs_of_items(t, (uint32_t)((uint64_t)t->n * part / parts), (uint32_t)((uint64_t)t->n * (part + 1) / parts), sink,
                   st);
}

void cd_otree_method_remap(void *self, const cd_scene *s)
{
    cd_otree *t = self;
    if (t->n != s->count || t->n == 0) return;
    uint32_t *node = cd_alloc(t->n * sizeof *node);  // once per reorder, not per frame
    cd_scene_move_slot_values(s, t->obj_node, node);
    memcpy(t->obj_node, node, t->n * sizeof *node);
    cd_free(node);
    cd_scene_renumber_slots(s, t->item_obj, t->n, UINT32_MAX);
}

void cd_otree_method_shape_stats(void *self, cd_broad_stats *st) { cd_otree_shape_stats((const cd_otree *)self, st); }

void cd_otree_method_cells(void *self, const cd_scene *s, cd_broad_cell_fn each, void *ctx)
{
    (void)s;
    const cd_otree *t = self;
    for (size_t k = 0; k < t->nodes; ++k) {
        if (!(t->node[k].sub.lo.x <= t->node[k].sub.hi.x)) continue;  // empty subtree
        const cd_otree_cell *c = &t->cell[k];
        cd_aabb b = c->bounds;
        double lo[3] = {b.lo.x, b.lo.y, b.lo.z}, hi[3] = {b.hi.x, b.hi.y, b.hi.z};
        double mid[3] = {c->centre.x, c->centre.y, c->centre.z};
        for (int a = 0; a < 3; ++a) {
            if (!isfinite(lo[a])) lo[a] = mid[a] - c->half;
            if (!isfinite(hi[a])) hi[a] = mid[a] + c->half;
        }
        cd_aabb box = {cd_v3(lo[0], lo[1], lo[2]), cd_v3(hi[0], hi[1], hi[2])};
        each(ctx, &box, (int)c->level);
    }
}

void cd_otree_method_destroy(void *self)
{
    cd_otree_free((cd_otree *)self);
    cd_free(self);
}
