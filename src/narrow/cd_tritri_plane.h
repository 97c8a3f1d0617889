// SPDX-License-Identifier: MIT
// The plane test shared by the exact triangle–triangle algorithms (private to narrow): the signs
// of one triangle's vertices against the other's plane, N_t · (o_j − t_0) with N_t computed once,
// certified by a semi-static filter (CD_PLANE_ERR) and decided exactly only where it cannot.
#ifndef CD_TRITRI_PLANE_H
#define CD_TRITRI_PLANE_H

#include "cd_opcount.h"
#include "cd_predicates.h"

/// Plane values of o's vertices against t's plane with one error bound for the three.
typedef struct cd_plane_eval {
    double n[3];  ///< N_t (rounded), for choosing a projection
    double d[3];  ///< fl(N_t · (o_j − t_0))
    double k;     ///< CD_PLANE_ERR · m_u · m_v: k · (largest |component| of w_j) bounds vertex j alone
    double e;     ///< k · m_w: |d_j − exact| <= e for every j
} cd_plane_eval;

/// Fill pe for the vertices of o against the plane of t: 39 operations for the values as in the
/// seed's model plus 3 for the bound CD_PLANE_ERR · m_u · m_v · m_w (m_w the largest |component|
/// over all three w_j: one bound serves the three vertices, so the rejection costs 3
/// multiplications beyond the plain test, not 5).
static inline void cd_plane_eval_of(const cd_triangle *t, const cd_triangle *o, cd_plane_eval *pe)
{
    const cd_vec3 *t0 = &t->v[0];
    double ux = CD_SUB(t->v[1].x, t0->x), uy = CD_SUB(t->v[1].y, t0->y), uz = CD_SUB(t->v[1].z, t0->z);
    double vx = CD_SUB(t->v[2].x, t0->x), vy = CD_SUB(t->v[2].y, t0->y), vz = CD_SUB(t->v[2].z, t0->z);
    double nx = CD_SUB(CD_MUL(uy, vz), CD_MUL(uz, vy));
    double ny = CD_SUB(CD_MUL(uz, vx), CD_MUL(ux, vz));
    double nz = CD_SUB(CD_MUL(ux, vy), CD_MUL(uy, vx));
    // m_u · m_v (largest |component| of each edge), not the square of the larger: the permanent is
    // at most 6 m_u m_v m_w, and it takes one comparison less.
    double mu = CD_MAX(CD_MAX(CD_ABS(ux), CD_ABS(uy)), CD_ABS(uz));
    double mv = CD_MAX(CD_MAX(CD_ABS(vx), CD_ABS(vy)), CD_ABS(vz));
    pe->n[0] = nx, pe->n[1] = ny, pe->n[2] = nz;
    // Vertex by vertex, folding |w| into the running maximum at once: few values live at a time.
    double mw = 0;
    for (int j = 0; j < 3; ++j) {
        const cd_vec3 *p = &o->v[j];
        double wx = CD_SUB(p->x, t0->x), wy = CD_SUB(p->y, t0->y), wz = CD_SUB(p->z, t0->z);
        pe->d[j] = CD_ADD(CD_ADD(CD_MUL(nx, wx), CD_MUL(ny, wy)), CD_MUL(nz, wz));
        double m = CD_MAX(CD_MAX(CD_ABS(wx), CD_ABS(wy)), CD_ABS(wz));
        mw = j ? CD_MAX(mw, m) : m;
    }
    // Three roundings; CD_PLANE_ERR's margin covers them.
    pe->k = CD_MUL(CD_MUL(CD_PLANE_ERR, mu), mv);
    pe->e = CD_MUL(pe->k, mw);
}

/// 1 when the filter alone proves every vertex strictly on one side (the common rejection):
/// min d_j > e or −max d_j > e, decided by one branch that random pairs almost always take.
static inline int cd_plane_certainly_one_side(const cd_plane_eval *pe)
{
    double lo = CD_MIN(CD_MIN(pe->d[0], pe->d[1]), pe->d[2]);
    double hi = CD_MAX(CD_MAX(pe->d[0], pe->d[1]), pe->d[2]);
    return CD_GT(CD_MAX(lo, -hi), pe->e);
}

