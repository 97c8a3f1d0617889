// SPDX-License-Identifier: MIT
// cdlab broad phases: every method fills one interface (cd_broad_method) and is one line in the
// built-in list (methods.c). A frame is update → candidate pairs → exact narrow test; the narrow
// step is shared here so that every method is judged by the same predicate.
//
// Exactness contract for a method's candidates(): every pair (i, j) whose scene AABBs overlap
// (closed boxes) is reported exactly once, in either order. The narrow step then keeps the pairs
// for which cd_cube_pair_overlap() holds, so every method reports the same pair set as naive.
//
// What moved. A method that keeps state between frames learns which boxes changed from the scene's
// move list (cd_scene.h, cd_scene_moves_since): computed once per frame where the motion step or a
// trace frame writes the boxes, in slot order, renumbered by a reorder. The method keeps the
// publication it last saw; when the scene does not know (its first update, frames it missed, a
// ranged step) it takes every object as moved. An instance follows the one scene it was created
// for; the frame (and cd_broad_update) runs remap before update, so the list's slots are the
// method's. docs/design/broad-phases.md#what-moved has the cases.
//
// Kept pairs. A method may report, on a frame it calls coherent (cd_broad_method.coherent), only
// the candidates with at least one object on the move list; the frame then keeps last frame's
// pairs of two unlisted objects and appends the narrow step's answer on the candidates. Exact: the
// move list names every cube whose pose or box changed (cd_scene.h), so an unlisted pair's boxes
// and poses are last frame's and so is the narrow step's answer on it; the pairs with a listed
// cube are judged afresh, each once. The frame keeps pairs only from the frame just before (no
// cd_broad_update, cd_broad_set_narrow or fresh state in between) and only for the cube scene's
// narrow step (a caller's step may read more than the poses, such as a deforming body's mesh).
#ifndef CD_BROAD_H
#define CD_BROAD_H

#include "cd_narrow.h"
#include "cd_scene.h"

/// Deepest tree level the per-level statistics distinguish; deeper levels are counted in the last.
#define CD_BROAD_MAX_LEVELS 16

/// An unordered object pair, stored with a < b once it leaves the narrow step.
typedef struct cd_pair {
    uint32_t a, b;
} cd_pair;

/// Growable list of pairs.
typedef struct cd_pair_list {
    cd_pair *items;
    size_t count, capacity;
} cd_pair_list;

/// How a method follows motion from frame to frame.
typedef enum cd_update_mode {
    CD_UPDATE_REBUILD = 0,      ///< rebuild the structure every frame
    CD_UPDATE_INCREMENTAL = 1,  ///< move only the objects that left their cell
} cd_update_mode;

/// The [method] update parameter's words, in cd_update_mode order, for methods that declare it.
extern const char *const cd_broad_update_words[];
/// The cd_update_mode of a method's declared `update` parameter.
cd_update_mode cd_broad_update_mode(const cd_params *p);

/// Software counters of one frame plus the structure's shape. Deterministic for a given scene.
typedef struct cd_broad_stats {
    uint64_t bv_tests;                        ///< bounding-volume tests made by the broad phase
    uint64_t candidates;                      ///< candidate pairs handed to the narrow step
    uint64_t narrow_tests;                    ///< exact tests run ("checks")
    uint64_t pairs;                           ///< overlapping pairs found
    uint64_t nodes;                           ///< nodes (or cells) allocated
    uint64_t bytes;                           ///< bytes held by the structure
    uint64_t max_per_node;                    ///< most objects stored in one node
    uint64_t depth_reached;                   ///< deepest level holding an object
    uint64_t per_level[CD_BROAD_MAX_LEVELS];  ///< objects stored per level
} cd_broad_stats;

/// Candidate pairs flow through a fixed buffer; when it fills, flush() consumes it (the narrow
/// step), so no method ever materialises O(n²) pairs.
typedef struct cd_pair_sink cd_pair_sink;
struct cd_pair_sink {
    cd_pair *buf;
    uint32_t count, capacity;
    void (*flush)(cd_pair_sink *sink);
    void *ctx;
};

/// Append candidate (a, b) to the sink, flushing it first when full.
static inline void cd_sink_push(cd_pair_sink *s, uint32_t a, uint32_t b)
{
    if (s->count == s->capacity) s->flush(s);
    s->buf[s->count].a = a;
    s->buf[s->count].b = b;
    s->count++;
}

