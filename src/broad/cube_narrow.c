// SPDX-License-Identifier: MIT
// The cube narrow step: batches of candidates, their pose records requested ahead, the boxes
// gated where the method has not tested them, then the batched exact test (narrow's
// cd_posef_pairs_overlap) on groups of pairs.
#include "cube_narrow.h"

// Candidates arrive in the broad phase's (spatial) order, so their ids are scattered over the
// scene arrays and each exact test would wait on several cache misses in turn. The narrow step
// therefore works in batches: the pose records of a batch are requested while the one before it
// is tested (independent loads the CPU overlaps); a batch's float boxes are tested where the
// method has not, then the batched SAT runs on groups of pairs straight from the pose records
// (sixteen per float filter with AVX-512, eight with AVX2, else four). The pairs the float filter
// leaves undecided (those in contact, within its error band) are gathered over the batch and
// settled by the double build, eight (AVX-512) or four (AVX2) at a time: in Bullet's gravity ball a
// quarter of the candidates are in contact, and one scalar test each took a third of the frame.
// Same predicate as cd_cube_pair_overlap, on the same bits (the lower slot first), the pairs in
// the same order. Batching roughly halved the time per candidate at 100 000 cubes.
enum { SAT_MAX_LANES = 16 };  // pairs per call of the widest build
enum { NARROW_BATCH = 64 };
// The pose records are requested ahead only when they outgrow this: smaller arrays stay in a
// core's L2, where the requests only cost instructions. On the 2-vCPU AMD EPYC Zen 5 guest (1 MiB
// L2), grid_multi at 10 000 cubes (400 KB of poses), interleaved, without the requests: Bullet's
// gravity ball 1.430-1.466 -> 1.390-1.410 ms, clusters 0.570-0.584 -> 0.549-0.559, uniform,
// ground and level the same or 1-2 % faster; at 30 000 cubes (1.2 MB) 0-4 % faster, at 60 000
// and 100 000 the same within the noise. The limit stays at half this guest's L2, for CPUs with
// less of it.
enum { NARROW_PREFETCH_MIN_BYTES = 512 << 10 };

// Request the pose records of pair p (most candidates pass the box test: the fast methods emit
// only overlapping boxes). Both ends of each record, always: asking for the second line only where
// a record straddles two (a branch on its address, taken a third of the time at random) cost the
// narrow step a third more (100 000 cubes, 2-vCPU Intel Xeon guest: 0.75 -> 1.20-1.26 ms all
// moving, 0.18 -> 0.24 at a tenth moving), a request into L2 only (locality hint 1) 5 %, and
// leaving out the first cube's record (the probe's, shared by its window's pairs) 5-7 %.
static inline void prefetch_pair(const cd_scene *s, cd_pair p)
{
    CD_ASSERT(p.a != p.b && p.a < s->count && p.b < s->count);
    __builtin_prefetch(&s->pose[p.a]);
    __builtin_prefetch((const char *)&s->pose[p.a] + sizeof(cd_posef) - 1);  // 40-byte records may straddle lines
    __builtin_prefetch(&s->pose[p.b]);
    __builtin_prefetch((const char *)&s->pose[p.b] + sizeof(cd_posef) - 1);
}

