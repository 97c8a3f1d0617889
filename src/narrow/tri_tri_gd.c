// SPDX-License-Identifier: MIT
// Guigue–Devillers triangle–triangle test ("Fast and robust triangle-triangle overlap test using
// orientation predicates", JGT 8(1), 2003): after the two plane tests, the vertices are permuted so
// that p1 (p2) is alone on its side of the other plane, and the slices overlap iff
// [p1, q1, p2, q2] ≤ 0 and [p1, r1, r2, p2] ≤ 0 — two more orientation signs, no line, no division.
// Coplanar pairs use their 2-D orientation decision tree. Every sign comes from the exact predicates
// of predicates.c, so the answers are exact; zero-area triangles go to tri_tri_cases.c (the paper
// assumes non-degenerate input).
#include "op_count.h"
#include "predicates.h"
#include "tri_tri_cases.h"
#include "tri_tri_plane.h"

// ---------------------------------------------------------------------------------------------
// 2-D part for two counter-clockwise triangles (the paper's ccw_tri_tri_intersection_2d).

static int o2(cd_pt2 a, cd_pt2 b, cd_pt2 c) { return cd_orient2d(a, b, c); }

static int gd_test_vertex(cd_pt2 p1, cd_pt2 q1, cd_pt2 r1, cd_pt2 p2, cd_pt2 q2, cd_pt2 r2)
{
    if (o2(r2, p2, q1) >= 0) {
        if (o2(r2, q2, q1) <= 0) {
            if (o2(p1, p2, q1) > 0) return o2(p1, q2, q1) <= 0;
            return o2(p1, p2, r1) >= 0 && o2(q1, r1, p2) >= 0;
        }
        return o2(p1, q2, q1) <= 0 && o2(r2, q2, r1) <= 0 && o2(q1, r1, q2) >= 0;
    }
    if (o2(r2, p2, r1) >= 0) {
        if (o2(q1, r1, r2) >= 0) return o2(p1, p2, r1) >= 0;
        return o2(q1, r1, q2) >= 0 && o2(r2, r1, q2) >= 0;
    }
    return 0;
}

static int gd_test_edge(cd_pt2 p1, cd_pt2 q1, cd_pt2 r1, cd_pt2 p2, cd_pt2 q2, cd_pt2 r2)
{
    (void)q2;
    if (o2(r2, p2, q1) >= 0) {
        if (o2(p1, p2, q1) >= 0) return o2(p1, q1, r2) >= 0;
        return o2(q1, r1, p2) >= 0 && o2(r1, p1, p2) >= 0;
    }
    if (o2(r2, p2, r1) >= 0 && o2(p1, p2, r1) >= 0) return o2(p1, r1, r2) >= 0 || o2(q1, r1, r2) >= 0;
    return 0;
}

static int gd_ccw_2d(cd_pt2 p1, cd_pt2 q1, cd_pt2 r1, cd_pt2 p2, cd_pt2 q2, cd_pt2 r2)
{
    if (o2(p2, q2, p1) >= 0) {
        if (o2(q2, r2, p1) >= 0) {
            if (o2(r2, p2, p1) >= 0) return 1;
            return gd_test_edge(p1, q1, r1, p2, q2, r2);
        }
        if (o2(r2, p2, p1) >= 0) return gd_test_edge(p1, q1, r1, r2, p2, q2);
        return gd_test_vertex(p1, q1, r1, p2, q2, r2);
    }
    if (o2(q2, r2, p1) >= 0) {
        if (o2(r2, p2, p1) >= 0) return gd_test_edge(p1, q1, r1, q2, r2, p2);
        return gd_test_vertex(p1, q1, r1, q2, r2, p2);
    }
    return gd_test_vertex(p1, q1, r1, r2, p2, q2);
}