/// Receives one cell of a method's structure (cd_broad_method.cells): its box in world
/// coordinates and its level (0 = the root, or the only level of a flat structure).
typedef void (*cd_broad_cell_fn)(void *ctx, const cd_aabb *box, int level);

/// One broad-phase method. self is the method's own state.
typedef struct cd_broad_method {
    const char *name;         ///< config/CSV name, e.g. "naive"
    const char *description;  ///< one line for `cdlab methods` and --help
    /// The method's own parameters (cd_core.h), and how many: `[method] <name>` in a config, a key
    /// column in the CSVs, listed by `cdlab methods`. The plan crosses the method only with these;
    /// a method without parameters has none (NULL, 0).
    const cd_param_spec *params;
    size_t param_count;
    /// Create for the scene (which may still change before update()). p holds a value for every
    /// entry of params (its table); threads: the frame's worker threads (1 = serial), for methods
    /// whose update can use them.
    void *(*create)(const cd_params *p, int threads, const cd_scene *s);
    /// Follow the scene after a motion step (the first call builds).
    void (*update)(void *self, const cd_scene *s);
    /// Report candidates (see the exactness contract above); add BV tests to st->bv_tests.
    void (*candidates)(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st);
    /// Optional (NULL = serial only): report the candidates of part `part` of `parts`. The parts
    /// together report exactly what candidates() reports, each pair in one part; after update()
    /// several threads may call this at once for different parts. A method that has it runs the
    /// frame in CD_BROAD_PARTS parts for any thread count, so its pairs come out in the same
    /// order whatever [method] threads is.
    void (*candidates_part)(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                            cd_broad_stats *st);
    /// 1 when update() on nt threads left part k's data in the caches of thread ⌊k·nt/parts⌋:
    /// the frame then deals the parts to the threads in those runs (cd_part_queue), instead of
    /// handing them out in any order (reading rows another core just wrote costs a transfer per
    /// cache line); a thread that is done takes the tails of the others.
    int parts_by_thread;
    /// 1 when every candidate's scene boxes overlap (the method tested them on the scene's float
    /// boxes, or exact copies): the narrow step then skips its own box gate, which would only
    /// repeat that test. The differential check (src/verify/: tests/test_broad_differential.c and
    /// `cdlab verify`) checks the claim on every candidate.
    int boxes_tested;
    /// 1 when the candidates are meant to reach a caller's narrow step (cd_broad_set_narrow)
    /// without any box test: the frame skips its box gate, and the kind that owns the step turns
    /// the step's own box test off (cd_bodies_narrow_attach). `all` is one: every pair of bodies
    /// goes to the hierarchies, the protocol of the hybrid hierarchy's paper. The cube scene's
    /// narrow step keeps its box test, the first half of its predicate, so the pairs stay naive's.
    int untested;
    /// Optional: the scene's slots were permuted once since the last update (cd_scene_reorder;
    /// s->slot_of_prev maps each old slot to its new one). Renumber what the method keeps by slot,
    /// so the next update finds each cube where it was. NULL: the method keeps no slot numbers
    /// between frames, or its update copes with any motion anyway (a permutation looks like every
    /// cube jumping); the differential check (src/verify/) runs every method on reordering scenes.
    void (*remap)(void *self, const cd_scene *s);
    /// Optional (NULL: never coherent): update() for a frame that keeps last frame's pairs (see
    /// "Kept pairs" above; the frame calls it instead of update() when it holds them). Follows the
    /// scene as update() does and returns 1 when this frame's candidates (and parts) are only the
    /// pairs with at least one object in *moved, each such pair whose boxes overlap exactly once,
    /// with *moved the scene's move list since the method's previous update (cd_scene_moves_since;
    /// count 0: nothing moved). Returns 0 when they are all, as in the contract above (moves
    /// unknown, too many moved to gain, a structure to build first).
    int (*update_coherent)(void *self, const cd_scene *s, cd_scene_moves *moved);
    /// Fill the structure fields of st (nodes, bytes, per_level, ...); may be NULL.
    void (*shape_stats)(void *self, cd_broad_stats *st);
    /// Optional, for pictures (`cdlab snapshot`): pass each cell of the structure as the last
    /// update() left it to each(ctx, box, level) once — octree nodes whose subtree holds an object
    /// (the loose octree's loose bounds), grid rows that hold a box (the row's (y, z) cell over the
    /// x range of its boxes). Sides open to infinity are cut at the cell. NULL: nothing to show.
    void (*cells)(void *self, const cd_scene *s, cd_broad_cell_fn each, void *ctx);
    /// Free self.
    void (*destroy)(void *self);
} cd_broad_method;

