// SPDX-License-Identifier: MIT
// Incremental sweep and prune (the axis-sweep family: Bullet's btAxisSweep3, the incremental SAP of
// Tracy et al. that Broadmark runs): the method keeps, from frame to frame,
//
// - on each of the three axes a sorted list of the objects' endpoints (a low and a high end per
//   object), and where each endpoint sits in it;
// - a pair set holding exactly the pairs whose boxes overlap.
//
// Each frame only the objects whose box changed are touched: each of their endpoints moves along
// its list by adjacent swaps to where its new value belongs (an insertion sort that starts from the
// last frame's order). A low end passing a high end is the only event that can start or end an
// overlap on that axis; such a crossing is logged when the pair could overlap on the other two
// axes, and after the sorting every logged pair is tested on its new boxes and added to or removed
// from the set. The candidates are the set's pairs. The objects that moved come from the scene's
// move list; those that did not cost nothing but reading the set: the frame's work follows the
// endpoints that moved and the swaps they made.
//
// One axis does not pay: a pair set kept by one list's swaps holds every pair that overlaps on that
// axis alone, about n·(extent/L) per object (thousands at 10^5 cubes of the standard scene), where
// the three lists keep the few that overlap in space.
//
// Exactness. An endpoint's key is its float value (−0 read as +0) mapped to an order-preserving
// u32, then the end (low 0, high 1), then the object: keys are distinct, and a low end of a sorts
// before a high end of b exactly when lo_a ≤ hi_b, so in a sorted list two objects' positions
// overlap (lo_a before hi_b and lo_b before hi_a) exactly when their closed intervals do.
// Invariant: after update(), every list is sorted by the current keys and the set holds exactly the
// pairs whose current boxes overlap. Induction over frames: the first update builds both from
// scratch. In a later one, each moved object's endpoints are placed one object at a time on each
// list (before and after an object, its list is sorted), so the lists end sorted by the new keys.
// Take a pair whose overlap changed. Then on some axis k their intervals overlapped before and not
// now or the reverse, so a low end of one and a high end of the other are in the other order than
// before, and were swapped at least once (only adjacent swaps reorder a list); at that swap the pair
// overlapped on the two other axes in its old boxes (if it overlapped before) or in its new ones (if
// it overlaps now), which is the log's condition. A logged pair is set to what its new boxes say. A
// pair never logged changed nothing, and the set keeps its right answer. So the set is the pairs
// whose boxes overlap, and candidates() reports each once.
//
// Objects are numbered by cube (cd_scene.ident), not by slot: a reorder of the scene's slots changes
// nothing here but the map from cubes to slots.
//
// Threads: the three lists are sorted at once (one thread each: a list and its positions belong to
// one thread, the boxes are only read), the logs are applied serially, and the candidates are the
// set's slots in CD_BROAD_PARTS parts.
#include "float_bounds.h"

#include <omp.h>
#include <math.h>

#define SI_EMPTY UINT64_MAX   // a free slot of the pair set
#define SI_HIGH (1ull << 31)  // an endpoint's flag: the high end (objects < 2^31)

// One endpoint: its key, and its object's box on the two other axes (k1 < k2): the union of the
// box before and after this update while the object moves, its box otherwise. A crossing is
// filtered on these without reading the other object's record: the lists are read and written in
// order, and the swaps of an update touch no other memory.
typedef struct si_ep {
    uint64_t key;
    float lo[2], hi[2];
} si_ep;
_Static_assert(sizeof(si_ep) == 24, "8 endpoints in 3 cache lines");

typedef struct si_log {
    uint64_t *items;  // pair keys (a << 32 | b, a < b)
    size_t count, cap;
} si_log;

typedef enum si_mode { SI_AUTO, SI_INCREMENTAL, SI_REBUILD } si_mode;

