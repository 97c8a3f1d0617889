// SPDX-License-Identifier: MIT
// The shared frame driver and narrow step of every broad phase.
#include "cd_broad.h"

#include <stdlib.h>
#include <string.h>

// 4096 pairs = 32 KiB: the batch stays in L1/L2 while the narrow step reads it.
enum { SINK_CAPACITY = 4096 };

cd_broad_params cd_broad_params_default(void)
{
    return (cd_broad_params){.depth = 4, .looseness = 2.0, .update = CD_UPDATE_REBUILD, .cell_size = 0.0, .threads = 1};
}

cd_broad *cd_broad_create(const char *name, const cd_broad_params *p, const cd_scene *s)
{
    const cd_broad_method *m = cd_broad_find(name);
    if (!m) return NULL;
    cd_broad *b = cd_alloc(sizeof *b);
    b->method = m;
    b->params = *p;
    b->self = m->create(p, s);
    b->parts = m->candidates_part ? cd_alloc_zero(CD_BROAD_PARTS, sizeof *b->parts) : NULL;
    return b;
}

void cd_broad_destroy(cd_broad *b)
{
    if (!b) return;
    b->method->destroy(b->self);
    if (b->parts)
        for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) cd_pair_list_free(&b->parts[k].pairs);
    cd_free(b->parts);
    cd_free(b);
}

typedef struct narrow_ctx {
    const cd_scene *scene;
    int boxes_tested;  // the method's candidates all have overlapping boxes: no box gate
    cd_pair_list *out;
    cd_broad_stats *st;
    uint64_t narrow_ns;
} narrow_ctx;

// Four cube pairs in the lanes of one vector of doubles: GCC's generic vectors, so the AVX2
// build (cube_sat4_avx2, picked at run time) runs each operation once for the four and the
// baseline build as two SSE2 halves. Every
// lane evaluates cd_scene_axes_of's and cd_obb_obb_overlap_axis's expressions in their order
// (-ffp-contract=off keeps FMA out of both builds), so each answer has the scalar test's bits;
// tests/test_broad.c checks that lane by lane.
typedef double lanes4 __attribute__((vector_size(32)));
typedef int64_t mask4 __attribute__((vector_size(32)));

// Macros, not functions: a function taking or returning a 32-byte vector outside the AVX2 build
// would change the ABI (obb4_axes takes them but is always inlined).
#define ABS4(x) ((lanes4)((mask4)(x) & ~(mask4)(lanes4){-0.0, -0.0, -0.0, -0.0}))
#define ALL4(m) (((m)[0] & (m)[1] & (m)[2] & (m)[3]) != 0)

// Centre, axes (columns) and half-extents of the four cubes p[k] as cd_scene_obb builds them.
typedef struct obb4 {
    lanes4 c[3], ax[3][3], e[3];
} obb4;

// The axes of four cubes from their quaternions (w, x, y, z), as cd_scene_axes_of computes them.
__attribute__((always_inline)) static inline void obb4_axes(obb4 *o, lanes4 w, lanes4 x, lanes4 y, lanes4 z)
{
    lanes4 s = 2.0 / (w * w + x * x + y * y + z * z);
    lanes4 xx = s * x * x, yy = s * y * y, zz = s * z * z, xy = s * x * y, xz = s * x * z, yz = s * y * z;
    lanes4 wx = s * w * x, wy = s * w * y, wz = s * w * z;
    const lanes4 one = {1.0, 1.0, 1.0, 1.0};
    o->ax[0][0] = one - (yy + zz), o->ax[0][1] = xy + wz, o->ax[0][2] = xz - wy;
    o->ax[1][0] = xy - wz, o->ax[1][1] = one - (xx + zz), o->ax[1][2] = yz + wx;
    o->ax[2][0] = xz + wy, o->ax[2][1] = yz - wx, o->ax[2][2] = one - (xx + yy);
}

