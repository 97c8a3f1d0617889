// SPDX-License-Identifier: MIT
#include "cd_scene.h"
#include "families.h"

#include <float.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include "cd_transpose.h"
#endif

cd_scene_params cd_scene_params_default(void)
{
    return (cd_scene_params){
        .cubes = 1000, .size = 1.0, .size_ratio = 1.0, .density = 0.05, .speed = 0.05, .spin = 0.01, .seed = 42};
}

// The density is the volume fraction of the cubes in the world cube; on the ground, of the
// cubes in the layer two largest edges thick; in a level, of the cubes that are not slabs.
double cd_scene_world_side(const cd_scene_params *p)
{
    double volume = (double)p->cubes * scene_mean_edge_cubed(p), top = p->size * p->size_ratio;
    if (p->layout == CD_LAYOUT_LEVEL)
        volume = (double)(p->cubes - scene_level_slabs(p->cubes)) * scene_mean_edge_cubed(p);
    double side = p->layout == CD_LAYOUT_GROUND ? sqrt(volume / (p->density * 2.0 * top)) : cbrt(volume / p->density);
    double diag = top * sqrt(3.0);
    return side > diag ? side : diag;
}

enum { SCENE_FLOAT_ARRAYS = 7 };  // velocity (3) and turn per frame (4)

// Floats per mover in cd_scene.mover_motion: velocity (3), turn per frame (4), one unused.
enum { MOTION_FLOATS = 8 };

// The slot map (ident, slot_of_prev) counts too: slot_of_prev exists once the scene has reordered;
// and the move list (a slot and a flag) and the noted-pose flag.
size_t cd_scene_bytes_per_cube(void)
{
    return SCENE_FLOAT_ARRAYS * sizeof(float) + sizeof(cd_aabbf) + sizeof(cd_posef) + 3 * sizeof(uint32_t) + 2;
}

size_t cd_scene_bytes(const cd_scene *s)
{
    size_t n = s->count;
    size_t bytes = SCENE_FLOAT_ARRAYS * n * sizeof(float) + (n + 1) * sizeof *s->box + n * sizeof *s->pose +
                   2 * n * sizeof(uint32_t) + (n + CD_SCENE_FLAG_PAD) + n;  // ident, move list, flags
    if (s->slot_of_prev) bytes += n * sizeof *s->slot_of_prev;
    if (s->state) bytes += n;
    if (s->mover_slot) bytes += n * (sizeof *s->mover_slot + sizeof *s->awake_mover + MOTION_FLOATS * sizeof(float));
    return bytes;
}

#define SCENE_ARRAYS(s)                                                      \
    {                                                                        \
        &(s)->vx, &(s)->vy, &(s)->vz, &(s)->tw, &(s)->tx, &(s)->ty, &(s)->tz \
    }

cd_scene *cd_scene_create_empty(uint32_t n, double world)
{
    cd_scene *s = cd_alloc_zero(1, sizeof *s);
    s->count = n;
    s->world = world;
    float **arrays[SCENE_FLOAT_ARRAYS] = SCENE_ARRAYS(s);
    for (int k = 0; k < SCENE_FLOAT_ARRAYS; ++k) *arrays[k] = cd_alloc_zero(n ? n : 1, sizeof(float));
    s->box = cd_alloc_zero((size_t)n + 1, sizeof *s->box);  // + 1: see cd_scene.box
    s->pose = cd_alloc_zero(n ? n : 1, sizeof *s->pose);
    s->ident = cd_alloc(n ? n * sizeof *s->ident : 1);
    s->moved_slot = cd_alloc(n ? n * sizeof *s->moved_slot : 1);
    s->moved_flag = cd_alloc_zero((size_t)n + CD_SCENE_FLAG_PAD, 1);
    s->avx2 = CD_X86_SIMD && cd_cpu_avx2();
    s->avx512 = CD_X86_SIMD && cd_cpu_avx512();
    s->pose_noted = cd_alloc_zero(n ? n : 1, 1);
    for (uint32_t i = 0; i < n; ++i) {
        s->pose[i].q[0] = s->tw[i] = 1.0f;
        s->ident[i] = i;
    }
    return s;
}

cd_scene *cd_scene_create(const cd_scene_params *p)
{
    CD_ASSERT(p->size > 0 && p->size_ratio >= 1.0 && p->density > 0);
    // The world side is kept as a float so every centre (a float) stays within [0, L].
    cd_scene *s = cd_scene_create_empty(p->cubes, (float)cd_scene_world_side(p));
    s->reorder = p->reorder;
    if (p->layout != CD_LAYOUT_UNIFORM) {
        scene_place_family(s, p);
        scene_set_moving(s, p);
        cd_scene_refresh(s);
        return s;
    }
    cd_rng place = cd_rng_make(p->seed, CD_STREAM_SCENE_PLACE);
    cd_rng motion = cd_rng_make(p->seed, CD_STREAM_SCENE_MOTION);
    double L = s->world;
    for (uint32_t i = 0; i < s->count; ++i) {
        double edge = scene_draw_edge(&place, p);
        double cx = cd_rng_range(&place, 0, L), cy = cd_rng_range(&place, 0, L), cz = cd_rng_range(&place, 0, L);
        cd_quat q = cd_rng_rotation(&place);
        cd_scene_set_pose(s, i, cd_v3(cx, cy, cz), q, cd_v3(0.5 * edge, 0.5 * edge, 0.5 * edge));
        double vx = cd_rng_range(&motion, -p->speed, p->speed), vy = cd_rng_range(&motion, -p->speed, p->speed);
        double vz = cd_rng_range(&motion, -p->speed, p->speed);
        double wx = cd_rng_range(&motion, -p->spin, p->spin), wy = cd_rng_range(&motion, -p->spin, p->spin);
        double wz = cd_rng_range(&motion, -p->spin, p->spin);
        cd_scene_set_motion(s, i, cd_v3(vx, vy, vz), cd_v3(wx, wy, wz));
    }
    scene_set_moving(s, p);
    cd_scene_refresh(s);
    return s;
}

