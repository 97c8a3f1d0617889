// SPDX-License-Identifier: MIT
// Fitting one node's volumes to its triangles: AABB, enclosing sphere, and the OBB of RAPID
// (Gottschalk et al. 1996): axes are the eigenvectors of the area-weighted covariance of the
// triangles, extents the projections of the vertices on them.
#include "bvh_internal.h"

#include <float.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

// The moments of p, q, r given the triangle's area.
static inline cd_tri_moment moment_with_area(cd_vec3 p, cd_vec3 q, cd_vec3 r, double area)
{
    cd_tri_moment m;
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

cd_tri_moment cd_tri_moment_of(cd_vec3 p, cd_vec3 q, cd_vec3 r)
{
    return moment_with_area(p, q, r, 0.5 * cd_v3_len(cd_v3_cross(cd_v3_sub(q, p), cd_v3_sub(r, p))));
}

// Eigenvector of the symmetric a for eigenvalue l: the largest cross product of two rows of
// a − l·I (each row is orthogonal to it); zero when l is a repeated eigenvalue.
static cd_vec3 eigenvector(double a[3][3], double l)
{
    cd_vec3 r0 = cd_v3(a[0][0] - l, a[0][1], a[0][2]), r1 = cd_v3(a[1][0], a[1][1] - l, a[1][2]);
    cd_vec3 r2 = cd_v3(a[2][0], a[2][1], a[2][2] - l);
    cd_vec3 c[3] = {cd_v3_cross(r0, r1), cd_v3_cross(r0, r2), cd_v3_cross(r1, r2)};
    int k = cd_v3_len2(c[0]) >= cd_v3_len2(c[1]) ? 0 : 1;
    if (cd_v3_len2(c[2]) > cd_v3_len2(c[k])) k = 2;
    return c[k];
}

// Eigenvectors of a symmetric 3×3 matrix in closed form (Smith 1961: eigenvalues from the
// trigonometric form of the characteristic cubic, its root found by Newton's method). It replaced cyclic Jacobi, which was a
// quarter of the build. The axes need not be exact: extents come from projecting the vertices,
// so any orthonormal axes enclose; accuracy only affects tightness. The eigenvector of the most
// isolated eigenvalue goes first, the other is made orthogonal to it.
// The largest root c ∈ [1/2, 1] of 4c³ − 3c = r (r ∈ [−1, 1]): its series in e (c = 1/2 + e,
// 6e² + 4e³ = 1 + r) to e³, off by < 2e-3, then one Halley step (error cubed: < 1e-8).
static inline double largest_root(double r)
{
    double e = sqrt((1.0 + r) * (1.0 / 6.0));
    double c = 0.5 + e * (1.0 - e * (1.0 / 3.0 - e * (5.0 / 27.0)));
    double g = 4.0 * c * c * c - 3.0 * c - r, g1 = 12.0 * c * c - 3.0, hd = 2.0 * g1 * g1 - g * 24.0 * c;
    return hd > 0.0 ? c - 2.0 * g * g1 / hd : c;  // hd = 0 only at the double root c = 1/2 (r = −1), exact
}

static cd_mat3 eigenvectors(double a[3][3])
{
    double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    double q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
    double d0 = a[0][0] - q, d1 = a[1][1] - q, d2 = a[2][2] - q;
    double p2 = d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1;
    if (!(p2 > 0.0) || p1 <= 1e-24 * p2) return cd_m3_identity();  // (nearly) diagonal or isotropic
    // r = det((A − qI)/p)/2, with the determinant taken before the scaling so that it runs
    // beside the square root and division instead of after them.
    double p = sqrt(p2 / 6.0), ip2 = 6.0 / p2, ip = p * ip2;  // 1/p by a division beside the root
    double a01 = a[0][1], a02 = a[0][2], a12 = a[1][2];
    double det = d0 * (d1 * d2 - a12 * a12) - a01 * (a01 * d2 - a12 * a02) + a02 * (a01 * a12 - d1 * a02);
    double r = 0.5 * det * (ip * ip * ip);
    r = r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
    // The eigenvalues are q + 2p·c for the three roots c of 4c³ − 3c = r, i.e. cos(acos(r)/3 +
    // 2πk/3). acos and cos were a tenth of the build; instead largest_root (a series and one
    // Halley step, < 1e-8 on all of [−1, 1]). The axes need no more: an eigenvalue off by δ·p
    // turns the axes by about δ, and the extents are projections, so any axes enclose.
    // The smallest root is minus the largest root for −r (c ↦ −c maps the cubic for r to the one
    // for −r), found by the same steps side by side instead of after c1.
    double c1 = largest_root(r), c3 = -largest_root(-r);
    double l1 = q + 2.0 * p * c1, l3 = q + 2.0 * p * c3;
    double l2 = 3.0 * q - l1 - l3;
    cd_vec3 v1 = eigenvector(a, l1), v3 = eigenvector(a, l3);
    if (l1 - l2 >= l2 - l3) return (cd_mat3){{v1, v3, cd_v3(0, 0, 0)}};
    return (cd_mat3){{v3, v1, cd_v3(0, 0, 0)}};
}

// Gram–Schmidt and a cross product: the box test assumes orthonormal, right-handed axes.
static cd_mat3 orthonormalize(cd_mat3 m)
{
    cd_vec3 x = m.col[0], y = m.col[1];
    // Eigenvectors from cross products scale like covariance², tiny for small nodes: the
    // degeneracy tests are relative. y loses its x part with the unnormalised x (a division beside
    // x's square root instead of after it: this is the end of every node's chain of latency).
    double lx = cd_v3_len2(x), ly = cd_v3_len2(y);
    if (!(lx > 0.0) || !isfinite(lx)) x = cd_v3(1, 0, 0), lx = 1.0;
    if (!(ly > 0.0) || !isfinite(ly)) y = cd_v3(0, 0, 0), ly = 0.0;
    y = cd_v3_sub(y, cd_v3_scale(x, cd_v3_dot(x, y) / lx));
    x = cd_v3_scale(x, 1.0 / sqrt(lx));
    if (!(cd_v3_len2(y) > 1e-12 * ly)) {
        y = fabs(x.x) < 0.9 ? cd_v3(1, 0, 0) : cd_v3(0, 1, 0);
        y = cd_v3_sub(y, cd_v3_scale(x, cd_v3_dot(x, y)));
    }
    y = cd_v3_normalize(y);
    return (cd_mat3){{x, y, cd_v3_cross(x, y)}};
}

// The axes for triangles ids[0..n): covariance weighted by area; when every triangle is
// degenerate (zero area) fall back to the covariance of the vertices.
cd_mat3 cd_bvh_obb_axes(const cd_bvh_build_ctx *ctx, const uint32_t *ids, uint32_t n, const cd_tri_moment *sum)
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
            cd_vec3 v = cd_v3_cross(w, u);
            return (cd_mat3){{u, v, cd_v3_cross(u, v)}};  // already orthonormal up to rounding
        }
    }
    double area = sum->area;
    const double *s = sum->s;
    cd_vec3 ac = sum->ac;
    double mu[3], cov[3][3];
    if (area > 0.0) {
        // One division: nine of them were a long chain of latency in every node's fit.
        double ia = 1.0 / area;
        mu[0] = ac.x * ia, mu[1] = ac.y * ia, mu[2] = ac.z * ia;
        int k = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j, ++k) cov[i][j] = cov[j][i] = s[k] * ia - mu[i] * mu[j];
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

