// SPDX-License-Identifier: MIT
// The plane test shared by the exact triangle–triangle algorithms (private to narrow): the signs
// of one triangle's vertices against the other's plane, N_t · (o_j − t_0) with N_t computed once,
// certified by a semi-static filter (CD_PLANE_ERR) and decided exactly only where it cannot.
#ifndef CD_TRITRI_PLANE_H
#define CD_TRITRI_PLANE_H

#include "cd_opcount.h"
#include "cd_predicates.h"

/// Plane values of o's vertices against t's plane with their error bounds.
typedef struct cd_plane_eval {
    double n[3];  ///< N_t (rounded), for choosing a projection
    double d[3];  ///< fl(N_t · (o_j − t_0))
    double e[3];  ///< |d_j − exact| <= e[j]
} cd_plane_eval;

/// Fill pe for the vertices of o against the plane of t: 39 operations for the values as in the
/// seed's model plus 5 for the bounds (K·m_t² once, ·m_w per vertex).
static inline void cd_plane_eval_of(const cd_triangle *t, const cd_triangle *o, cd_plane_eval *pe)
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
    pe->n[0] = nx, pe->n[1] = ny, pe->n[2] = nz;
    for (int j = 0; j < 3; ++j) {
        const cd_vec3 *p = &o->v[j];
        double wx = CD_SUB(p->x, t0->x), wy = CD_SUB(p->y, t0->y), wz = CD_SUB(p->z, t0->z);
        pe->d[j] = CD_ADD(CD_ADD(CD_MUL(nx, wx), CD_MUL(ny, wy)), CD_MUL(nz, wz));
        pe->e[j] = CD_MUL(k, CD_MAX(CD_MAX(CD_ABS(wx), CD_ABS(wy)), CD_ABS(wz)));
    }
}

/// 1 when the filter alone proves every vertex strictly on one side (the common rejection); one
/// branch, so random pairs pay no per-vertex branches.
static inline int cd_plane_certainly_one_side(const cd_plane_eval *pe)
{
    int pos = CD_GT(pe->d[0], pe->e[0]) & CD_GT(pe->d[1], pe->e[1]) & CD_GT(pe->d[2], pe->e[2]);
    int neg = CD_LT(pe->d[0], -pe->e[0]) & CD_LT(pe->d[1], -pe->e[1]) & CD_LT(pe->d[2], -pe->e[2]);
    return pos | neg;
}

/// The exact signs: the filter's where it is certain, the exact predicate elsewhere.
/// Where neither decides, a value whose bound is below half the coordinate grid cubed is exactly 0
/// (cd_grid_of); only the rest goes to the expansions.
static inline void cd_plane_signs(const cd_triangle *t, const cd_triangle *o, const cd_plane_eval *pe, int s[3])
{
    double grid3 = -1;  // computed on the first uncertain value
    for (int j = 0; j < 3; ++j) {
        if (CD_GT(pe->d[j], pe->e[j])) {
            s[j] = 1;
            continue;
        }
        if (CD_LT(pe->d[j], -pe->e[j])) {
            s[j] = -1;
            continue;
        }
        if (grid3 < 0) {
            const cd_vec3 *pts[6] = {&t->v[0], &t->v[1], &t->v[2], &o->v[0], &o->v[1], &o->v[2]};
            double g = cd_grid_of_points(pts, 6);
            grid3 = CD_MUL(CD_MUL(g, g), g);
        }
        s[j] = CD_LT(CD_MUL(2.0, pe->e[j]), grid3) ? 0 : cd_orient3d_exact(&t->v[0], &t->v[1], &t->v[2], &o->v[j]);
    }
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