// Pairs [0, m), whose records were requested before (in a small scene none are: m_next is 0); the
// records of next[0, m_next) are requested along the way, a group's worth per SAT, so their misses
// overlap this batch's arithmetic instead of stalling in one burst before it (the fill buffers
// hold far fewer than 4 × 64 lines).
static void narrow_batch(cube_narrow *c, const cd_pair *pairs, uint32_t m, const cd_pair *next, uint32_t m_next)
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
    unsigned w = c->width, wl = (unsigned)__builtin_ctz(w);  // pairs per SAT, a power of two: its log
    CD_ASSERT(w == 1u << wl);  // group k / w and lane k % w by shifts, not a division per settled pair
    for (uint32_t k = nk; k & (w - 1); ++k) keep[k] = keep[nk - 1];  // a partial group repeats its last pair
    cd_pair_list *out = c->out;
    if (out->capacity - out->count < nk)
        cd_grow((void **)&out->items, sizeof *out->items, &out->capacity, out->count + nk);
    cd_pair *end = out->items + out->count;
    // The float filter's answers per group, and the lanes it left undecided (pairs in contact,
    // within its error band): those go to the double build together, a full group of its lanes
    // at a time instead of one scalar test each.
    unsigned hits[(NARROW_BATCH + SAT_MAX_LANES - 1) / 4], nu = 0;
    const cd_posef *ua[NARROW_BATCH + SAT_MAX_LANES], *ub[NARROW_BATCH + SAT_MAX_LANES];
    uint32_t at[NARROW_BATCH + SAT_MAX_LANES];
    for (uint32_t k = 0; k < nk; k += w) {
        for (uint32_t e = asked + w; asked < e && asked < m_next; ++asked) prefetch_pair(s, next[asked]);
        const cd_posef *pa[SAT_MAX_LANES], *pb[SAT_MAX_LANES];
        for (unsigned l = 0; l < w; ++l) {
            // The lower slot first (cd_cube_pair_overlap's order), without a branch: which one it
            // is goes either way at random.
            uint32_t a = pairs[keep[k + l]].a, b = pairs[keep[k + l]].b;
            uint32_t swap = (a ^ b) & (0u - (uint32_t)(a > b));
            pa[l] = &s->pose[a ^ swap], pb[l] = &s->pose[b ^ swap];
        }
        unsigned unsure, live = nk - k < w ? (1u << (nk - k)) - 1 : ~0u;  // a partial group's repeated lanes
        hits[k >> wl] = cd_posef_pairs_filter(c->sat, pa, pb, w, &unsure) & live;
        for (unsure &= live; unsure; unsure &= unsure - 1) {
            unsigned l = (unsigned)__builtin_ctz(unsure);
            ua[nu] = pa[l], ub[nu] = pb[l], at[nu++] = k + l;
        }
    }
    for (unsigned i = 0; i < nu; i += c->settle_width) {
        unsigned n = nu - i < c->settle_width ? nu - i : c->settle_width;
        for (unsigned hit = cd_posef_pairs_overlap(c->settle, ua + i, ub + i, n, NULL); hit; hit &= hit - 1) {
            uint32_t k = at[i + (unsigned)__builtin_ctz(hit)];
            hits[k >> wl] |= 1u << (k & (w - 1));
        }
    }
    // Only the overlapping pairs (about 4 in 10) are looked up and stored, by the set bits of each
    // group's answer: a branch per pair would be one no predictor learns, but with sixteen lanes
    // the loop's exit is one mispredict per group.
    for (uint32_t k = 0; k < nk; k += w)
        for (unsigned hit = hits[k >> wl]; hit; hit &= hit - 1) {
            uint32_t l = k + (uint32_t)__builtin_ctz(hit);
            uint32_t a = cd_scene_ident(s, pairs[keep[l]].a), b = cd_scene_ident(s, pairs[keep[l]].b);
            *end++ = (cd_pair){a < b ? a : b, a < b ? b : a};
        }
    out->count = (size_t)(end - out->items);
    for (; asked < m_next; ++asked) prefetch_pair(s, next[asked]);
}

void cube_narrow_flush(cd_pair_sink *sink)
{
    cube_narrow *c = sink->ctx;
    uint64_t t0 = cd_now_ns();
    uint32_t n = sink->count, ahead = (size_t)c->scene->count * sizeof(cd_posef) > NARROW_PREFETCH_MIN_BYTES;
    for (uint32_t k = 0; ahead && k < n && k < NARROW_BATCH; ++k) prefetch_pair(c->scene, sink->buf[k]);
    for (uint32_t k = 0; k < n; k += NARROW_BATCH) {
        uint32_t m = n - k < NARROW_BATCH ? n - k : NARROW_BATCH, k2 = k + m;
        narrow_batch(c, sink->buf + k, m, sink->buf + k2, ahead ? (n - k2 < NARROW_BATCH ? n - k2 : NARROW_BATCH) : 0);
    }
    c->st->candidates += sink->count;
    c->st->narrow_tests += sink->count;
    sink->count = 0;
    c->narrow_ns += cd_now_ns() - t0;
}
