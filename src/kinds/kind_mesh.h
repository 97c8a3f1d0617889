// SPDX-License-Identifier: MIT
// The mesh kind's checks of mesh specs and hierarchy names, shared with the bodies kind. Private
// to the kinds module.
#ifndef KIND_MESH_H
#define KIND_MESH_H

/// A bare generator name ("torus"), whose face count comes from a faces key.
int kinds_is_bare_generator(const char *w);
/// A generator spec ("torus:5000", "box"); anything else that is not a bare name is a file path.
int kinds_is_generator_spec(const char *w);
/// Config check of a mesh spec: NULL for a generator spec with N in 1..10⁷, a bare generator name,
/// "box" or a readable file; else what was expected (with the file's error).
const char *kinds_check_mesh(const char *w);
/// Config check of a hierarchy variant name: NULL, or the variants there are.
const char *kinds_check_hierarchy(const char *w);

#endif
