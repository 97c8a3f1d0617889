// SPDX-License-Identifier: MIT
// cdlab mesh hierarchies. One node type carries a kind (sphere, OBB, OBB+sphere, AABB); a
// hierarchy variant is only a layer plan saying which kind sits at which depth, so the sphere
// tree, the AABB tree, RAPID's OBB tree and the hybrid HBVHS tree (spheres in the upper layers X,
// OBB+sphere in the middle layers Y, OBBs in the lower layers Z) share one build, one refit and one
// pair traversal. Counters follow the cost model T = Nv·Cv + Np·Cp + Nu·Cu.
#ifndef CD_BVH_H
#define CD_BVH_H

#include "cd_mesh.h"
#include "cd_shape.h"

/// Node kinds as bit sets of the volumes a node carries. Every node also carries a valid
/// enclosing sphere (its size for the descent rule), but only kinds with CD_BV_SPHERE test it.
enum cd_bv_kind {
    CD_BV_SPHERE = 1,                             ///< bounding sphere only
    CD_BV_OBB = 2,                                ///< oriented box fitted by covariance (RAPID)
    CD_BV_OBB_SPHERE = CD_BV_OBB | CD_BV_SPHERE,  ///< both: sphere–sphere first, then OBB–OBB
    CD_BV_AABB = 4,                               ///< box along the mesh's own axes
};

/// At most this many segments in a layer plan.
#define CD_BVH_PLAN_MAX 4

/// Which node kind at which depth: depths [until[k−1], until[k]) get kind[k] (until[−1] = 0);
/// the last segment runs to any depth.
typedef struct cd_bvh_plan {
    int count;
    int until[CD_BVH_PLAN_MAX];
    uint8_t kind[CD_BVH_PLAN_MAX];
} cd_bvh_plan;

/// A named hierarchy variant: one line in the table of src/bvh/variants.c.
typedef struct cd_bvh_variant {
    const char *name;
    const char *summary;
    /// The layer plan for parameter values p (one per entry of params).
    cd_bvh_plan (*plan)(const cd_params *p);
    /// The variant's own parameters (cd_core.h): `[method] <name>` in a config, a key column in the
    /// CSVs; the plan crosses the variant only with these. NULL, 0: none.
    const cd_param_spec *params;
    size_t param_count;
} cd_bvh_variant;

/// The variant table, terminated by a NULL name.
extern const cd_bvh_variant cd_bvh_variants[];
/// The variant called name, or NULL.
const cd_bvh_variant *cd_bvh_variant_find(const char *name);
/// Variant v's parameters at their defaults.
cd_params cd_bvh_variant_params_default(const cd_bvh_variant *v);
/// v's plan with its defaults and the settings of set it declares (set may be NULL; the values
/// must be acceptable).
cd_bvh_plan cd_bvh_variant_plan(const cd_bvh_variant *v, const cd_param_settings *set);
/// 0 when plan can be built: 1 to CD_BVH_PLAN_MAX segments, each of an enum cd_bv_kind, the
/// depths where they end increasing (the last segment's is not read); else -1 with what is wrong
/// in why. A plugin's plan is checked before cdlab builds it (cd_plugins_load, the kinds).
int cd_bvh_plan_check(const cd_bvh_plan *plan, char *why, size_t len);
/// The settings of v's parameters that its checks try, into set[0, max): set[0] the defaults
/// (empty), then each parameter at each end of its range (a word parameter: at each of its words),
/// the others at their defaults; an end equal to the default is left out. Returns how many.
size_t cd_bvh_variant_probes(const cd_bvh_variant *v, cd_param_settings *set, size_t max);
/// Node kind of plan at depth (root = 0).
uint8_t cd_bvh_plan_kind(const cd_bvh_plan *plan, int depth);

/// One node, 128 bytes on a 64-byte boundary (two cache lines): the traversal is bound by memory,
/// so the box keeps two axes and derives the third (ax0 × ax1, bit-identical at fit and query);
/// the sphere shares the box centre. Internal nodes have children left and left + 1; leaves hold
/// count triangles at order[first .. first + count).
typedef struct cd_bvh_node {
    cd_vec3 c;         ///< box centre, also the sphere centre
    double r;          ///< enclosing sphere radius (valid for every kind; the node's size for descent)
    cd_vec3 ax0, ax1;  ///< first two box axes (unit, orthogonal); identity columns for AABB kinds
    cd_vec3 half;      ///< box half-extents along ax0, ax1, ax0 × ax1
    uint32_t first;    ///< leaf: first index into order; internal: left child
    uint32_t count;    ///< leaf: triangle count; internal: 0
    uint8_t kind;      ///< enum cd_bv_kind
    uint8_t depth;     ///< depth of the node (root 0)
    uint8_t pad[2];
    uint32_t tri[3];  ///< one-triangle leaf: its vertex indices (the triangle test needs no order/tris loads); else 0
} cd_bvh_node;

