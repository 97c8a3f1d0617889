// SPDX-License-Identifier: MIT
// The shared frame driver and narrow step of every broad phase.
#include "cd_broad.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

// 4096 pairs = 32 KiB: the batch stays in L1/L2 while the narrow step reads it.
enum { SINK_CAPACITY = 4096 };

cd_broad_params cd_broad_params_default(void)
{
    return (cd_broad_params){.depth = 4, .looseness = 2.0, .update = CD_UPDATE_REBUILD, .cell_size = 0.0, .threads = 1};
}

static cd_sat_build frame_sat_build(void);

cd_broad *cd_broad_create(const cd_broad_method *m, const cd_broad_params *p, const cd_scene *s)
{
    cd_broad *b = cd_alloc(sizeof *b);
    b->method = m;
    b->params = *p;
    b->self = m->create(p, s);
    b->parts = m->candidates_part ? cd_alloc_zero(CD_BROAD_PARTS, sizeof *b->parts) : NULL;
    b->sat = frame_sat_build();
    b->layout = s ? s->layout : 0;
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
    cd_sat_build sat;  // the SAT build (frame_sat_build)
} narrow_ctx;

enum { SAT_MAX_LANES = 16 };  // pairs per SAT in the widest build
#define SAT_W 4
#include "sat_lanes.h"
#if CD_X86_SIMD
#define SAT_W 8
#define SAT_TARGET "avx2,avx512f,avx512vl"
#include "sat_lanes.h"
#endif

// The lanes of four cubes p[k] from their pose records, one field at a time (any CPU).
__attribute__((always_inline)) static inline void obb4_of(const cd_posef *const p[4], obb4 *o)
{
#define CD_LANES(f) ((lanes4){p[0]->f, p[1]->f, p[2]->f, p[3]->f})
    for (int k = 0; k < 3; ++k) o->c[k] = CD_LANES(c[k]), o->e[k] = CD_LANES(h[k]);
    obb4_axes(o, CD_LANES(q[0]), CD_LANES(q[1]), CD_LANES(q[2]), CD_LANES(q[3]));
#undef CD_LANES
}

static unsigned cube_sat4_baseline(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
    obb4 a, b;
    obb4_of(pa, &a);
    obb4_of(pb, &b);
    return sat4_of(&a, &b);
}

#define SAT_SIMD CD_X86_SIMD
#if SAT_SIMD
#include "cd_transpose.h"
// h[1] and h[2] of records p[0..3] as (h[1] of the four, h[2] of the four): one 64-bit load each.
__attribute__((always_inline, target("avx2"))) static inline void h12_of4(const cd_posef *const p[4], __m128 *h1,
                                                                           __m128 *h2)
{
    __m128 v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)&p[k]->h[1]));
    __m128 ab = _mm_unpacklo_ps(v[0], v[1]), cd = _mm_unpacklo_ps(v[2], v[3]);  // (h1a, h1b, h2a, h2b), ...
    *h1 = _mm_movelh_ps(ab, cd), *h2 = _mm_movehl_ps(cd, ab);
}

// obb4_of for AVX2: each record's first eight floats in one load, four records transposed (the
// 8 × 8 transpose with the second half repeated), the same floats, so the same lanes. At 100 000
// cubes, interleaved (10 rounds): narrow 1.74 → 1.64 ms fastest, 2.12 → 1.98 median.
__attribute__((always_inline, target("avx2"))) static inline void obb4_of_avx2(const cd_posef *const p[4], obb4 *o)
{
    __m256 r[8], f[8];
    for (int k = 0; k < 4; ++k) r[k] = r[k + 4] = _mm256_loadu_ps(&p[k]->c[0]);
    cd_transpose8(r, f);
#define LANES(v) ((lanes4)_mm256_cvtps_pd(_mm256_castps256_ps128(v)))
    for (int k = 0; k < 3; ++k) o->c[k] = LANES(f[k]);
    o->e[0] = LANES(f[7]);
    __m128 h1, h2;
    h12_of4(p, &h1, &h2);
    o->e[1] = (lanes4)_mm256_cvtps_pd(h1), o->e[2] = (lanes4)_mm256_cvtps_pd(h2);
    obb4_axes(o, LANES(f[3]), LANES(f[4]), LANES(f[5]), LANES(f[6]));
#undef LANES
}

__attribute__((target("avx2"))) static unsigned cube_sat4_avx2(const cd_posef *const pa[4], const cd_posef *const pb[4])
{
    obb4 a, b;
    obb4_of_avx2(pa, &a);
    obb4_of_avx2(pb, &b);
    return sat4_of(&a, &b);
}

