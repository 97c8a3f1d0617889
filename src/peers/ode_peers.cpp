// SPDX-License-Identifier: MIT
// ODE 0.16's collision spaces as cdlab peers: dHashSpace, dSweepAndPruneSpace and dQuadTreeSpace.
// Each cube is a geom of a user geom class (dCreateGeomClass) whose AABB callback returns cdlab's
// own float box (shifted for the hash space, see fit_hash); the class has no collider, because
// only dSpaceCollide's near callback is used and cdlab's narrow step judges the pairs. A geom
// whose box changed is marked moved with dGeomSetPosition, the call an ODE user makes for a geom
// without a body (a body's geoms are marked the same way by dBodySetPosition): the space then
// recomputes the AABBs of those geoms only (cleanGeoms), and the quadtree re-files only them.
// Resting geoms are never touched. ODE's near callback sees each pair whose AABBs overlap as
// closed boxes (collideAABBs; the SAP space tests `<=` on all three axes), once per frame.
#include "peer_impl.hpp"

#include <ode/ode.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace
{

/// What the user geom class keeps per geom: the box in ODE's order (x lo, x hi, y lo, y hi, z lo, z hi).
struct geom_box {
    dReal aabb[6];
};

void box_aabb(dGeomID g, dReal aabb[6])
{
    const geom_box *b = static_cast<const geom_box *>(dGeomGetClassData(g));
    std::copy(b->aabb, b->aabb + 6, aabb);
}

dColliderFn *no_collider(int) { return nullptr; }

int box_class = -1;
std::once_flag ode_once;

// dInitODE2 once per process (never closed: ODE's globals stay reachable until exit), and the box
// class once: ODE has room for only a few user classes.
void init_ode()
{
    std::call_once(ode_once, [] {
        if (!dInitODE2(0)) {
            std::fprintf(stderr, "cdlab peers: dInitODE2 failed\n");
            std::abort();
        }
        dGeomClass c = {static_cast<int>(sizeof(geom_box)), no_collider, box_aabb, nullptr, nullptr};
        box_class = dCreateGeomClass(&c);
    });
    // Per thread (verify runs scenes on several threads): a no-op unless ODE was built with
    // thread-local storage, where it is required before a thread calls into ODE.
    dAllocateODEDataForThread(dAllocateMaskAll);
}

std::uint32_t index_of(dGeomID g)
{
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(dGeomGetData(g)));
}

struct emit_target {
    cd_peer_emit_fn emit;
    void *ctx;
};

void on_pair(void *data, dGeomID a, dGeomID b)
{
    const emit_target *t = static_cast<const emit_target *>(data);
    t->emit(t->ctx, index_of(a), index_of(b));
}

/// The quadtree's depth for n objects: about eight objects per leaf block over the world's
/// square (4^depth leaves), at most 10 (ODE allocates every block of every level up front).
/// Measured on the standard scene (one core, 2 frames): at 10⁴ cubes depths 3..7 took 19–24 ms
/// a frame, at 10⁵ depths 6..9 took 1.07–1.08 s and depth 5 over 100 s; the quadtree splits
/// x and y only, so its blocks are columns through the whole world and most cubes straddle a
/// block edge whatever the depth. This rule gives 6 at 10⁴ and 7 at 10⁵.
int quadtree_depth(std::uint32_t n)
{
    int d = 0;
    while (d < 10 && (std::uint64_t(8) << (2 * d)) < n) ++d;
    return d;
}

