// SPDX-License-Identifier: MIT
// Orientation predicates after Shewchuk ("Adaptive precision floating-point arithmetic and fast
// robust geometric predicates", 1997): a filter with his error bounds, then an exact evaluation on
// nonoverlapping expansions. The exact stage starts from the raw coordinates; its zero elimination
// makes it cheap when the coordinate differences are exact (the common coplanar inputs), which is the
// adaptivity that matters here. Every operation goes through the counting layer (cd_opcount.h).
#include "op_count.h"
#include "predicates.h"

#ifdef CD_COUNT_OPS
cd_op_counts cd_op_tally;
#endif

// Shewchuk's epsilon is half an ulp of 1 (round-to-nearest).
#define CD_EPS 0x1p-53
#define CD_CCW_BOUND ((3.0 + 16.0 * CD_EPS) * CD_EPS)
#define CD_O3D_BOUND ((7.0 + 56.0 * CD_EPS) * CD_EPS)
// 2^ceil(53/2) + 1 splits a double into two 26-bit halves for Dekker's exact product.
#define CD_SPLITTER 134217729.0

// ---------------------------------------------------------------------------------------------
// Error-free transformations. x is the rounded result, y the exact rounding error.

static inline void fast_two_sum(double a, double b, double *x, double *y)
{
    double s = CD_ADD(a, b);
    double bvirt = CD_SUB(s, a);
    *x = s;
    *y = CD_SUB(b, bvirt);
}

static inline void two_sum(double a, double b, double *x, double *y)
{
    double s = CD_ADD(a, b);
    double bvirt = CD_SUB(s, a);
    double avirt = CD_SUB(s, bvirt);
    double bround = CD_SUB(b, bvirt);
    double around = CD_SUB(a, avirt);
    *x = s;
    *y = CD_ADD(around, bround);
}

static inline void two_diff(double a, double b, double *x, double *y)
{
    double s = CD_SUB(a, b);
    double bvirt = CD_SUB(a, s);
    double avirt = CD_ADD(s, bvirt);
    double bround = CD_SUB(bvirt, b);
    double around = CD_SUB(a, avirt);
    *x = s;
    *y = CD_ADD(around, bround);
}

static inline void split(double a, double *hi, double *lo)
{
    double c = CD_MUL(CD_SPLITTER, a);
    double abig = CD_SUB(c, a);
    *hi = CD_SUB(c, abig);
    *lo = CD_SUB(a, *hi);
}

static inline void two_product_presplit(double a, double b, double bhi, double blo, double *x, double *y)
{
    double p = CD_MUL(a, b);
    double ahi, alo;
    split(a, &ahi, &alo);
    double err1 = CD_SUB(p, CD_MUL(ahi, bhi));
    double err2 = CD_SUB(err1, CD_MUL(alo, bhi));
    double err3 = CD_SUB(err2, CD_MUL(ahi, blo));
    *x = p;
    *y = CD_SUB(CD_MUL(alo, blo), err3);
}

// ---------------------------------------------------------------------------------------------
// Expansions: arrays of nonoverlapping doubles in increasing magnitude, zeros eliminated, length
// >= 1 (a lone 0 stands for zero). The value's sign is the sign of the last component.

// e = a − b exactly.
static int diff_expansion(double a, double b, double *e)
{
    double x, y;
    two_diff(a, b, &x, &y);
    if (y != 0.0) {
        e[0] = y;
        e[1] = x;
        return 2;
    }
    e[0] = x;
    return 1;
}

// h = e · b (Shewchuk's scale_expansion_zeroelim); h holds up to 2·elen components.
static int scale_expansion(int elen, const double *e, double b, double *h)
{
    double bhi, blo, q, hh, p1, p0, sum;
    split(b, &bhi, &blo);
    two_product_presplit(e[0], b, bhi, blo, &q, &hh);
    int n = 0;
    if (hh != 0.0) h[n++] = hh;
    for (int i = 1; i < elen; ++i) {
        two_product_presplit(e[i], b, bhi, blo, &p1, &p0);
        two_sum(q, p0, &sum, &hh);
        if (hh != 0.0) h[n++] = hh;
        fast_two_sum(p1, sum, &q, &hh);
        if (hh != 0.0) h[n++] = hh;
    }
    if (q != 0.0 || n == 0) h[n++] = q;
    return n;
}

