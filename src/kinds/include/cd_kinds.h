// SPDX-License-Identifier: MIT
// cdlab's experiment kinds: cubes (moving cubes under one broad phase), max_fps (the largest cube
// count at a target FPS), mesh (one mesh pair under each hierarchy variant) and tri_tri (the
// triangle–triangle tests on seeded pair sets). Each is one file (kind_<name>.c) that fills
// cd_kind (cd_harness.h) and one line in kinds.c; the runner and the config parser take the set.
#ifndef CD_KINDS_H
#define CD_KINDS_H

#include "cd_harness.h"

/// Every experiment kind of cdlab, for cd_config_load and `cdlab run --keys`.
const cd_kind_set *cd_kinds(void);

#endif
