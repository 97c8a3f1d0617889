// SPDX-License-Identifier: MIT
// CGAL's complete box intersection (CGAL::box_self_intersection_d, Zomorodian and Edelsbrunner's
// streamed segment tree, the algorithm Broadmark also runs) as a cdlab peer. It keeps no state
// between calls: every frame it finds every intersecting pair of the whole set anew, so "what
// moved" only decides which of its box records are rewritten. The boxes are cdlab's float boxes
// exactly (NT = float) and the topology is CLOSED (boxes that touch intersect), the closed-box
// test of cdlab's contract, so the pairs it reports are exactly the AABB-overlapping ones.
// Header-only and heavy to compile: this is the only file that includes CGAL.
#include "peer_impl.hpp"

#include <CGAL/box_intersection_d.h>

#include <cstddef>
#include <vector>

namespace
{

/// One box as CGAL's box concept reads it: NT, ID, dimension(), min_coord, max_coord and id().
/// The id is the object's index: unique, and CGAL breaks ties between equal coordinates by it.
struct cgal_box {
    typedef float NT;
    typedef std::size_t ID;
    float lo[3], hi[3];
    std::uint32_t index;

    static int dimension() { return 3; }
    float min_coord(int d) const { return lo[d]; }
    float max_coord(int d) const { return hi[d]; }
    std::size_t id() const { return index; }
};

struct emit_target {
    cd_peer_emit_fn emit;
    void *ctx;
    void operator()(const cgal_box *a, const cgal_box *b) const { emit(ctx, a->index, b->index); }
};

class cgal_peer final : public cd_peer
{
  public:
    explicit cgal_peer(std::uint32_t n) : boxes_(n), order_(n)
    {
        for (std::uint32_t i = 0; i < n; ++i) boxes_[i].index = i;
        point_at_boxes();
    }

    void update(const cd_peer_box *boxes, const std::uint32_t *moved, std::uint32_t n_moved) override
    {
        if (!moved) {
            for (std::uint32_t i = 0; i < boxes_.size(); ++i) set(i, boxes[i]);
            return;
        }
        for (std::uint32_t k = 0; k < n_moved; ++k) set(moved[k], boxes[moved[k]]);
    }

    void renumber(const std::uint32_t *new_of_old) override
    {
        std::vector<cgal_box> moved(boxes_.size());
        for (std::size_t i = 0; i < boxes_.size(); ++i) {
            moved[new_of_old[i]] = boxes_[i];
            moved[new_of_old[i]].index = new_of_old[i];
        }
        boxes_.swap(moved);
        point_at_boxes();
    }

    // CGAL reorders the range it is given (here pointers, so the records stay where they are)
    // and copies it once for the second side of the self-intersection. The cutoff is the range
    // size below which CGAL tests all pairs instead of splitting further; CGAL's manual leaves it
    // to be tuned. Measured on the standard scene (one core): 10 (the default) 10.6 ms at 10⁴
    // cubes and 173 ms at 10⁵; 100: 5.4 ms; 300: 87 ms at 10⁵; 1000: 4.1 and 57 ms; 3000: 7.5
    // and 60 ms. So 1000.
    static constexpr std::ptrdiff_t cutoff = 1000;

    void pairs(cd_peer_emit_fn emit, void *ctx) override
    {
        CGAL::box_self_intersection_d(order_.begin(), order_.end(), emit_target{emit, ctx}, std::ptrdiff_t(cutoff),
                                      CGAL::Box_intersection_d::CLOSED);
    }

  private:
    void set(std::uint32_t i, const cd_peer_box &b)
    {
        for (int d = 0; d < 3; ++d) {
            boxes_[i].lo[d] = b.lo[d];
            boxes_[i].hi[d] = b.hi[d];
        }
    }

    void point_at_boxes()
    {
        for (std::size_t i = 0; i < boxes_.size(); ++i) order_[i] = &boxes_[i];
    }

    std::vector<cgal_box> boxes_;
    std::vector<cgal_box *> order_;
};

}  // namespace

cd_peer *cd_peer_make_cgal(std::uint32_t n) { return new cgal_peer(n); }