// The lanes of eight cubes for AVX-512 (eight doubles per register).
__attribute__((always_inline, target("avx2,avx512f,avx512vl"))) static inline void obb8_of(const cd_posef *const p[8],
                                                                                           obb8 *o)
{
    __m256 r[8], f[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(&p[k]->c[0]);
    cd_transpose8(r, f);
    for (int k = 0; k < 3; ++k) o->c[k] = (lanes8)_mm512_cvtps_pd(f[k]);
    o->e[0] = (lanes8)_mm512_cvtps_pd(f[7]);
    __m128 h1[2], h2[2];
    h12_of4(p, &h1[0], &h2[0]);
    h12_of4(p + 4, &h1[1], &h2[1]);
    o->e[1] = (lanes8)_mm512_cvtps_pd(_mm256_set_m128(h1[1], h1[0]));
    o->e[2] = (lanes8)_mm512_cvtps_pd(_mm256_set_m128(h2[1], h2[0]));
    obb8_axes(o, (lanes8)_mm512_cvtps_pd(f[3]), (lanes8)_mm512_cvtps_pd(f[4]), (lanes8)_mm512_cvtps_pd(f[5]),
              (lanes8)_mm512_cvtps_pd(f[6]));
}

// Eight pairs per SAT where cd_cpu_avx512 says so. At 100 000 cubes, interleaved (8 rounds): narrow
// 1.88 → 1.46 ms fastest, 2.03 → 1.61 median, with broad unchanged (no clock penalty seen).
__attribute__((target("avx2,avx512f,avx512vl"))) static unsigned cube_sat8_avx512(const cd_posef *const pa[8],
                                                                                  const cd_posef *const pb[8])
{
    obb8 a, b;
    obb8_of(pa, &a);
    obb8_of(pb, &b);
    return sat8_of(&a, &b);
}

#include "sat_float16.h"
#endif

int cd_cube_sat_runs(cd_sat_build build)
{
    switch (build) {
    case CD_SAT_FRAME:
    case CD_SAT_BASELINE: return 1;
#if SAT_SIMD
    case CD_SAT_AVX2: __builtin_cpu_init(); return __builtin_cpu_supports("avx2");
    case CD_SAT_AVX512_FLOAT:
    case CD_SAT_AVX512: return cd_cpu_avx512();
#endif
    default: return 0;
    }
}

// The frame's build for this process: sixteen float lanes with AVX-512, else four with AVX2, else
// four on SSE2 halves.
static cd_sat_build frame_sat_build(void)
{
    return cd_cube_sat_runs(CD_SAT_AVX512_FLOAT) ? CD_SAT_AVX512_FLOAT
                                                 : (cd_cube_sat_runs(CD_SAT_AVX2) ? CD_SAT_AVX2 : CD_SAT_BASELINE);
}

// Pairs per call of build b.
static unsigned sat_width(cd_sat_build b) { return b == CD_SAT_AVX512_FLOAT ? 16 : (b == CD_SAT_AVX512 ? 8 : 4); }

// Pairs p[0..n) (n a multiple of the build's width, at most 16) of build b; *unsure gets the lanes
// the float filter left undecided, which this function then decides with the double test.
static unsigned cube_sat(cd_sat_build b, const cd_posef *const pa[16], const cd_posef *const pb[16], unsigned n,
                         unsigned *unsure)
{
    unsigned bits = 0;
    *unsure = 0;
#if SAT_SIMD
    if (b == CD_SAT_AVX512_FLOAT) {
        bits = cube_sat16_float(pa, pb, unsure);
        for (unsigned m = *unsure; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            cd_obb oa = cd_posef_obb(pa[l]), ob = cd_posef_obb(pb[l]);
            bits |= (unsigned)cd_obb_obb_overlap(&oa, &ob) << l;
        }
        return bits;
    }
    if (b == CD_SAT_AVX512) {
        for (unsigned k = 0; k < n; k += 8) bits |= cube_sat8_avx512(pa + k, pb + k) << k;
        return bits;
    }
    if (b == CD_SAT_AVX2) {
        for (unsigned k = 0; k < n; k += 4) bits |= cube_sat4_avx2(pa + k, pb + k) << k;
        return bits;
    }
#endif
    for (unsigned k = 0; k < n; k += 4) bits |= cube_sat4_baseline(pa + k, pb + k) << k;
    return bits;
}

// The eight pairs in the lanes of build b (the float build's sixteen hold them twice).
static unsigned pairs_sat(const cd_scene *s, const cd_pair pairs[8], cd_sat_build b, unsigned *unsure)
{
    const cd_posef *pa[SAT_MAX_LANES], *pb[SAT_MAX_LANES];
    for (int k = 0; k < SAT_MAX_LANES; ++k) pa[k] = &s->pose[pairs[k % 8].a], pb[k] = &s->pose[pairs[k % 8].b];
    unsigned bits = cube_sat(b, pa, pb, sat_width(b) > 8 ? sat_width(b) : 8, unsure);
    *unsure &= 0xFFu;
    return bits & 0xFFu;
}

unsigned cd_cube_pairs_sat(const cd_scene *s, const cd_pair pairs[8], cd_sat_build build)
{
    CD_ASSERT(cd_cube_sat_runs(build));
    unsigned unsure;
    return pairs_sat(s, pairs, build == CD_SAT_FRAME ? frame_sat_build() : build, &unsure);
}

unsigned cd_cube_pairs_sat_unsure(const cd_scene *s, const cd_pair pairs[8])
{
    if (!cd_cube_sat_runs(CD_SAT_AVX512_FLOAT)) return 0;
    unsigned unsure;
    pairs_sat(s, pairs, CD_SAT_AVX512_FLOAT, &unsure);
    return unsure;
}

// Candidates arrive in the broad phase's (spatial) order, so their ids are scattered over the
// scene arrays and each exact test would wait on several cache misses in turn. The narrow step
// therefore works in batches: the pose records of a batch are requested while the one before it
// is tested (independent loads the CPU overlaps); a batch's float boxes are tested where the
// method has not, then the SAT runs on groups of pairs straight from the pose records (cube_sat:
// sixteen per float filter with AVX-512, else four). Same predicate as cd_cube_pair_overlap, on the same bits. At 100 000 cubes the batches
// took the narrow step from 175 to 90 ns per candidate, four lanes built from the poses (instead
// of two on stored cd_obb copies) from 4.0–5.0 to 2.6–2.8 ms per frame (66 000 candidates), and
// the float filter against eight double lanes from 2.30–2.88 to 1.70–1.94 ms (four interleaved
// runs; about 1 pair in 1 000 of random poses falls in its band and gets the double test).
enum { NARROW_BATCH = 64 };

// Request the pose records of pair p (most candidates pass the box test: the fast methods emit
// only overlapping boxes).
static inline void prefetch_pair(const cd_scene *s, cd_pair p)
{
    CD_ASSERT(p.a != p.b && p.a < s->count && p.b < s->count);
    __builtin_prefetch(&s->pose[p.a]);
    __builtin_prefetch((const char *)&s->pose[p.a] + sizeof(cd_posef) - 1);  // 40-byte records may straddle lines
    __builtin_prefetch(&s->pose[p.b]);
    __builtin_prefetch((const char *)&s->pose[p.b] + sizeof(cd_posef) - 1);
}

// Pairs [0, m), whose records were requested before; the records of next[0, m_next) are requested
// along the way, a group's worth per SAT, so their misses overlap this batch's arithmetic instead
// of stalling in one burst before it (the fill buffers hold far fewer than 4 × 64 lines).
static void narrow_batch(narrow_ctx *c, const cd_pair *pairs, uint32_t m, const cd_pair *next, uint32_t m_next)
{
    const cd_scene *s = c->scene;
    cd_aabbf aa[NARROW_BATCH], ab[NARROW_BATCH];
    uint32_t keep[NARROW_BATCH + SAT_MAX_LANES - 1], nk = 0, asked = 0;
    if (c->boxes_tested) {
        for (uint32_t k = 0; k < m; ++k) keep[nk++] = k;
    } else {
        for (uint32_t k = 0; k < m; ++k) {
            aa[k] = s->box[pairs[k].a];
            ab[k] = s->box[pairs[k].b];
        }
        for (uint32_t k = 0; k < m; ++k)
            if (cd_aabbf_overlap(&aa[k], &ab[k])) keep[nk++] = k;
    }
    unsigned w = sat_width(c->sat);  // pairs per SAT
    for (uint32_t k = nk; k % w; ++k) keep[k] = keep[nk - 1];  // a partial group repeats its last pair
    // Only the overlapping pairs (about 4 in 10) are looked up and stored, by the set bits of each
    // group's answer: a branch per pair would be one no predictor learns, but with sixteen lanes
    // the loop's exit is one mispredict per group. With the requests spread over the batch before
    // (narrow_batch's next), at 100 000 cubes the narrow step's median over six interleaved runs
    // went from 1.64 to 1.55 ms (storing every pair and moving the end past the overlapping ones,
    // the requests in one burst per batch).
    cd_pair_list *out = c->out;
    if (out->capacity - out->count < nk) cd_grow((void **)&out->items, sizeof *out->items, &out->capacity, out->count + nk);
    cd_pair *end = out->items + out->count;
    for (uint32_t k = 0; k < nk; k += w) {
        for (uint32_t e = asked + w; asked < e && asked < m_next; ++asked) prefetch_pair(s, next[asked]);
        const cd_posef *pa[SAT_MAX_LANES], *pb[SAT_MAX_LANES];
        for (unsigned l = 0; l < w; ++l) pa[l] = &s->pose[pairs[keep[k + l]].a], pb[l] = &s->pose[pairs[keep[k + l]].b];
        unsigned unsure, hit = cube_sat(c->sat, pa, pb, w, &unsure);
        if (nk - k < w) hit &= (1u << (nk - k)) - 1;  // a partial group's repeated lanes
        for (; hit; hit &= hit - 1) {
            uint32_t l = k + (uint32_t)__builtin_ctz(hit);
            uint32_t a = cd_scene_ident(s, pairs[keep[l]].a), b = cd_scene_ident(s, pairs[keep[l]].b);
            *end++ = (cd_pair){a < b ? a : b, a < b ? b : a};
        }
    }
    out->count = (size_t)(end - out->items);
    for (; asked < m_next; ++asked) prefetch_pair(s, next[asked]);
}

static void narrow_flush(cd_pair_sink *sink)
{
    narrow_ctx *c = sink->ctx;
    uint64_t t0 = cd_now_ns();
    uint32_t n = sink->count;
    for (uint32_t k = 0; k < n && k < NARROW_BATCH; ++k) prefetch_pair(c->scene, sink->buf[k]);
    for (uint32_t k = 0; k < n; k += NARROW_BATCH) {
        uint32_t m = n - k < NARROW_BATCH ? n - k : NARROW_BATCH, k2 = k + m;
        narrow_batch(c, sink->buf + k, m, sink->buf + k2, n - k2 < NARROW_BATCH ? n - k2 : NARROW_BATCH);
    }
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
    narrow_ctx ctx = {s, b->method->boxes_tested, &part->pairs, &part->st, 0, b->sat};
    cd_pair_sink sink = {buf, 0, SINK_CAPACITY, narrow_flush, &ctx};
    b->method->candidates_part(b->self, s, k, CD_BROAD_PARTS, &sink, &part->st);
    narrow_flush(&sink);
    part->narrow_ns = ctx.narrow_ns;
}

// Part k, its time into busy[k].
static void run_part_timed(cd_broad *b, const cd_scene *s, uint32_t k, uint64_t *busy)
{
    uint64_t t0 = cd_now_ns();
    run_part(b, s, k);
    busy[k] = cd_now_ns() - t0;
}

// The parts on the configured threads, then their lists joined in part order, so the pairs and
// their order are the same for every thread count. Returns the narrow share of the workers' time.
static double frame_parts(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st)
{
    int threads = b->params.threads > 1 ? b->params.threads : 1;
    uint64_t busy[CD_BROAD_PARTS];
    if (b->method->parts_by_thread) {
        cd_part_queue queue;
        if (threads > CD_PART_QUEUE_MAX_THREADS) threads = CD_PART_QUEUE_MAX_THREADS;
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
#pragma omp single
            cd_part_queue_deal(&queue, CD_BROAD_PARTS, (uint32_t)omp_get_num_threads());
            uint32_t k;
            while (cd_part_queue_take(&queue, (uint32_t)omp_get_thread_num(), &k)) run_part_timed(b, s, k, busy);
        }
    } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
        for (int k = 0; k < (int)CD_BROAD_PARTS; ++k) run_part_timed(b, s, (uint32_t)k, busy);
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

// The scene reordered its slots since the method's last frame: one reorder is followed through the
// method's remap; after several (frames the method missed), a method that keeps slots starts anew.
static void follow_layout(cd_broad *b, const cd_scene *s)
{
    if (s->layout == b->layout) return;
    if (b->method->remap && s->layout == b->layout + 1) {
        b->method->remap(b->self, s);
    } else if (b->method->remap) {
        b->method->destroy(b->self);
        b->self = b->method->create(&b->params, s);
    }
    b->layout = s->layout;
}

void cd_broad_frame(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st, cd_frame_times *t)
{
    memset(st, 0, sizeof *st);
    out->count = 0;
    uint64_t t0 = cd_now_ns(), narrow_ns;
    follow_layout(b, s);
    b->method->update(b->self, s);
    if (b->parts) {
        uint64_t t1 = cd_now_ns();
        double share = frame_parts(b, s, out, st);
        narrow_ns = (uint64_t)(share * (double)(cd_now_ns() - t1));
    } else {
        cd_pair buf[SINK_CAPACITY];
        narrow_ctx ctx = {s, b->method->boxes_tested, out, st, 0, b->sat};
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
