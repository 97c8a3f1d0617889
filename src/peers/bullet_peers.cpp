// SPDX-License-Identifier: MIT
// Bullet's broadphases as cdlab peers: one btBroadphaseProxy per cube, setAabb for the cubes whose
// box changed, calculateOverlappingPairs every frame, then the overlapping-pair cache is the
// candidate list. That is what a Bullet world does with setForceUpdateAllAabbs(false): it calls
// setAabb for active objects only. btDbvtBroadphase then moves a proxy whose setAabb has not been
// called for two frames from its dynamic tree into its fixed (static) tree, and collides only the
// dynamic tree, against itself and the fixed one: objects that rest become static proxies there.
// Static objects of a Bullet world also get the filter group StaticFilter and a mask without it,
// which drops static-static pairs; cdlab reports those, so every proxy keeps the default filter
// (the group picks no tree in btDbvtBroadphase, the staging above does).
// Bullet is built in single precision here, so boxes are rounded outward to float: a pair whose
// double boxes touch still touches in float. The caches may hold a few pairs whose boxes no longer
// overlap (btDbvt fattens leaves and prunes stale pairs lazily); the C side filters those.
#include "peer_impl.hpp"

#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace
{

float down(double x)
{
    float f = static_cast<float>(x);
    return static_cast<double>(f) > x ? std::nextafter(f, -INFINITY) : f;
}

float up(double x)
{
    float f = static_cast<float>(x);
    return static_cast<double>(f) < x ? std::nextafter(f, INFINITY) : f;
}

btVector3 lo_of(const cd_peer_box &b) { return btVector3(down(b.lo[0]), down(b.lo[1]), down(b.lo[2])); }
btVector3 hi_of(const cd_peer_box &b) { return btVector3(up(b.hi[0]), up(b.hi[1]), up(b.hi[2])); }

std::uint32_t index_of(const btBroadphaseProxy *p)
{
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p->m_clientObject));
}

std::unique_ptr<btBroadphaseInterface> make_broadphase(cd_peer_kind kind, std::uint32_t n, double world_lo,
                                                       double world_hi)
{
    if (kind == CD_PEER_BULLET_DBVT) return std::unique_ptr<btBroadphaseInterface>(new btDbvtBroadphase());
    if (kind == CD_PEER_BULLET_AXIS_SWEEP) {
        btVector3 lo(down(world_lo), down(world_lo), down(world_lo)), hi(up(world_hi), up(world_hi), up(world_hi));
        // Handle 0 is the sentinel, hence n + 1. The ray-cast accelerator (a second, btDbvt
        // broadphase kept in step with every setAabb) is switched off: no rays are cast here.
        return std::unique_ptr<btBroadphaseInterface>(new bt32BitAxisSweep3(lo, hi, n + 1, nullptr, true));
    }
    std::fprintf(stderr, "cdlab peers: %d is not a Bullet kind\n", static_cast<int>(kind));
    std::abort();
}

// Asks the pair cache to remove each pair it visits.
struct drop_every_pair final : btOverlapCallback {
    bool processOverlap(btBroadphasePair &) override { return true; }
};

class bullet_peer final : public cd_peer
{
  public:
    bullet_peer(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi)
        : kind_(kind), n_(n), broadphase_(make_broadphase(kind, n, world_lo, world_hi))
    {
    }

    // Every pair first, in one pass over the cache: destroyProxy removes a proxy's pairs by walking
    // the whole cache, so destroying 10⁶ proxies with their pairs still cached took over ten minutes.
    // The axis sweep's proxies are handles in its own array, freed with it: removing one first
    // sorts its six edges up to the ends of the axes, O(n) a handle (minutes at 10⁵ cubes).
    // btDbvtBroadphase allocates each proxy and frees it only in destroyProxy.
    ~bullet_peer() override
    {
        if (kind_ == CD_PEER_BULLET_AXIS_SWEEP) return;
        drop_every_pair drop;
        broadphase_->getOverlappingPairCache()->processAllOverlappingPairs(&drop, nullptr);
        for (btBroadphaseProxy *p : proxies_) broadphase_->destroyProxy(p, nullptr);
    }

    // No dispatcher is passed: it only frees narrow-phase algorithms attached to pairs, and
    // cdlab attaches none.
    void update(const cd_peer_box *boxes, const std::uint32_t *moved, std::uint32_t n_moved) override
    {
        if (!moved) {
            proxies_.reserve(n_);
            for (std::uint32_t i = 0; i < n_; ++i) {
                void *user = reinterpret_cast<void *>(static_cast<std::uintptr_t>(i));
                proxies_.push_back(broadphase_->createProxy(lo_of(boxes[i]), hi_of(boxes[i]), BOX_SHAPE_PROXYTYPE, user,
                                                            btBroadphaseProxy::DefaultFilter,
                                                            btBroadphaseProxy::AllFilter, nullptr));
            }
        } else {
            for (std::uint32_t k = 0; k < n_moved; ++k) {
                std::uint32_t i = moved[k];
                broadphase_->setAabb(proxies_[i], lo_of(boxes[i]), hi_of(boxes[i]), nullptr);
            }
        }
        broadphase_->calculateOverlappingPairs(nullptr);
    }

    // The proxies stay in the broadphase; each moves to its new place in proxies_ (read by index
    // in update) and reports its new index through its client object.
    void renumber(const std::uint32_t *new_of_old) override
    {
        std::vector<btBroadphaseProxy *> moved(proxies_.size());
        for (std::size_t i = 0; i < proxies_.size(); ++i) {
            proxies_[i]->m_clientObject = reinterpret_cast<void *>(static_cast<std::uintptr_t>(new_of_old[i]));
            moved[new_of_old[i]] = proxies_[i];
        }
        proxies_.swap(moved);
    }

    void pairs(cd_peer_emit_fn emit, void *ctx) override
    {
        btOverlappingPairCache *cache = broadphase_->getOverlappingPairCache();
        int count = cache->getNumOverlappingPairs();
        const btBroadphasePair *pair = count > 0 ? cache->getOverlappingPairArrayPtr() : nullptr;
        for (int k = 0; k < count; ++k) emit(ctx, index_of(pair[k].m_pProxy0), index_of(pair[k].m_pProxy1));
    }

  private:
    cd_peer_kind kind_;
    std::uint32_t n_;
    std::unique_ptr<btBroadphaseInterface> broadphase_;
    std::vector<btBroadphaseProxy *> proxies_;
};

}  // namespace

cd_peer *cd_peer_make_bullet(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi)
{
    return new bullet_peer(kind, n, world_lo, world_hi);
}
