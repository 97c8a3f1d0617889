// SPDX-License-Identifier: MIT
// cdlab cube scenes (DESIGN.md "Standard scenes"): N moving oriented cubes in a world cube with
// reflecting walls, seeded; one frame exportable to and importable from CSV.
#ifndef CD_SCENE_H
#define CD_SCENE_H

#include "cd_shape.h"

/// Parameters of the standard cube scene; cd_scene_params_default() gives DESIGN.md's values.
typedef struct cd_scene_params {
    uint32_t cubes;     ///< number of cubes N
    double size;        ///< cube edge (smallest edge when size_ratio > 1)
    double size_ratio;  ///< edges uniform in [size, size·size_ratio]; 1 = all equal
    double density;     ///< volume fraction: world side L = cbrt(N·mean edge³ / density)
    double speed;       ///< velocity components uniform in [−speed, speed] per frame
    double spin;        ///< angular-velocity components uniform in [−spin, spin] rad per frame
    uint64_t seed;      ///< seed of every random draw of the scene
} cd_scene_params;

/// A cube scene. Hot arrays are separate (structure of arrays) so the motion loop and the
/// broad phases each stream only what they read.
typedef struct cd_scene {
    uint32_t count;   ///< number of cubes
    double world;     ///< world side L: walls at 0 and L on every axis
    cd_obb *obb;      ///< the cubes as oriented boxes (narrow phase input)
    cd_aabb *aabb;    ///< outward-rounded world AABB of each obb (broad phase input)
    cd_quat *rot;     ///< orientation (axes of obb derive from it)
    cd_vec3 *vel;     ///< linear velocity per frame
    cd_vec3 *omega;   ///< angular velocity (rotation vector) per frame
    cd_quat *turn;    ///< the rotation by omega over one frame, cached: omega is constant, and
                      ///< its sin/cos were the largest cost of the motion step
    uint64_t frame;   ///< frames stepped since creation
} cd_scene;

/// DESIGN.md defaults: size 1, ratio 1, density 0.05, speed 0.05, spin 0.01, seed 42, 1000 cubes.
cd_scene_params cd_scene_params_default(void);
/// World side L for params p (at least the largest cube's diagonal).
double cd_scene_world_side(const cd_scene_params *p);
/// Build the seeded scene for p. Fresh scene; free with cd_scene_destroy.
cd_scene *cd_scene_create(const cd_scene_params *p);
/// An empty scene of n cubes (all zero, identity rotations) in a world of side world, for
/// callers that fill the arrays themselves; call cd_scene_refresh afterwards.
cd_scene *cd_scene_create_empty(uint32_t n, double world);
/// Recompute the derived state from rot, omega, obb.c and obb.half: obb axes, aabb and the
/// per-frame turn. Call after writing any of those arrays directly.
void cd_scene_refresh(cd_scene *s);
/// One motion step: move, reflect at walls, rotate (quaternion renormalised), refresh bounds.
void cd_scene_step(cd_scene *s);
/// Free s (NULL allowed).
void cd_scene_destroy(cd_scene *s);

/// Write the current frame as CSV (id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz) with a header; the world
/// side goes in a first comment line "# world=L". Returns 0, or -1 with a message in err.
int cd_scene_export_csv(const cd_scene *s, const char *path, char *err, size_t err_len);
/// Read a frame written by cd_scene_export_csv (velocities are zero). Returns the scene, or
/// NULL with "file:line: what was expected" in err.
cd_scene *cd_scene_import_csv(const char *path, char *err, size_t err_len);

#endif
