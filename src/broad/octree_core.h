// SPDX-License-Identifier: MIT
// Private to the two octrees (octree.c, loose_octree.c): the index-based node pool, the per-frame
// packing of objects into per-node item runs, and the exact pair search. The two trees differ
// only in where an object is placed (cd_otree_place / relocation live in their own files) and in
// whether objects at unrelated nodes may overlap (never for the strict tree, often for the loose).
//
// Exactness does not rest on the cell geometry: every cull uses the tight bounds of the objects
// actually stored in a subtree (refit every frame), so objects beyond the world walls, rounding
// of cell planes and looseness can only change the cost, never the pair set.
#ifndef OCTREE_CORE_H
#define OCTREE_CORE_H

#include "cd_broad.h"

/// Deepest tree the octrees accept (stack bound of the pair search; 8^24 cells is far beyond use).
#define CD_OTREE_MAX_DEPTH 24
/// Objects from which the packing and the placement run on the frame's threads.
#define CD_OTREE_PARALLEL_MIN 20000u
/// Deepest tree whose placement runs on threads (a cell path's digits fit cd_otree_path).
#define CD_OTREE_PATH_DEPTH 19

/// Hot part of a node: what the pair search reads. 64 bytes, one cache line, so a query touches one
/// line per visited node; placement-only fields live in cd_otree_cell.
typedef struct cd_otree_node {
    cd_aabb sub;     ///< tight bounds of every object stored in the subtree; empty = +inf/-inf
    uint32_t kids;   ///< index of the first of 8 contiguous children, 0 = none
    uint32_t first;  ///< first item of this node's run in the item arrays
    uint32_t count;  ///< objects stored at this node
    float ext_x;     ///< widest x extent among this node's objects, rounded up (sweep window)
} cd_otree_node;
_Static_assert(sizeof(cd_otree_node) == 64, "cd_otree_node should fill exactly one cache line");

/// Cold part of a node: cell geometry for placement and relocation.
typedef struct cd_otree_cell {
    cd_aabb bounds;   ///< strict: the node's region (open outward at the world walls); loose: loose cell
    cd_vec3 centre;   ///< split point of the cell
    double half;      ///< half of the cell side
    uint32_t parent;  ///< parent node (root: itself)
    uint32_t level;   ///< 0 at the root
} cd_otree_cell;

/// One octree: node pool plus the objects packed per node. Every array is reused from frame to
/// frame, so a steady scene allocates nothing per frame.
typedef struct cd_otree {
    cd_otree_node *node;  ///< node pool (hot); node 0 is the root
    cd_otree_cell *cell;  ///< node pool (cold), same indices
    size_t nodes, node_cap;
    uint32_t n;                 ///< objects in the last packing
    uint32_t *obj_node;         ///< node of each object
    uint32_t *item_obj;         ///< objects grouped by node, each run sorted by aabb.lo.x
    cd_aabb *item_box;          ///< copy of the object AABBs in item order (streamed by the sweeps)
    struct cd_otree_key *keys;  ///< sort scratch (key, object)
    size_t obj_cap;
    uint32_t *run;  ///< scatter scratch, one per node and thread
    size_t run_cap;
    uint64_t *path;  ///< placement scratch, one per object (cd_otree_place_all)
    size_t path_cap;
    int depth;          ///< maximum depth
    int loose;          ///< objects at unrelated nodes may overlap (loose tree)
    int threads;        ///< threads the packing may use (the frame's workers)
    size_t live_nodes;  ///< nodes with a non-empty subtree after the last packing
} cd_otree;

/// Sort record of the packing.
typedef struct cd_otree_key {
    double key;
    uint32_t obj;
} cd_otree_key;

/// Empty tree of maximum depth depth; loose selects the cousin-aware pair search; threads: the
/// frame's workers, which the packing uses.
void cd_otree_init(cd_otree *t, int depth, int loose, int threads);
/// Free the tree's arrays.
void cd_otree_free(cd_otree *t);
/// Drop every node and make a root cell with centre c, half side h and bounds b.
void cd_otree_reset(cd_otree *t, cd_vec3 c, double h, cd_aabb b);
/// Give node p its 8 children (cells set, bounds copied from p for the caller to narrow); returns
/// the first child's index. Child k lies on the high side of axis a when bit a of k is set.
uint32_t cd_otree_split(cd_otree *t, uint32_t p);
/// Make room for n objects (obj_node etc.).
void cd_otree_reserve_objects(cd_otree *t, uint32_t n);

