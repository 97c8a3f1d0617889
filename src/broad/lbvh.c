// SPDX-License-Identifier: MIT
// Linear BVH as Karras builds it ("Maximizing parallelism in the construction of BVHs, octrees,
// and k-d trees", HPG 2012): objects sorted by the 30-bit Morton code of their box centre (a
// parallel LSD radix sort), cut into clusters (the runs of at most LBVH_B objects of each Morton
// cell, cluster_starts), a binary radix tree over the clusters' codes in which every internal node
// is built on its own from the codes alone (karras_node), then the boxes by a bottom-up refit in
// which the second of a node's two children to arrive writes its union (refit_from). Every phase
// is a loop whose iterations do not depend on each other, run on every thread in contiguous
// slices; the result is the same for every thread count.
//   lbvh        sorts and builds every frame (a fresh tree for the moved scene);
//   lbvh_refit  keeps the first frame's order, clusters and tree and only refits the boxes (no
//               sort, no build; the tree loosens as the objects drift).
//
// Candidates: the tree's self-collision by simultaneous descent, self(k) = self(left) +
// self(right) + pair(left, right), where pair(a, b) stops when the boxes of a and b miss and
// otherwise descends the one with the larger box; at two leaves, the objects of each cluster that
// reach the other's box, each against those of the other, a cluster's lanes at once (AVX-512, AVX2
// or SSE2); at self(leaf), the cluster's own pairs. The top of the tree is cut into tasks (self of
// a subtree, or a pair of subtrees) in Morton order, and the tasks into CD_BROAD_PARTS parts of
// about equal weight, so the parts run on any threads and their pairs come out in the same order
// for every thread count.
//
// Why clusters: at 100 000 cubes of the standard scene a tree with one object per leaf walked
// 3.3 million boxes a frame, and runs of 8 consecutive codes met 12.6 other runs each; runs of a
// Morton cell are compact boxes of space, and 32 boxes per leaf, compared 16 or 32 at a time, cost
// less than the descent they save (1, 4, 8, 16, 24, 32, 64 were measured; 32 and 64 were best).
//
// Exactness: a cluster's box is the float min/max union of its objects' float boxes, an internal
// box the union of its children's (exact), so every ancestor's box contains each object's box.
// Two overlapping objects in one cluster are tested in self(that leaf); in two clusters, let N be
// the clusters' lowest common ancestor: self(N) calls pair(left, right), and every pair call on
// the way down holds one ancestor of each cluster, whose boxes overlap, so it descends until it
// holds the two clusters. There each of the two objects reaches the other cluster's box, so it is
// among the rows and columns compared. The descent from pair(left, right) visits each pair of
// subtrees at most once, so no pair is reported twice.
// The Morton grid spans the world box; centres beyond the walls are clamped into it, which only
// costs tree quality, never a pair.
#include "float_bounds.h"

#include <omp.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum {
    LBVH_B = 32,  // most objects per cluster (leaf): two AVX-512 registers per coordinate
    LBVH_RADIX = 11,
    LBVH_BUCKETS = 1 << LBVH_RADIX,
    LBVH_PARALLEL_MIN = 4096,
    LBVH_STACK = 512,
    LBVH_TASKS_PER_PART = 4,  // self tasks the top of the tree is cut into, per part
    LBVH_RESORT_SHARE = 8,    // sort_from_last gives up past n / LBVH_RESORT_SHARE objects out of order
};
#define LBVH_LEAF 0x80000000u  // kid.child: a cluster rather than an internal node
#define SWAP_PTR(a, b)    \
    do {                  \
        uint32_t *t_ = a; \
        a = b;            \
        b = t_;           \
    } while (0)

// One child of a node: its box, what it is and how many clusters it holds.
typedef struct lbvh_kid {
    float lo[3], hi[3];
    uint32_t child;  // internal node index, or LBVH_LEAF | cluster
    uint32_t size;   // clusters under this child
} lbvh_kid;

// Both children in one 64-byte line: the descent reads one line per node.
typedef struct lbvh_node {
    lbvh_kid kid[2];
} lbvh_node;
_Static_assert(sizeof(lbvh_node) == 64, "a node is one cache line");

// Up to LBVH_B consecutive objects of the sorted order: their boxes as columns (lo x y z, hi x y z) for
// the lane tests, their slots, and their union. Lanes past the last object hold empty
// boxes (+inf, −inf), which overlap nothing.
typedef struct lbvh_cluster {
    float col[6][LBVH_B];
    uint32_t id[LBVH_B];
    float lo[3], hi[3];
    uint32_t pad[2];
} lbvh_cluster;

// A task of the descent: self(a) when a == b, else pair(a, b).
typedef struct lbvh_task {
    const lbvh_kid *a, *b;
} lbvh_task;

typedef struct lbvh {
    int refit_only;  // 1: keep the first order and tree, refit
    int built;       // order and tree hold a valid build for n objects
    int from_last;   // this frame's update may sort from last frame's order (sort_from_last)
    int threads;
    int simd;        // 2: AVX-512 lane tests (cd_cpu_avx512), 1: AVX2 (cd_cpu_avx2), 0: SSE2
    uint32_t n, nc;  // objects, clusters
    int pbits;       // code bits of a cell: the clusters are the cells' runs of at most LBVH_B objects
    int height;      // root's height (leaves 0)
    size_t cap, ccap, task_cap, next_cap;
    uint32_t *key, *order, *tmp_key, *tmp_id;
    uint64_t *ex, *tmp_ex;  // sort_from_last: the objects out of last frame's order, (code, slot)
    uint32_t *hist;         // per thread: radix buckets
    size_t hist_cap;
    uint32_t *ckey;                                  // per cluster: its first object's code
    uint32_t *cfirst;                                // per cluster: its first sorted position; cfirst[nc] = n
    uint32_t tstart[CD_PART_QUEUE_MAX_THREADS + 1];  // per thread: its first cluster
    uint32_t *up_leaf;                               // per cluster: parent << 1 | side
    uint32_t *up_node;                               // per internal node: parent << 1 | side (root: unused)
    uint32_t *arrived;                               // per internal node: children refitted so far this frame
    uint8_t *h;                                      // per internal node: height
    lbvh_cluster *cl;
    lbvh_node *node;  // nc − 1 internal nodes, node 0 the root (64-byte aligned)
    void *node_mem;
    lbvh_kid root;  // the root as a kid (internal node 0, or cluster 0 when nc == 1)
    lbvh_task *task, *next;
    uint32_t ntask;
    uint32_t part_task[CD_BROAD_PARTS + 1];  // part k runs tasks [part_task[k], part_task[k + 1])
    uint32_t spread[1024];                   // spread3 of every 10-bit value: three loads per code, not 24 operations
} lbvh;

