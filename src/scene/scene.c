// SPDX-License-Identifier: MIT
#include "cd_scene.h"

#include <float.h>
#include <omp.h>
#include <stdint.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include "cd_transpose.h"
#endif

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

enum { SCENE_FLOAT_ARRAYS = 17 };

size_t cd_scene_bytes_per_cube(void) { return SCENE_FLOAT_ARRAYS * sizeof(float) + sizeof(cd_boxf) + sizeof(cd_posef); }

cd_scene *cd_scene_create_empty(uint32_t n, double world)
{
    cd_scene *s = cd_alloc_zero(1, sizeof *s);
    s->count = n;
    s->world = world;
    float **arrays[SCENE_FLOAT_ARRAYS] = {&s->cx, &s->cy, &s->cz, &s->qw, &s->qx, &s->qy, &s->qz, &s->hx, &s->hy,
                                          &s->hz, &s->vx, &s->vy, &s->vz, &s->tw, &s->tx, &s->ty, &s->tz};
    for (int k = 0; k < SCENE_FLOAT_ARRAYS; ++k) *arrays[k] = cd_alloc_zero(n ? n : 1, sizeof(float));
    s->box = cd_alloc_zero((size_t)n + 1, sizeof *s->box);  // + 1: see cd_scene.box
    s->pose = cd_alloc_zero(n ? n : 1, sizeof *s->pose);
    for (uint32_t i = 0; i < n; ++i) s->qw[i] = s->tw[i] = 1.0f;
    return s;
}

void cd_scene_set_pose(cd_scene *s, uint32_t i, cd_vec3 c, cd_quat q, cd_vec3 half)
{
    CD_ASSERT(i < s->count && (q.w != 0.0 || q.x != 0.0 || q.y != 0.0 || q.z != 0.0));
    s->cx[i] = (float)c.x, s->cy[i] = (float)c.y, s->cz[i] = (float)c.z;
    s->qw[i] = (float)q.w, s->qx[i] = (float)q.x, s->qy[i] = (float)q.y, s->qz[i] = (float)q.z;
    s->hx[i] = (float)half.x, s->hy[i] = (float)half.y, s->hz[i] = (float)half.z;
}

void cd_scene_set_motion(cd_scene *s, uint32_t i, cd_vec3 vel, cd_vec3 omega)
{
    CD_ASSERT(i < s->count);
    s->vx[i] = (float)vel.x, s->vy[i] = (float)vel.y, s->vz[i] = (float)vel.z;
    cd_quat t = cd_q_from_rotvec(omega);
    s->tw[i] = (float)t.w, s->tx[i] = (float)t.x, s->ty[i] = (float)t.y, s->tz[i] = (float)t.z;
}

cd_scene *cd_scene_create(const cd_scene_params *p)
{
    CD_ASSERT(p->size > 0 && p->size_ratio >= 1.0 && p->density > 0);
    // The world side is kept as a float so every centre (a float) stays within [0, L].
    cd_scene *s = cd_scene_create_empty(p->cubes, (float)cd_scene_world_side(p));
    cd_rng place = cd_rng_make(p->seed, CD_STREAM_SCENE_PLACE);
    cd_rng motion = cd_rng_make(p->seed, CD_STREAM_SCENE_MOTION);
    double L = s->world;
    for (uint32_t i = 0; i < s->count; ++i) {
        double edge = p->size_ratio == 1.0 ? p->size : cd_rng_range(&place, p->size, p->size * p->size_ratio);
        double cx = cd_rng_range(&place, 0, L), cy = cd_rng_range(&place, 0, L), cz = cd_rng_range(&place, 0, L);
        cd_quat q = cd_rng_rotation(&place);
        cd_scene_set_pose(s, i, cd_v3(cx, cy, cz), q, cd_v3(0.5 * edge, 0.5 * edge, 0.5 * edge));
        double vx = cd_rng_range(&motion, -p->speed, p->speed), vy = cd_rng_range(&motion, -p->speed, p->speed);
        double vz = cd_rng_range(&motion, -p->speed, p->speed);
        double wx = cd_rng_range(&motion, -p->spin, p->spin), wy = cd_rng_range(&motion, -p->spin, p->spin);
        double wz = cd_rng_range(&motion, -p->spin, p->spin);
        cd_scene_set_motion(s, i, cd_v3(vx, vy, vz), cd_v3(wx, wy, wz));
    }
    cd_scene_refresh(s);
    return s;
}

