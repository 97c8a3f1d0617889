// SPDX-License-Identifier: MIT
// The plain C boundary between cdlab's broad-phase interface (peers.c) and the C++ wrappers of
// the peer libraries (FCL, Bullet, and when found CGAL and ODE). Only plain types cross it, so the C++ side never includes
// cdlab's C headers (their compound literals are not C++) and the C side never sees a template.
#ifndef PEER_SHIM_H
#define PEER_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which peer broad phase to build.
typedef enum cd_peer_kind {
    CD_PEER_FCL_DYNAMIC_TREE = 0,    ///< fcl::DynamicAABBTreeCollisionManager<double>
    CD_PEER_FCL_DYNAMIC_TREE_ARRAY,  ///< fcl::DynamicAABBTreeCollisionManager_Array<double>
    CD_PEER_FCL_SAP,                 ///< fcl::SaPCollisionManager<double>
    CD_PEER_FCL_SSAP,                ///< fcl::SSaPCollisionManager<double>
    CD_PEER_FCL_INTERVAL_TREE,       ///< fcl::IntervalTreeCollisionManager<double>
    CD_PEER_BULLET_DBVT,             ///< btDbvtBroadphase
    CD_PEER_BULLET_AXIS_SWEEP,       ///< bt32BitAxisSweep3
    CD_PEER_CGAL_BOX_INTERSECTION,   ///< CGAL::box_self_intersection_d (built with CD_PEER_HAVE_CGAL)
    CD_PEER_ODE_HASH,                ///< ODE dHashSpace (built with CD_PEER_HAVE_ODE)
    CD_PEER_ODE_SAP,                 ///< ODE dSweepAndPruneSpace
    CD_PEER_ODE_QUADTREE,            ///< ODE dQuadTreeSpace
} cd_peer_kind;

/// One object's axis-aligned box; same layout as the scene's cd_aabbf (checked in peers.c).
typedef struct cd_peer_box {
    float lo[3], hi[3];
} cd_peer_box;

/// A peer broad phase (opaque to C; a C++ object behind the boundary).
typedef struct cd_peer cd_peer;

/// Receives one candidate pair (object indices) reported by a peer.
typedef void (*cd_peer_emit_fn)(void *ctx, uint32_t a, uint32_t b);

/// A peer of kind for n objects whose boxes always stay inside [world_lo, world_hi]³ (only the
/// axis sweep needs these bounds). Objects are inserted by the first cd_peer_update.
cd_peer *cd_peer_create(cd_peer_kind kind, uint32_t n, double world_lo, double world_hi);
/// Give the peer the n current boxes. The first call (moved NULL) inserts them all; later calls
/// name the objects whose box changed since the previous call, moved[0, n_moved) in increasing
/// order, and the peer tells its library about those only, through the library's own per-object
/// update where it has one (docs/design/peers.md says what each peer does).
void cd_peer_update(cd_peer *p, const cd_peer_box *boxes, const uint32_t *moved, uint32_t n_moved);
/// The caller renumbered its objects: object i is now new_of_old[i] (a permutation of the n
/// objects). The library keeps its structure; only the index each of its objects reports changes.
void cd_peer_renumber(cd_peer *p, const uint32_t *new_of_old);
/// Report every pair the peer finds overlapping (each once) to emit.
void cd_peer_pairs(cd_peer *p, cd_peer_emit_fn emit, void *ctx);
/// Free p (NULL allowed).
void cd_peer_destroy(cd_peer *p);

#ifdef __cplusplus
}
#endif

#endif