#ifdef __SSE2__
// cd_bvh_obb_axes for two nodes at once, node k in SSE2 lane k. Every node's fit ends in the
// eigen-solve, a chain of dependent square roots and divisions about 300 cycles long; two scalar
// chains one after the other barely overlap (each is longer than the processor's window), two
// lanes of one chain run in the time of one. Every lane evaluates the scalar code's expressions in
// its order (GCC's vector operators on __m128d, no contraction), so the axes have the same bits;
// a lane that takes one of the scalar code's rare branches (zero area, a (nearly) diagonal or
// isotropic covariance, degenerate eigenvectors) is redone by the scalar code.
typedef long long lane_mask __attribute__((vector_size(16)));

static inline __m128d lane_sel(lane_mask m, __m128d a, __m128d b)
{
    return (__m128d)((m & (lane_mask)a) | (~m & (lane_mask)b));
}

static inline __m128d lane_set(double x) { return _mm_set1_pd(x); }

typedef struct lane_v3 {
    __m128d x, y, z;
} lane_v3;

static inline lane_v3 lane_cross(lane_v3 a, lane_v3 b)
{
    return (lane_v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline __m128d lane_dot(lane_v3 a, lane_v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline lane_v3 lane_scale(lane_v3 a, __m128d s) { return (lane_v3){a.x * s, a.y * s, a.z * s}; }
static inline lane_v3 lane_pick(lane_mask m, lane_v3 a, lane_v3 b)
{
    return (lane_v3){lane_sel(m, a.x, b.x), lane_sel(m, a.y, b.y), lane_sel(m, a.z, b.z)};
}

static inline __m128d lane_largest_root(__m128d r)
{
    __m128d e = _mm_sqrt_pd((lane_set(1.0) + r) * lane_set(1.0 / 6.0));
    __m128d c = lane_set(0.5) + e * (lane_set(1.0) - e * (lane_set(1.0 / 3.0) - e * lane_set(5.0 / 27.0)));
    __m128d g = lane_set(4.0) * c * c * c - lane_set(3.0) * c - r, g1 = lane_set(12.0) * c * c - lane_set(3.0);
    __m128d hd = lane_set(2.0) * g1 * g1 - g * lane_set(24.0) * c;
    return lane_sel((lane_mask)(hd > lane_set(0.0)), c - lane_set(2.0) * g * g1 / hd, c);
}

static inline lane_v3 lane_eigenvector(__m128d a[3][3], __m128d l)
{
    lane_v3 r0 = {a[0][0] - l, a[0][1], a[0][2]}, r1 = {a[1][0], a[1][1] - l, a[1][2]};
    lane_v3 r2 = {a[2][0], a[2][1], a[2][2] - l};
    lane_v3 c0 = lane_cross(r0, r1), c1 = lane_cross(r0, r2), c2 = lane_cross(r1, r2);
    __m128d n0 = lane_dot(c0, c0), n1 = lane_dot(c1, c1), n2 = lane_dot(c2, c2);
    lane_mask first = (lane_mask)(n0 >= n1);
    lane_v3 ck = lane_pick(first, c0, c1);
    __m128d nk = lane_sel(first, n0, n1);
    return lane_pick((lane_mask)(n2 > nk), c2, ck);
}

void cd_bvh_obb_axes_two(const cd_bvh_build_ctx *ctx, const uint32_t *ids[2], const uint32_t n[2],
                         const cd_tri_moment *sum[2], cd_mat3 out[2])
{
    if (n[0] == 1 || n[1] == 1) {  // the one-triangle shortcut: scalar
        for (int k = 0; k < 2; ++k) out[k] = cd_bvh_obb_axes(ctx, ids[k], n[k], sum[k]);
        return;
    }
#define CD_L2(f) _mm_set_pd(sum[1]->f, sum[0]->f)
    const __m128d area = CD_L2(area), ia = lane_set(1.0) / area;
    const __m128d mu[3] = {CD_L2(ac.x) * ia, CD_L2(ac.y) * ia, CD_L2(ac.z) * ia};
    const __m128d s[6] = {CD_L2(s[0]), CD_L2(s[1]), CD_L2(s[2]), CD_L2(s[3]), CD_L2(s[4]), CD_L2(s[5])};
#undef CD_L2
    __m128d a[3][3];
    int k = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j, ++k) a[i][j] = a[j][i] = s[k] * ia - mu[i] * mu[j];
    // eigenvectors()
    __m128d p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    __m128d q = (a[0][0] + a[1][1] + a[2][2]) / lane_set(3.0);
    __m128d d0 = a[0][0] - q, d1 = a[1][1] - q, d2 = a[2][2] - q;
    __m128d p2 = d0 * d0 + d1 * d1 + d2 * d2 + lane_set(2.0) * p1;
    lane_mask rare =
        (lane_mask)(area > lane_set(0.0)) & (lane_mask)(p2 > lane_set(0.0)) & (lane_mask)(p1 > lane_set(1e-24) * p2);
    rare = ~rare;
    __m128d p = _mm_sqrt_pd(p2 / lane_set(6.0)), ip2 = lane_set(6.0) / p2, ip = p * ip2;
    __m128d a01 = a[0][1], a02 = a[0][2], a12 = a[1][2];
    __m128d det = d0 * (d1 * d2 - a12 * a12) - a01 * (a01 * d2 - a12 * a02) + a02 * (a01 * a12 - d1 * a02);
    __m128d r = lane_set(0.5) * det * (ip * ip * ip);
    r = lane_sel((lane_mask)(r < lane_set(-1.0)), lane_set(-1.0),
                 lane_sel((lane_mask)(r > lane_set(1.0)), lane_set(1.0), r));
    __m128d c1 = lane_largest_root(r), c3 = -lane_largest_root(-r);
    __m128d l1 = q + lane_set(2.0) * p * c1, l3 = q + lane_set(2.0) * p * c3;
    __m128d l2 = lane_set(3.0) * q - l1 - l3;
    lane_v3 v1 = lane_eigenvector(a, l1), v3 = lane_eigenvector(a, l3);
    lane_mask v1_first = (lane_mask)(l1 - l2 >= l2 - l3);
    lane_v3 x = lane_pick(v1_first, v1, v3), y = lane_pick(v1_first, v3, v1);
    // orthonormalize()
    __m128d lx = lane_dot(x, x), ly = lane_dot(y, y);
    const __m128d huge = lane_set(DBL_MAX);
    rare |= ~((lane_mask)(lx > lane_set(0.0)) & (lane_mask)(lx <= huge) & (lane_mask)(ly > lane_set(0.0)) &
              (lane_mask)(ly <= huge));
    const __m128d along = lane_dot(x, y) / lx;
    y = (lane_v3){y.x - x.x * along, y.y - x.y * along, y.z - x.z * along};
    x = lane_scale(x, lane_set(1.0) / _mm_sqrt_pd(lx));
    __m128d yy = lane_dot(y, y);
    rare |= ~(lane_mask)(yy > lane_set(1e-12) * ly);
    y = lane_scale(y, lane_set(1.0) / _mm_sqrt_pd(yy));
    lane_v3 z = lane_cross(x, y);
    double t[9][2];
    const __m128d all[9] = {x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z};
    for (int i = 0; i < 9; ++i) _mm_storeu_pd(t[i], all[i]);
    long long bad[2];
    _mm_storeu_si128((__m128i *)bad, (__m128i)rare);
    for (int l = 0; l < 2; ++l) {
        if (bad[l]) {
            out[l] = cd_bvh_obb_axes(ctx, ids[l], n[l], sum[l]);
            continue;
        }
        out[l] = (cd_mat3){
            {cd_v3(t[0][l], t[1][l], t[2][l]), cd_v3(t[3][l], t[4][l], t[5][l]), cd_v3(t[6][l], t[7][l], t[8][l])}};
    }
}
#else
void cd_bvh_obb_axes_two(const cd_bvh_build_ctx *ctx, const uint32_t *ids[2], const uint32_t n[2],
                         const cd_tri_moment *sum[2], cd_mat3 out[2])
{
    for (int k = 0; k < 2; ++k) out[k] = cd_bvh_obb_axes(ctx, ids[k], n[k], sum[k]);
}
#endif

// A new epoch for the per-vertex stamps.
static uint32_t next_epoch(cd_bvh_build_ctx *ctx)
{
    uint32_t e = ++ctx->epoch;
    if (e == 0) {  // wrapped: clear once every 2³² nodes
        memset(ctx->stamp, 0, sizeof *ctx->stamp * ctx->mesh->nverts);
        e = ctx->epoch = 1;
    }
    return e;
}

// The node's distinct vertices, copied contiguously: a closed mesh's vertex is shared by about six
// triangles, so the passes over them touch a sixth of the points that a per-triangle loop would.
uint32_t cd_bvh_points_gather(cd_bvh_build_ctx *ctx, const uint32_t *ids, uint32_t n, uint32_t pos)
{
    const cd_mesh *me = ctx->mesh;
    uint32_t e = next_epoch(ctx), np = pos;
    for (uint32_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            uint32_t v = me->tris[ids[i]][k];
            if (ctx->stamp[v] == e) continue;
            ctx->stamp[v] = e;
            ctx->px[np] = me->verts[v].x, ctx->py[np] = me->verts[v].y, ctx->pz[np] = me->verts[v].z;
            ctx->pid[np++] = v;
        }
    return np - pos;
}

// Merging the children's lists streams about one point per distinct vertex, where gathering from
// the triangles read three indices and three stamps per triangle at random (it was a third of the
// build). Extents are min/max, so the points' order does not change any volume.
uint32_t cd_bvh_points_merge(cd_bvh_build_ctx *ctx, uint32_t pos, uint32_t n)
{
    uint32_t e = next_epoch(ctx), w = pos;
    for (uint32_t i = pos; i < pos + n; ++i) {
        uint32_t v = ctx->pid[i];
        if (ctx->stamp[v] == e) continue;
        ctx->stamp[v] = e;
        ctx->px[w] = ctx->px[i], ctx->py[w] = ctx->py[i], ctx->pz[w] = ctx->pz[i];
        ctx->pid[w++] = v;
    }
    return w - pos;
}

#ifdef __SSE2__
// The smaller lane of each l[k] into lo[k], the larger lane of each h[k] into hi[k]: the end of
// the two-points-per-instruction extent loops below.
static void lanes_min_max(const __m128d l[3], const __m128d h[3], double lo[3], double hi[3])
{
    for (int k = 0; k < 3; ++k) {
        double t[2];
        _mm_storeu_pd(t, l[k]), lo[k] = t[0] < t[1] ? t[0] : t[1];
        _mm_storeu_pd(t, h[k]), hi[k] = t[0] > t[1] ? t[0] : t[1];
    }
}
#endif

// Extents of the points along three directions: lo/hi of u·p, v·p, w·p. Two points per SSE2
// instruction where available (the fit's inner loop); min and max are exact, so the result is
// the scalar loop's (up to the sign of a zero extent).
static void project_extents(const double *px, const double *py, const double *pz, uint32_t np, cd_vec3 u, cd_vec3 v,
                            cd_vec3 w, cd_vec3 *lo, cd_vec3 *hi)
{
    uint32_t i = 0;
    double l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
#ifdef __SSE2__
    if (np >= 2) {
        const __m128d ux = _mm_set1_pd(u.x), uy = _mm_set1_pd(u.y), uz = _mm_set1_pd(u.z);
        const __m128d vx = _mm_set1_pd(v.x), vy = _mm_set1_pd(v.y), vz = _mm_set1_pd(v.z);
        const __m128d wx = _mm_set1_pd(w.x), wy = _mm_set1_pd(w.y), wz = _mm_set1_pd(w.z);
        __m128d l0 = _mm_set1_pd(INFINITY), l1 = l0, l2 = l0, h0 = _mm_set1_pd(-INFINITY), h1 = h0, h2 = h0;
        for (; i + 2 <= np; i += 2) {
            __m128d x = _mm_loadu_pd(px + i), y = _mm_loadu_pd(py + i), z = _mm_loadu_pd(pz + i);
            // Same association as cd_v3_dot: (ux·x + uy·y) + uz·z.
            __m128d q0 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(ux, x), _mm_mul_pd(uy, y)), _mm_mul_pd(uz, z));
            __m128d q1 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(vx, x), _mm_mul_pd(vy, y)), _mm_mul_pd(vz, z));
            __m128d q2 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(wx, x), _mm_mul_pd(wy, y)), _mm_mul_pd(wz, z));
            l0 = _mm_min_pd(l0, q0), h0 = _mm_max_pd(h0, q0);
            l1 = _mm_min_pd(l1, q1), h1 = _mm_max_pd(h1, q1);
            l2 = _mm_min_pd(l2, q2), h2 = _mm_max_pd(h2, q2);
        }
        lanes_min_max((const __m128d[3]){l0, l1, l2}, (const __m128d[3]){h0, h1, h2}, l, h);
    }
