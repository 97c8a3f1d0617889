// SPDX-License-Identifier: MIT
// The plain C boundary between the bodies peers (bodies_peers.c, which knows cdlab's types) and
// their C++ side (fcl_bodies.cpp, which knows FCL's). Only plain types cross it: cdlab's C headers
// are not C++ (compound literals, _Noreturn, hex float constants), and C never sees a template.
// Private to the bodies module.
#ifndef FCL_BODIES_SHIM_H
#define FCL_BODIES_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which FCL bounding volume the BVHModels use.
typedef enum cd_fcl_bv {
    CD_FCL_BV_OBB = 0,  ///< fcl::BVHModel<fcl::OBB<double>> (RAPID-like)
    CD_FCL_BV_OBBRSS,   ///< fcl::BVHModel<fcl::OBBRSS<double>>
} cd_fcl_bv;

/// One distinct mesh: nverts vertices as x, y, z doubles; ntris triangles as three vertex numbers.
typedef struct cd_fcl_mesh {
    const double *verts;
    const uint32_t *tris;
    uint32_t nverts, ntris;
} cd_fcl_mesh;

/// A body's scene record; same layout as cd_posef (checked in bodies_peers.c).
typedef struct cd_fcl_pose {
    float c[3], q[4], h[3];  ///< centre, rotation (w, x, y, z; not necessarily unit), half-extents
} cd_fcl_pose;

/// Receives one touching body pair (a < b, body numbers).
typedef void (*cd_fcl_emit_fn)(void *ctx, uint32_t a, uint32_t b);

/// FCL's side of one bodies peer: one BVHModel per mesh, one CollisionObject per body (body i is
/// an instance of meshes[shape_of[i]]) placed at poses[slot] for the slot whose ident is i, all
/// registered in a DynamicAABBTreeCollisionManager. all_pairs: every intersecting triangle pair
/// of a body pair is a contact; else the first one is. NULL only if FCL refuses a mesh.
typedef struct cd_fcl_bodies cd_fcl_bodies;
cd_fcl_bodies *cd_fcl_bodies_create(cd_fcl_bv bv, const cd_fcl_mesh *meshes, uint32_t mesh_count,
                                    const uint32_t *shape_of, uint32_t n, const cd_fcl_pose *poses,
                                    const uint32_t *ident, int all_pairs);
/// One frame: every object's transform from the records (poses[slot] holds body ident[slot]),
/// computeAABB, manager->update(), manager->collide(). Each touching body pair goes to emit;
/// *tri_pairs receives the contacts (intersecting triangle pairs) over all of them and
/// *candidates the pairs the manager handed to the callback.
void cd_fcl_bodies_frame(cd_fcl_bodies *p, const cd_fcl_pose *poses, const uint32_t *ident, cd_fcl_emit_fn emit,
                         void *ctx, uint64_t *tri_pairs, uint64_t *candidates);
/// Free p (NULL allowed).
void cd_fcl_bodies_destroy(cd_fcl_bodies *p);

#ifdef __cplusplus
}
#endif

#endif
