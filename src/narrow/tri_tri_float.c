// SPDX-License-Identifier: MIT
// The plane-first test exactly as the seed counts it, in plain floating point: N_a and three plane
// values (39 operations), the symmetric test (39), L = N_a × N_b (9), four slice ends on the
// coordinate r of L's largest component (5 each: t = d_i / (d_i − d_j), x = p + t·(q − p)), and for
// L = 0 the coplanar test on six edge normals (20 each). The baseline of the throughput experiment:
// fast, not exact (rounded signs and divided coordinates decide). Zero normals — which rounding
// cannot tell from tiny ones — are handed to the exact test so the function is total.
#include "op_count.h"
#include "predicates.h"
#include "tri_tri_plane.h"

typedef struct plane_f {
    double n[3];
    double d[3];  // plane values of the other triangle's vertices
} plane_f;

static inline void plane_values_f(const cd_triangle *t, const cd_triangle *o, plane_f *p)
{
    const cd_vec3 *t0 = &t->v[0];
    double ux = CD_SUB(t->v[1].x, t0->x), uy = CD_SUB(t->v[1].y, t0->y), uz = CD_SUB(t->v[1].z, t0->z);
    double vx = CD_SUB(t->v[2].x, t0->x), vy = CD_SUB(t->v[2].y, t0->y), vz = CD_SUB(t->v[2].z, t0->z);
    p->n[0] = CD_SUB(CD_MUL(uy, vz), CD_MUL(uz, vy));
    p->n[1] = CD_SUB(CD_MUL(uz, vx), CD_MUL(ux, vz));
    p->n[2] = CD_SUB(CD_MUL(ux, vy), CD_MUL(uy, vx));
    for (int j = 0; j < 3; ++j) {
        const cd_vec3 *q = &o->v[j];
        double wx = CD_SUB(q->x, t0->x), wy = CD_SUB(q->y, t0->y), wz = CD_SUB(q->z, t0->z);
        p->d[j] = CD_ADD(CD_ADD(CD_MUL(p->n[0], wx), CD_MUL(p->n[1], wy)), CD_MUL(p->n[2], wz));
    }
}

// min d_j > 0 or −max d_j > 0: one branch, as in the exact variant, instead of six data-dependent
// ones that random pairs mispredict (a fair baseline for the throughput comparison).
static inline int one_side_f(const double d[3])
{
    double lo = CD_MIN(CD_MIN(d[0], d[1]), d[2]);
    double hi = CD_MAX(CD_MAX(d[0], d[1]), d[2]);
    return CD_GT(CD_MAX(lo, -hi), 0.0);
}

static int is_zero3(const double v[3]) { return CD_EQ(v[0], 0.0) && CD_EQ(v[1], 0.0) && CD_EQ(v[2], 0.0); }

static int sgn(double x) { return CD_GT(x, 0.0) ? 1 : (CD_LT(x, 0.0) ? -1 : 0); }

// Coordinate r of the point where edge (i, j) meets the other plane (plane values d).
static double cut_r(const cd_triangle *t, const double d[3], int i, int j, int r)
{
    double t_ij = CD_DIV(d[i], CD_SUB(d[i], d[j]));
    double pi = cd_v3_get(t->v[i], r), pj = cd_v3_get(t->v[j], r);
    return CD_ADD(pi, CD_MUL(t_ij, CD_SUB(pj, pi)));
}

// The slice of t on coordinate r as [lo, hi].
static void slice_f(const cd_triangle *t, const double d[3], int r, double *lo, double *hi)
{
    int s[3] = {sgn(d[0]), sgn(d[1]), sgn(d[2])};
    for (int a = 0; a < 3; ++a) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        if (s[a] != 0 && s[b] != s[a] && s[c] != s[a]) {
            double x = cut_r(t, d, a, b, r), y = cut_r(t, d, a, c, r);
            *lo = CD_MIN(x, y);
            *hi = CD_MAX(x, y);
            return;
        }
    }
    int z = s[0] == 0 ? 0 : (s[1] == 0 ? 1 : 2);
    *lo = *hi = cd_v3_get(t->v[z], r);
}

