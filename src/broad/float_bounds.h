// SPDX-License-Identifier: MIT
// Private to the float-keyed broad phases (sap, grid, bvh): conservative double → float rounding
// and the small growable-buffer helper they share. A float box built with cd_f_down/cd_f_up
// contains the double box, so a float cull never drops a pair the exact double test accepts.
#ifndef CD_FLOAT_BOUNDS_H
#define CD_FLOAT_BOUNDS_H

#include "cd_broad.h"

#include <string.h>

/// Next float toward −inf (f not NaN); bit arithmetic instead of nextafterf, which is a libm call.
static inline float cd_f_next_down(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (f > 0.0f) u -= 1;
    else if (f < 0.0f) u += 1;  // magnitude grows; −FLT_MAX steps to −inf, −inf has no below
    else u = 0x80000001u;       // ±0 → −denorm_min
    if (f == -INFINITY) return f;
    memcpy(&f, &u, sizeof u);
    return f;
}

/// Next float toward +inf (f not NaN).
static inline float cd_f_next_up(float f) { return -cd_f_next_down(-f); }

/// Largest float ≤ d (d not NaN).
static inline float cd_f_down(double d)
{
    float f = (float)d;
    return (double)f > d ? cd_f_next_down(f) : f;
}

/// Smallest float ≥ d (d not NaN).
static inline float cd_f_up(double d)
{
    float f = (float)d;
    return (double)f < d ? cd_f_next_up(f) : f;
}

/// Make *p hold at least n elements of size elem; reallocates only when n exceeds *cap, so a
/// steady scene never allocates per frame.
static inline void cd_buf_reserve(void **p, size_t elem, size_t *cap, size_t n)
{
    if (n <= *cap) return;
    size_t c = *cap ? *cap : 64;
    while (c < n) c *= 2;
    cd_free(*p);
    *p = cd_alloc(c * elem);
    *cap = c;
}

/// Component k of a vec3 by pointer (k in 0..2), for loops over axes.
static inline double cd_v3_at(const cd_vec3 *v, int k) { return k == 0 ? v->x : (k == 1 ? v->y : v->z); }

#endif