/// A cell path below a node: its octants as 3-bit digits, the first lowest, their number in bits
/// 59–63 (at most CD_OTREE_PATH_DEPTH), and CD_OTREE_PATH_MORE where the descent goes on below.
#define CD_OTREE_PATH_MORE (UINT64_C(1) << 58)
static inline unsigned cd_otree_path_len(uint64_t path) { return (unsigned)(path >> 59); }
/// Octant oct appended to *path; 0 (and CD_OTREE_PATH_MORE set) when the path is full.
static inline int cd_otree_path_push(uint64_t *path, uint32_t oct)
{
    unsigned len = cd_otree_path_len(*path);
    if (len == CD_OTREE_PATH_DEPTH) {
        *path |= CD_OTREE_PATH_MORE;
        return 0;
    }
    *path = (*path & ~(UINT64_C(31) << 59)) | (uint64_t)oct << (3 * len) | (uint64_t)(len + 1) << 59;
    return 1;
}

/// How a tree places an object with box b (see cd_otree_place_all). path: the node *k to start
/// from (the root when !climb, else the ancestor of *k the object climbs to) and the cell path
/// from there to the node the descent ends at, from the cells' geometry alone: no node is created,
/// the tree is only read. split: node k's eight children made, the first returned. descend: the
/// descent from node k, creating nodes (where a path ends in CD_OTREE_PATH_MORE).
typedef struct cd_otree_placer {
    uint64_t (*path)(const cd_otree *t, const void *tree, uint32_t *k, const cd_aabb *b, int climb);
    uint32_t (*split)(void *tree, uint32_t k);
    uint32_t (*descend)(void *tree, uint32_t k, const cd_aabb *b);
} cd_otree_placer;

/// Every object placed into obj_node[] (from the root, or with climb from the node obj_node[]
/// holds): the objects' cell paths computed, on t->threads threads from CD_OTREE_PARALLEL_MIN
/// objects, then followed in object order, each missing node created by split as one object's
/// descent after the other would create it: the same nodes, numbered alike, for every thread
/// count.
void cd_otree_place_all(cd_otree *t, void *tree, const cd_scene *s, int climb, const cd_otree_placer *how);
/// Group the objects by obj_node[], sort each run by aabb.lo.x, copy the boxes, refit subtree
/// bounds. coherent: keep last frame's order inside each run (insertion sort on nearly sorted runs).
/// Runs on t->threads threads from CD_OTREE_PARALLEL_MIN objects, with the same result.
void cd_otree_pack(cd_otree *t, const cd_scene *s, int coherent);
/// Report every pair of packed objects whose AABBs overlap, exactly once.
void cd_otree_pairs(const cd_otree *t, cd_pair_sink *sink, cd_broad_stats *st);
/// Nodes, bytes, objects per level, largest node, deepest occupied level.
void cd_otree_shape_stats(const cd_otree *t, cd_broad_stats *st);

// Method adapters shared by the strict and loose octrees: their state structs begin with a
// cd_otree, and a pointer to a struct converts to a pointer to its first member.
/// cd_broad_method.candidates for a state that begins with a packed cd_otree.
void cd_otree_method_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st);
/// cd_broad_method.candidates_part: part k of the items (node by node), so the frame's threads share
/// the pair search.
void cd_otree_method_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                     cd_broad_stats *st);
/// cd_broad_method.remap for a state that begins with a cd_otree: objects keep their nodes and
/// their places in the runs under their new slot numbers.
void cd_otree_method_remap(void *self, const cd_scene *s);
/// cd_broad_method.shape_stats for a state that begins with a cd_otree.
void cd_otree_method_shape_stats(void *self, cd_broad_stats *st);
/// cd_broad_method.cells for a state that begins with a packed cd_otree: every node whose subtree
/// holds an object, as its cell bounds (infinite sides cut at the cell, centre ± half).
void cd_otree_method_cells(void *self, const cd_scene *s, cd_broad_cell_fn each, void *ctx);
/// cd_broad_method.destroy for a cd_alloc'ed state that begins with a cd_otree.
void cd_otree_method_destroy(void *self);

/// The cell of child k of node parent, whose cell is p: its centre and half side (p's bounds, for
/// the caller to narrow). cd_otree_split and the placements' cell paths both use it, so a path's
/// cells are the ones the descent creates.
static inline cd_otree_cell cd_otree_child_cell(const cd_otree_cell *p, uint32_t parent, uint32_t k)
{
    double q = 0.5 * p->half;  // power-of-two scaling: exact
    cd_vec3 c =
        cd_v3(p->centre.x + ((k & 1) ? q : -q), p->centre.y + ((k & 2) ? q : -q), p->centre.z + ((k & 4) ? q : -q));
    return (cd_otree_cell){.bounds = p->bounds, .centre = c, .half = q, .parent = parent, .level = p->level + 1};
}

/// Closed-box containment of b in the cell bounds c.
static inline int cd_otree_contains(const cd_aabb *c, const cd_aabb *b)
{
    return c->lo.x <= b->lo.x && c->lo.y <= b->lo.y && c->lo.z <= b->lo.z && b->hi.x <= c->hi.x && b->hi.y <= c->hi.y &&
           b->hi.z <= c->hi.z;
}

#endif
