// SPDX-License-Identifier: MIT
// cdlab's experiment kinds: cubes (moving cubes under one broad phase), max_fps (the largest cube
// count at a target FPS), mesh (one mesh pair under each hierarchy variant) and tri_tri (the
// triangle–triangle tests on seeded pair sets). Each is one file (kind_<name>.c) that fills
// cd_kind (cd_harness.h) and one line in kinds.c; the runner and the config parser take the set.
#ifndef CD_KINDS_H
#define CD_KINDS_H

#include "cd_broad.h"
#include "cd_harness.h"

/// Every experiment kind of cdlab, for cd_config_load and `cdlab run --keys`.
const cd_kind_set *cd_kinds(void);

/// The scene (seeded, or read from [scene] file) and the broad phase that point p of a kind-cubes
/// config measures, as each of its repeats starts (before the warm-up frames); free them with
/// cd_scene_destroy and cd_broad_destroy. *frozen: the scene came from a file and does not move.
/// 0, or -1 with why in err (the scene file cannot be read). For pictures (`cdlab snapshot`).
int cd_kinds_cubes_start(const cd_point *p, cd_scene **scene, cd_broad **broad, int *frozen, char *err,
                         size_t err_len);

#endif
