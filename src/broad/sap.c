// SPDX-License-Identifier: MIT
// Sweep and prune on one axis (the one with the largest centre spread). Boxes are rounded outward
// to float (float_bounds.h), sorted by their low end on the sweep axis, and each box is compared
// with the boxes that start before it ends. Two ways to keep the order sorted:
//   sap            3-pass LSD radix sort of all float keys every frame;
//   sap_insertion  insertion sort of last frame's order (frame-to-frame coherence).
// The radix sort is the default: it was as fast or faster from 10 000 cubes up (insertion won
// only at about 1 000), and it has no quadratic worst case when objects move fast. The sweep
// itself is the same code and dominates either way; it runs in parts of the sweep order on the
// frame's threads (candidates_part), while the sort stays on one.
#include "float_bounds.h"

// Candidates are tested in chunks of 32 with a branch-free loop the compiler vectorises (checked
// with -fopt-info-vec); the float SoA arrays below exist so that loop reads contiguous vectors.
enum { SAP_CHUNK = 32 };

typedef struct sap {
    int insertion;                     // 1: insertion sort of last frame's order; 0: radix sort every frame
    int fixed_axis;                    // [method] axis: 0, 1, 2, or −1 for the widest spread
    int axis;                          // sweep axis of order[], −1 before the first build
    int next_axis;                     // axis chosen from this frame's spread for the next frame
    uint32_t n;                        // objects in order[]
    size_t cap;                        // elements held by every array below (n + SAP_CHUNK padding)
    uint32_t *order;                   // object ids in sweep order
    uint32_t *key, *tmp_key, *tmp_id;  // radix keys and scratch
    float *lo[3], *hi[3];              // boxes in sweep order (lo[axis] is the sort key)
} sap;

// The sweep axis: any axis keeps the pair set exact (a pair overlaps on every axis), the choice
// only decides how many boxes each sweep window holds.
static const char *const axis_words[] = {"auto", "x", "y", "z", NULL};
static const cd_param_spec sap_params[] = {
    {"axis", CD_PARAM_WORD, "auto", 0, 0, axis_words,
     "sweep axis: x, y or z, or auto (the widest spread of the centres, with hysteresis)"},
};

static void *sap_create_mode(const cd_params *p, int insertion)
{
    sap *m = cd_alloc_zero(1, sizeof *m);
    const char *axis = cd_params_word(p, "axis");
    m->insertion = insertion;
    m->fixed_axis = axis[0] == 'a' ? -1 : axis[0] - 'x';
    m->axis = -1;
    m->next_axis = -1;
    return m;
}

static void *sap_create_radix(const cd_params *p, int threads, const cd_scene *s)
{
    (void)threads, (void)s;
    return sap_create_mode(p, 0);
}

static void *sap_create_insertion(const cd_params *p, int threads, const cd_scene *s)
{
    (void)threads, (void)s;
    return sap_create_mode(p, 1);
}

static void sap_free_arrays(sap *m)
{
    cd_free(m->order);
    cd_free(m->key);
    cd_free(m->tmp_key);
    cd_free(m->tmp_id);
    for (int k = 0; k < 3; ++k) {
        cd_free(m->lo[k]);
        cd_free(m->hi[k]);
    }
}

static void sap_destroy(void *self)
{
    sap *m = self;
    sap_free_arrays(m);
    cd_free(m);
}

// Arrays for n objects plus the padding the chunked sweep reads past the end.
static void sap_reserve(sap *m, uint32_t n)
{
    size_t need = (size_t)n + SAP_CHUNK;
    if (need <= m->cap) return;
    sap_free_arrays(m);
    size_t cap = need + need / 4;
    m->order = cd_alloc(cap * sizeof *m->order);
    m->key = cd_alloc(cap * sizeof *m->key);
    m->tmp_key = cd_alloc(cap * sizeof *m->tmp_key);
    m->tmp_id = cd_alloc(cap * sizeof *m->tmp_id);
    for (int k = 0; k < 3; ++k) {
        m->lo[k] = cd_alloc(cap * sizeof(float));
        m->hi[k] = cd_alloc(cap * sizeof(float));
    }
    m->cap = cap;
    m->axis = -1;  // the old order is gone
}