static inline uint32_t spread3(uint32_t v);

static void *lbvh_create_mode(int threads, int refit_only)
{
    lbvh *t = cd_alloc_zero(1, sizeof *t);
    t->refit_only = refit_only;
    t->threads = threads > 1 ? threads : 1;
    if (t->threads > CD_PART_QUEUE_MAX_THREADS) t->threads = CD_PART_QUEUE_MAX_THREADS;
    for (uint32_t v = 0; v < 1024; ++v) t->spread[v] = spread3(v);
    t->simd = !CD_X86_SIMD ? 0 : cd_cpu_avx512() ? 2 : cd_cpu_avx2() ? 1 : 0;
    return t;
}

static void *lbvh_create_rebuild(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    (void)p;
    return lbvh_create_mode(threads, 0);
}

static void *lbvh_create_refit(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    (void)p;
    return lbvh_create_mode(threads, 1);
}

static void lbvh_free_arrays(lbvh *t)
{
    uint32_t *u[] = {t->key, t->order, t->tmp_key, t->tmp_id, t->ckey, t->cfirst, t->up_leaf, t->up_node, t->arrived};
    for (size_t k = 0; k < sizeof u / sizeof u[0]; ++k) cd_free(u[k]);
    cd_free(t->ex);
    cd_free(t->tmp_ex);
    cd_free(t->h);
    cd_free(t->cl);
    cd_free(t->node_mem);
}

static void lbvh_destroy(void *self)
{
    lbvh *t = self;
    lbvh_free_arrays(t);
    cd_free(t->hist);
    cd_free(t->task);
    cd_free(t->next);
    cd_free(t);
}

static int cell_bits(uint32_t n);

static void lbvh_reserve(lbvh *t, uint32_t n)
{
    if (n < t->cap) return;
    lbvh_free_arrays(t);
    size_t c = (size_t)n + 1, cc = c / LBVH_B + ((size_t)1 << cell_bits(n)) + 2;  // clusters ≤ n / B + cells
    t->key = cd_alloc(c * sizeof *t->key);
    t->order = cd_alloc(c * sizeof *t->order);
    t->tmp_key = cd_alloc(c * sizeof *t->tmp_key);
    t->tmp_id = cd_alloc(c * sizeof *t->tmp_id);
    t->ex = cd_alloc((c / LBVH_RESORT_SHARE + 1) * sizeof *t->ex);
    t->tmp_ex = cd_alloc((c / LBVH_RESORT_SHARE + 1) * sizeof *t->tmp_ex);
    t->ckey = cd_alloc(cc * sizeof *t->ckey);
    t->cfirst = cd_alloc(cc * sizeof *t->cfirst);
    t->up_leaf = cd_alloc(cc * sizeof *t->up_leaf);
    t->up_node = cd_alloc(cc * sizeof *t->up_node);
    t->arrived = cd_alloc(cc * sizeof *t->arrived);
    t->h = cd_alloc(cc * sizeof *t->h);
    t->cl = cd_alloc(cc * sizeof *t->cl);
    t->node_mem = cd_alloc(cc * sizeof(lbvh_node) + 64);
    t->node = (lbvh_node *)(((uintptr_t)t->node_mem + 63) & ~(uintptr_t)63);
    t->cap = c;
    t->ccap = cc;
}

// ---------------------------------------------------------------------------------------------
// Morton codes and the sort

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

// The cell of a centre coordinate on a 1024-cell axis from lo + hi (twice the centre), clamped
// (NaN goes to 0).
static inline uint32_t quantise(float c2, float scale)
{
    float q = c2 * scale;
    q = q > 0.0f ? q : 0.0f;
    q = q < 1023.0f ? q : 1023.0f;
    return (uint32_t)q;
}

#if CD_X86_SIMD
#include "cd_transpose.h"

// spread3 on eight lanes: the bits of v (< 1024) moved apart in four steps of shifts and masks.
__attribute__((always_inline, target("avx2"))) static inline __m256i spread3_avx2(__m256i v)
{
    v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 16)), _mm256_set1_epi32(0x030000FF));
    v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 8)), _mm256_set1_epi32(0x0300F00F));
    v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 4)), _mm256_set1_epi32(0x030C30C3));
    return _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 2)), _mm256_set1_epi32(0x09249249));
}

// quantise on eight lanes: max(q, 0) gives its second operand, 0, for a NaN as quantise does.
__attribute__((always_inline, target("avx2"))) static inline __m256i quantise_avx2(__m256 c2, __m256 scale)
{
    __m256 q = _mm256_max_ps(_mm256_mul_ps(c2, scale), _mm256_setzero_ps());
    return _mm256_cvttps_epi32(_mm256_min_ps(q, _mm256_set1_ps(1023.0f)));
}

