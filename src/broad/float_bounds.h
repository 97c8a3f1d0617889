// SPDX-License-Identifier: MIT
// Private to the float-keyed broad phases (sap, grid, bvh): conservative double → float rounding,
// the growable-buffer helper and the radix sort they share. A float box built with cd_f_down/cd_f_up
// contains the double box, so a float cull never drops a pair the exact double test accepts.
#ifndef CD_FLOAT_BOUNDS_H
#define CD_FLOAT_BOUNDS_H

#include "cd_broad.h"

#include <string.h>

/// Next float toward −inf (f not NaN). Bit arithmetic with selects, no branches: the rounding
/// direction is a coin flip per coordinate, and a libm nextafterf call or a mispredicted branch
/// per bound cost more than the whole conversion.
static inline float cd_f_next_down(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t r = u + 2u * (u >> 31) - 1u;  // magnitude grows below zero, shrinks above
    r = (u & 0x7fffffffu) == 0 ? 0x80000001u : r;  // ±0 → −denorm_min
    r = u == 0xff800000u ? u : r;                  // −inf has nothing below
    memcpy(&f, &r, sizeof r);
    return f;
}

/// Next float toward +inf (f not NaN).
static inline float cd_f_next_up(float f) { return -cd_f_next_down(-f); }

/// Largest float ≤ d (d not NaN).
static inline float cd_f_down(double d)
{
    float f = (float)d, g = cd_f_next_down(f);
    return (double)f > d ? g : f;
}

/// Smallest float ≥ d (d not NaN).
static inline float cd_f_up(double d)
{
    float f = (float)d, g = cd_f_next_up(f);
    return (double)f < d ? g : f;
}

/// Make *p hold at least n elements of size elem (old contents are dropped); reallocates only
/// when n exceeds *cap, so a steady scene never allocates per frame.
static inline void cd_buf_reserve(void **p, size_t elem, size_t *cap, size_t n)
{
    if (n <= *cap) return;
    size_t c = 2 * *cap >= n ? 2 * *cap : n;  // exact on first use: bytes per object count at 1M
    cd_free(*p);
    *p = cd_alloc(c * elem);
    *cap = c;
}

/// A float box (outward-rounded copy of a scene AABB) with the object id: one 32-byte record, so
/// a test that touches one object reads half a cache line.
typedef struct cd_fbox {
    float lo[3], hi[3];
    uint32_t id;
    uint32_t aux;  ///< free for the method
} cd_fbox;

/// Float box of b rounded outward, for object id.
static inline cd_fbox cd_fbox_of(const cd_aabb *b, uint32_t id)
{
    return (cd_fbox){{cd_f_down(b->lo.x), cd_f_down(b->lo.y), cd_f_down(b->lo.z)},
                     {cd_f_up(b->hi.x), cd_f_up(b->hi.y), cd_f_up(b->hi.z)},
                     id,
                     0};
}

/// Closed float boxes overlap.
static inline int cd_fbox_overlap(const cd_fbox *a, const cd_fbox *b)
{
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

/// Component k of a vec3 by pointer (k in 0..2), for loops over axes.
static inline double cd_v3_at(const cd_vec3 *v, int k) { return k == 0 ? v->x : (k == 1 ? v->y : v->z); }

enum { CD_RADIX_BITS = 11, CD_RADIX_SIZE = 1 << CD_RADIX_BITS, CD_RADIX_PASSES = 3 };

/// Stable LSD radix sort of (key[i], id[i]) by the 32-bit key, 3 passes of 11 bits; tmp_key and
/// tmp_id are scratch of n elements. The result is in key and id.
static inline void cd_radix_sort_u32(uint32_t *key, uint32_t *id, uint32_t *tmp_key, uint32_t *tmp_id, uint32_t n)
{
    uint32_t hist[CD_RADIX_PASSES][CD_RADIX_SIZE];
    memset(hist, 0, sizeof hist);
    for (uint32_t i = 0; i < n; ++i)
        for (int p = 0; p < CD_RADIX_PASSES; ++p) hist[p][(key[i] >> (p * CD_RADIX_BITS)) & (CD_RADIX_SIZE - 1)]++;
    uint32_t *k_in = key, *k_out = tmp_key, *i_in = id, *i_out = tmp_id;
    for (int p = 0; p < CD_RADIX_PASSES; ++p) {
        uint32_t sum = 0;
        for (int b = 0; b < CD_RADIX_SIZE; ++b) {
            uint32_t c = hist[p][b];
            hist[p][b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t d = hist[p][(k_in[i] >> (p * CD_RADIX_BITS)) & (CD_RADIX_SIZE - 1)]++;
            k_out[d] = k_in[i];
            i_out[d] = i_in[i];
        }
        uint32_t *t = k_in;
        k_in = k_out, k_out = t;
        t = i_in, i_in = i_out, i_out = t;
    }
    if (k_in != key) {  // an odd pass count leaves the result in the scratch arrays
        memcpy(key, k_in, n * sizeof *key);
        memcpy(id, i_in, n * sizeof *id);
    }
}

#endif
