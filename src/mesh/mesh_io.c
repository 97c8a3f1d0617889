// SPDX-License-Identifier: MIT
// Mesh files through Assimp's C API. Assimp parses and triangulates; we bake node transforms,
// join sub-meshes and weld by exact position ourselves, because Assimp's JoinIdenticalVertices
// also compares normals, which leaves an STL (one normal per face) as a triangle soup.
#include "cd_mesh.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <stdio.h>

int cd_mesh_read(const char *path, cd_mesh *m, char *err, size_t err_len)
{
    unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices |
                     aiProcess_SortByPType;
    const struct aiScene *sc = aiImportFile(path, flags);
    if (!sc) {
        snprintf(err, err_len, "%s: %s", path, aiGetErrorString());
        return -1;
    }
    uint64_t nv = 0, nt = 0;
    for (unsigned i = 0; i < sc->mNumMeshes; ++i) {
        const struct aiMesh *am = sc->mMeshes[i];
        nv += am->mNumVertices;
        for (unsigned f = 0; f < am->mNumFaces; ++f) nt += am->mFaces[f].mNumIndices == 3;
    }
    if (nt == 0 || nv > UINT32_MAX || nt > UINT32_MAX) {
        snprintf(err, err_len, "%s: expected between 1 and 2^32-1 triangles and vertices, found %llu triangles",
                 path, (unsigned long long)nt);
        aiReleaseImport(sc);
        return -1;
    }
    cd_mesh_alloc(m, (uint32_t)nv, (uint32_t)nt);
    uint32_t vbase = 0, t = 0;
    for (unsigned i = 0; i < sc->mNumMeshes; ++i) {
        const struct aiMesh *am = sc->mMeshes[i];
        for (unsigned v = 0; v < am->mNumVertices; ++v) {
            struct aiVector3D p = am->mVertices[v];
            m->verts[vbase + v] = cd_v3(p.x, p.y, p.z);
            if (!isfinite(m->verts[vbase + v].x) || !isfinite(m->verts[vbase + v].y) ||
                !isfinite(m->verts[vbase + v].z)) {
                snprintf(err, err_len, "%s: vertex %u of mesh %u is not finite", path, v, i);
                aiReleaseImport(sc);
                cd_mesh_free(m);
                return -1;
            }
        }
        for (unsigned f = 0; f < am->mNumFaces; ++f) {
            const struct aiFace *af = &am->mFaces[f];
            if (af->mNumIndices != 3) continue;  // points and lines: no surface to collide
            for (int k = 0; k < 3; ++k) m->tris[t][k] = vbase + af->mIndices[k];
            ++t;
        }
        vbase += am->mNumVertices;
    }
    aiReleaseImport(sc);
    cd_mesh_weld(m);
    return 0;
}