// The motion step works a chunk of cubes at a time: their pose records are turned into columns
// (one float array per field, in L1), the vectorised loops move, turn and bound the columns, and
// the results go back out as records. Pose records are the scene's state (the narrow step reads
// them in random order, one line or two per cube); columns exist only per chunk. Against keeping
// every field in scene-wide arrays as well, a frame streams about a third fewer bytes through
// memory, which at 100 000 cubes is most of the working set.
enum { CHUNK = 256 };

typedef struct chunk_cols {
    float c[3][CHUNK], q[4][CHUNK], h[3][CHUNK];  // pose fields
    float box[6][CHUNK];                          // lo x y z, hi x y z
    int avx2;                                     // records in and out through the AVX2 transposes
    int isa;                                      // the column loops' build: CD_VECTOR_CALL
} chunk_cols;

// The column loops below (bounds, move, turn) are written once as inlined bodies and built three
// times: for AVX-512 and AVX2 (two and four times the lanes) and for baseline x86-64, with the same
// results, since -ffp-contract=off keeps FMA out of every build. chunk_cols.isa picks one: 2, 1 or
// 0 from the scene's avx512 and avx2, which cd_cpu_avx512() and cd_cpu_avx2() set when the scene
// is made, so CDLAB_NO_AVX512 and CDLAB_NO_AVX2 choose the narrower builds on any machine and the
// tests check each for the same bits (GCC's target_clones picked one by the CPU alone).
enum { ISA_BASE, ISA_AVX2, ISA_AVX512 };
#if CD_X86_SIMD
#define CD_VECTOR_BUILDS(ret, name, params, body)                                \
    __attribute__((target("avx512f"))) static ret name##_avx512 params { body; } \
    __attribute__((target("avx2"))) static ret name##_avx2 params { body; }      \
    static ret name##_base params { body; }
#define CD_VECTOR_CALL(isa, name, args) \
    ((isa) == ISA_AVX512 ? name##_avx512 args : (isa) == ISA_AVX2 ? name##_avx2 args : name##_base args)
#else
#define CD_VECTOR_BUILDS(ret, name, params, body) \
    static ret name##_base params { body; }
#define CD_VECTOR_CALL(isa, name, args) ((void)(isa), name##_base args)
#endif
#define CD_VECTOR_BODY __attribute__((always_inline)) static inline

// Boxes of the chunk's n cubes. The radius r = Σ|a_j[k]|·h_j is rounded at most 5 times, so
// (1 + 8·DBL_EPSILON)·r bounds it, and 4·DBL_EPSILON·|c| covers corners computed as
// cd_obb_corners rounds them (as in cd_obb_aabb). c ± r is rounded to nearest once more; the
// float strictly below (above) that double is at least a double ulp away from it, which covers
// that last rounding, so the float box contains the double box exactly.
CD_VECTOR_BODY void bounds_cols_body(chunk_cols *restrict k, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        cd_mat3 a = cd_quat_axes(k->q[0][i], k->q[1][i], k->q[2][i], k->q[3][i]);
        double h0 = k->h[0][i], h1 = k->h[1][i], h2 = k->h[2][i];
        double c[3] = {k->c[0][i], k->c[1][i], k->c[2][i]};
        double r[3] = {fabs(a.col[0].x) * h0 + fabs(a.col[1].x) * h1 + fabs(a.col[2].x) * h2,
                       fabs(a.col[0].y) * h0 + fabs(a.col[1].y) * h1 + fabs(a.col[2].y) * h2,
                       fabs(a.col[0].z) * h0 + fabs(a.col[1].z) * h1 + fabs(a.col[2].z) * h2};
        for (int j = 0; j < 3; ++j) {
            double m = r[j] * (1.0 + 8.0 * DBL_EPSILON) + 4.0 * DBL_EPSILON * fabs(c[j]);
            k->box[j][i] = cd_float_below(c[j] - m);
            k->box[3 + j][i] = cd_float_above(c[j] + m);
        }
    }
}

// bounds_cols in float, sixteen cubes per AVX-512 vector instead of eight doubles. Each axis
// entry comes from the float quaternion as cd_quat_axes writes it, with about 30 float
// roundings between it and the double the narrow test uses: at most E = 48u off
// (u = 2^-24; the quaternion's squared norm is in [2^-60, 2^60], so nothing overflows or goes
// subnormal at a scale that matters). So r_j = Σ|a_kj|·h_k is covered by the float sum times
// 1 + 2^-20 (its own five roundings and the margin's) plus 2^-17·(h0 + h1 + h2) (the entries'
// error, 128u > 48u with room for roundings), and 2^-20·|c| covers the double corners' rounding
// (4·DBL_EPSILON·|c|) and the final c ± m rounding (u·(|c| + m), the m part inside the r slack).
// Returns 0 when some quaternion's norm is out of that range: the chunk's boxes are then the
// double path's to redo. Float halves the bytes and doubles the lanes of the double bounds, for
// about 0.02 % more candidates from the wider margins.
CD_VECTOR_BODY int bounds_cols_float_body(chunk_cols *restrict k, uint32_t n)
{
    int out_of_range = 0;
    for (uint32_t i = 0; i < n; ++i) {
        float w = k->q[0][i], x = k->q[1][i], y = k->q[2][i], z = k->q[3][i];
        float norm = w * w + x * x + y * y + z * z;
        out_of_range |= !(norm >= 0x1p-60f && norm <= 0x1p60f);
        float s = 2.0f / norm;
        float xx = s * x * x, yy = s * y * y, zz = s * z * z, xy = s * x * y, xz = s * x * z, yz = s * y * z;
        float wx = s * w * x, wy = s * w * y, wz = s * w * z;
        float h0 = k->h[0][i], h1 = k->h[1][i], h2 = k->h[2][i];
        float r[3] = {fabsf(1.0f - (yy + zz)) * h0 + fabsf(xy - wz) * h1 + fabsf(xz + wy) * h2,
                      fabsf(xy + wz) * h0 + fabsf(1.0f - (xx + zz)) * h1 + fabsf(yz - wx) * h2,
                      fabsf(xz - wy) * h0 + fabsf(yz + wx) * h1 + fabsf(1.0f - (xx + yy)) * h2};
        float slack = (h0 + h1 + h2) * 0x1p-17f + FLT_MIN;  // FLT_MIN: roundings among subnormals
        for (int j = 0; j < 3; ++j) {
            float c = k->c[j][i], m = r[j] * (1.0f + 0x1p-20f) + (slack + fabsf(c) * 0x1p-20f);
            k->box[j][i] = c - m;
            k->box[3 + j][i] = c + m;
        }
    }
    return !out_of_range;
}

