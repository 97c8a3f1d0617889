// SPDX-License-Identifier: MIT
// C++ side of the peer boundary: every wrapped library derives from cd_peer.
#ifndef PEER_IMPL_HPP
#define PEER_IMPL_HPP

#include "peer_shim.h"

#include <cstdint>

/// A wrapped peer broad phase (see peer_shim.h for what each call must do).
struct cd_peer {
    virtual ~cd_peer() = default;
    /// Insert every box (first call, moved == nullptr) or tell the library that the boxes of
    /// moved[0, n_moved) changed (see cd_peer_update).
    virtual void update(const cd_peer_box *boxes, const std::uint32_t *moved, std::uint32_t n_moved) = 0;
    /// Object i is now object new_of_old[i] (see cd_peer_renumber).
    virtual void renumber(const std::uint32_t *new_of_old) = 0;
    /// Report the library's overlapping pairs, each once.
    virtual void pairs(cd_peer_emit_fn emit, void *ctx) = 0;
};

/// An FCL manager of kind (one of the CD_PEER_FCL_* kinds) for n objects.
cd_peer *cd_peer_make_fcl(cd_peer_kind kind, std::uint32_t n);
/// A Bullet broadphase of kind (one of the CD_PEER_BULLET_* kinds) for n objects in the world cube.
cd_peer *cd_peer_make_bullet(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi);
/// CGAL's complete box intersection for n objects.
cd_peer *cd_peer_make_cgal(std::uint32_t n);
/// An ODE space of kind (one of the CD_PEER_ODE_* kinds) for n objects in the world cube.
cd_peer *cd_peer_make_ode(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi);

#endif