dSpaceID make_space(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi)
{
    switch (kind) {
    case CD_PEER_ODE_HASH: return dHashSpaceCreate(nullptr);
    // The sorted axis first: the scenes are cubes in a cube, so x is as good as any.
    case CD_PEER_ODE_SAP: return dSweepAndPruneSpaceCreate(nullptr, dSAP_AXES_XYZ);
    case CD_PEER_ODE_QUADTREE: {
        // The blocks split x and y; z is the quadtree's up axis (ODE's AXIS0, AXIS1, UP).
        dReal mid = dReal(0.5 * (world_lo + world_hi)), half = dReal(0.5 * (world_hi - world_lo));
        dVector3 centre = {mid, mid, mid, 0}, extents = {half, half, half, 0};
        return dQuadTreeSpaceCreate(nullptr, centre, extents, quadtree_depth(n));
    }
    default: break;
    }
    std::fprintf(stderr, "cdlab peers: %d is not an ODE kind\n", static_cast<int>(kind));
    std::abort();
}

class ode_peer final : public cd_peer
{
  public:
    ode_peer(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi)
        : kind_(kind), reach_(-world_lo), lo_seen_(world_lo), hi_seen_(world_hi),
          space_((init_ode(), make_space(kind, n, world_lo, world_hi)))
    {
        geoms_.reserve(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            dGeomID g = dCreateGeom(box_class);
            dGeomSetData(g, reinterpret_cast<void *>(static_cast<std::uintptr_t>(i)));
            geoms_.push_back(g);
        }
    }

    // The space destroys its geoms (cleanup mode 1, ODE's default).
    ~ode_peer() override { dSpaceDestroy(space_); }

    void update(const cd_peer_box *boxes, const std::uint32_t *moved, std::uint32_t n_moved) override
    {
        if (!moved) {
            if (kind_ == CD_PEER_ODE_HASH) {
                for (std::uint32_t i = 0; i < geoms_.size(); ++i) see(boxes[i]);
                smallest_level_ = smallest_level(boxes);
                fit_hash();
            }
            for (std::uint32_t i = 0; i < geoms_.size(); ++i) set(i, boxes[i]);
            // dGeomGetAABB computes each geom's AABB before it joins: the quadtree files a geom
            // by the AABB it has when added, and re-filing from a wrong block walks that block's
            // list (all n geoms at first, so O(n²) to set up).
            dReal aabb[6];
            for (dGeomID g : geoms_) {
                dGeomGetAABB(g, aabb);
                dSpaceAdd(space_, g);
            }
            return;
        }
        if (kind_ == CD_PEER_ODE_HASH) {
            for (std::uint32_t k = 0; k < n_moved; ++k) see(boxes[moved[k]]);
            if (fit_hash()) {  // a new shift: every geom's shifted box changed
                for (std::uint32_t i = 0; i < geoms_.size(); ++i) mark(i, boxes[i]);
                return;
            }
        }
        for (std::uint32_t k = 0; k < n_moved; ++k) mark(moved[k], boxes[moved[k]]);
    }

    void renumber(const std::uint32_t *new_of_old) override
    {
        std::vector<dGeomID> moved(geoms_.size());
        for (std::size_t i = 0; i < geoms_.size(); ++i) {
            dGeomSetData(geoms_[i], reinterpret_cast<void *>(static_cast<std::uintptr_t>(new_of_old[i])));
            moved[new_of_old[i]] = geoms_[i];
        }
        geoms_.swap(moved);
    }

    void pairs(cd_peer_emit_fn emit, void *ctx) override
    {
        emit_target t{emit, ctx};
        dSpaceCollide(space_, &t, on_pair);
    }

  private:
    void set(std::uint32_t i, const cd_peer_box &b)
    {
        geom_box *g = static_cast<geom_box *>(dGeomGetClassData(geoms_[i]));
        for (int d = 0; d < 3; ++d) {
            g->aabb[2 * d] = shift_ + b.lo[d];
            g->aabb[2 * d + 1] = shift_ + b.hi[d];
        }
    }

    // Geom i's box is b now: kept, and the geom marked moved.
    void mark(std::uint32_t i, const cd_peer_box &b)
    {
        set(i, b);
        dGeomSetPosition(geoms_[i], 0.5 * (double(b.lo[0]) + b.hi[0]), 0.5 * (double(b.lo[1]) + b.hi[1]),
                         0.5 * (double(b.lo[2]) + b.hi[2]));
    }

