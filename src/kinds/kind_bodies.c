// SPDX-License-Identifier: MIT
// The bodies kind: N moving rigid mesh bodies (cd_bodies.h) through any broad phase, the mesh
// hierarchies as the narrow step. A frame is motion + broad phase + hierarchy queries on the
// candidates; frame_ms is their sum. The summary measures the cost model's Cv and Cp on touching
// pairs of the last frame and sets model_ms = Nv·Cv + Np·Cp + Nu·Cu (model_term) beside the
// measured narrow and refit time.
// A bodies peer as the method (fcl_obb, fcl_obbrss: cd_bodies_peers.h) replaces broad phase and
// narrow step: the frame is motion + the peer's whole collide, timed as broad_ms.
#include "cd_bodies.h"
#include "cd_bodies_peers.h"
#include "cd_core.h"
#include "cd_harness.h"
#include "cd_registry.h"
#include "kind_bodies.h"
#include "kind_cubes.h"
#include "kind_mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_MESHES = KIND_BODIES_MAX_MESHES };

// [bodies] meshes: a comma-separated list of mesh specs, split in place into specs[].
static uint32_t split_meshes(char *text, const char *specs[MAX_MESHES])
{
    uint32_t n = 0;
    if (!text[0]) return 0;
    // Every comma ends an item, so "a,,b" and "a," hold an empty item (strtok skipped them).
    for (char *tok = text; tok && n < MAX_MESHES;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        while (*tok == ' ' || *tok == '\t') ++tok;
        char *end = tok + strlen(tok);
        while (end > tok && (end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
        specs[n++] = tok;
        tok = comma ? comma + 1 : NULL;
    }
    return n;
}

// [method] method: a registered broad phase or a bodies peer.
static const char *check_method(const char *w)
{
    const char *why = cd_kinds_check_method(w);
    if (!why || cd_bodies_peer_known(w)) return NULL;
    static char known[1024];  // built once per message; single-threaded config loading
    size_t n, len = (size_t)snprintf(known, sizeof known, "%s or a bodies peer (", why);
    const char *const *names = cd_bodies_peer_names(&n);
    for (size_t i = 0; i < n && len < sizeof known; ++i)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", names[i]);
    if (len < sizeof known) snprintf(known + len, sizeof known - len, "%s", n ? ")" : "none in this build)");
    return known;
}

static const char *const mode_words[] = {"first_hit", "all_pairs", NULL};
static const char *const witness_words[] = {"on", "off", NULL};
static const char *const assign_words[] = {"random", "cycle", NULL};
// Every layout of the cubes but level, whose slabs are boxes.
static const char *const body_layout_words[] = {"uniform", "clusters", "ground", NULL};

static const char *const clock_words[] = {"wall", "cpu", NULL};

static const cd_key_spec bodies_keys[] = {
    CD_KINDS_PLUGIN_KEY,
    {"method", "method", CD_KEY_WORD, "grid_multi", 0, 0, NULL, check_method, 1,
     "broad phase by registry name (`cdlab methods`), with its default parameters; or, in a build with "
     "the peers, a bodies peer: fcl_obb, fcl_obbrss (FCL's DynamicAABBTree manager over BVHModel<OBB> or "
     "<OBBRSS>, the whole collide timed as broad_ms)"},
    {"method", "hierarchy", CD_KEY_WORD, "hybrid", 0, 0, NULL, kinds_check_hierarchy, 1,
     "hierarchy variant of every mesh: sphere, aabb, obb (RAPID), obb_sphere, hybrid; ignored by the bodies "
     "peers, which build their own BVHModels (a list beside peers only is refused: its points would repeat each "
     "other; beside cdlab's methods the peers' points repeat, as configs/bodies_vs_fcl.ini uses them)"},
    {"method", "mode", CD_KEY_WORD, "first_hit", 0, 0, mode_words, NULL, 1,
     "narrow query: first_hit (do the bodies touch) or all_pairs (every intersecting triangle pair)"},
    {"method", "leaf_size", CD_KEY_INT, "1", 1, 1024, NULL, NULL, 1,
     "most triangles per leaf; ignored by the bodies peers (one triangle per leaf; a list beside peers only is "
     "refused, as for hierarchy)"},
    {"method", "witness", CD_KEY_WORD, "on", 0, 0, witness_words, NULL, 1,
     "first_hit: on starts each body pair's query at the leaves where its surfaces touched the frame before "
     "and widens from there (the same answers; fewer volume tests where bodies move a fraction of their size per "
     "frame, a few percent more where they move half of it; docs/design/bodies.md#witness); off starts every query at "
     "the roots. all_pairs and the bodies peers do not read it: a list where no listed mode is first_hit, or every "
     "method a peer, is refused (its points would repeat each other); beside first_hit and cdlab's methods it is "
     "kept"},
    {"method", "threads", CD_KEY_INT, "1", 1, 1024, NULL, NULL, 1, "worker threads of the motion step and the frame"},
    {"measure", "clock", CD_KEY_WORD, "wall", 0, 0, clock_words, NULL, 0,
     "wall: frames on the wall clock; cpu: the runner thread's CPU time (blind to preemption on a shared "
     "machine, for the peers too; motion/refit/broad/narrow split NA; points with threads > 1 always use "
     "the wall clock)"},
    {"scene", "bodies", CD_KEY_INT, "100", 0, 10000000, NULL, NULL, 1, "number of bodies N"},
    {"bodies", "meshes", CD_KEY_TEXT, "icosphere:500", 0, 0, NULL, NULL, 0,
     "comma-separated mesh specs the bodies are instances of: box, icosphere:N, torus:N, noisy_sphere:N, "
     "pencil:N, a bare generator name with [bodies] faces, or a mesh file (relative to the config's directory; "
     "at most 16)"},
    {"bodies", "assign", CD_KEY_WORD, "random", 0, 0, assign_words, NULL, 0,
     "which mesh each body is: random (a seeded stream of its own) or cycle (body i: mesh i mod count)"},
    {"bodies", "faces", CD_KEY_INT, "0", 0, 1e7, NULL, NULL, 1,
     "faces of the meshes named by a bare generator name (a face-count sweep; each generator rounds to its grid, "
     "icosphere to 20*f^2, torus to 4*n^2: a count rounded by over a tenth, or two counts that make the same "
     "meshes, is a warning); 0: the specs say"},
    {"bodies", "size", CD_KEY_REAL, "1.0", 1e-9, 1e9, NULL, NULL, 1, "largest edge of every body's box"},
    {"bodies", "size_ratio", CD_KEY_REAL, "1.0", 1, 1e6, NULL, NULL, 1,
     "largest edges uniform in [size, size*size_ratio]; the bodies of one mesh share its hierarchy at every scale"},
    {"bodies", "density", CD_KEY_REAL, "0.05", 1e-12, 1, NULL, NULL, 1,
     "the bodies' box volume over the world's volume"},
    {"bodies", "speed", CD_KEY_REAL, "0.05", 0, 1e9, NULL, NULL, 1, "velocity components uniform in [-speed, speed]"},
    {"bodies", "deform", CD_KEY_REAL, "0", 0, 1, NULL, NULL, 1,
     "fraction of bodies that deform: each gets its own copy of its mesh and hierarchy, whose vertices move "
     "every frame by a seeded smooth displacement (at most 0.03 size per coordinate); the hierarchy is refit "
     "and the body's box follows (not with the peers)"},
    {"bodies", "spin", CD_KEY_REAL, "0.01", 0, 1e3, NULL, NULL, 1,
     "angular velocity components uniform in [-spin, spin] rad/frame"},
    {"bodies", "layout", CD_KEY_WORD, "uniform", 0, 0, body_layout_words, NULL, 1,
     "placement family as the cubes' [scene] layout: uniform, clusters or ground (level's slabs are boxes, not "
     "bodies: kind cubes); docs/design/scene.md#scene-families"},
    {"bodies", "size_dist", CD_KEY_WORD, "uniform", 0, 0, cd_scene_size_dist_names, NULL, 1,
     "distribution of the largest edges in [size, size*size_ratio]: uniform, loguniform or pareto"},
    {"bodies", "clusters", CD_KEY_INT, "8", 1, 4096, NULL, NULL, 1,
     "clusters of layout = clusters (a list without that layout is refused)"},
    {"bodies", "cluster_sigma", CD_KEY_REAL, "0.1", 1e-6, 10, NULL, NULL, 1,
     "standard deviation of a cluster per axis, as a fraction of the world side (layout = clusters; a list "
     "without that layout is refused)"},
    {"bodies", "moving", CD_KEY_REAL, "1", 0, 1, NULL, NULL, 1,
     "fraction of the bodies that move (the others never do)"},
    {"bodies", "sleep", CD_KEY_REAL, "0", 0, 1e9, NULL, NULL, 1,
     "mean frames a moving body moves before it rests, and rests before it wakes; 0 = never rests"},
};

// The specs of a point: bare generator names get [bodies] faces.
static uint32_t point_specs(const char *meshes, uint32_t faces, char buf[MAX_MESHES][4096],
                            const char *specs[MAX_MESHES])
{
    char text[4096];
    snprintf(text, sizeof text, "%s", meshes);
    const char *raw[MAX_MESHES];
    uint32_t n = split_meshes(text, raw);
    for (uint32_t k = 0; k < n; ++k) {
        if (kinds_is_bare_generator(raw[k]) && faces)
            snprintf(buf[k], sizeof buf[k], "%s:%u", raw[k], faces);
        else
            snprintf(buf[k], sizeof buf[k], "%s", raw[k]);
        specs[k] = buf[k];
    }
    return n;
}

// [bodies] key set to anything but ok beside a bodies peer in [method] method: a config error at the
// key naming the peer and its line (why: what the peer cannot do).
static int refuse_with_peer(const cd_config *c, const char *key, double ok, const char *why, char *err, size_t err_len)
{
    const cd_config_key *k = cd_config_key_get(c, "bodies", key), *method = cd_config_key_get(c, "method", "method");
    for (size_t i = 0; i < method->count; ++i)
        for (size_t j = 0; j < k->count; ++j)
            if (cd_bodies_peer_known(method->values[i].text) && k->values[j].num != ok) {
                cd_config_error(c, k, err, err_len,
                                "%s = %s with the peer %s (line %d), %s: expected %s = %g or "
                                "cdlab's methods only",
                                key, k->values[j].text, method->values[i].text, method->line, why, key, ok);
                return -1;
            }
    return 0;
}

// [method] lists whose values some points do not read. A bodies peer reads neither hierarchy nor
// leaf_size (it builds its own BVHModels, one triangle per leaf) nor witness, and witness is read
// by first_hit alone: a list of one of them that no listed method (and mode) reads makes points
// that repeat each other under different labels, and is refused, the way every such list is
// (cd_config_refuse_unread_sweep). A sweep that mixes readers and others (grid_multi and fcl_obb,
// first_hit and all_pairs) is kept, since its readers' points differ; the others' points then
// repeat each other, which configs/bodies_vs_fcl.ini does on purpose (a check on the peers'
// noise), so no warning is given. 0, or -1 with "path:line: ..." in err.
static int refuse_unread_method_lists(cd_config *c, char *err, size_t err_len)
{
    const cd_config_key *method = cd_config_key_get(c, "method", "method"),
                        *mode = cd_config_key_get(c, "method", "mode");
    static const char *const peer_unread[] = {"hierarchy", "leaf_size", "witness"};
    size_t peers = 0, first_hit = 0;
    for (size_t i = 0; i < method->count; ++i) peers += cd_bodies_peer_known(method->values[i].text) != 0;
    for (size_t i = 0; i < mode->count; ++i) first_hit += strcmp(mode->values[i].text, "first_hit") == 0;
    char text[512], reader[700];
    cd_config_key_text(method, text, sizeof text);
    for (size_t k = 0; k < sizeof peer_unread / sizeof peer_unread[0]; ++k) {
        const cd_config_key *key = cd_config_key_get(c, "method", peer_unread[k]);
        if (key->count < 2 || peers == 0) continue;
        if (peers == method->count) {
            snprintf(reader, sizeof reader, "[method] %s (line %d: %s)", text, method->line,
                     peers > 1 ? "bodies peers only" : "a bodies peer");
            return cd_config_refuse_unread_sweep(c, key, reader, err, err_len);
        }
    }
    const cd_config_key *witness = cd_config_key_get(c, "method", "witness");
    if (witness->count < 2 || first_hit == mode->count) return 0;
    cd_config_key_text(mode, text, sizeof text);
    if (first_hit == 0) {
        snprintf(reader, sizeof reader, "[method] %s (line %d: witness is first_hit's)", text, mode->line);
        return cd_config_refuse_unread_sweep(c, witness, reader, err, err_len);
    }
    return 0;
}

// Every mesh of the list is checked with the config: generator specs by their syntax (as [mesh] a),
// files by reading them through the reader's checks.
static int bodies_validate(cd_config *c, char *err, size_t err_len)
{
    // The peers share one BVHModel per mesh, placed by rigid transforms.
    if (refuse_with_peer(c, "deform", 0.0, "which shares one BVHModel per mesh", err, err_len) ||
        refuse_with_peer(c, "size_ratio", 1.0, "whose objects carry rigid transforms over one BVHModel per mesh", err,
                         err_len) ||
        kinds_check_plans(c, err, err_len) || cd_cubes_check_cluster_sweeps(c, "bodies", err, err_len) ||
        refuse_unread_method_lists(c, err, err_len))
        return -1;
    const cd_config_key *meshes = cd_config_key_get(c, "bodies", "meshes");
    const cd_config_key *faces = cd_config_key_get(c, "bodies", "faces");
    char text[4096];
    snprintf(text, sizeof text, "%s", meshes->values[0].text);
    const char *specs[MAX_MESHES];
    uint32_t n = split_meshes(text, specs);
    if (n == 0) {
        cd_config_error(c, meshes, err, err_len, "no mesh: expected comma-separated mesh specs");
        return -1;
    }
    size_t items = 1;  // counted on the text: split_meshes stops at MAX_MESHES
    for (const char *q = meshes->values[0].text; *q; ++q) items += *q == ',';
    if (items > MAX_MESHES) {
        cd_config_error(c, meshes, err, err_len, "%zu meshes: expected at most %d", items, MAX_MESHES);
        return -1;
    }
    // [bodies] faces sizes bare generator names only: faces > 0 with none of them would be a
    // column that says a face count no mesh has.
    int faces_set = 0;
    const char *bare[MAX_MESHES];
    size_t nbare = 0;
    for (uint32_t k = 0; k < n; ++k)
        if (kinds_is_bare_generator(specs[k])) bare[nbare++] = specs[k];
    for (size_t f = 0; f < faces->count; ++f) faces_set |= faces->values[f].num > 0;
    if (faces_set && nbare == 0) {
        cd_config_error(c, faces, err, err_len,
                        "faces > 0 sizes bare generator names, but no mesh of [bodies] meshes is one: expected "
                        "icosphere, torus, noisy_sphere or pencil there, or faces = 0");
        return -1;
    }
    for (uint32_t k = 0; k < n; ++k) {
        if (specs[k][0] == '\0') {
            cd_config_error(c, meshes, err, err_len, "an empty item in the mesh list");
            return -1;
        }
        if (kinds_is_bare_generator(specs[k])) {  // its face counts are [bodies] faces, 0..10^7 by its key
            for (size_t f = 0; f < faces->count; ++f)
                if (faces->values[f].num == 0) {
                    cd_config_error(c, meshes, err, err_len,
                                    "'%s' is a bare generator name: expected [bodies] faces > 0 to give its face count",
                                    specs[k]);
                    return -1;
                }
            continue;
        }
        const char *expected = kinds_check_mesh(specs[k]);
        if (expected) {
            cd_config_error(c, meshes, err, err_len, "mesh '%s': expected %s", specs[k], expected);
            return -1;
        }
        if (kinds_is_generator_spec(specs[k])) continue;
        cd_mesh m;
        char why[1024], path[4096];
        cd_config_resolve(c, specs[k], path, sizeof path);
        if (cd_mesh_read(path, &m, why, sizeof why)) {
            cd_config_error(c, meshes, err, err_len, "mesh '%s': %s", specs[k], why);
            return -1;
        }
        cd_mesh_free(&m);
    }
    kinds_warn_rounded_faces(c, faces, bare, nbare);
    return 0;
}

static const cd_column frame_columns[] = {
    {"repeat", 0, "repeat number, 0-based"},
    {"frame", 0, "measured frame within the repeat, 0-based (warm-up frames not counted)"},
    {"hierarchy", 0, "[method] hierarchy (a bodies peer: its bounding volume, OBB or OBBRSS)"},
    {"frame_ms", 1,
     "motion_ms + refit_ms + broad_ms + narrow_ms (a bodies peer: motion_ms + broad_ms); with "
     "[measure] clock = cpu the frame's thread CPU time"},
    {"fps", 1, "1000 / frame_ms (collision only)"},
    {"motion_ms", 1, "motion step (move, reflect, rotate, refresh the bodies' boxes)"},
    {"broad_ms", 1,
     "broad-phase update and candidate generation (a bodies peer: its whole frame, transforms, "
     "update and collide)"},
    {"narrow_ms", 1, "sphere and exact box tests and hierarchy pair queries on the candidates (NA for a bodies peer)"},
    {"refit_ms", 1, "deforming the bodies of [bodies] deform, refitting their hierarchies, their boxes following"},
    {"candidates", 0,
     "candidate pairs handed to the narrow step (a bodies peer: pairs its manager handed to the "
     "callback)"},
    {"queries", 0,
     "hierarchy pair queries (candidates whose bodies' reach spheres and boxes overlap, exact OBB test; every "
     "candidate under method all; NA for a bodies peer, as bv_tests and tri_tests)"},
    {"pairs", 0, "touching body pairs"},
    {"tri_pairs", 0, "intersecting triangle pairs reported (first_hit: at most one per pair)"},
    {"bv_tests", 0, "bounding-volume tests of the queries (Nv)"},
    {"tri_tests", 0, "triangle-triangle tests of the queries (Np)"},
    {"sphere_sphere", 0, "sphere-sphere tests of the queries (NA for a bodies peer, as the next three)"},
    {"sphere_obb", 0, "sphere-OBB tests"},
    {"obb_obb", 0, "OBB-OBB tests"},
    {"aabb_aabb", 0, "AABB-AABB tests"},
    {"nu", 0, "hierarchy nodes refitted (Nu)"},
    {"moved", 0,
     "bodies on this frame's move list from the motion step (stepped, or pose or box changed; a "
     "deformation's box changes not counted: see nu)"},
};

static const cd_column summary_columns[] = {
    {"hierarchy", 0, "[method] hierarchy (a bodies peer: its bounding volume, OBB or OBBRSS)"},
    {"meshes", 0, "[bodies] meshes (with faces applied)"},
    {"scene_triangles", 0, "triangles of all bodies together"},
    {"repeats", 0, "repeats measured (fewer than [experiment] repeats when a run in rounds stopped)"},
    {"frame_ms_median", 1, "median frame_ms over frames x repeats"},
    {"frame_ms_p05", 1, "5th percentile of frame_ms"},
    {"frame_ms_p95", 1, "95th percentile of frame_ms"},
    {"frame_ms_mad", 1, "median absolute deviation of frame_ms"},
    {"frame_ms_cv", 1, "coefficient of variation of frame_ms"},
    {"frame_ms_mean", 1, "mean frame_ms"},
    {"fps_median", 1, "median of per-frame FPS"},
    {"fps_p05", 1, "5th percentile of per-frame FPS"},
    {"fps_p95", 1, "95th percentile of per-frame FPS"},
    {"motion_ms_median", 1, "median motion_ms"},
    {"broad_ms_median", 1, "median broad_ms"},
    {"narrow_ms_median", 1, "median narrow_ms"},
    {"refit_ms_median", 1, "median refit_ms"},
    {"candidates_mean", 0, "mean candidates per frame"},
    {"queries_mean", 0, "mean hierarchy queries per frame"},
    {"pairs_mean", 0, "mean touching body pairs per frame"},
    {"tri_pairs_mean", 0, "mean triangle pairs reported per frame"},
    {"bv_tests_mean", 0, "mean Nv per frame"},
    {"tri_tests_mean", 0, "mean Np per frame"},
    {"cv_ns", 1,
     "measured cost of one BV test (Cv), on touching pairs of the last frame, tested as the mode tests them (NA "
     "when none touched)"},
    {"cp_ns", 1, "measured cost of one triangle test (Cp), on the same pairs (NA when they reached no triangle pair)"},
    {"nu_mean", 0, "mean Nu per frame"},
    {"moved_mean", 0, "mean bodies on the motion step's move list per frame"},
    {"cu_ns", 1, "refit time per node refitted (Cu): all frames' refit time over their Nu (NA when Nu is 0)"},
    {"model_ms", 1,
     "Nv·Cv + Np·Cp + Nu·Cu with the means above, beside narrow_ms_median + refit_ms_median; a term whose count is 0 "
     "is 0 (its cost then often NA); NA when a count is (FCL peers) or a cost is NA with a count above 0"},
    {"bytes_per_body", 0, "scene bytes per body (the shared meshes and hierarchies not counted)"},
    {"shared_bytes", 0, "bytes of the distinct meshes and their hierarchies"},
    {"build_ms", 1, "reading the meshes and building their hierarchies"},
};

// Cv and Cp over up to 16 touching pairs of the frame (pairs of body numbers), the volume tests
// replayed as the queries of mode run them: each the mean over the pairs that replayed some such
// test (cd_bvh_measure_costs gives 0 for a pair that visited none, which is no cost), NaN when
// none did (no touching pair, or none reached a triangle pair).
static void measure_costs(const cd_bodies *b, const cd_pair_list *pairs, cd_bvh_mode mode, double *cv, double *cp)
{
    const cd_scene *s = b->scene;
    uint32_t used = 0, nv = 0, np = 0;
    uint32_t *slot = cd_scene_slots(s);
    double sv = 0, sp = 0;
    for (size_t k = 0; k < pairs->count && used < 16; ++k) {
        uint32_t i = pairs->items[k].a, j = pairs->items[k].b;
        double scale, v, p;
        cd_pose pose = cd_bodies_relative_pose(b, slot[i], slot[j], &scale);
        cd_bvh_measure_costs(b->shapes[b->shape_of[i]].bvh, b->shapes[b->shape_of[j]].bvh, &pose, scale, mode, &v, &p);
        if (!isfinite(v) || !isfinite(p)) continue;
        ++used;
        if (v > 0) sv += v, ++nv;
        if (p > 0) sp += p, ++np;
    }
    cd_free(slot);
    *cv = nv ? sv / nv : NAN;
    *cp = np ? sp / np : NAN;
}

// One term of the cost model in ns: count × unit cost. A count of 0 contributes 0 whatever the
// cost, which is then often unmeasured (NaN: no such test to replay); a count that is not known
// (NaN: a peer's Nv and Np) or one above 0 whose cost is unmeasured makes the term NaN, and
// model_ms NA with it.
static double model_term(double count, double cost_ns) { return count == 0 ? 0.0 : count * cost_ns; }

// The body scene's parameters at point p (see kind_bodies.h).
void cd_bodies_point_setup(const cd_point *p, cd_bodies_point *pt)
{
    uint32_t faces = (uint32_t)cd_point_num(p, "bodies", "faces");
    uint32_t nspecs = point_specs(cd_point_text(p, "bodies", "meshes"), faces, pt->buf, pt->specs);
    pt->mesh_list[0] = '\0';
    for (uint32_t k = 0; k < nspecs; ++k) {
        snprintf(pt->mesh_list + strlen(pt->mesh_list), sizeof pt->mesh_list - strlen(pt->mesh_list), "%s%s",
                 k ? " " : "", pt->specs[k]);  // as the config writes it
        char path[sizeof pt->buf[k]];
        kinds_mesh_path(p->cfg, pt->buf[k], path, sizeof path);  // a file: relative to the config's directory
        memcpy(pt->buf[k], path, sizeof path);
    }
    cd_bodies_params bp = {0};
    bp.scene = cd_scene_params_default();
    bp.scene.cubes = (uint32_t)cd_point_num(p, "scene", "bodies");
    bp.scene.size = cd_point_num(p, "bodies", "size");
    bp.scene.size_ratio = cd_point_num(p, "bodies", "size_ratio");
    bp.scene.density = cd_point_num(p, "bodies", "density");
    bp.scene.speed = cd_point_num(p, "bodies", "speed");
    bp.scene.spin = cd_point_num(p, "bodies", "spin");
    bp.scene.seed = (uint64_t)cd_point_num(p, "experiment", "seed");
    bp.scene.layout = (cd_scene_layout)cd_scene_name_index(cd_scene_layout_names, cd_point_text(p, "bodies", "layout"));
    bp.scene.size_dist =
        (cd_scene_size_dist)cd_scene_name_index(cd_scene_size_dist_names, cd_point_text(p, "bodies", "size_dist"));
    bp.scene.clusters = (uint32_t)cd_point_num(p, "bodies", "clusters");
    bp.scene.cluster_sigma = cd_point_num(p, "bodies", "cluster_sigma");
    bp.scene.still = 1.0 - cd_point_num(p, "bodies", "moving");
    bp.scene.sleep = cd_point_num(p, "bodies", "sleep");
    bp.meshes = pt->specs;
    bp.mesh_count = nspecs;
    bp.assign_cycle = strcmp(cd_point_text(p, "bodies", "assign"), "cycle") == 0;
    const cd_bvh_variant *v = cd_registry_variant_find(cd_point_text(p, "method", "hierarchy"));
    cd_params vp = cd_point_params(p, "method", "hierarchy", v->params, v->param_count);
    bp.plan = v->plan(&vp);
    pt->plan_refused[0] = '\0';
    kinds_plan_refused(v, &vp, &bp.plan, pt->plan_refused, sizeof pt->plan_refused);
    bp.leaf_size = (uint32_t)cd_point_num(p, "method", "leaf_size");
    bp.deform = cd_point_num(p, "bodies", "deform");
    pt->params = bp;
    pt->mode = strcmp(cd_point_text(p, "method", "mode"), "all_pairs") == 0 ? CD_BVH_ALL_PAIRS : CD_BVH_FIRST_HIT;
    pt->witness = strcmp(cd_point_text(p, "method", "witness"), "on") == 0;
}

static const cd_method_key bodies_method_keys[] = {CD_KINDS_BROAD_KEY, CD_KINDS_HIERARCHY_KEY};

// A point's samples over its repeats, kept between repeats so that they run back to back
// (bodies_run_point) or one per round ([experiment] order = rounds).
typedef struct bodies_state {
    cd_bodies_point pt;                  // its mesh specs (pt.params points into pt)
    const char *method, *hierarchy_col;  // hierarchy_col: a peer's bounding volume
    const cd_broad_method *bm;           // NULL for a bodies peer
    cd_params brp;
    int threads, is_peer, cpu_clock;
    uint32_t frames, warmup, repeats_done;
    size_t k;                                                  // frames measured so far
    double *frame_ms, *fps, *motion, *broad, *narrow, *refit;  // frames × repeats
    double sums[6];  // candidates, queries, pairs, tri_pairs, bv_tests, tri_tests
    double nu_sum, moved_sum, refit_ns, cv, cp, build_ms;
    size_t shared;
    uint64_t triangles;
} bodies_state;

static bodies_state *bodies_state_new(const cd_point *p)
{
    bodies_state *s = cd_alloc_zero(1, sizeof *s);
    cd_bodies_point_setup(p, &s->pt);
    s->method = cd_point_text(p, "method", "method");
    s->hierarchy_col = cd_point_text(p, "method", "hierarchy");
    s->threads = (int)cd_point_num(p, "method", "threads");
    s->frames = (uint32_t)cd_point_num(p, "experiment", "frames");
    s->warmup = (uint32_t)cd_point_num(p, "experiment", "warmup");
    s->is_peer = cd_bodies_peer_known(s->method);
    // The thread CPU clock sees only this thread, so it measures serial frames alone.
    s->cpu_clock = strcmp(cd_point_text(p, "measure", "clock"), "cpu") == 0 && s->threads <= 1;
    s->bm = s->is_peer ? NULL : cd_registry_find(s->method);
    if (s->bm) s->brp = cd_point_params(p, "method", "method", s->bm->params, s->bm->param_count);
    size_t n = (size_t)s->frames * (size_t)cd_point_num(p, "experiment", "repeats");
    double **a[] = {&s->frame_ms, &s->fps, &s->motion, &s->broad, &s->narrow, &s->refit};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; ++i) *a[i] = cd_alloc(sizeof(double) * (n ? n : 1));
    s->cv = s->cp = NAN;
    return s;
}

static void bodies_state_free(bodies_state *s)
{
    cd_free(s->frame_ms), cd_free(s->fps), cd_free(s->motion), cd_free(s->broad), cd_free(s->narrow);
    cd_free(s->refit), cd_free(s);
}

// One repeat's bodies and what measures them: a broad phase with the hierarchy queries as its
// narrow step, or a bodies peer (FCL's manager and BVHModels) instead of both.
typedef struct bodies_repeat_setup {
    cd_bodies *b;
    cd_bodies_peer *peer;
    cd_broad *broad_phase;
    cd_bodies_narrow *nw;
    // The frame in flight (cd_run_frames): its point, pairs and what it measured.
    bodies_state *s;
    uint32_t rep;
    cd_pair_list pairs;
    cd_broad_stats st;
    cd_frame_times t;
    uint64_t peer_tris, t0, tm, t1, nu;
    uint32_t moved;
    char bad[1400];  // why the point is refused: a plugin's method named bodies the scene has not
} bodies_repeat_setup;

static int bodies_repeat_start(cd_run *r, bodies_state *s, bodies_repeat_setup *u)
{
    char err[1024];
    if (s->pt.plan_refused[0]) return cd_run_fail(r, "%s", s->pt.plan_refused), -1;  // before building it
    *u = (bodies_repeat_setup){.b = cd_bodies_create(&s->pt.params, err, sizeof err), .s = s};
    if (!u->b) return cd_run_fail(r, "%s", err), -1;
    s->build_ms = u->b->build_ms;
    s->shared = cd_bodies_shared_bytes(u->b);
    s->triangles = 0;
    for (uint32_t i = 0; i < u->b->scene->count; ++i) s->triangles += u->b->shapes[u->b->shape_of[i]].mesh.ntris;
    u->peer = s->is_peer ? cd_bodies_peer_create(s->method, u->b, s->pt.mode) : NULL;
    if (s->is_peer && !u->peer) {
        cd_run_fail(r, "%s: FCL did not build a BVHModel of the meshes", s->method);
        cd_bodies_destroy(u->b);
        return -1;
    }
    if (u->peer) s->hierarchy_col = cd_bodies_peer_bv(u->peer);
    u->broad_phase = u->peer ? NULL : cd_broad_create(s->bm, &s->brp, s->threads, u->b->scene);
    CD_ASSERT(u->peer || u->broad_phase);  // the config check accepted only registered methods and peers
    u->nw = u->peer ? NULL : cd_bodies_narrow_create(u->b, s->pt.mode);
    if (u->nw) cd_bodies_narrow_set_witness(u->nw, s->pt.witness), cd_bodies_narrow_attach(u->nw, u->broad_phase);
    return 0;
}

static void bodies_repeat_end(bodies_repeat_setup *u)
{
    cd_bodies_peer_destroy(u->peer);
    cd_bodies_narrow_destroy(u->nw);
    cd_broad_destroy(u->broad_phase);
    cd_bodies_destroy(u->b);
}

// One frame of the repeat: motion, deformation, then the broad phase and the queries (or the
// peer's frame), the phases timed on the wall.
static int bodies_frame(void *ctx, int64_t f)
{
    bodies_repeat_setup *u = ctx;
    const bodies_state *s = u->s;
    u->st = (cd_broad_stats){0};
    u->peer_tris = 0;
    u->t0 = cd_now_ns();
    cd_scene_step_threads(u->b->scene, s->threads);
    u->tm = cd_now_ns();
    u->moved = u->b->scene->moved;  // before the deformation's refresh recounts it
    u->nu = cd_bodies_deform(u->b);
    u->t1 = cd_now_ns();
    if (u->peer) {
        cd_bodies_peer_frame(u->peer, u->b, &u->pairs, &u->peer_tris);
        u->t.broad_ms = (double)(cd_now_ns() - u->t1) * 1e-6, u->t.narrow_ms = NAN;
    } else {
        cd_broad_frame(u->broad_phase, u->b->scene, &u->pairs, &u->st, &u->t);
        if (cd_kinds_bad_candidates(u->broad_phase, u->b->scene, "bodies", u->bad, sizeof u->bad)) return -1;
    }
    if (f < 0 && u->nw) cd_bodies_narrow_take_stats(u->nw);  // warm-up: its counts are no sample
    return 0;
}

// Measured frame f done (ns on the loop's clock): its samples, sums and frames.csv row.
static int bodies_frame_done(cd_run *r, void *ctx, uint32_t f, uint64_t ns)
{
    bodies_repeat_setup *u = ctx;
    bodies_state *s = u->s;
    cd_broad_stats st = u->st;
    const cd_frame_times t = u->t;
    const uint64_t tm = u->tm, t0 = u->t0, t1 = u->t1, nu = u->nu;
    const uint32_t moved = u->moved;
    size_t k = s->k++;
    cd_bodies_stats bs = {0, u->peer_tris, 0, 0, {0}};
    if (u->peer)
        st.candidates = cd_bodies_peer_candidates(u->peer), st.pairs = u->pairs.count;
    else
        bs = cd_bodies_narrow_take_stats(u->nw);
    s->motion[k] = (double)(tm - t0) * 1e-6;
    s->refit[k] = (double)(t1 - tm) * 1e-6;
    s->nu_sum += (double)nu, s->moved_sum += (double)moved, s->refit_ns += (double)(t1 - tm);
    s->broad[k] = t.broad_ms, s->narrow[k] = t.narrow_ms;
    s->frame_ms[k] = s->motion[k] + s->refit[k] + s->broad[k] + (u->peer ? 0.0 : s->narrow[k]);
    if (s->cpu_clock) {  // the split is on the wall clock: not a part of a CPU-time frame
        s->frame_ms[k] = (double)ns * 1e-6;
        s->motion[k] = s->refit[k] = s->broad[k] = s->narrow[k] = NAN;
    }
    s->fps[k] = s->frame_ms[k] > 0 ? 1000.0 / s->frame_ms[k] : NAN;
    double na = u->peer ? NAN : 0.0;  // a peer's queries, Nv and Np are not visible
    double v[6] = {(double)st.candidates, (double)bs.queries + na,  (double)st.pairs,
                   (double)bs.tri_pairs,  (double)bs.bv_tests + na, (double)bs.tri_tests + na};
    for (int q = 0; q < 6; ++q) s->sums[q] += v[q];
    int peer = u->peer != NULL;
    cd_cell row[] = {
        cd_cell_int(u->rep),
        cd_cell_int(f),
        cd_cell_text(s->hierarchy_col),
        cd_cell_real(s->frame_ms[k]),
        cd_cell_real(s->fps[k]),
        cd_cell_real(s->motion[k]),
        cd_cell_real(s->broad[k]),
        cd_cell_real(s->narrow[k]),
        cd_cell_real(s->refit[k]),
        cd_cell_int((int64_t)st.candidates),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.queries),
        cd_cell_int((int64_t)st.pairs),
        cd_cell_int((int64_t)bs.tri_pairs),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.bv_tests),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.tri_tests),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.bv_by_kind[CD_BVT_SPHERE_SPHERE]),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.bv_by_kind[CD_BVT_SPHERE_OBB]),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.bv_by_kind[CD_BVT_OBB_OBB]),
        peer ? cd_cell_na() : cd_cell_int((int64_t)bs.bv_by_kind[CD_BVT_AABB_AABB]),
        cd_cell_int((int64_t)nu),
        cd_cell_int(moved),
    };
    _Static_assert(sizeof row / sizeof row[0] == sizeof frame_columns / sizeof frame_columns[0],
                   "one cell per frame column");
    cd_run_frame_row(r, row);
    return 0;
}