/// Parts of a parallel frame: fixed, so the pair order never depends on the thread count; many
/// more than threads, so dynamic scheduling evens out crowded regions.
#define CD_BROAD_PARTS 64u

/// A checked method's candidates of one frame that named no pair of two objects of the scene (an
/// id at or past its count, or a == b): dropped before the narrow step, which would read the scene
/// at those ids (see cd_broad_check_candidates).
typedef struct cd_broad_bad {
    uint64_t count;  ///< how many (0: none)
    cd_pair first;   ///< the first one, as the method reported it
} cd_broad_bad;

/// A checked method's move list of one coherent frame (cd_broad_method.update_coherent returned 1)
/// that names no list of the scene's slots: never filled, longer than the scene has slots, or with a
/// slot at or past its count. The frame keeps none of last frame's pairs then: the filter would read
/// the scene and its own flags at those slots (see cd_broad_check_candidates).
typedef struct cd_broad_bad_moves {
    int bad;         ///< 1 when the last frame's move list was one
    uint32_t count;  ///< its count as the method left it (CD_BROAD_MOVES_UNFILLED: never filled)
    uint32_t slot;   ///< the first slot at or past the scene's count, when count is within it
} cd_broad_bad_moves;

/// The count a frame's move list holds until update_coherent fills it: more than any scene's slots.
#define CD_BROAD_MOVES_UNFILLED UINT32_MAX

/// One part's output in a parallel frame (kept between frames: no per-frame malloc).
typedef struct cd_broad_part {
    cd_pair_list pairs;
    cd_broad_stats st;
    uint64_t narrow_ns;
    cd_broad_bad bad;  ///< the part's dropped candidates (checked methods only)
} cd_broad_part;

/// A narrow step other than the cube scene's (cd_broad_set_narrow): test candidates cand[0, n)
/// (slots of s, whose boxes overlap unless the method is untested) and append each accepted one to out as a pair of objects
/// (cd_scene_ident numbers, a < b); add the tests run to st->narrow_tests. part names the caller:
/// 0 in a serial frame, 1 + k for part k of a parallel one. Parts run on several threads at once,
/// each part on one thread at a time, so scratch kept per part needs no lock. frame_done, when set,
/// runs once at the end of each cd_broad_frame, on the calling thread after every part (a step
/// that keeps what it learnt in a frame for the next one merges its parts' findings there); its
/// time counts as narrow time.
typedef struct cd_narrow_step {
    void (*test)(void *ctx, const cd_scene *s, uint32_t part, const cd_pair *cand, uint32_t n, cd_pair_list *out,
                 cd_broad_stats *st);
    void *ctx;
    void (*frame_done)(void *ctx);
} cd_narrow_step;

/// Parts a narrow step's scratch must serve: the serial frame's and CD_BROAD_PARTS.
#define CD_NARROW_STEP_PARTS (CD_BROAD_PARTS + 1u)

/// A broad phase instance: method plus state.
typedef struct cd_broad {
    const cd_broad_method *method;
    void *self;
    cd_params params;              ///< the method's parameters
    int threads;                   ///< the frame's worker threads
    cd_broad_part *parts;          ///< CD_BROAD_PARTS outputs when the method has candidates_part
    cd_sat_build sat;              ///< the narrow step's batched SAT build (cd_sat_build_default at create)
    uint64_t layout;               ///< the scene's layout the method last saw (cd_scene.layout)
    cd_narrow_step narrow;         ///< the narrow step; test NULL: the cube scene's (cube_narrow.c)
    cd_pair_list kept;             ///< last frame's output (see "Kept pairs" above)
    int kept_valid;                ///< kept is the frame just before's, for the method's state now
    uint32_t moved_n;              ///< cubes last_moved and last_ident hold
    size_t kept_still;             ///< pairs at kept's front with no cube of last_ident (0: none known)
    uint8_t *last_moved;           ///< a bit per cube, the kept filter's: those of last_ident (zero elsewhere)
    uint32_t *last_ident;          ///< the move list of the coherent frame that last kept pairs, as idents
    uint32_t last_count;           ///< its length
    int check;                     ///< the frame checks the method's candidates (cd_broad_check_candidates)
    cd_broad_bad bad;              ///< the last frame's bad candidates (always none when check is 0)
    cd_broad_bad_moves bad_moves;  ///< the last frame's bad move list (always none when check is 0)
} cd_broad;