// Boxes of cubes [first, end) into box[0 .. end − first). The radius r = Σ|a_j[k]|·h_j is rounded at most 5 times, so
// (1 + 8·DBL_EPSILON)·r bounds it, and 4·DBL_EPSILON·|c| covers corners computed as
// cd_obb_corners rounds them (as in cd_obb_aabb). c ± r is rounded to nearest once more; the
// float strictly below (above) that double is at least a double ulp away from it, which covers
// that last rounding, so the float box contains the double box exactly.
// Also built for AVX2 and AVX-512 (picked at load time by what the CPU has): two and four times the
// lanes, same results, since -ffp-contract=off keeps FMA out of every build. At 100 000 cubes the
// AVX-512 clone took the motion step from 1.7–2.0 to 1.3–1.6 ms (interleaved runs).
#define CD_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

// Cubes per chunk of the box and pose output (columns and records of a chunk stay in L1).
enum { OUT_CHUNK = 256 };

CD_VECTOR_CLONES static void bounds_cols(const cd_scene *restrict s, uint32_t first, uint32_t end,
                                         float (*restrict col)[OUT_CHUNK])
{
    const float *restrict cx = s->cx, *restrict cy = s->cy, *restrict cz = s->cz;
    const float *restrict qw = s->qw, *restrict qx = s->qx, *restrict qy = s->qy, *restrict qz = s->qz;
    const float *restrict hx = s->hx, *restrict hy = s->hy, *restrict hz = s->hz;
    for (uint32_t i = first; i < end; ++i) {
        cd_mat3 a = cd_scene_axes_of(qw[i], qx[i], qy[i], qz[i]);
        double h0 = hx[i], h1 = hy[i], h2 = hz[i];
        double c[3] = {cx[i], cy[i], cz[i]};
        double r[3] = {fabs(a.col[0].x) * h0 + fabs(a.col[1].x) * h1 + fabs(a.col[2].x) * h2,
                       fabs(a.col[0].y) * h0 + fabs(a.col[1].y) * h1 + fabs(a.col[2].y) * h2,
                       fabs(a.col[0].z) * h0 + fabs(a.col[1].z) * h1 + fabs(a.col[2].z) * h2};
        for (int k = 0; k < 3; ++k) {
            double m = r[k] * (1.0 + 8.0 * DBL_EPSILON) + 4.0 * DBL_EPSILON * fabs(c[k]);
            col[k][i - first] = cd_float_below(c[k] - m);
            col[3 + k][i - first] = cd_float_above(c[k] + m);
        }
    }
}

// Records from columns: record i gets col[0][i], ..., col[F − 1][i] (F = 6 for boxes, 10 for
// poses). The bounds and motion loops vectorise only over columns, and a plain loop that
// interleaves them stores one float at a time (at 100 000 cubes the box and pose stores took
// about half of the motion step); with AVX2 eight records at a time go through the 8 × 8
// transpose, one 32-byte store per record.
#if CD_X86_SIMD
__attribute__((target("avx2"))) static void boxes_out_avx2(cd_boxf *restrict box, float (*restrict col)[OUT_CHUNK],
                                                          uint32_t n)
{
    float *out = box->lo;
    uint32_t i = 0;
    for (; i + 8 < n; i += 8) {  // each store's last two floats are the next record's first two,
                                 // rewritten by its own store; the range's last record is plain
        __m256 r[8], f[8];
        for (int k = 0; k < 6; ++k) r[k] = _mm256_loadu_ps(col[k] + i);
        r[6] = r[7] = _mm256_setzero_ps();
        cd_transpose8(r, f);
        for (int k = 0; k < 8; ++k) _mm256_storeu_ps(out + 6 * (i + k), f[k]);
    }
    for (; i < n; ++i)
        for (int k = 0; k < 6; ++k) out[6 * i + k] = col[k][i];
}

__attribute__((target("avx2"))) static void poses_out_avx2(cd_posef *restrict pose, const float *const src[10],
                                                          uint32_t first, uint32_t n)
{
    float *out = pose->c;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 r[8], f[8];
        for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src[k] + first + i);
        cd_transpose8(r, f);
        for (int k = 0; k < 8; ++k) _mm256_storeu_ps(out + 10 * (i + k), f[k]);
        __m256 h1 = _mm256_loadu_ps(src[8] + first + i), h2 = _mm256_loadu_ps(src[9] + first + i);
        // Record k's (h1, h2) is in 128-bit lane k / 4 of lo (k mod 4 < 2) or hi, low or high half.
        __m256 lo = _mm256_unpacklo_ps(h1, h2), hi = _mm256_unpackhi_ps(h1, h2);
        for (int k = 0; k < 8; ++k) {
            __m256 v = k & 2 ? hi : lo;
            __m128 half = k < 4 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1);
            __m64 *at = (__m64 *)(void *)(out + 10 * (i + (uint32_t)k) + 8);
            if (k & 1)
                _mm_storeh_pi(at, half);
            else
                _mm_storel_pi(at, half);
        }
    }
    for (; i < n; ++i)
        for (int k = 0; k < 10; ++k) out[10 * i + k] = src[k][first + i];
}
#endif