typedef struct sap_incremental {
    int threads;
    si_mode mode;             // [method] update
    uint32_t n;               // objects the state was made for (UINT32_MAX: none yet)
    uint64_t layout;          // the scene's layout slot_of follows
    uint64_t moves;           // the scene's move list last seen (cd_scene_moves_since)
    si_ep *ep[3];             // per axis: 2n endpoints in key order between sentinels at 0 and 2n + 1
    uint32_t *hint[3];        // per axis: where endpoint 2c (low) and 2c + 1 (high) of cube c was last put
    cd_aabbf *cur;            // per cube: its box at this update
    cd_aabbf *prev;           // per cube: its box at the update before (= cur for cubes that did not move)
    uint32_t *slot_of;        // per cube: its slot
    uint32_t *moved, nmoved;  // cubes whose box changed at this update, in cube order
    uint32_t *last, nlast;    // the same of the update before
    double swaps;             // predicted swaps of this update (endpoint travel × endpoints per length)
    si_log log[3];            // per axis: crossings of the update
    uint32_t *rkey, *rid, *rtmp_key, *rtmp_id;  // radix scratch of the rebuild (2n each)
    uint64_t *set;                              // pair set: keys, SI_EMPTY free (linear probing)
    uint64_t *set_slots;                        // per set entry: its cubes' slots (slot_pair)
    uint64_t set_cap, set_count;
    uint64_t update_tests;  // box tests of the last update
    uint64_t build_tests;   // box tests of the last build's sweep: what a build costs beyond its sorts
    uint64_t rebuilds;      // updates that sorted from scratch
} sap_incremental;

// ---------------------------------------------------------------------------------------------
// Keys

static inline uint32_t float_key(float f)
{
    return float_order_key(f + 0.0f);  // −0 → +0, so −0 and +0 tie as the comparison of floats says
}

static inline float key_float(uint32_t k)
{
    uint32_t u = k & 0x80000000u ? k ^ 0x80000000u : ~k;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint64_t endpoint(float v, uint32_t cube, int high)
{
    return (uint64_t)float_key(v) << 32 | (high ? SI_HIGH : 0) | cube;
}

static inline uint32_t ep_cube(uint64_t e) { return (uint32_t)e & (uint32_t)(SI_HIGH - 1); }
static inline int ep_high(uint64_t e) { return (e & SI_HIGH) != 0; }

static inline void other_axes(int k, int *k1, int *k2)
{
    *k1 = k == 0 ? 1 : 0;
    *k2 = k == 2 ? 1 : 2;
}

// Cube c's entry for axis k: key v, the union of boxes a and b on the two other axes.
static inline si_ep entry(uint64_t v, int k, const cd_aabbf *a, const cd_aabbf *b)
{
    int k1, k2;
    other_axes(k, &k1, &k2);
    si_ep e = {v, {a->lo[k1], a->lo[k2]}, {a->hi[k1], a->hi[k2]}};
    for (int j = 0; j < 2; ++j) {
        int ax = j ? k2 : k1;
        if (b->lo[ax] < e.lo[j]) e.lo[j] = b->lo[ax];
        if (b->hi[ax] > e.hi[j]) e.hi[j] = b->hi[ax];
    }
    return e;
}

static inline int entries_overlap(const si_ep *a, const si_ep *b)
{
    return (a->lo[0] <= b->hi[0]) & (b->lo[0] <= a->hi[0]) & (a->lo[1] <= b->hi[1]) & (b->lo[1] <= a->hi[1]);
}

// ---------------------------------------------------------------------------------------------
// The pair set: open addressing with linear probing, deletion by backward shift (no tombstones).

// The slots of pair key's cubes, as candidates() reports them: kept beside each set entry (and
// renewed when the scene reorders), so reading the set reads two arrays in order, not two random
// entries of slot_of per pair.
static inline uint64_t slot_pair(const sap_incremental *m, uint64_t key)
{
    return (uint64_t)m->slot_of[key >> 32] << 32 | m->slot_of[(uint32_t)key];
}

static void set_insert_new(uint64_t *set, uint64_t *slots, uint64_t cap, uint64_t key, uint64_t slot)
{
    uint64_t h = cd_hash_slot(key, cap - 1);
    while (set[h] != SI_EMPTY) h = (h + 1) & (cap - 1);
    set[h] = key;
    slots[h] = slot;
}

// The set in a fresh table of capacity cap (a power of two), keys inserted in the old slot order.
static void set_resize(sap_incremental *m, uint64_t cap)
{
    uint64_t *old = m->set, *old_slots = m->set_slots, old_cap = m->set_cap;
    m->set = cd_alloc(cap * sizeof *m->set);
    m->set_slots = cd_alloc_zero(cap, sizeof *m->set_slots);  // read (not used) at free entries
    for (uint64_t k = 0; k < cap; ++k) m->set[k] = SI_EMPTY;
    m->set_cap = cap;
    for (uint64_t k = 0; k < old_cap; ++k)
        if (old[k] != SI_EMPTY) set_insert_new(m->set, m->set_slots, cap, old[k], old_slots[k]);
    cd_free(old);
    cd_free(old_slots);
}

static void set_put(sap_incremental *m, uint64_t key)
{
    if (2 * (m->set_count + 1) > m->set_cap) set_resize(m, m->set_cap ? 2 * m->set_cap : 1024);
    uint64_t h = cd_hash_slot(key, m->set_cap - 1);
    while (m->set[h] != SI_EMPTY) {
        if (m->set[h] == key) return;
        h = (h + 1) & (m->set_cap - 1);
    }
    m->set[h] = key;
    m->set_slots[h] = slot_pair(m, key);
    m->set_count++;
}

// Remove key if present; the entries after it in its probe run move back so that every key stays
// reachable from its home slot without passing an empty one (Knuth's algorithm R).
static void set_remove(sap_incremental *m, uint64_t key)
{
    if (!m->set_cap) return;
    uint64_t mask = m->set_cap - 1, h = cd_hash_slot(key, mask);
    while (m->set[h] != key) {
        if (m->set[h] == SI_EMPTY) return;
        h = (h + 1) & mask;
    }
    uint64_t hole = h;
    for (uint64_t j = (h + 1) & mask; m->set[j] != SI_EMPTY; j = (j + 1) & mask) {
        uint64_t home = cd_hash_slot(m->set[j], mask);
        // j's key may fill the hole when its home is not in (hole, j] (cyclically).
        int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays) continue;
        m->set[hole] = m->set[j];
        m->set_slots[hole] = m->set_slots[j];
        hole = j;
    }
    m->set[hole] = SI_EMPTY;
    m->set_count--;
}

