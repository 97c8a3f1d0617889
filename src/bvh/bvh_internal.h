// SPDX-License-Identifier: MIT
// Private to src/bvh: the build context shared by the builder, the refit and the fitting code.
#ifndef BVH_INTERNAL_H
#define BVH_INTERNAL_H

#include "cd_bvh.h"

/// Area moments of one triangle, summed per node for RAPID's covariance.
typedef struct cd_tri_moment {
    double area;  ///< area A
    cd_vec3 ac;   ///< A·centroid
    double s[6];  ///< second moment about the origin, upper triangle (xx, xy, xz, yy, yz, zz)
} cd_tri_moment;

/// What fitting needs besides the triangle ids: the mesh and per-triangle precomputations.
typedef struct cd_bvh_build_ctx {
    const cd_mesh *mesh;
    int obb;             ///< the plan has an OBB kind: sum the triangles' moments
    cd_vec3 *centroids;  ///< per triangle
    uint32_t *stamp;     ///< per vertex: epoch of the last node that gathered it
    uint32_t epoch;
    // Point lists of the nodes on the recursion path, stacked: a node's distinct vertices are its
    // children's lists merged (see build.c), so no node re-reads its triangles' indices. Stored
    // as three coordinate arrays so the projection onto a box's axes runs two points per SSE2
    // instruction (it is the inner loop of the fit).
    double *px, *py, *pz;  ///< scratch: 3·ntris points
    uint32_t *pid;         ///< vertex index of each point
} cd_bvh_build_ctx;

/// Componentwise min/max. fmin/fmax carry NaN rules that keep GCC from inlining them (they were
/// a fifth of the build time); vertices are finite here.
static inline cd_vec3 cd_bvh_vmin(cd_vec3 a, cd_vec3 b)
{
    return cd_v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}
static inline cd_vec3 cd_bvh_vmax(cd_vec3 a, cd_vec3 b)
{
    return cd_v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

/// bytes of memory (zeroed when zero), 64-byte aligned; from 2 MiB on aligned to 2 MiB, in a block
/// that cd_alloc advises to use transparent huge pages where the kernel offers them (Linux THP in
/// "madvise" mode); *block is what cd_free takes.
void *cd_bvh_alloc_huge(size_t bytes, void **block, int zero);
/// Moments of the triangle p, q, r.
cd_tri_moment cd_tri_moment_of(cd_vec3 p, cd_vec3 q, cd_vec3 r);
/// RAPID's box axes (orthonormal, right-handed) for the n triangles ids with summed moments sum.
cd_mat3 cd_bvh_obb_axes(const cd_bvh_build_ctx *ctx, const uint32_t *ids, uint32_t n, const cd_tri_moment *sum);
/// cd_bvh_obb_axes of two nodes (ids[k], n[k], sum[k]) into out[k], the same bits, faster.
void cd_bvh_obb_axes_two(const cd_bvh_build_ctx *ctx, const uint32_t *ids[2], const uint32_t n[2],
                         const cd_tri_moment *sum[2], cd_mat3 out[2]);
/// Fit node's volumes (by node->kind) to its np distinct vertices, ctx's points pos .. pos + np,
/// each enlarged by margin; axes (from cd_bvh_obb_axes) is required for OBB kinds, else ignored.
void cd_bvh_fit_node(const cd_bvh_build_ctx *ctx, cd_bvh_node *node, uint32_t pos, uint32_t np, const cd_mat3 *axes,
                     double margin);
/// A leaf of the one triangle id: writes its distinct vertices to ctx's points from pos on (*np
/// of them), its moments to *m (when ctx->obb), and fits node's volumes, enlarged by margin.
void cd_bvh_fit_leaf1(cd_bvh_build_ctx *ctx, cd_bvh_node *node, uint32_t id, uint32_t pos, uint32_t *np,
                      cd_tri_moment *m, double margin);
/// cd_bvh_fit_leaf1 for two sibling one-triangle leaves node[k] of triangle id[k], their points
/// from pos (node[1]'s after node[0]'s np[0]); the same bits, faster for OBB leaves.
void cd_bvh_fit_leaf1_two(cd_bvh_build_ctx *ctx, cd_bvh_node *node[2], const uint32_t id[2], uint32_t pos,
                          uint32_t np[2], cd_tri_moment m[2], double margin);
/// Leaf: write the distinct vertices of the n triangles ids to ctx->px/py/pz/pid from pos on; returns
/// their number.
uint32_t cd_bvh_points_gather(cd_bvh_build_ctx *ctx, const uint32_t *ids, uint32_t n, uint32_t pos);
/// Internal node: the children's lists lie at pos .. pos + n (left's, then right's); drop the
/// vertices that both hold, in place. Returns the merged count, the node's distinct vertices.
uint32_t cd_bvh_points_merge(cd_bvh_build_ctx *ctx, uint32_t pos, uint32_t n);

/// The traversal of cd_bvh_query and the cost replays of cd_bvh_measure_costs, one per build of
/// traverse.c (the AVX-512 and AVX2 ones only on x86-64).
void cd_bvh_traverse_baseline(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                              const cd_bvh_hint *hint, cd_bvh_result *res);
void cd_bvh_measure_costs_baseline(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                                   cd_bvh_mode mode, double *cv_ns, double *cp_ns);
#if CD_X86_SIMD
void cd_bvh_traverse_avx512(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                            const cd_bvh_hint *hint, cd_bvh_result *res);
void cd_bvh_measure_costs_avx512(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                                 double *cv_ns, double *cp_ns);
void cd_bvh_traverse_avx2(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                          const cd_bvh_hint *hint, cd_bvh_result *res);
void cd_bvh_measure_costs_avx2(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                               double *cv_ns, double *cp_ns);
#endif

#endif