CD_VECTOR_BUILDS(void, bounds_cols, (chunk_cols *restrict k, uint32_t n), bounds_cols_body(k, n))
CD_VECTOR_BUILDS(int, bounds_cols_float, (chunk_cols *restrict k, uint32_t n), return bounds_cols_float_body(k, n))

// The SIMD paths of the scene's chunks: the AVX2 transposes and the column loops' build.
static inline void chunk_paths(chunk_cols *k, const cd_scene *s)
{
    k->avx2 = s->avx2;
    k->isa = s->avx512 ? ISA_AVX512 : s->avx2 ? ISA_AVX2 : ISA_BASE;
}

// The chunk's boxes: in float where its rotations allow, else in double.
static void chunk_bounds(chunk_cols *k, uint32_t n)
{
    if (!CD_VECTOR_CALL(k->isa, bounds_cols_float, (k, n))) CD_VECTOR_CALL(k->isa, bounds_cols, (k, n));
}

// Reflect coordinate x with velocity v at walls 0 and L: the centre bounces, so a cube may poke
// through a wall by at most its half-diagonal, as in the seed report's scene. Selects, no
// branches, so the motion loop vectorises.
#define REFLECT(c, v, L)                                                                 \
    do {                                                                                 \
        float v_ = v[i], x_ = c[i] + v_, low_ = -x_, high_ = 2.0f * L - x_, back_ = -v_; \
        int below_ = x_<0.0f, above_ = x_> L;                                            \
        c[i] = below_ ? low_ : (above_ ? high_ : x_);                                    \
        v[i] = below_ | above_ ? back_ : v_;                                             \
    } while (0)

// Centres move and bounce; one axis per call. The velocities are stored only when a cube of the
// chunk bounces (rarely: a cube crosses the world in thousands of frames), so their lines stay
// clean and are not written back to memory every frame.
CD_VECTOR_BODY void move_axis_body(float *restrict c, float *restrict v, uint32_t n, float L)
{
    int bounce = 0;
    for (uint32_t i = 0; i < n; ++i) {
        float x = c[i] + v[i];
        bounce |= (x < 0.0f) | (x > L);
    }
    if (!bounce) {
        for (uint32_t i = 0; i < n; ++i) c[i] += v[i];  // what REFLECT gives when nothing bounces
        return;
    }
    for (uint32_t i = 0; i < n; ++i) REFLECT(c, v, L);
}

// q ← normalise(turn · q) in float.
CD_VECTOR_BODY void turn_cols_body(float (*restrict q)[CHUNK], const float *restrict tw, const float *restrict tx,
                                   const float *restrict ty, const float *restrict tz, uint32_t n)
{
    float *restrict qw = q[0], *restrict qx = q[1], *restrict qy = q[2], *restrict qz = q[3];
    for (uint32_t i = 0; i < n; ++i) {
        float w = tw[i] * qw[i] - tx[i] * qx[i] - ty[i] * qy[i] - tz[i] * qz[i];
        float x = tw[i] * qx[i] + tx[i] * qw[i] + ty[i] * qz[i] - tz[i] * qy[i];
        float y = tw[i] * qy[i] - tx[i] * qz[i] + ty[i] * qw[i] + tz[i] * qx[i];
        float z = tw[i] * qz[i] + tx[i] * qy[i] - ty[i] * qx[i] + tz[i] * qw[i];
        float inv = 1.0f / sqrtf(w * w + x * x + y * y + z * z);
        qw[i] = w * inv, qx[i] = x * inv, qy[i] = y * inv, qz[i] = z * inv;
    }
}

CD_VECTOR_BUILDS(void, move_axis, (float *restrict c, float *restrict v, uint32_t n, float L),
                 move_axis_body(c, v, n, L))
CD_VECTOR_BUILDS(void, turn_cols,
                 (float (*restrict q)[CHUNK], const float *restrict tw, const float *restrict tx,
                  const float *restrict ty, const float *restrict tz, uint32_t n),
                 turn_cols_body(q, tw, tx, ty, tz, n))

// Records and columns. A plain loop between them moves one float at a time (at 100 000 cubes the
// box and pose stores alone took about half of the motion step); with AVX2 eight records at a
// time go through the 8 × 8 transpose, one 32-byte load or store per record.
static float *pose_col(chunk_cols *k, int f) { return f < 3 ? k->c[f] : (f < 7 ? k->q[f - 3] : k->h[f - 7]); }

_Static_assert(sizeof(cd_posef) == 10 * sizeof(float), "a pose record is ten packed floats");
// Field f (c, q, h in order) of the pose records that start at p, as one float array.
static float *pose_floats(cd_posef *p) { return (float *)(void *)p; }
static const float *pose_floats_const(const cd_posef *p) { return (const float *)(const void *)p; }

// Record i of a chunk: record i of the run (at NULL) or record at[i] of the scene.
static inline size_t record_at(const uint32_t *at, uint32_t i) { return at ? at[i] : i; }