// A set that emptied out is scanned every frame: shrink it to a load of at least 1/8.
static void set_trim(sap_incremental *m)
{
    if (m->set_cap <= 1024 || 8 * m->set_count >= m->set_cap) return;
    uint64_t cap = m->set_cap;
    while (cap > 1024 && 8 * m->set_count < cap) cap /= 2;
    set_resize(m, cap);
}

// ---------------------------------------------------------------------------------------------
// Life cycle

static const char *const update_words[] = {"auto", "incremental", "rebuild", NULL};
static const cd_param_spec si_params[] = {
    {"update", CD_PARAM_WORD, "auto", 0, 0, update_words,
     "auto: swap the moved endpoints, or sort from scratch when the swaps predicted cost more than a build; "
     "incremental: always swap; rebuild: always sort from scratch"},
};

static void *si_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    sap_incremental *m = cd_alloc_zero(1, sizeof *m);
    const char *u = cd_params_word(p, "update");
    m->mode = u[0] == 'a' ? SI_AUTO : u[0] == 'i' ? SI_INCREMENTAL : SI_REBUILD;
    m->threads = threads > 1 ? threads : 1;
    m->n = UINT32_MAX;
    return m;
}

static void si_free_state(sap_incremental *m)
{
    for (int k = 0; k < 3; ++k) {
        cd_free(m->ep[k]);
        cd_free(m->hint[k]);
        m->ep[k] = NULL;
        m->hint[k] = NULL;
    }
    void *arrays[] = {m->cur, m->prev,     m->slot_of, m->moved, m->last,     m->rkey,
                      m->rid, m->rtmp_key, m->rtmp_id, m->set,   m->set_slots};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) cd_free(arrays[k]);
    m->set = m->set_slots = NULL;
    m->set_cap = m->set_count = 0;
}

static void si_destroy(void *self)
{
    sap_incremental *m = self;
    si_free_state(m);
    for (int k = 0; k < 3; ++k) cd_free(m->log[k].items);
    cd_free(m);
}

