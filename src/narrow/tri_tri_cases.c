// SPDX-License-Identifier: MIT
// Zero-area and coplanar triangle pairs, decided on exact orientation signs only.
#include "op_count.h"
#include "predicates.h"
#include "tri_tri_cases.h"

static int tri_orient2d(const cd_triangle *t, int drop)
{
    return cd_orient2d(cd_pt2_drop(t->v[0], drop), cd_pt2_drop(t->v[1], drop), cd_pt2_drop(t->v[2], drop));
}

// A coordinate to drop so that t's projection keeps its area: drop_hint first. *o gets the projected
// orientation (±1). t must be non-degenerate.
static int drop_axis(const cd_triangle *t, int drop_hint, int *o)
{
    for (int n = 0; n < 3; ++n) {
        int k = (drop_hint + n) % 3;
        *o = tri_orient2d(t, k);
        if (*o != 0) return k;
    }
    CD_ASSERT(!"drop_axis: degenerate triangle");
    return 0;
}

int cd_tri_tri_is_degenerate(const cd_triangle *t)
{
    // The three projected orientations are the signs of the normal's components.
    for (int k = 0; k < 3; ++k)
        if (tri_orient2d(t, k) != 0) return 0;
    return 1;
}

// Hull of a zero-area triangle: 1 (a point, out[0]) or 2 (a segment out[0]–out[1], distinct).
// On a coordinate where the collinear vertices are not all equal, the coordinate is monotone along
// their line, so its smallest and largest vertex are the segment's ends — decided by comparisons.
static int degenerate_hull(const cd_triangle *t, cd_vec3 out[2])
{
    int best = -1, best_lo = 0, best_hi = 0;
    double best_extent = 0.0;
    for (int k = 0; k < 3; ++k) {
        int lo = 0, hi = 0;
        for (int i = 1; i < 3; ++i) {
            if (CD_LT(cd_v3_get(t->v[i], k), cd_v3_get(t->v[lo], k))) lo = i;
            if (CD_GT(cd_v3_get(t->v[i], k), cd_v3_get(t->v[hi], k))) hi = i;
        }
        double extent = CD_SUB(cd_v3_get(t->v[hi], k), cd_v3_get(t->v[lo], k));
        // With gradual underflow a rounded difference is > 0 exactly when hi > lo.
        if (CD_GT(extent, best_extent)) {
            best = k;
            best_lo = lo;
            best_hi = hi;
            best_extent = extent;
        }
    }
    out[0] = t->v[best < 0 ? 0 : best_lo];
    if (best < 0) return 1;
    out[1] = t->v[best_hi];
    return 2;
}

static double max2(double a, double b) { return CD_GT(a, b) ? a : b; }
static double min2(double a, double b) { return CD_LT(a, b) ? a : b; }

// Closed 2-D segments pq and rs meet (either may be a single point).
static int seg_seg_2d(cd_pt2 p, cd_pt2 q, cd_pt2 r, cd_pt2 s)
{
    int o1 = cd_orient2d(p, q, r), o2 = cd_orient2d(p, q, s);
    if (o1 * o2 > 0) return 0;
    int o3 = cd_orient2d(r, s, p), o4 = cd_orient2d(r, s, q);
    if (o3 * o4 > 0) return 0;
    if (o1 == 0 && o2 == 0 && o3 == 0 && o4 == 0) {
        // All on one line: on a line the segments meet iff both coordinate ranges meet.
        return CD_LE(max2(min2(p.x, q.x), min2(r.x, s.x)), min2(max2(p.x, q.x), max2(r.x, s.x))) &&
               CD_LE(max2(min2(p.y, q.y), min2(r.y, s.y)), min2(max2(p.y, q.y), max2(r.y, s.y)));
    }
    return 1;
}

// Closed 3-D segments pq and rs meet (either may be a single point). Meeting segments are coplanar;
// for coplanar ones some coordinate projection is one-to-one on their plane, and the others can only
// add contacts, so they meet iff they meet in all three projections.
static int seg_seg_3d(cd_vec3 p, cd_vec3 q, cd_vec3 r, cd_vec3 s)
{
    if (cd_orient3d(&p, &q, &r, &s) != 0) return 0;
    for (int k = 0; k < 3; ++k)
        if (!seg_seg_2d(cd_pt2_drop(p, k), cd_pt2_drop(q, k), cd_pt2_drop(r, k), cd_pt2_drop(s, k))) return 0;
    return 1;
}

// Point x lies in the closed non-degenerate triangle t.
static int point_tri(const cd_triangle *t, cd_vec3 x)
{
    if (cd_orient3d(&t->v[0], &t->v[1], &t->v[2], &x) != 0) return 0;
    int o;
    int k = drop_axis(t, 0, &o);
    cd_pt2 px = cd_pt2_drop(x, k);
    for (int i = 0; i < 3; ++i)
        if (cd_orient2d(cd_pt2_drop(t->v[i], k), cd_pt2_drop(t->v[(i + 1) % 3], k), px) == -o) return 0;
    return 1;
}

