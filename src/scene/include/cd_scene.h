// SPDX-License-Identifier: MIT
// cdlab cube scenes (the standard scene of docs/design/scene.md): N moving oriented cubes in a world cube with
// reflecting walls, seeded; one frame exportable to and importable from CSV.
//
// The state is float: a pose record per cube (centre, rotation, half-extents) and arrays of the
// motion; the motion step turns a chunk of records into arrays for loops the compiler vectorises.
// A cube takes 92 bytes with its box. The box a cube *is* (what the narrow test sees,
// cd_scene_obb) is the double box with centre c, axes R(q/|q|) (q normalised in double) and
// half-extents h, all read exactly from the floats; its world AABB is a float box that encloses
// it (computed in float with a margin that covers every rounding, about 2^-17 of the half-extents
// and 2^-20 of |c|, or in double and rounded outward when a rotation's norm is extreme), so a
// cull on it never drops a pair the exact test would accept.
#ifndef CD_SCENE_H
#define CD_SCENE_H

#include "cd_shape.h"

/// Where the objects are placed (docs/design/scene.md#scene-families).
typedef enum cd_scene_layout {
    CD_LAYOUT_UNIFORM,   ///< centres uniform in the world cube (the standard scene)
    CD_LAYOUT_CLUSTERS,  ///< Gaussian clusters whose centres drift
    CD_LAYOUT_GROUND,    ///< a thin layer over the ground plane z = 0, moving in the plane
    CD_LAYOUT_LEVEL,     ///< a few large static slabs (floors, walls) and small objects between them
} cd_scene_layout;

/// How edges are drawn in [size, size·size_ratio].
typedef enum cd_scene_size_dist {
    CD_SIZE_UNIFORM,     ///< uniform (the standard scene)
    CD_SIZE_LOGUNIFORM,  ///< log-uniform: as many of each order of magnitude
    CD_SIZE_PARETO,      ///< bounded Pareto of shape CD_SCENE_PARETO_SHAPE: heavy tail
} cd_scene_size_dist;

/// Names of cd_scene_layout and cd_scene_size_dist values in enum order, NULL-terminated (the
/// config words).
extern const char *const cd_scene_layout_names[];
extern const char *const cd_scene_size_dist_names[];
/// Index of name in names (one of the two lists above), or -1.
int cd_scene_name_index(const char *const *names, const char *name);
/// Shape α of the bounded Pareto edge distribution: P(edge > x) ∝ x^-α.
#define CD_SCENE_PARETO_SHAPE 1.5
/// Slabs of the level layout: three floors and two walls per storey (fewer when N is smaller).
#define CD_SCENE_LEVEL_SLABS 9

/// Parameters of the standard cube scene; cd_scene_params_default() gives the standard values.
/// Zero in every field added after reorder gives the standard scene (uniform, everything moving).
typedef struct cd_scene_params {
    uint32_t cubes;                ///< number of cubes N
    double size;                   ///< cube edge (smallest edge when size_ratio > 1)
    double size_ratio;             ///< edges uniform in [size, size·size_ratio]; 1 = all equal
    double density;                ///< volume fraction: world side L = cbrt(N·mean edge³ / density)
    double speed;                  ///< velocity components uniform in [−speed, speed] per frame
    double spin;                   ///< angular-velocity components uniform in [−spin, spin] rad per frame
    uint64_t seed;                 ///< seed of every random draw of the scene
    uint32_t reorder;              ///< frames between spatial reorders of the storage (0 = never; see cd_scene)
    cd_scene_layout layout;        ///< placement family
    cd_scene_size_dist size_dist;  ///< edge distribution
    uint32_t clusters;             ///< clusters of the clusters layout (0: 8)
    double cluster_sigma;          ///< their standard deviation as a fraction of the world side (0: 0.1)
    double still;                  ///< fraction of the objects that never move (1 − [scene] moving)
    double sleep;                  ///< mean frames a moving object moves, then rests (0: never rests)
} cd_scene_params;

