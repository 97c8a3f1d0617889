// SPDX-License-Identifier: MIT
// Private to the row grids (grid, grid_multi): boxes kept as coordinate columns, sorted by lo.x
// within a row, and tested against one box CD_ROW_LANES at a time (SSE2 compares; one load fills
// the lanes of a block), so that a window of 0–3 boxes costs one block test and no branch on
// its length.
#ifndef ROW_BLOCKS_H
#define ROW_BLOCKS_H

#include "float_bounds.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { CD_ROW_LANES = 4 };

/// Box slots as columns: one float array per bound coordinate, one id array.
typedef struct cd_row_cols {
    float *lo[3], *hi[3];
    uint32_t *id;
} cd_row_cols;

/// One box, also broadcast into the lanes of a block test.
typedef struct cd_row_probe {
#ifdef __SSE2__
    __m128 vlo[3], vhi[3];
#endif
    float lo[3], hi[3];
    uint32_t id;
} cd_row_probe;

/// The box in slot p.
static inline cd_row_probe cd_row_probe_of(const cd_row_cols *c, uint32_t p)
{
    cd_row_probe a;
    for (int k = 0; k < 3; ++k) a.lo[k] = c->lo[k][p], a.hi[k] = c->hi[k][p];
#ifdef __SSE2__
    for (int k = 0; k < 3; ++k) a.vlo[k] = _mm_set1_ps(a.lo[k]), a.vhi[k] = _mm_set1_ps(a.hi[k]);
#endif
    a.id = c->id[p];
    return a;
}

/// Bit l set when box a overlaps slot q + l (closed boxes), for every l < CD_ROW_LANES; the
/// caller masks or pads the lanes past a row.
static inline unsigned cd_row_block_hits(const cd_row_cols *c, const cd_row_probe *a, uint32_t q)
{
#ifdef __SSE2__
    __m128 m = _mm_and_ps(_mm_cmple_ps(_mm_loadu_ps(c->lo[0] + q), a->vhi[0]),
                          _mm_cmple_ps(a->vlo[0], _mm_loadu_ps(c->hi[0] + q)));
    for (int k = 1; k < 3; ++k)
        m = _mm_and_ps(m, _mm_and_ps(_mm_cmple_ps(_mm_loadu_ps(c->lo[k] + q), a->vhi[k]),
                                     _mm_cmple_ps(a->vlo[k], _mm_loadu_ps(c->hi[k] + q))));
    return (unsigned)_mm_movemask_ps(m);
#else
    unsigned bits = 0;
    for (unsigned l = 0; l < CD_ROW_LANES; ++l) {
        int hit = 1;
        for (int k = 0; k < 3; ++k) hit &= (c->lo[k][q + l] <= a->hi[k]) & (a->lo[k] <= c->hi[k][q + l]);
        bits |= (unsigned)hit << l;
    }
    return bits;
#endif
}

/// Bit l set when slot q + l starts before x (its lo.x < x).
static inline unsigned cd_row_block_before(const cd_row_cols *c, uint32_t q, float x)
{
#ifdef __SSE2__
    return (unsigned)_mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(c->lo[0] + q), _mm_set1_ps(x)));
#else
    unsigned bits = 0;
    for (unsigned l = 0; l < CD_ROW_LANES; ++l) bits |= (unsigned)(c->lo[0][q + l] < x) << l;
    return bits;
#endif
}

/// Point c's six coordinate columns into col, stride floats apart (lo x, y, z, then hi x, y, z).
static inline void cd_row_cols_in(cd_row_cols *c, float *col, size_t stride)
{
    for (int k = 0; k < 3; ++k) c->lo[k] = col + k * stride, c->hi[k] = col + (3 + k) * stride;
}

/// Report (aid, ids[q + l] & id_mask) for each bit l of hits, flushing the sink first when a
/// block's worth of room is missing. Called only on a hit (about one block in eight or fewer):
/// the branch around it is predicted where a branch-free store of every lane was not.
static inline void cd_row_emit(const uint32_t *ids, uint32_t id_mask, uint32_t aid, uint32_t q, unsigned hits,
                               cd_pair_sink *sink)
{
    if (sink->capacity - sink->count < CD_ROW_LANES) sink->flush(sink);
    cd_pair *out = sink->buf + sink->count;
    for (; hits; hits &= hits - 1) *out++ = (cd_pair){aid, ids[q + (uint32_t)__builtin_ctz(hits)] & id_mask};
    sink->count = (uint32_t)(out - sink->buf);
}

/// Slot k as a record, and back.
static inline id_box cd_row_get(const cd_row_cols *c, size_t k)
{
    return (id_box){{c->lo[0][k], c->lo[1][k], c->lo[2][k]}, {c->hi[0][k], c->hi[1][k], c->hi[2][k]}, c->id[k], 0};
}

static inline void cd_row_put(const cd_row_cols *c, size_t k, const id_box *b)
{
    for (int j = 0; j < 3; ++j) c->lo[j][k] = b->lo[j], c->hi[j][k] = b->hi[j];
    c->id[k] = b->id;
}