static int gd_coplanar(const cd_triangle *a, const cd_triangle *b)
{
    // Drop a coordinate on which a keeps its area (exactly: its projected orientation is non-zero).
    int k = 0, oa = 0;
    for (; k < 3; ++k) {
        oa = cd_orient2d(cd_pt2_drop(a->v[0], k), cd_pt2_drop(a->v[1], k), cd_pt2_drop(a->v[2], k));
        if (oa != 0) break;
    }
    CD_ASSERT(k < 3);
    cd_pt2 p1 = cd_pt2_drop(a->v[0], k), q1 = cd_pt2_drop(a->v[1], k), r1 = cd_pt2_drop(a->v[2], k);
    cd_pt2 p2 = cd_pt2_drop(b->v[0], k), q2 = cd_pt2_drop(b->v[1], k), r2 = cd_pt2_drop(b->v[2], k);
    int ob = cd_orient2d(p2, q2, r2);
    // Make both counter-clockwise by swapping q and r.
    if (oa < 0) {
        cd_pt2 t = q1;
        q1 = r1;
        r1 = t;
    }
    if (ob < 0) {
        cd_pt2 t = q2;
        q2 = r2;
        r2 = t;
    }
    return gd_ccw_2d(p1, q1, r1, p2, q2, r2);
}

// ---------------------------------------------------------------------------------------------
// 3-D part.

typedef struct gd_tri {
    const cd_vec3 *p, *q, *r;
} gd_tri;

// The paper's CHECK_MIN_MAX: p1 and p2 are the lone vertices, both triangles oriented so that the
// lone vertex of each is on the positive side of the other plane.
static int gd_check_min_max(gd_tri t1, gd_tri t2)
{
    if (cd_orient3d(t1.q, t2.p, t1.p, t2.q) > 0) return 0;
    return cd_orient3d(t1.p, t2.p, t1.r, t2.r) <= 0;
}

// The paper's TRI_TRI_3D: t1 already permuted; permute t2 by the signs of its vertices against t1.
static int gd_tri_tri_3d(gd_tri t1, gd_tri t2, int dp2, int dq2, int dr2)
{
    gd_tri a = t1, ar = {t1.p, t1.r, t1.q};  // ar: t1 with its orientation reversed
    if (dp2 > 0) {
        if (dq2 > 0) return gd_check_min_max(ar, (gd_tri){t2.r, t2.p, t2.q});
        if (dr2 > 0) return gd_check_min_max(ar, (gd_tri){t2.q, t2.r, t2.p});
        return gd_check_min_max(a, t2);
    }
    if (dp2 < 0) {
        if (dq2 < 0) return gd_check_min_max(a, (gd_tri){t2.r, t2.p, t2.q});
        if (dr2 < 0) return gd_check_min_max(a, (gd_tri){t2.q, t2.r, t2.p});
        return gd_check_min_max(ar, t2);
    }
    if (dq2 < 0) {
        if (dr2 >= 0) return gd_check_min_max(ar, (gd_tri){t2.q, t2.r, t2.p});
        return gd_check_min_max(a, t2);
    }
    if (dq2 > 0) {
        if (dr2 > 0) return gd_check_min_max(ar, t2);
        return gd_check_min_max(a, (gd_tri){t2.q, t2.r, t2.p});
    }
    if (dr2 > 0) return gd_check_min_max(a, (gd_tri){t2.r, t2.p, t2.q});
    return gd_check_min_max(ar, (gd_tri){t2.r, t2.p, t2.q});  // dr2 < 0 (all zero handled before)
}

static int all_zero(int a, int b, int c) { return a == 0 && b == 0 && c == 0; }

