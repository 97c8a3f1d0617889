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

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : (a > b);
}

int cd_mesh_is_closed(const cd_mesh *m)
{
    if (m->ntris == 0) return 0;
    size_t n = (size_t)m->ntris * 3;
    uint64_t *e = cd_alloc(sizeof *e * n);
    for (uint32_t t = 0; t < m->ntris; ++t)
        for (int k = 0; k < 3; ++k) {
            uint64_t a = m->tris[t][k], b = m->tris[t][(k + 1) % 3];
            if (a == b) {
                cd_free(e);
                return 0;
            }
            e[3 * (size_t)t + k] = a << 32 | b;
        }
    qsort(e, n, sizeof *e, cmp_u64);
    int closed = 1;
    for (size_t i = 0; i < n && closed; ++i) {
        if (i + 1 < n && e[i] == e[i + 1]) closed = 0;  // a directed edge used twice
        uint64_t rev = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
        if (!bsearch(&rev, e, n, sizeof *e, cmp_u64)) closed = 0;  // a boundary edge
    }
    cd_free(e);
    return closed;
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