/// A cube scene. pose holds each cube's state; vx..tz hold count floats each; box holds count
/// records and one more. Write poses and motion through cd_scene_set_pose / cd_scene_set_motion,
/// then call cd_scene_refresh.
///
/// Slots and cubes: every array is indexed by slot, and slot i holds cube ident[i]. With reorder
/// > 0 the step sorts the slots along a Morton curve of the centres every reorder frames (from its
/// first call on, and at frame 1: cd_scene_reorder_due), so cubes near in space are near in memory: the broad and narrow steps then read
/// a few pages instead of one line per cube, and the threads of a parallel frame each work on
/// their own part of memory. Methods see slots; cd_broad_frame reports pairs of cubes (ident).
typedef struct cd_scene {
    uint32_t count;            ///< number of cubes
    double world;              ///< world side L: walls at 0 and L on every axis
    cd_posef *pose;            ///< centre, orientation (unit up to float rounding; see the file
                               ///< comment) and half-extents per cube: motion, narrow-step input
    float *vx, *vy, *vz;       ///< velocity per frame
    float *tw, *tx, *ty, *tz;  ///< rotation over one frame: omega is constant, so its sin/cos are
                               ///< computed once, not per frame
    cd_aabbf *box;             ///< outward-rounded world AABB per cube (broad-phase input), then one
                               ///< zero record, so a 32-byte load of any cube's box stays in bounds
    uint64_t frame;            ///< frames stepped since creation
    uint32_t *ident;           ///< cube held by each slot (the identity until the first reorder)
    uint32_t *slot_of_prev;    ///< after a reorder: the new slot of each old slot (NULL before)
    uint64_t layout;           ///< reorders so far: a method that keeps slots between frames
                               ///< compares it and follows slot_of_prev (one reorder) or rebuilds
    uint32_t reorder;          ///< frames between reorders (0 = never)
    /// Per slot, CD_SCENE_MOVES | CD_SCENE_AWAKE bits, or NULL when every cube moves every frame.
    /// A cube without CD_SCENE_AWAKE keeps its pose and box bit for bit through a step.
    uint8_t *state;
    uint64_t *toggle_at;  ///< per slot: frame at which a moving cube falls asleep or wakes (sleep > 0)
    /// With a state, the motion step walks lists, not every slot: mover_slot holds the slots with
    /// CD_SCENE_MOVES (movers of them) in slot order, mover_motion their velocities and turns in
    /// that order (eight floats a mover: vx vy vz tw tx ty tz and one unused; the per-slot arrays
    /// stay current), awake_mover the indices into mover_slot of those with CD_SCENE_AWAKE as well
    /// (awake of them), ascending. The step rebuilds the first two when movers_stale (set by
    /// cd_scene_set_still, cd_scene_set_motion and cd_scene_reorder) and the third when a cube fell
    /// asleep or woke or when another call published since (awake_for: the publication it was
    /// built for). Whoever changes state, vx..tz other than through those calls sets movers_stale.
    uint32_t *mover_slot, *awake_mover;
    float *mover_motion;
    uint32_t movers, awake;
    uint64_t awake_for;
    /// The motion step moves records in and out of its columns through the AVX2 transposes
    /// (cd_cpu_avx2() when the scene was made: CDLAB_NO_AVX2 selects the plain loops, same bits).
    int avx2;
    /// Its column loops (move, turn, bounds) are built for AVX-512, AVX2 and baseline x86-64: the
    /// AVX-512 build where cd_cpu_avx512() said so when the scene was made (CDLAB_NO_AVX512 off),
    /// else the AVX2 build where avx2, else the baseline one; all three give the same bits.
    int avx512;
    int movers_stale;
    double sleep;         ///< mean frames of a wake or rest period; 0: moving cubes never rest
    uint64_t sleep_seed;  ///< seed of the wake and rest periods
    uint32_t moved;       ///< cubes listed as moved by the last step or cd_scene_refresh
    /// The move list (see "What moved" below): the slots whose pose or box changed in the last
    /// step or refresh (a step lists every cube it stepped), moved of them, in slot order.
    uint32_t *moved_slot;
    uint8_t *moved_flag;  ///< per slot (and CD_SCENE_FLAG_PAD bytes more, zero): 1 when listed
    uint64_t moves;       ///< publications of a move list so far (steps and refreshes)
    int moves_known;      ///< 0 when the last publication was cd_scene_step_range's: no list
    /// Per slot: 1 when its pose was written by hand (cd_scene_set_pose, a trace frame; see
    /// cd_scene_note_pose) since the last publication; the next refresh lists it. poses_noted
    /// counts them.
    uint8_t *pose_noted;
    uint32_t poses_noted;
} cd_scene;