// Repeat rep of the point: fresh bodies from the seed, warm-up frames, then the measured frames.
// `last`: the point's last repeat, where Cv and Cp are measured. 0, or -1 after cd_run_fail.
static int bodies_repeat(cd_run *r, bodies_state *s, uint32_t rep, int last)
{
    bodies_repeat_setup u;
    if (bodies_repeat_start(r, s, &u)) return -1;
    u.rep = rep;
    cd_bodies_deform(u.b);  // the first frame's shapes
    cd_frames fr = {.warmup = s->warmup,
                    .frames = s->frames,
                    .threads = s->threads,
                    .cpu_clock = s->cpu_clock,
                    .ctx = &u,
                    .frame = bodies_frame,
                    .done = bodies_frame_done};
    if (cd_run_frames(r, &fr)) {  // only bodies_frame fails, on a plugin's bad candidates
        cd_run_fail(r, "%s", u.bad);
        cd_pair_list_free(&u.pairs);
        bodies_repeat_end(&u);
        return -1;
    }
    if (last && !u.peer) measure_costs(u.b, &u.pairs, s->pt.mode, &s->cv, &s->cp);
    cd_pair_list_free(&u.pairs);
    bodies_repeat_end(&u);
    s->repeats_done++;
    return 0;
}

// The point's summary row from the repeats it measured.
static void bodies_summary(cd_run *r, const cd_point *p, bodies_state *s)
{
    size_t n = s->k;
    double dn = n ? (double)n : 1.0, m[6];
    for (int q = 0; q < 6; ++q) m[q] = s->sums[q] / dn;
    cd_stats fs = cd_stats_compute(s->frame_ms, n), ps = cd_stats_compute(s->fps, n),
             ms = cd_stats_compute(s->motion, n), bs = cd_stats_compute(s->broad, n),
             ns = cd_stats_compute(s->narrow, s->is_peer ? 0 : n), rs = cd_stats_compute(s->refit, n);
    cd_run_warn_noisy(r, p, "frame_ms", fs.cv);
    cd_row row = cd_run_summary_begin(r);
    cd_row_set(&row, "hierarchy", cd_cell_text(s->hierarchy_col));
    cd_row_set(&row, "meshes", cd_cell_text(s->pt.mesh_list));
    cd_row_set(&row, "scene_triangles", cd_cell_int((int64_t)s->triangles));
    cd_row_set(&row, "repeats", cd_cell_int(s->repeats_done));
    cd_row_set_stats(&row, "frame_ms", &fs);
    cd_row_set_stats(&row, "fps", &ps);
    cd_row_set_stats(&row, "motion_ms", &ms);
    cd_row_set_stats(&row, "broad_ms", &bs);
    cd_row_set_stats(&row, "narrow_ms", &ns);
    cd_row_set_stats(&row, "refit_ms", &rs);
    static const char *const mean_names[6] = {"candidates_mean", "queries_mean",  "pairs_mean",
                                              "tri_pairs_mean",  "bv_tests_mean", "tri_tests_mean"};
    for (int q = 0; q < 6; ++q) cd_row_set(&row, mean_names[q], cd_cell_real(m[q]));
    cd_row_set(&row, "cv_ns", cd_cell_real(s->cv));
    cd_row_set(&row, "cp_ns", cd_cell_real(s->cp));
    double nu_mean = s->nu_sum / dn, cu = s->nu_sum > 0 ? s->refit_ns / s->nu_sum : NAN;
    cd_row_set(&row, "nu_mean", cd_cell_real(nu_mean));
    cd_row_set(&row, "moved_mean", cd_cell_real(s->moved_sum / dn));
    cd_row_set(&row, "cu_ns", cd_cell_real(cu));
    double model_ns = model_term(m[4], s->cv) + model_term(m[5], s->cp) + model_term(nu_mean, cu);
    cd_row_set(&row, "model_ms", cd_cell_real(model_ns * 1e-6));
    cd_row_set(&row, "bytes_per_body", cd_cell_int((int64_t)cd_bodies_bytes_per_body()));
    cd_row_set(&row, "shared_bytes", cd_cell_int((int64_t)s->shared));
    cd_row_set(&row, "build_ms", cd_cell_real(s->build_ms));
    cd_run_summary_end(r, &row);
}

