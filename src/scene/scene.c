// SPDX-License-Identifier: MIT
#include "cd_scene.h"

cd_scene_params cd_scene_params_default(void)
{
    return (cd_scene_params){.cubes = 1000, .size = 1.0, .size_ratio = 1.0, .density = 0.05,
                             .speed = 0.05, .spin = 0.01, .seed = 42};
}

static double mean_edge_cubed(const cd_scene_params *p)
{
    // E[e³] for e uniform in [s, s·k]: s³ (k⁴ − 1) / (4 (k − 1)), and s³ when k = 1.
    double s = p->size, k = p->size_ratio;
    if (k == 1.0) return s * s * s;
    return s * s * s * (k * k * k * k - 1.0) / (4.0 * (k - 1.0));
}

double cd_scene_world_side(const cd_scene_params *p)
{
    double side = cbrt((double)p->cubes * mean_edge_cubed(p) / p->density);
    double diag = p->size * p->size_ratio * sqrt(3.0);
    return side > diag ? side : diag;
}

cd_scene *cd_scene_create_empty(uint32_t n, double world)
{
    cd_scene *s = cd_alloc_zero(1, sizeof *s);
    s->count = n;
    s->world = world;
    s->obb = cd_alloc_zero(n, sizeof *s->obb);
    s->aabb = cd_alloc_zero(n, sizeof *s->aabb);
    s->rot = cd_alloc_zero(n, sizeof *s->rot);
    s->vel = cd_alloc_zero(n, sizeof *s->vel);
    s->omega = cd_alloc_zero(n, sizeof *s->omega);
    s->turn = cd_alloc_zero(n, sizeof *s->turn);
    for (uint32_t i = 0; i < n; ++i) s->rot[i] = cd_q_identity();
    return s;
}

cd_scene *cd_scene_create(const cd_scene_params *p)
{
    CD_ASSERT(p->size > 0 && p->size_ratio >= 1.0 && p->density > 0);
    cd_scene *s = cd_scene_create_empty(p->cubes, cd_scene_world_side(p));
    cd_rng place = cd_rng_make(p->seed, CD_STREAM_SCENE_PLACE);
    cd_rng motion = cd_rng_make(p->seed, CD_STREAM_SCENE_MOTION);
    double L = s->world;
    for (uint32_t i = 0; i < s->count; ++i) {
        double edge = p->size_ratio == 1.0 ? p->size : cd_rng_range(&place, p->size, p->size * p->size_ratio);
        double cx = cd_rng_range(&place, 0, L), cy = cd_rng_range(&place, 0, L), cz = cd_rng_range(&place, 0, L);
        s->obb[i].c = cd_v3(cx, cy, cz);
        s->obb[i].half = cd_v3(0.5 * edge, 0.5 * edge, 0.5 * edge);
        s->rot[i] = cd_rng_rotation(&place);
        double vx = cd_rng_range(&motion, -p->speed, p->speed), vy = cd_rng_range(&motion, -p->speed, p->speed);
        double vz = cd_rng_range(&motion, -p->speed, p->speed);
        s->vel[i] = cd_v3(vx, vy, vz);
        double wx = cd_rng_range(&motion, -p->spin, p->spin), wy = cd_rng_range(&motion, -p->spin, p->spin);
        double wz = cd_rng_range(&motion, -p->spin, p->spin);
        s->omega[i] = cd_v3(wx, wy, wz);
    }
    cd_scene_refresh(s);
    return s;
}

static void refresh_bounds(cd_scene *s)
{
    for (uint32_t i = 0; i < s->count; ++i) {
        s->obb[i].axes = cd_q_to_m3(s->rot[i]);
        s->aabb[i] = cd_obb_aabb(&s->obb[i]);
    }
}

void cd_scene_refresh(cd_scene *s)
{
    for (uint32_t i = 0; i < s->count; ++i) s->turn[i] = cd_q_from_rotvec(s->omega[i]);
    refresh_bounds(s);
}

// Reflect coordinate *x with velocity *v at walls 0 and L: the centre bounces, so a cube may
// poke through a wall by at most its half-diagonal, as in the seed report's scene.
static void reflect(double *x, double *v, double L)
{
    if (*x < 0.0) {
        *x = -*x;
        *v = -*v;
    } else if (*x > L) {
        *x = 2.0 * L - *x;
        *v = -*v;
    }
}

void cd_scene_step(cd_scene *s)
{
    double L = s->world;
    for (uint32_t i = 0; i < s->count; ++i) {
        cd_vec3 c = cd_v3_add(s->obb[i].c, s->vel[i]);
        reflect(&c.x, &s->vel[i].x, L);
        reflect(&c.y, &s->vel[i].y, L);
        reflect(&c.z, &s->vel[i].z, L);
        s->obb[i].c = c;
        s->rot[i] = cd_q_normalize(cd_q_mul(s->turn[i], s->rot[i]));
    }
    refresh_bounds(s);
    s->frame++;
}

void cd_scene_destroy(cd_scene *s)
{
    if (!s) return;
    cd_free(s->obb);
    cd_free(s->aabb);
    cd_free(s->rot);
    cd_free(s->vel);
    cd_free(s->omega);
    cd_free(s->turn);
    cd_free(s);
}