// Codes of boxes [i0, i1) eight at a time where the eighth box has a successor (each box is read
// as eight floats, its six and two of the next, then transposed), the same codes as morton_keys'
// loop: the same float sums, products and clamps, and spread3 computed instead of looked up.
// Returns where it stopped.
__attribute__((target("avx2"))) static uint32_t morton_keys_avx2(uint32_t *key, const cd_aabbf *box, uint32_t i0,
                                                                 uint32_t i1, uint32_t n, float scale)
{
    __m256 sc = _mm256_set1_ps(scale);
    uint32_t i = i0;
    for (; i + 8 < n && i + 8 <= i1; i += 8) {
        __m256 r[8], f[8];
        for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(box[i + k].lo);
        cd_transpose8(r, f);
        __m256i x = spread3_avx2(quantise_avx2(_mm256_add_ps(f[0], f[3]), sc));
        __m256i y = spread3_avx2(quantise_avx2(_mm256_add_ps(f[1], f[4]), sc));
        __m256i z = spread3_avx2(quantise_avx2(_mm256_add_ps(f[2], f[5]), sc));
        __m256i c = _mm256_or_si256(x, _mm256_or_si256(_mm256_slli_epi32(y, 1), _mm256_slli_epi32(z, 2)));
        _mm256_storeu_si256((__m256i *)(key + i), c);
    }
    return i;
}
#endif

static void morton_keys(lbvh *t, const cd_scene *s, uint32_t i0, uint32_t i1)
{
    float scale = s->world > 0.0 ? (float)(512.0 / s->world) : 1.0f;  // applied to lo + hi
#if CD_X86_SIMD
    if (t->simd) i0 = morton_keys_avx2(t->key, s->box, i0, i1, s->count, scale);
#endif
    for (uint32_t i = i0; i < i1; ++i) {
        const cd_aabbf *b = &s->box[i];
        uint32_t x = quantise(b->lo[0] + b->hi[0], scale);
        uint32_t y = quantise(b->lo[1] + b->hi[1], scale);
        uint32_t z = quantise(b->lo[2] + b->hi[2], scale);
        t->key[i] = t->spread[x] | t->spread[y] << 1 | t->spread[z] << 2;
    }
}

// The objects by (code, slot), the order the stable radix sort of the slots gives, from last
// frame's sorted order (one thread; key holds the codes by slot, order last frame's slots in their
// order, renumbered by lbvh_remap after a reorder). Between two frames most objects keep their
// place: at 100 000 cubes of the standard scene about 4 % fall out of last frame's order. One pass
// along it keeps a subsequence that is sorted by construction (each object kept is above the last
// kept one and not above its successor in last frame's order, which sends an object that jumped
// ahead out rather than everything behind it) and sets the others aside; those are sorted by
// (code, slot) on their own (an LSD radix sort of 8-bit digits), and the two sorted lists are
// merged from the back into key and order. (code, slot) is unique, so any correct sort gives the
// radix sort's result. Returns 0, with order overwritten, when more than n / LBVH_RESORT_SHARE
// fall out (an untouched key): the radix sort runs then.
static int sort_from_last(lbvh *t)
{
    uint32_t n = t->n, kept = 0, out = 0, limit = n / LBVH_RESORT_SHARE;
    const uint32_t *code = t->key;
    uint32_t *order = t->order, *kept_code = t->tmp_key;
    uint64_t *ex = t->ex, last = 0;
    uint64_t next = (uint64_t)code[order[0]] << 32 | order[0];
    for (uint32_t j = 0; j < n; ++j) {
        uint64_t k = next;
        next = j + 1 < n ? (uint64_t)code[order[j + 1]] << 32 | order[j + 1] : UINT64_MAX;
        if (k < last || k > next) {  // kept ≤ j: order[j + 1] is read before any write reaches it
            if (out == limit) return 0;
            ex[out++] = k;
        } else {
            last = k;
            kept_code[kept] = (uint32_t)(k >> 32), order[kept++] = (uint32_t)k;
        }
    }
    // The set-aside keys, 8 bits a pass up to the highest bit any of them has.
    uint64_t any = 0;
    for (uint32_t k = 0; k < out; ++k) any |= ex[k];
    uint64_t *from = ex, *to = t->tmp_ex;
    for (int shift = 0; shift < 64 && any >> shift; shift += 8) {
        uint32_t count[257] = {0};
        for (uint32_t k = 0; k < out; ++k) count[(from[k] >> shift & 255) + 1]++;
        for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
        for (uint32_t k = 0; k < out; ++k) to[count[from[k] >> shift & 255]++] = from[k];
        uint64_t *x = from;
        from = to, to = x;
    }
    // Merge from the back: position w > the kept read position until the set-aside list is done.
    uint32_t *key = t->key, a = kept, b = out, w = n;
    while (b) {
        uint64_t e = from[b - 1];
        if (a && ((uint64_t)kept_code[a - 1] << 32 | order[a - 1]) > e)
            --w, --a, key[w] = kept_code[a], order[w] = order[a];
        else
            --w, --b, key[w] = (uint32_t)(e >> 32), order[w] = (uint32_t)e;
    }
    memcpy(key, kept_code, (size_t)a * sizeof *key);
    return 1;
}

// One pass of the stable LSD radix sort on thread th of nt (inside a parallel region): each thread
// counts its slice, the buckets are laid out digit by digit and, within a digit, thread by thread,
// and each thread scatters its slice in order: the serial stable sort's result.
static void radix_pass(lbvh *t, int shift, const uint32_t *key, const uint32_t *id, uint32_t *okey, uint32_t *oid,
                       int th, int nt)
{
    uint32_t n = t->n, i0 = (uint32_t)((uint64_t)n * th / nt), i1 = (uint32_t)((uint64_t)n * (th + 1) / nt);
    uint32_t *h = t->hist + (size_t)th * LBVH_BUCKETS;
    memset(h, 0, LBVH_BUCKETS * sizeof *h);
    for (uint32_t i = i0; i < i1; ++i) h[(key[i] >> shift) & (LBVH_BUCKETS - 1)]++;
#pragma omp barrier
#pragma omp single
    {
        uint32_t sum = 0;
        for (uint32_t d = 0; d < LBVH_BUCKETS; ++d)
            for (int k = 0; k < nt; ++k) {
                uint32_t c = t->hist[(size_t)k * LBVH_BUCKETS + d];
                t->hist[(size_t)k * LBVH_BUCKETS + d] = sum;
                sum += c;
            }
    }
    for (uint32_t i = i0; i < i1; ++i) {
        uint32_t at = h[(key[i] >> shift) & (LBVH_BUCKETS - 1)]++;
        okey[at] = key[i];
        oid[at] = id[i];
    }
#pragma omp barrier
}

