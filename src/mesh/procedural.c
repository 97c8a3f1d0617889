// SPDX-License-Identifier: MIT
// Procedural meshes with a face-count parameter: geodesic sphere, torus, noisy sphere, pencil.
// Every generator yields a closed, outward-oriented mesh (checked by tests/test_mesh.c).
#include "cd_mesh.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// Flip every triangle when the signed volume is negative, so generators need not track winding.
static void orient_outward(cd_mesh *m)
{
    if (cd_mesh_volume(m) >= 0.0) return;
    for (uint32_t t = 0; t < m->ntris; ++t) {
        uint32_t k = m->tris[t][1];
        m->tris[t][1] = m->tris[t][2];
        m->tris[t][2] = k;
    }
}

static uint32_t round_at_least(double x, uint32_t lo)
{
    double r = floor(x + 0.5);
    return r < lo ? lo : (uint32_t)r;
}

// Each generator's grid for a requested face count, shared by the generator and by
// cd_mesh_generator_faces, so what the latter says is what the former makes.
static uint32_t icosphere_split(uint32_t faces) { return round_at_least(sqrt(faces / 20.0), 1); }  // 20·f² faces
static uint32_t torus_rings(uint32_t faces) { return round_at_least(sqrt(faces / 4.0), 3); }       // 4·n² faces
static void pencil_grid(uint32_t faces, uint32_t *sides, uint32_t *rings)                          // 2·s·rings
{
    *sides = round_at_least(sqrt(faces / 8.0), 3);
    *rings = round_at_least(faces / (2.0 * *sides), 2);
}

// Lattice point with barycentric weights (a, b, c), a + b + c = f. Points on an edge shared by two
// faces are computed from the same two products (the third is ±0, and x + y = y + x exactly), so
// they are bit-identical and cd_mesh_weld joins them.
static cd_vec3 lattice(cd_vec3 A, cd_vec3 B, cd_vec3 C, uint32_t a, uint32_t b, uint32_t c, uint32_t f)
{
    cd_vec3 p = cd_v3_add(cd_v3_add(cd_v3_scale(A, a), cd_v3_scale(B, b)), cd_v3_scale(C, c));
    if (a == 0) p = cd_v3_add(cd_v3_scale(B, b), cd_v3_scale(C, c));
    if (b == 0) p = cd_v3_add(cd_v3_scale(A, a), cd_v3_scale(C, c));
    if (c == 0) p = cd_v3_add(cd_v3_scale(A, a), cd_v3_scale(B, b));
    p = cd_v3_scale(p, 1.0 / f);
    return cd_v3_normalize(p);
}