#if CD_X86_SIMD
// Fields 0–7 of eight records from their first eight floats, fields 8 and 9 (h1, h2) from their
// last eight: two transposes.
// The AVX2 functions do whole groups of eight records and return how many they did; the callers
// do the rest one by one. The records are pose[0, n) or, with at, pose[at[0]], ..., pose[at[n − 1]].
__attribute__((target("avx2"))) static uint32_t poses_in_avx2(const cd_posef *restrict pose, const uint32_t *at,
                                                              uint32_t n, chunk_cols *k)
{
    const float *in = pose_floats_const(pose);
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 r[8], f[8];
        for (uint32_t l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(in + 10 * record_at(at, i + l));
        cd_transpose8(r, f);
        for (int j = 0; j < 8; ++j) _mm256_storeu_ps(pose_col(k, j) + i, f[j]);
        for (uint32_t l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(in + 10 * record_at(at, i + l) + 2);
        cd_transpose8(r, f);
        _mm256_storeu_ps(k->h[1] + i, f[6]);
        _mm256_storeu_ps(k->h[2] + i, f[7]);
    }
    return i;
}

__attribute__((target("avx2"))) static uint32_t poses_out_avx2(cd_posef *restrict pose, const uint32_t *at,
                                                               chunk_cols *k, uint32_t n)
{
    float *out = pose_floats(pose);
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 r[8], f[8];
        for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(pose_col(k, j) + i);
        cd_transpose8(r, f);
        for (uint32_t l = 0; l < 8; ++l) _mm256_storeu_ps(out + 10 * record_at(at, i + l), f[l]);
        __m256 h1 = _mm256_loadu_ps(k->h[1] + i), h2 = _mm256_loadu_ps(k->h[2] + i);
        // Record l's (h1, h2) is in 128-bit lane l / 4 of lo (l mod 4 < 2) or hi, low or high half.
        __m256 lo = _mm256_unpacklo_ps(h1, h2), hi = _mm256_unpackhi_ps(h1, h2);
        for (uint32_t l = 0; l < 8; ++l) {
            __m256 v = l & 2 ? hi : lo;
            __m128 half = l < 4 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1);
            __m64 *to = (__m64 *)(void *)(out + 10 * record_at(at, i + l) + 8);
            if (l & 1)
                _mm_storeh_pi(to, half);
            else
                _mm_storel_pi(to, half);
        }
    }
    return i;
}

// The motion records mm[0, n) (eight floats each: velocity, turn, a spare) into the columns v and
// t, eight records at a time through one transpose; returns how many it did.
__attribute__((target("avx2"))) static uint32_t motion_in_avx2(const float *restrict mm, uint32_t n, float v[3][CHUNK],
                                                               float t[4][CHUNK])
{
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 r[8], f[8];
        for (uint32_t l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(mm + (size_t)MOTION_FLOATS * (i + l));
        cd_transpose8(r, f);
        for (int a = 0; a < 3; ++a) _mm256_storeu_ps(v[a] + i, f[a]);
        for (int a = 0; a < 4; ++a) _mm256_storeu_ps(t[a] + i, f[3 + a]);
    }
    return i;
}

__attribute__((target("avx2"))) static uint32_t boxes_out_avx2(cd_aabbf *restrict box, chunk_cols *k, uint32_t n)
{
    float *out = box->lo;
    uint32_t i = 0;
    for (; i + 8 < n; i += 8) {  // each store's last two floats are the next record's first two,
                                 // rewritten by its own store; the range's last record is plain
        __m256 r[8], f[8];
        for (int j = 0; j < 6; ++j) r[j] = _mm256_loadu_ps(k->box[j] + i);
        r[6] = r[7] = _mm256_setzero_ps();
        cd_transpose8(r, f);
        for (uint32_t l = 0; l < 8; ++l) _mm256_storeu_ps(out + 6 * (i + l), f[l]);
    }
    return i;
}
#endif

// The chunk's n records into columns: pose[0, n), or with at the records pose[at[i]].
static void poses_in(const cd_posef *restrict pose, const uint32_t *at, uint32_t n, chunk_cols *k)
{
    uint32_t i = 0;
#if CD_X86_SIMD
    if (k->avx2) i = poses_in_avx2(pose, at, n, k);
#endif
    const float *in = pose_floats_const(pose);
    for (; i < n; ++i)
        for (int j = 0; j < 10; ++j) pose_col(k, j)[i] = in[10 * record_at(at, i) + (uint32_t)j];
}

// The columns back out to the records they came from (poses_in).
static void poses_out(cd_posef *restrict pose, const uint32_t *at, chunk_cols *k, uint32_t n)
{
    uint32_t i = 0;
#if CD_X86_SIMD
    if (k->avx2) i = poses_out_avx2(pose, at, k, n);
#endif
    float *out = pose_floats(pose);
    for (; i < n; ++i)
        for (int j = 0; j < 10; ++j) out[10 * record_at(at, i) + (uint32_t)j] = pose_col(k, j)[i];
}

static void boxes_out(cd_aabbf *restrict box, chunk_cols *k, uint32_t n)
{
    uint32_t i = 0;
#if CD_X86_SIMD
    if (k->avx2) i = boxes_out_avx2(box, k, n);
#endif
    for (; i < n; ++i)
        box[i] = (cd_aabbf){{k->box[0][i], k->box[1][i], k->box[2][i]}, {k->box[3][i], k->box[4][i], k->box[5][i]}};
}

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

// Box i of slots [b, b + n) changed (a compare of three 64-bit words a box; one per column loaded
// from the records cost more than half the motion step): its flag, and its slot appended to the
// move list at list (branch-free: every slot is written, the count moves on only for a change).
// Returns how many changed.
static uint32_t note_changed(const cd_aabbf *restrict old, const cd_aabbf *restrict box, uint32_t n, uint32_t b,
                             uint8_t *restrict flag, uint32_t *restrict list)
{
    _Static_assert(sizeof(cd_aabbf) == 3 * sizeof(uint64_t), "a box is three 64-bit words");
    uint32_t changed = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t o[3], w[3];
        memcpy(o, &old[i], sizeof o);
        memcpy(w, &box[i], sizeof w);
        uint32_t c = ((o[0] ^ w[0]) | (o[1] ^ w[1]) | (o[2] ^ w[2])) != 0;
        flag[i] = (uint8_t)c;
        list[changed] = b + i;
        changed += c;
    }
    return changed;
}

// Store n new boxes over slots [b, b + n) and note those that changed (note_changed), or whose
// pose was noted (cd_scene_note_pose; the notes are cleared).
static uint32_t store_changed(cd_scene *s, const cd_aabbf *restrict box, uint32_t n, uint32_t b, uint32_t *list)
{
    uint32_t changed = note_changed(s->box + b, box, n, b, s->moved_flag + b, list);
    memcpy(s->box + b, box, n * sizeof *box);
    if (!s->poses_noted) return changed;
    changed = 0;  // the list again with the noted poses, still in slot order
    for (uint32_t i = 0; i < n; ++i) {
        s->moved_flag[b + i] |= s->pose_noted[b + i];
        s->pose_noted[b + i] = 0;
        list[changed] = b + i;
        changed += s->moved_flag[b + i];
    }
    return changed;
}