#endif
    for (; i < np; ++i) {
        cd_vec3 p = cd_v3(px[i], py[i], pz[i]);
        double q[3] = {cd_v3_dot(u, p), cd_v3_dot(v, p), cd_v3_dot(w, p)};
        for (int k = 0; k < 3; ++k) l[k] = q[k] < l[k] ? q[k] : l[k], h[k] = q[k] > h[k] ? q[k] : h[k];
    }
    *lo = cd_v3(l[0], l[1], l[2]);
    *hi = cd_v3(h[0], h[1], h[2]);
}

// The points' box in the mesh frame (for AABB and sphere kinds), two points per instruction.
static void aabb_extents(const double *px, const double *py, const double *pz, uint32_t np, cd_vec3 *lo, cd_vec3 *hi)
{
    uint32_t i = 0;
    double l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
#ifdef __SSE2__
    if (np >= 2) {
        __m128d l0 = _mm_set1_pd(INFINITY), l1 = l0, l2 = l0, h0 = _mm_set1_pd(-INFINITY), h1 = h0, h2 = h0;
        for (; i + 2 <= np; i += 2) {
            __m128d x = _mm_loadu_pd(px + i), y = _mm_loadu_pd(py + i), z = _mm_loadu_pd(pz + i);
            l0 = _mm_min_pd(l0, x), h0 = _mm_max_pd(h0, x);
            l1 = _mm_min_pd(l1, y), h1 = _mm_max_pd(h1, y);
            l2 = _mm_min_pd(l2, z), h2 = _mm_max_pd(h2, z);
        }
        lanes_min_max((const __m128d[3]){l0, l1, l2}, (const __m128d[3]){h0, h1, h2}, l, h);
    }
#endif
    for (; i < np; ++i) {
        double q[3] = {px[i], py[i], pz[i]};
        for (int k = 0; k < 3; ++k) l[k] = q[k] < l[k] ? q[k] : l[k], h[k] = q[k] > h[k] ? q[k] : h[k];
    }
    *lo = cd_v3(l[0], l[1], l[2]);
    *hi = cd_v3(h[0], h[1], h[2]);
}