static void boxes_out(cd_boxf *restrict box, float (*restrict col)[OUT_CHUNK], uint32_t n)
{
#if CD_X86_SIMD
    if (__builtin_cpu_supports("avx2")) {
        boxes_out_avx2(box, col, n);
        return;
    }
#endif
    for (uint32_t i = 0; i < n; ++i)
        box[i] = (cd_boxf){{col[0][i], col[1][i], col[2][i]}, {col[3][i], col[4][i], col[5][i]}};
}

// Pose records of cubes [first, end) from the arrays (exact copies) into pose[0 .. end − first).
static void poses_out(const cd_scene *restrict s, uint32_t first, uint32_t end, cd_posef *restrict pose)
{
#if CD_X86_SIMD
    if (__builtin_cpu_supports("avx2")) {
        const float *const src[10] = {s->cx, s->cy, s->cz, s->qw, s->qx, s->qy, s->qz, s->hx, s->hy, s->hz};
        poses_out_avx2(pose, src, first, end - first);
        return;
    }
#endif
    for (uint32_t i = first; i < end; ++i)
        pose[i - first] = (cd_posef){{s->cx[i], s->cy[i], s->cz[i]}, {s->qw[i], s->qx[i], s->qy[i], s->qz[i]},
                                     {s->hx[i], s->hy[i], s->hz[i]}};
}

// Boxes and pose records of cubes [first, end) into box[0 ..) and pose[0 ..), a chunk at a time.
static void refresh_into(const cd_scene *s, uint32_t first, uint32_t end, cd_boxf *box, cd_posef *pose)
{
    float col[6][OUT_CHUNK];
    for (uint32_t b = first; b < end; b += OUT_CHUNK) {
        uint32_t e = end - b < OUT_CHUNK ? end : b + OUT_CHUNK;
        bounds_cols(s, b, e, col);
        boxes_out(box + (b - first), col, e - b);
        poses_out(s, b, e, pose + (b - first));
    }
}

void cd_scene_refresh(cd_scene *s) { refresh_into(s, 0, s->count, s->box, s->pose); }

// Reflect coordinate x with velocity v at walls 0 and L: the centre bounces, so a cube may poke
// through a wall by at most its half-diagonal, as in the seed report's scene. Selects, no
// branches, so the motion loop vectorises.
#define REFLECT(c, v, L)                                                                \
    do {                                                                                \
        float v_ = v[i], x_ = c[i] + v_, low_ = -x_, high_ = 2.0f * L - x_, back_ = -v_; \
        int below_ = x_ < 0.0f, above_ = x_ > L;                                        \
        c[i] = below_ ? low_ : (above_ ? high_ : x_);                                   \
        v[i] = below_ | above_ ? back_ : v_;                                            \
    } while (0)

// Centres move and bounce; one axis per call, so each loop streams two arrays and vectorises.
CD_VECTOR_CLONES static void move_axis(float *restrict c, float *restrict v, uint32_t first, uint32_t end, float L)
{
    for (uint32_t i = first; i < end; ++i) REFLECT(c, v, L);
}

// q ← normalise(turn · q) in float.
CD_VECTOR_CLONES static void turn_range(float *restrict qw, float *restrict qx, float *restrict qy, float *restrict qz,
                       const float *restrict tw, const float *restrict tx, const float *restrict ty,
                       const float *restrict tz, uint32_t first, uint32_t end)
{
    for (uint32_t i = first; i < end; ++i) {
        float w = tw[i] * qw[i] - tx[i] * qx[i] - ty[i] * qy[i] - tz[i] * qz[i];
        float x = tw[i] * qx[i] + tx[i] * qw[i] + ty[i] * qz[i] - tz[i] * qy[i];
        float y = tw[i] * qy[i] - tx[i] * qz[i] + ty[i] * qw[i] + tz[i] * qx[i];
        float z = tw[i] * qz[i] + tx[i] * qy[i] - ty[i] * qx[i] + tz[i] * qw[i];
        float inv = 1.0f / sqrtf(w * w + x * x + y * y + z * z);
        qw[i] = w * inv, qx[i] = x * inv, qy[i] = y * inv, qz[i] = z * inv;
    }
}

// Motion of cubes [first, end) in float, in blocks that stay in L1 from the motion loops to the
// bounds loop.
enum { STEP_BLOCK = 2048 };

