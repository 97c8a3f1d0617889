// SPDX-License-Identifier: MIT
// Shared by test_narrow_tri_tri.c and test_narrow_tri_tri_oracle.c: an exact integer oracle for triangle–triangle
// overlap and seeded generators of random, constructed and near-degenerate pairs.
//
// The oracle works on integer coordinates (|x| < 2^39, or up to 2^57 in the plane z = 0, so every
// orientation determinant fits in 128 bits) and uses a different characterisation from the
// algorithms under test: two closed triangles meet iff an edge of one meets the other (the
// intersection is convex; its extreme points lie on a relative boundary), and a segment meets a
// triangle by plane-side signs, the line-through-triangle signs, or, in the coplanar case, 2-D edge
// crossings and containment.
#ifndef TRI_TRI_GEN_H
#define TRI_TRI_GEN_H

#include <stdint.h>

#include "cd_narrow.h"

__extension__ typedef __int128 i128;

/// An integer point.
typedef struct ipt {
    int64_t c[3];
} ipt;

/// An integer triangle.
typedef struct itri {
    ipt v[3];
} itri;

static inline int sgn128(i128 x) { return (x > 0) - (x < 0); }

static inline int iorient3d(ipt a, ipt b, ipt c, ipt d)
{
    i128 u[3], v[3], w[3];
    for (int i = 0; i < 3; ++i) {
        u[i] = (i128)b.c[i] - a.c[i];
        v[i] = (i128)c.c[i] - a.c[i];
        w[i] = (i128)d.c[i] - a.c[i];
    }
    i128 det =
        w[0] * (u[1] * v[2] - u[2] * v[1]) + w[1] * (u[2] * v[0] - u[0] * v[2]) + w[2] * (u[0] * v[1] - u[1] * v[0]);
    return sgn128(det);
}

/// Orientation in the projection that drops coordinate k.
static inline int iorient2d(ipt a, ipt b, ipt c, int k)
{
    int x = (k + 1) % 3, y = (k + 2) % 3;
    i128 det = ((i128)b.c[x] - a.c[x]) * ((i128)c.c[y] - a.c[y]) - ((i128)b.c[y] - a.c[y]) * ((i128)c.c[x] - a.c[x]);
    return sgn128(det);
}

static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/// Closed 2-D segments pq, rs (projection dropping k) meet; degenerate segments allowed.
static inline int iseg_seg_2d(ipt p, ipt q, ipt r, ipt s, int k)
{
    int o1 = iorient2d(p, q, r, k), o2 = iorient2d(p, q, s, k), o3 = iorient2d(r, s, p, k), o4 = iorient2d(r, s, q, k);
    if (o1 * o2 > 0 || o3 * o4 > 0) return 0;
    if (o1 || o2 || o3 || o4) return 1;
    for (int i = 0; i < 3; ++i) {
        if (i == k) continue;
        if (imax(imin(p.c[i], q.c[i]), imin(r.c[i], s.c[i])) > imin(imax(p.c[i], q.c[i]), imax(r.c[i], s.c[i])))
            return 0;
    }
    return 1;
}

static inline int iseg_seg_3d(ipt p, ipt q, ipt r, ipt s)
{
    if (iorient3d(p, q, r, s) != 0) return 0;
    for (int k = 0; k < 3; ++k)
        if (!iseg_seg_2d(p, q, r, s, k)) return 0;
    return 1;
}

/// Closed segment pq (possibly a point) meets closed triangle t (possibly degenerate).
static inline int iseg_tri(ipt p, ipt q, const itri *t)
{
    int k = -1, o = 0;
    for (int i = 0; i < 3 && k < 0; ++i) {
        o = iorient2d(t->v[0], t->v[1], t->v[2], i);
        if (o) k = i;
    }
    if (k < 0) {  // zero area: the triangle is the union of its edges
        for (int i = 0; i < 3; ++i)
            if (iseg_seg_3d(p, q, t->v[i], t->v[(i + 1) % 3])) return 1;
        return 0;
    }
    int sp = iorient3d(t->v[0], t->v[1], t->v[2], p), sq = iorient3d(t->v[0], t->v[1], t->v[2], q);
    if (sp * sq > 0) return 0;
    if (sp == 0 && sq == 0) {
        for (int i = 0; i < 3; ++i)
            if (iseg_seg_2d(p, q, t->v[i], t->v[(i + 1) % 3], k)) return 1;
        int in = 1;  // p inside (then the whole question is answered: no edge crossing means inside)
        for (int i = 0; i < 3; ++i)
            if (iorient2d(t->v[i], t->v[(i + 1) % 3], p, k) == -o) in = 0;
        return in;
    }
    int a = iorient3d(p, q, t->v[0], t->v[1]), b = iorient3d(p, q, t->v[1], t->v[2]),
        c = iorient3d(p, q, t->v[2], t->v[0]);
    return !((a > 0 || b > 0 || c > 0) && (a < 0 || b < 0 || c < 0));
}