// h = e + f (Shewchuk's fast_expansion_sum_zeroelim, without reading past either input).
static int sum_expansion(int elen, const double *e, int flen, const double *f, double *h)
{
    double q, qnew, hh;
    int ei = 0, fi = 0, n = 0;
    double enow = e[0], fnow = f[0];
    // Merge by magnitude: take the smaller of the two heads first.
    if ((fnow > enow) == (fnow > -enow)) {
        q = enow;
        ++ei;
    } else {
        q = fnow;
        ++fi;
    }
    if (ei < elen) enow = e[ei];
    if (fi < flen) fnow = f[fi];
    if (ei < elen && fi < flen) {
        if ((fnow > enow) == (fnow > -enow)) {
            fast_two_sum(enow, q, &qnew, &hh);
            if (++ei < elen) enow = e[ei];
        } else {
            fast_two_sum(fnow, q, &qnew, &hh);
            if (++fi < flen) fnow = f[fi];
        }
        q = qnew;
        if (hh != 0.0) h[n++] = hh;
        while (ei < elen && fi < flen) {
            if ((fnow > enow) == (fnow > -enow)) {
                two_sum(q, enow, &qnew, &hh);
                if (++ei < elen) enow = e[ei];
            } else {
                two_sum(q, fnow, &qnew, &hh);
                if (++fi < flen) fnow = f[fi];
            }
            q = qnew;
            if (hh != 0.0) h[n++] = hh;
        }
    }
    while (ei < elen) {
        two_sum(q, enow, &qnew, &hh);
        if (++ei < elen) enow = e[ei];
        q = qnew;
        if (hh != 0.0) h[n++] = hh;
    }
    while (fi < flen) {
        two_sum(q, fnow, &qnew, &hh);
        if (++fi < flen) fnow = f[fi];
        q = qnew;
        if (hh != 0.0) h[n++] = hh;
    }
    if (q != 0.0 || n == 0) h[n++] = q;
    return n;
}

// h = e · f for a short f (a coordinate difference, 1 or 2 components).
static int product_expansion(int elen, const double *e, int flen, const double *f, double *h)
{
    double t0[128], t1[128];
    CD_ASSERT(elen <= 64 && flen <= 2);
    int n = scale_expansion(elen, e, f[0], h);
    if (flen == 2) {
        int n0 = scale_expansion(elen, e, f[1], t0);
        for (int i = 0; i < n; ++i) t1[i] = h[i];
        n = sum_expansion(n, t1, n0, t0, h);
    }
    return n;
}

// h = e·f − g·k for four differences (a 2×2 minor); up to 16 components.
static int minor_expansion(int elen, const double *e, int flen, const double *f, int glen, const double *g, int klen,
                           const double *k, double *h)
{
    double p[8], q[8];
    int np = product_expansion(elen, e, flen, f, p);
    int nq = product_expansion(glen, g, klen, k, q);
    for (int i = 0; i < nq; ++i) q[i] = -q[i];
    return sum_expansion(np, p, nq, q, h);
}

static int sign_of(double x) { return (x > 0.0) - (x < 0.0); }

// ---------------------------------------------------------------------------------------------
// Predicates

// The 2×2 minor p·q − r·t of four doubles, exactly (up to 4 components): the stage Shewchuk calls
// B, used when all coordinate differences were exact (every lattice or coplanar-by-construction
// input), skipping the 2-component difference expansions.
static int minor_exact_diffs(double p, double q, double r, double t, double *h)
{
    double x[2], y[2], qhi, qlo, thi, tlo;
    split(q, &qhi, &qlo);
    split(t, &thi, &tlo);
    two_product_presplit(p, q, qhi, qlo, &x[1], &x[0]);
    two_product_presplit(r, t, thi, tlo, &y[1], &y[0]);
    y[0] = -y[0], y[1] = -y[1];
    // Zero tails would break nothing but cost merges; drop them.
    double xe[2], ye[2];
    int nx = 0, ny = 0;
    if (x[0] != 0.0) xe[nx++] = x[0];
    if (x[1] != 0.0 || nx == 0) xe[nx++] = x[1];
    if (y[0] != 0.0) ye[ny++] = y[0];
    if (y[1] != 0.0 || ny == 0) ye[ny++] = y[1];
    return sum_expansion(nx, xe, ny, ye, h);
}

