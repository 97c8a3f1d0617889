// SPDX-License-Identifier: MIT
// The cubes kind's measurement, shared with the kinds that search over it (max_fps). Private to
// the kinds module.
#ifndef KIND_CUBES_H
#define KIND_CUBES_H

#include "cd_broad.h"
#include "cd_harness.h"

/// One cubes measurement setup (scene + method + protocol).
typedef struct cd_cubes_setup {
    const char *method;
    const struct cd_broad_method *broad;  ///< the method called method
    cd_params params;                     ///< its parameters at this point
    int threads;
    uint32_t cubes;
    double size, size_ratio, density, speed, spin;
    uint32_t reorder;                ///< frames between the scene's spatial reorders (cd_scene.reorder)
    const char *layout, *size_dist;  ///< [scene] layout and size_dist (cd_scene_layout_names, ...)
    uint32_t clusters;
    double cluster_sigma, moving, sleep;
    /// The cubes kind's [scene] file, resolved against the config's directory; empty: the seeded
    /// scene. A file's scene is frozen: no motion step, every frame measures the same state.
    char scene_file[4096];
    /// [scene] trace, resolved; empty: none. Its frame 0 first, each motion step the next frame.
    char trace_file[4096];
    /// [scene] source = simulate: the simulation baked into a cached trace (trace_file) before the
    /// first repeat; simulation is its [scene] simulation word, sim_steps its [scene] sim_steps.
    int simulate;
    const char *simulation;
    uint32_t sim_steps;
    uint64_t seed;
    uint32_t warmup, frames, repeats;
    int cpu_clock;  ///< time frames on the runner thread's CPU clock (broad/narrow split then NA); 0 with threads > 1
} cd_cubes_setup;

/// What one cubes measurement found (over frames × repeats measured frames).
typedef struct cd_cubes_result {
    cd_stats frame_ms, fps, motion_ms, broad_ms, narrow_ms;
    double bv_tests_mean, candidates_mean, narrow_tests_mean, pairs_mean;
    double nodes_mean, bytes_mean, moved_mean;
    uint64_t max_per_node, depth_reached;
} cd_cubes_result;

/// How a cubes point's scene moves: not at all ([scene] file), by a trace, or by the seeded step.
typedef struct cd_cubes_motion {
    int frozen;
    struct cd_trace_replay *replay;  ///< [scene] trace, else NULL
} cd_cubes_motion;
/// One motion step of m's kind. 0, or -1 with why in err (the trace ended early or holds a bad frame).
int cd_cubes_step(cd_cubes_motion *m, struct cd_scene *s, int threads, char *err, size_t err_len);
/// Close m's trace (the scene is the caller's).
void cd_cubes_motion_end(cd_cubes_motion *m);

/// Config check shared with max_fps: a [scene] key swept with values the points' scene does not
/// read is refused (cd_config_refuse_unread_sweep). 0, or -1 with "path:line: ..." in err.
int cd_cubes_check_unread_sweeps(const cd_config *c, char *err, size_t err_len);
/// Config check shared with bodies: the clusters keys (clusters, cluster_sigma) of section are
/// read by layout = clusters alone; swept where no layout value is clusters they are refused.
int cd_cubes_check_cluster_sweeps(const cd_config *c, const char *section, char *err, size_t err_len);
/// The setup of a cubes-kind point.
cd_cubes_setup cd_cubes_setup_from_point(const cd_point *p);
/// The scene (seeded, read from [scene] file or from [scene] trace's frame 0) and the broad phase
/// that point p of a kind-cubes config measures, as each repeat starts (before the warm-up
/// frames), and how it moves (cd_cubes_step; end with cd_cubes_motion_end). With [scene] source =
/// simulate the trace is the one under results_root/cache/, baked there first when it is not (the
/// results root a run of p writes under: `cdlab run` puts it there). 0, or -1 with why in err (the
/// scene file or trace cannot be read, the simulation cannot be baked).
int cd_cubes_point_start(const cd_point *p, const char *results_root, struct cd_scene **scene, struct cd_broad **broad,
                         cd_cubes_motion *motion, char *err, size_t err_len);
/// Run s (frame rows go to frames.csv with the cubes frame columns) and fill res. 0, or -1 after
/// cd_run_fail.
int cd_cubes_measure(cd_run *r, const cd_cubes_setup *s, cd_cubes_result *res);
/// 0 when b's last frame had no bad candidates (cd_broad.bad: a plugin's method naming objects the
/// scene s has not) and no bad move list (cd_broad.bad_moves: a coherent frame's list that names
/// no list of s's slots), else -1 with why the point is refused in why (the method, its plugin, the
/// first bad pair or what was wrong with the list; noun: what the scene's objects are, "cubes" or
/// "bodies").
int cd_kinds_bad_candidates(const struct cd_broad *b, const struct cd_scene *s, const char *noun, char *why,
                            size_t len);
/// NULL when w names a registered broad phase, else what was expected (a [method] method check).
const char *cd_kinds_check_method(const char *w);
/// The [method] plugin key every kind with broad phases or hierarchies has (CD_KINDS_PLUGIN_KEY in
/// its table, cd_kinds_load_plugins as its preload): the plugins load while the config is checked,
/// relative paths against the config's directory.
#define CD_KINDS_PLUGIN_KEY                                                                                         \
    {                                                                                                               \
        "method", "plugin", CD_KEY_WORDS, "", 0, 0, NULL, NULL, 0,                                                  \
            "plugin shared objects (a comma list; relative to the config file's directory) whose broad phases and " \
            "hierarchy variants [method] method and hierarchy may name (docs/extending.md#plugins)"                 \
    }
int cd_kinds_load_plugins(cd_config *c, const cd_config_key *k, char *err, size_t err_len);
/// The i-th registered broad phase and its parameters (cd_method_key.method_at).
const char *cd_kinds_broad_at(size_t i, const cd_param_spec **params, size_t *count);
/// The i-th registered hierarchy variant and its parameters (cd_method_key.method_at).
const char *cd_kinds_variant_at(size_t i, const cd_param_spec **params, size_t *count);
/// [method] method: a broad phase by registry name, whose parameters are [method] keys.
#define CD_KINDS_BROAD_KEY                    \
    {                                         \
        "method", "method", cd_kinds_broad_at \
    }
/// [method] hierarchy: a hierarchy variant by registry name, whose parameters are [method] keys.
#define CD_KINDS_HIERARCHY_KEY                     \
    {                                              \
        "method", "hierarchy", cd_kinds_variant_at \
    }
/// The preload fields of a cd_kind initializer with CD_KINDS_PLUGIN_KEY.
#define CD_KINDS_PLUGIN_PRELOAD .preload_section = "method", .preload_name = "plugin", .preload = cd_kinds_load_plugins
/// Number of cd_cubes_keys (a constant so other kinds' static cd_kind can use it).
#define CD_CUBES_KEY_COUNT 16
/// The cubes kind's [method] and [scene] keys, for kinds that measure cube scenes too.
extern const cd_key_spec cd_cubes_keys[CD_CUBES_KEY_COUNT];
/// Number of cd_cubes_frame_columns.
#define CD_CUBES_FRAME_COLUMN_COUNT 17
/// frames.csv columns of the cubes kind (after `point`); cd_cubes_measure writes rows of these.
extern const cd_column cd_cubes_frame_columns[CD_CUBES_FRAME_COLUMN_COUNT];

#endif