// ---------------------------------------------------------------------------------------------
// The hierarchy (Karras 2012, section 4) over the clusters' codes

// Length of the common prefix of the codes of clusters i and j, the indices' own bits breaking ties
// between equal codes; −1 when j is outside [0, nc).
static inline int delta(const uint32_t *key, uint32_t n, uint32_t i, int64_t j)
{
    if (j < 0 || j >= (int64_t)n) return -1;
    uint32_t a = key[i], b = key[j];
    if (a != b) return __builtin_clz(a ^ b);
    return 32 + __builtin_clz(i ^ (uint32_t)j);
}

static inline void link_kid(lbvh *t, uint32_t parent, int side, uint32_t c, int leaf, uint32_t size)
{
    lbvh_kid *k = &t->node[parent].kid[side];
    k->size = size;
    if (leaf) {
        k->child = LBVH_LEAF | c;
        t->up_leaf[c] = parent << 1 | (uint32_t)side;
    } else {
        k->child = c;
        t->up_node[c] = parent << 1 | (uint32_t)side;
    }
}

// Internal node i (of nc − 1): its range of clusters and its split, from the codes alone. The
// range extends from i in direction d (towards the neighbour sharing the longer prefix) as far as
// the prefix stays longer than with the other neighbour; the split is the last cluster that shares
// more than the range's common prefix with i. Children: clusters split and split + 1, each a leaf
// when it ends the range, else the internal node of that index.
static void karras_node(lbvh *t, uint32_t i)
{
    const uint32_t *key = t->ckey;
    uint32_t n = t->nc;
    int d = delta(key, n, i, (int64_t)i + 1) > delta(key, n, i, (int64_t)i - 1) ? 1 : -1;
    int dmin = delta(key, n, i, (int64_t)i - d);
    uint32_t lmax = 2;
    while (delta(key, n, i, (int64_t)i + (int64_t)lmax * d) > dmin) lmax *= 2;
    uint32_t l = 0;
    for (uint32_t step = lmax / 2; step >= 1; step /= 2)
        if (delta(key, n, i, (int64_t)i + (int64_t)(l + step) * d) > dmin) l += step;
    int64_t j = (int64_t)i + (int64_t)l * d;
    int dnode = delta(key, n, i, j);
    uint32_t s = 0, div = 2, step;
    do {
        step = (l + div - 1) / div;
        if (delta(key, n, i, (int64_t)i + (int64_t)(s + step) * d) > dnode) s += step;
        div *= 2;
    } while (step > 1);
    uint32_t split = (uint32_t)((int64_t)i + (int64_t)s * d + (d < 0 ? -1 : 0));
    uint32_t first = d > 0 ? i : (uint32_t)j, last = d > 0 ? (uint32_t)j : i;
    link_kid(t, i, 0, split, first == split, split - first + 1);
    link_kid(t, i, 1, split + 1, last == split + 1, last - split);
    t->arrived[i] = 0;
}

// ---------------------------------------------------------------------------------------------
// Clusters and the bottom-up refit

// Cluster c from the sorted order: columns, slots, union.
static void fill_cluster(lbvh *t, const cd_scene *s, uint32_t c)
{
    lbvh_cluster *q = &t->cl[c];
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint32_t first = t->cfirst[c], count = t->cfirst[c + 1] - first;
    // The next cluster's boxes, fetched while this one is filled: the boxes are gathered in Morton
    // order, which the scene's storage follows only cell by cell (fill_cluster waited on them).
    for (uint32_t k = t->cfirst[c + 1], end = c + 2 <= t->nc ? t->cfirst[c + 2] : k; k < end; ++k)
        __builtin_prefetch(&s->box[t->order[k]]);
    for (uint32_t l = 0; l < LBVH_B; ++l) {
        uint32_t k = first + l;
        if (l < count) {
            uint32_t id = t->order[k];
            const cd_aabbf *b = &s->box[id];
            q->id[l] = id;
            for (int a = 0; a < 3; ++a) {
                q->col[a][l] = b->lo[a];
                q->col[3 + a][l] = b->hi[a];
                lo[a] = b->lo[a] < lo[a] ? b->lo[a] : lo[a];
                hi[a] = b->hi[a] > hi[a] ? b->hi[a] : hi[a];
            }
        } else {
            q->id[l] = UINT32_MAX;
            for (int a = 0; a < 3; ++a) q->col[a][l] = INFINITY, q->col[3 + a][l] = -INFINITY;
        }
    }
    for (int a = 0; a < 3; ++a) q->lo[a] = lo[a], q->hi[a] = hi[a];
}

static inline void kid_box(lbvh_kid *k, const float lo[3], const float hi[3])
{
    for (int a = 0; a < 3; ++a) k->lo[a] = lo[a], k->hi[a] = hi[a];
}

