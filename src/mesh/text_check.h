// SPDX-License-Identifier: MIT
// Line-by-line checks of the text mesh formats (OFF, OBJ, ASCII STL, and PLY's header) before any
// third-party parser sees the bytes: a file that passes has only decimal numbers where numbers
// belong, coordinates that Assimp reads as the nearest floats, every face index in range and no
// stray bytes, so the errors a user gets name the line, and Assimp reads what was checked.
#ifndef CD_MESH_TEXT_CHECK_H
#define CD_MESH_TEXT_CHECK_H

#include <stddef.h>

typedef enum mesh_text_format {
    MESH_TEXT_NONE,
    MESH_TEXT_OFF,
    MESH_TEXT_OBJ,
    MESH_TEXT_PLY,
    MESH_TEXT_STL
} mesh_text_format;

/// The format the reader must check: by the name's extension (.off, .obj, .ply, .stl, any case), else
/// by the content (a first token OFF, a first line ply), else MESH_TEXT_NONE (other formats).
mesh_text_format mesh_text_format_of(const char *name, const char *data, size_t n);

/// Check data (n bytes) as fmt. Returns 0, or -1 with "name:LINE: what is wrong" in err.
int mesh_text_check(mesh_text_format fmt, const char *name, const char *data, size_t n, char *err, size_t err_len);

#endif
