// SPDX-License-Identifier: MIT
// FCL 0.7 as a peer of the bodies kind: what a user comparing against FCL would write for a scene
// of moving mesh bodies. One fcl::BVHModel<BV> per distinct mesh (BV = OBB, RAPID-like, or
// OBBRSS), shared by all its instances through std::shared_ptr; one fcl::CollisionObject<double>
// per body in a DynamicAABBTreeCollisionManager; per frame each object's transform from the body's
// record, computeAABB(), manager->update(), manager->collide(&data, callback), and in the callback
// fcl::collide(o1, o2, request, result) on the pair.
//
// Contacts of a BVH–BVH pair (FCL 0.7, meshCollisionOrientedNodeLeafTesting): with
// enable_contact = false, every leaf pair (one triangle each: FCL's BVHModel builds one primitive
// per leaf) whose triangles intersect (Intersect::intersect_Triangle, a floating-point SAT over
// 17 axes, closed: touching counts) adds one Contact while numContacts() < num_max_contacts, and
// the traversal stops once numContacts() reaches num_max_contacts (CollisionRequest::isSatisfied).
// So num_max_contacts = 1 answers "do they touch", and a bound no pair can reach gives exactly one
// contact per intersecting triangle pair. fcl::collide does not clear the result; the callback
// does, per pair.
#include "fcl_bodies_shim.h"

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <vector>

struct cd_fcl_bodies {
    virtual ~cd_fcl_bodies() = default;
    virtual void frame(const cd_fcl_pose *poses, const std::uint32_t *ident, cd_fcl_emit_fn emit, void *ctx,
                       std::uint64_t *tri_pairs, std::uint64_t *candidates) = 0;
};

namespace
{

std::uint32_t body_of(const fcl::CollisionObjectd *o)
{
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(o->getUserData()));
}

// What the callback needs: the request (one per peer), a result reused from pair to pair (cleared
// first), where touching pairs go, and the counts.
struct frame_data {
    fcl::CollisionRequestd request;
    fcl::CollisionResultd result;
    cd_fcl_emit_fn emit;
    void *ctx;
    std::uint64_t tri_pairs, candidates;
};

// Every pair of objects whose FCL AABBs overlap, each once. The lower-numbered body is o1, as in
// cdlab's narrow step, so the answer does not depend on the order the manager reports a pair in.
// Returning false asks the manager to go on: every touching pair is wanted, not the first.
bool on_pair(fcl::CollisionObjectd *o1, fcl::CollisionObjectd *o2, void *data)
{
    frame_data *d = static_cast<frame_data *>(data);
    std::uint32_t a = body_of(o1), b = body_of(o2);
    if (b < a) std::swap(o1, o2), std::swap(a, b);
    d->candidates++;
    d->result.clear();
    fcl::collide(o1, o2, d->request, d->result);
    std::size_t contacts = d->result.numContacts();
    if (contacts) {
        d->tri_pairs += contacts;
        d->emit(d->ctx, a, b);
    }
    return false;
}

