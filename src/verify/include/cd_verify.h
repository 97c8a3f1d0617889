// SPDX-License-Identifier: MIT
// The differential exactness check, as a library: every broad phase against naive on seeded
// scenes built to break broad phases, every hierarchy variant against brute force on small mesh
// pairs. tests/test_broad_differential.c and `cdlab verify` both run it, so what a user runs on
// their own method is exactly what cdlab's test runs on cdlab's.
//
// Broad-phase scenes (cd_verify_broad): N from 0 to 3 000 (mostly small; 0..7 explicitly),
// density 0.005..0.5 and touching unit-cube lattices, every scene family (layouts uniform,
// clusters, ground and level with its large still slabs; uniform, log-uniform and Pareto edges;
// none to all cubes still; sleep periods of 0.5..4 frames in half the scenes), edge ratios up to
// 10 within a scene, cubes
// moved onto octree split planes, onto and beyond the walls, depth 0..8, looseness 1/1.5/2/4,
// both update modes, 1..4 motion frames; in a quarter of the scenes box faces are grown onto split
// planes (exact ties of closed boxes). Per scene-frame and method: the sorted pair list of
// cd_broad_frame must equal naive's, and a second instance driven through a recording sink must
// report every AABB-overlapping pair exactly once (no duplicates, no self pairs, no candidate that
// a boxes_tested method did not test), through candidates() and, for a method that has it, through
// candidates_part() over the CD_BROAD_PARTS parts every frame of such a method runs (serial too);
// a coherent frame's move list (update_coherent) must name slots of the scene. A third of the scenes reorder their slots at every step
// (cd_scene_reorder), half of those once more between two steps: the framed instance follows
// through the method's remap (or a rebuild after two), the recorded one sees only permuted slots.
// cdlab's peers (description "peer:") see every 4th scene: they wrap other libraries and cost far
// more; its untested method (all: every pair to the narrow step, O(n²) per frame) sees every 8th.
// A plugin's methods see every scene, whatever their description or untested field say. On every
// 8th scene (index 2 mod 8) and every trace frame a third instance of each method but cdlab's
// peers runs on two worker threads and must give naive's pairs too (and a fourth, for a method with
// candidates_part, records its parts after an update on two workers). cd_verify_broad_traces adds
// replayed traces: a recorded family scene, a Broadmark .aabbs file and short simulations.
#ifndef CD_VERIFY_H
#define CD_VERIFY_H

#include "cd_broad.h"
#include "cd_bvh.h"

/// The SIMD path a tally's method is created on: this CPU's widest, or the narrower one that the
/// environment switch CDLAB_NO_AVX512 (the AVX2 path) or CDLAB_NO_AVX2 (SSE2) selects. A method
/// and the narrow step pick their path at creation (grid_multi's row map, the batched SAT), so one
/// process checks every path on the same scenes against one naive reference.
typedef enum cd_verify_path { CD_VERIFY_NATIVE, CD_VERIFY_NO_AVX512, CD_VERIFY_NO_AVX2 } cd_verify_path;

/// What one broad-phase method did over a verification.
typedef struct cd_verify_tally {
    const cd_broad_method *method;
    cd_verify_path path;  ///< CD_VERIFY_NATIVE unless set by cd_verify_tally_set_path
    uint32_t stride;      ///< checked on scenes index % stride == 0 (4 cdlab's peers, 8 all, else 1;
                          ///< times 4 on a narrower path of a method that chooses no SIMD path)
    uint64_t scenes, frames, pairs_compared;
    uint64_t missed, extra;   ///< pairs of naive missing from the frame's list; pairs beyond them
    uint64_t dup_candidates;  ///< candidates reported twice in one frame
    uint64_t bad_candidates;  ///< self pairs, slots out of range, untested boxes of a boxes_tested method
    uint64_t aabb_missing;    ///< AABB-overlapping pairs never reported as candidates
    uint64_t bad_moves;       ///< coherent frames whose move list named no list of the scene's slots
    int64_t first_bad;        ///< first failing scene, -1 none
    int first_bad_frame;      ///< its frame
    /// The reproducer's scene: a failing frame that fails again alone (the frame's poses, in cube
    /// order, as a fresh scene, what its scene CSV reads back as, under a fresh instance), the
    /// first of those that lose or add pairs alone (repro_loses = 1: `cdlab run` shows the two
    /// pair counts differ), else the first of those that break only the candidate contract (a
    /// duplicate, or a box pair never a candidate whose cubes the narrow step rejects anyway:
    /// the pair set is naive's). -1 none (the failures needed the frames before, the slot order
    /// or boxes grown onto split planes).
    int64_t repro;
    int repro_frame;
    int repro_loses;
    uint64_t traces;      ///< replayed traces checked (cd_verify_broad_trace), besides the scenes
    char trace_bad[512];  ///< the first failing trace frame, "path, frame F"; "" none
} cd_verify_tally;

/// 1 when t found nothing wrong.
int cd_verify_tally_ok(const cd_verify_tally *t);