// Cluster c writes its box into its parent and climbs: the first child to arrive at a node stops
// there; the second (which sees the other's box, written before the other's increment:
// acquire/release) writes the node's union into the node's parent and climbs on. Every node is
// written once, and float min/max is exact, so the tree is the same for any thread count and
// order. shared: several threads refit and the counts are atomic; one thread counts plainly (a
// locked add was a fifth of the one-thread update).
static void refit_from(lbvh *t, uint32_t c, int shared)
{
    uint32_t up = t->up_leaf[c];
    kid_box(&t->node[up >> 1].kid[up & 1], t->cl[c].lo, t->cl[c].hi);
    for (;;) {
        uint32_t p = up >> 1;
        if (shared ? __atomic_fetch_add(&t->arrived[p], 1, __ATOMIC_ACQ_REL) == 0 : t->arrived[p]++ == 0) return;
        const lbvh_node *nd = &t->node[p];
        float lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = nd->kid[0].lo[a] < nd->kid[1].lo[a] ? nd->kid[0].lo[a] : nd->kid[1].lo[a];
            hi[a] = nd->kid[0].hi[a] > nd->kid[1].hi[a] ? nd->kid[0].hi[a] : nd->kid[1].hi[a];
        }
        int h0 = nd->kid[0].child & LBVH_LEAF ? 0 : t->h[nd->kid[0].child];
        int h1 = nd->kid[1].child & LBVH_LEAF ? 0 : t->h[nd->kid[1].child];
        t->h[p] = (uint8_t)(1 + (h0 > h1 ? h0 : h1));
        if (p == 0) return;
        up = t->up_node[p];
        kid_box(&t->node[up >> 1].kid[up & 1], lo, hi);
    }
}

// Clusters: the cells of the code's top pbits bits (cubes when pbits is a multiple of 3), each cut
// into runs of at most LBVH_B objects. A cell is a compact box of space, so a cluster's box is about
// its cell (a run of LBVH_B codes may straddle the boundary of a large cell and span far more).
// Thread th's slice of positions holds the starts it counts (pass 0) or writes (pass 1): a
// position starts a cluster when it starts its cell or lies a multiple of LBVH_B past the start.
static uint32_t cluster_starts(lbvh *t, uint32_t i0, uint32_t i1, uint32_t *out)
{
    if (i0 >= i1) return 0;
    int shift = 30 - t->pbits;
    const uint32_t *key = t->key;
    uint32_t cell = key[i0] >> shift, lo = 0, hi = i0;  // first position of i0's cell
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key[mid] >> shift < cell)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t cs = lo, m = 0;
    for (uint32_t i = i0; i < i1; ++i) {
        uint32_t c = key[i] >> shift;
        if (c != cell) cell = c, cs = i;
        if ((i - cs) % LBVH_B == 0) {
            if (out) out[m] = i;
            ++m;
        }
    }
    return m;
}

// Cell bits for n objects: the finest multiple of 3 whose cells hold LBVH_B / 2 objects or more on
// average, so the cells number at most 2n / LBVH_B.
static int cell_bits(uint32_t n)
{
    int bits = 0;
    while (bits + 3 <= 30 && ((uint64_t)LBVH_B / 2) << (bits + 3) <= n) bits += 3;
    return bits;
}

// Every phase of the frame's update on thread th of nt, on slices of objects, clusters or nodes.
static void update_on(lbvh *t, const cd_scene *s, int build, int th, int nt)
{
    uint32_t n = t->n, nc = t->nc;
    uint32_t i0 = (uint32_t)((uint64_t)n * th / nt), i1 = (uint32_t)((uint64_t)n * (th + 1) / nt);
    if (build) {
        morton_keys(t, s, i0, i1);
        if (!(nt == 1 && t->from_last && sort_from_last(t))) {
            for (uint32_t i = i0; i < i1; ++i) t->order[i] = i;
#pragma omp barrier
            // 30-bit codes: three 11-bit passes, ending in tmp_*, then swapped back.
            radix_pass(t, 0, t->key, t->order, t->tmp_key, t->tmp_id, th, nt);
            radix_pass(t, LBVH_RADIX, t->tmp_key, t->tmp_id, t->key, t->order, th, nt);
            radix_pass(t, 2 * LBVH_RADIX, t->key, t->order, t->tmp_key, t->tmp_id, th, nt);
#pragma omp single
            {
                SWAP_PTR(t->key, t->tmp_key);
                SWAP_PTR(t->order, t->tmp_id);
            }
        }
        // Each thread's clusters counted, then written after those of the threads before it (one
        // thread writes them as it counts).
        t->tstart[th + 1] = cluster_starts(t, i0, i1, nt == 1 ? t->cfirst : NULL);
#pragma omp barrier
#pragma omp single
        {
            t->tstart[0] = 0;
            for (int k = 0; k < nt; ++k) t->tstart[k + 1] += t->tstart[k];
            t->nc = t->tstart[nt];
            t->cfirst[t->nc] = n;
        }
        if (nt > 1) cluster_starts(t, i0, i1, t->cfirst + t->tstart[th]);
        nc = t->nc;
#pragma omp barrier
    }
    uint32_t c0 = (uint32_t)((uint64_t)nc * th / nt), c1 = (uint32_t)((uint64_t)nc * (th + 1) / nt);
    uint32_t j0 = (uint32_t)((uint64_t)(nc - 1) * th / nt), j1 = (uint32_t)((uint64_t)(nc - 1) * (th + 1) / nt);
    if (build) {
        for (uint32_t c = c0; c < c1; ++c) t->ckey[c] = t->key[t->cfirst[c]];
#pragma omp barrier
        for (uint32_t i = j0; i < j1; ++i) karras_node(t, i);
    } else {
        for (uint32_t i = j0; i < j1; ++i) t->arrived[i] = 0;
    }
    for (uint32_t c = c0; c < c1; ++c) fill_cluster(t, s, c);
#pragma omp barrier
    if (nc > 1)
        for (uint32_t c = c0; c < c1; ++c) refit_from(t, c, nt > 1);
}

// ---------------------------------------------------------------------------------------------
// Tasks: the top of self(root) cut into pieces in Morton order, then into parts.

