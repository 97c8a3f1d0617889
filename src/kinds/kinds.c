// SPDX-License-Identifier: MIT
// The kind table: adding an experiment kind is one file that defines a cd_kind and one line here.
#include "cd_kinds.h"

extern const cd_kind cd_kind_cubes;
extern const cd_kind cd_kind_mesh;
extern const cd_kind cd_kind_tri_tri;
extern const cd_kind cd_kind_max_fps;
extern const cd_kind cd_kind_bodies;

static const cd_kind *const kinds[] = {
    &cd_kind_cubes, &cd_kind_mesh, &cd_kind_tri_tri, &cd_kind_max_fps, &cd_kind_bodies,
};

static const cd_kind_set kind_set = {kinds, sizeof kinds / sizeof kinds[0]};

const cd_kind_set *cd_kinds(void) { return &kind_set; }