/// The exact oracle.
static inline int itri_tri(const itri *a, const itri *b)
{
    for (int i = 0; i < 3; ++i) {
        if (iseg_tri(a->v[i], a->v[(i + 1) % 3], b)) return 1;
        if (iseg_tri(b->v[i], b->v[(i + 1) % 3], a)) return 1;
    }
    return 0;
}

/// The double triangle of t scaled by s (a power of two keeps it exact).
static inline cd_triangle itri_to_tri(const itri *t, double s)
{
    cd_triangle r;
    for (int i = 0; i < 3; ++i)
        r.v[i] = cd_v3((double)t->v[i].c[0] * s, (double)t->v[i].c[1] * s, (double)t->v[i].c[2] * s);
    return r;
}

static inline int64_t irand(cd_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)cd_rng_below(r, (uint64_t)(hi - lo + 1));
}

// The lattice point (x, y) with P·y − Q·x = k·g (g = gcd(P, |Q|)) and x in [0, P), for P > 0: a
// point within the span of the edge (0, 0) → (P, Q) at edge value k·g, by the extended Euclid
// algorithm.
static inline ipt line_lattice_point(int64_t P, int64_t Q, i128 k)
{
    int64_t r0 = P, r1 = Q < 0 ? -Q : Q, s0 = 1, s1 = 0, t0 = 0, t1 = 1;
    while (r1 != 0) {
        int64_t q = r0 / r1, tmp;
        tmp = r0 - q * r1, r0 = r1, r1 = tmp;
        tmp = s0 - q * s1, s0 = s1, s1 = tmp;
        tmp = t0 - q * t1, t0 = t1, t1 = tmp;
    }
    // s0·P + t0·|Q| = r0 (= g): y0 = s0, x0 = −t0·sign(Q) give P·y0 − Q·x0 = g.
    int64_t y0 = s0, x0 = Q < 0 ? t0 : -t0;
    i128 kx = k * x0, ky = k * y0;
    i128 m = kx >= 0 ? kx / P : -((-kx + P - 1) / P);
    return (ipt){{(int64_t)(kx - m * P), (int64_t)(ky - m * Q), 0}};
}

static inline ipt ipt_rand(cd_rng *r, int64_t range)
{
    return (ipt){{irand(r, -range, range), irand(r, -range, range), irand(r, -range, range)}};
}

static inline ipt ipt_comb(ipt o, ipt u, ipt v, int64_t i, int64_t j)
{
    ipt p;
    for (int k = 0; k < 3; ++k) p.c[k] = o.c[k] + i * u.c[k] + j * v.c[k];
    return p;
}

/// Number of generator families of itri_pair.
enum { ITRI_FAMILIES = 9 };