// Axis of largest variance of the box centres.
static int spread_axis(const double sum[3], const double sum2[3], uint32_t n, int current)
{
    double var[3];
    for (int k = 0; k < 3; ++k) var[k] = n ? sum2[k] / n - (sum[k] / n) * (sum[k] / n) : 0.0;
    int best = 0;
    for (int k = 1; k < 3; ++k)
        if (var[k] > var[best]) best = k;
    // Hysteresis: a near tie must not flip the axis every frame, which would cost the
    // insertion sort its coherence.
    if (current >= 0 && var[best] <= 1.1 * var[current]) return current;
    return best;
}

static void sort_radix(sap *m, const cd_scene *s, int axis)
{
    uint32_t n = s->count;
    for (uint32_t i = 0; i < n; ++i) {
        m->key[i] = float_order_key(s->box[i].lo[axis]);
        m->order[i] = i;
    }
    cd_radix_sort_u32(m->key, m->order, m->tmp_key, m->tmp_id, n);
}

// Refresh the keys in last frame's order, then insertion-sort: O(n + inversions).
static void sort_insertion(sap *m, const cd_scene *s, int axis)
{
    uint32_t n = s->count;
    float *key = m->lo[axis];
    uint32_t *order = m->order;
    for (uint32_t k = 0; k < n; ++k) key[k] = s->box[order[k]].lo[axis];
    for (uint32_t k = 1; k < n; ++k) {
        float v = key[k];
        if (!(v < key[k - 1])) continue;
        uint32_t id = order[k], j = k;
        do {
            key[j] = key[j - 1];
            order[j] = order[j - 1];
            --j;
        } while (j > 0 && v < key[j - 1]);
        key[j] = v;
        order[j] = id;
    }
}

static void sap_update(void *self, const cd_scene *s)
{
    sap *m = self;
    uint32_t n = s->count;
    sap_reserve(m, n);
    if (n != m->n) m->axis = -1;
    int axis = m->next_axis;
    if (axis < 0 || m->axis < 0) {
        double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
        for (uint32_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k) {
                double c = 0.5 * (double)s->box[i].lo[k] + 0.5 * (double)s->box[i].hi[k];
                sum[k] += c;
                sum2[k] += c * c;
            }
        axis = spread_axis(sum, sum2, n, -1);
    }
    if (m->fixed_axis >= 0) axis = m->fixed_axis;
    if (m->insertion && axis == m->axis)
        sort_insertion(m, s, axis);
    else
        sort_radix(m, s, axis);
    m->axis = axis;
    m->n = n;
    // Gather the boxes in sweep order and measure the spread for the next frame's axis.
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; ++k) {
        const cd_aabbf *b = &s->box[m->order[k]];
        for (int a = 0; a < 3; ++a) {
            double lo = b->lo[a], hi = b->hi[a], c = 0.5 * lo + 0.5 * hi;
            m->lo[a][k] = b->lo[a];
            m->hi[a][k] = b->hi[a];
            sum[a] += c;
            sum2[a] += c * c;
        }
    }
    for (uint32_t k = n; k < n + SAP_CHUNK; ++k)
        for (int a = 0; a < 3; ++a) {
            m->lo[a][k] = INFINITY;  // padding: never below any hi, ends every sweep
            m->hi[a][k] = -INFINITY;
        }
    m->next_axis = spread_axis(sum, sum2, n, axis);
}

