// SPDX-License-Identifier: MIT
// Body scenes: the meshes and their hierarchies, the scene of body records, the narrow step and
// the brute-force reference.
#include "cd_bodies.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// Float half-extent no smaller than h, so the body's float box encloses its mesh.
static float float_up(double h)
{
    float f = (float)h;
    return (double)f < h ? nextafterf(f, FLT_MAX) : f;
}

// Half-extents of body i's box: its mesh's box half scaled by the body's scale, rounded up.
static cd_vec3 body_half(const cd_bodies *b, uint32_t i, cd_vec3 half)
{
    double s = b->scale[i];
    if (s == 1.0) return half;
    return cd_v3(float_up(s * half.x), float_up(s * half.y), float_up(s * half.z));
}

// The shape's box (half-extents about the mesh's origin, each rounded up to float) and reach (the
// farthest vertex from the origin) from its mesh's vertices as they are now.
static void fit_bounds(cd_body_shape *shape)
{
    double h[3] = {0, 0, 0}, r2 = 0;
    for (uint32_t v = 0; v < shape->mesh.nverts; ++v) {
        const cd_vec3 x = shape->mesh.verts[v];
        h[0] = fmax(h[0], fabs(x.x)), h[1] = fmax(h[1], fabs(x.y)), h[2] = fmax(h[2], fabs(x.z));
        r2 = fmax(r2, cd_v3_len2(x));
    }
    shape->half = cd_v3(float_up(h[0]), float_up(h[1]), float_up(h[2]));
    shape->reach = sqrt(r2);
}

// Read spec, centre it on its box and scale the box's largest edge to size; build its hierarchy.
static int make_shape(const char *spec, const cd_bodies_params *p, cd_body_shape *shape, char *err, size_t err_len)
{
    char why[1024];
    if (cd_mesh_from_spec(spec, &shape->mesh, why, sizeof why)) {
        snprintf(err, err_len, "mesh %s: %s", spec, why);
        return -1;
    }
    cd_mesh_normalize(&shape->mesh);  // box centred at 0, largest half-extent 1
    const double scale = 0.5 * p->scene.size;
    for (uint32_t v = 0; v < shape->mesh.nverts; ++v) shape->mesh.verts[v] = cd_v3_scale(shape->mesh.verts[v], scale);
    fit_bounds(shape);
    shape->bvh = cd_bvh_build(&shape->mesh, &p->plan, p->leaf_size);
    return 0;
}

