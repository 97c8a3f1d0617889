// SPDX-License-Identifier: MIT
// C interface to FCL's mesh hierarchies for bench_mesh_fcl (the C++ stays in fcl_mesh.cpp, so the
// benchmark itself is C and shares cdlab's headers unchanged).
#ifndef CD_BENCH_FCL_MESH_H
#define CD_BENCH_FCL_MESH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// FCL bounding-volume type of a model.
enum cd_fcl_bv { CD_FCL_OBB, CD_FCL_OBBRSS };

/// An FCL BVHModel with its collision object.
typedef struct cd_fcl_mesh cd_fcl_mesh;

/// Build FCL's hierarchy (beginModel/addSubModel/endModel, FCL's default split rule) over
/// nverts points (x, y, z interleaved) and ntris index triples.
cd_fcl_mesh *cd_fcl_mesh_build(enum cd_fcl_bv bv, const double *xyz, uint32_t nverts, const uint32_t *tris,
                               uint32_t ntris);
/// Free m (NULL allowed).
void cd_fcl_mesh_destroy(cd_fcl_mesh *m);
/// fcl::collide of a at the identity against b at x = R(q)·x_b + t (q = qw, qx, qy, qz, normalised
/// by FCL): the number of intersecting triangle pairs, at most max_pairs.
uint64_t cd_fcl_mesh_collide(cd_fcl_mesh *a, cd_fcl_mesh *b, const double q[4], const double t[3], uint64_t max_pairs);

#ifdef __cplusplus
}
#endif

#endif