// The sweep from boxes [i0, i1) of the sweep order: each box against the boxes after it that start
// before it ends. Parts of the order are independent (a box's window reads past its part's end),
// so each pair is found once, by the box of the two that comes first in the order.
static uint64_t sweep_range(const sap *m, const cd_scene *s, uint32_t i0, uint32_t i1, cd_pair_sink *sink)
{
    uint32_t n = m->n;
    int ax = m->axis, a1 = (ax + 1) % 3, a2 = (ax + 2) % 3;
    const float *lox = m->lo[ax], *hix = m->hi[ax];
    const float *lo1 = m->lo[a1], *hi1 = m->hi[a1], *lo2 = m->lo[a2], *hi2 = m->hi[a2];
    const uint32_t *order = m->order;
    uint64_t tests = 0;
    for (uint32_t i = i0; i < i1; ++i) {
        float hx = hix[i], l1 = lo1[i], h1 = hi1[i], l2 = lo2[i], h2 = hi2[i];
        uint32_t id = order[i];
        for (uint32_t j0 = i + 1; j0 < n; j0 += SAP_CHUNK) {
            unsigned char hit[SAP_CHUNK];
            for (int k = 0; k < SAP_CHUNK; ++k)
                hit[k] = (lox[j0 + k] <= hx) & (lo1[j0 + k] <= h1) & (hi1[j0 + k] >= l1) & (lo2[j0 + k] <= h2) &
                         (hi2[j0 + k] >= l2);
            uint64_t w[SAP_CHUNK / 8];
            memcpy(w, hit, sizeof w);
            uint64_t any = 0;
            for (int k = 0; k < SAP_CHUNK / 8; ++k) any |= w[k];
            if (any)
                for (int k = 0; k < SAP_CHUNK; ++k)
                    if (hit[k]) {
                        uint32_t jd = order[j0 + k];
                        if (cd_aabbf_overlap(&s->box[id], &s->box[jd])) cd_sink_push(sink, id, jd);
                    }
            if (lox[j0 + SAP_CHUNK - 1] <= hx) {
                tests += SAP_CHUNK;  // whole chunk overlaps on the sweep axis (padding never does)
                continue;
            }
            for (int k = 0; k < SAP_CHUNK; ++k) tests += lox[j0 + k] <= hx;
            break;
        }
    }
    return tests;
}

// Part `part` of `parts`: a contiguous run of the sweep order (the frame deals the parts to its
// threads as they come free, which evens out runs of long windows).
static void sap_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                cd_broad_stats *st)
{
    const sap *m = self;
    uint32_t i0 = (uint32_t)((uint64_t)m->n * part / parts), i1 = (uint32_t)((uint64_t)m->n * (part + 1) / parts);
    st->bv_tests += sweep_range(m, s, i0, i1, sink);
}

static void sap_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    sap_candidates_part(self, s, 0, 1, sink, st);
}

static void sap_shape_stats(void *self, cd_broad_stats *st)
{
    sap *m = self;
    st->bytes = sizeof *m + m->cap * (4 * sizeof(uint32_t) + 6 * sizeof(float));
    st->nodes = 0;
    st->max_per_node = m->n;
}

// The scene permuted its slots: last frame's order keeps its cubes under their new numbers, so
// the insertion sort still starts from a nearly sorted order.
static void sap_remap(void *self, const cd_scene *s)
{
    sap *m = self;
    if (m->n != s->count) return;
    cd_scene_renumber_slots(s, m->order, m->n, UINT32_MAX);
}

const cd_broad_method cd_broad_sap = {
    .name = "sap",
    .description = "sweep and prune on the widest axis, float keys radix-sorted every frame; sweep threaded",
    .params = sap_params,
    .param_count = sizeof sap_params / sizeof sap_params[0],
    .create = sap_create_radix,
    .update = sap_update,
    .candidates = sap_candidates,
    .candidates_part = sap_candidates_part,
    .remap = sap_remap,
    .boxes_tested = 1,
    .shape_stats = sap_shape_stats,
    .destroy = sap_destroy,
};

const cd_broad_method cd_broad_sap_insertion = {
    .name = "sap_insertion",
    .description = "sweep and prune on the widest axis, insertion sort of last frame's order; sweep threaded",
    .params = sap_params,
    .param_count = sizeof sap_params / sizeof sap_params[0],
    .create = sap_create_insertion,
    .update = sap_update,
    .candidates = sap_candidates,
    .candidates_part = sap_candidates_part,
    .remap = sap_remap,
    .boxes_tested = 1,
    .shape_stats = sap_shape_stats,
    .destroy = sap_destroy,
};