// Projected triangles apart along the normal of edge (e0, e1): 2 subtractions for the normal, six
// 2-D dot products.
static int edge_separates_f(cd_pt2 e0, cd_pt2 e1, const cd_pt2 pa[3], const cd_pt2 pb[3])
{
    double nx = CD_SUB(e0.y, e1.y), ny = CD_SUB(e1.x, e0.x);
    double amin = 0, amax = 0, bmin = 0, bmax = 0;
    for (int i = 0; i < 3; ++i) {
        double va = CD_ADD(CD_MUL(nx, pa[i].x), CD_MUL(ny, pa[i].y));
        double vb = CD_ADD(CD_MUL(nx, pb[i].x), CD_MUL(ny, pb[i].y));
        amin = i ? CD_MIN(amin, va) : va;
        amax = i ? CD_MAX(amax, va) : va;
        bmin = i ? CD_MIN(bmin, vb) : vb;
        bmax = i ? CD_MAX(bmax, vb) : vb;
    }
    return CD_LT(amax, bmin) || CD_LT(bmax, amin);
}

static int coplanar_f(const cd_triangle *a, const cd_triangle *b, const double n[3])
{
    double ax = CD_ABS(n[0]), ay = CD_ABS(n[1]), az = CD_ABS(n[2]);
    int drop = CD_GE(ax, ay) ? (CD_GE(ax, az) ? 0 : 2) : (CD_GE(ay, az) ? 1 : 2);
    cd_pt2 pa[3], pb[3];
    for (int i = 0; i < 3; ++i) {
        pa[i] = cd_pt2_drop(a->v[i], drop);
        pb[i] = cd_pt2_drop(b->v[i], drop);
    }
    for (int i = 0; i < 3; ++i) {
        if (edge_separates_f(pa[i], pa[(i + 1) % 3], pa, pb)) return 0;
        if (edge_separates_f(pb[i], pb[(i + 1) % 3], pa, pb)) return 0;
    }
    return 1;
}

// Everything after the first plane test, out of line like the exact variant's (its results come
// in registers).
__attribute__((noinline)) static int float_rest(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why,
                                                double nx, double ny, double nz, double d0, double d1, double d2)
{
    plane_f pa = {{nx, ny, nz}, {d0, d1, d2}}, pb;  // pa: a's normal and b's plane values; pb: the reverse
    plane_values_f(b, a, &pb);
    if (one_side_f(pb.d)) {
        *why = CD_TT_PLANE_B;
        return 0;
    }
    if (is_zero3(pa.n) || is_zero3(pb.n)) return cd_tri_tri_overlap_explain(a, b, why);
    double l[3] = {CD_SUB(CD_MUL(pa.n[1], pb.n[2]), CD_MUL(pa.n[2], pb.n[1])),
                   CD_SUB(CD_MUL(pa.n[2], pb.n[0]), CD_MUL(pa.n[0], pb.n[2])),
                   CD_SUB(CD_MUL(pa.n[0], pb.n[1]), CD_MUL(pa.n[1], pb.n[0]))};
    if (is_zero3(l)) {
        int hit = coplanar_f(a, b, pa.n);
        *why = hit ? CD_TT_COPLANAR_OVERLAP : CD_TT_COPLANAR_SEPARATED;
        return hit;
    }
    double lx = CD_ABS(l[0]), ly = CD_ABS(l[1]), lz = CD_ABS(l[2]);
    int r = CD_GE(lx, ly) ? (CD_GE(lx, lz) ? 0 : 2) : (CD_GE(ly, lz) ? 1 : 2);
    double alo, ahi, blo, bhi;
    slice_f(a, pb.d, r, &alo, &ahi);
    slice_f(b, pa.d, r, &blo, &bhi);
    int hit = CD_GE(ahi, blo) && CD_GE(bhi, alo);
    *why = hit ? CD_TT_SLICES_OVERLAP : CD_TT_SLICES_DISJOINT;
    return hit;
}

// The first plane test, inlined into both entry points (built also for AVX, like the exact
// variant's: CD_TRI_TRI_ENTRIES).
static inline __attribute__((always_inline)) int overlap_f(const cd_triangle *a, const cd_triangle *b,
                                                           cd_tri_tri_why *why)
{
    plane_f pa;
#if CD_PLANE_SSE2
    cd_plane_values_packed(a, b, pa.n, pa.d);  // the exact variant's values code (cd_plane_eval_packed)
#else
    plane_values_f(a, b, &pa);
#endif
    if (one_side_f(pa.d)) {
        *why = CD_TT_PLANE_A;
        return 0;
    }
    return float_rest(a, b, why, pa.n[0], pa.n[1], pa.n[2], pa.d[0], pa.d[1], pa.d[2]);
}

CD_TRI_TRI_ENTRIES(cd_tri_tri_overlap_float, overlap_f, cd_tri_tri_float_build)
