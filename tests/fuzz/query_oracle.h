// SPDX-License-Identifier: MIT
// An oracle for `cdlab query` rows in exact rational arithmetic (GMP: every double is a rational),
// written apart from src/narrow and sharing none of its arithmetic: no power-of-two normalisation,
// no filters, no expansions, so an over- or underflow there cannot hide here.
//
// - tri-tri: the characterisation of tests/tri_tri_gen.h's integer oracle (two closed triangles
//   meet iff an edge of one meets the other; a segment meets a triangle by plane-side signs, the
//   line-through-triangle signs, or 2-D crossings and containment when coplanar), on rationals.
// - sphere-sphere: the sign of (r_a + r_b)² − |c_a − c_b|².
// - sphere-obb and obb-obb: the boxes the row describes (axes as cd_obb_from_pose computes them
//   from the normalised quaternion, lengths as given) judged exactly, with a band: the query's tests
//   round and obb-obb's adds CD_SAT_EPSILON (a gap up to sqrt(1e-12)·S may count as contact), so a
//   pair is only judged when its separation or depth exceeds QO_BAND·(S + |d|₁ (+ r)), S the sum of
//   the half-extents and d the centre difference.
#ifndef CD_QUERY_ORACLE_H
#define CD_QUERY_ORACLE_H

#include "cd_shape.h"

#include <gmp.h>

/// Relative band of the box oracles: 2^-16, above sqrt(CD_SAT_EPSILON) = 1e-6 with room for rounding.
#define QO_BAND 0x1p-16

/// A point with rational coordinates.
typedef struct qo_pt {
    mpq_t c[3];
} qo_pt;

static inline void qo_pt_init(qo_pt *p, const double v[3])
{
    for (int i = 0; i < 3; ++i) {
        mpq_init(p->c[i]);
        mpq_set_d(p->c[i], v[i]);
    }
}

static inline void qo_pt_clear(qo_pt *p)
{
    for (int i = 0; i < 3; ++i) mpq_clear(p->c[i]);
}

/// Sign of det[b − a, c − a, d − a].
static inline int qo_orient3d(const qo_pt *a, const qo_pt *b, const qo_pt *c, const qo_pt *d)
{
    mpq_t u[3], v[3], w[3], x, y, det;
    mpq_inits(x, y, det, NULL);
    for (int i = 0; i < 3; ++i) {
        mpq_inits(u[i], v[i], w[i], NULL);
        mpq_sub(u[i], b->c[i], a->c[i]);
        mpq_sub(v[i], c->c[i], a->c[i]);
        mpq_sub(w[i], d->c[i], a->c[i]);
    }
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        mpq_mul(x, u[j], v[k]);
        mpq_mul(y, u[k], v[j]);
        mpq_sub(x, x, y);
        mpq_mul(x, x, w[i]);
        mpq_add(det, det, x);
    }
    int s = mpq_sgn(det);
    for (int i = 0; i < 3; ++i) mpq_clears(u[i], v[i], w[i], NULL);
    mpq_clears(x, y, det, NULL);
    return s;
}

/// Orientation of a, b, c in the projection that drops coordinate k.
static inline int qo_orient2d(const qo_pt *a, const qo_pt *b, const qo_pt *c, int k)
{
    int x = (k + 1) % 3, y = (k + 2) % 3;
    mpq_t p, q, r;
    mpq_inits(p, q, r, NULL);
    mpq_sub(p, b->c[x], a->c[x]);
    mpq_sub(q, c->c[y], a->c[y]);
    mpq_mul(p, p, q);
    mpq_sub(q, b->c[y], a->c[y]);
    mpq_sub(r, c->c[x], a->c[x]);
    mpq_mul(q, q, r);
    mpq_sub(p, p, q);
    int s = mpq_sgn(p);
    mpq_clears(p, q, r, NULL);
    return s;
}

static inline const mpq_t *qo_min(const mpq_t *a, const mpq_t *b) { return mpq_cmp(*a, *b) <= 0 ? a : b; }
static inline const mpq_t *qo_max(const mpq_t *a, const mpq_t *b) { return mpq_cmp(*a, *b) >= 0 ? a : b; }

