// SPDX-License-Identifier: MIT
// FCL 0.7 broad-phase managers as cdlab peers. Each cube is an fcl::CollisionObject whose AABB
// is written from cdlab's own box (widened by one ulp, see set_box): letting FCL compute it from a
// Box and a transform would round differently (centre ± half) and could shrink a box below
// cdlab's, losing touching pairs.
#include "peer_impl.hpp"

#include <fcl/broadphase/broadphase_SSaP.h>
#include <fcl/broadphase/broadphase_SaP.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree_array.h>
#include <fcl/broadphase/broadphase_interval_tree.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace
{

/// A geometry that is only a box: the managers read nothing but the object's AABB, and the
/// narrow test is cdlab's, so no FCL shape is needed.
class aabb_geometry final : public fcl::CollisionGeometryd
{
  public:
    void computeLocalAABB() override
    {
        aabb_local = fcl::AABBd(fcl::Vector3d::Zero());
        aabb_center.setZero();
        aabb_radius = 0;
    }
};

/// A collision object whose world AABB is written directly (the protected member FCL's own
/// computeAABB() would fill).
class aabb_object final : public fcl::CollisionObjectd
{
  public:
    aabb_object(const std::shared_ptr<fcl::CollisionGeometryd> &g, std::uint32_t index) : fcl::CollisionObjectd(g)
    {
        set_index(index);
    }
    void set_index(std::uint32_t index) { setUserData(reinterpret_cast<void *>(static_cast<std::uintptr_t>(index))); }
    // Widened by one ulp on each end: SaP's sweep and the interval tree order equal endpoints
    // either way and then miss boxes that only touch (seen in the differential test). Widened,
    // touching boxes overlap strictly; two boxes whose widened ends tie were apart before, and
    // the exact closed-box filter in peers.c drops pairs the widening adds.
    void set_box(const cd_peer_box &b)
    {
        aabb.min_ = fcl::Vector3d(down(b.lo[0]), down(b.lo[1]), down(b.lo[2]));
        aabb.max_ = fcl::Vector3d(up(b.hi[0]), up(b.hi[1]), up(b.hi[2]));
    }

  private:
    static double down(double x) { return std::nextafter(x, -HUGE_VAL); }
    static double up(double x) { return std::nextafter(x, HUGE_VAL); }
};

std::uint32_t index_of(const fcl::CollisionObjectd *o)
{
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(o->getUserData()));
}

struct emit_target {
    cd_peer_emit_fn emit;
    void *ctx;
};

// Returning false asks the manager to go on: we want every pair, not the first.
bool on_pair(fcl::CollisionObjectd *a, fcl::CollisionObjectd *b, void *data)
{
    const emit_target *t = static_cast<const emit_target *>(data);
    t->emit(t->ctx, index_of(a), index_of(b));
    return false;
}

std::unique_ptr<fcl::BroadPhaseCollisionManagerd> make_manager(cd_peer_kind kind)
{
    switch (kind) {
    case CD_PEER_FCL_DYNAMIC_TREE:
        return std::unique_ptr<fcl::BroadPhaseCollisionManagerd>(new fcl::DynamicAABBTreeCollisionManagerd);
    case CD_PEER_FCL_DYNAMIC_TREE_ARRAY:
        return std::unique_ptr<fcl::BroadPhaseCollisionManagerd>(new fcl::DynamicAABBTreeCollisionManager_Arrayd);
    case CD_PEER_FCL_SAP: return std::unique_ptr<fcl::BroadPhaseCollisionManagerd>(new fcl::SaPCollisionManagerd);
    case CD_PEER_FCL_SSAP: return std::unique_ptr<fcl::BroadPhaseCollisionManagerd>(new fcl::SSaPCollisionManagerd);
    case CD_PEER_FCL_INTERVAL_TREE:
        return std::unique_ptr<fcl::BroadPhaseCollisionManagerd>(new fcl::IntervalTreeCollisionManagerd);
    default: break;
    }
    std::fprintf(stderr, "cdlab peers: %d is not an FCL kind\n", static_cast<int>(kind));
    std::abort();
}

// How a manager hears that boxes changed (see update()).
enum class fcl_update {
    per_object,  // update(vector) with the moved objects; update() when all moved
    whole,       // update(): the manager has no correct per-object update in 0.7.0
    reregister,  // clear() + registerObjects() + setup()
};

