// SPDX-License-Identifier: MIT
// What the fuzz targets share: the input as a file, because cdlab's readers take paths.
#ifndef CD_FUZZ_UTIL_H
#define CD_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// What a reader promises, checked on every input: a broken promise aborts, which libFuzzer and
/// the replay tests report as a failure with the message.
#define FUZZ_CHECK(cond, ...)                                                 \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: %s failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

/// Write data to a per-process file ending in ext ("csv", "off", ...) and return its path
/// (a static buffer, reused by the next call). Aborts when the file cannot be written, which is
/// the harness's failure, not the reader's.
static inline const char *fuzz_input_file(const uint8_t *data, size_t size, const char *ext)
{
    static char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cdlab-fuzz-%ld.%s", dir && *dir ? dir : "/tmp", (long)getpid(), ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/// The extension a mesh input is written with, from what its bytes look like, so each of Assimp's
/// readers gets inputs: .off for an OFF keyword, .ply for "ply", .stl for "solid" or binary
/// bytes in the first 84, else .obj.
static inline const char *fuzz_mesh_extension(const uint8_t *data, size_t size)
{
    size_t i = 0;
    while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r')) ++i;
    const char *t = (const char *)data + i;
    size_t left = size - i;
    if (left >= 3 && (memcmp(t, "OFF", 3) == 0 || (left >= 4 && memcmp(t + 1, "OFF", 3) == 0))) return "off";
    if (left >= 3 && memcmp(t, "ply", 3) == 0) return "ply";
    if (left >= 5 && memcmp(t, "solid", 5) == 0) return "stl";
    for (size_t k = 0; k < size && k < 84; ++k)
        if (data[k] == 0 || data[k] >= 0x80) return "stl";
    return "obj";
}

#endif