/// Options of a broad-phase verification.
typedef struct cd_verify_options {
    uint32_t scenes;  ///< scenes 0 .. scenes-1
    uint64_t seed;    ///< 0: the scenes of tests/test_broad_differential.c
    uint32_t first;   ///< the first scene checked (0 by default): scenes first .. scenes-1
    int threads;      ///< scenes checked at once (OpenMP; 1 when a tally has another path: the paths
                      ///< are switched through the environment); the tallies do not depend on it
    /// Optional: called on the calling thread now and then with the scenes done so far.
    void (*progress)(uint32_t done, uint32_t total, void *ctx);
    /// Optional: called by worker `worker` (0 .. threads-1) with the scene it starts, and with -1
    /// when it is done with it (what a process that checks in a child names when the child dies).
    void (*scene_mark)(int worker, int64_t scene, void *ctx);
    void *ctx;
} cd_verify_options;

/// Totals over every method of a verification.
typedef struct cd_verify_totals {
    uint32_t scenes;  ///< scenes checked
    uint64_t frames;  ///< scene-frames
    uint64_t max_n;   ///< most cubes in a scene
} cd_verify_totals;

/// Set t[0..count) up for methods m[0..count): every scene, but every 4th for cdlab's peers and
/// every 8th for its untested method (all); a plugin's method (cd_broad_candidates_checked) sees
/// every scene whatever its description or untested field say.
void cd_verify_tallies_init(cd_verify_tally *t, const cd_broad_method *const *m, size_t count);
/// Put tally t (from cd_verify_tallies_init) on SIMD path p. On a narrower path, a method whose
/// creation chooses no SIMD path (asks neither cd_cpu_avx2 nor cd_cpu_avx512) differs from its
/// native path only in the narrow step, which has checks of its own: it sees every 4th of its
/// scenes there. Grid_multi and lbvh, which choose one, see every scene on every path.
void cd_verify_tally_set_path(cd_verify_tally *t, cd_verify_path p);
/// Check methods t[0..count) (from cd_verify_tallies_init) against naive on o's scenes.
void cd_verify_broad(cd_verify_tally *t, size_t count, const cd_verify_options *o, cd_verify_totals *totals);
/// Check methods t[0..count) against naive on every frame of the trace at path (cdlab's format or
/// Broadmark's .aabbs, replayed as [scene] trace does): serial, through the recording sink, and on
/// several workers (cdlab's own methods), each on its tally's path. 0, or -1 with why in err (the
/// trace cannot be read).
int cd_verify_broad_trace(cd_verify_tally *t, size_t count, const char *path, cd_verify_totals *totals, char *err,
                          size_t err_len);
/// Write into dir and check with cd_verify_broad_trace: a trace recorded from a family scene (700
/// Pareto-sized cubes in clusters, half still, sleep 2; 6 frames), a Broadmark .aabbs file of a
/// ground layer (600 log-uniform cubes, 5 frames; boxes without rotation), and in a build with
/// Bullet every simulation (300 boxes, 6 frames of 4 steps, cached in dir). The traces checked, or
/// -1 with why in err.
int cd_verify_broad_traces(cd_verify_tally *t, size_t count, const char *dir, cd_verify_totals *totals, char *err,
                           size_t err_len);
/// Scene index of seed as the check saw it at frame (0 = before any step): the frame's poses in
/// cube order as a fresh scene (what cd_scene_export_csv then cd_scene_import_csv give), and the
/// broad-phase settings of that scene in *p (each method takes those it declares). cd_scene_destroy it.
cd_scene *cd_verify_broad_scene(uint64_t seed, uint32_t index, int frame, cd_param_settings *p);
/// Method m's parameters as the check runs it: m's defaults with the settings of set it declares,
/// or its defaults alone when one is out of its range (a plugin may declare a parameter named like
/// a scene's setting, such as depth, with a narrower range).
cd_params cd_verify_broad_params(const cd_broad_method *m, const cd_param_settings *set);
/// A broad phase of method m as the check runs it on scene s: cd_verify_broad_params, serial.
cd_broad *cd_verify_broad_create(const cd_broad_method *m, const cd_param_settings *set, const cd_scene *s);

/// A mesh pair of the hierarchy check: two procedural meshes (cd_mesh_procedural names).
typedef struct cd_verify_mesh_pair {
    const char *a, *b;
    double distance;  ///< centre distance of the posed B
} cd_verify_mesh_pair;

/// What one hierarchy variant did: poses checked in all-pairs and first-hit mode at leaf sizes
/// 1 and 4 and at each parameter setting of cd_bvh_variant_probes (the defaults, and each
/// parameter at the ends of its range), triangle pairs compared with brute force.
typedef struct cd_verify_bvh_tally {
    const cd_bvh_variant *variant;
    uint64_t queries, pairs_compared, missed, extra, first_hit_wrong;
    uint32_t settings;                   ///< parameter settings checked
    int64_t first_bad;                   ///< first failing pose index, -1 none
    int first_bad_pair;                  ///< its mesh pair (index into cd_verify_mesh_pairs)
    int first_bad_leaf;                  ///< its leaf size
    cd_param_settings first_bad_params;  ///< its parameter setting (none: the defaults)
} cd_verify_bvh_tally;

/// The mesh pairs of the hierarchy check; *count receives their number.
const cd_verify_mesh_pair *cd_verify_mesh_pairs(size_t *count);
/// Check variants t[k].variant, k < count, against brute force on `poses` seeded poses of each mesh
/// pair (cd_poses_generate(seed + pair, distance, poses)).
void cd_verify_bvh(cd_verify_bvh_tally *t, size_t count, uint32_t poses, uint64_t seed, int threads);

#endif