fcl_update update_of(cd_peer_kind kind)
{
    switch (kind) {
    case CD_PEER_FCL_DYNAMIC_TREE:
    case CD_PEER_FCL_DYNAMIC_TREE_ARRAY: return fcl_update::per_object;
    case CD_PEER_FCL_SAP: return fcl_update::reregister;
    default: return fcl_update::whole;
    }
}

class fcl_peer final : public cd_peer
{
  public:
    // The two dynamic trees take the moved objects (update(vector): each leaf whose box changed is
    // removed and reinserted, then the tree is rebalanced incrementally); when every object moved,
    // update() refits the whole tree instead, as FCL's own examples do for scenes that all move.
    // SSaP has no per-object update (update(vector) falls back to update(), which re-sorts three
    // axes), nor has the interval tree a correct one: FCL 0.7.0's
    // IntervalTreeCollisionManager::update(obj) looks for the moved object's max endpoint with
    // `minmax == 0`, so it never finds it (the max endpoints keep their old values and pairs are
    // lost), and it re-sorts all 2n endpoints of every axis per object. Both take update() once
    // when anything moved. SaP: see below.
    // FCL 0.7.0's SaPCollisionManager::update_() breaks its endpoint lists when a box grows on
    // both ends of an axis (a rotating cube does that): the hi endpoint is spliced after itself,
    // the list gets a self-loop and the next sweep never ends. Upstream rewrote update_() after
    // 0.7.0 (updateEndPoint). With the Debian 0.7.0 the only correct SaP path is registering the
    // objects anew when anything moved (registerObjects sorts and sweeps once), so fcl_sap does that.
    // A frame where nothing moved calls no update at all: the manager's state is still right.
    fcl_peer(cd_peer_kind kind, std::uint32_t n)
        : geometry_(std::make_shared<aabb_geometry>()), manager_(make_manager(kind)), how_(update_of(kind))
    {
        objects_.reserve(n);
        for (std::uint32_t i = 0; i < n; ++i) objects_.emplace_back(new aabb_object(geometry_, i));
    }

    void update(const cd_peer_box *boxes, const std::uint32_t *moved, std::uint32_t n_moved) override
    {
        if (!moved) {
            for (std::size_t i = 0; i < objects_.size(); ++i) objects_[i]->set_box(boxes[i]);
            register_all();
            return;
        }
        if (n_moved == 0) return;
        changed_.clear();
        for (std::uint32_t k = 0; k < n_moved; ++k) {
            objects_[moved[k]]->set_box(boxes[moved[k]]);
            changed_.push_back(objects_[moved[k]].get());
        }
        if (how_ == fcl_update::reregister) {
            manager_->clear();  // forgets the pointers only; objects_ keeps the objects
            register_all();
        } else if (how_ == fcl_update::per_object && n_moved < objects_.size()) {
            manager_->update(changed_);
        } else {
            manager_->update();
        }
    }

    // The manager holds pointers to the objects, so they stay; each moves to its new place in
    // objects_ (read by index in update) and reports its new index.
    void renumber(const std::uint32_t *new_of_old) override
    {
        std::vector<std::unique_ptr<aabb_object>> moved(objects_.size());
        for (std::size_t i = 0; i < objects_.size(); ++i) {
            objects_[i]->set_index(new_of_old[i]);
            moved[new_of_old[i]] = std::move(objects_[i]);
        }
        objects_.swap(moved);
    }

    void pairs(cd_peer_emit_fn emit, void *ctx) override
    {
        emit_target t{emit, ctx};
        manager_->collide(&t, on_pair);
    }

  private:
    void register_all()
    {
        std::vector<fcl::CollisionObjectd *> raw;
        raw.reserve(objects_.size());
        for (auto &o : objects_) raw.push_back(o.get());
        manager_->registerObjects(raw);
        manager_->setup();
    }

    std::shared_ptr<fcl::CollisionGeometryd> geometry_;
    std::vector<std::unique_ptr<aabb_object>> objects_;
    // Declared after objects_ so that it is destroyed first: it holds raw pointers to them.
    std::unique_ptr<fcl::BroadPhaseCollisionManagerd> manager_;
    fcl_update how_;
    std::vector<fcl::CollisionObjectd *> changed_;  // the moved objects of a frame (reused)
};

}  // namespace

cd_peer *cd_peer_make_fcl(cd_peer_kind kind, std::uint32_t n) { return new fcl_peer(kind, n); }
