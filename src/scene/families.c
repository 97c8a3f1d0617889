// SPDX-License-Identifier: MIT
// Scene families beside the uniform scene: clustered, ground and level placements, heavy-tailed
// sizes, still objects and sleeping ones (docs/design/scene.md#scene-families). Every draw comes
// from the scene's seed; placement and motion take O(1) per cube.
#include "families.h"

#include <math.h>
#include <string.h>

const char *const cd_scene_layout_names[] = {"uniform", "clusters", "ground", "level", NULL};
const char *const cd_scene_size_dist_names[] = {"uniform", "loguniform", "pareto", NULL};

int cd_scene_name_index(const char *const *names, const char *name)
{
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

// Wake and rest periods: a stream of their own, so they shift no placement or motion draw.
enum { STREAM_SLEEP = 8 };
// Objects of a cluster move with its drift plus their own velocity of this fraction of speed.
#define CLUSTER_JITTER 0.1

double scene_mean_edge_cubed(const cd_scene_params *p)
{
    double s = p->size, k = p->size_ratio, s3 = s * s * s;
    if (k == 1.0) return s3;
    switch (p->size_dist) {
    case CD_SIZE_LOGUNIFORM:  // e = s·k^u: E[e³] = s³ ∫₀¹ k^{3u} du
        return s3 * (k * k * k - 1.0) / (3.0 * log(k));
    case CD_SIZE_PARETO: {  // density α s^α e^{-α-1} / (1 − k^{-α}) on [s, s·k]
        double a = CD_SCENE_PARETO_SHAPE;
        return s3 * a * (pow(k, 3.0 - a) - 1.0) / ((3.0 - a) * (1.0 - pow(k, -a)));
    }
    default:  // E[e³] for e uniform in [s, s·k]: s³ (k⁴ − 1) / (4 (k − 1))
        return s3 * (k * k * k * k - 1.0) / (4.0 * (k - 1.0));
    }
}

double scene_draw_edge(cd_rng *r, const cd_scene_params *p)
{
    double s = p->size, k = p->size_ratio;
    if (k == 1.0) return s;
    switch (p->size_dist) {
    case CD_SIZE_LOGUNIFORM: return s * pow(k, cd_rng_uniform(r));
    case CD_SIZE_PARETO: {  // inverse of the bounded Pareto's distribution function
        double a = CD_SCENE_PARETO_SHAPE, e = s * pow(1.0 - cd_rng_uniform(r) * (1.0 - pow(k, -a)), -1.0 / a);
        return e < s * k ? e : s * k;
    }
    default: return cd_rng_range(r, s, s * k);
    }
}

uint32_t scene_level_slabs(uint32_t n) { return n < CD_SCENE_LEVEL_SLABS ? n : CD_SCENE_LEVEL_SLABS; }

// A standard normal deviate (Box–Muller; 1 − u keeps the logarithm's argument in (0, 1]).
static double normal(cd_rng *r)
{
    double u = 1.0 - cd_rng_uniform(r), v = cd_rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

static cd_vec3 uniform_vec(cd_rng *r, double a)
{
    return cd_v3(cd_rng_range(r, -a, a), cd_rng_range(r, -a, a), cd_rng_range(r, -a, a));
}

// K clusters: centres uniform in the world, each with a drift velocity (components uniform in
// [−speed, speed]); a cube joins a cluster at random, sits at a Gaussian offset of σ per axis
// (clamped to the world) and moves with the drift plus its own CLUSTER_JITTER·speed velocity,
// so a cluster keeps its shape for thousands of frames while it travels and bounces.
static void place_clusters(cd_scene *s, const cd_scene_params *p, cd_rng *place, cd_rng *motion)
{
    enum { MAX_CLUSTERS = 4096 };
    uint32_t k = p->clusters ? p->clusters : 8;
    if (k > MAX_CLUSTERS) k = MAX_CLUSTERS;
    double L = s->world, sigma = (p->cluster_sigma > 0 ? p->cluster_sigma : 0.1) * L;
    cd_vec3 centre[MAX_CLUSTERS], drift[MAX_CLUSTERS];
    for (uint32_t c = 0; c < k; ++c) {
        centre[c] = cd_v3(cd_rng_range(place, 0, L), cd_rng_range(place, 0, L), cd_rng_range(place, 0, L));
        drift[c] = uniform_vec(motion, p->speed);
    }
    for (uint32_t i = 0; i < s->count; ++i) {
        uint32_t c = (uint32_t)cd_rng_below(place, k);
        double e = scene_draw_edge(place, p);
        cd_vec3 x =
            cd_v3(clamp(centre[c].x + sigma * normal(place), 0, L), clamp(centre[c].y + sigma * normal(place), 0, L),
                  clamp(centre[c].z + sigma * normal(place), 0, L));
        cd_scene_set_pose(s, i, x, cd_rng_rotation(place), cd_v3(0.5 * e, 0.5 * e, 0.5 * e));
        cd_scene_set_motion(s, i, cd_v3_add(drift[c], uniform_vec(motion, CLUSTER_JITTER * p->speed)),
                            uniform_vec(motion, p->spin));
    }
}

// Ground: cubes standing on the plane z = 0 (a face down, turned about z at random), their
// centres at e/2 to e/2 + the largest edge, so the layer is two largest edges thick; they move in
// the plane and turn about z only.
static void place_ground(cd_scene *s, const cd_scene_params *p, cd_rng *place, cd_rng *motion)
{
    double L = s->world, top = p->size * p->size_ratio;
    for (uint32_t i = 0; i < s->count; ++i) {
        double e = scene_draw_edge(place, p), a = cd_rng_range(place, 0, 6.283185307179586);
        cd_vec3 x = cd_v3(cd_rng_range(place, 0, L), cd_rng_range(place, 0, L), 0.5 * e + cd_rng_range(place, 0, top));
        cd_scene_set_pose(s, i, x, (cd_quat){cos(0.5 * a), 0, 0, sin(0.5 * a)}, cd_v3(0.5 * e, 0.5 * e, 0.5 * e));
        cd_vec3 v = cd_v3(cd_rng_range(motion, -p->speed, p->speed), cd_rng_range(motion, -p->speed, p->speed), 0);
        cd_scene_set_motion(s, i, v, cd_v3(0, 0, cd_rng_range(motion, -p->spin, p->spin)));
    }
}

// Level: three storeys of the world's height, each a floor slab over the whole world and two
// walls standing on it (one across x, one across y, each most of the world long and a storey
// high); slabs are 2·size thick, axis-aligned and still. The other cubes are placed and move as
// in the uniform scene, through the slabs (a collision benchmark has no response).
static void place_level(cd_scene *s, const cd_scene_params *p, cd_rng *place, cd_rng *motion)
{
    double L = s->world, t = p->size, storey = L / 3.0;
    uint32_t slabs = scene_level_slabs(s->count);
    for (uint32_t i = 0; i < slabs; ++i) {
        double floor_z = (double)(i % 3) * storey;
        cd_vec3 c, h;
        if (i < 3) {
            c = cd_v3(0.5 * L, 0.5 * L, floor_z + t), h = cd_v3(0.5 * L, 0.5 * L, t);
        } else if (i < 6) {
            c = cd_v3(0.25 * (double)(i - 2) * L, 0.35 * L, floor_z + 0.5 * storey),
            h = cd_v3(t, 0.35 * L, 0.5 * storey);
        } else {
            c = cd_v3(0.65 * L, 0.25 * (double)(i - 5) * L, floor_z + 0.5 * storey),
            h = cd_v3(0.35 * L, t, 0.5 * storey);
        }
        cd_scene_set_pose(s, i, c, cd_q_identity(), h);
    }
    for (uint32_t i = slabs; i < s->count; ++i) {
        double e = scene_draw_edge(place, p);
        cd_vec3 x = cd_v3(cd_rng_range(place, 0, L), cd_rng_range(place, 0, L), cd_rng_range(place, 0, L));
        cd_scene_set_pose(s, i, x, cd_rng_rotation(place), cd_v3(0.5 * e, 0.5 * e, 0.5 * e));
        cd_scene_set_motion(s, i, uniform_vec(motion, p->speed), uniform_vec(motion, p->spin));
    }
}

void scene_place_family(cd_scene *s, const cd_scene_params *p)
{
    cd_rng place = cd_rng_make(p->seed, CD_STREAM_SCENE_PLACE);
    cd_rng motion = cd_rng_make(p->seed, CD_STREAM_SCENE_MOTION);
    if (p->layout == CD_LAYOUT_CLUSTERS) place_clusters(s, p, &place, &motion);
    if (p->layout == CD_LAYOUT_GROUND) place_ground(s, p, &place, &motion);
    if (p->layout == CD_LAYOUT_LEVEL) place_level(s, p, &place, &motion);
}

void cd_scene_set_still(cd_scene *s, uint32_t i)
{
    CD_ASSERT(i < s->count);
    if (!s->state) {
        s->state = cd_alloc(s->count ? s->count : 1);
        memset(s->state, CD_SCENE_MOVES | CD_SCENE_AWAKE, s->count);
    }
    cd_scene_set_motion(s, i, cd_v3(0, 0, 0), cd_v3(0, 0, 0));
    s->state[i] = 0;
    s->movers_stale = 1;
}

uint32_t cd_scene_moving_count(const cd_scene *s)
{
    if (!s->state) return s->count;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->count; ++i) n += (s->state[i] & CD_SCENE_MOVES) != 0;
    return n;
}

// Length of the period that starts at `frame` for cube `ident`: exponential with mean s->sleep,
// rounded up to whole frames, from a hash of (seed, cube, frame), so it does not depend on the
// slot order or the thread that steps the cube.
static uint64_t period(const cd_scene *s, uint32_t ident, uint64_t frame)
{
    uint64_t x = s->sleep_seed ^ (uint64_t)ident * 0x9E3779B97F4A7C15ULL ^ frame * 0xD1B54A32D192ED03ULL;
    double u = ((double)(cd_splitmix64(&x) >> 11) + 0.5) * 0x1p-53;  // in (0, 1)
    double len = ceil(-s->sleep * log(u));
    return len < 1.0 ? 1 : (len > 1e12 ? (uint64_t)1e12 : (uint64_t)len);
}

// Still cubes: among the cubes that are not slabs, T = round(still·M) of M, spread evenly over the
// cube numbers (cube j is still when ⌊(j+1)·T/M⌋ > ⌊j·T/M⌋): exactly T, and since every placement
// draws each cube independently, a random set in space.
void scene_set_moving(cd_scene *s, const cd_scene_params *p)
{
    uint32_t first = p->layout == CD_LAYOUT_LEVEL ? scene_level_slabs(s->count) : 0;
    for (uint32_t i = 0; i < first; ++i) cd_scene_set_still(s, i);
    uint64_t m = s->count - first, t = (uint64_t)llround(p->still * (double)m);
    for (uint64_t j = 0; j < m && t; ++j)
        if ((j + 1) * t / m > j * t / m) cd_scene_set_still(s, (uint32_t)(first + j));
    if (!(p->sleep > 0)) return;
    if (!s->state) {
        s->state = cd_alloc(s->count ? s->count : 1);
        memset(s->state, CD_SCENE_MOVES | CD_SCENE_AWAKE, s->count);
        s->movers_stale = 1;
    }
    s->sleep = p->sleep;
    cd_rng r = cd_rng_make(p->seed, STREAM_SLEEP);
    s->sleep_seed = cd_rng_next(&r);
    s->toggle_at = cd_alloc((s->count ? s->count : 1) * sizeof *s->toggle_at);
    for (uint32_t i = 0; i < s->count; ++i) s->toggle_at[i] = period(s, i, 0);  // fresh: slot i is cube i
}

uint32_t scene_toggle_sleep(cd_scene *s, const uint32_t *slot, uint32_t n)
{
    if (!s->toggle_at) return 0;
    uint32_t flips = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t i = slot[k];
        if ((s->state[i] & CD_SCENE_MOVES) && s->toggle_at[i] == s->frame) {
            s->state[i] ^= CD_SCENE_AWAKE;
            s->toggle_at[i] = s->frame + period(s, s->ident[i], s->frame);
            flips++;
        }
    }
    return flips;
}