/// The node's box as a cd_obb (third axis ax0 × ax1).
static inline cd_obb cd_bvh_node_box(const cd_bvh_node *n)
{
    return (cd_obb){n->c, {{n->ax0, n->ax1, cd_v3_cross(n->ax0, n->ax1)}}, n->half};
}
/// The node's enclosing sphere.
static inline cd_sphere cd_bvh_node_sphere(const cd_bvh_node *n) { return (cd_sphere){n->c, n->r}; }

/// A hierarchy over a mesh that it references (not owns): the mesh must outlive it.
typedef struct cd_bvh {
    const cd_mesh *mesh;
    cd_bvh_plan plan;
    uint32_t leaf_size;
    cd_bvh_node *nodes;  ///< aligned inside nodes_block (2 MiB pages when large, see cd_bvh_alloc_huge)
    void *nodes_block;
    uint32_t nnodes;
    uint32_t *order;   ///< triangle ids, permuted so every node's triangles are contiguous
    int depth;         ///< deepest node's depth
    uint32_t *parent;  ///< each node's parent (the root's: 0), for cd_bvh_query_hinted's witness
    // What solid mode needs of the mesh, found on first need (cd_bvh_is_closed,
    // cd_bvh_solid_vertices): NULL while not yet known. The check was a twentieth of every build
    // but only solid mode reads it.
    struct cd_bvh_solid *_Atomic solid;
    double margin;  ///< absolute outward margin added to every volume (covers fitting rounding)
} cd_bvh;

/// Build top-down: each node is split at the median triangle centroid along the longest axis of
/// its centroids' box, until at most leaf_size (≥ 1) triangles remain. The mesh needs ≥ 1 triangle.
cd_bvh *cd_bvh_build(const cd_mesh *mesh, const cd_bvh_plan *plan, uint32_t leaf_size);
/// True when bvh's mesh is closed (cd_mesh_is_closed), so solid mode may use point-in-mesh. Found
/// on the first call and kept (safe to call from several threads; the mesh must not change).
int cd_bvh_is_closed(const cd_bvh *bvh);
/// The vertices solid mode tests against the other mesh: one of each connected part of a closed
/// mesh (cd_mesh_part_vertices), *n of them; none for an open mesh. Found with cd_bvh_is_closed's
/// answer and kept, under the same conditions.
const uint32_t *cd_bvh_solid_vertices(const cd_bvh *bvh, uint32_t *n);
/// Refit every volume to the mesh's current vertex positions, keeping the topology (for deforming
/// meshes). Returns the number of nodes refitted (Nu).
uint32_t cd_bvh_refit(cd_bvh *bvh);
/// Free bvh (NULL allowed).
void cd_bvh_destroy(cd_bvh *bvh);
/// Bytes held by bvh (nodes and order).
size_t cd_bvh_memory(const cd_bvh *bvh);

/// Rigid pose of mesh B in A's frame: x_A = R(q)·x_B + t, q normalised by the query.
typedef struct cd_pose {
    cd_quat q;
    cd_vec3 t;
} cd_pose;

/// R·x + t: the one place a vertex of B is moved into A's frame (traversal leaves and brute force
/// use it, so both test bit-identical triangles).
static inline cd_vec3 cd_pose_apply(const cd_mat3 *R, cd_vec3 t, cd_vec3 x) { return cd_v3_add(cd_m3_mul_v(*R, x), t); }
/// R·(s·x) + t: B scaled uniformly by s > 0, then posed (body scenes with size_ratio > 1). With
/// s = 1 it gives cd_pose_apply's bits (x·1 is x).
static inline cd_vec3 cd_pose_apply_scaled(const cd_mat3 *R, cd_vec3 t, double s, cd_vec3 x)
{
    return cd_v3_add(cd_m3_mul_v(*R, cd_v3_scale(x, s)), t);
}

