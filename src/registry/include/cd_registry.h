// SPDX-License-Identifier: MIT
// Every broad phase and hierarchy variant of this process by name: cdlab's own broad phases
// (cd_broad_builtin_methods), then the peers when they are built, then those that plugins added
// (cd_registry_add_method); cdlab's hierarchy variants (cd_bvh_variants), then the plugins'. The
// runner, `cdlab methods`, `cdlab verify`, the differential test and the benchmarks find methods
// here, so a method added to any list needs no other line.
#ifndef CD_REGISTRY_H
#define CD_REGISTRY_H

#include "cd_broad.h"
#include "cd_bvh.h"

/// The registered methods, cdlab's first; *count receives their number.
const cd_broad_method *const *cd_registry_methods(size_t *count);
/// The method registered under name, or NULL.
const cd_broad_method *cd_registry_find(const char *name);
/// cd_broad_create of the method called name with its defaults and the settings of set it declares
/// (set may be NULL); NULL when no method has that name. The settings must be acceptable values.
cd_broad *cd_registry_create(const char *name, const cd_param_settings *set, int threads, const cd_scene *s);
/// Number of methods built into this program (cdlab's and the peers'): the first of
/// cd_registry_methods; the rest came from plugins.
size_t cd_registry_builtin_count(void);

/// The registered hierarchy variants, cdlab's first; *count receives their number.
const cd_bvh_variant *const *cd_registry_variants(size_t *count);
/// The variant registered under name, or NULL.
const cd_bvh_variant *cd_registry_variant_find(const char *name);

/// Add methods m[0, nm) and variants v[0, nv) (a plugin's; they must outlive the process's use of
/// the registry), all or none: -1 with the reason in why when a name is taken (by a built-in or
/// an earlier addition, or twice in the lists) or the registry is full. The methods added are
/// untrusted code: every frame checks their candidates (cd_broad_check_candidates). Not
/// thread-safe: add before any thread reads the registry.
int cd_registry_add(const cd_broad_method *const *m, size_t nm, const cd_bvh_variant *v, size_t nv, char *why,
                    size_t why_len);

#endif
