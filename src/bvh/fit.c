// SPDX-License-Identifier: MIT
// Fitting one node's volumes to its triangles: AABB, enclosing sphere, and the OBB of RAPID
// (Gottschalk et al. 1996): axes are the eigenvectors of the area-weighted covariance of the
// triangles, extents the projections of the vertices on them.
#include "bvh_internal.h"

#include <float.h>
#include <string.h>

cd_tri_moment cd_tri_moment_of(cd_vec3 p, cd_vec3 q, cd_vec3 r)
{
    cd_tri_moment m;
    double area = 0.5 * cd_v3_len(cd_v3_cross(cd_v3_sub(q, p), cd_v3_sub(r, p)));
    cd_vec3 c = cd_v3_scale(cd_v3_add(cd_v3_add(p, q), r), 1.0 / 3.0);
    m.area = area;
    m.ac = cd_v3_scale(c, area);
    // Second moment of a uniform triangle about the origin: A/12·(9·c·cᵀ + p·pᵀ + q·qᵀ + r·rᵀ).
    double pc[3] = {c.x, c.y, c.z}, pp[3] = {p.x, p.y, p.z}, pq[3] = {q.x, q.y, q.z}, pr[3] = {r.x, r.y, r.z};
    int k = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j)
            m.s[k++] = area / 12.0 * (9.0 * pc[i] * pc[j] + pp[i] * pp[j] + pq[i] * pq[j] + pr[i] * pr[j]);
    return m;
}

// Cyclic Jacobi on a symmetric 3×3 matrix: returns the eigenvectors as columns of v.
static cd_mat3 eigenvectors(double a[3][3])
{
    double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int sweep = 0; sweep < 12; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        // The axes need not be exact eigenvectors (extents come from projecting the vertices, so
        // any orthonormal axes enclose): an off-diagonal ratio of 1e-6 tilts them by ~1e-6 rad,
        // invisible in the box volume, and saves sweeps, which were a quarter of the build.
        if (off <= 1e-6 * diag || off == 0.0) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0.0) continue;
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) {  // a ← a·J
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {  // a ← Jᵀ·a
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    return (cd_mat3){{cd_v3(v[0][0], v[1][0], v[2][0]), cd_v3(v[0][1], v[1][1], v[2][1]),
                      cd_v3(v[0][2], v[1][2], v[2][2])}};
}

// Gram–Schmidt and a cross product: the box test assumes orthonormal, right-handed axes.
static cd_mat3 orthonormalize(cd_mat3 m)
{
    cd_vec3 x = m.col[0], y = m.col[1];
    if (!(cd_v3_len2(x) > 0.0)) x = cd_v3(1, 0, 0);
    x = cd_v3_normalize(x);
    y = cd_v3_sub(y, cd_v3_scale(x, cd_v3_dot(x, y)));
    if (!(cd_v3_len2(y) > 1e-20)) y = fabs(x.x) < 0.9 ? cd_v3(1, 0, 0) : cd_v3(0, 1, 0),
                                    y = cd_v3_sub(y, cd_v3_scale(x, cd_v3_dot(x, y)));
    y = cd_v3_normalize(y);
    return (cd_mat3){{x, y, cd_v3_cross(x, y)}};
}

// The axes for triangles ids[0..n): covariance weighted by area; when every triangle is
// degenerate (zero area) fall back to the covariance of the vertices.
static cd_mat3 obb_axes(const cd_bvh_build_ctx *ctx, const uint32_t *ids, uint32_t n)
{
    if (n == 1) {
        // One triangle: its covariance's eigenvectors are the normal and two in-plane directions;
        // taking the longest edge and the normal directly gives the same flat box without
        // an eigen-solve for half of all nodes. Degenerate triangles fall through.
        const cd_mesh *me = ctx->mesh;
        const uint32_t *tri = me->tris[ids[0]];
        cd_vec3 t[3] = {me->verts[tri[0]], me->verts[tri[1]], me->verts[tri[2]]};
        cd_vec3 e[3] = {cd_v3_sub(t[1], t[0]), cd_v3_sub(t[2], t[1]), cd_v3_sub(t[0], t[2])};
        int k = cd_v3_len2(e[0]) >= cd_v3_len2(e[1]) ? 0 : 1;
        if (cd_v3_len2(e[2]) > cd_v3_len2(e[k])) k = 2;
        cd_vec3 nrm = cd_v3_cross(e[0], e[1]);
        double ln = cd_v3_len(nrm), le = cd_v3_len(e[k]);
        if (ln > 1e-12 * le * le && le > 0.0) {
            cd_vec3 u = cd_v3_scale(e[k], 1.0 / le), w = cd_v3_scale(nrm, 1.0 / ln);
            return orthonormalize((cd_mat3){{u, cd_v3_cross(w, u), w}});
        }
    }
    double area = 0, s[6] = {0};
    cd_vec3 ac = cd_v3(0, 0, 0);
    for (uint32_t i = 0; i < n; ++i) {
        const cd_tri_moment *m = &ctx->moments[ids[i]];
        area += m->area;
        ac = cd_v3_add(ac, m->ac);
        for (int k = 0; k < 6; ++k) s[k] += m->s[k];
    }
    double mu[3], cov[3][3];
    if (area > 0.0) {
        mu[0] = ac.x / area, mu[1] = ac.y / area, mu[2] = ac.z / area;
        int k = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j, ++k) cov[i][j] = cov[j][i] = s[k] / area - mu[i] * mu[j];
    } else {
        const cd_mesh *me = ctx->mesh;
        double cnt = 3.0 * n, sum[3] = {0}, sq[3][3] = {{0}};
        for (uint32_t i = 0; i < n; ++i)
            for (int v = 0; v < 3; ++v) {
                cd_vec3 p = me->verts[me->tris[ids[i]][v]];
                double pv[3] = {p.x, p.y, p.z};
                for (int a = 0; a < 3; ++a) {
                    sum[a] += pv[a];
                    for (int b = 0; b < 3; ++b) sq[a][b] += pv[a] * pv[b];
                }
            }
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) cov[a][b] = sq[a][b] / cnt - sum[a] / cnt * sum[b] / cnt;
    }
    return orthonormalize(eigenvectors(cov));
}