/// n poses of the mesh-pair protocol: uniformly random rotations from (seed,
/// CD_STREAM_MESH_POSES), translation (distance, 0, 0).
void cd_poses_generate(uint64_t seed, double distance, size_t n, cd_pose *out);
/// Write poses to f as CSV with the header qw,qx,qy,qz,tx,ty,tz (17 significant digits: exact
/// round trip); the caller checks f's error state.
void cd_poses_write_rows(FILE *f, const cd_pose *p, size_t n);
/// cd_poses_write_rows into the file at path, whole or not at all (cd_file_out). Returns 0, or -1
/// with "path: reason" in err (path as it was).
int cd_poses_write_csv(const char *path, const cd_pose *p, size_t n, char *err, size_t err_len);
/// Largest magnitude of a pose translation's component that cd_poses_read_csv takes.
#define CD_POSE_MAX_T 1e30
/// Read a pose CSV (header qw,qx,qy,qz,tx,ty,tz; '#' comments allowed; translations of magnitude
/// <= CD_POSE_MAX_T per axis) into a fresh array (cd_free it). Returns 0, or -1 with
/// "path:line: what was expected" in err.
int cd_poses_read_csv(const char *path, cd_pose **out, size_t *n, char *err, size_t err_len);

/// Query modes.
typedef enum cd_bvh_mode {
    CD_BVH_FIRST_HIT,  ///< stop at the first intersecting triangle pair
    CD_BVH_ALL_PAIRS,  ///< every intersecting triangle pair
    CD_BVH_SOLID,      ///< first hit; with none and both meshes closed, also one mesh inside the other
} cd_bvh_mode;

/// BV test kinds counted separately (Nv by kind).
enum cd_bvt {
    CD_BVT_SPHERE_SPHERE,
    CD_BVT_SPHERE_OBB,
    CD_BVT_OBB_OBB,
    CD_BVT_AABB_AABB,
    CD_BVT_COUNT,
};

/// Software counters of one query (deterministic).
typedef struct cd_bvh_stats {
    uint64_t bv_tests[CD_BVT_COUNT];  ///< Nv by kind
    uint64_t tri_tests;               ///< Np
    uint64_t node_pairs;              ///< node pairs popped from the stack
    uint64_t point_tests;             ///< point-in-mesh tests (solid mode)
} cd_bvh_stats;

/// A triangle pair: index into A's and B's triangle arrays.
typedef struct cd_tri_pair {
    uint32_t a, b;
} cd_tri_pair;

/// A pair of leaves, A's and B's node indices: where a query found two triangles touching.
typedef struct cd_bvh_hint {
    uint32_t a, b;
} cd_bvh_hint;

/// Output and scratch of queries; reuse one across queries to avoid allocation. Zero-initialise.
typedef struct cd_bvh_result {
    int overlap;         ///< a triangle pair intersects, or (solid) one mesh is inside the other
    int inside;          ///< solid mode found containment without a surface contact
    cd_tri_pair *pairs;  ///< intersecting pairs (all_pairs: all; first_hit/solid: at most one)
    size_t count, capacity;
    cd_bvh_stats stats;
    cd_bvh_hint hit;  ///< the leaves of pairs[0] (count > 0): a hint for the next query of the meshes
    uint32_t *stack;  ///< traversal scratch
    size_t stack_capacity;
    // Per-query caches of B's nodes and vertices moved into A's frame, valid where the stamp
    // equals epoch: a node of B meets many nodes of A, and moving it once saves most of the
    // cost of a test (docs/design/mesh-hierarchies.md).
    struct cd_bvh_slot *slots;   ///< per node of B: stamp and index into moved; starts moved_block
    struct cd_bvh_moved *moved;  ///< moved nodes in first-visit order, after the slots
    void *moved_block;
    struct cd_bvh_moved_vert *moved_verts;
    uint32_t epoch, cached_nodes, cached_verts, nmoved;
} cd_bvh_result;