/// Zero bytes after the last slot's moved_flag, so a vector load of a few flags stays in bounds.
#define CD_SCENE_FLAG_PAD 16u

/// cd_scene.state bits: the cube moves at all; it moves this frame.
enum { CD_SCENE_MOVES = 1, CD_SCENE_AWAKE = 2 };

/// Frames between reorders that the harness and bench_frame use unless told otherwise.
#define CD_SCENE_REORDER_DEFAULT 64

/// The standard scene: size 1, ratio 1, density 0.05, speed 0.05, spin 0.01, seed 42, 1000 cubes.
cd_scene_params cd_scene_params_default(void);
/// World side L for params p (at least the largest cube's diagonal).
double cd_scene_world_side(const cd_scene_params *p);
/// Build the seeded scene for p. Fresh scene; free with cd_scene_destroy.
cd_scene *cd_scene_create(const cd_scene_params *p);
/// An empty scene of n cubes (centres and half-extents zero, identity rotations, no motion) in a
/// world of side world, for callers that fill it themselves; call cd_scene_refresh afterwards.
cd_scene *cd_scene_create_empty(uint32_t n, double world);
/// Set cube i's centre (each coordinate of magnitude at most 1e30), rotation (finite, non-zero;
/// need not be unit: one far from unit is first scaled by a power of two) and half-extents (0 to
/// 1e30), each rounded to the nearest float; other values are a caller's error (an assertion). Call cd_scene_refresh before using the boxes.
void cd_scene_set_pose(cd_scene *s, uint32_t i, cd_vec3 c, cd_quat q, cd_vec3 half);
/// Set cube i's velocity per frame and angular velocity (rotation vector, rad per frame).
void cd_scene_set_motion(cd_scene *s, uint32_t i, cd_vec3 vel, cd_vec3 omega);
/// Recompute every cube's box from its pose (moved: the cubes whose box changed or whose pose was
/// noted, see "What moved"). Call after cd_scene_set_pose.
void cd_scene_refresh(cd_scene *s);
/// Recompute the boxes of the noted poses only (moved: those cubes). The same boxes and move list
/// as cd_scene_refresh where every pose written since the last refresh was noted and every
/// rotation's squared norm lies in [2^-60, 2^60] (a chunk of cubes with one outside takes the
/// double path, so a box can depend on its chunk-mates). The trace replay's refresh: it notes each
/// pose that differs from the frame before.
void cd_scene_refresh_noted(cd_scene *s);
/// One motion step: move, reflect at walls, rotate (quaternion renormalised), refresh boxes.
void cd_scene_step(cd_scene *s);
/// cd_scene_step on `threads` threads (OpenMP); the result is bit-identical for any count.
void cd_scene_step_threads(cd_scene *s, int threads);
/// The same step on cubes [first, end) only, for callers that split the scene between threads;
/// stepping every range once is identical to cd_scene_step except that frame is not advanced, no
/// reorder falls due (the caller calls cd_scene_reorder when it wants one), moved counts the range
/// and no move list is published (cd_scene_moves_since answers 0 after it).
void cd_scene_step_range(cd_scene *s, uint32_t first, uint32_t end);
/// A step at this frame reorders first (cd_scene_reorder): s->reorder > 0 and the frame is a
/// multiple of it (0 included) or 1. The one at frame 1 is the first after a step, the first whose
/// move list says which cubes move (the sort puts them first).
static inline int cd_scene_reorder_due(const cd_scene *s)
{
    return s->reorder && (s->frame % s->reorder == 0 || s->frame == 1);
}
/// Sort the slots along a Morton curve of the centres now (cd_scene_step calls it when
/// cd_scene_reorder_due says so), the cubes of the last move list first (when the scene knows it),
/// each part in Morton order: every per-cube array is permuted alike, ident and slot_of_prev follow, layout
/// grows by one. Motion is per cube, so the cubes' trajectories do not change. The arrays are
/// gathered into new blocks: a pointer into pose, box, vx..tz or ident does not survive a reorder
/// (nor, with reorder > 0, a step); read them from s each frame.
void cd_scene_reorder(cd_scene *s);
/// After a reorder, a method's list of slot numbers names the same cubes under their new slots:
/// each entry x becomes slot_of_prev[x & mask] | (x & ~mask) (mask UINT32_MAX for plain slots;
/// a narrower mask keeps flag bits above the slot number).
void cd_scene_renumber_slots(const cd_scene *s, uint32_t *slots, size_t count, uint32_t mask);
/// After a reorder, a value kept per slot moves with its cube: by_new[slot_of_prev[i]] =
/// by_old[i] for every slot i (the two arrays must not overlap).
void cd_scene_move_slot_values(const cd_scene *s, const uint32_t *by_old, uint32_t *by_new);
/// Free s (NULL allowed).
void cd_scene_destroy(cd_scene *s);