// Streaming (non-temporal) stores: sixteen bytes at a time once dst is aligned, the rest plain.
static void stream_copy(void *restrict dst, const void *restrict src, size_t bytes)
{
    float *d = dst;
    const float *q = src;
    size_t n = bytes / sizeof *d, k = 0;
#if defined(__SSE2__) && defined(__x86_64__)
    for (; k < n && ((uintptr_t)(d + k) & 15); ++k) d[k] = q[k];
    for (; k + 4 <= n; k += 4) _mm_stream_ps(d + k, _mm_loadu_ps(q + k));
#endif
    for (; k < n; ++k) d[k] = q[k];
}

// Boxes and pose records of cubes [first, end), written straight (stream = 0) or computed in a
// small buffer and streamed out past the caches. With several threads, the broad and narrow
// steps of the other threads read most of these lines, so a plain store first has to take each
// line back from another core's cache (about 70 ns each way on this 2-vCPU VM); a streaming store
// does not wait for that. At 100 000 cubes on two threads the motion step took 0.92–0.98 →
// 0.50–0.54 ms.
static void refresh_range(cd_scene *s, uint32_t first, uint32_t end, int stream)
{
    if (!stream) {
        refresh_into(s, first, end, s->box + first, s->pose + first);
        return;
    }
    cd_boxf box[OUT_CHUNK];
    cd_posef pose[OUT_CHUNK];
    for (uint32_t b = first; b < end; b += OUT_CHUNK) {
        uint32_t e = end - b < OUT_CHUNK ? end : b + OUT_CHUNK;
        refresh_into(s, b, e, box, pose);
        stream_copy(s->box + b, box, (e - b) * sizeof *box);
        stream_copy(s->pose + b, pose, (e - b) * sizeof *pose);
    }
}

static void step_range(cd_scene *s, uint32_t first, uint32_t end, int stream)
{
    float L = (float)s->world;  // the far walls as the largest float ≤ L
    if ((double)L > s->world) L = cd_float_next_down(L);
    for (uint32_t b = first; b < end; b += STEP_BLOCK) {
        uint32_t e = end - b < STEP_BLOCK ? end : b + STEP_BLOCK;
        move_axis(s->cx, s->vx, b, e, L);
        move_axis(s->cy, s->vy, b, e, L);
        move_axis(s->cz, s->vz, b, e, L);
        turn_range(s->qw, s->qx, s->qy, s->qz, s->tw, s->tx, s->ty, s->tz, b, e);
        refresh_range(s, b, e, stream);
    }
#if defined(__SSE2__) && defined(__x86_64__)
    if (stream) _mm_sfence();  // the streamed lines are visible before the step returns
#endif
}

void cd_scene_step_range(cd_scene *s, uint32_t first, uint32_t end) { step_range(s, first, end, 0); }

void cd_scene_step(cd_scene *s)
{
    step_range(s, 0, s->count, 0);
    s->frame++;
}

void cd_scene_step_threads(cd_scene *s, int threads)
{
    if (threads <= 1) {
        cd_scene_step(s);
        return;
    }
    // Whole blocks per thread: each cube's step reads and writes only its own entries. Each thread
    // keeps last frame's blocks (its cores' caches hold their arrays) unless it has to take over
    // another thread's tail.
    if (threads > CD_PART_QUEUE_MAX_THREADS) threads = CD_PART_QUEUE_MAX_THREADS;
    uint32_t blocks = (uint32_t)(((uint64_t)s->count + STEP_BLOCK - 1) / STEP_BLOCK);
    cd_part_queue queue;
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        cd_part_queue_deal(&queue, blocks, (uint32_t)omp_get_num_threads());
        uint32_t k;
        while (cd_part_queue_take(&queue, (uint32_t)omp_get_thread_num(), &k)) {
            uint32_t first = k * STEP_BLOCK, end = s->count - first < STEP_BLOCK ? s->count : first + STEP_BLOCK;
            step_range(s, first, end, 1);
        }
    }
    s->frame++;
}

void cd_scene_destroy(cd_scene *s)
{
    if (!s) return;
    float *arrays[SCENE_FLOAT_ARRAYS] = {s->cx, s->cy, s->cz, s->qw, s->qx, s->qy, s->qz, s->hx, s->hy,
                                         s->hz, s->vx, s->vy, s->vz, s->tw, s->tx, s->ty, s->tz};
    for (int k = 0; k < SCENE_FLOAT_ARRAYS; ++k) cd_free(arrays[k]);
    cd_free(s->box);
    cd_free(s->pose);
    cd_free(s);
}
