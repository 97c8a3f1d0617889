// SPDX-License-Identifier: MIT
// The reader's second and third gates on their own, for the tests that must reach them without
// the first (text_check.h) in the way.
#ifndef CD_MESH_IMPORT_H
#define CD_MESH_IMPORT_H

#include "cd_mesh.h"

#include <stddef.h>

/// Assimp on path in a child process; m holds the joined triangles on success (not welded, not
/// checked). -1 with "path: what went wrong" in err when Assimp reports an error, or its process
/// dies, exits non-zero, cuts its report short or outlives its deadline (60 s + 2 s per MiB of
/// file_size, or CDLAB_MESH_READ_TIMEOUT seconds).
int mesh_import_isolated(const char *path, long long file_size, cd_mesh *m, char *err, size_t err_len);
/// 0 when every coordinate is finite, every index names a vertex and some triangle has non-zero
/// area; else -1 with "path: what" in err.
int mesh_check_imported(const char *path, const cd_mesh *m, char *err, size_t err_len);

#endif
