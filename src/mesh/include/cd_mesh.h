// SPDX-License-Identifier: MIT
// cdlab meshes: an indexed triangle mesh, procedural meshes with a face-count parameter (so tests
// and default experiments need no files), a reader for OBJ/PLY/STL/OFF/... through Assimp's C
// API, vertex welding, normalisation into [-1,1]³ and a closedness check.
#ifndef CD_MESH_H
#define CD_MESH_H

#include "cd_core.h"

#include <stdint.h>

/// Indexed triangle mesh: tris[i] holds three indices into verts. Owns both arrays.
typedef struct cd_mesh {
    cd_vec3 *verts;
    uint32_t (*tris)[3];
    uint32_t nverts, ntris;
} cd_mesh;

/// Free the arrays of m and zero it (m itself is the caller's; NULL arrays allowed).
void cd_mesh_free(cd_mesh *m);
/// Allocate m for nverts vertices and ntris triangles (contents uninitialised).
void cd_mesh_alloc(cd_mesh *m, uint32_t nverts, uint32_t ntris);

/// Merge vertices with bit-identical coordinates, remap the triangles, drop unused vertices.
/// Order-stable: the surviving vertices keep their first-appearance order.
void cd_mesh_weld(cd_mesh *m);
/// Scale m into [-1,1]³ about its bounding-box centre by one uniform factor (the largest
/// half-extent becomes 1). A mesh whose vertices all coincide is only translated.
void cd_mesh_normalize(cd_mesh *m);
/// True when m is a closed, consistently oriented 2-manifold surface: every directed edge (a,b)
/// occurs exactly once and its reverse (b,a) occurs exactly once. Point-in-mesh needs this.
int cd_mesh_is_closed(const cd_mesh *m);
/// One vertex of each connected part of m's surface (triangles sharing a vertex are connected),
/// into vertex[0, count): the first vertex of each part's first triangle, parts in the order of
/// their first triangles (so vertex[0] = tris[0][0]). vertex holds m->ntris entries or more;
/// returns the count (0 for no triangles).
uint32_t cd_mesh_part_vertices(const cd_mesh *m, uint32_t *vertex);
/// Signed volume (divergence theorem); positive for a closed mesh with outward orientation.
double cd_mesh_volume(const cd_mesh *m);

/// Geodesic sphere of radius 1: the icosahedron with each face split into f² triangles,
/// f = max(1, round(sqrt(faces/20))), so the face count is 20·f² ≈ faces. Closed.
void cd_mesh_icosphere(cd_mesh *m, uint32_t faces);
/// Torus with major radius 1, minor radius 0.35 on a 2n×n quad grid, n = max(3,
/// round(sqrt(faces/4))), so 4·n² ≈ faces triangles. Closed.
void cd_mesh_torus(cd_mesh *m, uint32_t faces);
/// Geodesic sphere (as cd_mesh_icosphere) with its radius modulated by a fixed smooth noise of
/// the direction (amplitude 0.15), so the surface has bumps and pits at several scales. Closed.
void cd_mesh_noisy_sphere(cd_mesh *m, uint32_t faces);
/// A long thin pencil along x: an s-gon prism of length 1.8 and radius 0.06 with a flat cap at
/// x = −1 and a conical tip ending at x = +1, about faces triangles. Closed; for near misses.
void cd_mesh_pencil(cd_mesh *m, uint32_t faces);

/// The triangles the generator named name (icosphere, torus, noisy_sphere, pencil) makes when
/// asked for faces, without making it (the sizes round to its grid: icosphere:40 has 20); 0 for
/// another name.
uint32_t cd_mesh_generator_faces(const char *name, uint32_t faces);

/// The cube [-1,1]³ as 12 triangles, outward: a body scene of boxes is the cube scene.
void cd_mesh_box(cd_mesh *m);

/// Read any format Assimp knows (OBJ, PLY, STL, OFF, ...): triangulated, node transforms baked
/// in, all sub-meshes joined, identical vertices welded; points and lines are dropped. Returns 0,
/// or -1 with "path: Assimp's message" (or what was missing) in err.
int cd_mesh_read(const char *path, cd_mesh *m, char *err, size_t err_len);
/// Parse a generator spec "name:N" (name one of icosphere, torus, noisy_sphere, pencil; N in
/// decimal digits only, 1 ≤ N ≤ 10⁷). Returns 1 with *faces = N, 0 when spec names no generator
/// followed by a colon (a bare name, "box", a file path), or -1 when it does and N is not such a
/// count ("icosphere:1e3", "torus:+5", "pencil:0").
int cd_mesh_parse_generator_spec(const char *spec, uint32_t *faces);
/// Build the mesh named by spec: "box", "icosphere:N", "torus:N", "noisy_sphere:N", "pencil:N"
/// (N faces, 1 ≤ N ≤ 10⁷), or else a file path read by cd_mesh_read. Returns 0, or -1 with a
/// message in err. The mesh is not normalised.
int cd_mesh_from_spec(const char *spec, cd_mesh *m, char *err, size_t err_len);

#endif