static void cut_tasks(lbvh *t)
{
    uint32_t want = CD_BROAD_PARTS * LBVH_TASKS_PER_PART, limit = t->nc / want + 1;
    t->ntask = 0;
    t->task[t->ntask++] = (lbvh_task){&t->root, &t->root};
    for (int more = 1; more;) {
        more = 0;
        uint32_t m = 0;
        if (3 * (size_t)t->ntask > t->next_cap) {
            size_t c = 3 * (size_t)t->ntask;
            lbvh_task *x = cd_alloc(c * sizeof *x);
            cd_free(t->next);
            t->next = x;
            t->next_cap = c;
        }
        for (uint32_t k = 0; k < t->ntask; ++k) {
            lbvh_task q = t->task[k];
            if (q.a == q.b && !(q.a->child & LBVH_LEAF) && q.a->size > limit) {
                const lbvh_node *nd = &t->node[q.a->child];
                t->next[m++] = (lbvh_task){&nd->kid[0], &nd->kid[0]};
                t->next[m++] = (lbvh_task){&nd->kid[0], &nd->kid[1]};
                t->next[m++] = (lbvh_task){&nd->kid[1], &nd->kid[1]};
                more = 1;
            } else {
                t->next[m++] = q;
            }
        }
        lbvh_task *x = t->task;
        t->task = t->next;
        t->next = x;
        size_t c = t->task_cap;
        t->task_cap = t->next_cap;
        t->next_cap = c;
        t->ntask = m;
    }
    // Parts of about equal weight: a self task weighs its clusters, a pair task a quarter of them
    // (its descent works only near the plane between the two).
    uint64_t total = 0;
    for (uint32_t k = 0; k < t->ntask; ++k) {
        const lbvh_task *q = &t->task[k];
        total += q->a == q->b ? 4u * q->a->size : q->a->size + q->b->size;
    }
    uint64_t sum = 0;
    uint32_t p = 0;
    t->part_task[0] = 0;
    for (uint32_t k = 0; k < t->ntask; ++k) {
        const lbvh_task *q = &t->task[k];
        sum += q->a == q->b ? 4u * q->a->size : q->a->size + q->b->size;
        while (p + 1 < CD_BROAD_PARTS && sum * CD_BROAD_PARTS >= total * (p + 1)) t->part_task[++p] = k + 1;
    }
    while (p < CD_BROAD_PARTS) t->part_task[++p] = t->ntask;
}

static void lbvh_update(void *self, const cd_scene *s)
{
    lbvh *t = self;
    uint32_t n = s->count;
    if (n != t->n) t->built = 0;
    t->n = n;
    t->height = 0;
    t->ntask = 0;
    memset(t->part_task, 0, sizeof t->part_task);
    if (n == 0) {
        t->built = 0;
        t->nc = 0;
        return;
    }
    lbvh_reserve(t, n);
    int build = !t->refit_only || !t->built;
    if (build) t->pbits = cell_bits(n);
    int threads = t->threads > 1 && n >= LBVH_PARALLEL_MIN ? t->threads : 1;
    t->from_last = t->built && threads == 1;  // order holds last frame's sorted slots
    buf_reserve((void **)&t->hist, sizeof *t->hist, &t->hist_cap, (size_t)threads * LBVH_BUCKETS);
#pragma omp parallel num_threads(threads) if (threads > 1)
    update_on(t, s, build, omp_get_thread_num(), omp_get_num_threads());
    t->built = 1;
    t->height = t->nc > 1 ? t->h[0] : 0;
    t->root = (lbvh_kid){.child = t->nc > 1 ? 0 : LBVH_LEAF, .size = t->nc};
    buf_reserve((void **)&t->task, sizeof *t->task, &t->task_cap, 1);
    cut_tasks(t);
}

// ---------------------------------------------------------------------------------------------
// The descent

static inline int kid_overlap(const lbvh_kid *a, const lbvh_kid *b)
{
    return (a->lo[0] <= b->hi[0]) & (b->lo[0] <= a->hi[0]) & (a->lo[1] <= b->hi[1]) & (b->lo[1] <= a->hi[1]) &
           (a->lo[2] <= b->hi[2]) & (b->lo[2] <= a->hi[2]);
}

// Bit l set when box (lo, hi) overlaps lane l of cluster q: three versions (AVX-512: one
// sixteen-lane compare per side and axis; AVX2: two of eight lanes; SSE2: four of four), picked at
// create by the CPU and the CDLAB_NO_AVX512 / CDLAB_NO_AVX2 switches. Each makes the same twelve
// comparisons per lane, so every version reports the same pairs in the same order.
static inline uint64_t lanes_sse2(const lbvh_cluster *q, const float lo[3], const float hi[3])
{
#ifdef __SSE2__
    uint64_t bits = 0;
    for (int part = 0; part < LBVH_B / 4; ++part) {
        __m128 m = _mm_cmple_ps(_mm_loadu_ps(&q->col[0][4 * part]), _mm_set1_ps(hi[0]));
        m = _mm_and_ps(m, _mm_cmple_ps(_mm_set1_ps(lo[0]), _mm_loadu_ps(&q->col[3][4 * part])));
        for (int a = 1; a < 3; ++a)
            m = _mm_and_ps(m, _mm_and_ps(_mm_cmple_ps(_mm_loadu_ps(&q->col[a][4 * part]), _mm_set1_ps(hi[a])),
                                         _mm_cmple_ps(_mm_set1_ps(lo[a]), _mm_loadu_ps(&q->col[3 + a][4 * part]))));
        bits |= (uint64_t)_mm_movemask_ps(m) << (4 * part);
    }
    return bits;
#else
    uint64_t bits = 0;
    for (unsigned l = 0; l < LBVH_B; ++l) {
        int o = 1;
        for (int a = 0; a < 3; ++a) o &= (q->col[a][l] <= hi[a]) & (lo[a] <= q->col[3 + a][l]);
        bits |= (uint64_t)o << l;
    }
    return bits;
#endif
}

