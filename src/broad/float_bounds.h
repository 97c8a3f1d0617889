// SPDX-License-Identifier: MIT
// Private to the float-keyed broad phases (sap, grid, bvh): the float box record with its id,
// the growable-buffer helper and the radix sort they share. The scene's boxes are already float
// (rounded outward), so a cull on them tests exactly what the double test on their copies would.
#ifndef FLOAT_BOUNDS_H
#define FLOAT_BOUNDS_H

#include "cd_broad.h"

#include <string.h>

/// Make *p hold at least n elements of size elem (old contents are dropped); reallocates only
/// when n exceeds *cap, so a steady scene never allocates per frame.
static inline void buf_reserve(void **p, size_t elem, size_t *cap, size_t n)
{
    if (n <= *cap) return;
    size_t c = 2 * *cap >= n ? 2 * *cap : n;  // exact on first use: bytes per object count at 1M
    cd_free(*p);
    *p = cd_alloc(c * elem);
    *cap = c;
}

/// A float box (outward-rounded copy of a scene AABB) with the object id: one 32-byte record, so
/// a test that touches one object reads half a cache line.
typedef struct id_box {
    float lo[3], hi[3];
    uint32_t id;
    uint32_t aux;  ///< free for the method
} id_box;

/// The scene's float box b, for object id.
static inline id_box id_box_from(const cd_aabbf *b, uint32_t id)
{
    return (id_box){{b->lo[0], b->lo[1], b->lo[2]}, {b->hi[0], b->hi[1], b->hi[2]}, id, 0};
}

/// Closed float boxes overlap.
static inline int id_box_overlap(const id_box *a, const id_box *b)
{
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

/// f mapped to an unsigned integer in the same order (the sign bit flipped for positive floats, every
/// bit for negative ones), so integer compares and radix sorts order floats: −0 sorts just below +0,
/// and a NaN by its bits.
static inline uint32_t float_order_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u ^ ((uint32_t) - (int32_t)(u >> 31) | 0x80000000u);
}

/// Largest extent of a scene box, in double (float differences would round).
static inline double aabbf_max_extent(const cd_aabbf *b)
{
    double x = (double)b->hi[0] - b->lo[0], y = (double)b->hi[1] - b->lo[1], z = (double)b->hi[2] - b->lo[2];
    double m = x > y ? x : y;  // not fmax: a libm call
    return m > z ? m : z;
}

/// Boxes larger than this many times the mean extent count as outliers ("big") for grid, which
/// keeps them out of its rows (each queries the rows it reaches) instead of coarsening its cells.
#define CELL_OUTLIER 2.0

/// grid's small-box limit: `requested` when > 0, else the largest box extent but at
/// most CELL_OUTLIER × the mean extent (1 for an empty scene).
static inline double small_box_limit(const cd_scene *s, double requested)
{
    if (requested > 0.0) return requested;
    double sum = 0.0, mx = 0.0;
    for (uint32_t i = 0; i < s->count; ++i) {
        double e = aabbf_max_extent(&s->box[i]);
        sum += e;
        mx = e > mx ? e : mx;
    }
    double limit = s->count ? (mx < CELL_OUTLIER * sum / s->count ? mx : CELL_OUTLIER * sum / s->count) : 1.0;
    return limit > 0.0 ? limit : 1.0;
}

#endif
