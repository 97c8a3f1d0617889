// SPDX-License-Identifier: MIT
// Exact triangle–triangle overlap, plane-first (Möller's order of tests) with every decision the
// sign of an orientation determinant:
//  1. the signs of b's vertices against a's plane (N_a · (b_j − a_0), N_a unnormalised), strict
//     same-sign rejection so that touching counts; then the symmetric test;
//  2. planes that cross: each triangle meets the other plane in a slice on L = N_a × N_b. Where a
//     plain implementation compares divided coordinates of the slice ends on a coordinate r with
//     L_r ≠ 0, we compare the ends themselves: for an end p on edge a_i a_j and an end q on edge
//     b_k b_l, sign(L·(q − p)) = orient3d(a_i, a_j, b_k, b_l) · sign(f_j − f_i) · sign(g_l − g_k)
//     (f, g the plane functions of b and a; see docs/design/tri-tri.md), and the order of the two
//     ends of one slice follows from the sign of its lone vertex alone. So the slice test is two
//     orientation signs and no coordinate is ever divided;
//  3. all of b in a's plane (or the reverse): zero area → tri_tri_cases.c, else coplanar test there.
// The plane signs (cd_tri_tri_plane.h) use a semi-static filter, one bound for a triangle's three
// vertices (CD_PLANE_ERR), then each vertex's own bound, the coordinate-grid certificate of exact
// zeros (rounded zeros) or cd_orient3d's filter (rounded non-zeros); only what none of them decides
// goes to the exact expansions. The coplanar test reuses the grid for its exact-zero edge values.
#include "op_count.h"
#include "predicates.h"
#include "tri_tri_cases.h"
#include "tri_tri_plane.h"

// An end of a slice: where edge (i, j) of its triangle meets the other plane, with
// dsign = sign(f_j − f_i) ≠ 0 for the other plane's function f.
typedef struct slice_end {
    int i, j, dsign;
} slice_end;

// The slice of a triangle whose vertex signs s (against the other plane) are neither all zero nor
// all one strict sign: its two ends (lo, hi) in the order along L, with up = +1 when the triangle is
// a (L = N_self × N_other) and −1 when it is b (L = N_other × N_self).
static void slice_of(const int s[3], int up, slice_end *lo, slice_end *hi)
{
    for (int a = 0; a < 3; ++a) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        if (s[a] != 0 && s[b] != s[a] && s[c] != s[a]) {
            // Lone vertex a: ends on edges ab and ac. With (a, b, c) cyclic, L·(end_ac − end_ab)
            // has the sign of −up·s[a] (the derivation in docs/design/tri-tri.md).
            slice_end pb = {a, b, -s[a]}, pc = {a, c, -s[a]};
            if (-up * s[a] > 0) {
                *lo = pb;
                *hi = pc;
            } else {
                *lo = pc;
                *hi = pb;
            }
            return;
        }
    }
    // Pattern (0, s, s): the slice is the single vertex with sign 0.
    int z = s[0] == 0 ? 0 : (s[1] == 0 ? 1 : 2);
    int j = (z + 1) % 3;
    *lo = *hi = (slice_end){z, j, s[j]};
}

// sign(L·(q − p)) for an end p of a's slice and an end q of b's slice.
static int slice_order(const cd_triangle *a, const cd_triangle *b, slice_end p, slice_end q)
{
    return cd_orient3d(&a->v[p.i], &a->v[p.j], &b->v[q.i], &b->v[q.j]) * p.dsign * q.dsign;
}