// Slots [b, b + n) were all stepped: each is listed (its pose was rewritten; a superset of the
// cubes whose pose or box changed, which only a cube at rest, velocity and spin zero, is not).
static uint32_t note_stepped(uint32_t n, uint32_t b, uint8_t *restrict flag, uint32_t *restrict list)
{
    memset(flag, 1, n);
    for (uint32_t i = 0; i < n; ++i) list[i] = b + i;
    return n;
}

// A move list of `moved` slots is complete (moves_known) or not.
static void publish_moves(cd_scene *s, uint32_t moved, int known)
{
    s->moved = moved;
    s->moves++;
    s->moves_known = known;
}

void cd_scene_refresh(cd_scene *s)
{
    chunk_cols k;
    chunk_paths(&k, s);
    cd_aabbf box[CHUNK];
    uint32_t moved = 0;
    for (uint32_t b = 0; b < s->count; b += CHUNK) {
        uint32_t n = s->count - b < CHUNK ? s->count - b : CHUNK;
        poses_in(s->pose + b, NULL, n, &k);
        chunk_bounds(&k, n);
        boxes_out(box, &k, n);
        moved += store_changed(s, box, n, b, s->moved_slot + moved);
    }
    s->poses_noted = 0;
    publish_moves(s, moved, 1);
}

// Poses written by hand since the last publication are refreshed (and listed) before a step.
void cd_scene_refresh_noted(cd_scene *s)
{
    chunk_cols k;
    chunk_paths(&k, s);
    cd_aabbf box[CHUNK];
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->count; ++i) {  // the noted slots, in slot order
        s->moved_slot[m] = i;
        m += s->pose_noted[i];
    }
    if (m == s->count) {  // every pose noted (a trace of moving objects): the slots in order
        for (uint32_t b = 0; b < m; b += CHUNK) {
            uint32_t n = m - b < CHUNK ? m - b : CHUNK;
            poses_in(s->pose + b, NULL, n, &k);
            chunk_bounds(&k, n);
            boxes_out(s->box + b, &k, n);
        }
        memset(s->moved_flag, 1, m), memset(s->pose_noted, 0, m);
    } else {
        memset(s->moved_flag, 0, s->count);
        for (uint32_t b = 0; b < m; b += CHUNK) {
            uint32_t n = m - b < CHUNK ? m - b : CHUNK;
            const uint32_t *at = s->moved_slot + b;
            poses_in(s->pose, at, n, &k);
            chunk_bounds(&k, n);
            boxes_out(box, &k, n);
            for (uint32_t i = 0; i < n; ++i) s->box[at[i]] = box[i], s->moved_flag[at[i]] = 1, s->pose_noted[at[i]] = 0;
        }
    }
    s->poses_noted = 0;
    publish_moves(s, m, 1);
}

static void refresh_noted(cd_scene *s)
{
    if (s->poses_noted) cd_scene_refresh(s);
}

int cd_scene_moves_since(const cd_scene *s, uint64_t *seen, cd_scene_moves *m)
{
    uint64_t was = *seen;
    *seen = s->moves;
    *m = (cd_scene_moves){NULL, 0, NULL};
    if (was == s->moves) return 1;
    if (was == CD_SCENE_MOVES_UNSEEN || was + 1 != s->moves || !s->moves_known) return 0;
    if (s->moved) *m = (cd_scene_moves){s->moved_slot, s->moved, s->moved_flag};
    return 1;
}

void cd_scene_mark_moved(cd_scene *s, const uint32_t *slots, uint32_t count)
{
    uint32_t fresh = 0;
    for (uint32_t k = 0; k < count; ++k) {
        CD_ASSERT(slots[k] < s->count);
        fresh += !s->moved_flag[slots[k]];
        s->moved_flag[slots[k]] = 1;
    }
    if (!fresh) return;
    uint32_t m = 0;  // the list again from the flags, in slot order
    for (uint32_t i = 0; i < s->count; ++i) {
        s->moved_slot[m] = i;
        m += s->moved_flag[i];
    }
    s->moved = m;
}

// The lines that the step of movers mover[0, n) reads and writes, asked for ahead: the slots are
// scattered over the scene (a mover's neighbours in memory mostly stand still), so each pose, box
// and flag is a line of its own, which the hardware prefetcher cannot guess. Asked one chunk ahead,
// the misses of a chunk overlap the work of the one before.
static void prefetch_movers(const cd_scene *s, const uint32_t *mover, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t slot = s->mover_slot[mover[i]];
        const char *pose = (const char *)&s->pose[slot], *box = (const char *)&s->box[slot];
        __builtin_prefetch(pose, 1);
        __builtin_prefetch(pose + sizeof s->pose[0] - 1, 1);
        __builtin_prefetch(box, 1);
        __builtin_prefetch(box + sizeof s->box[0] - 1, 1);
        __builtin_prefetch(&s->moved_flag[slot], 1);
    }
}

