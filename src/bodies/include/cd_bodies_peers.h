// SPDX-License-Identifier: MIT
// Peers of the bodies kind: FCL 0.7's collision manager over mesh BVHModels, run on a body scene
// the way a user comparing against FCL would (docs/design/bodies.md#peers). Built only with the
// project's peers (meson feature `peers`); without them there are no names and create gives NULL.
//
//   fcl_obb     fcl::DynamicAABBTreeCollisionManager<double> over fcl::BVHModel<fcl::OBB<double>>
//   fcl_obbrss  the same over fcl::BVHModel<fcl::OBBRSS<double>>
//
// One BVHModel per distinct mesh (the scene's shapes, already centred and scaled), shared by all
// its instances; one CollisionObject per body. A frame sets every object's transform from the
// body's scene record, calls manager->update() and manager->collide() with a callback that runs
// fcl::collide on each pair the manager reports.
#ifndef CD_BODIES_PEERS_H
#define CD_BODIES_PEERS_H

#include "cd_bodies.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The peer names of this build (*count of them; none without peers).
const char *const *cd_bodies_peer_names(size_t *count);
/// 1 when name is one of cd_bodies_peer_names.
int cd_bodies_peer_known(const char *name);

/// A bodies peer for the scene b (its meshes, its bodies' meshes and current records) in mode:
/// CD_BVH_FIRST_HIT asks each pair for one contact (do they touch), CD_BVH_ALL_PAIRS for every
/// intersecting triangle pair (enable_contact off, num_max_contacts above any pair's count).
/// NULL for an unknown name, CD_BVH_SOLID (which FCL's mesh test does not answer) or a scene with
/// deforming or scaled bodies (the peers share one BVHModel per mesh, placed by rigid transforms).
typedef struct cd_bodies_peer cd_bodies_peer;
cd_bodies_peer *cd_bodies_peer_create(const char *name, const cd_bodies *b, cd_bvh_mode mode);
/// The peer's bounding volume as FCL names it: "OBB" or "OBBRSS".
const char *cd_bodies_peer_bv(const cd_bodies_peer *p);
/// One frame on the scene's current records (read from b->scene, any slot order): transforms,
/// update, collide. out is cleared, then receives the touching body pairs (a < b, body numbers, in
/// the manager's order); *tri_pairs the contacts over all of them (all_pairs: the intersecting
/// triangle pairs; first_hit: one per touching pair).
void cd_bodies_peer_frame(cd_bodies_peer *p, const cd_bodies *b, cd_pair_list *out, uint64_t *tri_pairs);
/// Pairs the manager handed to the callback in the last frame (its AABBs overlapped).
uint64_t cd_bodies_peer_candidates(const cd_bodies_peer *p);
/// Free p (NULL allowed).
void cd_bodies_peer_destroy(cd_bodies_peer *p);

#ifdef __cplusplus
}
#endif

#endif
