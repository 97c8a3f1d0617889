// SPDX-License-Identifier: MIT
// The kind table: adding an experiment kind is one file that defines a cd_kind and one line here.
#include "cd_harness.h"

#include <string.h>

extern const cd_kind cd_kind_cubes;
extern const cd_kind cd_kind_mesh;
extern const cd_kind cd_kind_tritri;
extern const cd_kind cd_kind_max_fps;

static const cd_kind *const kinds[] = {
    &cd_kind_cubes,
    &cd_kind_mesh,
    &cd_kind_tritri,
    &cd_kind_max_fps,
};

const cd_kind *const *cd_kinds(size_t *count)
{
    *count = sizeof kinds / sizeof kinds[0];
    return kinds;
}

const cd_kind *cd_kind_find(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
        if (strcmp(kinds[i]->name, name) == 0) return kinds[i];
    return NULL;
}
