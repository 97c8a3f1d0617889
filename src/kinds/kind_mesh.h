// SPDX-License-Identifier: MIT
// The mesh kind's checks of mesh specs and hierarchy names, shared with the bodies kind. Private
// to the kinds module.
#ifndef KIND_MESH_H
#define KIND_MESH_H

#include "cd_bvh.h"
#include "cd_harness.h"

#include <stddef.h>

/// A bare generator name ("torus"), whose face count comes from a faces key.
int kinds_is_bare_generator(const char *w);
/// A generator spec ("torus:5000", "box"); anything else that is not a bare name is a file path.
int kinds_is_generator_spec(const char *w);
/// Config check of a mesh spec's syntax: NULL for a generator spec with N in 1..10⁷, a bare
/// generator name, "box" or anything else (a file: the kind's validate reads it, relative to the
/// config's directory); else what was expected.
const char *kinds_check_mesh(const char *w);
/// The mesh spec as cd_mesh_from_spec takes it: a generator spec as it is, a file path resolved
/// against c's directory (cd_config_resolve), into out.
void kinds_mesh_path(const cd_config *c, const char *spec, char *out, size_t len);
/// Warnings on c for a faces key sweeping the bare generators names[0, n): counts a generator
/// rounds by more than a tenth (icosphere makes 20·f² triangles: asked for 40 it makes 20), and two
/// counts that make the same meshes (their points measure one scene under two labels).
void kinds_warn_rounded_faces(cd_config *c, const cd_config_key *faces, const char *const *names, size_t n);
/// Config check of a hierarchy variant name: NULL, or the variants there are.
const char *kinds_check_hierarchy(const char *w);
/// 0 when plan, variant v's at parameters vp, can be built (cd_bvh_plan_check); else -1 with why
/// in why: the variant, its plugin, the parameters and what is wrong. The kinds check every plan
/// they compute before building it.
int kinds_plan_refused(const cd_bvh_variant *v, const cd_params *vp, const cd_bvh_plan *plan, char *why, size_t len);
/// Config check of [method] hierarchy: the plan of each plugin variant it lists at every
/// combination of the values the config gives its parameters. 0, or -1 after cd_config_error.
int kinds_check_plans(cd_config *c, char *err, size_t err_len);

#endif