#if CD_X86_SIMD
#include <immintrin.h>
__attribute__((target("avx2"))) static inline uint64_t lanes_avx2(const lbvh_cluster *q, const float lo[3],
                                                                  const float hi[3])
{
    uint64_t bits = 0;
    for (int part = 0; part < LBVH_B / 8; ++part) {
        __m256 m = _mm256_cmp_ps(_mm256_loadu_ps(&q->col[0][8 * part]), _mm256_set1_ps(hi[0]), _CMP_LE_OQ);
        m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_set1_ps(lo[0]), _mm256_loadu_ps(&q->col[3][8 * part]), _CMP_LE_OQ));
        for (int a = 1; a < 3; ++a) {
            m = _mm256_and_ps(m,
                              _mm256_cmp_ps(_mm256_loadu_ps(&q->col[a][8 * part]), _mm256_set1_ps(hi[a]), _CMP_LE_OQ));
            m = _mm256_and_ps(
                m, _mm256_cmp_ps(_mm256_set1_ps(lo[a]), _mm256_loadu_ps(&q->col[3 + a][8 * part]), _CMP_LE_OQ));
        }
        bits |= (uint64_t)_mm256_movemask_ps(m) << (8 * part);
    }
    return bits;
}

__attribute__((target("avx2,avx512f"))) static inline uint64_t lanes_avx512(const lbvh_cluster *q, const float lo[3],
                                                                            const float hi[3])
{
    uint64_t bits = 0;
    for (int part = 0; part < LBVH_B / 16; ++part) {
        __mmask16 m = _mm512_cmp_ps_mask(_mm512_loadu_ps(&q->col[0][16 * part]), _mm512_set1_ps(hi[0]), _CMP_LE_OQ);
        m = _mm512_mask_cmp_ps_mask(m, _mm512_set1_ps(lo[0]), _mm512_loadu_ps(&q->col[3][16 * part]), _CMP_LE_OQ);
        for (int a = 1; a < 3; ++a) {
            m = _mm512_mask_cmp_ps_mask(m, _mm512_loadu_ps(&q->col[a][16 * part]), _mm512_set1_ps(hi[a]), _CMP_LE_OQ);
            m = _mm512_mask_cmp_ps_mask(m, _mm512_set1_ps(lo[a]), _mm512_loadu_ps(&q->col[3 + a][16 * part]),
                                        _CMP_LE_OQ);
        }
        bits |= (uint64_t)m << (16 * part);
    }
    return bits;
}
#endif

// Set bits of a mask (no popcnt in the baseline build).
static inline unsigned bits_set(uint64_t x)
{
    unsigned c = 0;
    for (; x; x &= x - 1) ++c;
    return c;
}

// The sum of a box's extents: pair() descends the larger of its two subtrees.
static inline float extent_sum(const lbvh_kid *k)
{
    return (k->hi[0] - k->lo[0]) + (k->hi[1] - k->lo[1]) + (k->hi[2] - k->lo[2]);
}

// Objects of cluster a against those of cluster b (a != b), or a's own pairs (a == b). Between two
// clusters only the objects that reach the other cluster's box can meet: their lanes are found
// with one test each way, and only those rows and columns are tested. bv_tests counts the lanes
// compared, which is the same in every version.
#define CLUSTER_PAIRS(LANES)                                                        \
    const lbvh_cluster *qa = &t->cl[a], *qb = &t->cl[b];                            \
    uint64_t all = LBVH_B == 64 ? ~0ull : (1ull << (LBVH_B & 63)) - 1, rows = all,  \
             cols = all; /* empty lanes overlap nothing */                          \
    uint64_t tests = 0;                                                             \
    if (a != b) {                                                                   \
        rows = LANES(qa, qb->lo, qb->hi);                                           \
        tests += LBVH_B;                                                            \
        if (!rows) return tests;                                                    \
        cols = LANES(qb, qa->lo, qa->hi);                                           \
        tests += LBVH_B;                                                            \
    }                                                                               \
    unsigned ncols = bits_set(cols), nhit = 0;                                      \
    uint64_t hits[LBVH_B];                                                          \
    uint8_t hit_row[LBVH_B];                                                        \
    for (; rows && cols; rows &= rows - 1) {                                        \
        unsigned l = (unsigned)__builtin_ctzll(rows);                               \
        uint64_t mask = a == b ? (l == 63 ? 0 : cols & ~((2ull << l) - 1)) : cols;  \
        if (!mask) continue;                                                        \
        float lo[3] = {qa->col[0][l], qa->col[1][l], qa->col[2][l]};                \
        float hi[3] = {qa->col[3][l], qa->col[4][l], qa->col[5][l]};                \
        tests += a == b ? bits_set(mask) : ncols;                                   \
        uint64_t hit = LANES(qb, lo, hi) & mask;                                    \
        hits[nhit] = hit, hit_row[nhit] = (uint8_t)l, nhit += hit != 0;             \
    }                                                                               \
    /* The pairs after the tests: no call among them, so qb's columns stay in   */  \
    /* registers across the rows.                                                */ \
    for (unsigned k = 0; k < nhit; ++k)                                             \
        for (uint64_t hit = hits[k]; hit; hit &= hit - 1)                           \
            cd_sink_push(sink, qa->id[hit_row[k]], qb->id[__builtin_ctzll(hit)]);   \
    return tests;

