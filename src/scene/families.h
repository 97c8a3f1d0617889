// SPDX-License-Identifier: MIT
// The scene families beside the uniform scene (families.c), private to the scene module.
#ifndef SCENE_FAMILIES_H
#define SCENE_FAMILIES_H

#include "cd_scene.h"

/// E[edge³] of p's edge distribution.
double scene_mean_edge_cubed(const cd_scene_params *p);
/// One edge of p's distribution, drawn from r (the uniform distribution draws exactly what the
/// standard scene always drew).
double scene_draw_edge(cd_rng *r, const cd_scene_params *p);
/// Slabs of the level layout for n objects.
uint32_t scene_level_slabs(uint32_t n);
/// Place and set the motion of every cube of a fresh scene of layout clusters, ground or level.
void scene_place_family(cd_scene *s, const cd_scene_params *p);
/// Still cubes and sleep (p->still, p->sleep): clears the still cubes' motion and sets the state.
void scene_set_moving(cd_scene *s, const cd_scene_params *p);
/// The toggles due at s->frame on slots slot[0, n) (the movers among them): a moving cube falls
/// asleep or wakes. Returns how many toggled.
uint32_t scene_toggle_sleep(cd_scene *s, const uint32_t *slot, uint32_t n);

#endif