__attribute__((always_inline)) static inline void obb4_of(const cd_posef *const p[4], obb4 *o)
{
#define CD_LANES(f) ((lanes4){p[0]->f, p[1]->f, p[2]->f, p[3]->f})
    for (int k = 0; k < 3; ++k) o->c[k] = CD_LANES(c[k]), o->e[k] = CD_LANES(h[k]);
    obb4_axes(o, CD_LANES(q[0]), CD_LANES(q[1]), CD_LANES(q[2]), CD_LANES(q[3]));
#undef CD_LANES
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SAT4_AVX2 1
// obb4_of for AVX2: each record's first eight floats (c, q, h[0]) in one load, the four records
// transposed by eight shuffles, and h[1], h[2] by two; the same floats, so the same lanes. At
// 100 000 cubes, interleaved (10 rounds): narrow 1.74 → 1.64 ms fastest, 2.12 → 1.98 median.
__attribute__((always_inline, target("avx2"))) static inline void obb4_of_avx2(const cd_posef *const p[4], obb4 *o)
{
    __m256 r0 = _mm256_loadu_ps(&p[0]->c[0]), r1 = _mm256_loadu_ps(&p[1]->c[0]);
    __m256 r2 = _mm256_loadu_ps(&p[2]->c[0]), r3 = _mm256_loadu_ps(&p[3]->c[0]);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 f04 = _mm256_shuffle_ps(t0, t2, 0x44), f15 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 f26 = _mm256_shuffle_ps(t1, t3, 0x44), f37 = _mm256_shuffle_ps(t1, t3, 0xEE);
#define LO4(v) ((lanes4)_mm256_cvtps_pd(_mm256_castps256_ps128(v)))
#define HI4(v) ((lanes4)_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)))
    o->c[0] = LO4(f04), o->c[1] = LO4(f15), o->c[2] = LO4(f26), o->e[0] = HI4(f37);
    lanes4 w = LO4(f37), x = HI4(f04), y = HI4(f15), z = HI4(f26);
#undef LO4
#undef HI4
    // h[1], h[2] of each record as one 64-bit load, then (h1 of 4 | h2 of 4)
    __m128 a = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&p[0]->h[1]));
    __m128 b = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&p[1]->h[1]));
    __m128 c = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&p[2]->h[1]));
    __m128 d = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&p[3]->h[1]));
    __m128 ab = _mm_unpacklo_ps(a, b), cd = _mm_unpacklo_ps(c, d);  // (h1a, h1b, h2a, h2b), ...
    o->e[1] = (lanes4)_mm256_cvtps_pd(_mm_movelh_ps(ab, cd));
    o->e[2] = (lanes4)_mm256_cvtps_pd(_mm_movehl_ps(cd, ab));
    obb4_axes(o, w, x, y, z);
}
#else
#define SAT4_AVX2 0
#endif

// Bit k set when cubes pa[k] and pb[k] overlap (cd_obb_obb_overlap of their cd_scene_obb).
// Inlined into cube_sat4_avx2 and cube_sat4_baseline, the same code for any CPU.
__attribute__((always_inline)) static inline unsigned sat4_of(const obb4 *pa, const obb4 *pb)
{
    const obb4 a = *pa, b = *pb;
    const lanes4 eps = {CD_SAT_EPSILON, CD_SAT_EPSILON, CD_SAT_EPSILON, CD_SAT_EPSILON};
    lanes4 R[3][3], AR[3][3], t[3], d[3];
    for (int k = 0; k < 3; ++k) d[k] = b.c[k] - a.c[k];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            R[i][j] = a.ax[i][0] * b.ax[j][0] + a.ax[i][1] * b.ax[j][1] + a.ax[i][2] * b.ax[j][2];
            AR[i][j] = ABS4(R[i][j]) + eps;
        }
        t[i] = d[0] * a.ax[i][0] + d[1] * a.ax[i][1] + d[2] * a.ax[i][2];
    }
    mask4 sep = {0, 0, 0, 0};
    for (int i = 0; i < 3; ++i)  // faces of a
        sep |= ABS4(t[i]) > a.e[i] + (b.e[0] * AR[i][0] + b.e[1] * AR[i][1] + b.e[2] * AR[i][2]);
    if (ALL4(sep)) return 0;
    for (int j = 0; j < 3; ++j) {  // faces of b
        lanes4 ra = a.e[0] * AR[0][j] + a.e[1] * AR[1][j] + a.e[2] * AR[2][j];
        lanes4 tj = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        sep |= ABS4(tj) > ra + b.e[j];
    }
    if (ALL4(sep)) return 0;
    for (int i = 0; i < 3; ++i) {  // edge cross products a_i × b_j
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            lanes4 ra = a.e[i1] * AR[i2][j] + a.e[i2] * AR[i1][j];
            lanes4 rb = b.e[j1] * AR[i][j2] + b.e[j2] * AR[i][j1];
            lanes4 tl = t[i2] * R[i1][j] - t[i1] * R[i2][j];
            sep |= ABS4(tl) > ra + rb;
        }
    }
    return (unsigned)(sep[0] == 0) | (unsigned)(sep[1] == 0) << 1 | (unsigned)(sep[2] == 0) << 2 |
           (unsigned)(sep[3] == 0) << 3;
}

