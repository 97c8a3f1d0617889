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

/// The scene a point of a kind measures, frame by frame, for pictures (`cdlab snapshot`): kind
/// cubes (its cubes) and bodies (its bodies' boxes, the hierarchy queries as the narrow step).
typedef struct cd_kinds_view cd_kinds_view;

/// The view of point p as each repeat starts (before the warm-up frames), or NULL with why in err:
/// a kind without a view, a [scene] file or a mesh that cannot be read, a bodies peer (FCL's
/// manager has no broad phase to show). results_root: the directory a run of p writes under
/// (<output>), whose cache/ holds the traces of simulated scenes (cd_cubes_point_start).
cd_kinds_view *cd_kinds_view_open(const cd_point *p, const char *results_root, char *err, size_t err_len);
/// One frame as the kind runs it: with move, the motion step (none for a scene read from a file)
/// and the body meshes' deformation; then the method's frame, whose pairs (cd_scene_ident numbers)
/// go to out. move = 0 gives the pairs of the state as it is (e.g. the seeded scene). out = NULL:
/// the motion only (`cdlab trace record`). 0, or -1 with why set when a plugin's method reported
/// candidates that name no pair of the scene (dropped before the narrow step; the point fails as
/// the kind's run fails it).
int cd_kinds_view_frame(cd_kinds_view *v, int move, cd_pair_list *out, char *why, size_t len);
/// Frames of the trace the view replays ([scene] trace), 0 when its motion has no end.
uint64_t cd_kinds_view_frames(const cd_kinds_view *v);
/// The scene: one box per cube or body.
const cd_scene *cd_kinds_view_scene(const cd_kinds_view *v);
/// The broad phase (its method's cells callback draws its structure).
const cd_broad *cd_kinds_view_broad(const cd_kinds_view *v);
/// What the boxes are: "cubes" or "bodies".
const char *cd_kinds_view_noun(const cd_kinds_view *v);
/// Free v (NULL allowed).
void cd_kinds_view_close(cd_kinds_view *v);

#endif