void cd_bvh_fit_node(const cd_bvh_build_ctx *ctx, cd_bvh_node *node, uint32_t pos, uint32_t np, const cd_mat3 *axes,
                     double margin)
{
    CD_ASSERT(np > 0);
    const double *px = ctx->px + pos, *py = ctx->py + pos, *pz = ctx->pz + pos;
    // The margin absorbs every rounding of the fit (centres, projections, axis products); it is
    // far above them (≈1e-16 relative) and far below any geometric feature.
    cd_vec3 mv = cd_v3(margin, margin, margin);
    if (node->kind & CD_BV_OBB) {
        CD_ASSERT(axes);
        const cd_mat3 ax = *axes;
        cd_vec3 plo, phi;
        project_extents(px, py, pz, np, ax.col[0], ax.col[1], ax.col[2], &plo, &phi);
        node->ax0 = ax.col[0];
        node->ax1 = ax.col[1];
        node->c = cd_m3_mul_v(ax, cd_v3_scale(cd_v3_add(plo, phi), 0.5));
        node->half = cd_v3_add(cd_v3_scale(cd_v3_sub(phi, plo), 0.5), mv);
    } else {
        cd_vec3 lo, hi;
        aabb_extents(px, py, pz, np, &lo, &hi);
        node->ax0 = cd_v3(1, 0, 0);
        node->ax1 = cd_v3(0, 1, 0);
        node->c = cd_v3_scale(cd_v3_add(lo, hi), 0.5);
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
        double d = cd_v3_len2(cd_v3_sub(cd_v3(px[i], py[i], pz[i]), node->c));
        r2 = d > r2 ? d : r2;
    }
    node->r = sqrt(r2) * (1.0 + 4.0 * DBL_EPSILON) + margin;
}