cd_bodies *cd_bodies_create(const cd_bodies_params *p, char *err, size_t err_len)
{
    if (p->mesh_count == 0) {
        snprintf(err, err_len, "no meshes: expected at least one mesh spec");
        return NULL;
    }
    cd_bodies *b = cd_alloc_zero(1, sizeof *b);
    uint32_t n = p->scene.cubes;
    b->shape_of = cd_alloc(sizeof *b->shape_of * (n ? n : 1));
    cd_rng rng = cd_rng_make(p->scene.seed, CD_STREAM_BODY_MESHES);
    for (uint32_t i = 0; i < n; ++i)
        b->shape_of[i] = p->assign_cycle ? i % p->mesh_count : (uint32_t)cd_rng_below(&rng, p->mesh_count);
    // Deforming bodies: drawn after the mesh assignment, each with its own copy of its mesh.
    for (uint32_t i = 0; i < n && p->deform > 0; ++i)
        if (cd_rng_uniform(&rng) < p->deform) {
            uint32_t d = b->deform_count++;
            b->deform_body = cd_realloc(b->deform_body, sizeof *b->deform_body * b->deform_count);
            b->deform_body[d] = i;
        }
    // One block for the shared meshes and the copies: a hierarchy points at its mesh, so the
    // array never moves once built.
    uint64_t t0 = cd_now_ns();
    b->shapes = cd_alloc_zero(p->mesh_count + b->deform_count, sizeof *b->shapes);
    for (uint32_t k = 0; k < p->mesh_count; ++k) {
        if (make_shape(p->meshes[k], p, &b->shapes[k], err, err_len)) {
            b->deform_count = 0;  // no copies built yet
            cd_bodies_destroy(b);
            return NULL;
        }
        b->shape_count = k + 1;
    }
    if (b->deform_count) {
        b->rest = cd_alloc_zero(b->deform_count, sizeof *b->rest);
        b->phase = cd_alloc(sizeof *b->phase * 3 * b->deform_count);
        for (uint32_t d = 0; d < b->deform_count; ++d) {
            uint32_t i = b->deform_body[d];
            const cd_body_shape *from = &b->shapes[b->shape_of[i]];
            cd_body_shape *own = &b->shapes[b->shape_count + d];
            cd_mesh_alloc(&own->mesh, from->mesh.nverts, from->mesh.ntris);
            memcpy(own->mesh.verts, from->mesh.verts, sizeof *own->mesh.verts * from->mesh.nverts);
            memcpy(own->mesh.tris, from->mesh.tris, sizeof *own->mesh.tris * from->mesh.ntris);
            b->rest[d] = cd_alloc(sizeof *b->rest[d] * from->mesh.nverts);
            memcpy(b->rest[d], from->mesh.verts, sizeof *b->rest[d] * from->mesh.nverts);
            own->bvh = cd_bvh_build(&own->mesh, &p->plan, p->leaf_size);
            own->half = from->half, own->reach = from->reach;
            for (int k = 0; k < 3; ++k) b->phase[3 * d + k] = cd_rng_range(&rng, 0.0, 6.283185307179586);
            b->shape_of[i] = b->shape_count + d;
        }
    }
    b->build_ms = (double)(cd_now_ns() - t0) * 1e-6;
    // The cube scene places cubes of edge e in a world sized by N·e³ / density; a cube of the same
    // volume as the bodies' mean box sizes the world by their volume. Boxes of edge size give back
    // size itself, so a scene of boxes is the cube scene to the bit. A flat mesh (a plate: its box
    // has one zero extent; a mesh's triangle of non-zero area leaves at most one) counts as the cube
    // of its other two extents' geometric mean: its box's volume, 0, would size a world of no
    // volume (every mesh flat: a scene of edge 0, which the scene refuses).
    double volume = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        cd_vec3 h = b->shapes[b->shape_of[i]].half;
        double v = 8.0 * h.x * h.y * h.z;
        if (v == 0.0) {
            double prod = 1.0;
            int nonzero = 0;
            const double e[3] = {h.x, h.y, h.z};
            for (int k = 0; k < 3; ++k)
                if (e[k] > 0.0) prod *= e[k], nonzero++;
            double g = nonzero ? pow(prod, 1.0 / nonzero) : 0.0;
            v = 8.0 * g * g * g;
        }
        volume += v;
    }
    b->size = p->scene.size;
    cd_scene_params sp = p->scene;
    double mean = n ? volume / n : sp.size * sp.size * sp.size;
    if (mean > 0.0 && mean != sp.size * sp.size * sp.size) sp.size = cbrt(mean);
    b->scene = cd_scene_create(&sp);
    // Sizes: with size_ratio 1 every body has its mesh's size (scale exactly 1, so the pose and
    // every query keep the bits of an unscaled one); else body i takes the scale of cube i's
    // edge, drawn by the scene in [size, size·size_ratio], over size.
    b->scale = cd_alloc(sizeof *b->scale * (n ? n : 1));
    for (uint32_t i = 0; i < n; ++i)  // a fresh scene: slot i holds body i
        b->scale[i] = sp.size_ratio == 1.0 ? 1.0 : 2.0 * (double)cd_scene_half(b->scene, i).x / sp.size;
    for (uint32_t i = 0; i < n; ++i)
        cd_scene_set_pose(b->scene, i, cd_scene_center(b->scene, i), cd_scene_rot(b->scene, i),
                          body_half(b, i, b->shapes[b->shape_of[i]].half));
    cd_scene_refresh(b->scene);
    return b;
}

void cd_bodies_destroy(cd_bodies *b)
{
    if (!b) return;
    for (uint32_t k = 0; k < b->shape_count + b->deform_count; ++k) {
        cd_bvh_destroy(b->shapes[k].bvh);
        cd_mesh_free(&b->shapes[k].mesh);
    }
    for (uint32_t d = 0; d < b->deform_count && b->rest; ++d) cd_free(b->rest[d]);
    cd_free(b->rest);
    cd_free(b->phase);
    cd_free(b->deform_body);
    cd_free(b->shapes);
    cd_free(b->shape_of);
    cd_free(b->scale);
    cd_scene_destroy(b->scene);
    cd_free(b);
}