/// A seeded integer pair of family f (0..ITRI_FAMILIES−1):
/// 0 tiny lattice [-2,2] (many coplanar, degenerate, touching), 1 random [-2^20, 2^20],
/// 2 b in a's plane on a lattice (coplanar overlap/touch/apart), 3 like 2 with ±1 perturbations
/// (near-coplanar), 4 shared vertex or edge, 5 huge coordinates (2^38, edges 2^34) with b's vertices
/// exactly on or one unit off a's plane and edges: the float plane values carry errors near 2^55
/// while the true values are 0 or about 2^68, so only a correct filter + exact stage gets them right, 6 degenerate (points,
/// segments, collinear), 7 vertex/edge exactly on the other's edge or face, 8 coplanar in z = 0
/// with a 2^39-long edge (P, Q) of a and a vertex of b the lattice point nearest its line on either
/// side (P·y − Q·x = ±gcd, distance ~2^-39): the float edge function errs by ~2^25, the truth is ±1.
static inline void itri_pair(cd_rng *r, int f, itri *a, itri *b)
{
    switch (f) {
    case 0:
        for (int i = 0; i < 3; ++i) {
            a->v[i] = ipt_rand(r, 2);
            b->v[i] = ipt_rand(r, 2);
        }
        return;
    case 1:
        for (int i = 0; i < 3; ++i) {
            a->v[i] = ipt_rand(r, 1 << 20);
            b->v[i] = ipt_rand(r, 1 << 20);
        }
        return;
    case 2:
    case 3:
    case 5: {
        int64_t range = f == 5 ? (int64_t)1 << 38 : 1 << 20, er = f == 5 ? (int64_t)1 << 34 : 1 << 10;
        ipt o = ipt_rand(r, range), u = ipt_rand(r, er), v = ipt_rand(r, er);
        a->v[0] = o;
        a->v[1] = ipt_comb(o, u, v, 4, 0);
        a->v[2] = ipt_comb(o, u, v, 0, 4);
        for (int i = 0; i < 3; ++i) {
            b->v[i] = ipt_comb(o, u, v, irand(r, -3, 7), irand(r, -3, 7));
            if (f != 2 && cd_rng_below(r, 2)) b->v[i].c[cd_rng_below(r, 3)] += irand(r, -1, 1);
        }
        if (f == 5 && cd_rng_below(r, 2)) {  // b crossing a's plane with a vertex near a's edge
            ipt w = ipt_rand(r, er);
            b->v[0] = ipt_comb(a->v[0], u, w, 2, 1);
            b->v[1] = ipt_comb(a->v[0], u, w, 2, -1);
            b->v[1].c[cd_rng_below(r, 3)] += irand(r, -1, 1);
        }
        return;
    }
    case 4:
        for (int i = 0; i < 3; ++i) {
            a->v[i] = ipt_rand(r, 1000);
            b->v[i] = ipt_rand(r, 1000);
        }
        {
            int i = (int)cd_rng_below(r, 3);
            b->v[0] = a->v[i];
            if (cd_rng_below(r, 2)) b->v[1] = a->v[(i + 1) % 3];
        }
        return;
    case 6: {
        for (int i = 0; i < 3; ++i) {
            a->v[i] = ipt_rand(r, 8);
            b->v[i] = ipt_rand(r, 8);
        }
        ipt o = ipt_rand(r, 8), d = ipt_rand(r, 3);
        int kind = (int)cd_rng_below(r, 3);  // point, segment, collinear triple
        itri *t = cd_rng_below(r, 2) ? a : b;
        for (int i = 0; i < 3; ++i) {
            int64_t s = kind == 0 ? 0 : (kind == 1 ? (i == 2 ? 0 : i) : irand(r, -3, 3));
            t->v[i] = ipt_comb(o, d, d, s, 0);
        }
        if (cd_rng_below(r, 3) == 0) {  // both degenerate
            itri *t2 = t == a ? b : a;
            ipt o2 = ipt_rand(r, 8), d2 = ipt_rand(r, 3);
            for (int i = 0; i < 3; ++i) t2->v[i] = ipt_comb(o2, d2, d2, irand(r, -2, 2), 0);
        }
        return;
    }
    case 8: {
        if (cd_rng_below(r, 2)) {
            // Half: an edge from −2^55·(1, s) to 2^55·(1, s) (multiples of 8) and b's vertex a small
            // integer point at distance ~1 from its line: p − a_0 cannot be represented, so the
            // rounded 2-D edge function is 0 or of the wrong sign for many points.
            int64_t big = (int64_t)1 << 55, sl = irand(r, 1, 3) * (cd_rng_below(r, 2) ? 1 : -1);
            int64_t x = irand(r, -1000, 1000), d = irand(r, -4, 4);
            a->v[0] = (ipt){{-big, -big * sl, 0}};
            a->v[1] = (ipt){{big, big * sl, 0}};
            a->v[2] = (ipt){{irand(r, -16, 16) * 8, (big / 2) * (cd_rng_below(r, 2) ? 1 : -1), 0}};
            b->v[0] = (ipt){{x, sl * x + d, 0}};
            for (int i = 1; i < 3; ++i)
                b->v[i] = (ipt){{x + irand(r, -1000, 1000), sl * x + d + irand(r, -3000, 3000), 0}};
            return;
        }
        int64_t P = irand(r, (int64_t)1 << 38, (int64_t)1 << 39), Q = irand(r, -((int64_t)1 << 39), (int64_t)1 << 39);
        int side = cd_rng_below(r, 2) ? 1 : -1;
        // The point on the edge's span at P·y − Q·x = k·g. With k up to 2^28 the two products
        // (~2^78, ulp 2^26) round apart, so plain floating point gets the side wrong for many of
        // these points; the truth is never 0.
        i128 k = irand(r, 1, (int64_t)1 << 28);
        ipt b0 = line_lattice_point(P, Q, k * side);
        a->v[0] = (ipt){{0, 0, 0}};
        a->v[1] = (ipt){{P, Q, 0}};
        a->v[2] = (ipt){
            {irand(r, 0, P), Q + irand(r, (int64_t)1 << 30, (int64_t)1 << 38) * (cd_rng_below(r, 2) ? 1 : -1), 0}};
        b->v[0] = b0;
        int far = cd_rng_below(r, 2) ? side : -side;  // b's other vertices beyond b0 or across the line
        for (int i = 1; i < 3; ++i)
            b->v[i] = (ipt){{b->v[0].c[0] + irand(r, -((int64_t)1 << 37), (int64_t)1 << 37),
                             b->v[0].c[1] + far * irand(r, (int64_t)1 << 30, (int64_t)1 << 38), 0}};
        return;
    }
    default: {  // 7: a point x of a (on an edge or in the face) is a vertex of b or on an edge of b
        ipt o = ipt_rand(r, 1 << 16), u = ipt_rand(r, 64), v = ipt_rand(r, 64);
        a->v[0] = o;
        a->v[1] = ipt_comb(o, u, v, 6, 0);
        a->v[2] = ipt_comb(o, u, v, 0, 6);
        int64_t i = irand(r, 0, 6), j = cd_rng_below(r, 2) ? 0 : irand(r, 0, 6 - i);
        ipt x = ipt_comb(o, u, v, i, j), w = ipt_rand(r, 1 << 12);
        b->v[2] = ipt_rand(r, 1 << 16);
        if (cd_rng_below(r, 2)) {
            b->v[0] = x;
            b->v[1] = ipt_rand(r, 1 << 16);
        } else {
            b->v[0] = ipt_comb(x, w, w, 1, 0);
            b->v[1] = ipt_comb(x, w, w, -1, 0);
        }
        return;
    }
    }
}

#endif