// Distinct vertices of the triangle tri (coordinates t) to ctx's points from pos; their number.
static uint32_t leaf_points(cd_bvh_build_ctx *ctx, const uint32_t tri[3], const cd_vec3 t[3], uint32_t pos)
{
    uint32_t n = 0;
    for (int k = 0; k < 3; ++k) {
        if ((k > 0 && tri[k] == tri[0]) || (k > 1 && tri[k] == tri[1])) continue;
        ctx->px[pos + n] = t[k].x, ctx->py[pos + n] = t[k].y, ctx->pz[pos + n] = t[k].z;
        ctx->pid[pos + n++] = tri[k];
    }
    return n;
}

// Half of all nodes are one-triangle leaves: their three vertices are read once and their normal
// serves both the area (moments) and the box's third axis, and no vertex stamps are needed to
// find their distinct vertices.
void cd_bvh_fit_leaf1(cd_bvh_build_ctx *ctx, cd_bvh_node *node, uint32_t id, uint32_t pos, uint32_t *np,
                      cd_tri_moment *m, double margin)
{
    const cd_mesh *me = ctx->mesh;
    const uint32_t *tri = me->tris[id];
    cd_vec3 t[3] = {me->verts[tri[0]], me->verts[tri[1]], me->verts[tri[2]]};
    uint32_t n = leaf_points(ctx, tri, t, pos);
    *np = n;
    cd_vec3 e[3] = {cd_v3_sub(t[1], t[0]), cd_v3_sub(t[2], t[1]), cd_v3_sub(t[0], t[2])};
    cd_vec3 nrm = cd_v3_cross(e[0], e[1]);
    double ln = cd_v3_len(nrm);
    if (ctx->obb) *m = moment_with_area(t[0], t[1], t[2], 0.5 * ln);
    cd_mat3 ax = cd_m3_identity();
    if (node->kind & CD_BV_OBB) {
        // As cd_bvh_obb_axes for one triangle: longest edge and normal.
        double l0 = cd_v3_len2(e[0]), l1 = cd_v3_len2(e[1]), l2 = cd_v3_len2(e[2]);
        cd_vec3 ek = l0 >= l1 ? e[0] : e[1];
        double lk = l0 >= l1 ? l0 : l1;
        if (l2 > lk) ek = e[2], lk = l2;
        double le = sqrt(lk);
        if (ln > 1e-12 * le * le && le > 0.0) {
            cd_vec3 u = cd_v3_scale(ek, 1.0 / le), w = cd_v3_scale(nrm, 1.0 / ln);
            cd_vec3 v = cd_v3_cross(w, u);
            ax = (cd_mat3){{u, v, cd_v3_cross(u, v)}};
            if (node->kind == CD_BV_OBB) {
                // The box of three points directly: the general fit's two-lane loop, its setup and
                // reductions cost more than the nine dot products here. Same expressions.
                cd_vec3 lo = cd_m3_tmul_v(ax, t[0]), hi = lo;
                for (int k = 1; k < 3; ++k) {
                    cd_vec3 q = cd_m3_tmul_v(ax, t[k]);
                    lo = cd_bvh_vmin(lo, q), hi = cd_bvh_vmax(hi, q);
                }
                cd_vec3 mv = cd_v3(margin, margin, margin);
                node->ax0 = ax.col[0];
                node->ax1 = ax.col[1];
                node->c = cd_m3_mul_v(ax, cd_v3_scale(cd_v3_add(lo, hi), 0.5));
                node->half = cd_v3_add(cd_v3_scale(cd_v3_sub(hi, lo), 0.5), mv);
                node->r = cd_v3_len(node->half) * (1.0 + 4.0 * DBL_EPSILON) + margin;
                return;
            }
        } else {
            ax = cd_bvh_obb_axes(ctx, &id, 1, m);  // degenerate: the general path's fallbacks
        }
    }
    cd_bvh_fit_node(ctx, node, pos, n, &ax, margin);
}