uint64_t cd_bodies_deform(cd_bodies *b)
{
    if (!b->deform_count) return 0;
    cd_scene *s = b->scene;
    uint32_t *slot = cd_scene_slots(s);
    double amp = CD_BODIES_DEFORM_AMPLITUDE * b->size, k = 6.0 / b->size, t = 0.1 * (double)s->frame;
    uint64_t nu = 0;
    for (uint32_t d = 0; d < b->deform_count; ++d) {
        cd_body_shape *own = &b->shapes[b->shape_count + d];
        const cd_vec3 *rest = b->rest[d];
        const double *ph = &b->phase[3 * d];
        for (uint32_t v = 0; v < own->mesh.nverts; ++v) {
            cd_vec3 r = rest[v];
            own->mesh.verts[v] = cd_v3(r.x + amp * sin(k * r.y + t + ph[0]), r.y + amp * sin(k * r.z + t + ph[1]),
                                       r.z + amp * sin(k * r.x + t + ph[2]));
        }
        fit_bounds(own);
        nu += cd_bvh_refit(own->bvh);
        uint32_t i = slot[b->deform_body[d]];
        cd_scene_set_pose(s, i, cd_scene_center(s, i), cd_scene_rot(s, i), body_half(b, b->deform_body[d], own->half));
    }
    cd_scene_refresh(s);
    cd_free(slot);
    return nu;
}

size_t cd_bodies_bytes_per_body(void) { return cd_scene_bytes_per_cube() + sizeof(uint32_t) + sizeof(double); }

size_t cd_bodies_shared_bytes(const cd_bodies *b)
{
    size_t bytes = 0;
    for (uint32_t k = 0; k < b->shape_count; ++k) {
        const cd_mesh *m = &b->shapes[k].mesh;
        bytes += cd_bvh_memory(b->shapes[k].bvh) + sizeof *m->verts * m->nverts + sizeof *m->tris * m->ntris;
    }
    return bytes;
}

cd_pose cd_bodies_relative_pose(const cd_bodies *b, uint32_t i, uint32_t j, double *scale)
{
    const cd_scene *s = b->scene;
    cd_quat qa = cd_q_normalize(cd_scene_rot(s, i)), qb = cd_q_normalize(cd_scene_rot(s, j));
    cd_quat inv = {qa.w, -qa.x, -qa.y, -qa.z};
    cd_vec3 t = cd_q_rotate(inv, cd_v3_sub(cd_scene_center(s, j), cd_scene_center(s, i)));
    double si = b->scale[cd_scene_ident(s, i)], sj = b->scale[cd_scene_ident(s, j)];
    *scale = sj / si;
    if (si != 1.0) t = cd_v3_scale(t, 1.0 / si);
    return (cd_pose){cd_q_mul(inv, qb), t};
}

// ---------------------------------------------------------------------------------------------
// The narrow step

// Where a body pair's surfaces touched in the frame before: the leaves of the triangle pair its
// first_hit query found (cd_bvh_result.hit), the hint of its next query (cd_bvh_query_hinted).
typedef struct witness {
    uint64_t key;  ///< (lower body << 32) | higher body; 0 marks an empty slot (the higher body is ≥ 1)
    cd_bvh_hint leaves;
} witness;

typedef struct narrow_part {
    cd_bvh_result res;
    cd_bodies_stats st;
    witness *found;  ///< this frame's witnesses of the part's queries
    size_t nfound, found_cap;
    char pad[64];  // parts run on different threads: no shared cache line between their counters
} narrow_part;

struct cd_bodies_narrow {
    const cd_bodies *bodies;
    cd_bvh_mode mode;
    int box_test;  // test each candidate's body boxes before querying (off under an untested method)
    int witness;   // hint each query with its pair's witness of the frame before (first_hit, solid)
    // Last frame's witnesses, an open-addressed table read by every part (written only by
    // narrow_frame_done, between frames): size mask + 1, a power of two at least twice the count.
    witness *table;
    size_t mask;
    narrow_part parts[CD_NARROW_STEP_PARTS];
};