// State for the scene's n boxes, before the first build.
static void si_reset(sap_incremental *m, const cd_scene *s)
{
    si_free_state(m);
    uint32_t n = s->count;
    size_t c = (size_t)n + 1;
    m->n = n;
    m->layout = s->layout;
    m->moves = CD_SCENE_MOVES_UNSEEN;
    m->cur = cd_alloc(c * sizeof *m->cur);
    m->prev = cd_alloc(c * sizeof *m->prev);
    m->slot_of = cd_alloc(c * sizeof *m->slot_of);
    m->moved = cd_alloc(c * sizeof *m->moved);
    m->last = cd_alloc(c * sizeof *m->last);
    m->nmoved = m->nlast = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t cube = cd_scene_ident(s, i);
        m->slot_of[cube] = i;
        m->cur[cube] = s->box[i];
    }
    uint32_t **r[] = {&m->rkey, &m->rid, &m->rtmp_key, &m->rtmp_id};
    for (int k = 0; k < 4; ++k) *r[k] = cd_alloc(2 * c * sizeof(uint32_t));
    for (int k = 0; k < 3; ++k) {
        m->ep[k] = cd_alloc(2 * c * sizeof *m->ep[k]);
        m->hint[k] = cd_alloc(2 * c * sizeof *m->hint[k]);
    }
}

// List k sorted from scratch from the current boxes: the low ends in cube order, then the high
// ends, stably sorted by value, which is the order of the keys (value, end, cube).
static void build_axis(sap_incremental *m, int k)
{
    uint32_t n = m->n, *key = m->rkey, *id = m->rid;
    for (uint32_t c = 0; c < n; ++c) {
        key[c] = float_key(m->cur[c].lo[k]);
        id[c] = c;
        key[n + c] = float_key(m->cur[c].hi[k]);
        id[n + c] = (uint32_t)SI_HIGH | c;
    }
    cd_radix_sort_u32(key, id, m->rtmp_key, m->rtmp_id, 2 * n);
    si_ep *ep = m->ep[k];
    ep[0] = (si_ep){0, {0, 0}, {0, 0}};  // sentinels: below and above every key (0 and ~0 are NaNs')
    ep[2 * (size_t)n + 1] = (si_ep){UINT64_MAX, {0, 0}, {0, 0}};
    for (uint32_t i = 0; i < 2 * n; ++i) {
        uint32_t c = id[i] & (uint32_t)(SI_HIGH - 1);
        ep[i + 1] = entry((uint64_t)key[i] << 32 | id[i], k, &m->cur[c], &m->cur[c]);
        m->hint[k][2 * c + (id[i] >> 31)] = i + 1;
    }
}

// Every list sorted from scratch and the set made anew from a sweep of list 0: each low end
// against the low ends before its own high end (the pair is found at the later low end).
static void si_build(sap_incremental *m)
{
    uint32_t n = m->n;
    for (int k = 0; k < 3; ++k) build_axis(m, k);  // radix scratch shared: one axis at a time
    memcpy(m->prev, m->cur, (size_t)n * sizeof *m->cur);
    m->nlast = m->nmoved = 0;
    for (uint64_t k = 0; k < m->set_cap; ++k) m->set[k] = SI_EMPTY;
    m->set_count = 0;
    const si_ep *ep = m->ep[0];
    uint64_t tests = 0;
    for (uint32_t i = 1; i <= 2 * n; ++i) {
        if (ep_high(ep[i].key)) continue;
        uint32_t a = ep_cube(ep[i].key);
        for (uint32_t j = i + 1; ep_cube(ep[j].key) != a; ++j) {
            if (ep_high(ep[j].key)) continue;
            ++tests;
            if (entries_overlap(&ep[i], &ep[j])) set_put(m, cd_pair_key(a, ep_cube(ep[j].key)));
        }
    }
    set_trim(m);
    m->update_tests = m->build_tests = tests;
    m->rebuilds++;
}

// ---------------------------------------------------------------------------------------------
// The frame's update

// Cube c's box b (in the scene) is noted when it changed: it goes to cur, c to moved, and its
// endpoints' travel to travel.
static inline void note_box(sap_incremental *m, uint32_t c, const cd_aabbf *b, double travel[3])
{
    if (memcmp(b, &m->cur[c], sizeof *b) == 0) return;
    for (int k = 0; k < 3; ++k)
        travel[k] += fabs((double)b->lo[k] - m->cur[c].lo[k]) + fabs((double)b->hi[k] - m->cur[c].hi[k]);
    m->cur[c] = *b;
    m->moved[m->nmoved++] = c;
}