void cd_bvh_fit_leaf1_two(cd_bvh_build_ctx *ctx, cd_bvh_node *node[2], const uint32_t id[2], uint32_t pos,
                          uint32_t np[2], cd_tri_moment m[2], double margin)
{
#ifdef __SSE2__
    if (ctx->obb && node[0]->kind == CD_BV_OBB && node[1]->kind == CD_BV_OBB) {
        // cd_bvh_fit_leaf1's OBB path for two sibling leaves, leaf k in lane k, same expressions in
        // the same order (same bits); a degenerate triangle's lane is redone by the scalar code.
        const cd_mesh *me = ctx->mesh;
        cd_vec3 t[2][3];
        for (int l = 0; l < 2; ++l)
            for (int k = 0; k < 3; ++k) t[l][k] = me->verts[me->tris[id[l]][k]];
        np[0] = leaf_points(ctx, me->tris[id[0]], t[0], pos);
        np[1] = leaf_points(ctx, me->tris[id[1]], t[1], pos + np[0]);
        lane_v3 T[3];
        for (int k = 0; k < 3; ++k)
            T[k] = (lane_v3){_mm_set_pd(t[1][k].x, t[0][k].x), _mm_set_pd(t[1][k].y, t[0][k].y),
                             _mm_set_pd(t[1][k].z, t[0][k].z)};
        const lane_v3 e[3] = {{T[1].x - T[0].x, T[1].y - T[0].y, T[1].z - T[0].z},
                              {T[2].x - T[1].x, T[2].y - T[1].y, T[2].z - T[1].z},
                              {T[0].x - T[2].x, T[0].y - T[2].y, T[0].z - T[2].z}};
        const lane_v3 nrm = lane_cross(e[0], e[1]);
        const __m128d ln = _mm_sqrt_pd(lane_dot(nrm, nrm)), area = lane_set(0.5) * ln;
        // moment_with_area
        const __m128d third = lane_set(1.0 / 3.0);
        const __m128d pc[3] = {(T[0].x + T[1].x + T[2].x) * third, (T[0].y + T[1].y + T[2].y) * third,
                               (T[0].z + T[1].z + T[2].z) * third};
        const __m128d pp[3][3] = {{T[0].x, T[0].y, T[0].z}, {T[1].x, T[1].y, T[1].z}, {T[2].x, T[2].y, T[2].z}};
        __m128d ms[6], a12 = area / lane_set(12.0);
        int k = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j)
                ms[k++] = a12 * (lane_set(9.0) * pc[i] * pc[j] + pp[0][i] * pp[0][j] + pp[1][i] * pp[1][j] +
                                 pp[2][i] * pp[2][j]);
        // Longest edge and normal as axes.
        const __m128d l0 = lane_dot(e[0], e[0]), l1 = lane_dot(e[1], e[1]), l2 = lane_dot(e[2], e[2]);
        const lane_mask first = (lane_mask)(l0 >= l1);
        lane_v3 ek = lane_pick(first, e[0], e[1]);
        __m128d lk = lane_sel(first, l0, l1);
        const lane_mask third_edge = (lane_mask)(l2 > lk);
        ek = lane_pick(third_edge, e[2], ek);
        lk = lane_sel(third_edge, l2, lk);
        const __m128d le = _mm_sqrt_pd(lk);
        const lane_mask flat = ~((lane_mask)(ln > lane_set(1e-12) * le * le) & (lane_mask)(le > lane_set(0.0)));
        const lane_v3 u = lane_scale(ek, lane_set(1.0) / le), w = lane_scale(nrm, lane_set(1.0) / ln);
        const lane_v3 v = lane_cross(w, u), z = lane_cross(u, v);
        lane_v3 lo = {lane_dot(u, T[0]), lane_dot(v, T[0]), lane_dot(z, T[0])}, hi = lo;
        for (int q = 1; q < 3; ++q) {
            const lane_v3 p = {lane_dot(u, T[q]), lane_dot(v, T[q]), lane_dot(z, T[q])};
            lo = (lane_v3){lane_sel((lane_mask)(lo.x < p.x), lo.x, p.x), lane_sel((lane_mask)(lo.y < p.y), lo.y, p.y),
                           lane_sel((lane_mask)(lo.z < p.z), lo.z, p.z)};
            hi = (lane_v3){lane_sel((lane_mask)(hi.x > p.x), hi.x, p.x), lane_sel((lane_mask)(hi.y > p.y), hi.y, p.y),
                           lane_sel((lane_mask)(hi.z > p.z), hi.z, p.z)};
        }
        const __m128d half_ = lane_set(0.5), mg = lane_set(margin);
        const lane_v3 mid = {(lo.x + hi.x) * half_, (lo.y + hi.y) * half_, (lo.z + hi.z) * half_};
        const lane_v3 c = {u.x * mid.x + v.x * mid.y + z.x * mid.z, u.y * mid.x + v.y * mid.y + z.y * mid.z,
                           u.z * mid.x + v.z * mid.y + z.z * mid.z};
        const lane_v3 h = {(hi.x - lo.x) * half_ + mg, (hi.y - lo.y) * half_ + mg, (hi.z - lo.z) * half_ + mg};
        const __m128d r = _mm_sqrt_pd(lane_dot(h, h)) * lane_set(1.0 + 4.0 * DBL_EPSILON) + mg;
        enum { NOUT = 23 };
        const __m128d out[NOUT] = {u.x,          u.y,   u.z,   v.x,   v.y,   v.z,   c.x,          c.y,
                                   c.z,          h.x,   h.y,   h.z,   r,     area,  pc[0] * area, pc[1] * area,
                                   pc[2] * area, ms[0], ms[1], ms[2], ms[3], ms[4], ms[5]};
        double o[NOUT][2];
        for (int i = 0; i < NOUT; ++i) _mm_storeu_pd(o[i], out[i]);
        long long bad[2];
        _mm_storeu_si128((__m128i *)bad, (__m128i)flat);
        for (int l = 0; l < 2; ++l) {
            if (bad[l]) {  // degenerate: the scalar path's fallbacks (its points are rewritten the same)
                uint32_t n;
                cd_bvh_fit_leaf1(ctx, node[l], id[l], l ? pos + np[0] : pos, &n, &m[l], margin);
                continue;
            }
            cd_bvh_node *nd = node[l];
            nd->ax0 = cd_v3(o[0][l], o[1][l], o[2][l]);
            nd->ax1 = cd_v3(o[3][l], o[4][l], o[5][l]);
            nd->c = cd_v3(o[6][l], o[7][l], o[8][l]);
            nd->half = cd_v3(o[9][l], o[10][l], o[11][l]);
            nd->r = o[12][l];
            m[l].area = o[13][l];
            m[l].ac = cd_v3(o[14][l], o[15][l], o[16][l]);
            for (int q = 0; q < 6; ++q) m[l].s[q] = o[17 + q][l];
        }
        return;
    }
#endif
    cd_bvh_fit_leaf1(ctx, node[0], id[0], pos, &np[0], &m[0], margin);
    cd_bvh_fit_leaf1(ctx, node[1], id[1], pos + np[0], &np[1], &m[1], margin);
}