// Everything after the first filtered plane test, kept out of line so that the common rejection
// does not set up this one's large stack frame. The first test's results come in registers (eight
// doubles), so the rejection path stores nothing.
__attribute__((noinline)) static int overlap_rest(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why,
                                                  double nx, double ny, double nz, double d0, double d1, double d2,
                                                  double k, double e)
{
    cd_plane_eval pa = {{nx, ny, nz}, {d0, d1, d2}, k, e}, pb;  // pa: b's vertices against a's plane; pb: the reverse
    int sb[3], sa[3];
    cd_grid grid = {-1, -1};  // the six points' coordinate grid, once a plane value needed it
    cd_plane_signs_grid(a, b, &pa, sb, &grid);
    if (cd_signs_one_side(sb)) {
        *why = CD_TT_PLANE_A;
        return 0;
    }
    if (sb[0] == 0 && sb[1] == 0 && sb[2] == 0) {
        // All of b in a's plane: a has zero area (every sign against it is 0) or the triangles share
        // the plane; the symmetric test could add nothing, so it is skipped. The coplanar test
        // certifies exact zeros with the grid (usually known already from the plane values).
        if (grid.g < 0) grid = cd_tri_tri_grid_top(a, b);
        int h = cd_plane_drop_hint(&pa);
        if (CD_GT(CD_ABS(pa.n[h]), pa.k)) {
            // |fl(N_h) − N_h| <= 8ε·m_u·m_v <= 8ε·m_t² < k: N_h ≠ 0 with the rounded sign, which
            // is the orientation of a's projection without coordinate h. So a has area, and no
            // predicate has to show it.
            int hit = cd_tri_tri_coplanar_oriented(a, b, h, CD_GT(pa.n[h], 0.0) ? 1 : -1, grid);
            if (hit >= 0) {
                *why = hit ? CD_TT_COPLANAR_OVERLAP : CD_TT_COPLANAR_SEPARATED;
                return hit;
            }
            hit = cd_tri_tri_degenerate_one(a, b);  // a has area (above), b has none (−1)
            *why = hit ? CD_TT_DEGENERATE_OVERLAP : CD_TT_DEGENERATE_DISJOINT;
            return hit;
        }
        if (cd_tri_tri_is_degenerate(a) || cd_tri_tri_is_degenerate(b)) {
            int hit = cd_tri_tri_degenerate(a, b);
            *why = hit ? CD_TT_DEGENERATE_OVERLAP : CD_TT_DEGENERATE_DISJOINT;
            return hit;
        }
        int hit = cd_tri_tri_coplanar(a, b, cd_plane_drop_hint(&pa), grid);
        *why = hit ? CD_TT_COPLANAR_OVERLAP : CD_TT_COPLANAR_SEPARATED;
        return hit;
    }
    cd_plane_eval_of(b, a, &pb);
    if (cd_plane_certainly_one_side(&pb)) {
        *why = CD_TT_PLANE_B;
        return 0;
    }
    cd_plane_signs(b, a, &pb, sa);
    if (cd_signs_one_side(sa)) {
        *why = CD_TT_PLANE_B;
        return 0;
    }
    if (sa[0] == 0 && sa[1] == 0 && sa[2] == 0) {
        // a in b's plane but b not in a's: b has zero area (a non-degenerate a would share b's
        // plane and put b in its own), and a has area (else every sign against it were 0).
        int hit = cd_tri_tri_degenerate_one(a, b);
        *why = hit ? CD_TT_DEGENERATE_OVERLAP : CD_TT_DEGENERATE_DISJOINT;
        return hit;
    }
    // Both non-degenerate with crossing planes: the slices [lo, hi] on L overlap iff
    // hi_a ≥ lo_b and hi_b ≥ lo_a.
    slice_end alo, ahi, blo, bhi;
    slice_of(sa, 1, &alo, &ahi);
    slice_of(sb, -1, &blo, &bhi);
    int hit = slice_order(a, b, ahi, blo) <= 0 && slice_order(a, b, alo, bhi) >= 0;
    *why = hit ? CD_TT_SLICES_OVERLAP : CD_TT_SLICES_DISJOINT;
    return hit;
}

// The first plane test, inlined into both entry points (no call between the caller and the
// common rejection), which are also built for AVX (CD_TRI_TRI_ENTRIES). Its values are computed as
// pairs, with the plain-float twin's code (cd_tri_tri_plane.h); the rest keeps the scalar forms.
static inline __attribute__((always_inline)) int overlap(const cd_triangle *a, const cd_triangle *b,
                                                         cd_tri_tri_why *why)
{
    cd_plane_eval pa;
    cd_plane_eval_packed(a, b, &pa);
    if (cd_plane_certainly_one_side(&pa)) {
        *why = CD_TT_PLANE_A;
        return 0;
    }
    return overlap_rest(a, b, why, pa.n[0], pa.n[1], pa.n[2], pa.d[0], pa.d[1], pa.d[2], pa.k, pa.e);
}

CD_TRI_TRI_ENTRIES(cd_tri_tri_overlap, overlap, cd_tri_tri_build)

#ifndef CD_COUNT_OPS
const char *cd_tri_tri_why_name(cd_tri_tri_why why)
{
    static const char *const names[CD_TT_WHY_COUNT] = {
        "plane_a",        "plane_b",          "slices_disjoint",     "slices_overlap",
        "coplanar_apart", "coplanar_overlap", "degenerate_disjoint", "degenerate_overlap",
    };
    return (unsigned)why < CD_TT_WHY_COUNT ? names[why] : "unknown";
}
#endif