static const cd_bvh_hint *witness_find(const cd_bodies_narrow *nw, uint64_t key)
{
    if (!nw->table) return NULL;
    for (size_t k = (size_t)cd_hash_slot(key, nw->mask);; k = (k + 1) & nw->mask) {
        if (nw->table[k].key == key) return &nw->table[k].leaves;
        if (!nw->table[k].key) return NULL;
    }
}

// The frame is over: its witnesses, gathered per part, become the table the next frame reads.
static void narrow_frame_done(void *ctx)
{
    cd_bodies_narrow *nw = ctx;
    size_t n = 0;
    for (uint32_t p = 0; p < CD_NARROW_STEP_PARTS; ++p) n += nw->parts[p].nfound;
    size_t size = 16;
    while (size < 2 * n) size *= 2;
    if (!nw->table || nw->mask + 1 != size) {
        cd_free(nw->table);
        nw->table = cd_alloc(sizeof *nw->table * size);
        nw->mask = size - 1;
    }
    memset(nw->table, 0, sizeof *nw->table * size);
    for (uint32_t p = 0; p < CD_NARROW_STEP_PARTS; ++p) {
        narrow_part *np = &nw->parts[p];
        for (size_t i = 0; i < np->nfound; ++i) {
            size_t k = (size_t)cd_hash_slot(np->found[i].key, nw->mask);
            while (nw->table[k].key) k = (k + 1) & nw->mask;
            nw->table[k] = np->found[i];
        }
        np->nfound = 0;
    }
}

// Bodies i and j (slots; bi and bj their numbers) are farther apart than their reaches (the
// farthest vertex from the centre, scaled), so no triangles of theirs touch. In A's frame the
// query sees A's vertices within A's reach over A's scale of the origin and B's within B's reach
// over A's scale of the relative translation, whose length is the centres' distance over A's
// scale, each up to rounding of a few parts in 10¹⁶; the gate leaves a part in 10⁹ of slack on
// both sides.
static inline int spheres_apart(const cd_bodies *b, const cd_scene *s, uint32_t i, uint32_t j, uint32_t bi, uint32_t bj)
{
    const double d = cd_v3_len(cd_v3_sub(cd_scene_center(s, j), cd_scene_center(s, i)));
    const double ri = b->scale[bi] * b->shapes[b->shape_of[bi]].reach,
                 rj = b->scale[bj] * b->shapes[b->shape_of[bj]].reach;
    return d * (1.0 - 1e-9) > (ri + rj) * (1.0 + 1e-9);
}

// Candidates are queried with the lower-numbered body as A, so the counters do not depend on the
// order in which a broad phase reports a pair.
static void bodies_test(void *ctx, const cd_scene *s, uint32_t part, const cd_pair *cand, uint32_t n, cd_pair_list *out,
                        cd_broad_stats *st)
{
    cd_bodies_narrow *nw = ctx;
    const cd_bodies *b = nw->bodies;
    narrow_part *np = &nw->parts[part];
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t i = cand[k].a, j = cand[k].b, bi = cd_scene_ident(s, i), bj = cd_scene_ident(s, j);
        if (bi > bj) {
            uint32_t t = i;
            i = j, j = t, t = bi, bi = bj, bj = t;
        }
        // Each mesh lies in its box and in its reach of the body's centre, so bodies whose spheres
        // or boxes are apart cannot touch: the sphere gate, then the cube scene's exact predicate,
        // spare their queries (a third to a half of the candidates whose world AABBs overlap).
        // Under an untested method (`all`) every candidate is queried.
        if (nw->box_test && (spheres_apart(b, s, i, j, bi, bj) || !cd_cube_pair_overlap(s, i, j))) continue;
        double scale;
        cd_pose pose = cd_bodies_relative_pose(b, i, j, &scale);
        const uint64_t key = (uint64_t)bi << 32 | bj;
        const cd_bvh_hint *hint = nw->witness ? witness_find(nw, key) : NULL;
        cd_bvh_query_hinted(b->shapes[b->shape_of[bi]].bvh, b->shapes[b->shape_of[bj]].bvh, &pose, scale, nw->mode,
                            hint, &np->res);
        np->st.queries++;
        np->st.tri_pairs += np->res.count;
        np->st.bv_tests += cd_bvh_stats_bv_total(&np->res.stats);
        np->st.tri_tests += np->res.stats.tri_tests;
        for (int q = 0; q < CD_BVT_COUNT; ++q) np->st.bv_by_kind[q] += np->res.stats.bv_tests[q];
        if (np->res.overlap) cd_pair_list_push(out, (cd_pair){bi, bj});
        if (nw->witness && np->res.count) {
            cd_grow((void **)&np->found, sizeof *np->found, &np->found_cap, np->nfound + 1);
            np->found[np->nfound++] = (witness){key, np->res.hit};
        }
    }
    st->narrow_tests += n;
}