/// What moved. Every cd_scene_step, cd_scene_step_threads and cd_scene_refresh (so every trace
/// frame, which is a refresh) publishes the move list: every slot whose pose or box changed since
/// the publication before, computed once where the poses and boxes are written. A step lists every
/// cube it stepped (the awake ones; a cube it does not step keeps its pose and box bit for bit); a
/// refresh lists the cubes whose box changed, bit for bit, and those whose pose was noted
/// (cd_scene_note_pose). Poses count, not only boxes: a consumer that keeps the narrow step's answer
/// for a pair of unlisted cubes (the frame's kept pairs, cd_broad.h) needs both poses unchanged,
/// and a pose can change under an identical float box (a tiny rotation, a move within the box's
/// rounding). A consumer that only reads boxes sees a superset, which costs it nothing in
/// exactness. moves counts the publications. A reorder renumbers the list with the slots (the set stays, in the new slot
/// order). A consumer that keeps state between frames (a coherent broad phase, a peer told what
/// moved) keeps the value of moves it last saw and asks cd_scene_moves_since. Whoever changes a
/// box other than through a step or refresh calls cd_scene_mark_moved on its slot.
typedef struct cd_scene_moves {
    const uint32_t *slot;  ///< the slots that moved, count of them (NULL when count is 0)
    uint32_t count;
    const uint8_t *flag;  ///< per slot 1 when listed, else 0 (NULL when count is 0)
} cd_scene_moves;

/// The value of *seen before a consumer's first look: nothing seen, everything counts as moved.
#define CD_SCENE_MOVES_UNSEEN UINT64_MAX

/// The slots whose box changed since a consumer last looked, when *seen holds the publication it
/// saw then (CD_SCENE_MOVES_UNSEEN: none). Returns 1 with m filled when the scene knows: no
/// publication since (m empty: the boxes are as the consumer saw them), or exactly one with a
/// list. Returns 0 when it does not — a first look, two or more publications since (frames the
/// consumer missed), or one by cd_scene_step_range: the consumer takes every slot as moved. Either
/// way *seen becomes s->moves.
int cd_scene_moves_since(const cd_scene *s, uint64_t *seen, cd_scene_moves *m);
/// The boxes of slots[0, count) (any order, repeats allowed) were changed by hand since the last
/// publication (a test that snaps boxes to planes): they join the move list, which stays in slot
/// order (O(count), plus O(N) when one is new).
void cd_scene_mark_moved(cd_scene *s, const uint32_t *slots, uint32_t count);
/// Slot i's pose was written other than through cd_scene_set_pose (which calls this when the pose
/// changes): the next cd_scene_refresh lists it as moved whether or not its box changed, and a
/// step before that refresh refreshes first.
static inline void cd_scene_note_pose(cd_scene *s, uint32_t i)
{
    s->poses_noted += !s->pose_noted[i];
    s->pose_noted[i] = 1;
}
/// Make cube i never move (its motion is cleared; the scene then keeps a state array).
void cd_scene_set_still(cd_scene *s, uint32_t i);
/// Cubes that move at all (not still).
uint32_t cd_scene_moving_count(const cd_scene *s);
/// Bytes per cube of the arrays every scene holds once it has reordered (a scene with a state
/// holds more: cd_scene_bytes).
size_t cd_scene_bytes_per_cube(void);
/// Bytes scene s holds in its arrays now: cd_scene_bytes_per_cube's and, where allocated, the state
/// and the movers' lists and motion (their capacity: one entry per slot).
size_t cd_scene_bytes(const cd_scene *s);