template <typename BV> class fcl_bodies final : public cd_fcl_bodies
{
  public:
    using model = fcl::BVHModel<BV>;

    // Throws nothing of its own; returns with ok() false if FCL refuses a mesh.
    fcl_bodies(const cd_fcl_mesh *meshes, std::uint32_t mesh_count, const std::uint32_t *shape_of, std::uint32_t n,
               const cd_fcl_pose *poses, const std::uint32_t *ident, bool all_pairs)
    {
        std::size_t most = 1;
        for (std::uint32_t k = 0; k < mesh_count; ++k) {
            const cd_fcl_mesh &m = meshes[k];
            most = std::max<std::size_t>(most, m.ntris);
            std::vector<fcl::Vector3d> verts(m.nverts);
            for (std::uint32_t v = 0; v < m.nverts; ++v)
                verts[v] = fcl::Vector3d(m.verts[3 * v], m.verts[3 * v + 1], m.verts[3 * v + 2]);
            std::vector<fcl::Triangle> tris(m.ntris);
            for (std::uint32_t t = 0; t < m.ntris; ++t)
                tris[t] = fcl::Triangle(m.tris[3 * t], m.tris[3 * t + 1], m.tris[3 * t + 2]);
            auto g = std::make_shared<model>();
            if (g->beginModel(static_cast<int>(m.ntris), static_cast<int>(m.nverts)) != fcl::BVH_OK ||
                g->addSubModel(verts, tris) != fcl::BVH_OK || g->endModel() != fcl::BVH_OK)
                return;
            models_.push_back(g);
        }
        // all_pairs: no pair has more intersecting triangle pairs than the square of the largest
        // face count, so the traversal never stops early; first_hit: the first one.
        data_.request.num_max_contacts = all_pairs ? most * most : 1;
        data_.request.enable_contact = false;
        objects_.reserve(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            objects_.emplace_back(new fcl::CollisionObjectd(models_[shape_of[i]]));
            objects_.back()->setUserData(reinterpret_cast<void *>(static_cast<std::uintptr_t>(i)));
        }
        place(poses, ident);
        std::vector<fcl::CollisionObjectd *> raw;
        raw.reserve(n);
        for (auto &o : objects_) raw.push_back(o.get());
        manager_.registerObjects(raw);
        manager_.setup();
        ok_ = true;
    }

    bool ok() const { return ok_; }

    void frame(const cd_fcl_pose *poses, const std::uint32_t *ident, cd_fcl_emit_fn emit, void *ctx,
               std::uint64_t *tri_pairs, std::uint64_t *candidates) override
    {
        place(poses, ident);
        manager_.update();
        data_.emit = emit, data_.ctx = ctx, data_.tri_pairs = 0, data_.candidates = 0;
        manager_.collide(&data_, on_pair);
        *tri_pairs = data_.tri_pairs;
        *candidates = data_.candidates;
    }

  private:
    // Each body's transform from its record: the rotation normalised in double (Eigen's
    // normalize), the centre as stored; then the object's world AABB (FCL's computeAABB: the
    // box of the bounding sphere of the mesh's local AABB once the body is rotated).
    void place(const cd_fcl_pose *poses, const std::uint32_t *ident)
    {
        for (std::size_t slot = 0; slot < objects_.size(); ++slot) {
            const cd_fcl_pose &p = poses[slot];
            fcl::Quaterniond q(p.q[0], p.q[1], p.q[2], p.q[3]);
            q.normalize();
            fcl::CollisionObjectd *o = objects_[ident[slot]].get();
            o->setTransform(q, fcl::Vector3d(p.c[0], p.c[1], p.c[2]));
            o->computeAABB();
        }
    }

    std::vector<std::shared_ptr<model>> models_;
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects_;
    // Declared after objects_ so that it is destroyed first: it holds raw pointers to them.
    fcl::DynamicAABBTreeCollisionManagerd manager_;
    frame_data data_{};
    bool ok_ = false;
};

[[noreturn]] void die(const char *where, const std::exception &e)
{
    std::fprintf(stderr, "cdlab bodies peers: %s: %s\n", where, e.what());
    std::abort();
}

template <typename BV>
cd_fcl_bodies *make(const cd_fcl_mesh *meshes, std::uint32_t mesh_count, const std::uint32_t *shape_of, std::uint32_t n,
                    const cd_fcl_pose *poses, const std::uint32_t *ident, bool all_pairs)
{
    std::unique_ptr<fcl_bodies<BV>> p(new fcl_bodies<BV>(meshes, mesh_count, shape_of, n, poses, ident, all_pairs));
    return p->ok() ? p.release() : nullptr;
}

}  // namespace

// Exceptions (only std::bad_alloc can come out of FCL or Eigen here) stop at the boundary: C
// cannot unwind.
extern "C" cd_fcl_bodies *cd_fcl_bodies_create(cd_fcl_bv bv, const cd_fcl_mesh *meshes, uint32_t mesh_count,
                                               const uint32_t *shape_of, uint32_t n, const cd_fcl_pose *poses,
                                               const uint32_t *ident, int all_pairs)
{
    try {
        if (bv == CD_FCL_BV_OBBRSS)
            return make<fcl::OBBRSSd>(meshes, mesh_count, shape_of, n, poses, ident, all_pairs != 0);
        return make<fcl::OBBd>(meshes, mesh_count, shape_of, n, poses, ident, all_pairs != 0);
    } catch (const std::exception &e) {
        die("create", e);
    }
}

extern "C" void cd_fcl_bodies_frame(cd_fcl_bodies *p, const cd_fcl_pose *poses, const uint32_t *ident,
                                    cd_fcl_emit_fn emit, void *ctx, uint64_t *tri_pairs, uint64_t *candidates)
{
    try {
        p->frame(poses, ident, emit, ctx, tri_pairs, candidates);
    } catch (const std::exception &e) {
        die("frame", e);
    }
}

extern "C" void cd_fcl_bodies_destroy(cd_fcl_bodies *p) { delete p; }