void cd_mesh_icosphere(cd_mesh *m, uint32_t faces)
{
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    const cd_vec3 ico[12] = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                             {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    static const uint8_t face[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                        {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                        {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                        {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    uint32_t f = icosphere_split(faces);
    uint32_t per_face = (f + 1) * (f + 2) / 2;
    cd_mesh_alloc(m, 20 * per_face, 20 * f * f);
    uint32_t nt = 0;
    for (int q = 0; q < 20; ++q) {
        cd_vec3 A = ico[face[q][0]], B = ico[face[q][1]], C = ico[face[q][2]];
        uint32_t base = q * per_face;
        // Row i holds i + 1 points; point (i, j) has weights (f − i, i − j, j).
        for (uint32_t i = 0; i <= f; ++i)
            for (uint32_t j = 0; j <= i; ++j)
                m->verts[base + i * (i + 1) / 2 + j] = lattice(A, B, C, f - i, i - j, j, f);
        for (uint32_t i = 0; i < f; ++i)
            for (uint32_t j = 0; j <= i; ++j) {
                uint32_t p = base + i * (i + 1) / 2 + j, d = base + (i + 1) * (i + 2) / 2 + j;
                m->tris[nt][0] = p, m->tris[nt][1] = d, m->tris[nt][2] = d + 1, ++nt;
                if (j < i) m->tris[nt][0] = p, m->tris[nt][1] = d + 1, m->tris[nt][2] = p + 1, ++nt;
            }
    }
    CD_ASSERT(nt == m->ntris);
    cd_mesh_weld(m);
    orient_outward(m);
}

void cd_mesh_torus(cd_mesh *m, uint32_t faces)
{
    const double R = 1.0, r = 0.35;
    uint32_t n = torus_rings(faces), nu = 2 * n;
    cd_mesh_alloc(m, nu * n, 2 * nu * n);
    for (uint32_t i = 0; i < nu; ++i)
        for (uint32_t j = 0; j < n; ++j) {
            double u = 2.0 * M_PI * i / nu, v = 2.0 * M_PI * j / n;
            m->verts[i * n + j] = cd_v3((R + r * cos(v)) * cos(u), (R + r * cos(v)) * sin(u), r * sin(v));
        }
    uint32_t nt = 0;
    for (uint32_t i = 0; i < nu; ++i)
        for (uint32_t j = 0; j < n; ++j) {
            uint32_t a = i * n + j, b = ((i + 1) % nu) * n + j;
            uint32_t c = ((i + 1) % nu) * n + (j + 1) % n, d = i * n + (j + 1) % n;
            m->tris[nt][0] = a, m->tris[nt][1] = b, m->tris[nt][2] = c, ++nt;
            m->tris[nt][0] = a, m->tris[nt][1] = c, m->tris[nt][2] = d, ++nt;
        }
    orient_outward(m);
}

// Smooth noise of a unit direction: a fixed sum of products of sines at several frequencies.
// Fixed constants (no RNG) so "noisy_sphere:N" names the same surface everywhere.
static double noise(cd_vec3 d)
{
    return 0.5 * sin(3.1 * d.x + 0.7) * sin(2.3 * d.y + 1.9) * sin(2.7 * d.z + 0.4) +
           0.3 * sin(7.3 * d.x + 2.1 * d.y + 0.3) * cos(6.1 * d.z - 1.1) +
           0.2 * sin(13.7 * d.y + 11.3 * d.z + 2.5) * cos(12.9 * d.x + 0.8);
}

void cd_mesh_noisy_sphere(cd_mesh *m, uint32_t faces)
{
    cd_mesh_icosphere(m, faces);
    // |noise| ≤ 1, so the radius stays in [0.85, 1.15]: still star-shaped, hence still embedded.
    for (uint32_t i = 0; i < m->nverts; ++i) m->verts[i] = cd_v3_scale(m->verts[i], 1.0 + 0.15 * noise(m->verts[i]));
}

void cd_mesh_pencil(cd_mesh *m, uint32_t faces)
{
    const double x0 = -1.0, x1 = 0.8, tip = 1.0, rho = 0.06;
    uint32_t s, rings;
    pencil_grid(faces, &s, &rings);
    cd_mesh_alloc(m, s * rings + 2, 2 * s * rings);
    for (uint32_t k = 0; k < rings; ++k)
        for (uint32_t j = 0; j < s; ++j) {
            double a = 2.0 * M_PI * j / s, x = x0 + (x1 - x0) * k / (rings - 1);
            m->verts[k * s + j] = cd_v3(x, rho * cos(a), rho * sin(a));
        }
    uint32_t cap = s * rings, apex = cap + 1, nt = 0;
    m->verts[cap] = cd_v3(x0, 0, 0);
    m->verts[apex] = cd_v3(tip, 0, 0);
    uint32_t last = (rings - 1) * s;
    for (uint32_t j = 0; j < s; ++j) {
        uint32_t j1 = (j + 1) % s;
        m->tris[nt][0] = cap, m->tris[nt][1] = j1, m->tris[nt][2] = j, ++nt;
        m->tris[nt][0] = last + j, m->tris[nt][1] = last + j1, m->tris[nt][2] = apex, ++nt;
        for (uint32_t k = 0; k + 1 < rings; ++k) {
            uint32_t a = k * s + j, b = k * s + j1, c = (k + 1) * s + j1, d = (k + 1) * s + j;
            m->tris[nt][0] = a, m->tris[nt][1] = b, m->tris[nt][2] = c, ++nt;
            m->tris[nt][0] = a, m->tris[nt][1] = c, m->tris[nt][2] = d, ++nt;
        }
    }
    CD_ASSERT(nt == m->ntris);
    orient_outward(m);
}

void cd_mesh_box(cd_mesh *m)
{
    cd_mesh_alloc(m, 8, 12);
    for (uint32_t v = 0; v < 8; ++v) m->verts[v] = cd_v3(v & 1 ? 1 : -1, v & 2 ? 1 : -1, v & 4 ? 1 : -1);
    // Two triangles per face, counter-clockwise seen from outside.
    static const uint32_t quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; ++f) {
        const uint32_t *q = quads[f];
        m->tris[2 * f][0] = q[0], m->tris[2 * f][1] = q[1], m->tris[2 * f][2] = q[2];
        m->tris[2 * f + 1][0] = q[0], m->tris[2 * f + 1][1] = q[2], m->tris[2 * f + 1][2] = q[3];
    }
}

uint32_t cd_mesh_generator_faces(const char *name, uint32_t faces)
{
    if (strcmp(name, "icosphere") == 0 || strcmp(name, "noisy_sphere") == 0) {
        uint32_t f = icosphere_split(faces);
        return 20 * f * f;
    }
    if (strcmp(name, "torus") == 0) {
        uint32_t n = torus_rings(faces);
        return 4 * n * n;
    }
    if (strcmp(name, "pencil") == 0) {
        uint32_t sides, rings;
        pencil_grid(faces, &sides, &rings);
        return 2 * sides * rings;
    }
    return 0;
}

static const struct {
    const char *name;
    void (*make)(cd_mesh *, uint32_t);
} generators[] = {{"icosphere", cd_mesh_icosphere},
                  {"torus", cd_mesh_torus},
                  {"noisy_sphere", cd_mesh_noisy_sphere},
                  {"pencil", cd_mesh_pencil}};

// The generator spec's entry in generators[], or -1; *n its count when in range, else 0.
static int generator_of(const char *spec, uint32_t *n)
{
    *n = 0;
    const char *colon = strchr(spec, ':');
    for (size_t k = 0; colon && k < sizeof generators / sizeof generators[0]; ++k) {
        size_t len = strlen(generators[k].name);
        if ((size_t)(colon - spec) != len || strncmp(spec, generators[k].name, len) != 0) continue;
        // Decimal digits only: strtoull alone would take " 5", "+5" and "-1" (wrapped).
        const char *digits = colon + 1;
        size_t nd = strspn(digits, "0123456789");
        if (nd && digits[nd] == '\0') {
            errno = 0;
            unsigned long long v = strtoull(digits, NULL, 10);
            if (!errno && v >= 1 && v <= 10000000ull) *n = (uint32_t)v;
        }
        return (int)k;
    }
    return -1;
}

int cd_mesh_parse_generator_spec(const char *spec, uint32_t *faces)
{
    int k = generator_of(spec, faces);
    return k < 0 ? 0 : *faces ? 1 : -1;
}

int cd_mesh_from_spec(const char *spec, cd_mesh *m, char *err, size_t err_len)
{
    if (strcmp(spec, "box") == 0) {
        cd_mesh_box(m);
        return 0;
    }
    uint32_t n;
    int k = generator_of(spec, &n);
    if (k < 0) return cd_mesh_read(spec, m, err, err_len);
    if (!n) {
        snprintf(err, err_len, "%s: expected %s:N with N faces in 1..10000000", spec, generators[k].name);
        return -1;
    }
    generators[k].make(m, n);
    return 0;
}
