// SPDX-License-Identifier: MIT
// Loose octree (method "loose_octree", Ulrich; Ericson §7.3.6): each node's loose bounds are its
// cell grown by (k−1)/2 of its side on every side. An object goes to the deepest level (≤ depth)
// whose loose cell, chosen by the object's centre, holds its AABB; the root's loose bounds are all
// of space, so objects at and beyond the walls are stored too. Loose cells of neighbouring nodes
// overlap, so the pair search (octree_core.c) also visits unrelated nodes.
#include "octree_core.h"

#include <stddef.h>

typedef struct loose_octree {
    cd_otree t;
    double k;  ///< looseness >= 1
    cd_update_mode update;
    double world;
    size_t built_nodes;
    int built;
} loose_octree;
_Static_assert(offsetof(loose_octree, t) == 0, "the cd_otree_method_* adapters need the tree first");

static const cd_param_spec loose_params[] = {
    {"depth", CD_PARAM_INT, "4", 0, 24, NULL, "maximum tree depth; 0 = root only"},
    {"looseness", CD_PARAM_REAL, "2.0", 1, 1000, NULL,
     "loose octree factor k >= 1: a node's bounds are k times its cell"},
    {"update", CD_PARAM_WORD, "rebuild", 0, 0, cd_broad_update_words,
     "per-frame update: rebuild, or incremental (move only the objects that left their node)"},
};

static void *loose_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    loose_octree *o = cd_alloc_zero(1, sizeof *o);
    cd_otree_init(&o->t, (int)cd_params_num(p, "depth"), 1, threads);
    o->k = cd_params_num(p, "looseness");
    CD_ASSERT(o->k >= 1.0);
    o->update = cd_broad_update_mode(p);
    return o;
}

static void reset_root(loose_octree *o, double world)
{
    double h = 0.5 * world;
    cd_aabb all = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    cd_otree_reset(&o->t, cd_v3(h, h, h), h, all);
    o->world = world;
}

// Loose bounds of child oct of cell c. The only formula for them: placement tests and the stored
// bounds agree to the last bit.
static cd_aabb child_loose(const cd_otree_cell *c, uint32_t oct, double k)
{
    double q = 0.5 * c->half, r = k * q;
    cd_vec3 m = cd_v3(c->centre.x + ((oct & 1) ? q : -q), c->centre.y + ((oct & 2) ? q : -q),
                      c->centre.z + ((oct & 4) ? q : -q));
    return (cd_aabb){cd_v3(m.x - r, m.y - r, m.z - r), cd_v3(m.x + r, m.y + r, m.z + r)};
}

static uint32_t split(void *tree, uint32_t p)
{
    loose_octree *o = tree;
    cd_otree *t = &o->t;
    uint32_t kids = cd_otree_split(t, p);
    for (uint32_t i = 0; i < 8; ++i) t->cell[kids + i].bounds = child_loose(&t->cell[p], i, o->k);
    return kids;
}

// Descend from node n by the object's centre while the child's loose cell holds the box.
static uint32_t descend(void *tree, uint32_t n, cd_vec3 c, const cd_aabb *b)
{
    loose_octree *o = tree;
    cd_otree *t = &o->t;
    while (t->cell[n].level < (uint32_t)t->depth) {
        const cd_otree_cell *cl = &t->cell[n];
        uint32_t oct = (uint32_t)(c.x >= cl->centre.x) | (uint32_t)(c.y >= cl->centre.y) << 1 |
                       (uint32_t)(c.z >= cl->centre.z) << 2;
        cd_aabb lb = child_loose(cl, oct, o->k);
        if (!cd_otree_contains(&lb, b)) break;
        uint32_t kids = t->node[n].kids ? t->node[n].kids : split(o, n);
        n = kids + oct;
    }
    return n;
}

// The object's centre for placement: the AABB midpoint (the box centre up to rounding), read from
// the AABB array the update streams anyway instead of the 120-byte OBB records.
static inline cd_vec3 mid(const cd_aabb *b)
{
    return cd_v3(0.5 * (b->lo.x + b->hi.x), 0.5 * (b->lo.y + b->hi.y), 0.5 * (b->lo.z + b->hi.z));
}

static uint32_t descend_box(void *tree, uint32_t n, const cd_aabb *b) { return descend(tree, n, mid(b), b); }

// descend's cells from node *n by the box's centre (climb: from its first ancestor whose loose
// cell holds b, the root holding all) without creating any, as a cell path (cd_otree_place_all):
// the octants and loose cells descend tests, on the cells cd_otree_split makes.
static uint64_t path_of(const cd_otree *t, const void *tree, uint32_t *n, const cd_aabb *b, int climb)
{
    const loose_octree *o = tree;
    if (climb)
        while (*n != 0 && !cd_otree_contains(&t->cell[*n].bounds, b)) *n = t->cell[*n].parent;
    cd_vec3 c = mid(b);
    uint64_t path = 0;
    uint32_t oct;
    for (cd_otree_cell cl = t->cell[*n]; cl.level < (uint32_t)t->depth; cl = cd_otree_child_cell(&cl, 0, oct)) {
        oct =
            (uint32_t)(c.x >= cl.centre.x) | (uint32_t)(c.y >= cl.centre.y) << 1 | (uint32_t)(c.z >= cl.centre.z) << 2;
        cd_aabb lb = child_loose(&cl, oct, o->k);
        if (!cd_otree_contains(&lb, b) || !cd_otree_path_push(&path, oct)) break;
    }
    return path;
}

static const cd_otree_placer placer = {path_of, split, descend_box};

static void loose_update(void *self, const cd_scene *s)
{
    loose_octree *o = self;
    cd_otree *t = &o->t;
    cd_otree_reserve_objects(t, s->count);
    // Incremental trees only grow; rebuild when they hold twice the nodes of a fresh build.
    int full = o->update == CD_UPDATE_REBUILD || !o->built || t->n != s->count || o->world != s->world ||
               t->nodes > 2 * o->built_nodes + 64;
    if (full) reset_root(o, s->world);
    // Incremental: an object stays while its node's loose cell still holds it (the point of
    // looseness); otherwise it climbs to the first ancestor that does and descends again by its
    // centre.
    cd_otree_place_all(t, o, s, !full, &placer);
    if (full) o->built_nodes = t->nodes;
    cd_otree_pack(t, s, !full);
    o->built = 1;
}

const cd_broad_method cd_broad_loose_octree = {
    .name = "loose_octree",
    .description = "loose octree, placement by centre and size; pair search threaded",
    .params = loose_params,
    .param_count = sizeof loose_params / sizeof loose_params[0],
    .create = loose_create,
    .update = loose_update,
    .candidates = cd_otree_method_candidates,
    .candidates_part = cd_otree_method_candidates_part,
    .remap = cd_otree_method_remap,
    .shape_stats = cd_otree_method_shape_stats,
    .cells = cd_otree_method_cells,
    .destroy = cd_otree_method_destroy,
};