// The motion of the awake movers whose indices in the movers list are mover[0, n) (ascending), a
// chunk at a time: the same column arithmetic as a run of slots, on records gathered by slot and
// scattered back, with the motion read from the movers' own copy (s->mover_motion, in list order:
// one stream, where the seven per-slot arrays cost a line each per cube). A velocity that a wall
// turned is written to both. Every cube stepped is flagged (the caller cleared the flags of every
// other slot) and its slot listed at list, as note_stepped does. Returns how many (n). A cube's result depends only
// on its own record and motion: every column loop works lane by lane (no sums across lanes) and a
// move_axis without a bounce gives what REFLECT gives, so the cubes that share a chunk do not
// matter — save that chunk_bounds takes the double path for a whole chunk in which some rotation's
// norm is out of the float path's range, which a quaternion of norm 1 turned by one frame's turn
// never is.
static uint32_t step_list(cd_scene *s, const uint32_t *mover, uint32_t n, uint32_t *list, float L)
{
    chunk_cols k;
    chunk_paths(&k, s);
    cd_aabbf box[CHUNK];
    float v[3][CHUNK], t[4][CHUNK];
    uint32_t at[CHUNK];
    float *vel[3] = {s->vx, s->vy, s->vz};
    uint32_t moved = 0;
    prefetch_movers(s, mover, n < CHUNK ? n : CHUNK);
    for (uint32_t b = 0; b < n; b += CHUNK) {
        uint32_t m = n - b < CHUNK ? n - b : CHUNK;
        if (b + m < n) prefetch_movers(s, mover + b + m, n - b - m < CHUNK ? n - b - m : CHUNK);
        uint32_t i0 = 0;  // the motion records of movers in a row of the list: transposed
#if CD_X86_SIMD
        if (s->avx2 && mover[b + m - 1] - mover[b] == m - 1)
            i0 = motion_in_avx2(s->mover_motion + (size_t)MOTION_FLOATS * mover[b], m, v, t);
#endif
        for (uint32_t i = 0; i < m; ++i) at[i] = s->mover_slot[mover[b + i]];
        for (uint32_t i = i0; i < m; ++i) {
            const float *mm = s->mover_motion + (size_t)MOTION_FLOATS * mover[b + i];
            for (int a = 0; a < 3; ++a) v[a][i] = mm[a];
            for (int a = 0; a < 4; ++a) t[a][i] = mm[3 + a];
        }
        // A run of slots (the reorder puts the cubes that moved first) is read and written as
        // one: no gather of the records, the boxes straight to the scene's.
        uint32_t run = at[m - 1] - at[0] == m - 1, *by = run ? NULL : at;
        cd_posef *pose = run ? s->pose + at[0] : s->pose;
        poses_in(pose, by, m, &k);
        for (int a = 0; a < 3; ++a) {
            float was[CHUNK];
            memcpy(was, v[a], m * sizeof *was);
            CD_VECTOR_CALL(k.isa, move_axis, (k.c[a], v[a], m, L));
            if (memcmp(was, v[a], m * sizeof *was) == 0) continue;  // no wall this frame
            for (uint32_t i = 0; i < m; ++i)
                s->mover_motion[(size_t)MOTION_FLOATS * mover[b + i] + (uint32_t)a] = v[a][i];
            for (uint32_t i = 0; i < m; ++i) vel[a][at[i]] = v[a][i];
        }
        CD_VECTOR_CALL(k.isa, turn_cols, (k.q, t[0], t[1], t[2], t[3], m));
        chunk_bounds(&k, m);
        poses_out(pose, by, &k, m);
        if (run) {
            boxes_out(s->box + at[0], &k, m);
            memset(s->moved_flag + at[0], 1, m);
            for (uint32_t i = 0; i < m; ++i) list[moved++] = at[0] + i;
            continue;
        }
        boxes_out(box, &k, m);
        for (uint32_t i = 0; i < m; ++i) {
            s->moved_flag[at[i]] = 1;
            list[moved++] = at[i];
            s->box[at[i]] = box[i];
        }
    }
    return moved;
}

// The far walls as the largest float ≤ L.
static float far_wall(const cd_scene *s)
{
    float L = (float)s->world;
    if ((double)L > s->world) L = cd_float_next_down(L);
    return L;
}

// The movers list and their motion from the state and the per-slot arrays (when stale): O(N),
// after a reorder, cd_scene_set_still or cd_scene_set_motion only.
static void list_movers(cd_scene *s)
{
    if (!s->movers_stale) return;
    if (!s->mover_slot) {
        s->mover_slot = cd_alloc(s->count ? s->count * sizeof *s->mover_slot : 1);
        s->awake_mover = cd_alloc(s->count ? s->count * sizeof *s->awake_mover : 1);
        s->mover_motion = cd_alloc((s->count ? s->count : 1) * MOTION_FLOATS * sizeof *s->mover_motion);
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->count; ++i) {
        s->mover_slot[m] = i;
        m += (s->state[i] & CD_SCENE_MOVES) != 0;
    }
    const float *motion[7] = {s->vx, s->vy, s->vz, s->tw, s->tx, s->ty, s->tz};
    for (uint32_t k = 0; k < m; ++k)
        for (int a = 0; a < 7; ++a)
            s->mover_motion[(size_t)MOTION_FLOATS * k + (uint32_t)a] = motion[a][s->mover_slot[k]];
    s->movers = m;
    s->movers_stale = 0;
    s->awake_for = UINT64_MAX;  // the awake list follows
}

// The awake movers (indices into the movers list) among mover indices [lo, hi), into awake.
static uint32_t list_awake(const cd_scene *s, uint32_t lo, uint32_t hi, uint32_t *awake)
{
    uint32_t a = 0;
    for (uint32_t k = lo; k < hi; ++k) {
        awake[a] = k;
        a += (s->state[s->mover_slot[k]] & CD_SCENE_AWAKE) != 0;
    }
    return a;
}

// Before a whole step of a scene with a state: the toggles due this frame (on the movers only),
// the awake list when it changed, and the flags of the last move list cleared (the step flags the
// boxes that change), so that the step costs what moves, not N.
static void prepare_movers(cd_scene *s)
{
    list_movers(s);
    uint32_t flips = scene_toggle_sleep(s, s->mover_slot, s->movers);
    if (flips || s->awake_for != s->moves) s->awake = list_awake(s, 0, s->movers, s->awake_mover);
    if (s->moves_known)
        for (uint32_t k = 0; k < s->moved; ++k) s->moved_flag[s->moved_slot[k]] = 0;
    else
        memset(s->moved_flag, 0, s->count);
}

// After a whole step of a scene with a state: its awake list holds for the next step, unless a
// refresh or a ranged step publishes in between.
static void publish_step(cd_scene *s, uint32_t moved)
{
    publish_moves(s, moved, 1);
    if (s->state) s->awake_for = s->moves;
}

