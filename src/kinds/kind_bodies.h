// SPDX-License-Identifier: MIT
// The bodies kind's point setup, shared with the scene view (view.c). Private to the kinds module.
#ifndef KIND_BODIES_H
#define KIND_BODIES_H

#include "cd_bodies.h"
#include "cd_harness.h"

/// Most meshes one [bodies] meshes list names.
#define KIND_BODIES_MAX_MESHES 16

/// A point's body scene: its parameters and the mesh specs they point to (do not copy the struct
/// and free the original: params.meshes points into specs, specs into buf).
typedef struct cd_bodies_point {
    cd_bodies_params params;
    cd_bvh_mode mode;                        ///< [method] mode
    int witness;                             ///< [method] witness = on
    char buf[KIND_BODIES_MAX_MESHES][4096];  // the specs, files resolved against the config's directory
    const char *specs[KIND_BODIES_MAX_MESHES];
    char mesh_list[2048];  ///< the specs, space-separated (the summary's meshes)
    /// Empty, or why params.plan (a plugin variant's) cannot be built: the point is refused.
    char plan_refused[1200];
} cd_bodies_point;

/// Fill pt from point p of a kind-bodies config (pt->plan_refused says whether its plan is buildable).
void cd_bodies_point_setup(const cd_point *p, cd_bodies_point *pt);

#endif