int cd_orient3d_exact(const cd_vec3 *a, const cd_vec3 *b, const cd_vec3 *c, const cd_vec3 *d)
{
    CD_COUNT_EXACT();
    double u[3][2], v[3][2], w[3][2];
    int nu[3], nv[3], nw[3];
    const double pa[3] = {a->x, a->y, a->z}, pb[3] = {b->x, b->y, b->z};
    const double pc[3] = {c->x, c->y, c->z}, pd[3] = {d->x, d->y, d->z};
    int exact_diffs = 1;
    for (int i = 0; i < 3; ++i) {
        nu[i] = diff_expansion(pb[i], pa[i], u[i]);
        nv[i] = diff_expansion(pc[i], pa[i], v[i]);
        nw[i] = diff_expansion(pd[i], pa[i], w[i]);
        exact_diffs &= (nu[i] == 1) & (nv[i] == 1) & (nw[i] == 1);
    }
    // det = w · (u × v), one 2×2 minor per component of the cross product.
    double m[16], t[3][64], s01[128], det[192];
    int nt[3];
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        int nm = exact_diffs ? minor_exact_diffs(u[j][0], v[k][0], u[k][0], v[j][0], m)
                             : minor_expansion(nu[j], u[j], nv[k], v[k], nu[k], u[k], nv[j], v[j], m);
        nt[i] = exact_diffs ? scale_expansion(nm, m, w[i][0], t[i]) : product_expansion(nm, m, nw[i], w[i], t[i]);
    }
    int n01 = sum_expansion(nt[0], t[0], nt[1], t[1], s01);
    int n = sum_expansion(n01, s01, nt[2], t[2], det);
    return sign_of(det[n - 1]);
}

int cd_orient3d(const cd_vec3 *a, const cd_vec3 *b, const cd_vec3 *c, const cd_vec3 *d)
{
    double ux = CD_SUB(b->x, a->x), uy = CD_SUB(b->y, a->y), uz = CD_SUB(b->z, a->z);
    double vx = CD_SUB(c->x, a->x), vy = CD_SUB(c->y, a->y), vz = CD_SUB(c->z, a->z);
    double wx = CD_SUB(d->x, a->x), wy = CD_SUB(d->y, a->y), wz = CD_SUB(d->z, a->z);
    double p1 = CD_MUL(uy, vz), p2 = CD_MUL(uz, vy);
    double p3 = CD_MUL(uz, vx), p4 = CD_MUL(ux, vz);
    double p5 = CD_MUL(ux, vy), p6 = CD_MUL(uy, vx);
    double det = CD_ADD(CD_ADD(CD_MUL(wx, CD_SUB(p1, p2)), CD_MUL(wy, CD_SUB(p3, p4))), CD_MUL(wz, CD_SUB(p5, p6)));
    double perm = CD_ADD(
        CD_ADD(CD_MUL(CD_ADD(CD_ABS(p1), CD_ABS(p2)), CD_ABS(wx)), CD_MUL(CD_ADD(CD_ABS(p3), CD_ABS(p4)), CD_ABS(wy))),
        CD_MUL(CD_ADD(CD_ABS(p5), CD_ABS(p6)), CD_ABS(wz)));
    double bound = CD_MUL(CD_O3D_BOUND, perm);
    if (CD_GT(det, bound)) return 1;
    if (CD_LT(det, -bound)) return -1;
    // |det − exact| <= bound and the exact value is a multiple of g³: with 2·bound < g³ it is 0.
    const cd_vec3 *pts[4] = {a, b, c, d};
    double g = cd_grid_of_points(pts, 4);
    if (CD_LT(CD_MUL(2.0, bound), CD_MUL(CD_MUL(g, g), g))) return 0;
    return cd_orient3d_exact(a, b, c, d);
}