/// Where a frame's time went (wall clock; with threads > 1 the frame's wall time split in
/// proportion to the time the workers spent in each).
typedef struct cd_frame_times {
    double broad_ms;   ///< update + candidate generation
    double narrow_ms;  ///< exact tests on the candidates
} cd_frame_times;

/// Method m's parameters at their defaults.
cd_params cd_broad_params_default(const cd_broad_method *m);
/// cdlab's own methods, in a fixed order (naive first; methods.c); the registry module joins
/// them with the peers'. *count receives their number.
const cd_broad_method *const *cd_broad_builtin_methods(size_t *count);
/// Create a broad phase of method m for the scene (which may still change before the first frame):
/// p holds m's parameters (cd_broad_params_default(m) and cd_params_set; NULL: the defaults);
/// threads >= 1 runs the frame's parts and the method's update on that many workers.
cd_broad *cd_broad_create(const cd_broad_method *m, const cd_params *p, int threads, const cd_scene *s);
/// Free b (NULL allowed).
void cd_broad_destroy(cd_broad *b);
/// Check m's candidates in every frame of the instances created from now on: each must name two
/// different objects of the scene (a, b < count, a != b); the others are dropped before the narrow
/// step reads the scene at their ids and counted in cd_broad.bad, which the caller reads after
/// cd_broad_frame (a kind fails the point). The move list a coherent frame's update_coherent fills
/// is checked likewise (cd_broad.bad_moves). For methods whose code cdlab does not vouch for (a
/// plugin's: cd_registry_add marks them); cdlab's own methods are unchecked and pay nothing. Not
/// thread-safe: mark before any thread creates instances.
void cd_broad_check_candidates(const cd_broad_method *m);
/// 1 when m's candidates are checked (cd_broad_check_candidates: a plugin's method), else 0.
int cd_broad_candidates_checked(const cd_broad_method *m);
/// Run step as b's narrow step from the next frame on, instead of the cube scene's exact test
/// (the frame still drops candidates whose boxes do not overlap before step sees them, unless the
/// method is untested).
void cd_broad_set_narrow(cd_broad *b, const cd_narrow_step *step);

/// The exact predicate of the cube scene: AABBs overlap and the OBB separating-axis test finds no
/// separating axis. The AABB gate never changes the geometric answer (AABBs enclose the boxes,
/// rounded outward) and makes every AABB-complete method exact by construction. The test runs
/// with the lower slot as its first box, whatever order the pair came in: in floating point the
/// separating-axis test of (A, B) is not that of (B, A) at extreme scales (half-extents of 1e-33
/// beside positions of 1e27 in one accepted trace), and the pair set must not depend on the order
/// in which a method hands a pair over. Every method of a frame sees the same slots; the slot
/// order costs the narrow step nothing, where the cubes' numbers (cd_scene.ident) took a lookup
/// per candidate (a tenth more narrow time at 100 000 cubes).
static inline int cd_cube_pair_overlap(const cd_scene *s, uint32_t i, uint32_t j)
{
    if (!cd_aabbf_overlap(&s->box[i], &s->box[j])) return 0;
    if (i > j) {
        uint32_t t = i;
        i = j, j = t;
    }
    cd_obb a = cd_scene_obb(s, i), b = cd_scene_obb(s, j);
    return cd_obb_obb_overlap(&a, &b);
}

/// The frame's first half alone: follow the scene's reorders (remap, or a fresh state after
/// several) and update the method, for callers that then ask candidates() themselves (and
/// coherent(): a coherent method's candidates are only those with a moved object). The next
/// frame keeps no pairs.
void cd_broad_update(cd_broad *b, const cd_scene *s);
/// One collision frame on the current scene state: update, candidates, narrow tests. Overlapping
/// pairs of cubes (a < b, as cd_scene.ident numbers them, whatever slots hold them) are appended to
/// out (cleared first); counters go to st (zeroed first); times to t when not NULL.
void cd_broad_frame(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st, cd_frame_times *t);

/// Append pair to list.
void cd_pair_list_push(cd_pair_list *l, cd_pair p);
/// Sort by (a, b) so two lists compare with memcmp.
void cd_pair_list_sort(cd_pair_list *l);
/// Free the list's memory.
void cd_pair_list_free(cd_pair_list *l);

#endif
