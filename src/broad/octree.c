// SPDX-License-Identifier: MIT
// Strict octree (method "octree"): Ericson's straddling insertion. An object descends while its
// AABB (the OBB's projected radius per world axis, rounded outward) lies strictly on one side of
// all three split planes of the node, otherwise it stays there. Objects in two different child
// subtrees are therefore strictly separated by a plane, and a node's objects can meet only objects
// of the same node or of its subtree: the pair search (octree_core.c) needs nothing else.
#include "octree_core.h"

#include <stddef.h>

typedef struct octree {
    cd_otree t;
    cd_update_mode update;
    double world;        ///< world side the root was built for
    size_t built_nodes;  ///< nodes right after the last full build (incremental compaction)
    int built;
} octree;
_Static_assert(offsetof(octree, t) == 0, "the cd_otree_method_* adapters need the tree first");

static const cd_param_spec octree_params[] = {
    {"depth", CD_PARAM_INT, "4", 0, 24, NULL, "maximum tree depth; 0 = root only"},
    {"update", CD_PARAM_WORD, "rebuild", 0, 0, cd_broad_update_words,
     "per-frame update: rebuild, or incremental (move only the objects that left their node)"},
};

static void *octree_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    octree *o = cd_alloc_zero(1, sizeof *o);
    cd_otree_init(&o->t, (int)cd_params_num(p, "depth"), 0, threads);
    o->update = cd_broad_update_mode(p);
    return o;
}

// The root's region is all of space: objects at and beyond the walls descend into the outer
// octants like any other, because a child's region is open outward on the root's faces.
static void reset_root(octree *o, double world)
{
    double h = 0.5 * world;
    cd_aabb all = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    cd_otree_reset(&o->t, cd_v3(h, h, h), h, all);
    o->world = world;
}

static inline int side(double lo, double hi, double c)
{
    if (hi < c) return 0;
    if (lo > c) return 1;
    return -1;
}

// Child octant that holds b wholly, or -1 when b touches or crosses a split plane of the cell.
static int octant(const cd_otree_cell *c, const cd_aabb *b)
{
    int x = side(b->lo.x, b->hi.x, c->centre.x), y = side(b->lo.y, b->hi.y, c->centre.y);
    int z = side(b->lo.z, b->hi.z, c->centre.z);
    if ((x | y | z) < 0) return -1;
    return x | y << 1 | z << 2;
}

// Strict containment in a node's region, the invariant the octant rule establishes.
static int in_region(const cd_aabb *r, const cd_aabb *b)
{
    return r->lo.x < b->lo.x && r->lo.y < b->lo.y && r->lo.z < b->lo.z && b->hi.x < r->hi.x && b->hi.y < r->hi.y &&
           b->hi.z < r->hi.z;
}

static uint32_t split(void *tree, uint32_t k)
{
    cd_otree *t = tree;
    uint32_t kids = cd_otree_split(t, k);
    cd_vec3 c = t->cell[k].centre;
    for (uint32_t i = 0; i < 8; ++i) {
        cd_aabb *r = &t->cell[kids + i].bounds;
        *((i & 1) ? &r->lo.x : &r->hi.x) = c.x;
        *((i & 2) ? &r->lo.y : &r->hi.y) = c.y;
        *((i & 4) ? &r->lo.z : &r->hi.z) = c.z;
    }
    return kids;
}

static uint32_t descend(void *tree, uint32_t k, const cd_aabb *b)
{
    cd_otree *t = tree;
    while (t->cell[k].level < (uint32_t)t->depth) {
        int oct = octant(&t->cell[k], b);
        if (oct < 0) break;
        uint32_t kids = t->node[k].kids ? t->node[k].kids : split(t, k);
        k = kids + (uint32_t)oct;
    }
    return k;
}

// descend's cells from node *k (climb: from its first ancestor whose region holds b, the root
// holding all) without creating any, as a cell path (cd_otree_place_all): the octants descend
// takes, on the cells cd_otree_split makes.
static uint64_t path_of(const cd_otree *t, const void *tree, uint32_t *k, const cd_aabb *b, int climb)
{
    (void)tree;
    if (climb)
        while (!in_region(&t->cell[*k].bounds, b)) *k = t->cell[*k].parent;
    uint64_t path = 0;
    int oct;
    for (cd_otree_cell c = t->cell[*k]; c.level < (uint32_t)t->depth; c = cd_otree_child_cell(&c, 0, (uint32_t)oct))
        if ((oct = octant(&c, b)) < 0 || !cd_otree_path_push(&path, (uint32_t)oct)) break;
    return path;
}

static const cd_otree_placer placer = {path_of, split, descend};

static void octree_update(void *self, const cd_scene *s)
{
    octree *o = self;
    cd_otree *t = &o->t;
    cd_otree_reserve_objects(t, s->count);
    // Incremental trees only grow; rebuild when they hold twice the nodes of a fresh build.
    int full = o->update == CD_UPDATE_REBUILD || !o->built || t->n != s->count || o->world != s->world ||
               t->nodes > 2 * o->built_nodes + 64;
    if (full) reset_root(o, s->world);
    // Incremental: an object climbs until the region holds its box again (the root holds all),
    // then descends.
    cd_otree_place_all(t, t, s, !full, &placer);
    if (full) o->built_nodes = t->nodes;
    cd_otree_pack(t, s, !full);
    o->built = 1;
}

const cd_broad_method cd_broad_octree = {
    .name = "octree",
    .description = "strict octree, straddling insertion by OBB world radius; pair search threaded",
    .params = octree_params,
    .param_count = sizeof octree_params / sizeof octree_params[0],
    .create = octree_create,
    .update = octree_update,
    .candidates = cd_otree_method_candidates,
    .candidates_part = cd_otree_method_candidates_part,
    .remap = cd_otree_method_remap,
    .shape_stats = cd_otree_method_shape_stats,
    .cells = cd_otree_method_cells,
    .destroy = cd_otree_method_destroy,
};