int cd_orient2d_exact(cd_pt2 a, cd_pt2 b, cd_pt2 c)
{
    CD_COUNT_EXACT();
    double ux[2], uy[2], vx[2], vy[2], det[16];
    int nux = diff_expansion(b.x, a.x, ux), nuy = diff_expansion(b.y, a.y, uy);
    int nvx = diff_expansion(c.x, a.x, vx), nvy = diff_expansion(c.y, a.y, vy);
    if ((nux == 1) & (nuy == 1) & (nvx == 1) & (nvy == 1)) {
        // Exact differences: compare the two exact products p = ux·vy and q = uy·vx. Rounding is
        // monotone, so different rounded heads order them; equal heads leave the exact tails.
        double phi, plo, qhi, qlo, s1, s0;
        split(vy[0], &s1, &s0);
        two_product_presplit(ux[0], vy[0], s1, s0, &phi, &plo);
        split(vx[0], &s1, &s0);
        two_product_presplit(uy[0], vx[0], s1, s0, &qhi, &qlo);
        if (CD_GT(phi, qhi)) return 1;
        if (CD_LT(phi, qhi)) return -1;
        return CD_GT(plo, qlo) - CD_LT(plo, qlo);
    }
    int n = minor_expansion(nux, ux, nvy, vy, nuy, uy, nvx, vx, det);
    return sign_of(det[n - 1]);
}

int cd_orient2d(cd_pt2 a, cd_pt2 b, cd_pt2 c)
{
    double left = CD_MUL(CD_SUB(b.x, a.x), CD_SUB(c.y, a.y));
    double right = CD_MUL(CD_SUB(b.y, a.y), CD_SUB(c.x, a.x));
    double det = CD_SUB(left, right);
    double bound = CD_MUL(CD_CCW_BOUND, CD_ADD(CD_ABS(left), CD_ABS(right)));
    if (CD_GT(det, bound)) return 1;
    if (CD_LT(det, -bound)) return -1;
    // The exact value is a multiple of g²; with 2·bound < g² it is 0 (see cd_grid_of).
    double g = cd_grid_of(a.x);
    double gs[5] = {cd_grid_of(a.y), cd_grid_of(b.x), cd_grid_of(b.y), cd_grid_of(c.x), cd_grid_of(c.y)};
    for (int i = 0; i < 5; ++i) g = gs[i] < g ? gs[i] : g;
    if (CD_LT(CD_MUL(2.0, bound), CD_MUL(g, g))) return 0;
    return cd_orient2d_exact(a, b, c);
}

#ifndef CD_COUNT_OPS
#include "cd_narrow.h"

// x = a + b exactly as an expansion (1 or 2 components).
static int sum_two(double a, double b, double *x)
{
    double hi, lo;
    two_sum(a, b, &hi, &lo);
    if (lo != 0.0) {
        x[0] = lo;
        x[1] = hi;
        return 2;
    }
    x[0] = hi;
    return 1;
}

int cd_sphere_sphere_overlap_exact(const cd_sphere *a, const cd_sphere *b)
{
    // (r_a + r_b)² − Σ (c_a,i − c_b,i)² on expansions: each square of a 1- or 2-component
    // expansion has at most 8 components, their sum at most 24, the result at most 32. Exact while
    // no product underflows or overflows (cd_narrow.h: every length and difference 0 or of
    // magnitude 2^-300 .. 2^300).
    double r[2], rr[8], d[3][2], dd[3][8], s01[16], s[24], det[32];
    int nr = sum_two(a->r, b->r, r);
    int nrr = product_expansion(nr, r, nr, r, rr);
    const double ca[3] = {a->c.x, a->c.y, a->c.z}, cb[3] = {b->c.x, b->c.y, b->c.z};
    int ndd[3];
    for (int i = 0; i < 3; ++i) {
        int nd = diff_expansion(ca[i], cb[i], d[i]);
        ndd[i] = product_expansion(nd, d[i], nd, d[i], dd[i]);
    }
    int n01 = sum_expansion(ndd[0], dd[0], ndd[1], dd[1], s01);
    int ns = sum_expansion(n01, s01, ndd[2], dd[2], s);
    for (int i = 0; i < ns; ++i) s[i] = -s[i];
    int n = sum_expansion(nrr, rr, ns, s, det);
    return sign_of(det[n - 1]) >= 0;
}
#endif