// First index k of the ascending slot[0, n) with slot[k] >= x.
static uint32_t lower_bound(const uint32_t *slot, uint32_t n, uint32_t x)
{
    uint32_t lo = 0;
    while (n) {
        uint32_t half = n / 2;
        if (slot[lo + half] < x) {
            lo += half + 1;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return lo;
}

// step_range for a scene with still or sleeping cubes (s->state): the toggles due on the range's
// movers, then the awake ones among them stepped as a list; the cubes that do not move keep their
// poses, boxes and velocities bit for bit. Returns the cubes whose box changed, listed from
// s->moved_slot + first on.
static uint32_t step_range_movers(cd_scene *s, uint32_t first, uint32_t end, float L)
{
    list_movers(s);
    uint32_t lo = lower_bound(s->mover_slot, s->movers, first), hi = lower_bound(s->mover_slot, s->movers, end);
    scene_toggle_sleep(s, s->mover_slot + lo, hi - lo);
    uint32_t *awake = cd_alloc((hi - lo ? hi - lo : 1) * sizeof *awake), a = list_awake(s, lo, hi, awake);
    memset(s->moved_flag + first, 0, end - first);
    uint32_t moved = step_list(s, awake, a, s->moved_slot + first, L);
    cd_free(awake);
    return moved;
}

// Motion of cubes [first, end), a chunk at a time. The new poses and boxes are written straight
// (stream = 0) or built in a small buffer and streamed out past the caches. With several threads,
// the broad and narrow steps of the other threads read most of these lines, so a plain store
// first has to take each line back from another core's cache; a streaming store does not wait for
// that. Once the slots follow space (s->layout > 0), a thread's own broad and narrow steps read
// most of what its motion writes, and plain stores leave it in its cache, which is faster still.
// Returns the cubes whose box changed, listed from s->moved_slot + first on (flags set).
static uint32_t step_range(cd_scene *s, uint32_t first, uint32_t end, int stream)
{
    float L = far_wall(s);
    if (s->state) return step_range_movers(s, first, end, L);
    uint32_t moved = 0;
    chunk_cols k;
    chunk_paths(&k, s);
    cd_aabbf box[CHUNK];
    cd_posef pose[CHUNK];
    for (uint32_t b = first; b < end; b += CHUNK) {
        uint32_t n = end - b < CHUNK ? end - b : CHUNK;
        poses_in(s->pose + b, NULL, n, &k);
        CD_VECTOR_CALL(k.isa, move_axis, (k.c[0], s->vx + b, n, L));
        CD_VECTOR_CALL(k.isa, move_axis, (k.c[1], s->vy + b, n, L));
        CD_VECTOR_CALL(k.isa, move_axis, (k.c[2], s->vz + b, n, L));
        CD_VECTOR_CALL(k.isa, turn_cols, (k.q, s->tw + b, s->tx + b, s->ty + b, s->tz + b, n));
        chunk_bounds(&k, n);
        boxes_out(box, &k, n);
        poses_out(stream ? pose : s->pose + b, NULL, &k, n);
        moved += note_stepped(n, b, s->moved_flag + b, s->moved_slot + first + moved);
        if (!stream) {
            memcpy(s->box + b, box, n * sizeof *box);
        } else {
            stream_copy(s->box + b, box, n * sizeof *box);
            stream_copy(s->pose + b, pose, n * sizeof *pose);
        }
    }
#if defined(__SSE2__) && defined(__x86_64__)
    if (stream) _mm_sfence();  // the streamed lines are visible before the step returns
#endif
    return moved;
}

// Cubes per block of the threaded step: a thread's share of the scene is whole blocks.
enum { STEP_BLOCK = 2048 };
_Static_assert(STEP_BLOCK % CHUNK == 0, "a block of the threaded step is whole chunks");

void cd_scene_step_range(cd_scene *s, uint32_t first, uint32_t end)
{
    refresh_noted(s);
    publish_moves(s, step_range(s, first, end, 0), 0);
}

// A centre coordinate as MORTON_BITS bits (cells of world / 2^MORTON_BITS), its bits spread to every
// third place of a Morton code. Seven bits make cells of about a cube at 100 000 cubes (two at
// 10⁶), far finer than a page of records, and a 21-bit key sorts in two radix passes; cubes in one
// cell keep their order (the sort is stable), so a reorder moves few of them.
enum { MORTON_BITS = 7 };

static uint32_t morton_spread(float x, float scale)
{
    float f = x * scale, top = (float)((1u << MORTON_BITS) - 1);
    uint32_t v = f > 0.0f ? (f < top ? (uint32_t)f : (uint32_t)top) : 0u;
    v = (v | v << 16) & 0x030000ffu;
    v = (v | v << 8) & 0x0300f00fu;
    v = (v | v << 4) & 0x030c30c3u;
    return (v | v << 2) & 0x09249249u;
}

// Each array is gathered into a fresh one in the new order and the old one freed, one array at a
// time: the peak scratch is the largest array (poses, 40 B per cube) and the slot order (4 B), and
// every pass reads through a nearly sorted order, so it streams. An in-place walk of the
// permutation's cycles needed 16 B per cube but jumped across all ten arrays at once and was about
// three times slower. The `tail` records after the n cubes keep their places.
#define GATHER_INTO(type, array, order, n, tail)                                      \
    do {                                                                              \
        type *gathered_ = cd_alloc(((size_t)(n) + (tail)) * sizeof(type));            \
        for (uint32_t k_ = 0; k_ < (n); ++k_) gathered_[k_] = (array)[(order)[k_]];   \
        for (uint32_t k_ = (n); k_ < (n) + (tail); ++k_) gathered_[k_] = (array)[k_]; \
        cd_free(array);                                                               \
        (array) = gathered_;                                                          \
    } while (0)

// z is the Morton code's top bit, then y, then x: the first half of the slots is the lower half
// of the world on z, so a parallel step's threads (contiguous slot runs) own slabs of space, as
// grid_multi's parts (rows in z-major order) do. Above the code, a bit for the cubes the last move
// list did not name (when the scene knows it): the cubes that moved come first, a run of slots for
// the motion step's list and for what reads only what moved, each part in Morton order. The move
// list, not the scene's own state, so that a trace's replay (which knows only what changed) orders
// its slots as the live run it recorded did, and the peers that build in slot order do the same
// work.
void cd_scene_reorder(cd_scene *s)
{
    uint32_t n = s->count;
    if (!s->slot_of_prev) s->slot_of_prev = cd_alloc(n ? n * sizeof(uint32_t) : 1);
    if (n == 0) {
        s->layout++;
        return;
    }
    // Scratch for one reorder (every s->reorder frames, never in a frame without one).
    uint32_t *order = cd_alloc((size_t)n * sizeof *order), *key = cd_alloc(3 * (size_t)n * sizeof *key);
    uint32_t *tmp_key = key + n, *tmp_id = tmp_key + n;
    float scale = (float)((double)(1u << MORTON_BITS) / s->world);
    for (uint32_t i = 0; i < n; ++i) {
        const float *c = s->pose[i].c;
        key[i] = morton_spread(c[0], scale) | morton_spread(c[1], scale) << 1 | morton_spread(c[2], scale) << 2;
        key[i] |= (uint32_t)(s->moves_known & !s->moved_flag[i]) << 3 * MORTON_BITS;
        order[i] = i;
    }
    cd_radix_sort_bits(key, order, tmp_key, tmp_id, n, 3 * MORTON_BITS + 1);
    cd_free(key);
    // order[k]: the old slot whose cube goes to slot k.
    for (uint32_t k = 0; k < n; ++k) s->slot_of_prev[order[k]] = k;
    GATHER_INTO(cd_posef, s->pose, order, n, 0);
    GATHER_INTO(cd_aabbf, s->box, order, n, 1);  // + 1: the zero record, see cd_scene.box
    float **arrays[SCENE_FLOAT_ARRAYS] = SCENE_ARRAYS(s);
    for (int a = 0; a < SCENE_FLOAT_ARRAYS; ++a) GATHER_INTO(float, *arrays[a], order, n, 0);
    GATHER_INTO(uint32_t, s->ident, order, n, 0);
    GATHER_INTO(uint8_t, s->moved_flag, order, n, CD_SCENE_FLAG_PAD);
    GATHER_INTO(uint8_t, s->pose_noted, order, n, 0);
    if (s->moves_known) {  // the same set under the new slots, in slot order again
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i) {
            s->moved_slot[m] = i;
            m += s->moved_flag[i];
        }
        CD_ASSERT(m == s->moved);
    }
    if (s->state) GATHER_INTO(uint8_t, s->state, order, n, 0);
    s->movers_stale = s->state != NULL;  // the lists name old slots
    if (s->toggle_at) GATHER_INTO(uint64_t, s->toggle_at, order, n, 0);
    cd_free(order);
    s->layout++;
}

void cd_scene_renumber_slots(const cd_scene *s, uint32_t *slots, size_t count, uint32_t mask)
{
    const uint32_t *to = s->slot_of_prev;
    for (size_t k = 0; k < count; ++k) slots[k] = to[slots[k] & mask] | (slots[k] & ~mask);
}

void cd_scene_move_slot_values(const cd_scene *s, const uint32_t *by_old, uint32_t *by_new)
{
    const uint32_t *to = s->slot_of_prev;
    for (uint32_t i = 0; i < s->count; ++i) by_new[to[i]] = by_old[i];
}

// Reorder at the first two steps and every s->reorder frames after the first.
static void reorder_if_due(cd_scene *s)
{
    if (cd_scene_reorder_due(s)) cd_scene_reorder(s);
}

void cd_scene_step(cd_scene *s)
{
    refresh_noted(s);
    reorder_if_due(s);
    if (s->state) {
        prepare_movers(s);
        publish_step(s, step_list(s, s->awake_mover, s->awake, s->moved_slot, far_wall(s)));
    } else {
        publish_moves(s, step_range(s, 0, s->count, 0), 1);
    }
    s->frame++;
}

void cd_scene_step_threads(cd_scene *s, int threads)
{
    if (threads <= 1) {
        cd_scene_step(s);
        return;
    }
    refresh_noted(s);
    reorder_if_due(s);
    // Whole blocks per thread: each cube's step reads and writes only its own entries. Each thread
    // keeps last frame's blocks (its cores' caches hold their arrays) unless it has to take over
    // another thread's tail. With a state, the blocks are of the awake list (STEP_BLOCK entries,
    // whole chunks, so a cube shares its chunk with the same cubes as in the serial step).
    if (threads > CD_PART_QUEUE_MAX_THREADS) threads = CD_PART_QUEUE_MAX_THREADS;
    if (s->state) prepare_movers(s);
    uint32_t items = s->state ? s->awake : s->count;
    uint32_t blocks = (uint32_t)(((uint64_t)items + STEP_BLOCK - 1) / STEP_BLOCK);
    float L = far_wall(s);
    cd_part_queue queue;
    uint32_t *listed = cd_alloc((blocks ? blocks : 1) * sizeof *listed);
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        cd_part_queue_deal(&queue, blocks, (uint32_t)omp_get_num_threads());
        uint32_t k;
        while (cd_part_queue_take(&queue, (uint32_t)omp_get_thread_num(), &k)) {
            uint32_t first = k * STEP_BLOCK, end = items - first < STEP_BLOCK ? items : first + STEP_BLOCK;
            if (s->state)
                listed[k] = step_list(s, s->awake_mover + first, end - first, s->moved_slot + first, L);
            else
                listed[k] = step_range(s, first, end, s->layout == 0);
        }
    }
    // Each block listed its slots at its own offset; joined in block order, the list is in slot
    // order, the same as the serial step's.
    uint32_t moved = 0;
    for (uint32_t k = 0; k < blocks; ++k) {
        memmove(s->moved_slot + moved, s->moved_slot + (size_t)k * STEP_BLOCK, listed[k] * sizeof *s->moved_slot);
        moved += listed[k];
    }
    cd_free(listed);
    publish_step(s, moved);
    s->frame++;
}

void cd_scene_destroy(cd_scene *s)
{
    if (!s) return;
    float **arrays[SCENE_FLOAT_ARRAYS] = SCENE_ARRAYS(s);
    for (int k = 0; k < SCENE_FLOAT_ARRAYS; ++k) cd_free(*arrays[k]);
    cd_free(s->box);
    cd_free(s->pose);
    cd_free(s->ident);
    cd_free(s->moved_slot);
    cd_free(s->moved_flag);
    cd_free(s->pose_noted);
    cd_free(s->slot_of_prev);
    cd_free(s->state);
    cd_free(s->toggle_at);
    cd_free(s->mover_slot);
    cd_free(s->awake_mover);
    cd_free(s->mover_motion);
    cd_free(s);
}

uint32_t *cd_scene_slots(const cd_scene *s)
{
    uint32_t *slot = cd_alloc(sizeof *slot * (s->count ? s->count : 1));
    for (uint32_t i = 0; i < s->count; ++i) slot[s->ident[i]] = i;
    return slot;
}