static int bodies_run_point(cd_run *r, const cd_point *p)
{
    bodies_state *s = bodies_state_new(p);
    uint32_t repeats = (uint32_t)cd_point_num(p, "experiment", "repeats");
    int rc = 0;
    for (uint32_t rep = 0; rep < repeats && rc == 0; ++rep) rc = bodies_repeat(r, s, rep, rep + 1 == repeats);
    if (rc == 0) bodies_summary(r, p, s);
    bodies_state_free(s);
    return rc;
}

// [experiment] order = rounds: repeat `round` of point p; the samples wait in *state.
static int bodies_run_round(cd_run *r, const cd_point *p, uint32_t round, void **state)
{
    if (!*state) *state = bodies_state_new(p);
    uint32_t repeats = (uint32_t)cd_point_num(p, "experiment", "repeats");
    return bodies_repeat(r, *state, round, round + 1 == repeats);
}

static int bodies_finish_point(cd_run *r, const cd_point *p, void *state, uint32_t rounds)
{
    if (rounds) bodies_summary(r, p, state);
    bodies_state_free(state);
    return 0;
}

// Shards: a frame's work grows with the bodies (the balance needs no more than that).
static double bodies_cost(const cd_point *p) { return cd_point_num(p, "scene", "bodies"); }

const cd_kind cd_kind_bodies = {
    .name = "bodies",
    .description = "moving rigid mesh bodies: any broad phase, then the mesh hierarchies as the narrow step",
    .keys = bodies_keys,
    .key_count = sizeof bodies_keys / sizeof bodies_keys[0],
    .figures = "bodies_fps",
    .all_figures = "bodies_fps, bodies_frame_series, bodies_cost_model",
    .validate = bodies_validate,
    CD_KINDS_PLUGIN_PRELOAD,
    .method_keys = bodies_method_keys,
    .method_key_count = 2,
    .frame_columns = frame_columns,
    .frame_column_count = sizeof frame_columns / sizeof frame_columns[0],
    .summary_columns = summary_columns,
    .summary_column_count = sizeof summary_columns / sizeof summary_columns[0],
    .run_point = bodies_run_point,
    .run_round = bodies_run_round,
    .finish_point = bodies_finish_point,
    .cost = bodies_cost,
};
