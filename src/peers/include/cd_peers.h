// SPDX-License-Identifier: MIT
// The peers: the broad phases users would otherwise pick — FCL 0.7's collision managers and
// Bullet's broadphases — as cdlab methods on the same scene. Each sees exactly the scene's AABBs,
// and each pair it reports gets one exact closed-box test before it reaches the shared narrow
// step, so candidates() keeps the contract of cd_broad.h even where a library keeps stale or
// fattened pairs. Built only with the meson feature `peers` (needs g++, libfcl-dev, libbullet-dev).
#ifndef CD_PEERS_H
#define CD_PEERS_H

#include "cd_broad.h"

/// The peer methods (fcl_* then bullet_*), in a fixed order; *count receives their number.
const cd_broad_method *const *cd_peers_methods(size_t *count);

#endif