#if SAT4_AVX2
__attribute__((target("avx2"))) static unsigned cube_sat4_avx2(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
    obb4 a, b;
    obb4_of_avx2(pa, &a);
    obb4_of_avx2(pb, &b);
    return sat4_of(&a, &b);
}
#endif

static unsigned cube_sat4_baseline(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
    obb4 a, b;
    obb4_of(pa, &a);
    obb4_of(pb, &b);
    return sat4_of(&a, &b);
}

// The AVX2 build where the CPU has it.
static unsigned cube_sat4(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
#if SAT4_AVX2
    if (__builtin_cpu_supports("avx2")) return cube_sat4_avx2(pa, pb);
#endif
    return cube_sat4_baseline(pa, pb);
}

unsigned cd_cube_pairs_sat4(const cd_scene *s, const cd_pair pairs[4], int baseline)
{
    const cd_posef *pa[4], *pb[4];
    for (int k = 0; k < 4; ++k) pa[k] = &s->pose[pairs[k].a], pb[k] = &s->pose[pairs[k].b];
    return baseline ? cube_sat4_baseline(pa, pb) : cube_sat4(pa, pb);
}

// Candidates arrive in the broad phase's (spatial) order, so their ids are scattered over the
// scene arrays and each exact test would wait on several cache misses in turn. The narrow step
// therefore works in batches: first request the pose records of a batch (independent loads the
// CPU overlaps), test the float boxes where the method has not, then run the SAT four pairs at a
// time straight from the pose records (cube_sat4). Same predicate as cd_cube_pair_overlap, on
// the same bits. At 100 000 cubes the batches took the narrow step from 175 to 90 ns per
// candidate, and four lanes built from the poses (instead of two on stored cd_obb copies) from
// 4.0–5.0 to 2.6–2.8 ms per frame (66 000 candidates).
enum { NARROW_BATCH = 64 };

static void narrow_batch(narrow_ctx *c, const cd_pair *pairs, uint32_t m)
{
    const cd_scene *s = c->scene;
    cd_boxf aa[NARROW_BATCH], ab[NARROW_BATCH];
    uint32_t keep[NARROW_BATCH + 3], nk = 0;
    // Most candidates pass the box test (the fast methods emit only overlapping boxes), so the
    // pose records are requested now, to arrive while the boxes are copied and tested.
    for (uint32_t k = 0; k < m; ++k) {
        uint32_t a = pairs[k].a, b = pairs[k].b;
        CD_ASSERT(a != b && a < s->count && b < s->count);
        __builtin_prefetch(&s->pose[a]);
        __builtin_prefetch((const char *)&s->pose[a] + sizeof(cd_posef) - 1);  // 40-byte records may straddle lines
        __builtin_prefetch(&s->pose[b]);
        __builtin_prefetch((const char *)&s->pose[b] + sizeof(cd_posef) - 1);
    }
    if (c->boxes_tested) {
        for (uint32_t k = 0; k < m; ++k) keep[nk++] = k;
    } else {
        for (uint32_t k = 0; k < m; ++k) {
            aa[k] = s->box[pairs[k].a];
            ab[k] = s->box[pairs[k].b];
        }
        for (uint32_t k = 0; k < m; ++k)
            if (cd_boxf_overlap(&aa[k], &ab[k])) keep[nk++] = k;
    }
    for (uint32_t k = nk; k % 4; ++k) keep[k] = keep[nk - 1];  // a partial group repeats its last pair
    // Every tested pair is stored and the end moves past the overlapping ones: about 4 in 10
    // candidates overlap, a branch per pair that no predictor learns.
    cd_pair_list *out = c->out;
    if (out->capacity - out->count < nk) cd_grow((void **)&out->items, sizeof *out->items, &out->capacity, out->count + nk);
    cd_pair *end = out->items + out->count;
    for (uint32_t k = 0; k < nk; k += 4) {
        const cd_posef *pa[4], *pb[4];
        for (int l = 0; l < 4; ++l) pa[l] = &s->pose[pairs[keep[k + l]].a], pb[l] = &s->pose[pairs[keep[k + l]].b];
        unsigned hit = cube_sat4(pa, pb);
        for (uint32_t l = k; l < k + 4 && l < nk; ++l) {
            uint32_t a = pairs[keep[l]].a, b = pairs[keep[l]].b;
            *end = (cd_pair){a < b ? a : b, a < b ? b : a};
            end += hit >> (l - k) & 1u;
        }
    }
    out->count = (size_t)(end - out->items);
}

