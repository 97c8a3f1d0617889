// SPDX-License-Identifier: MIT
// The mesh reader (cd_mesh_read: line checks, Assimp in a child process, checks of its result) on
// arbitrary bytes, written under the extension they look like (fuzz_mesh_extension). A rejected
// file gets a message naming it; an accepted mesh has triangles, indices in range and finite
// coordinates.
#include "cd_mesh.h"
#include "fuzz_util.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cd_mesh m;
    char err[2048];
    const char *path = fuzz_input_file(data, size, fuzz_mesh_extension(data, size));
    err[0] = '\0';
    if (cd_mesh_read(path, &m, err, sizeof err) == 0) {
        FUZZ_CHECK(m.ntris >= 1, "accepted with no triangle");
        for (uint32_t v = 0; v < m.nverts; ++v)
            FUZZ_CHECK(isfinite(m.verts[v].x) && isfinite(m.verts[v].y) && isfinite(m.verts[v].z), "vertex %u", v);
        for (uint32_t t = 0; t < m.ntris; ++t)
            FUZZ_CHECK(m.tris[t][0] < m.nverts && m.tris[t][1] < m.nverts && m.tris[t][2] < m.nverts, "triangle %u", t);
        cd_mesh_free(&m);
    } else {
        FUZZ_CHECK(strstr(err, path) != NULL, "the message does not name the file: '%s'", err);
    }
    return 0;
}
