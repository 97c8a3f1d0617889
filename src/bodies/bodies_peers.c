// SPDX-License-Identifier: MIT
// The bodies peers' C side: names, and the scene's meshes and records handed to the C++ side
// (fcl_bodies.cpp, built with the project's peers: CD_BODIES_FCL) as plain arrays.
#include "cd_bodies_peers.h"

#include <stddef.h>
#include <string.h>

#ifdef CD_BODIES_FCL
#include "fcl_bodies_shim.h"

_Static_assert(sizeof(cd_posef) == sizeof(cd_fcl_pose), "cd_posef must be ten packed floats");
_Static_assert(offsetof(cd_posef, q) == offsetof(cd_fcl_pose, q) && offsetof(cd_posef, h) == offsetof(cd_fcl_pose, h),
               "cd_posef must be c, q, h");
_Static_assert(sizeof(cd_vec3) == 3 * sizeof(double), "cd_vec3 must be three packed doubles");
_Static_assert(sizeof(uint32_t[3]) == 3 * sizeof(uint32_t), "triangles must be three packed vertex numbers");

static const char *const names[] = {"fcl_obb", "fcl_obbrss"};
static const char *const bvs[] = {"OBB", "OBBRSS"};
enum { NAME_COUNT = sizeof names / sizeof names[0] };

struct cd_bodies_peer {
    cd_fcl_bodies *impl;
    const char *bv;
    uint64_t candidates;
};

const char *const *cd_bodies_peer_names(size_t *count)
{
    *count = NAME_COUNT;
    return names;
}

// The index of name in names, or NAME_COUNT.
static size_t name_index(const char *name)
{
    size_t k = 0;
    while (k < NAME_COUNT && strcmp(names[k], name) != 0) ++k;
    return k;
}

int cd_bodies_peer_known(const char *name) { return name_index(name) < NAME_COUNT; }

// Some body is not at its mesh's scale (size_ratio > 1).
static int bodies_scaled(const cd_bodies *b)
{
    for (uint32_t i = 0; i < b->scene->count; ++i)
        if (b->scale[i] != 1.0) return 1;
    return 0;
}

cd_bodies_peer *cd_bodies_peer_create(const char *name, const cd_bodies *b, cd_bvh_mode mode)
{
    size_t k = name_index(name);
    // The peers share each mesh's BVHModel between its instances, at one scale (FCL's objects
    // carry rigid transforms only); deforming copies and scaled instances are cdlab's own.
    if (k == NAME_COUNT || mode == CD_BVH_SOLID || b->deform_count || bodies_scaled(b)) return NULL;
    cd_fcl_mesh *meshes = cd_alloc(sizeof *meshes * (b->shape_count ? b->shape_count : 1));
    for (uint32_t m = 0; m < b->shape_count; ++m) {
        const cd_mesh *mesh = &b->shapes[m].mesh;
        meshes[m] = (cd_fcl_mesh){(const double *)mesh->verts, (const uint32_t *)mesh->tris, mesh->nverts, mesh->ntris};
    }
    const cd_scene *s = b->scene;
    cd_fcl_bodies *impl =
        cd_fcl_bodies_create(k == 1 ? CD_FCL_BV_OBBRSS : CD_FCL_BV_OBB, meshes, b->shape_count, b->shape_of, s->count,
                             (const cd_fcl_pose *)s->pose, s->ident, mode == CD_BVH_ALL_PAIRS);
    cd_free(meshes);
    if (!impl) return NULL;
    cd_bodies_peer *p = cd_alloc_zero(1, sizeof *p);
    p->impl = impl;
    p->bv = bvs[k];
    return p;
}

const char *cd_bodies_peer_bv(const cd_bodies_peer *p) { return p->bv; }

static void push_pair(void *ctx, uint32_t a, uint32_t b) { cd_pair_list_push(ctx, (cd_pair){a, b}); }

// The arrays are read from the scene every frame: a reorder moves them and permutes the slots.
void cd_bodies_peer_frame(cd_bodies_peer *p, const cd_bodies *b, cd_pair_list *out, uint64_t *tri_pairs)
{
    out->count = 0;
    cd_fcl_bodies_frame(p->impl, (const cd_fcl_pose *)b->scene->pose, b->scene->ident, push_pair, out, tri_pairs,
                        &p->candidates);
}

uint64_t cd_bodies_peer_candidates(const cd_bodies_peer *p) { return p->candidates; }

void cd_bodies_peer_destroy(cd_bodies_peer *p)
{
    if (!p) return;
    cd_fcl_bodies_destroy(p->impl);
    cd_free(p);
}

#else  // built without peers: no names, so nothing is ever created

const char *const *cd_bodies_peer_names(size_t *count)
{
    static const char *const none[] = {NULL};
    *count = 0;
    return none;
}

int cd_bodies_peer_known(const char *name)
{
    (void)name;
    return 0;
}

cd_bodies_peer *cd_bodies_peer_create(const char *name, const cd_bodies *b, cd_bvh_mode mode)
{
    (void)name, (void)b, (void)mode;
    return NULL;
}

const char *cd_bodies_peer_bv(const cd_bodies_peer *p)
{
    (void)p;
    return "";
}

void cd_bodies_peer_frame(cd_bodies_peer *p, const cd_bodies *b, cd_pair_list *out, uint64_t *tri_pairs)
{
    (void)p, (void)b;
    out->count = 0;
    *tri_pairs = 0;
}

uint64_t cd_bodies_peer_candidates(const cd_bodies_peer *p)
{
    (void)p;
    return 0;
}

void cd_bodies_peer_destroy(cd_bodies_peer *p) { (void)p; }

#endif