static void narrow_flush(cd_pair_sink *sink)
{
    narrow_ctx *c = sink->ctx;
    uint64_t t0 = cd_now_ns();
    for (uint32_t k = 0; k < sink->count; k += NARROW_BATCH)
        narrow_batch(c, sink->buf + k, sink->count - k < NARROW_BATCH ? sink->count - k : NARROW_BATCH);
    c->st->candidates += sink->count;
    c->st->narrow_tests += sink->count;
    sink->count = 0;
    c->narrow_ns += cd_now_ns() - t0;
}

// Candidates and narrow tests of one part into its own list (any thread).
static void run_part(cd_broad *b, const cd_scene *s, uint32_t k)
{
    cd_broad_part *part = &b->parts[k];
    part->pairs.count = 0;
    memset(&part->st, 0, sizeof part->st);
    cd_pair buf[SINK_CAPACITY];
    narrow_ctx ctx = {s, b->method->boxes_tested, &part->pairs, &part->st, 0};
    cd_pair_sink sink = {buf, 0, SINK_CAPACITY, narrow_flush, &ctx};
    b->method->candidates_part(b->self, s, k, CD_BROAD_PARTS, &sink, &part->st);
    narrow_flush(&sink);
    part->narrow_ns = ctx.narrow_ns;
}

// The parts on the configured threads, then their lists joined in part order, so the pairs and
// their order are the same for every thread count. Returns the narrow share of the workers' time.
static double frame_parts(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st)
{
    int threads = b->params.threads > 1 ? b->params.threads : 1;
    uint64_t busy[CD_BROAD_PARTS];
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (int k = 0; k < (int)CD_BROAD_PARTS; ++k) {
        uint64_t t0 = cd_now_ns();
        run_part(b, s, (uint32_t)k);
        busy[k] = cd_now_ns() - t0;
    }
    uint64_t narrow = 0, total = 0;
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) {
        const cd_broad_part *part = &b->parts[k];
        if (part->pairs.count) {  // an empty part's list may never have been allocated (memcpy from NULL)
            if (out->count + part->pairs.count > out->capacity)
                cd_grow((void **)&out->items, sizeof *out->items, &out->capacity, out->count + part->pairs.count);
            memcpy(out->items + out->count, part->pairs.items, part->pairs.count * sizeof *out->items);
            out->count += part->pairs.count;
        }
        st->bv_tests += part->st.bv_tests;
        st->candidates += part->st.candidates;
        st->narrow_tests += part->st.narrow_tests;
        narrow += part->narrow_ns;
        total += busy[k];
    }
    return total ? (double)narrow / (double)total : 0.0;
}

void cd_broad_frame(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st, cd_frame_times *t)
{
    memset(st, 0, sizeof *st);
    out->count = 0;
    uint64_t t0 = cd_now_ns(), narrow_ns;
    b->method->update(b->self, s);
    if (b->parts) {
        uint64_t t1 = cd_now_ns();
        double share = frame_parts(b, s, out, st);
        narrow_ns = (uint64_t)(share * (double)(cd_now_ns() - t1));
    } else {
        cd_pair buf[SINK_CAPACITY];
        narrow_ctx ctx = {s, b->method->boxes_tested, out, st, 0};
        cd_pair_sink sink = {buf, 0, SINK_CAPACITY, narrow_flush, &ctx};
        b->method->candidates(b->self, s, &sink, st);
        narrow_flush(&sink);
        narrow_ns = ctx.narrow_ns;
    }
    uint64_t total = cd_now_ns() - t0;
    st->pairs = out->count;
    if (b->method->shape_stats) b->method->shape_stats(b->self, st);
    if (t) {
        t->narrow_ms = (double)narrow_ns * 1e-6;
        t->broad_ms = (double)(total - narrow_ns) * 1e-6;
    }
}

void cd_pair_list_push(cd_pair_list *l, cd_pair p)
{
    if (l->count == l->capacity) cd_grow((void **)&l->items, sizeof *l->items, &l->capacity, l->count + 1);
    l->items[l->count++] = p;
}

static int pair_cmp(const void *x, const void *y)
{
    const cd_pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : (p->b > q->b);
}

void cd_pair_list_sort(cd_pair_list *l)
{
    if (l->count > 1) qsort(l->items, l->count, sizeof *l->items, pair_cmp);
}

void cd_pair_list_free(cd_pair_list *l)
{
    cd_free(l->items);
    *l = (cd_pair_list){0};
}