int cd_tri_tri_overlap_gd_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why)
{
    const cd_vec3 *p1 = &a->v[0], *q1 = &a->v[1], *r1 = &a->v[2];
    const cd_vec3 *p2 = &b->v[0], *q2 = &b->v[1], *r2 = &b->v[2];
    // Signs of a's vertices against b's plane, then of b's against a's: the same filtered plane
    // test as the plane-first code (the paper, too, computes each normal once).
    cd_plane_eval pe;
    int s1[3], s2[3];
    cd_plane_eval_of(b, a, &pe);
    if (cd_plane_certainly_one_side(&pe)) {
        *why = CD_TT_PLANE_B;
        return 0;
    }
    cd_plane_signs(b, a, &pe, s1);
    int dp1 = s1[0], dq1 = s1[1], dr1 = s1[2];
    if (dp1 * dq1 > 0 && dp1 * dr1 > 0) {
        *why = CD_TT_PLANE_B;
        return 0;
    }
    cd_plane_eval_of(a, b, &pe);
    if (cd_plane_certainly_one_side(&pe)) {
        *why = CD_TT_PLANE_A;
        return 0;
    }
    cd_plane_signs(a, b, &pe, s2);
    int dp2 = s2[0], dq2 = s2[1], dr2 = s2[2];
    if (dp2 * dq2 > 0 && dp2 * dr2 > 0) {
        *why = CD_TT_PLANE_A;
        return 0;
    }
    if (all_zero(dp1, dq1, dr1) || all_zero(dp2, dq2, dr2)) {
        if (cd_tri_tri_is_degenerate(a) || cd_tri_tri_is_degenerate(b)) {
            int hit = cd_tri_tri_degenerate(a, b);
            *why = hit ? CD_TT_DEGENERATE_OVERLAP : CD_TT_DEGENERATE_DISJOINT;
            return hit;
        }
        int hit = gd_coplanar(a, b);
        *why = hit ? CD_TT_COPLANAR_OVERLAP : CD_TT_COPLANAR_SEPARATED;
        return hit;
    }
    // Rotate t1 so that p1 is alone on its side; t2 is passed reversed when p1 is on the negative
    // side, which flips the signs of t2's vertices against it.
    gd_tri t2 = {p2, q2, r2}, t2r = {p2, r2, q2};
    int hit;
    if (dp1 > 0) {
        if (dq1 > 0)
            hit = gd_tri_tri_3d((gd_tri){r1, p1, q1}, t2r, dp2, dr2, dq2);
        else if (dr1 > 0)
            hit = gd_tri_tri_3d((gd_tri){q1, r1, p1}, t2r, dp2, dr2, dq2);
        else
            hit = gd_tri_tri_3d((gd_tri){p1, q1, r1}, t2, dp2, dq2, dr2);
    } else if (dp1 < 0) {
        if (dq1 < 0)
            hit = gd_tri_tri_3d((gd_tri){r1, p1, q1}, t2, dp2, dq2, dr2);
        else if (dr1 < 0)
            hit = gd_tri_tri_3d((gd_tri){q1, r1, p1}, t2, dp2, dq2, dr2);
        else
            hit = gd_tri_tri_3d((gd_tri){p1, q1, r1}, t2r, dp2, dr2, dq2);
    } else if (dq1 < 0) {
        if (dr1 >= 0)
            hit = gd_tri_tri_3d((gd_tri){q1, r1, p1}, t2r, dp2, dr2, dq2);
        else
            hit = gd_tri_tri_3d((gd_tri){p1, q1, r1}, t2, dp2, dq2, dr2);
    } else if (dq1 > 0) {
        if (dr1 > 0)
            hit = gd_tri_tri_3d((gd_tri){p1, q1, r1}, t2r, dp2, dr2, dq2);
        else
            hit = gd_tri_tri_3d((gd_tri){q1, r1, p1}, t2, dp2, dq2, dr2);
    } else if (dr1 > 0) {
        hit = gd_tri_tri_3d((gd_tri){r1, p1, q1}, t2, dp2, dq2, dr2);
    } else {
        hit = gd_tri_tri_3d((gd_tri){r1, p1, q1}, t2r, dp2, dr2, dq2);
    }
    *why = hit ? CD_TT_SLICES_OVERLAP : CD_TT_SLICES_DISJOINT;
    return hit;
}

int cd_tri_tri_overlap_gd(const cd_triangle *a, const cd_triangle *b)
{
    cd_tri_tri_why why;
    return cd_tri_tri_overlap_gd_explain(a, b, &why);
}