/// The grid of two triangles' 18 coordinates (cd_grid_of_points).
static inline double cd_tritri_grid(const cd_triangle *t, const cd_triangle *o)
{
    const cd_vec3 *pts[6] = {&t->v[0], &t->v[1], &t->v[2], &o->v[0], &o->v[1], &o->v[2]};
    return cd_grid_of_points(pts, 6);
}

/// The largest |coordinate| of two triangles: branch-free, as a tree of maxima in floating point
/// (integer exponent maxima next to the grid's minima cost more here: spills and a serial chain).
static inline double cd_tritri_top(const cd_triangle *t, const cd_triangle *o)
{
    const cd_vec3 *p[6] = {&t->v[0], &t->v[1], &t->v[2], &o->v[0], &o->v[1], &o->v[2]};
    double m[6];
    for (int i = 0; i < 6; ++i) m[i] = CD_MAX(CD_MAX(CD_ABS(p[i]->x), CD_ABS(p[i]->y)), CD_ABS(p[i]->z));
    return CD_MAX(CD_MAX(CD_MAX(m[0], m[1]), CD_MAX(m[2], m[3])), CD_MAX(m[4], m[5]));
}

/// The exact signs: the shared filter's where it is certain, then vertex j's own bound
/// k · max|w_j| (tighter when the other vertices lie farther from t_0). What neither decides
/// depends on the rounded value. A rounded 0 (coplanar input: every operation was exact) is
/// certified exactly 0 when its bound is below half the coordinate grid cubed (the six points'
/// grid, computed once into grid->g, which stays as it was if not needed). A rounded non-zero
/// value (near-touching input, whose coordinates have no useful grid) goes straight to cd_orient3d,
/// whose permanent bound (Shewchuk's) is much tighter than k · m_w — on near-touching pairs it
/// leaves 7 of 8192 pairs to the expansions where going to them directly left 291 — and which tries
/// its own four-point grid before the expansions.
static inline void cd_plane_signs_grid(const cd_triangle *t, const cd_triangle *o, const cd_plane_eval *pe, int s[3],
                                       cd_grid *grid)
{
    int zero_ok = -1;  // 2e < g³: every rounded 0 is exact (one test serves the three; −1: not yet)
    for (int j = 0; j < 3; ++j) {
        if (CD_GT(pe->d[j], pe->e)) {
            s[j] = 1;
            continue;
        }
        if (CD_LT(pe->d[j], -pe->e)) {
            s[j] = -1;
            continue;
        }
        if (!CD_EQ(pe->d[j], 0.0)) {
            const cd_vec3 *p = &o->v[j], *t0 = &t->v[0];
            double m = CD_MAX(CD_MAX(CD_ABS(CD_SUB(p->x, t0->x)), CD_ABS(CD_SUB(p->y, t0->y))),
                              CD_ABS(CD_SUB(p->z, t0->z)));
            double ej = CD_MUL(pe->k, m);
            s[j] = CD_GT(pe->d[j], ej) ? 1 : (CD_LT(pe->d[j], -ej) ? -1 : cd_orient3d(&t->v[0], &t->v[1], &t->v[2], p));
            continue;
        }
        if (zero_ok < 0) {
            if (grid->g < 0) grid->g = cd_tritri_grid(t, o);
            // |exact| <= e while the exact value is a multiple of g³.
            double g = grid->g;
            zero_ok = CD_LT(CD_MUL(2.0, pe->e), CD_MUL(CD_MUL(g, g), g));
        }
        s[j] = zero_ok ? 0 : cd_orient3d(&t->v[0], &t->v[1], &t->v[2], &o->v[j]);
    }
}

/// cd_plane_signs_grid without returning the grid.
static inline void cd_plane_signs(const cd_triangle *t, const cd_triangle *o, const cd_plane_eval *pe, int s[3])
{
    cd_grid grid = {-1, -1};
    cd_plane_signs_grid(t, o, pe, s, &grid);
}

/// The coordinate of the largest |component| of pe->n (a projection preference only).
static inline int cd_plane_drop_hint(const cd_plane_eval *pe)
{
    double ax = fabs(pe->n[0]), ay = fabs(pe->n[1]), az = fabs(pe->n[2]);
    return ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
}

/// 1 when all three signs are the same non-zero sign.
static inline int cd_signs_one_side(const int s[3]) { return s[0] != 0 && s[0] == s[1] && s[1] == s[2]; }

#endif
