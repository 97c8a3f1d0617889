// SPDX-License-Identifier: MIT
// The extern "C" entry points: dispatch to the wrapped library, and stop exceptions (only
// std::bad_alloc can come out of the libraries here) at the boundary, since C cannot unwind.
#include "peer_impl.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace
{

[[noreturn]] void die(const char *where, const std::exception &e)
{
    std::fprintf(stderr, "cdlab peers: %s: %s\n", where, e.what());
    std::abort();
}

}  // namespace

extern "C" cd_peer *cd_peer_create(cd_peer_kind kind, uint32_t n, double world_lo, double world_hi)
{
    try {
        switch (kind) {
        case CD_PEER_BULLET_DBVT:
        case CD_PEER_BULLET_AXIS_SWEEP: return cd_peer_make_bullet(kind, n, world_lo, world_hi);
#ifdef CD_PEER_HAVE_CGAL
        case CD_PEER_CGAL_BOX_INTERSECTION: return cd_peer_make_cgal(n);
#endif
#ifdef CD_PEER_HAVE_ODE
        case CD_PEER_ODE_HASH:
        case CD_PEER_ODE_SAP:
        case CD_PEER_ODE_QUADTREE: return cd_peer_make_ode(kind, n, world_lo, world_hi);
#endif
        default: return cd_peer_make_fcl(kind, n);
        }
    } catch (const std::exception &e) {
        die("create", e);
    }
}

extern "C" void cd_peer_update(cd_peer *p, const cd_peer_box *boxes, const uint32_t *moved, uint32_t n_moved)
{
    try {
        p->update(boxes, moved, n_moved);
    } catch (const std::exception &e) {
        die("update", e);
    }
}

extern "C" void cd_peer_renumber(cd_peer *p, const uint32_t *new_of_old)
{
    try {
        p->renumber(new_of_old);
    } catch (const std::exception &e) {
        die("renumber", e);
    }
}

extern "C" void cd_peer_pairs(cd_peer *p, cd_peer_emit_fn emit, void *ctx)
{
    try {
        p->pairs(emit, ctx);
    } catch (const std::exception &e) {
        die("pairs", e);
    }
}

extern "C" void cd_peer_destroy(cd_peer *p) { delete p; }
