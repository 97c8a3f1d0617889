// SPDX-License-Identifier: MIT
// Every broad phase of this build by name: cdlab's own (cd_broad_builtin_methods), then the peers
// when they are built. The runner, `cdlab methods`, the differential test and the benchmarks find
// methods here, so a method added to either list needs no other line.
#ifndef CD_REGISTRY_H
#define CD_REGISTRY_H

#include "cd_broad.h"

/// The registered methods, cdlab's first; *count receives their number.
const cd_broad_method *const *cd_registry_methods(size_t *count);
/// The method registered under name, or NULL.
const cd_broad_method *cd_registry_find(const char *name);
/// cd_broad_create of the method called name (NULL when no method has that name).
cd_broad *cd_registry_create(const char *name, const cd_broad_params *p, const cd_scene *s);

#endif