/// Closed 2-D segments pq, rs (projection dropping k) meet; degenerate segments allowed.
static inline int qo_seg_seg_2d(const qo_pt *p, const qo_pt *q, const qo_pt *r, const qo_pt *s, int k)
{
    int o1 = qo_orient2d(p, q, r, k), o2 = qo_orient2d(p, q, s, k);
    int o3 = qo_orient2d(r, s, p, k), o4 = qo_orient2d(r, s, q, k);
    if (o1 * o2 > 0 || o3 * o4 > 0) return 0;
    if (o1 || o2 || o3 || o4) return 1;
    for (int i = 0; i < 3; ++i) {
        if (i == k) continue;
        const mpq_t *lo = qo_max(qo_min(&p->c[i], &q->c[i]), qo_min(&r->c[i], &s->c[i]));
        const mpq_t *hi = qo_min(qo_max(&p->c[i], &q->c[i]), qo_max(&r->c[i], &s->c[i]));
        if (mpq_cmp(*lo, *hi) > 0) return 0;
    }
    return 1;
}

static inline int qo_seg_seg_3d(const qo_pt *p, const qo_pt *q, const qo_pt *r, const qo_pt *s)
{
    if (qo_orient3d(p, q, r, s) != 0) return 0;
    for (int k = 0; k < 3; ++k)
        if (!qo_seg_seg_2d(p, q, r, s, k)) return 0;
    return 1;
}

/// Closed segment pq (possibly a point) meets the closed triangle t (possibly degenerate).
static inline int qo_seg_tri(const qo_pt *p, const qo_pt *q, const qo_pt t[3])
{
    int k = -1, o = 0;
    for (int i = 0; i < 3 && k < 0; ++i) {
        o = qo_orient2d(&t[0], &t[1], &t[2], i);
        if (o) k = i;
    }
    if (k < 0) {  // zero area: the triangle is the union of its edges
        for (int i = 0; i < 3; ++i)
            if (qo_seg_seg_3d(p, q, &t[i], &t[(i + 1) % 3])) return 1;
        return 0;
    }
    int sp = qo_orient3d(&t[0], &t[1], &t[2], p), sq = qo_orient3d(&t[0], &t[1], &t[2], q);
    if (sp * sq > 0) return 0;
    if (sp == 0 && sq == 0) {
        for (int i = 0; i < 3; ++i)
            if (qo_seg_seg_2d(p, q, &t[i], &t[(i + 1) % 3], k)) return 1;
        for (int i = 0; i < 3; ++i)  // no edge crossing: pq is inside t or apart from it
            if (qo_orient2d(&t[i], &t[(i + 1) % 3], p, k) == -o) return 0;
        return 1;
    }
    int a = qo_orient3d(p, q, &t[0], &t[1]), b = qo_orient3d(p, q, &t[1], &t[2]), c = qo_orient3d(p, q, &t[2], &t[0]);
    return !((a > 0 || b > 0 || c > 0) && (a < 0 || b < 0 || c < 0));
}

/// Exact overlap of the triangles of the 18 doubles v (a's vertices, then b's).
static inline int qo_tri_tri(const double v[18])
{
    qo_pt a[3], b[3];
    for (int i = 0; i < 3; ++i) {
        qo_pt_init(&a[i], v + 3 * i);
        qo_pt_init(&b[i], v + 9 + 3 * i);
    }
    int hit = 0;
    for (int i = 0; i < 3 && !hit; ++i)
        hit = qo_seg_tri(&a[i], &a[(i + 1) % 3], b) || qo_seg_tri(&b[i], &b[(i + 1) % 3], a);
    for (int i = 0; i < 3; ++i) {
        qo_pt_clear(&a[i]);
        qo_pt_clear(&b[i]);
    }
    return hit;
}