/// Slot a0 + k, whose lo.x is below that of slot a0 + k − gap, carried down its chain of slots
/// gap apart to after the last whose lo.x ≤ its own (one step of gap-insertion sort).
static inline void cd_row_sink(const cd_row_cols *c, size_t a0, uint32_t k, uint32_t gap)
{
    const float *x = c->lo[0] + a0;
    id_box v = cd_row_get(c, a0 + k);
    uint32_t j = k;
    do {
        id_box w = cd_row_get(c, a0 + j - gap);
        cd_row_put(c, a0 + j, &w);
        j -= gap;
    } while (j >= gap && v.lo[0] < x[j - gap]);
    cd_row_put(c, a0 + j, &v);
}

/// One pass of gap-insertion sort by lo.x over slots [a0, a0 + n).
static inline void cd_row_sort_gap(const cd_row_cols *c, size_t a0, uint32_t n, uint32_t gap)
{
    const float *x = c->lo[0] + a0;
    for (uint32_t k = gap; k < n; ++k)
        if (x[k] < x[k - gap]) cd_row_sink(c, a0, k, gap);
}

/// Sort slots [a0, a0 + n) by lo.x: insertion sort, since a row comes in last frame's order and
/// boxes move little between frames (a fresh layout pays O(k²) once on rows of a few dozen boxes).
/// The in-order stretches between the few slots to carry down are passed four slots per compare
/// (the same slots found as one at a time: a lane is set exactly where x[k] < x[k − 1], NaN
/// never, and the loads come after every earlier slot's move).
static inline void cd_row_sort(const cd_row_cols *c, size_t a0, uint32_t n)
{
    const float *x = c->lo[0] + a0;
    for (uint32_t k = 1; k < n; ++k) {
#ifdef __SSE2__
        for (unsigned d; k + CD_ROW_LANES <= n; k += CD_ROW_LANES)
            if ((d = (unsigned)_mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(x + k), _mm_loadu_ps(x + k - 1))))) {
                k += (uint32_t)__builtin_ctz(d);
                break;
            }
        if (k >= n) break;
#endif
        if (x[k] < x[k - 1]) cd_row_sink(c, a0, k, 1);
    }
}

/// Slots [a0, a0 + k) sorted by lo.x: insert slots [a0 + k, a0 + n) one at a time, each after the
/// boxes whose lo.x ≤ its own (where cd_row_sort would put it), found by binary search and made
/// room for with one memmove per column. For the few boxes new to a row, which arrive at its end
/// and would otherwise be carried down half the row one slot at a time. Where CD_ROW_MERGE_MIN or
/// more are new, CD_ROW_MERGE_CHUNK at a time are sorted (stably) on the side and merged into the
/// row from its end, each after the equal keys before it: the same order as one at a time, for one
/// pass over the row per chunk instead of a memmove of half the row per box (falling boxes cross
/// rows in crowds: about 24 of a row's 170 slots are new each frame in the free_fall scene).
enum { CD_ROW_MERGE_MIN = 8, CD_ROW_MERGE_CHUNK = 64 };
static inline void cd_row_insert_tail(const cd_row_cols *c, size_t a0, uint32_t k, uint32_t n)
{
    const float *x = c->lo[0] + a0;
    while (n - k >= CD_ROW_MERGE_MIN) {
        uint32_t t = n - k < CD_ROW_MERGE_CHUNK ? n - k : CD_ROW_MERGE_CHUNK;
        id_box tmp[CD_ROW_MERGE_CHUNK];
        for (uint32_t j = 0; j < t; ++j) {  // stable insertion sort of the chunk, by lo.x
            id_box v = cd_row_get(c, a0 + k + j);
            uint32_t i = j;
            for (; i > 0 && v.lo[0] < tmp[i - 1].lo[0]; --i) tmp[i] = tmp[i - 1];
            tmp[i] = v;
        }
        uint32_t i = k, j = t, w = k + t;  // merged from the back, the chunk after equal keys
        while (j > 0) {
            --w;
            if (i > 0 && x[i - 1] > tmp[j - 1].lo[0]) {
                id_box b = cd_row_get(c, a0 + --i);
                cd_row_put(c, a0 + w, &b);
            } else
                cd_row_put(c, a0 + w, &tmp[--j]);
        }
        k += t;
    }
    for (; k < n; ++k) {
        id_box v = cd_row_get(c, a0 + k);
        uint32_t lo = 0, hi = k;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (x[mid] <= v.lo[0])
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t at = a0 + lo, m = k - lo;
        if (m) {
            for (int j = 0; j < 3; ++j) {
                memmove(c->lo[j] + at + 1, c->lo[j] + at, m * sizeof *c->lo[j]);
                memmove(c->hi[j] + at + 1, c->hi[j] + at, m * sizeof *c->hi[j]);
            }
            memmove(c->id + at + 1, c->id + at, m * sizeof *c->id);
        }
        cd_row_put(c, at, &v);
    }
}

/// Sort slots [a0, a0 + n) by lo.x from any order: Shell sort (Ciura's gaps), for fresh rows too
/// long for the O(k²) of plain insertion; in place, so no scratch.
static inline void cd_row_sort_fresh(const cd_row_cols *c, size_t a0, uint32_t n)
{
    static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; ++g)
        if (gaps[g] < n) cd_row_sort_gap(c, a0, n, gaps[g]);
}

#endif