// The cubes of the scene's move list whose box changed, to moved in cube order: the list is in slot
// order, which is cube order until the scene's first reorder (then a radix sort of the few listed).
// The listed cubes are a superset of those whose box changed (a step lists every cube it stepped),
// so the set is the same as a compare of every box finds, and in the same order: the update that
// follows, its swaps, tests and the prediction below are those of that compare.
static void moved_from_list(sap_incremental *m, const cd_scene *s, const cd_scene_moves *mv, double travel[3])
{
    int sorted = 1;
    for (uint32_t k = 0; k < mv->count; ++k) {
        uint32_t c = cd_scene_ident(s, mv->slot[k]);
        sorted &= k == 0 || c > m->rkey[k - 1];
        m->rkey[k] = c;
    }
    if (!sorted) {
        int bits = 1;
        while (bits < 32 && (m->n - 1) >> bits) ++bits;
        cd_radix_sort_bits(m->rkey, m->rid, m->rtmp_key, m->rtmp_id, mv->count, bits);
    }
    for (uint32_t k = 0; k < mv->count; ++k) note_box(m, m->rkey[k], &s->box[m->slot_of[m->rkey[k]]], travel);
}

// Which cubes' boxes changed since the last update: their new boxes go to cur, the cubes to moved
// in cube order; last frame's list is kept as last. The scene's move list names them (a look at
// only the listed boxes); when the scene does not know (frames this method missed, a ranged step),
// every box is compared. Also predicts the swaps of an incremental update: each endpoint's travel
// times the endpoints per unit length of its list.
static void find_moved(sap_incremental *m, const cd_scene *s)
{
    if (s->layout != m->layout) {
        for (uint32_t i = 0; i < m->n; ++i) m->slot_of[cd_scene_ident(s, i)] = i;
        m->layout = s->layout;
        for (uint64_t k = 0; k < m->set_cap; ++k)
            if (m->set[k] != SI_EMPTY) m->set_slots[k] = slot_pair(m, m->set[k]);
    }
    uint32_t *x = m->last;
    m->last = m->moved;
    m->moved = x;
    m->nlast = m->nmoved;
    m->nmoved = 0;
    double travel[3] = {0, 0, 0}, density[3];
    cd_scene_moves mv;
    if (cd_scene_moves_since(s, &m->moves, &mv))
        moved_from_list(m, s, &mv, travel);
    else
        for (uint32_t c = 0; c < m->n; ++c) note_box(m, c, &s->box[m->slot_of[c]], travel);
    m->swaps = 0.0;
    for (int k = 0; k < 3 && m->n; ++k) {
        double span = (double)key_float((uint32_t)(m->ep[k][2 * m->n].key >> 32)) -
                      (double)key_float((uint32_t)(m->ep[k][1].key >> 32));
        density[k] = span > 0.0 ? 2.0 * m->n / span : 0.0;
        m->swaps += travel[k] * density[k];
    }
}

typedef struct axis_work {
    si_ep *ep;
    uint32_t *hint;
    si_log *log;
    uint32_t top;  // 2n: the last endpoint
    uint64_t tests;
} axis_work;

// Where endpoint key v is now: a galloping search from its hint (the swaps of other objects moved
// it at most a little since it was put there).
static uint32_t locate(const axis_work *w, uint32_t hint, uint64_t v)
{
    const si_ep *ep = w->ep;
    uint32_t i = hint < 1 ? 1 : hint > w->top ? w->top : hint;
    if (ep[i].key == v) return i;
    uint32_t lo, hi, step = 1;  // ep[lo].key <= v < ep[hi].key
    if (ep[i].key < v) {
        lo = i;
        while (lo + step <= w->top && ep[lo + step].key <= v) lo += step, step *= 2;
        hi = lo + step <= w->top ? lo + step : w->top + 1;
    } else {
        hi = i;
        while (hi > step && ep[hi - step].key > v) hi -= step, step *= 2;
        lo = hi > step ? hi - step : 0;
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ep[mid].key <= v)
            lo = mid;
        else
            hi = mid;
    }
    CD_ASSERT(ep[lo].key == v);
    return lo;
}