// Closed segment pq (p ≠ q) meets the closed non-degenerate triangle t.
static int seg_tri(const cd_triangle *t, cd_vec3 p, cd_vec3 q)
{
    int sp = cd_orient3d(&t->v[0], &t->v[1], &t->v[2], &p);
    int sq = cd_orient3d(&t->v[0], &t->v[1], &t->v[2], &q);
    if (sp * sq > 0) return 0;
    if (sp == 0 && sq == 0) {
        // In t's plane: separating lines of a segment and a triangle are t's edge lines or pq's line.
        int o;
        int k = drop_axis(t, 0, &o);
        cd_pt2 pp = cd_pt2_drop(p, k), pq = cd_pt2_drop(q, k), pt[3];
        for (int i = 0; i < 3; ++i) pt[i] = cd_pt2_drop(t->v[i], k);
        for (int i = 0; i < 3; ++i) {
            cd_pt2 e0 = pt[i], e1 = pt[(i + 1) % 3];
            if (cd_orient2d(e0, e1, pp) == -o && cd_orient2d(e0, e1, pq) == -o) return 0;
        }
        int s0 = cd_orient2d(pp, pq, pt[0]), s1 = cd_orient2d(pp, pq, pt[1]), s2 = cd_orient2d(pp, pq, pt[2]);
        return !(s0 != 0 && s0 == s1 && s1 == s2);
    }
    // pq reaches t's plane in one point; the line through it meets the closed triangle iff the three
    // edge volumes do not take both strict signs.
    int a = cd_orient3d(&p, &q, &t->v[0], &t->v[1]);
    int b = cd_orient3d(&p, &q, &t->v[1], &t->v[2]);
    int c = cd_orient3d(&p, &q, &t->v[2], &t->v[0]);
    return !((a > 0 || b > 0 || c > 0) && (a < 0 || b < 0 || c < 0));
}

int cd_tri_tri_degenerate_one(const cd_triangle *t, const cd_triangle *d)
{
    cd_vec3 h[2];
    int n = degenerate_hull(d, h);
    return n == 1 ? point_tri(t, h[0]) : seg_tri(t, h[0], h[1]);
}

int cd_tri_tri_degenerate(const cd_triangle *a, const cd_triangle *b)
{
    int da = cd_tri_tri_is_degenerate(a), db = cd_tri_tri_is_degenerate(b);
    CD_ASSERT(da || db);
    if (da && db) {
        cd_vec3 ha[2], hb[2];
        int na = degenerate_hull(a, ha), nb = degenerate_hull(b, hb);
        return seg_seg_3d(ha[0], ha[na - 1], hb[0], hb[nb - 1]);
    }
    return da ? cd_tri_tri_degenerate_one(b, a) : cd_tri_tri_degenerate_one(a, b);
}

// 1 when all three points p lie strictly on the side −o of the line e0 → e1, i.e. outside an edge
// of a triangle of orientation o. The three values det[e1 − e0, p − e0] share the edge vector and
// a semi-static bound 8ε·m_e·m_p (m: largest |component|; the two products' magnitudes sum to at
// most 2·m_e·m_p, times Shewchuk's ccwerrboundA, rounded up). An undecided value is within its
// bound of the exact one, so |exact| <= 2·bound; the exact value is a multiple of g2 (the square of
// a power of two dividing every coordinate), so 2·bound < g2 proves it 0 — the common case on
// lattice input, where points lie exactly on edge lines. Only the rest goes to cd_orient2d.
static int edge_separates_rest(cd_pt2 e0, cd_pt2 e1, const cd_pt2 p[3], int o, const double side[3],
                               const double bound[3], double g2);

static int edge_separates(cd_pt2 e0, cd_pt2 e1, const cd_pt2 p[3], int o, double g2)
{
    double ex = CD_SUB(e1.x, e0.x), ey = CD_SUB(e1.y, e0.y);
    double k = CD_MUL(8.0 * 0x1p-53, CD_MAX(CD_ABS(ex), CD_ABS(ey)));
    double side[3], bound[3];
    for (int i = 0; i < 3; ++i) {
        double dx = CD_SUB(p[i].x, e0.x), dy = CD_SUB(p[i].y, e0.y);
        double val = CD_SUB(CD_MUL(ex, dy), CD_MUL(ey, dx));
        bound[i] = CD_MUL(k, CD_MAX(CD_ABS(dx), CD_ABS(dy)));
        side[i] = o > 0 ? val : -val;  // > 0: inside
    }
    // Decided without branches per point (the outcomes of random pairs are unpredictable).
    int out = CD_LT(side[0], -bound[0]) & CD_LT(side[1], -bound[1]) & CD_LT(side[2], -bound[2]);
    int in = CD_GT(side[0], bound[0]) | CD_GT(side[1], bound[1]) | CD_GT(side[2], bound[2]);
    if (out | in) return out;
    return edge_separates_rest(e0, e1, p, o, side, bound, g2);
}