// Tasks [k0, k1) of the cut, each by simultaneous descent (see the file comment).
#define RUN_TASKS(CLUSTER)                                                                       \
    uint64_t tests = 0;                                                                          \
    lbvh_task stack[LBVH_STACK];                                                                 \
    for (uint32_t k = k0; k < k1; ++k) {                                                         \
        int top = 0;                                                                             \
        stack[top++] = t->task[k];                                                               \
        while (top > 0) {                                                                        \
            lbvh_task q = stack[--top];                                                          \
            CD_ASSERT(top + 3 <= LBVH_STACK);                                                    \
            if (q.a == q.b) { /* self */                                                         \
                if (q.a->child & LBVH_LEAF) {                                                    \
                    tests += CLUSTER(t, q.a->child & ~LBVH_LEAF, q.a->child & ~LBVH_LEAF, sink); \
                    continue;                                                                    \
                }                                                                                \
                const lbvh_node *nd = &t->node[q.a->child];                                      \
                stack[top++] = (lbvh_task){&nd->kid[1], &nd->kid[1]};                            \
                stack[top++] = (lbvh_task){&nd->kid[0], &nd->kid[1]};                            \
                stack[top++] = (lbvh_task){&nd->kid[0], &nd->kid[0]};                            \
                continue;                                                                        \
            }                                                                                    \
            ++tests;                                                                             \
            if (!kid_overlap(q.a, q.b)) continue;                                                \
            int la = (q.a->child & LBVH_LEAF) != 0, lb = (q.b->child & LBVH_LEAF) != 0;          \
            if (la && lb) {                                                                      \
                tests += CLUSTER(t, q.a->child & ~LBVH_LEAF, q.b->child & ~LBVH_LEAF, sink);     \
                continue;                                                                        \
            }                                                                                    \
            if (la || (!lb && extent_sum(q.b) > extent_sum(q.a))) { /* descend b */              \
                const lbvh_node *nd = &t->node[q.b->child];                                      \
                stack[top++] = (lbvh_task){q.a, &nd->kid[1]};                                    \
                stack[top++] = (lbvh_task){q.a, &nd->kid[0]};                                    \
            } else {                                                                             \
                const lbvh_node *nd = &t->node[q.a->child];                                      \
                stack[top++] = (lbvh_task){&nd->kid[1], q.b};                                    \
                stack[top++] = (lbvh_task){&nd->kid[0], q.b};                                    \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
    return tests;

static uint64_t cluster_sse2(const lbvh *t, uint32_t a, uint32_t b, cd_pair_sink *sink) { CLUSTER_PAIRS(lanes_sse2) }
static uint64_t run_tasks_sse2(const lbvh *t, uint32_t k0, uint32_t k1, cd_pair_sink *sink) { RUN_TASKS(cluster_sse2) }
#if CD_X86_SIMD
__attribute__((target("avx2"))) static uint64_t cluster_avx2(const lbvh *t, uint32_t a, uint32_t b, cd_pair_sink *sink)
{
    CLUSTER_PAIRS(lanes_avx2)
}
__attribute__((target("avx2"))) static uint64_t run_tasks_avx2(const lbvh *t, uint32_t k0, uint32_t k1,
                                                               cd_pair_sink *sink)
{
    RUN_TASKS(cluster_avx2)
}
__attribute__((target("avx2,avx512f"))) static uint64_t cluster_avx512(const lbvh *t, uint32_t a, uint32_t b,
                                                                       cd_pair_sink *sink)
{
    CLUSTER_PAIRS(lanes_avx512)
}
__attribute__((target("avx2,avx512f"))) static uint64_t run_tasks_avx512(const lbvh *t, uint32_t k0, uint32_t k1,
                                                                         cd_pair_sink *sink)
{
    RUN_TASKS(cluster_avx512)
}
#endif

static uint64_t run_tasks(const lbvh *t, uint32_t k0, uint32_t k1, cd_pair_sink *sink)
{
#if CD_X86_SIMD
    if (t->simd == 2) return run_tasks_avx512(t, k0, k1, sink);
    if (t->simd == 1) return run_tasks_avx2(t, k0, k1, sink);
#endif
    return run_tasks_sse2(t, k0, k1, sink);
}

static void lbvh_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                 cd_broad_stats *st)
{
    (void)s;
    const lbvh *t = self;
    if (!t->built || t->ntask == 0) return;
    CD_ASSERT(parts == CD_BROAD_PARTS);
    st->bv_tests += run_tasks(t, t->part_task[part], t->part_task[part + 1], sink);
}

static void lbvh_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    (void)s;
    const lbvh *t = self;
    if (t->built) st->bv_tests += run_tasks(t, 0, t->ntask, sink);
}

static void lbvh_shape_stats(void *self, cd_broad_stats *st)
{
    lbvh *t = self;
    st->nodes = t->nc ? 2 * (uint64_t)t->nc - 1 : 0;
    st->bytes = sizeof *t + t->cap * 4 * sizeof(uint32_t) +
                t->ccap * (4 * sizeof(uint32_t) + 1 + sizeof(lbvh_cluster) + sizeof(lbvh_node)) +
                t->hist_cap * sizeof *t->hist + (t->task_cap + t->next_cap) * sizeof(lbvh_task);
    st->max_per_node = t->n ? LBVH_B : 0;  // at most
    st->depth_reached = (uint64_t)t->height;
}

const cd_broad_method cd_broad_lbvh = {
    .name = "lbvh",
    .description = "linear BVH (Karras 2012): Morton radix sort, radix tree over clusters of 8 built node by node, "
                   "bottom-up refit, self-collision by simultaneous descent; rebuilt every frame; threaded",
    .create = lbvh_create_rebuild,
    .update = lbvh_update,
    .candidates = lbvh_candidates,
    .candidates_part = lbvh_candidates_part,
    .boxes_tested = 1,
    .shape_stats = lbvh_shape_stats,
    .destroy = lbvh_destroy,
};

// The scene permuted its slots: the kept order names its cubes by their new slots (each frame's
// clusters are gathered from it).
static void lbvh_remap(void *self, const cd_scene *s)
{
    lbvh *t = self;
    if (!t->built || t->n != s->count) return;
    cd_scene_renumber_slots(s, t->order, t->n, UINT32_MAX);
}

const cd_broad_method cd_broad_lbvh_refit = {
    .name = "lbvh_refit",
    .description = "linear BVH in the first frame's Morton order and tree, boxes refitted every frame",
    .create = lbvh_create_refit,
    .update = lbvh_update,
    .candidates = lbvh_candidates,
    .candidates_part = lbvh_candidates_part,
    .remap = lbvh_remap,
    .boxes_tested = 1,
    .shape_stats = lbvh_shape_stats,
    .destroy = lbvh_destroy,
};