// One adjacent swap of v (moving) with e: a low end passing a high end or the reverse is a
// crossing, logged when the two entries' boxes overlap on the two other axes (each holds its
// object's boxes before and after: the proof in the file comment says why this is enough).
// Branch-free: which endpoints v passes is random, and a branch on it would miss half the time.
static inline void swap_past(si_log *l, uint64_t *tests, const si_ep *v, const si_ep *e)
{
    uint64_t cross = ((e->key ^ v->key) & SI_HIGH) >> 31;
    uint32_t a = ep_cube(v->key), b = ep_cube(e->key), lo = a < b ? a : b, hi = a < b ? b : a;
    *tests += cross;
    if (l->count == l->cap) cd_grow((void **)&l->items, sizeof *l->items, &l->cap, l->count + 1);
    l->items[l->count] = (uint64_t)lo << 32 | hi;
    l->count += cross & (uint64_t)entries_overlap(v, e);
}

// The entry at index i becomes v and moves to its place by adjacent swaps (the sentinels stop it).
static void place(axis_work *w, uint32_t i, si_ep v)
{
    si_ep *ep = w->ep;
    si_log l = *w->log;  // in registers: the stores to ep may alias *w
    uint64_t tests = 0;
    if (v.key < ep[i].key) {
        for (; ep[i - 1].key > v.key; --i) {
            ep[i] = ep[i - 1];
            swap_past(&l, &tests, &v, &ep[i]);
        }
    } else {
        for (; ep[i + 1].key < v.key; ++i) {
            ep[i] = ep[i + 1];
            swap_past(&l, &tests, &v, &ep[i]);
        }
    }
    ep[i] = v;
    w->hint[2 * ep_cube(v.key) + (ep_high(v.key) ? 1u : 0u)] = i;
    *w->log = l;
    w->tests += tests;
}

// Cube c's entries on list k take the union of its boxes before and after (keys unchanged).
static void widen(sap_incremental *m, axis_work *w, int k, uint32_t c)
{
    for (int high = 0; high < 2; ++high) {
        uint64_t v = endpoint(high ? m->prev[c].hi[k] : m->prev[c].lo[k], c, high);
        uint32_t i = locate(w, w->hint[2 * c + (uint32_t)high], v);
        w->ep[i] = entry(v, k, &m->prev[c], &m->cur[c]);
        w->hint[2 * c + (uint32_t)high] = i;
    }
}

// List k follows the moved cubes. First every entry of a cube that moved now or at the last update
// gets its boxes' union (the last update's movers rest again or move on); then the moved cubes'
// endpoints go to their new keys, one cube at a time, the ends that grow the interval first, so a
// low end never passes its own high end (lo ≤ hi and the end bit order their keys).
static uint64_t sort_axis(sap_incremental *m, int k)
{
    axis_work w = {m->ep[k], m->hint[k], &m->log[k], 2 * m->n, 0};
    w.log->count = 0;
    for (uint32_t j = 0; j < m->nlast; ++j) widen(m, &w, k, m->last[j]);
    for (uint32_t j = 0; j < m->nmoved; ++j) widen(m, &w, k, m->moved[j]);
    for (uint32_t j = 0; j < m->nmoved; ++j) {
        uint32_t c = m->moved[j];
        const cd_aabbf *p = &m->prev[c], *b = &m->cur[c];
        si_ep lo = entry(endpoint(b->lo[k], c, 0), k, p, b), hi = entry(endpoint(b->hi[k], c, 1), k, p, b);
        uint64_t old_lo = endpoint(p->lo[k], c, 0);
        if (lo.key < old_lo) place(&w, locate(&w, w.hint[2 * c], old_lo), lo);
        place(&w, locate(&w, w.hint[2 * c + 1], endpoint(p->hi[k], c, 1)), hi);
        if (lo.key > old_lo) place(&w, locate(&w, w.hint[2 * c], old_lo), lo);
    }
    return w.tests;
}