/// Exact overlap of the closed balls (cx, cy, cz, r) at v and v + 4.
static inline int qo_sphere_sphere(const double v[8])
{
    mpq_t s, d, t, x;
    mpq_inits(s, d, t, x, NULL);
    mpq_set_d(s, v[3]);
    mpq_set_d(x, v[7]);
    mpq_add(s, s, x);
    mpq_mul(s, s, s);  // (r_a + r_b)²
    for (int i = 0; i < 3; ++i) {
        mpq_set_d(t, v[i]);
        mpq_set_d(x, v[4 + i]);
        mpq_sub(t, t, x);
        mpq_mul(t, t, t);
        mpq_add(d, d, t);
    }
    int hit = mpq_cmp(s, d) >= 0;
    mpq_clears(s, d, t, x, NULL);
    return hit;
}

/// A box with rational centre, axes (the doubles cd_obb_from_pose gives) and half-extents.
typedef struct qo_box {
    mpq_t c[3], ax[3][3], h[3];
} qo_box;

/// The box of row fields cx,cy,cz,qw,qx,qy,qz,hx,hy,hz (the quaternion normalised as the query does).
static inline void qo_box_init(qo_box *b, const double v[10])
{
    cd_obb o = cd_obb_from_pose(cd_v3(0, 0, 0), cd_q_normalize((cd_quat){v[3], v[4], v[5], v[6]}), cd_v3(0, 0, 0));
    for (int i = 0; i < 3; ++i) {
        mpq_inits(b->c[i], b->h[i], NULL);
        mpq_set_d(b->c[i], v[i]);
        mpq_set_d(b->h[i], v[7 + i]);
        for (int j = 0; j < 3; ++j) {
            mpq_init(b->ax[i][j]);
            mpq_set_d(b->ax[i][j], cd_v3_get(o.axes.col[i], j));
        }
    }
}

static inline void qo_box_clear(qo_box *b)
{
    for (int i = 0; i < 3; ++i) {
        mpq_clears(b->c[i], b->h[i], NULL);
        for (int j = 0; j < 3; ++j) mpq_clear(b->ax[i][j]);
    }
}

static inline void qo_dot(mpq_t out, mpq_t a[3], mpq_t b[3])
{
    mpq_t t;
    mpq_init(t);
    mpq_mul(out, a[0], b[0]);
    for (int i = 1; i < 3; ++i) {
        mpq_mul(t, a[i], b[i]);
        mpq_add(out, out, t);
    }
    mpq_clear(t);
}

/// out = QO_BAND · (S + |d|₁ + extra), the band of a pair (a NULL a: one box).
static inline void qo_band(mpq_t out, qo_box *a, qo_box *b, mpq_t d[3], double extra)
{
    mpq_t t;
    mpq_init(t);
    mpq_set_d(out, extra);
    for (int i = 0; i < 3; ++i) {
        mpq_add(out, out, b->h[i]);
        if (a) mpq_add(out, out, a->h[i]);
        mpq_abs(t, d[i]);
        mpq_add(out, out, t);
    }
    mpq_set_d(t, QO_BAND);
    mpq_mul(out, out, t);
    mpq_clear(t);
}

/// The margin of axis L: |d·L| − Σ h_a,i |a_i·L| − Σ h_b,j |b_j·L| (> 0: L separates).
static inline void qo_margin(mpq_t out, qo_box *a, qo_box *b, mpq_t d[3], mpq_t L[3])
{
    mpq_t t;
    mpq_init(t);
    qo_dot(out, d, L);
    mpq_abs(out, out);
    qo_box *boxes[2] = {a, b};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 3; ++i) {
            qo_dot(t, boxes[k]->ax[i], L);
            mpq_abs(t, t);
            mpq_mul(t, t, boxes[k]->h[i]);
            mpq_sub(out, out, t);
        }
    mpq_clear(t);
}

