// SPDX-License-Identifier: MIT
// cdlab body scenes: N moving rigid mesh bodies in the cube scene's world (docs/design/bodies.md).
// Each body is an instance of one of a few meshes; one hierarchy per distinct mesh serves all of
// its instances, so a body costs what a cube costs plus its mesh number.
//
// A body is stored as a cube: the scene record holds the body's pose and the half-extents of its
// mesh's bounding box in the body frame (the mesh is centred on that box), so the motion step,
// the spatial reorder and every broad phase run unchanged on the bodies' world boxes, and every
// hierarchy variant sees the same candidates. The narrow step (cd_bodies_narrow) answers each
// candidate with the hierarchy pair query at the bodies' relative pose.
#ifndef CD_BODIES_H
#define CD_BODIES_H

#include "cd_broad.h"
#include "cd_bvh.h"
#include "cd_mesh.h"
#include "cd_scene.h"

/// What a body scene is made of. scene.cubes is the body count; scene.size is the largest edge of
/// every body's box, or the smallest one with scene.size_ratio > 1 (largest edges uniform in
/// [size, size·size_ratio], drawn as the cube scene draws its edges; instances of one mesh share
/// its hierarchy at every scale, cd_bvh_query_scaled);
/// scene.density is the bodies' box volume over the world's.
typedef struct cd_bodies_params {
    cd_scene_params scene;
    const char *const *meshes;  ///< mesh specs as cd_mesh_from_spec takes them ("box", "torus:500", a file)
    uint32_t mesh_count;
    int assign_cycle;    ///< 1: body i is mesh i mod mesh_count; 0: drawn from its own seeded stream
    cd_bvh_plan plan;    ///< hierarchy variant of every mesh
    uint32_t leaf_size;  ///< most triangles per leaf
    double deform;       ///< fraction of bodies (drawn from a seeded stream) that deform, 0..1
} cd_bodies_params;

/// Amplitude of a deforming body's vertex displacement, as a fraction of [bodies] size: each
/// coordinate moves by at most this times size (cd_bodies_deform).
#define CD_BODIES_DEFORM_AMPLITUDE 0.03

/// One distinct mesh: scaled so its box's largest edge is the scene's size, centred on its box.
typedef struct cd_body_shape {
    cd_mesh mesh;
    cd_bvh *bvh;
    cd_vec3 half;  ///< half-extents of the mesh's box (the body's scene record)
    double reach;  ///< the largest distance of a vertex from the mesh's origin (the body's centre)
} cd_body_shape;

/// A body scene.
typedef struct cd_bodies {
    cd_scene *scene;        ///< one record per body (cd_scene_ident numbers the bodies)
    cd_body_shape *shapes;  ///< the distinct meshes, in the order of cd_bodies_params.meshes, then
                            ///< one copy per deforming body (its own mesh and hierarchy)
    uint32_t shape_count;   ///< distinct meshes (the shared ones)
    uint32_t *shape_of;     ///< mesh of each body (by body number)
    double *scale;          ///< each body's size over its mesh's (by body number; all 1 when size_ratio is 1)
    uint32_t deform_count;  ///< deforming bodies: shapes[shape_count + d] is body deform_body[d]'s
    uint32_t *deform_body;
    cd_vec3 **rest;   ///< rest vertices of each deforming copy
    double *phase;    ///< three phases per deforming body
    double size;      ///< [bodies] size (the displacement's scale)
    double build_ms;  ///< time to read, scale and build the hierarchies
} cd_bodies;