static void si_update(void *self, const cd_scene *s)
{
    sap_incremental *m = self;
    CD_ASSERT(s->count < (1u << 31));  // an endpoint holds its cube in 31 bits
    if (s->count != m->n) {
        si_reset(m, s);
        si_build(m);
        cd_scene_moves seen;  // the boxes built from are this publication's
        (void)cd_scene_moves_since(s, &m->moves, &seen);
        return;
    }
    find_moved(m, s);
    // A build costs its sweep's box tests and about 8 steps per endpoint to sort the lists; a swap
    // about as much as one of those tests (both read one entry in list order).
    double build = (double)m->build_tests + 8.0 * 6.0 * m->n;
    if (m->mode == SI_REBUILD || (m->mode == SI_AUTO && !(m->swaps <= build))) {
        si_build(m);
        return;
    }
    int threads = m->threads > 1 && m->nmoved >= 256 ? (m->threads < 3 ? m->threads : 3) : 1;
    uint64_t tests = 0;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1) reduction(+ : tests)
    for (int k = 0; k < 3; ++k) tests += sort_axis(m, k);
    // Every logged pair is set to what its new boxes say (a pair may be logged several times).
    for (int k = 0; k < 3; ++k)
        for (size_t j = 0; j < m->log[k].count; ++j) {
            uint64_t key = m->log[k].items[j];
            uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)key;
            ++tests;
            if (cd_aabbf_overlap(&m->cur[a], &m->cur[b]))
                set_put(m, key);
            else
                set_remove(m, key);
        }
    for (uint32_t j = 0; j < m->nmoved; ++j) m->prev[m->moved[j]] = m->cur[m->moved[j]];
    set_trim(m);
    m->update_tests = tests;
}

// ---------------------------------------------------------------------------------------------
// Candidates: the set's pairs, in slot order, part by part.

// The set is read a block at a time into the sink without a branch per entry: every entry's slots
// are written and the count moves on only for a full one. At a quarter to a half full, a branch on
// each entry mispredicts on about every other one; the block's room in the buffer is made first.
enum { SI_BLOCK = 64 };

static void si_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                               cd_broad_stats *st)
{
    (void)s;
    const sap_incremental *m = self;
    if (m->n == UINT32_MAX || !m->set_cap) return;
    CD_ASSERT(sink->capacity > 0);
    uint64_t k0 = m->set_cap * part / parts, k1 = m->set_cap * (part + 1) / parts;
    for (uint64_t k = k0; k < k1;) {
        uint32_t len = k1 - k < SI_BLOCK ? (uint32_t)(k1 - k) : SI_BLOCK;
        if (len > sink->capacity) len = sink->capacity;
        if (sink->capacity - sink->count < len) sink->flush(sink);
        CD_ASSERT(sink->capacity - sink->count >= len);
        cd_pair *out = sink->buf + sink->count;
        uint32_t got = 0;
        for (uint32_t j = 0; j < len; ++j) {
            uint64_t slots = m->set_slots[k + j];
            out[got] = (cd_pair){(uint32_t)(slots >> 32), (uint32_t)slots};
            got += m->set[k + j] != SI_EMPTY;
        }
        sink->count += got;
        k += len;
    }
    st->bv_tests += part == 0 ? m->update_tests : 0;
}

static void si_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    si_candidates_part(self, s, 0, 1, sink, st);
}

static void si_shape_stats(void *self, cd_broad_stats *st)
{
    const sap_incremental *m = self;
    if (m->n == UINT32_MAX) return;
    uint64_t c = m->n + 1ull, logs = 0;
    for (int k = 0; k < 3; ++k) logs += m->log[k].cap * sizeof(uint64_t);
    st->bytes = sizeof *m + 3 * 2 * c * (sizeof(si_ep) + sizeof(uint32_t)) + 4 * 2 * c * sizeof(uint32_t) +
                c * (2 * sizeof(cd_aabbf) + 3 * sizeof(uint32_t)) + logs + m->set_cap * 2 * sizeof *m->set;
    st->nodes = m->set_cap;  // the pair set's slots
    st->max_per_node = m->n;
}

const cd_broad_method cd_broad_sap_incremental = {
    .name = "sap_incremental",
    .description = "incremental sweep and prune: sorted endpoint lists on three axes, only moved objects' endpoints "
                   "swapped, a persistent pair set updated on the swaps",
    .params = si_params,
    .param_count = sizeof si_params / sizeof si_params[0],
    .create = si_create,
    .update = si_update,
    .candidates = si_candidates,
    .candidates_part = si_candidates_part,
    .boxes_tested = 1,
    .shape_stats = si_shape_stats,
    .destroy = si_destroy,
};