// The points edge_separates could not decide by the bound, none of them certainly inside. Out of
// line: with the grid and the predicate calls inline, the compiler built the common path's
// vectors through the stack (a store-forwarding stall on every coplanar edge test).
__attribute__((noinline)) static int edge_separates_rest(cd_pt2 e0, cd_pt2 e1, const cd_pt2 p[3], int o,
                                                         const double side[3], const double bound[3], double g2)
{
    for (int i = 0; i < 3; ++i)
        if (!CD_LT(side[i], -bound[i]) && (CD_LT(CD_MUL(2.0, bound[i]), g2) || cd_orient2d(e0, e1, p[i]) != -o))
            return 0;
    return 1;
}

// edge_separates for coordinates X·g with integers |X| < 2^25 (a small lattice: see
// small_lattice): differences are integers below 2^26 times g, products below 2^52 times g², their
// difference below 2^53 times g², so every value below is computed exactly and its sign needs no
// bound.
static int edge_separates_exact(cd_pt2 e0, cd_pt2 e1, const cd_pt2 p[3], int o)
{
    double ex = CD_SUB(e1.x, e0.x), ey = CD_SUB(e1.y, e0.y);
    int out = 1;
    for (int i = 0; i < 3; ++i) {
        double val = CD_SUB(CD_MUL(ex, CD_SUB(p[i].y, e0.y)), CD_MUL(ey, CD_SUB(p[i].x, e0.x)));
        out &= o > 0 ? CD_LT(val, 0.0) : CD_GT(val, 0.0);
    }
    return out;
}

// The grid makes the edge values exact (edge_separates_exact): every coordinate X·g with |X| < 2^25,
// and g between 2^-500 and 2^450 so that g² · 2^53 neither underflows below the smallest subnormal
// step nor overflows (2^25 · g is then exact too).
static int small_lattice(cd_grid grid)
{
    return CD_GE(grid.g, 0x1p-500) && CD_LE(grid.g, 0x1p+450) && CD_GE(grid.top, 0.0) &&
           CD_LT(grid.top, CD_MUL(0x1p25, grid.g));
}

// cd_orient2d for the points of a small lattice, where the determinant is exact in doubles.
static int orient2d_small(cd_pt2 a, cd_pt2 b, cd_pt2 c)
{
    double det = CD_SUB(CD_MUL(CD_SUB(b.x, a.x), CD_SUB(c.y, a.y)), CD_MUL(CD_SUB(b.y, a.y), CD_SUB(c.x, a.x)));
    return CD_GT(det, 0.0) - CD_LT(det, 0.0);
}

// The coplanar test on projections pa, pb of orientations oa ≠ 0 and ob ≠ 0.
static int coplanar_projected(int oa, int ob, const cd_pt2 pa[3], const cd_pt2 pb[3], cd_grid grid)
{
    // Two disjoint convex polygons are separated by the line of an edge of one of them with the other
    // strictly outside (an edge of their Minkowski difference separates it from the origin).
    if (small_lattice(grid)) {
        for (int i = 0; i < 3; ++i)
            if (edge_separates_exact(pa[i], pa[(i + 1) % 3], pb, oa)) return 0;
        for (int i = 0; i < 3; ++i)
            if (edge_separates_exact(pb[i], pb[(i + 1) % 3], pa, ob)) return 0;
        return 1;
    }
    double g2 = CD_MUL(grid.g, grid.g);
    for (int i = 0; i < 3; ++i)
        if (edge_separates(pa[i], pa[(i + 1) % 3], pb, oa, g2)) return 0;
    for (int i = 0; i < 3; ++i)
        if (edge_separates(pb[i], pb[(i + 1) % 3], pa, ob, g2)) return 0;
    return 1;
}

int cd_tri_tri_coplanar(const cd_triangle *a, const cd_triangle *b, int drop_hint, cd_grid grid)
{
    int oa, ob;
    int k = drop_axis(a, drop_hint, &oa);
    cd_pt2 pa[3], pb[3];
    for (int i = 0; i < 3; ++i) {
        pa[i] = cd_pt2_drop(a->v[i], k);
        pb[i] = cd_pt2_drop(b->v[i], k);
    }
    ob = cd_orient2d(pb[0], pb[1], pb[2]);
    CD_ASSERT(ob != 0);
    return coplanar_projected(oa, ob, pa, pb, grid);
}

int cd_tri_tri_coplanar_oriented(const cd_triangle *a, const cd_triangle *b, int k, int oa, cd_grid grid)
{
    cd_pt2 pa[3], pb[3];
    for (int i = 0; i < 3; ++i) {
        pa[i] = cd_pt2_drop(a->v[i], k);
        pb[i] = cd_pt2_drop(b->v[i], k);
    }
    // In a plane whose normal has a non-zero k component, a triangle has area iff its projection
    // without k has. On a small lattice the determinant is computed exactly (as in
    // edge_separates_exact).
    int ob = small_lattice(grid) ? orient2d_small(pb[0], pb[1], pb[2]) : cd_orient2d(pb[0], pb[1], pb[2]);
    if (ob == 0) return -1;
    return coplanar_projected(oa, ob, pa, pb, grid);
}
