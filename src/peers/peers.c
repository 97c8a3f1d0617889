// SPDX-License-Identifier: MIT
// The peer libraries (FCL's managers, Bullet's broadphases) as cdlab broad phases. The library
// finds candidate pairs from the scene's own AABBs; each reported pair then gets one exact
// closed-box test here, so candidates() reports exactly the AABB-overlapping pairs (the contract
// in cd_broad.h) even where a library keeps stale or fattened pairs, and the shared narrow step
// judges them with cdlab's SAT like every other method.
#include "cd_peers.h"
#include "peer_shim.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(cd_aabbf) == sizeof(cd_peer_box), "cd_aabbf must be six packed floats");
_Static_assert(offsetof(cd_aabbf, hi) == offsetof(cd_peer_box, hi), "cd_aabbf.hi must follow lo");

// The largest half-diagonal bounds how far a cube's box can reach past the walls (centres stay in
// [0, L]); 1 % more covers the outward rounding of the boxes.
static double reach_past_walls(const cd_scene *s)
{
    double r = 0.0;
    for (uint32_t i = 0; i < s->count; ++i) r = fmax(r, cd_v3_len(cd_scene_half(s, i)));
    return 1.01 * r + 1e-9;
}

// A peer and what it needs to tell its library what moved: the scene's move list (cd_scene_moves),
// or every slot when the scene does not know (frames the peer missed).
typedef struct peer_state {
    cd_peer *lib;
    uint32_t n;
    int inserted;    // the first update has given the library every box
    uint64_t moves;  // the scene's move list last seen
    uint32_t *all;   // n slots 0..n-1: "every slot moved"
} peer_state;

// The world box a peer library is told: the walls plus the reach of a box past them, widened to
// every box the scene holds now. A scene whose world side is not finite and positive (a damaged
// scene, or a test that breaks it on purpose) gets the boxes' own extent: ODE's quadtree and
// Bullet's axis sweep assume finite, ordered bounds and abort or lose pairs otherwise.
static void peer_world(const cd_scene *s, double *lo, double *hi)
{
    double r = reach_past_walls(s);
    // Always at least [-r, r], so the low corner is below zero (ODE's hash space shifts by it).
    *lo = -r;
    *hi = isfinite(s->world) && s->world > 0.0 ? s->world + r : r;
    for (uint32_t i = 0; i < s->count; ++i)
        for (int k = 0; k < 3; ++k) {
            *lo = fmin(*lo, s->box[i].lo[k]);
            *hi = fmax(*hi, s->box[i].hi[k]);
        }
}

static void *peer_create(cd_peer_kind kind, const cd_scene *s)
{
    double lo, hi;
    peer_world(s, &lo, &hi);
    peer_state *p = cd_alloc_zero(1, sizeof *p);
    p->lib = cd_peer_create(kind, s->count, lo, hi);
    p->n = s->count;
    p->moves = CD_SCENE_MOVES_UNSEEN;
    p->all = cd_alloc(((size_t)s->count + 1) * sizeof *p->all);
    for (uint32_t i = 0; i < s->count; ++i) p->all[i] = i;
    return p;
}

// The library hears only of the slots whose box changed since the previous update (all on the
// first): the scene's move list, the slots whose box changed bit for bit, which is what a user
// sees comparing an object's box with last frame's (or an engine's sleeping flag: a resting cube's
// box is bit for bit the same).
static void peer_update(void *self, const cd_scene *s)
{
    peer_state *p = self;
    CD_ASSERT(s->count == p->n);
    const cd_peer_box *boxes = (const cd_peer_box *)s->box;
    cd_scene_moves m;
    int known = cd_scene_moves_since(s, &p->moves, &m);
    if (!p->inserted) {
        cd_peer_update(p->lib, boxes, NULL, 0);
        p->inserted = 1;
    } else if (known) {
        cd_peer_update(p->lib, boxes, m.count ? m.slot : p->all, m.count);  // NULL would insert
    } else {
        cd_peer_update(p->lib, boxes, p->all, p->n);
    }
}

// The library's structure stays as it is; its objects only take their cubes' new slot numbers.
static void peer_remap(void *self, const cd_scene *s)
{
    peer_state *p = self;
    cd_peer_renumber(p->lib, s->slot_of_prev);
}

typedef struct emit_ctx {
    const cd_scene *scene;
    cd_pair_sink *sink;
    uint64_t tests;
} emit_ctx;

static void emit_if_overlapping(void *ctx, uint32_t a, uint32_t b)
{
    emit_ctx *e = ctx;
    e->tests++;
    if (cd_aabbf_overlap(&e->scene->box[a], &e->scene->box[b])) cd_sink_push(e->sink, a, b);
}

// bv_tests counts the exact box tests made here on the library's pairs; the library's own
// internal tests are not visible through its API.
static void peer_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    const peer_state *p = self;
    emit_ctx e = {s, sink, 0};
    cd_peer_pairs(p->lib, emit_if_overlapping, &e);
    st->bv_tests += e.tests;
}

