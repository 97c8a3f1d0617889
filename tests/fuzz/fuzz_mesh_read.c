// SPDX-License-Identifier: MIT
// The mesh reader (cd_mesh_read: line checks, Assimp in a child process, checks of its result) on
// arbitrary bytes, written under the extension they look like (fuzz_mesh_extension).
#include "cd_mesh.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cd_mesh m;
    char err[2048];
    if (cd_mesh_read(fuzz_input_file(data, size, fuzz_mesh_extension(data, size)), &m, err, sizeof err) == 0)
        cd_mesh_free(&m);
    return 0;
}
