// SPDX-License-Identifier: MIT
// The peer libraries (FCL's managers, Bullet's broadphases) as cdlab broad phases. The library
// finds candidate pairs from the scene's own AABBs; each reported pair then gets one exact
// closed-box test here, so candidates() reports exactly the AABB-overlapping pairs (the contract
// in cd_broad.h) even where a library keeps stale or fattened pairs, and the shared narrow step
// judges them with cdlab's SAT like every other method.
#include "cd_peers.h"
#include "peer_shim.h"

#include <stddef.h>

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

static void *peer_create(cd_peer_kind kind, const cd_scene *s)
{
    double r = reach_past_walls(s);
    return cd_peer_create(kind, s->count, -r, s->world + r);
}

static void peer_update(void *self, const cd_scene *s) { cd_peer_update(self, (const cd_peer_box *)s->box); }

// The library's structure stays as it is; its objects only take their cubes' new slot numbers.
static void peer_remap(void *self, const cd_scene *s) { cd_peer_renumber(self, s->slot_of_prev); }

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
    emit_ctx e = {s, sink, 0};
    cd_peer_pairs(self, emit_if_overlapping, &e);
    st->bv_tests += e.tests;
}

static void peer_destroy(void *self) { cd_peer_destroy(self); }

#define CD_PEER_METHOD(ident, kind, text)                                                                  \
    static void *ident##_create(const cd_broad_params *p, const cd_scene *s)                             \
    {                                                                                                      \
        (void)p;                                                                                           \
        return peer_create(kind, s);                                                                       \
    }                                                                                                      \
    static const cd_broad_method cd_broad_##ident = {                                                             \
        .name = #ident,                                                                                    \
        .description = text,                                                                               \
        .create = ident##_create,                                                                          \
        .update = peer_update,                                                                             \
        .remap = peer_remap,                                                                               \
        .candidates = peer_candidates,                                                                     \
        .shape_stats = NULL,                                                                               \
        .destroy = peer_destroy,                                                                           \
    };

CD_PEER_METHOD(fcl_dynamic_tree, CD_PEER_FCL_DYNAMIC_TREE, "peer: FCL 0.7 DynamicAABBTreeCollisionManager, update() per frame")
CD_PEER_METHOD(fcl_dynamic_tree_array, CD_PEER_FCL_DYNAMIC_TREE_ARRAY,
               "peer: FCL 0.7 DynamicAABBTreeCollisionManager_Array, update() per frame")
CD_PEER_METHOD(fcl_sap, CD_PEER_FCL_SAP, 
               "peer: FCL 0.7 SaPCollisionManager, objects re-registered per frame (0.7.0 update() hangs on rotating boxes)")
CD_PEER_METHOD(fcl_ssap, CD_PEER_FCL_SSAP, "peer: FCL 0.7 SSaPCollisionManager (simple sweep and prune), update() per frame")
CD_PEER_METHOD(fcl_interval_tree, CD_PEER_FCL_INTERVAL_TREE, "peer: FCL 0.7 IntervalTreeCollisionManager, update() per frame")
CD_PEER_METHOD(bullet_dbvt, CD_PEER_BULLET_DBVT, "peer: Bullet btDbvtBroadphase, setAabb per frame, pair cache")
CD_PEER_METHOD(bullet_axis_sweep, CD_PEER_BULLET_AXIS_SWEEP, "peer: Bullet bt32BitAxisSweep3, setAabb per frame, pair cache")

static const cd_broad_method *const peer_methods[] = {
    &cd_broad_fcl_dynamic_tree, &cd_broad_fcl_dynamic_tree_array, &cd_broad_fcl_sap, &cd_broad_fcl_ssap,
    &cd_broad_fcl_interval_tree, &cd_broad_bullet_dbvt, &cd_broad_bullet_axis_sweep,
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