// The node's distinct vertices, copied contiguously: a closed mesh's vertex is shared by about six
// triangles, so the passes below touch a sixth of the points that a per-triangle loop would.
static uint32_t gather_points(cd_bvh_build_ctx *ctx, const uint32_t *ids, uint32_t n)
{
    const cd_mesh *me = ctx->mesh;
    uint32_t e = ++ctx->epoch, np = 0;
    if (e == 0) {  // wrapped: clear once every 2³² nodes
        memset(ctx->stamp, 0, sizeof *ctx->stamp * me->nverts);
        e = ctx->epoch = 1;
    }
    for (uint32_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            uint32_t v = me->tris[ids[i]][k];
            if (ctx->stamp[v] == e) continue;
            ctx->stamp[v] = e;
            ctx->pts[np++] = me->verts[v];
        }
    return np;
}

void cd_bvh_fit_node(cd_bvh_build_ctx *ctx, cd_bvh_node *node, const uint32_t *ids, uint32_t n, double margin)
{
    CD_ASSERT(n > 0);
    uint32_t np = gather_points(ctx, ids, n);
    const cd_vec3 *pts = ctx->pts;
    cd_vec3 lo = pts[0], hi = lo;
    // A pure OBB node needs no AABB.
    if (node->kind != CD_BV_OBB)
        for (uint32_t i = 1; i < np; ++i) lo = cd_bvh_vmin(lo, pts[i]), hi = cd_bvh_vmax(hi, pts[i]);
    // The margin absorbs every rounding of the fit (centres, projections, axis products); it is
    // far above them (≈1e-16 relative) and far below any geometric feature.
    cd_vec3 mv = cd_v3(margin, margin, margin);
    cd_vec3 aabb_c = cd_v3_scale(cd_v3_add(lo, hi), 0.5);
    if (node->kind & CD_BV_OBB) {
        cd_mat3 ax = obb_axes(ctx, ids, n);
        cd_vec3 plo = cd_v3(INFINITY, INFINITY, INFINITY), phi = cd_v3_neg(plo);
        for (uint32_t i = 0; i < np; ++i) {
            cd_vec3 q = cd_m3_tmul_v(ax, pts[i]);
            plo = cd_bvh_vmin(plo, q), phi = cd_bvh_vmax(phi, q);
        }
        node->ax0 = ax.col[0];
        node->ax1 = ax.col[1];
        node->c = cd_m3_mul_v(ax, cd_v3_scale(cd_v3_add(plo, phi), 0.5));
        node->half = cd_v3_add(cd_v3_scale(cd_v3_sub(phi, plo), 0.5), mv);
    } else {
        node->ax0 = cd_v3(1, 0, 0);
        node->ax1 = cd_v3(0, 1, 0);
        node->c = aabb_c;
        node->half = cd_v3_add(cd_v3_scale(cd_v3_sub(hi, lo), 0.5), mv);
    }
    if (!(node->kind & CD_BV_SPHERE)) {
        // Not tested, only the node's size for the descent rule: the box's circumsphere.
        node->r = cd_v3_len(node->half) * (1.0 + 4.0 * DBL_EPSILON) + margin;
        return;
    }
    // Tested sphere: centred on the box, radius to the farthest vertex.
    double r2 = 0;
    for (uint32_t i = 0; i < np; ++i) {
        double d = cd_v3_len2(cd_v3_sub(pts[i], node->c));
        r2 = d > r2 ? d : r2;
    }
    node->r = sqrt(r2) * (1.0 + 4.0 * DBL_EPSILON) + margin;
}