static void peer_destroy(void *self)
{
    peer_state *p = self;
    if (!p) return;
    cd_peer_destroy(p->lib);
    cd_free(p->all);
    cd_free(p);
}

#define CD_PEER_METHOD(ident, kind, text)                                           \
    static void *ident##_create(const cd_params *p, int threads, const cd_scene *s) \
    {                                                                               \
        (void)p;                                                                    \
        (void)threads;                                                              \
        return peer_create(kind, s);                                                \
    }                                                                               \
    static const cd_broad_method cd_broad_##ident = {                               \
        .name = #ident,                                                             \
        .description = text,                                                        \
        .create = ident##_create,                                                   \
        .update = peer_update,                                                      \
        .remap = peer_remap,                                                        \
        .candidates = peer_candidates,                                              \
        .shape_stats = NULL,                                                        \
        .destroy = peer_destroy,                                                    \
    };

CD_PEER_METHOD(fcl_dynamic_tree, CD_PEER_FCL_DYNAMIC_TREE,
               "peer: FCL 0.7 DynamicAABBTreeCollisionManager, update(moved objects), update() when all moved")
CD_PEER_METHOD(fcl_dynamic_tree_array, CD_PEER_FCL_DYNAMIC_TREE_ARRAY,
               "peer: FCL 0.7 DynamicAABBTreeCollisionManager_Array, update(moved objects), update() when all moved")
CD_PEER_METHOD(fcl_sap, CD_PEER_FCL_SAP,
               "peer: FCL 0.7 SaPCollisionManager, objects re-registered when any moved (0.7.0 update() hangs)")
CD_PEER_METHOD(fcl_ssap, CD_PEER_FCL_SSAP,
               "peer: FCL 0.7 SSaPCollisionManager (simple sweep and prune), update() when any moved")
CD_PEER_METHOD(fcl_interval_tree, CD_PEER_FCL_INTERVAL_TREE,
               "peer: FCL 0.7 IntervalTreeCollisionManager, update() when any moved (0.7.0 update(obj) is wrong)")
CD_PEER_METHOD(bullet_dbvt, CD_PEER_BULLET_DBVT,
               "peer: Bullet btDbvtBroadphase, setAabb for moved proxies (resting ones go static), pair cache")
CD_PEER_METHOD(bullet_axis_sweep, CD_PEER_BULLET_AXIS_SWEEP,
               "peer: Bullet bt32BitAxisSweep3, setAabb for moved proxies, pair cache")
#ifdef CD_PEER_HAVE_CGAL
CD_PEER_METHOD(cgal_box_intersection, CD_PEER_CGAL_BOX_INTERSECTION,
               "peer: CGAL 5.5 box_self_intersection_d (complete box intersection, closed boxes, cutoff 1000), all "
               "boxes per frame")
#endif
#ifdef CD_PEER_HAVE_ODE
CD_PEER_METHOD(ode_hash, CD_PEER_ODE_HASH, "peer: ODE 0.16 dHashSpace, moved geoms marked with dGeomSetPosition")
CD_PEER_METHOD(ode_sap, CD_PEER_ODE_SAP,
               "peer: ODE 0.16 dSweepAndPruneSpace (x, y, z), moved geoms marked with dGeomSetPosition")
CD_PEER_METHOD(ode_quadtree, CD_PEER_ODE_QUADTREE,
               "peer: ODE 0.16 dQuadTreeSpace (x-y blocks, ~8 cubes per leaf), moved geoms re-filed")
#endif

static const cd_broad_method *const peer_methods[] = {
    &cd_broad_fcl_dynamic_tree,
    &cd_broad_fcl_dynamic_tree_array,
    &cd_broad_fcl_sap,
    &cd_broad_fcl_ssap,
    &cd_broad_fcl_interval_tree,
    &cd_broad_bullet_dbvt,
    &cd_broad_bullet_axis_sweep,
#ifdef CD_PEER_HAVE_CGAL
    &cd_broad_cgal_box_intersection,
#endif
#ifdef CD_PEER_HAVE_ODE
    &cd_broad_ode_hash,
    &cd_broad_ode_sap,
    &cd_broad_ode_quadtree,
#endif
};

const cd_broad_method *const *cd_peers_methods(size_t *count)
{
    *count = sizeof peer_methods / sizeof peer_methods[0];
    return peer_methods;
}

#ifdef __SANITIZE_ADDRESS__
// LeakSanitizer asks every program for this hook at exit. FCL 0.7.0 itself leaks (the leaf array
// of DynamicAABBTreeCollisionManager_Array::registerObjects, the intervals made in
// IntervalTreeCollisionManager::setup) although the shim destroys every manager; those frames
// are in libfcl, not cdlab, so sanitizer builds stay green without hiding cdlab's own leaks.
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfcl.so\n"; }
#endif
