// SPDX-License-Identifier: MIT
// Exact triangle–triangle overlap, plane-first (Möller's order of tests) with every decision the
// sign of an orientation determinant:
//  1. the signs of b's vertices against a's plane (N_a · (b_j − a_0), N_a unnormalised), strict
//     same-sign rejection so that touching counts; then the symmetric test;
//  2. planes that cross: each triangle meets the other plane in a slice on L = N_a × N_b. Where a
//     plain implementation compares divided coordinates of the slice ends on a coordinate r with
//     L_r ≠ 0, we compare the ends themselves: for an end p on edge a_i a_j and an end q on edge
//     b_k b_l, sign(L·(q − p)) = orient3d(a_i, a_j, b_k, b_l) · sign(f_j − f_i) · sign(g_l − g_k)
//     (f, g the plane functions of b and a; see README "Triangle–triangle"), and the order of the two
//     ends of one slice follows from the sign of its lone vertex alone. So the slice test is two
//     orientation signs and no coordinate is ever divided;
//  3. all of b in a's plane (or the reverse): zero area → tri_tri_cases.c, else coplanar test there.
// The plane signs use a semi-static filter: one bound per triangle and vertex (CD_PLANE_ERR); only
// when it cannot certify a sign is the exact predicate called.
#include "cd_opcount.h"
#include "cd_predicates.h"
#include "cd_tritri_cases.h"

// Signs of o's vertices against t's plane: s[j] = sign(N_t · (o_j − t_0)) = orient3d(t, o_j).
// Returns the coordinate of N_t's largest |component| (the coplanar projection's preferred drop).
static int plane_signs(const cd_triangle *t, const cd_triangle *o, int s[3])
{
    const cd_vec3 *t0 = &t->v[0];
    double ux = CD_SUB(t->v[1].x, t0->x), uy = CD_SUB(t->v[1].y, t0->y), uz = CD_SUB(t->v[1].z, t0->z);
    double vx = CD_SUB(t->v[2].x, t0->x), vy = CD_SUB(t->v[2].y, t0->y), vz = CD_SUB(t->v[2].z, t0->z);
    double nx = CD_SUB(CD_MUL(uy, vz), CD_MUL(uz, vy));
    double ny = CD_SUB(CD_MUL(uz, vx), CD_MUL(ux, vz));
    double nz = CD_SUB(CD_MUL(ux, vy), CD_MUL(uy, vx));
    double mt = CD_MAX(CD_MAX(CD_MAX(CD_ABS(ux), CD_ABS(uy)), CD_MAX(CD_ABS(uz), CD_ABS(vx))),
                       CD_MAX(CD_ABS(vy), CD_ABS(vz)));
    double k = CD_MUL(CD_MUL(CD_PLANE_ERR, mt), mt);
    for (int j = 0; j < 3; ++j) {
        const cd_vec3 *p = &o->v[j];
        double wx = CD_SUB(p->x, t0->x), wy = CD_SUB(p->y, t0->y), wz = CD_SUB(p->z, t0->z);
        double d = CD_ADD(CD_ADD(CD_MUL(nx, wx), CD_MUL(ny, wy)), CD_MUL(nz, wz));
        double bound = CD_MUL(k, CD_MAX(CD_MAX(CD_ABS(wx), CD_ABS(wy)), CD_ABS(wz)));
        if (CD_GT(d, bound))
            s[j] = 1;
        else if (CD_LT(d, -bound))
            s[j] = -1;
        else
            s[j] = cd_orient3d_exact(t0, &t->v[1], &t->v[2], p);
    }
    // Only a preference (the coplanar code checks the projection exactly), so no filter here.
    double ax = fabs(nx), ay = fabs(ny), az = fabs(nz);
    return ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
}

static int strictly_one_side(const int s[3]) { return s[0] != 0 && s[0] == s[1] && s[1] == s[2]; }

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
            // has the sign of −up·s[a] (README derivation).
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

int cd_tri_tri_overlap_explain(const cd_triangle *a, const cd_triangle *b, cd_tritri_why *why)
{
    int sb[3], sa[3];
    int drop = plane_signs(a, b, sb);
    if (strictly_one_side(sb)) {
        *why = CD_TT_PLANE_A;
        return 0;
    }
    plane_signs(b, a, sa);
    if (strictly_one_side(sa)) {
        *why = CD_TT_PLANE_B;
        return 0;
    }
    int zb = sb[0] == 0 && sb[1] == 0 && sb[2] == 0, za = sa[0] == 0 && sa[1] == 0 && sa[2] == 0;
    if (za || zb) {
        // A zero-area triangle has all-zero signs against it; two non-degenerate triangles with one
        // inside the other's plane share the plane.
        if (cd_tritri_is_degenerate(a) || cd_tritri_is_degenerate(b)) {
            int hit = cd_tritri_degenerate(a, b);
            *why = hit ? CD_TT_DEGENERATE_OVERLAP : CD_TT_DEGENERATE_DISJOINT;
            return hit;
        }
        int hit = cd_tritri_coplanar(a, b, drop);
        *why = hit ? CD_TT_COPLANAR_OVERLAP : CD_TT_COPLANAR_SEPARATED;
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

int cd_tri_tri_overlap(const cd_triangle *a, const cd_triangle *b)
{
    cd_tritri_why why;
    return cd_tri_tri_overlap_explain(a, b, &why);
}

#ifndef CD_COUNT_OPS
const char *cd_tritri_why_name(cd_tritri_why why)
{
    static const char *const names[CD_TT_WHY_COUNT] = {
        "plane_a",        "plane_b",           "slices_disjoint",     "slices_overlap",
        "coplanar_apart", "coplanar_overlap", "degenerate_disjoint", "degenerate_overlap",
    };
    return (unsigned)why < CD_TT_WHY_COUNT ? names[why] : "unknown";
}
#endif