    // The lowest and highest coordinate of any box given so far (the hash space's shift and
    // levels must hold for every box of every frame, and a replayed trace may leave the world).
    void see(const cd_peer_box &b)
    {
        for (int d = 0; d < 3; ++d)
            lo_seen_ = std::min(lo_seen_, double(b.lo[d])), hi_seen_ = std::max(hi_seen_, double(b.hi[d]));
    }

    // The hash space's cell sizes are 2^minlevel .. 2^maxlevel; an ODE user sets them to the sizes
    // of the objects. Here: from the smallest box side of the first frame to the largest side any
    // cube's box can take, 2·reach_ (reach_ is 1.01 of the largest half-diagonal, see peers.c), so
    // no box goes to ODE's list of boxes too big for the hash, which it tests against all others.
    int smallest_level(const cd_peer_box *boxes) const
    {
        double smallest = HUGE_VAL;
        for (std::size_t i = 0; i < geoms_.size(); ++i)
            for (int d = 0; d < 3; ++d) smallest = std::min(smallest, double(boxes[i].hi[d]) - boxes[i].lo[d]);
        int hi = largest_level();
        return smallest > 0 && smallest < HUGE_VAL ? std::min(int(std::floor(std::log2(smallest))), hi) : hi;
    }

    // The cells of the largest side a cube's box can take, 2·reach_.
    int largest_level() const { return int(std::ceil(std::log2(std::max(2.0 * reach_, 1e-30)))); }

    // ODE 0.16's dHashSpace misses pairs in cells with a negative z index near the origin: it finds
    // a cell's bucket as (base(level, x, y) + z) mod size, stepping z from the box's first cell,
    // and base + z is unsigned, so where base < -z the sum wraps around 2^64 and the buckets of
    // z and z + 1 are no longer neighbours (the differential test caught a touching pair at
    // x ≈ 0.55, z ≈ 0; boxes crowded into [-3, 1]³ lose a pair in two hundred). So the hash space
    // gets every box shifted by shift_, a power of two no smaller than the lowest coordinate's
    // distance below 0: every cell index is then ≥ 0. Rounding x + shift_ is monotone, so boxes
    // that overlap still overlap; pairs that the shift makes touch are dropped by peers.c's exact
    // test. The other spaces get the boxes as they are (shift_ 0). And ODE stops the program (an
    // internal error) where a coordinate over its box's cell size leaves the int range: the
    // smallest cells grow until the highest shifted coordinate is at most 2^30 of them (a world a
    // billion times a cube's size then puts many cubes in a cell: slow, exact). Both must hold
    // for every box given so far, and a replayed trace may leave the first frame's world; returns
    // whether the shift changed (then every geom's shifted box changed too).
    bool fit_hash()
    {
        double shift = shift_;
        if (shift_ + lo_seen_ < 0.0) shift = std::ldexp(1.0, std::max(0, int(std::ceil(std::log2(-lo_seen_)))));
        int top = int(std::ceil(std::log2(std::max(shift + hi_seen_, 1.0)))) - 30;
        int lo = std::max(smallest_level_, top);
        int hi = std::max(lo, largest_level());
        dHashSpaceSetLevels(space_, lo, hi);
        bool changed = shift != shift_;
        shift_ = shift;
        return changed;
    }

    cd_peer_kind kind_;
    double reach_;              // how far a box may reach past the walls (1.01 of the largest half-diagonal)
    double shift_ = 0.0;        // added to every coordinate the hash space sees (fit_hash)
    double lo_seen_, hi_seen_;  // the world box, grown to every box given since
    int smallest_level_ = 0;
    dSpaceID space_;
    std::vector<dGeomID> geoms_;
};

}  // namespace

cd_peer *cd_peer_make_ode(cd_peer_kind kind, std::uint32_t n, double world_lo, double world_hi)
{
    return new ode_peer(kind, n, world_lo, world_hi);
}
