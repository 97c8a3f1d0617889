// SPDX-License-Identifier: MIT
// Simulated scenes: boxes moved by Bullet's rigid-body dynamics (btDiscreteDynamicsWorld), baked
// once into a cdlab trace that every method then replays (docs/design/scene.md#simulated-scenes).
// The simulation is one C++ translation unit (simulate.cpp) behind this C interface; bake.c
// writes and caches its traces.
#ifndef CD_SIMULATE_H
#define CD_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The scenes: Broadmark's three and a pile.
typedef enum cd_sim_kind {
    CD_SIM_BROWNIAN,   ///< random impulses every frame, no gravity, in a closed box
    CD_SIM_FREE_FALL,  ///< spread over the whole box, falling under gravity onto its floor
    CD_SIM_GRAVITY,    ///< attracted towards the box's centre, in a closed box
    CD_SIM_PILE,       ///< dropped in a dense block into an open container until they settle
} cd_sim_kind;

/// Names of cd_sim_kind values in enum order, NULL-terminated (the config words).
extern const char *const cd_sim_kind_names[];

/// What a simulation bakes. Every field enters the cache key (cd_sim_cache_key).
typedef struct cd_sim_params {
    cd_sim_kind kind;
    uint32_t objects;   ///< boxes N
    uint64_t frames;    ///< frames recorded (frame 0 is the initial state)
    uint32_t steps;     ///< fixed steps of 1/60 s per recorded frame (>= 1)
    double size;        ///< smallest edge
    double size_ratio;  ///< edges uniform in [size, size·size_ratio] (cubes)
    double density;     ///< volume fraction: the container's side is cbrt(N·mean edge³ / density)
    uint64_t seed;
} cd_sim_params;

/// Called with each recorded frame: pose[7i..7i+6] = qw qx qy qz x y z of box i (float); return
/// 0 to go on, non-zero to stop the simulation.
typedef int (*cd_sim_frame_fn)(void *ctx, uint64_t frame, const float *pose);

/// Run the simulation p, single-threaded with a fixed time step: the same p gives the same bits
/// on the same build. half receives 3N half-extents before the first frame. N = 0 runs an empty
/// container (frames of no poses). 0, or the callback's non-zero value.
int cd_sim_run(const cd_sim_params *p, float *half, cd_sim_frame_fn frame, void *ctx);

/// Bullet's version (BT_BULLET_VERSION), part of the cache key.
int cd_sim_bullet_version(void);

/// The cache key of p: 16 hex digits of a hash of every field and Bullet's version.
void cd_sim_cache_key(const cd_sim_params *p, char key[17]);

/// A trace in the simulation cache, as cd_sim_bake_cached found or baked it.
typedef struct cd_sim_cached {
    char path[4096];     ///< dir/simulate-<key>.trace
    char sha256[65];     ///< its SHA-256: the one its sidecar, path + ".sha256", records
    uint64_t bytes;      ///< its size
    int baked;           ///< baked now
    char rebaked[4400];  ///< why the trace that was in the cache was refused and baked again ("" if not)
} cd_sim_cached;

/// The trace of p under dir (dir/simulate-<key>.trace, dir created when missing), checked or baked.
/// A bake writes the trace to a temporary file and renames it into place, then its SHA-256 into
/// the sidecar dir/simulate-<key>.trace.sha256 (a sha256sum line, renamed into place too). A trace
/// in the cache is used when its SHA-256 is the sidecar's (computed once per process while its
/// inode, size, mtime and ctime stay); one that is not (changed, cut short, no sidecar, not a
/// regular file, unreadable) is baked again, c->rebaked saying why. The simulation is deterministic
/// (cd_sim_run), so a bake again gives the same bytes. Processes take turns on the lock file
/// dir/simulate-<key>.trace.lock while they check or bake it (flock: one bakes, the others wait and
/// read what it baked; with progress they say that they wait). With progress, a progress line goes to
/// stderr while baking. 0, or -1 with why in err: p->objects = 0 (a trace holds at least one
/// object), or the cache cannot be written (a refused trace then says what to remove).
int cd_sim_bake_cached(const cd_sim_params *p, const char *dir, int progress, cd_sim_cached *c, char *err,
                       size_t err_len);
/// Check the cached trace of p under dir as cd_sim_bake_cached does, baking nothing, reporting
/// nothing and never waiting (a trace whose lock another process holds is left alone): when it is
/// whole, this process and the processes it forks from now on find it checked while the file stays
/// the same (the runner calls it before a point's process starts, so that a trace is digested
/// once, not once per point and round).
void cd_sim_cache_warm(const cd_sim_params *p, const char *dir);

#ifdef __cplusplus
}
#endif

#endif
