// SPDX-License-Identifier: MIT
// SHA-256 (FIPS 180-4): the digests of meta.ini (the config, its input files, the CSVs a run
// writes) and of the simulation cache's traces. In core, below the harness, so that the cache
// (src/simulate/) digests what it bakes. Not installed: libcdlab's headers do not offer it.
#ifndef CD_SHA256_H
#define CD_SHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256 of data as 64 lowercase hex digits plus NUL.
void cd_sha256_hex(const void *data, size_t len, char out[65]);
/// SHA-256 of the file at path (read in pieces) and its size. 0, or the errno of the failure.
int cd_sha256_file(const char *path, char out[65], uint64_t *bytes);

#endif