/// Total BV tests of s (Nv).
uint64_t cd_bvh_stats_bv_total(const cd_bvh_stats *s);
/// Test mesh B at pose against mesh A. Resets res's output and counters, then fills them.
/// Runs the AVX-512 build of the traversal where cd_cpu_avx512 says so, else the baseline one.
void cd_bvh_query(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, cd_bvh_mode mode, cd_bvh_result *res);
/// cd_bvh_query with B scaled uniformly by scale > 0 before the pose (cd_pose_apply_scaled): one
/// hierarchy serves instances of several sizes. scale 1 is cd_bvh_query.
void cd_bvh_query_scaled(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                         cd_bvh_result *res);
/// cd_bvh_query_scaled that, in first_hit and solid modes, looks first where hint says: a query
/// of the same two meshes a frame before found touching triangles in the leaves hint (its
/// res->hit). The search starts a few levels of the traversal above those leaves and widens from
/// there, the nearest subtrees first, until it has covered every pair of leaves the search from the
/// roots would. The answer (overlap, inside) is the query's without the hint, whatever hint holds;
/// the triangle pair found and the counters may differ. hint NULL, or all_pairs mode:
/// cd_bvh_query_scaled.
void cd_bvh_query_hinted(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                         const cd_bvh_hint *hint, cd_bvh_result *res);
/// The outward margin a query of (a, b) at pose and scale adds to B's moved volumes: both trees'
/// fitting margins (B's scaled) and 1e-12 of the translation, which cover the rounding of moving
/// and testing, so the cull never rejects a pair the triangle test on the moved vertices accepts.
double cd_bvh_pair_margin(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale);

/// The instruction sets of the traversal: the same code compiled for the baseline ISA and for AVX-512
/// (whose 32 vector registers hold the paired box test without spills). Every build gives the
/// same answers, pairs and counters.
typedef enum cd_bvh_isa { CD_BVH_ISA_BASELINE, CD_BVH_ISA_AVX512, CD_BVH_ISA_AVX2, CD_BVH_ISA_COUNT } cd_bvh_isa;
/// 1 when this CPU runs isa (CDLAB_NO_AVX512=1 turns AVX-512 off, CDLAB_NO_AVX2=1 AVX2 too).
int cd_bvh_isa_runs(cd_bvh_isa isa);
/// cd_bvh_query compiled for isa, which must run here (for tests comparing them).
void cd_bvh_query_isa(cd_bvh_isa isa, const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                      cd_bvh_mode mode, cd_bvh_result *res);
/// cd_bvh_query_hinted compiled for isa, which must run here.
void cd_bvh_query_hinted_isa(cd_bvh_isa isa, const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale,
                             cd_bvh_mode mode, const cd_bvh_hint *hint, cd_bvh_result *res);
/// Reference: every triangle of A against every triangle of B (moved by cd_pose_apply), pairs in
/// (a, b) lexicographic order. Same output fields as cd_bvh_query in all-pairs mode.
void cd_bvh_brute_force(const cd_mesh *a, const cd_mesh *b, const cd_pose *pose, cd_bvh_result *res);
/// cd_bvh_brute_force with B scaled by scale before the pose (cd_pose_apply_scaled).
void cd_bvh_brute_force_scaled(const cd_mesh *a, const cd_mesh *b, const cd_pose *pose, double scale,
                               cd_bvh_result *res);
/// Sort res's pairs lexicographically (for comparing pair sets).
void cd_bvh_result_sort(cd_bvh_result *res);
/// Free res's arrays.
void cd_bvh_result_free(cd_bvh_result *res);

/// The node-pair volume test of the traversal on its own: node na of A against node nb of B, which
/// it scales by scale, moves into A's frame by R, t and enlarges by the outward margin m; counts
/// into s.
int cd_bvh_node_overlap(const cd_bvh_node *na, const cd_bvh_node *nb, const cd_mat3 *R, cd_vec3 t, double scale,
                        double m, cd_bvh_stats *s);

/// Generalised winding number of closed mesh m about p (≈1 inside, ≈0 outside; Jacobson et al.
/// 2013): the sum of the triangles' signed solid angles over 4π. Robust for p on no triangle.
double cd_bvh_winding_number(const cd_mesh *m, cd_vec3 p);

/// Measured mean cost in ns of one BV test (Cv) and one triangle test (Cp) for this pair of
/// hierarchies at pose: replays the node pairs and triangle pairs that one all-pairs query visits
/// (at most 2¹⁶ of each) in seven blocks of ≥ 1 ms, keeping the fastest block. The node pairs are
/// tested as a query of mode tests them (all_pairs many at a time, the other modes two at a time).
/// Zero when none was visited. B is scaled by scale as in cd_bvh_query_scaled.
void cd_bvh_measure_costs(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale, cd_bvh_mode mode,
                          double *cv_ns, double *cp_ns);

#endif
