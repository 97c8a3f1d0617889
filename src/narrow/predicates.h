// SPDX-License-Identifier: MIT
// Robust orientation predicates (src/narrow/predicates.c): a floating-point filter with Shewchuk's
// error bounds, and when the filter cannot certify the sign, an exact evaluation on floating-point
// expansions of the raw coordinates. The sign returned is the sign of the exact determinant of the
// input doubles, provided no intermediate product underflows or overflows (coordinate differences
// either 0 or within about 2^-300 .. 2^300 in magnitude).
#ifndef PREDICATES_H
#define PREDICATES_H

#include "cd_core.h"

#include <limits.h>
#include <string.h>

/// A point in a coordinate plane (a 3-D point with one coordinate dropped).
typedef struct cd_pt2 {
    double x, y;
} cd_pt2;

/// p with coordinate `drop` (0, 1, 2) removed; the other two keep their cyclic order
/// (drop 0 → (y, z), drop 1 → (z, x), drop 2 → (x, y)) so orientations match the normal's sign.
static inline cd_pt2 cd_pt2_drop(cd_vec3 p, int drop)
{
    return drop == 0 ? (cd_pt2){p.y, p.z} : (drop == 1 ? (cd_pt2){p.z, p.x} : (cd_pt2){p.x, p.y});
}

/// The lowest set bit of x as a power of two (+inf for 0): every coordinate is a multiple of it, so
/// an orientation determinant of such coordinates is a multiple of its square or cube. When the
/// filter fails but the rounding error bound is below half that grid, the determinant is exactly
/// 0 — lattice and coplanar-by-construction inputs are decided without expansions.
static inline double cd_grid_of(double x)
{
    if (x == 0.0) return INFINITY;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int exp = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & ((UINT64_C(1) << 52) - 1);
    if (exp != 0)
        m |= UINT64_C(1) << 52;
    else
        exp = 1;
    int e2 = exp - 1075 + __builtin_ctzll(m);  // the bit's value is 2^e2
    uint64_t r = e2 >= -1022 ? (uint64_t)(e2 + 1023) << 52 : UINT64_C(1) << (e2 + 1074);
    double g;
    memcpy(&g, &r, sizeof g);
    return g;
}

/// Exponent of the lowest set bit of x (that bit is 2^k), INT_MAX for ±0: the key of cd_grid_of,
/// without building the power of two — minimised over many coordinates, then built once.
static inline int cd_grid_exp(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint64_t mag = b << 1;  // without the sign
    int exp = (int)(mag >> 53);
    // The lowest set bit of the significand: of the stored fraction, or the implicit bit 52 of a
    // normal number when the fraction is 0 (a subnormal's fraction is not 0). Bit 52 is the
    // exponent's lowest bit, so setting it caps the count at 52 without masking the fraction out.
    int k = (exp > 1 ? exp : 1) - 1075 + __builtin_ctzll(b | (UINT64_C(1) << 52));
    return mag != 0 ? k : INT_MAX;
}

/// A point set's coordinate grid: every coordinate is a multiple of g and at most top in magnitude.
/// When top / g is small, sums and products of a few coordinate differences are exact in doubles.
typedef struct cd_grid {
    double g;    ///< a power of two dividing every coordinate (cd_grid_of_points: the largest, +inf
                 ///< when all are 0; 1 serves for integers); < 0: not known
    double top;  ///< largest |coordinate| (< 0: not known)
} cd_grid;

/// The smallest cd_grid_of over the coordinates of n points (+inf when all are 0).
static inline double cd_grid_of_points(const cd_vec3 *const *p, int n)
{
    int k = INT_MAX;
    for (int i = 0; i < n; ++i) {
        int kx = cd_grid_exp(p[i]->x), ky = cd_grid_exp(p[i]->y), kz = cd_grid_exp(p[i]->z);
        k = kx < k ? kx : k;
        k = ky < k ? ky : k;
        k = kz < k ? kz : k;
    }
    if (k == INT_MAX) return INFINITY;
    uint64_t r = k >= -1022 ? (uint64_t)(k + 1023) << 52 : UINT64_C(1) << (k + 1074);
    double g;
    memcpy(&g, &r, sizeof g);
    return g;
}

/// Sign (−1, 0, +1) of det[b − a, c − a, d − a] = ((b − a) × (c − a)) · (d − a): positive when d
/// lies on the side of plane abc that the normal (b − a) × (c − a) points to. Exact.
int cd_orient3d(const cd_vec3 *a, const cd_vec3 *b, const cd_vec3 *c, const cd_vec3 *d);
/// cd_orient3d without the filter: always the expansion evaluation (tests, fallback).
int cd_orient3d_exact(const cd_vec3 *a, const cd_vec3 *b, const cd_vec3 *c, const cd_vec3 *d);
/// Sign of det[b − a, c − a]: +1 when a, b, c turn counter-clockwise. Exact.
int cd_orient2d(cd_pt2 a, cd_pt2 b, cd_pt2 c);
/// cd_orient2d without the filter.
int cd_orient2d_exact(cd_pt2 a, cd_pt2 b, cd_pt2 c);

/// Error-bound factor of the shared-normal plane test: |fl(N·w) − N·w| ≤ CD_PLANE_ERR ·
/// m_u · m_v · m_w, where m_u and m_v are the largest |components| of the two edge vectors that
/// formed N and m_w the largest |component| of w. 6 · Shewchuk's o3derrboundA (the permanent is at
/// most 6 m_u m_v m_w), rounded up to 48ε to cover the three roundings of the bound itself. Any
/// larger factor for m_u · m_v serves as well: cd_tri_tri_plane.h uses m_t² = max(m_u, m_v)².
#define CD_PLANE_ERR (48.0 * 0x1p-53)

#endif
