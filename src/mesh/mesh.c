// SPDX-License-Identifier: MIT
// The mesh type and what every source shares: welding, normalisation, closedness, volume.
#include "cd_mesh.h"

#include <stdlib.h>
#include <string.h>

void cd_mesh_alloc(cd_mesh *m, uint32_t nverts, uint32_t ntris)
{
    m->verts = cd_alloc(sizeof(cd_vec3) * (nverts ? nverts : 1));
    m->tris = cd_alloc(sizeof(*m->tris) * (ntris ? ntris : 1));
    m->nverts = nverts;
    m->ntris = ntris;
}

void cd_mesh_free(cd_mesh *m)
{
    cd_free(m->verts);
    cd_free(m->tris);
    memset(m, 0, sizeof *m);
}

typedef struct weld_item {
    cd_vec3 p;
    uint32_t index;
} weld_item;

static int cmp_weld(const void *pa, const void *pb)
{
    const weld_item *a = pa, *b = pb;
    if (a->p.x != b->p.x) return a->p.x < b->p.x ? -1 : 1;
    if (a->p.y != b->p.y) return a->p.y < b->p.y ? -1 : 1;
    if (a->p.z != b->p.z) return a->p.z < b->p.z ? -1 : 1;
    return a->index < b->index ? -1 : (a->index > b->index);
}

// Sorting (not hashing) keeps the result independent of any hash function and makes ties
// resolve to the lowest original index, so welding is deterministic.
void cd_mesh_weld(cd_mesh *m)
{
    uint32_t n = m->nverts;
    if (n == 0) return;
    weld_item *items = cd_alloc(sizeof *items * n);
    for (uint32_t i = 0; i < n; ++i) items[i] = (weld_item){m->verts[i], i};
    qsort(items, n, sizeof *items, cmp_weld);
    uint32_t *rep = cd_alloc(sizeof *rep * n);  // original index -> representative original index
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && cmp_weld(&(weld_item){items[i].p, 0}, &(weld_item){items[j].p, 0}) == 0) ++j;
        for (uint32_t k = i; k < j; ++k) rep[items[k].index] = items[i].index;
        i = j;
    }
    cd_free(items);
    // Keep representatives that some triangle uses, in first-appearance order.
    uint32_t *newid = cd_alloc(sizeof *newid * n);
    for (uint32_t i = 0; i < n; ++i) newid[i] = UINT32_MAX;
    uint32_t count = 0;
    for (uint32_t t = 0; t < m->ntris; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t r = rep[m->tris[t][k]];
            if (newid[r] == UINT32_MAX) newid[r] = count++;
            m->tris[t][k] = newid[r];
        }
    cd_vec3 *verts = cd_alloc(sizeof *verts * (count ? count : 1));
    for (uint32_t i = 0; i < n; ++i)
        if (newid[i] != UINT32_MAX) verts[newid[i]] = m->verts[i];
    cd_free(m->verts);
    m->verts = verts;
    m->nverts = count;
    cd_free(rep);
    cd_free(newid);
}

void cd_mesh_normalize(cd_mesh *m)
{
    if (m->nverts == 0) return;
    cd_vec3 lo = m->verts[0], hi = m->verts[0];
    for (uint32_t i = 1; i < m->nverts; ++i) {
        lo = cd_v3_min(lo, m->verts[i]);
        hi = cd_v3_max(hi, m->verts[i]);
    }
    cd_vec3 c = cd_v3_scale(cd_v3_add(lo, hi), 0.5);
    cd_vec3 h = cd_v3_scale(cd_v3_sub(hi, lo), 0.5);
    double e = fmax(h.x, fmax(h.y, h.z));
    double s = e > 0.0 ? 1.0 / e : 1.0;
    for (uint32_t i = 0; i < m->nverts; ++i) {
        cd_vec3 p = cd_v3_scale(cd_v3_sub(m->verts[i], c), s);
        // Rounding may push an extreme coordinate a hair past ±1; the contract is [-1,1]³.
        p = cd_v3_max(cd_v3(-1, -1, -1), cd_v3_min(cd_v3(1, 1, 1), p));
        m->verts[i] = p;
    }
}