/// Cube held by slot i.
static inline uint32_t cd_scene_ident(const cd_scene *s, uint32_t i) { return s->ident[i]; }
/// The inverse of cd_scene_ident, newly allocated (free with cd_free): element c is the slot that
/// holds cube c.
uint32_t *cd_scene_slots(const cd_scene *s);
/// Centre of cube i.
static inline cd_vec3 cd_scene_center(const cd_scene *s, uint32_t i)
{
    return cd_v3(s->pose[i].c[0], s->pose[i].c[1], s->pose[i].c[2]);
}
/// Half-extents of cube i.
static inline cd_vec3 cd_scene_half(const cd_scene *s, uint32_t i)
{
    return cd_v3(s->pose[i].h[0], s->pose[i].h[1], s->pose[i].h[2]);
}
/// Rotation of cube i as stored (not normalised).
static inline cd_quat cd_scene_rot(const cd_scene *s, uint32_t i)
{
    const float *q = s->pose[i].q;
    return (cd_quat){q[0], q[1], q[2], q[3]};
}
/// Velocity of cube i per frame.
static inline cd_vec3 cd_scene_velocity(const cd_scene *s, uint32_t i) { return cd_v3(s->vx[i], s->vy[i], s->vz[i]); }

/// Cube i as the narrow test sees it, built from its pose record.
static inline cd_obb cd_scene_obb(const cd_scene *s, uint32_t i) { return cd_posef_obb(&s->pose[i]); }

/// Cube i's outward-rounded AABB in double (exact copy of its float box).
static inline cd_aabb cd_scene_aabb(const cd_scene *s, uint32_t i)
{
    const cd_aabbf *b = &s->box[i];
    return (cd_aabb){cd_v3(b->lo[0], b->lo[1], b->lo[2]), cd_v3(b->hi[0], b->hi[1], b->hi[2])};
}

/// Write the current frame as CSV (id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz) with a header; the world
/// side goes in a first comment line "# world=L". Returns 0, or -1 with a message in err.
int cd_scene_export_csv(const cd_scene *s, const char *path, char *err, size_t err_len);
/// Read a frame written by cd_scene_export_csv (velocities are zero; values are rounded to the
/// nearest float, so a file cdlab wrote reads back bit for bit). Returns the scene, or NULL with
/// "file:line: what was expected" in err.
cd_scene *cd_scene_import_csv(const char *path, char *err, size_t err_len);
/// Check a world side against the objects' extent (the largest |coordinate| of a box corner):
/// finite, > 0 and within a factor 2^24 of the extent (any when the extent is 0). Positions are
/// kept in float, whose 24-bit significand resolves a length only to 2^-24 of the world side:
/// beyond that factor the grids and octrees, whose cells divide the world box, would hold every
/// object in one cell (a world far too large) or every object beyond the walls (far too small),
/// and an infinite or NaN side would make their cell counts infinite or undefined. A world read
/// from outside (a scene file, a trace) goes through this. 0, or -1 with the reason in why.
int cd_scene_check_world(double world, double extent, char *why, size_t len);

#endif