/// obb-obb row v (20 fields): 0 apart beyond the band, 1 overlapping beyond it, −1 within it.
/// Apart: some axis separates by more than the band (margin > band·|L|, a proof for these boxes).
/// Overlapping: every axis overlaps by more than it; cross axes of edges within 2^-20 rad of
/// parallel are left out (a separation only they show is below S·2^-20, inside the band).
static inline int qo_obb_obb(const double v[20])
{
    qo_box a, b;
    qo_box_init(&a, v);
    qo_box_init(&b, v + 10);
    mpq_t d[3], L[3], m, band2, len2, t, tiny;
    mpq_inits(m, band2, len2, t, tiny, NULL);
    for (int i = 0; i < 3; ++i) {
        mpq_inits(d[i], L[i], NULL);
        mpq_sub(d[i], b.c[i], a.c[i]);
    }
    qo_band(band2, &a, &b, d, 0.0);
    mpq_mul(band2, band2, band2);
    mpq_set_d(tiny, 0x1p-40);
    int apart = 0, deep = 1;
    for (int axis = 0; axis < 15; ++axis) {
        if (axis < 6) {
            qo_box *o = axis < 3 ? &a : &b;
            for (int k = 0; k < 3; ++k) mpq_set(L[k], o->ax[axis % 3][k]);
        } else {
            mpq_t *p = a.ax[(axis - 6) / 3], *q = b.ax[(axis - 6) % 3];
            for (int k = 0; k < 3; ++k) {
                mpq_mul(L[k], p[(k + 1) % 3], q[(k + 2) % 3]);
                mpq_mul(t, p[(k + 2) % 3], q[(k + 1) % 3]);
                mpq_sub(L[k], L[k], t);
            }
        }
        qo_dot(len2, L, L);
        qo_margin(m, &a, &b, d, L);
        mpq_mul(t, m, m);
        mpq_mul(len2, len2, band2);  // band² · |L|²
        int beyond = mpq_cmp(t, len2) > 0;
        if (mpq_sgn(m) > 0 && beyond) apart = 1;
        qo_dot(len2, L, L);
        int skip = axis >= 6 && mpq_cmp(len2, tiny) < 0;
        if (!skip && !(mpq_sgn(m) < 0 && beyond)) deep = 0;
    }
    for (int i = 0; i < 3; ++i) mpq_clears(d[i], L[i], NULL);
    mpq_clears(m, band2, len2, t, tiny, NULL);
    qo_box_clear(&a);
    qo_box_clear(&b);
    return apart ? 0 : (deep ? 1 : -1);
}

/// sphere-obb row v (14 fields), with the box's projections of the centre difference as its
/// coordinates: 0 when the distance exceeds r by more than the band, 1 when it is below r by more,
/// −1 within.
static inline int qo_sphere_obb(const double v[14])
{
    qo_box b;
    qo_box_init(&b, v + 4);
    mpq_t d[3], x, dist2, r, lim, band;
    mpq_inits(x, dist2, r, lim, band, NULL);
    for (int i = 0; i < 3; ++i) {
        mpq_init(d[i]);
        mpq_set_d(d[i], v[i]);
        mpq_sub(d[i], d[i], b.c[i]);
    }
    for (int i = 0; i < 3; ++i) {  // excess of the local coordinate over the half-extent
        qo_dot(x, b.ax[i], d);
        mpq_abs(x, x);
        mpq_sub(x, x, b.h[i]);
        if (mpq_sgn(x) > 0) {
            mpq_mul(x, x, x);
            mpq_add(dist2, dist2, x);
        }
    }
    qo_band(band, NULL, &b, d, v[3]);
    mpq_set_d(r, v[3]);
    int verdict = -1;
    // dist > r + band ⟺ dist² > (r + band)²; dist < r − band ⟺ r > band and dist² < (r − band)².
    mpq_add(lim, r, band);
    mpq_mul(lim, lim, lim);
    if (mpq_cmp(dist2, lim) > 0) verdict = 0;
    mpq_sub(lim, r, band);
    if (mpq_sgn(lim) > 0) {
        mpq_mul(lim, lim, lim);
        if (mpq_cmp(dist2, lim) < 0) verdict = 1;
    }
    for (int i = 0; i < 3; ++i) mpq_clear(d[i]);
    mpq_clears(x, dist2, r, lim, band, NULL);
    qo_box_clear(&b);
    return verdict;
}

#endif