// Directed edges bucketed by their first vertex (counting sort, linear time): each edge (a, b)
// must occur once among a's out-edges and its reverse once among b's. Vertex degrees are small,
// so the scans are short; this replaced a qsort that cost as much as building an AABB tree.
int cd_mesh_is_closed(const cd_mesh *m)
{
    if (m->ntris == 0) return 0;
    uint32_t nv = m->nverts;
    size_t ne = (size_t)m->ntris * 3;
    size_t *start = cd_alloc_zero((size_t)nv + 1, sizeof *start);
    uint32_t *to = cd_alloc(sizeof *to * ne);
    for (uint32_t t = 0; t < m->ntris; ++t)
        for (int k = 0; k < 3; ++k) start[m->tris[t][k] + 1]++;
    for (uint32_t v = 0; v < nv; ++v) start[v + 1] += start[v];
    size_t *fill = cd_alloc(sizeof *fill * ((size_t)nv + 1));
    for (uint32_t v = 0; v <= nv; ++v) fill[v] = start[v];
    int closed = 1;
    for (uint32_t t = 0; t < m->ntris && closed; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = m->tris[t][k], b = m->tris[t][(k + 1) % 3];
            if (a == b) closed = 0;  // degenerate index triple
            to[fill[a]++] = b;
        }
    for (uint32_t a = 0; a < nv && closed; ++a)
        for (size_t i = start[a]; i < start[a + 1] && closed; ++i) {
            uint32_t b = to[i];
            int same = 0, rev = 0;
            for (size_t j = start[a]; j < start[a + 1]; ++j) same += to[j] == b;
            for (size_t j = start[b]; j < start[b + 1]; ++j) rev += to[j] == a;
            closed = same == 1 && rev == 1;  // no edge used twice in one direction, no boundary
        }
    cd_free(start);
    cd_free(fill);
    cd_free(to);
    return closed;
}

// Union-find over the vertices, each triangle joining its three (path halving, the smaller root
// kept: the result does not depend on the order of the unions).
static uint32_t part_root(uint32_t *up, uint32_t v)
{
    while (up[v] != v) v = up[v] = up[up[v]];
    return v;
}

uint32_t cd_mesh_part_vertices(const cd_mesh *m, uint32_t *vertex)
{
    if (m->ntris == 0) return 0;
    uint32_t *up = cd_alloc(sizeof *up * ((size_t)m->nverts + 1)), count = 0;
    for (uint32_t v = 0; v < m->nverts; ++v) up[v] = v;
    for (uint32_t t = 0; t < m->ntris; ++t)
        for (int k = 1; k < 3; ++k) {
            uint32_t a = part_root(up, m->tris[t][0]), b = part_root(up, m->tris[t][k]);
            if (a != b) up[a > b ? a : b] = a < b ? a : b;
        }
    uint8_t *listed = cd_alloc_zero((size_t)m->nverts + 1, 1);  // by root: its part is listed
    for (uint32_t t = 0; t < m->ntris; ++t) {
        uint32_t r = part_root(up, m->tris[t][0]);
        if (!listed[r]) listed[r] = 1, vertex[count++] = m->tris[t][0];
    }
    cd_free(listed);
    cd_free(up);
    return count;
}

double cd_mesh_volume(const cd_mesh *m)
{
    double v = 0.0;
    for (uint32_t t = 0; t < m->ntris; ++t) {
        cd_vec3 a = m->verts[m->tris[t][0]], b = m->verts[m->tris[t][1]], c = m->verts[m->tris[t][2]];
        v += cd_v3_dot(a, cd_v3_cross(b, c));
    }
    return v / 6.0;
}