/// Build the scene for p: the meshes (each read and its hierarchy built once), then placement and
/// motion as the cube scene with the same seed draws them. Returns the scene, or NULL with "what
/// went wrong" in err (a mesh the reader rejects, no meshes).
cd_bodies *cd_bodies_create(const cd_bodies_params *p, char *err, size_t err_len);
/// Free b (NULL allowed).
void cd_bodies_destroy(cd_bodies *b);
/// Move the vertices of every deforming body to their displacement at the scene's current frame f:
/// coordinate k of vertex v becomes v0_k + A·size·sin(3·v0_{k+1}/size·2 + 0.1·f + φ_k) (A =
/// CD_BODIES_DEFORM_AMPLITUDE, φ per body and axis from the seed), refit its hierarchy, and let
/// its record's half-extents follow the mesh's box. Returns the nodes refitted (Nu).
uint64_t cd_bodies_deform(cd_bodies *b);
/// Bytes per body: the scene's arrays and the mesh number (the shared meshes and hierarchies not
/// counted).
size_t cd_bodies_bytes_per_body(void);
/// Bytes of the shared meshes and hierarchies.
size_t cd_bodies_shared_bytes(const cd_bodies *b);

/// The relative pose of body j's mesh in body i's frame (slots i, j of b->scene), as the narrow
/// step and the brute-force reference both compute it: a point x of j's mesh lies at
/// cd_pose_apply_scaled(R, t, *scale, x) in i's mesh frame (*scale = scale_j / scale_i, exactly 1
/// when both are 1).
cd_pose cd_bodies_relative_pose(const cd_bodies *b, uint32_t i, uint32_t j, double *scale);

/// Counters of a body frame's narrow step, summed over its parts.
typedef struct cd_bodies_stats {
    uint64_t queries;    ///< hierarchy pair queries (candidates whose bodies' reach spheres and boxes
                         ///< overlap, exact OBB test; every candidate under an untested method)
    uint64_t tri_pairs;  ///< intersecting triangle pairs reported (all_pairs; first_hit: ≤ 1 per query)
    uint64_t bv_tests;   ///< Nv: bounding-volume tests of the queries
    uint64_t tri_tests;  ///< Np: triangle tests of the queries
    uint64_t bv_by_kind[CD_BVT_COUNT];  ///< Nv by kind of test (cd_bv_test_kind)
} cd_bodies_stats;

/// The narrow step of a body scene in mode (first_hit or all_pairs): per candidate, the hierarchy
/// pair query; a pair is kept when a triangle pair intersects. Holds a query scratch per frame part.
/// In first_hit (and solid) mode it keeps, from one cd_broad_frame to the next, the leaves where
/// each touching pair's query found its triangles, and hints the pair's next query with them
/// (cd_bvh_query_hinted): the same pairs, fewer volume tests where bodies move little per frame.
typedef struct cd_bodies_narrow cd_bodies_narrow;
cd_bodies_narrow *cd_bodies_narrow_create(const cd_bodies *b, cd_bvh_mode mode);
void cd_bodies_narrow_destroy(cd_bodies_narrow *n);
/// Witness hints on (the default in first_hit and solid modes) or off (every query from the roots);
/// all_pairs never uses them. Before cd_bodies_narrow_step or cd_bodies_narrow_attach.
void cd_bodies_narrow_set_witness(cd_bodies_narrow *n, int on);
/// The step to hand to cd_broad_set_narrow (each candidate's body spheres and boxes tested before its
/// query).
cd_narrow_step cd_bodies_narrow_step(cd_bodies_narrow *n);
/// Make n bp's narrow step. Under a method whose candidates are meant untested
/// (cd_broad_method.untested: `all`) every candidate is queried; under any other, each candidate's
/// bodies are tested first, their reach spheres (the root's sphere about the body's centre, scaled)
/// and then their boxes (the exact OBB test), which spares the queries of bodies apart.
void cd_bodies_narrow_attach(cd_bodies_narrow *n, cd_broad *bp);
/// The counters since the last call (then zeroed).
cd_bodies_stats cd_bodies_narrow_take_stats(cd_bodies_narrow *n);

/// Reference: every pair of bodies by brute force (every triangle of one against every triangle of
/// the other at their relative pose, cd_bvh_brute_force). Touching body pairs (a < b, body numbers,
/// in lexicographic order) go to pairs; their intersecting triangle pairs are counted in *tri_pairs.
void cd_bodies_brute_force(const cd_bodies *b, cd_pair_list *pairs, uint64_t *tri_pairs);

#endif
