// SPDX-License-Identifier: MIT
// One cube's pose and motion: the bottom of the scene module. The families' placement
// (families.c) and the scene's creation (scene.c) both call these, and they call nothing of
// either, so the module's files form no circle.
#include "cd_scene.h"

#include <math.h>
#include <string.h>

void cd_scene_set_pose(cd_scene *s, uint32_t i, cd_vec3 c, cd_quat q, cd_vec3 half)
{
    CD_ASSERT(i < s->count && (q.w != 0.0 || q.x != 0.0 || q.y != 0.0 || q.z != 0.0));
    CD_ASSERT(isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z));
    // The bounds a scene file or trace has (1e30): every box stays finite in float, which the row
    // sweeps need (a window ends at the pads' lo.x = +inf), and the separating-axis proofs assume
    // half-extents >= 0.
    CD_ASSERT(fabs(c.x) <= 1e30 && fabs(c.y) <= 1e30 && fabs(c.z) <= 1e30);
    CD_ASSERT(half.x >= 0.0 && half.x <= 1e30 && half.y >= 0.0 && half.y <= 1e30 && half.z >= 0.0 && half.z <= 1e30);
    // A rotation is its quaternion up to scale. One whose largest entry lies outside
    // [2^-100, 2^100] is scaled by the power of two that brings that entry into [0.5, 1): exact,
    // so the rotation is the caller's, and its float entries neither overflow to infinity (which
    // made the boxes NaN) nor vanish. Inside that range the entries keep their bits (the float
    // boxes take the double path where the squared norm leaves float range: bounds_cols_float).
    double big = fmax(fmax(fabs(q.w), fabs(q.x)), fmax(fabs(q.y), fabs(q.z)));
    if (big > 0x1p100 || big < 0x1p-100) {
        int e;
        frexp(big, &e);
        q = (cd_quat){ldexp(q.w, -e), ldexp(q.x, -e), ldexp(q.y, -e), ldexp(q.z, -e)};
    }
    cd_posef p = {{(float)c.x, (float)c.y, (float)c.z},
                  {(float)q.w, (float)q.x, (float)q.y, (float)q.z},
                  {(float)half.x, (float)half.y, (float)half.z}};
    if (memcmp(&p, &s->pose[i], sizeof p) != 0) cd_scene_note_pose(s, i);
    s->pose[i] = p;
}

void cd_scene_set_motion(cd_scene *s, uint32_t i, cd_vec3 vel, cd_vec3 omega)
{
    CD_ASSERT(i < s->count);
    s->vx[i] = (float)vel.x, s->vy[i] = (float)vel.y, s->vz[i] = (float)vel.z;
    cd_quat t = cd_q_from_rotvec(omega);
    s->tw[i] = (float)t.w, s->tx[i] = (float)t.x, s->ty[i] = (float)t.y, s->tz[i] = (float)t.z;
    s->movers_stale = 1;  // the movers' copy of the motion (cd_scene.mover_motion)
}