cd_bodies_narrow *cd_bodies_narrow_create(const cd_bodies *b, cd_bvh_mode mode)
{
    cd_bodies_narrow *n = cd_alloc_zero(1, sizeof *n);
    n->bodies = b;
    n->mode = mode;
    n->box_test = 1;
    n->witness = mode != CD_BVH_ALL_PAIRS;
    return n;
}

void cd_bodies_narrow_set_witness(cd_bodies_narrow *n, int on) { n->witness = on && n->mode != CD_BVH_ALL_PAIRS; }

void cd_bodies_narrow_attach(cd_bodies_narrow *n, cd_broad *bp)
{
    n->box_test = !bp->method->untested;
    cd_narrow_step step = cd_bodies_narrow_step(n);
    cd_broad_set_narrow(bp, &step);
}

void cd_bodies_narrow_destroy(cd_bodies_narrow *n)
{
    if (!n) return;
    for (uint32_t k = 0; k < CD_NARROW_STEP_PARTS; ++k) {
        cd_bvh_result_free(&n->parts[k].res);
        cd_free(n->parts[k].found);
    }
    cd_free(n->table);
    cd_free(n);
}

cd_narrow_step cd_bodies_narrow_step(cd_bodies_narrow *n)
{
    return (cd_narrow_step){bodies_test, n, n->witness ? narrow_frame_done : NULL};
}

cd_bodies_stats cd_bodies_narrow_take_stats(cd_bodies_narrow *n)
{
    cd_bodies_stats sum = {0};
    for (uint32_t k = 0; k < CD_NARROW_STEP_PARTS; ++k) {
        cd_bodies_stats *p = &n->parts[k].st;
        sum.queries += p->queries, sum.tri_pairs += p->tri_pairs, sum.bv_tests += p->bv_tests,
            sum.tri_tests += p->tri_tests;
        for (int q = 0; q < CD_BVT_COUNT; ++q) sum.bv_by_kind[q] += p->bv_by_kind[q];
        memset(p, 0, sizeof *p);
    }
    return sum;
}

// ---------------------------------------------------------------------------------------------
// Reference

void cd_bodies_brute_force(const cd_bodies *b, cd_pair_list *pairs, uint64_t *tri_pairs)
{
    const cd_scene *s = b->scene;
    uint32_t n = s->count;
    uint32_t *slot = cd_scene_slots(s);
    pairs->count = 0;
    *tri_pairs = 0;
    cd_bvh_result res = {0};
    for (uint32_t bi = 0; bi < n; ++bi)
        for (uint32_t bj = bi + 1; bj < n; ++bj) {
            // Each mesh lies in its box (the exact double box of its record), so bodies whose boxes
            // are apart cannot touch: the cube scene's exact predicate only saves the triangle loops.
            if (!cd_cube_pair_overlap(s, slot[bi], slot[bj])) continue;
            double scale;
            cd_pose pose = cd_bodies_relative_pose(b, slot[bi], slot[bj], &scale);
            cd_bvh_brute_force_scaled(&b->shapes[b->shape_of[bi]].mesh, &b->shapes[b->shape_of[bj]].mesh, &pose, scale,
                                      &res);
            if (res.count) cd_pair_list_push(pairs, (cd_pair){bi, bj});
            *tri_pairs += res.count;
        }
    cd_bvh_result_free(&res);
    cd_free(slot);
}
