// SPDX-License-Identifier: MIT
// Traces: reading cdlab's format and Broadmark's .aabbs frame by frame, writing cdlab's, and the
// scene that replays either (cd_trace.h).
#include "cd_trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if CD_X86_SIMD
#include <immintrin.h>
#endif

enum {
    HEADER = 80,        // cdlab header bytes
    POSE_FLOATS = 7,    // qw qx qy qz x y z
    BM_HEADER = 304,    // Broadmark: name[128], type[128], 4 × i32, world box of 2 × 4 floats
    BM_BOX_FLOATS = 8,  // min x y z 0, max x y z 0
    MAX_OBJECTS = 100000000,
    // Bytes after a frame's buffer (read, and the frame before): the AVX2 replay loads each 28-byte
    // record as 32 (frame_records_avx2, list_changed), the last one 4 bytes past the frame.
    RAW_PAD = 4,
};
static const char MAGIC[8] = {'C', 'D', 'L', 'T', 'R', 'A', 'C', 'E'};
#define MAX_COORD 1e30

struct cd_trace {
    FILE *f;
    char path[4096];
    cd_trace_info info;
    uint64_t data;         // offset of frame 0
    uint64_t frame_bytes;  // bytes per frame
    float *half;           // 3N (cdlab format)
    unsigned char *raw;    // one frame as read
};

// "path: offset: ..." into err; returns -1.
static int fail(char *err, size_t len, const char *path, uint64_t offset, const char *fmt, ...)
{
    int n = snprintf(err, len, "%s: %llu: ", path, (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < len) vsnprintf(err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t get_u32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint64_t get_u64(const unsigned char *b) { return get_u32(b) | (uint64_t)get_u32(b + 4) << 32; }
static float get_f32(const unsigned char *b)
{
    uint32_t u = get_u32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static double get_f64(const unsigned char *b)
{
    uint64_t u = get_u64(b);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static void put_u32(unsigned char *b, uint32_t v)
{
    for (int k = 0; k < 4; ++k) b[k] = (unsigned char)(v >> (8 * k));
}
static void put_u64(unsigned char *b, uint64_t v) { put_u32(b, (uint32_t)v), put_u32(b + 4, (uint32_t)(v >> 32)); }
static void put_f32(unsigned char *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(b, u);
}
static void put_f64(unsigned char *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_u64(b, u);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

// Expected bytes of a file with a header of h bytes and n·frames records of rec bytes, or 0 on
// overflow.
static uint64_t expected_size(uint64_t h, uint64_t n, uint64_t frames, uint64_t rec)
{
    if (frames && n > (UINT64_MAX - h) / rec / frames) return 0;
    return h + n * rec * frames;
}

// Why the bounds lo..hi of an axis are refused (the magnitude limit of every coordinate is 1e30,
// MAX_COORD), or NULL when they are not: a NaN, a bound beyond 1e30 (an infinity among them), or
// lo > hi. *high is set to whether the bad field is hi (a NaN or too large hi with lo fine); an
// inverted pair is blamed on lo, the field that starts it.
static const char *bounds_bad(double lo, double hi, int *high)
{
    *high = 0;
    if (isnan(lo) || isnan(hi)) return *high = !isnan(lo), "a NaN bound";
    if (!(fabs(lo) <= MAX_COORD && fabs(hi) <= MAX_COORD))
        return *high = fabs(lo) <= MAX_COORD, "a bound beyond 1e30 in magnitude";
    return lo <= hi ? NULL : "an inverted box";
}

// The reader's words, which the writer says of what it would not write: a half-extent (axis,
// object, value, half_bad's reason) and a position (frame, object, value).
#define HALF_BAD_FMT "half-extent %llu of object %llu is %.9g: expected 0..1e30 (%s)"
#define POSITION_BAD_FMT "frame %llu object %llu: position %.9g: expected a number of magnitude <= 1e30"

// Why half-extent h is refused (0..1e30, MAX_COORD, as a float), or NULL when it is not.
static const char *half_bad(float h)
{
    if (isnan(h)) return "a NaN";
    if (h < 0.0f) return "negative: an inverted box";
    return h <= MAX_COORD ? NULL : "beyond 1e30";
}

// Coordinate v as a message shows it beside the limit 1e30: %.9g, which names every float (1e30
// itself rounds to the float 1.00000002e+30, which %g showed as 1e+30, "beyond 1e30"), or %.17g
// for a double beyond 1e30 that 9 digits would show within it.
static const char *coord_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.9g", v);
    if (fabs(v) > MAX_COORD && fabs(strtod(buf, NULL)) <= MAX_COORD) snprintf(buf, len, "%.17g", v);
    return buf;
}

// 1 with what is wrong in what when the world box lo..hi (called label) is one the reader refuses,
// and *field the bad field (0..2 low x, y, z; 3..5 high x, y, z).
static int world_bad(const double lo[3], const double hi[3], const char *label, int *field, char *what, size_t len)
{
    for (int k = 0; k < 3; ++k) {
        int high;
        const char *why = bounds_bad(lo[k], hi[k], &high);
        if (!why) continue;
        *field = 3 * high + k;
        char l[32], h[32];
        snprintf(what, len, "%s axis %d is [%s, %s]: expected bounds of magnitude <= 1e30 with low <= high (%s)", label,
                 k, coord_text(lo[k], l, sizeof l), coord_text(hi[k], h, sizeof h), why);
        return 1;
    }
    return 0;
}

// The offset of the object count, which a message about memory for the objects names: cdlab's
// u64 at 16, Broadmark's i32 at 256.
static uint64_t count_at(const cd_trace *t) { return t->info.format == CD_TRACE_CDLAB ? 16 : 256; }

// The offset of world box field f (0..2 low x, y, z; 3..5 high): cdlab's six doubles from 32,
// Broadmark's two four-float vectors from 272 (low x y z 0, high x y z 0).
static uint64_t world_field_at(const cd_trace *t, int f)
{
    return t->info.format == CD_TRACE_CDLAB ? 32 + 8 * (uint64_t)f : 272 + 4 * (uint64_t)(f < 3 ? f : f + 1);
}

static int check_world(cd_trace *t, char *err, size_t len)
{
    char what[256];
    int field;
    return world_bad(t->info.lo, t->info.hi, "world box", &field, what, sizeof what)
               ? fail(err, len, t->path, world_field_at(t, field), "%s", what)
               : 0;
}

// The size check: too short (truncated, or a frame count beyond the file) or too long (wrong counts).
static int check_size(cd_trace *t, uint64_t head, uint64_t rec, uint64_t count_at, char *err, size_t len)
{
    uint64_t n = t->info.objects, want = expected_size(head, n, t->info.frames, rec), have = t->info.bytes;
    if (!want)
        return fail(err, len, t->path, count_at, "%llu objects × %llu frames overflow a file size",
                    (unsigned long long)n, (unsigned long long)t->info.frames);
    if (have < head)
        return fail(err, len, t->path, have,
                    "truncated: the header and half-extents need %llu bytes, the file has %llu",
                    (unsigned long long)head, (unsigned long long)have);
    if (have < want)
        return fail(
            err, len, t->path, count_at,
            "frame count %llu needs %llu bytes, the file has %llu (%llu whole frames): truncated or a frame count "
            "beyond the file",
            (unsigned long long)t->info.frames, (unsigned long long)want, (unsigned long long)have,
            (unsigned long long)((have - head) / (n * rec)));
    if (have > want)
        return fail(err, len, t->path, want,
                    "%llu bytes after frame %llu, the last the header counts: wrong object or frame count",
                    (unsigned long long)(have - want), (unsigned long long)t->info.frames - 1);
    return 0;
}

static int open_cdlab(cd_trace *t, const unsigned char *h, char *err, size_t len)
{
    t->info.format = CD_TRACE_CDLAB;
    uint32_t version = get_u32(h + 8), flags = get_u32(h + 12);
    if (version != 1) return fail(err, len, t->path, 8, "trace version %u: expected 1", version);
    if (flags != 0) return fail(err, len, t->path, 12, "flags %u: expected 0", flags);
    t->info.objects = get_u64(h + 16), t->info.frames = get_u64(h + 24);
    if (t->info.objects < 1 || t->info.objects > MAX_OBJECTS)
        return fail(err, len, t->path, 16, "object count %llu: expected 1..%d", (unsigned long long)t->info.objects,
                    MAX_OBJECTS);
    if (t->info.frames < 1) return fail(err, len, t->path, 24, "frame count 0: expected at least 1");
    for (int k = 0; k < 3; ++k) t->info.lo[k] = get_f64(h + 32 + 8 * k), t->info.hi[k] = get_f64(h + 56 + 8 * k);
    if (check_world(t, err, len)) return -1;
    uint64_t n = t->info.objects;
    if (check_size(t, HEADER + 12 * n, 4 * POSE_FLOATS, 24, err, len)) return -1;
    t->data = HEADER + 12 * n, t->frame_bytes = 4 * POSE_FLOATS * n;
    // Sized by the header (up to 10^8 objects: 1.2 GB each): a failed allocation is an error about
    // the file, not an abort.
    unsigned char *b = malloc(12 * n);
    t->half = malloc(3 * n * sizeof *t->half);
    if (!b || !t->half) {
        free(b);
        return fail(err, len, t->path, 16, "%llu objects: out of memory for their half-extents (%llu bytes)",
                    (unsigned long long)n, (unsigned long long)(24 * n));
    }
    if (fseeko(t->f, HEADER, SEEK_SET) != 0 || fread(b, 1, 12 * n, t->f) != 12 * n) {
        cd_free(b);
        return fail(err, len, t->path, HEADER, "cannot read the half-extents: %s", strerror(errno));
    }
    for (uint64_t i = 0; i < 3 * n; ++i) {
        t->half[i] = get_f32(b + 4 * i);
        const char *why = half_bad(t->half[i]);
        if (why) {
            cd_free(b);
            return fail(err, len, t->path, HEADER + 4 * i, HALF_BAD_FMT, (unsigned long long)(i % 3),
                        (unsigned long long)(i / 3), (double)t->half[i], why);
        }
    }
    cd_free(b);
    return 0;
}

// Broadmark's SceneHeader as its reader checks it: NUL-terminated name and type, positive counts,
// zero padding, a valid world box (min <= max, fourth components 0).
static int open_broadmark(cd_trace *t, const unsigned char *h, char *err, size_t len)
{
    t->info.format = CD_TRACE_BROADMARK;
    if (!memchr(h, 0, 128) || !memchr(h + 128, 0, 128))
        return fail(err, len, t->path, 0,
                    "not a cdlab trace (magic CDLTRACE) nor a Broadmark .aabbs scene (no "
                    "NUL-terminated scene name and object type in its first 256 bytes)");
    memcpy(t->info.name, h, 128), memcpy(t->info.type, h + 128, 128);
    int32_t n = (int32_t)get_u32(h + 256), frames = (int32_t)get_u32(h + 260);
    if (n < 1 || n > MAX_OBJECTS)
        return fail(err, len, t->path, 256, "object count %d: expected 1..%d", n, MAX_OBJECTS);
    if (frames < 1) return fail(err, len, t->path, 260, "frame count %d: expected at least 1", frames);
    if (get_u32(h + 264) || get_u32(h + 268))
        return fail(err, len, t->path, 264, "padding is not zero: not a Broadmark scene");
    t->info.objects = (uint64_t)n, t->info.frames = (uint64_t)frames;
    for (int k = 0; k < 3; ++k) t->info.lo[k] = get_f32(h + 272 + 4 * k), t->info.hi[k] = get_f32(h + 288 + 4 * k);
    for (int at = 284; at <= 300; at += 16)  // the low vector's fourth float, then the high one's
        if (get_f32(h + at) != 0.0f)
            return fail(err, len, t->path, (uint64_t)at,
                        "world box: fourth components not zero: not a Broadmark scene");
    if (check_world(t, err, len)) return -1;
    if (check_size(t, BM_HEADER, 4 * BM_BOX_FLOATS, 260, err, len)) return -1;
    t->data = BM_HEADER, t->frame_bytes = 4 * BM_BOX_FLOATS * t->info.objects;
    return 0;
}

// Decode object i of the frame in t->raw into p; 0, or -1 with what is wrong with it.
static int decode(const cd_trace *t, uint64_t frame, uint64_t i, cd_posef *p, char *err, size_t len)
{
    uint64_t at = t->data + frame * t->frame_bytes;
    if (t->info.format == CD_TRACE_CDLAB) {
        const unsigned char *b = t->raw + 4 * POSE_FLOATS * i;
        float v[POSE_FLOATS];
        for (int k = 0; k < POSE_FLOATS; ++k) v[k] = get_f32(b + 4 * k);
        for (int k = 4; k < 7; ++k)
            if (!(fabsf(v[k]) <= MAX_COORD))
                return fail(err, len, t->path, at + 4 * POSE_FLOATS * i + 4 * (uint64_t)k, POSITION_BAD_FMT,
                            (unsigned long long)frame, (unsigned long long)i, (double)v[k]);
        double q2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
        if (!(q2 >= 0.25 && q2 <= 4.0))
            return fail(err, len, t->path, at + 4 * POSE_FLOATS * i,
                        "frame %llu object %llu: quaternion of norm %g: expected "
                        "0.5..2",
                        (unsigned long long)frame, (unsigned long long)i, sqrt(q2));
        *p = (cd_posef){
            {v[4], v[5], v[6]}, {v[0], v[1], v[2], v[3]}, {t->half[3 * i], t->half[3 * i + 1], t->half[3 * i + 2]}};
        return 0;
    }
    const unsigned char *b = t->raw + 4 * BM_BOX_FLOATS * i;
    float lo[4], hi[4];
    for (int k = 0; k < 4; ++k) lo[k] = get_f32(b + 4 * k), hi[k] = get_f32(b + 16 + 4 * k);
    // The offset is that of the bad field: low x y z 0 at +0, high x y z 0 at +16.
    const uint64_t rec = at + 4 * BM_BOX_FLOATS * i;
    for (int k = 0; k < 3; ++k) {
        int high;
        const char *why = bounds_bad(lo[k], hi[k], &high);
        if (why)
            return fail(
                err, len, t->path, rec + 16 * (uint64_t)high + 4 * (uint64_t)k,
                "frame %llu object %llu: box axis %d is [%.9g, %.9g]: expected bounds of magnitude <= 1e30 with "
                "min <= max (%s)",
                (unsigned long long)frame, (unsigned long long)i, k, (double)lo[k], (double)hi[k], why);
    }
    if (lo[3] != 0.0f || hi[3] != 0.0f)
        return fail(err, len, t->path, rec + (lo[3] != 0.0f ? 12 : 28),
                    "frame %llu object %llu: fourth components not zero", (unsigned long long)frame,
                    (unsigned long long)i);
    // Centre and half-extents in double, each rounded to float once.
    for (int k = 0; k < 3; ++k) {
        p->c[k] = (float)(0.5 * ((double)lo[k] + hi[k]));
        p->h[k] = (float)(0.5 * ((double)hi[k] - lo[k]));
    }
    p->q[0] = 1.0f, p->q[1] = p->q[2] = p->q[3] = 0.0f;
    return 0;
}

// 1 when cdlab record v (qw qx qy qz x y z) fails one of decode's checks, without a branch: the
// frame loops or these together and let decode find the first bad object and say why.
static inline int record_bad(const float v[POSE_FLOATS])
{
    double q2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
    return !(fabsf(v[4]) <= MAX_COORD) | !(fabsf(v[5]) <= MAX_COORD) | !(fabsf(v[6]) <= MAX_COORD) |
           !(q2 >= 0.25 && q2 <= 4.0);
}

// A cdlab frame in t->raw into pose, every object checked as decode checks it but without a branch
// per object (record_bad). Returns 0, or -1 when some object fails a check:
// decode then finds the first and says what is wrong with it.
static int decode_cdlab_frame(const cd_trace *t, cd_posef *restrict pose)
{
    const unsigned char *raw = t->raw;
    const float *half = t->half;
    int bad = 0;
    for (uint64_t i = 0; i < t->info.objects; ++i) {
        const unsigned char *b = raw + 4 * POSE_FLOATS * i;
        float v[POSE_FLOATS];
        for (int k = 0; k < POSE_FLOATS; ++k) v[k] = get_f32(b + 4 * k);
        bad |= record_bad(v);
        pose[i] =
            (cd_posef){{v[4], v[5], v[6]}, {v[0], v[1], v[2], v[3]}, {half[3 * i], half[3 * i + 1], half[3 * i + 2]}};
    }
    return bad ? -1 : 0;
}

// Frame `frame` as stored into t->raw; 0, or -1 with what went wrong.
static int read_raw(cd_trace *t, uint64_t frame, char *err, size_t len)
{
    CD_ASSERT(frame < t->info.frames);
    uint64_t at = t->data + frame * t->frame_bytes;
    if (fseeko(t->f, (off_t)at, SEEK_SET) != 0) return fail(err, len, t->path, at, "cannot seek: %s", strerror(errno));
    size_t got = fread(t->raw, 1, t->frame_bytes, t->f);
    if (got != t->frame_bytes)
        return fail(err, len, t->path, at + got,
                    "ended early in frame %llu of %llu (the file is shorter than its header says)",
                    (unsigned long long)frame, (unsigned long long)t->info.frames);
    return 0;
}

// Objects [0, n) of the frame in t->raw decoded one by one into pose (NULL: checked only): 0, or
// -1 with what is wrong with the first that fails a check.
static int decode_each(const cd_trace *t, uint64_t frame, cd_posef *pose, char *err, size_t len)
{
    cd_posef p;
    for (uint64_t i = 0; i < t->info.objects; ++i)
        if (decode(t, frame, i, pose ? &pose[i] : &p, err, len)) return -1;
    return 0;
}

int cd_trace_read(cd_trace *t, uint64_t frame, cd_posef *pose, char *err, size_t len)
{
    if (read_raw(t, frame, err, len)) return -1;
    if (t->info.format == CD_TRACE_CDLAB && decode_cdlab_frame(t, pose) == 0) return 0;
    return decode_each(t, frame, pose, err, len);
}

// The exponent g of the coarsest power of two of which x is a multiple (x = m·2^g, m an odd
// integer); INT_MAX for 0, a multiple of every one.
static int grain_f(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u &= 0x7fffffff;
    if (!u) return INT_MAX;
    int e = (int)(u >> 23);
    uint32_t m = u & 0x7fffff;
    if (e)
        m |= 0x800000;  // normal: (2^23 + fraction)·2^(e − 150)
    else
        e = 1;  // subnormal: fraction·2^−149
    return e - 150 + __builtin_ctz(m);
}
static int grain_d(double x)
{
    if (x == 0.0) return INT_MAX;
    int e;
    double m = frexp(fabs(x), &e);  // |x| = m·2^e, m in [0.5, 1) of at most 53 bits
    return e - 53 + __builtin_ctzll((uint64_t)ldexp(m, 53));
}

// What shift_bad needs of a trace's objects, gathered frame by frame by the reader's checks and
// by the writer alike: per axis the least and the greatest coordinate and the coarsest power of
// two 2^grain of which every coordinate is a multiple (INT_MAX while all are 0), and the largest
// half-extent.
typedef struct spread {
    double min[3], max[3];
    int grain[3];
    float largest;
} spread;

static void spread_start(spread *s)
{
    for (int k = 0; k < 3; ++k) s->min[k] = INFINITY, s->max[k] = -INFINITY, s->grain[k] = INT_MAX;
    s->largest = 0.0f;
}

static inline void spread_add(spread *s, const float c[3])
{
    for (int k = 0; k < 3; ++k) {
        s->min[k] = fmin(s->min[k], c[k]), s->max[k] = fmax(s->max[k], c[k]);
        int g = grain_f(c[k]);
        if (g < s->grain[k]) s->grain[k] = g;
    }
}

// The replay shifts every pose by the world box's low corner lo, adding −lo in double and rounding
// to float once (Replay in scene.md): positions then lie on a float grid of about |corner|·2^-24.
// Where that step exceeds the largest object's half-extent, every object collapses onto a few grid
// points (a corner of -1e30 made all 300 pairs of 300 objects overlap where 33 do): refused, as a
// scene file's world side is refused beyond 2^24 times its objects' extent, unless the shift moves
// every position exactly. It does on axis k when lo[k] is 0 (c + −0.0 is c), or when lo[k] and
// every coordinate c on the axis are multiples of 2^g, g >= -149, and |c − lo[k]| < 2^(g+24):
// then c − lo[k] is an integer times 2^g of magnitude below 2^(g+24), so a float (the subnormal
// ones are the multiples of 2^-149 below 2^-126) and a double: the double sum is exact, and so is
// its rounding to float.
// |c − lo[k]| is bounded by the greatest of |max − lo[k]| and |min − lo[k]|, computed in double:
// rounding is monotone and 2^(g+24) a double, so a computed bound under it is a true one. An exact
// shift keeps every difference of two positions, so every test that reads positions as their
// differences sees the same numbers; for point objects (half-extents 0, whose step test would
// refuse every corner but the origin) a pair is two equal positions, kept as they were. Otherwise
// the check stands: nearer corners still round the shifted positions, which can change pairs that
// touch. 1 with what is wrong in what, the box called label, and *axis the axis whose corner is
// refused (its low field).
static int shift_bad(const spread *s, const double lo[3], const char *label, int *axis, char *what, size_t len)
{
    double corner = 0.0;
    for (int k = 0; k < 3; ++k) corner = fmax(corner, fabs(lo[k]));
    if (!(corner > 16777216.0 * (double)s->largest)) return 0;
    for (int k = 0; k < 3; ++k) {
        if (lo[k] == 0.0) continue;
        int g = grain_d(lo[k]) < s->grain[k] ? grain_d(lo[k]) : s->grain[k];
        double far = fmax(fabs(s->max[k] - lo[k]), fabs(s->min[k] - lo[k]));
        if (g >= -149 && far < ldexp(1.0, g + 24)) continue;
        *axis = k;
        return snprintf(what, len,
                        "%s low corner at %g from the origin, over 2^24 times the largest half-extent %g: the "
                        "replay shifts poses to that corner in float, which would round them to steps of about "
                        "%g (axis %d is not shifted exactly: its corner and coordinates are multiples of 2^%d, one "
                        "lies %g from the corner, not under 2^24 of those): expected a world box nearer its "
                        "objects, or one that every position shifts to exactly",
                        label, corner, (double)s->largest, ldexp(1.0, ilogb(corner) - 23), k, g, far),
               1;
    }
    return 0;
}

cd_trace *cd_trace_open(const char *path, int check_frames, char *err, size_t len)
{
    cd_trace *t = cd_alloc_zero(1, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    struct stat st;
    char why[256];
    t->f = cd_file_open_stream(path, why, sizeof why);
    if (!t->f || fstat(fileno(t->f), &st) != 0) {
        // No offset: the file is not read (a directory, a FIFO, a missing file).
        snprintf(err, len, "%s: %s", path, t->f ? strerror(errno) : why);
        goto bad;
    }
    t->info.bytes = (uint64_t)st.st_size;
    unsigned char h[BM_HEADER];
    size_t got = fread(h, 1, sizeof h, t->f);
    if (got >= HEADER && memcmp(h, MAGIC, sizeof MAGIC) == 0) {
        if (open_cdlab(t, h, err, len)) goto bad;
    } else if (got == BM_HEADER && ends_with(path, ".aabbs")) {
        if (open_broadmark(t, h, err, len)) goto bad;
    } else if (ends_with(path, ".aabbs") && got < BM_HEADER &&
               !(got >= sizeof MAGIC && memcmp(h, MAGIC, sizeof MAGIC) == 0)) {
        fail(err, len, path, 0, "truncated: %zu bytes, shorter than a Broadmark scene's %d-byte header", got,
             BM_HEADER);
        goto bad;
    } else {
        fail(err, len, path, 0,
             got >= HEADER || ends_with(path, ".aabbs")
                 ? "not a cdlab trace (magic CDLTRACE) nor a Broadmark .aabbs scene"
                 : "truncated: %zu bytes, shorter than any trace header",
             got);
        goto bad;
    }
    // A frame's buffer; its size comes from the header (up to 10^8 objects, 3.2 GB a frame), so an
    // allocation that fails is an error about the file, not an abort.
    t->raw = calloc(1, t->frame_bytes + RAW_PAD);
    if (!t->raw) {
        fail(err, len, path, count_at(t), "%llu objects: out of memory for a frame of %llu bytes",
             (unsigned long long)t->info.objects, (unsigned long long)t->frame_bytes);
        goto bad;
    }
    if (check_frames) {
        cd_posef *pose = malloc(t->info.objects * sizeof *pose);
        if (!pose) {
            fail(err, len, path, count_at(t), "%llu objects: out of memory for the poses of a frame",
                 (unsigned long long)t->info.objects);
            goto bad;
        }
        int rc = 0;
        spread sp;  // of every object in every frame
        spread_start(&sp);
        for (uint64_t f = 0; f < t->info.frames && rc == 0; ++f) {
            rc = cd_trace_read(t, f, pose, err, len);
            for (uint64_t i = 0; i < t->info.objects && rc == 0; ++i) {
                spread_add(&sp, pose[i].c);
                for (int k = 0; k < 3; ++k) sp.largest = fmaxf(sp.largest, pose[i].h[k]);
            }
        }
        cd_free(pose);
        char what[1024];
        int axis;
        if (rc == 0 && shift_bad(&sp, t->info.lo, "world box", &axis, what, sizeof what))
            rc = fail(err, len, path, world_field_at(t, axis), "%s", what);
        if (rc) goto bad;
    }
    return t;
bad:
    cd_trace_close(t);
    return NULL;
}

const cd_trace_info *cd_trace_get_info(const cd_trace *t) { return &t->info; }

void cd_trace_close(cd_trace *t)
{
    if (!t) return;
    if (t->f) fclose(t->f);
    cd_free(t->half);
    cd_free(t->raw);
    cd_free(t);
}

// ---------------------------------------------------------------------------------------------
// Writing

struct cd_trace_writer {
    cd_file_out out;  // the temporary file beside the target (cd_file_out_open)
    char path[4096];  // the target as the caller named it, for messages
    uint64_t n, frames;
    double lo[3], hi[3];  // the box enclosing every object written
    spread spread;        // of every object written, for the reader's shift check
    unsigned char *raw;
};

uint64_t cd_trace_file_bytes(uint64_t n, uint64_t frames) { return HEADER + 12 * n + 4 * POSE_FLOATS * n * frames; }

// "path: write error: <cause>" into err (errno, or EIO where a stream's error flag alone knew).
static int write_error(const cd_trace_writer *w, int e, char *err, size_t len)
{
    snprintf(err, len, "%s: write error: %s", w->path, strerror(e ? e : EIO));
    return CD_TRACE_WRITE_ERROR;
}

// What the writer was given that the reader would refuse, into err (no path: the caller names its
// input); returns CD_TRACE_REFUSED.
static int refuse(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return CD_TRACE_REFUSED;
}

void cd_trace_refusal_name(char *err, size_t len, const char *name, size_t line)
{
    if (len == 0) return;
    char prefix[4200];
    int p =
        line ? snprintf(prefix, sizeof prefix, "%s:%zu: ", name, line) : snprintf(prefix, sizeof prefix, "%s: ", name);
    size_t k = p < 0 ? 0 : (size_t)p < sizeof prefix ? (size_t)p : sizeof prefix - 1, n = strlen(err);
    if (k > len - 1) k = len - 1;
    if (k + n > len - 1) n = len - 1 - k;
    memmove(err + k, err, n);  // the message moves up, cut at its end
    memcpy(err, prefix, k);
    err[k + n] = '\0';
}

int cd_trace_writer_create(cd_trace_writer **out, const char *path, char *err, size_t len)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s: exists and is not a regular file: not replaced", path);
        return CD_TRACE_WRITE_ERROR;
    }
    cd_trace_writer *w = cd_alloc_zero(1, sizeof *w);
    snprintf(w->path, sizeof w->path, "%s", path);
    // The shared writer of every output file (cd_core.h): a mkstemp file beside the file a symbolic
    // link names, the permissions of the file it replaces, fsync before the rename, and removed by
    // a signal that ends the process.
    char why[512];
    if (cd_file_out_open(&w->out, path, why, sizeof why) != 0) {
        snprintf(err, len, "%s: %s", path, why);
        cd_free(w);
        return CD_TRACE_WRITE_ERROR;
    }
    *out = w;
    return 0;
}

int cd_trace_writer_start(cd_trace_writer *w, uint64_t n, const float *half, char *err, size_t len)
{
    CD_ASSERT(!w->raw);  // started once
    // What the reader checks is checked here, before a byte is written, with its words: the counts
    // and half-extents now, each record as it comes, the world box at the close.
    if (n < 1 || n > MAX_OBJECTS)
        return refuse(err, len, "%llu objects: a trace holds 1..%d", (unsigned long long)n, MAX_OBJECTS);
    float largest = 0.0f;
    for (uint64_t i = 0; i < 3 * n; ++i) {
        const char *why = half_bad(half[i]);
        if (why)
            return refuse(err, len, HALF_BAD_FMT, (unsigned long long)(i % 3), (unsigned long long)(i / 3),
                          (double)half[i], why);
        largest = fmaxf(largest, half[i]);
    }
    w->n = n;
    spread_start(&w->spread);
    w->spread.largest = largest;
    w->raw = cd_alloc(4 * POSE_FLOATS * n > HEADER + 12 * n ? 4 * POSE_FLOATS * n : HEADER + 12 * n);
    for (int k = 0; k < 3; ++k) w->lo[k] = INFINITY, w->hi[k] = -INFINITY;
    memset(w->raw, 0, HEADER);  // the header is written at close
    for (uint64_t i = 0; i < 3 * n; ++i) put_f32(w->raw + HEADER + 4 * i, half[i]);
    errno = 0;
    if (fwrite(w->raw, 1, HEADER + 12 * n, w->out.f) != HEADER + 12 * n) return write_error(w, errno, err, len);
    return 0;
}

int cd_trace_writer_open(cd_trace_writer **out, const char *path, uint64_t n, const float *half, char *err, size_t len)
{
    int rc = cd_trace_writer_create(out, path, err, len);
    if (rc == 0 && (rc = cd_trace_writer_start(*out, n, half, err, len)) != 0) {
        cd_trace_writer_abort(*out);
        *out = NULL;
    }
    return rc;
}

int cd_trace_writer_frame(cd_trace_writer *w, const cd_posef *pose, char *err, size_t len)
{
    for (uint64_t i = 0; i < w->n; ++i) {
        const cd_posef *p = &pose[i];
        unsigned char *b = w->raw + 4 * POSE_FLOATS * i;
        const float v[POSE_FLOATS] = {p->q[0], p->q[1], p->q[2], p->q[3], p->c[0], p->c[1], p->c[2]};
        if (record_bad(v)) {  // as decode says it
            for (int k = 4; k < 7; ++k)
                if (!(fabsf(v[k]) <= MAX_COORD))
                    return refuse(err, len, POSITION_BAD_FMT, (unsigned long long)w->frames, (unsigned long long)i,
                                  (double)v[k]);
            double q2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
            return refuse(err, len, "frame %llu object %llu: quaternion of norm %g: expected 0.5..2",
                          (unsigned long long)w->frames, (unsigned long long)i, sqrt(q2));
        }
        for (int k = 0; k < POSE_FLOATS; ++k) put_f32(b + 4 * k, v[k]);
        spread_add(&w->spread, p->c);
        // A box of half-diagonal r around the centre encloses the object in any rotation.
        double r = sqrt((double)p->h[0] * p->h[0] + (double)p->h[1] * p->h[1] + (double)p->h[2] * p->h[2]);
        for (int k = 0; k < 3; ++k) w->lo[k] = fmin(w->lo[k], p->c[k] - r), w->hi[k] = fmax(w->hi[k], p->c[k] + r);
    }
    errno = 0;
    if (fwrite(w->raw, 1, 4 * POSE_FLOATS * w->n, w->out.f) != 4 * POSE_FLOATS * w->n)
        return write_error(w, errno, err, len);
    w->frames++;
    return 0;
}

int cd_trace_writer_close(cd_trace_writer *w, const double *lo, const double *hi, char *err, size_t len)
{
    if (w->frames == 0) {
        cd_trace_writer_abort(w);
        return refuse(err, len, "no frame to write: a trace holds 1 frame or more");
    }
    // The world box as the reader checks it (check_world, check_frames' shift_bad), before the
    // header is written: a trace the reader refuses is never written.
    const double *box_lo = lo ? lo : w->lo, *box_hi = hi ? hi : w->hi;
    const char *label = lo || hi ? "world box" : "world box (none given: the box around every object of every frame)";
    char what[1024];
    int field;
    if (world_bad(box_lo, box_hi, label, &field, what, sizeof what) ||
        shift_bad(&w->spread, box_lo, label, &field, what, sizeof what)) {
        cd_trace_writer_abort(w);
        return refuse(err, len, "%s", what);
    }
    unsigned char h[HEADER] = {0};
    memcpy(h, MAGIC, sizeof MAGIC);
    put_u32(h + 8, 1);
    put_u64(h + 16, w->n);
    put_u64(h + 24, w->frames);
    for (int k = 0; k < 3; ++k) put_f64(h + 32 + 8 * k, box_lo[k]), put_f64(h + 56 + 8 * k, box_hi[k]);
    // The seek flushes what is buffered: a full disk or a file size limit shows here, or at the
    // commit's flush.
    errno = 0;
    if (fseeko(w->out.f, 0, SEEK_SET) != 0 || fwrite(h, 1, HEADER, w->out.f) != HEADER) {
        int rc = write_error(w, errno, err, len);
        cd_trace_writer_abort(w);
        return rc;
    }
    char why[4400];
    int rc = cd_file_out_commit(&w->out, why, sizeof why);  // flushed, fsynced, renamed; or removed
    if (rc) snprintf(err, len, "%s: %s", w->path, why);
    cd_free(w->raw), cd_free(w);
    return rc ? CD_TRACE_WRITE_ERROR : 0;
}

void cd_trace_writer_abort(cd_trace_writer *w)
{
    if (!w) return;
    cd_file_out_abort(&w->out);
    cd_free(w->raw), cd_free(w);
}

// ---------------------------------------------------------------------------------------------
// Replay

struct cd_trace_replay {
    cd_trace *trace;
    uint32_t *slot_of;    // slot of each object (after reorders)
    uint64_t layout;      // the scene's layout when slot_of was taken
    double shift[3];      // minus the world box's low corner
    uint64_t next;        // next frame to read
    unsigned char *prev;  // the frame read before (its raw bytes; NULL before the first)
    uint32_t *changed;    // the objects whose record differs from the frame before's (list_changed)
    uint32_t nchanged;    // how many those were in the frame before (the count of objects at first)
    // Held in memory (a trace of at most CD_TRACE_REPLAY_MEMORY bytes of frames): every frame,
    // read at the start, which t->raw and prev then point into, and on the AVX2 path, per frame
    // f ≥ 1 whose records changed from frame f − 1's by under half, list_changed's list of those
    // records, in lists from list_at[f], list_n[f] of them (list_n[f] = count: no list).
    unsigned char *frames;
    unsigned char *own_raw;  // t->raw's buffer, given back at the end
    uint32_t *lists, *list_n;
    uint64_t *list_at;
};

static inline uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

// Object i's pose (centre pc, rotation pq, half-extents ph) into its slot of s, shifted; noted when it differs from the slot's pose. Field
// by field, on the values' bits: a pose record assembled by scalar stores and then compared or
// copied as a whole is read back in wider words than those stores, which cannot forward them (a
// stall per object, most of the replay).
static inline void put_pose(const cd_trace_replay *r, cd_scene *s, uint32_t i, const float *pc, const float *pq,
                            const float *ph, int shifted)
{
    float c[3] = {pc[0], pc[1], pc[2]};
    for (int k = 0; shifted && k < 3; ++k) c[k] = (float)((double)c[k] + r->shift[k]);
    uint32_t slot = r->slot_of[i], diff = 0;
    cd_posef *to = &s->pose[slot];
    for (int k = 0; k < 3; ++k) diff |= (bits_of(c[k]) ^ bits_of(to->c[k])) | (bits_of(ph[k]) ^ bits_of(to->h[k]));
    for (int k = 0; k < 4; ++k) diff |= bits_of(pq[k]) ^ bits_of(to->q[k]);
    if (diff) cd_scene_note_pose(s, slot);
    for (int k = 0; k < 3; ++k) to->c[k] = c[k], to->h[k] = ph[k];
    for (int k = 0; k < 4; ++k) to->q[k] = pq[k];
}

// A cdlab frame in t->raw straight into the scene's slots (put_pose), checked as
// decode_cdlab_frame checks it, but for the objects whose record is byte for byte that of the frame
// before (r->prev, when there is one): their slots hold that pose already, checked then. A pile at
// rest repeats most of its records. Returns 0, or -1 when some object fails a check (some slots
// are written then; the replay stops).
static int put_cdlab_frame(const cd_trace_replay *r, cd_scene *s, int shifted)
{
    const cd_trace *t = r->trace;
    const float *half = t->half;
    const unsigned char *prev = r->prev;
    int bad = 0;
    // Objects map to slots in space order, not theirs: a slot's record is a cache miss unless
    // asked for this far ahead.
    enum { AHEAD = 8 };
    for (uint32_t i = 0; i < s->count; ++i) {
        if (i + AHEAD < s->count) __builtin_prefetch(&s->pose[r->slot_of[i + AHEAD]], 1);
        const unsigned char *b = t->raw + 4 * POSE_FLOATS * (size_t)i;
        if (prev) {
            // The 28 bytes as four words at 0, 8, 12 and 20 (the middle two overlap).
            const unsigned char *o = prev + 4 * POSE_FLOATS * (size_t)i;
            uint64_t x[4], y[4];
            memcpy(x, b, 16), memcpy(x + 2, b + 12, 16);
            memcpy(y, o, 16), memcpy(y + 2, o + 12, 16);
            if (!((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]))) continue;
        }
        float v[POSE_FLOATS];
        for (int k = 0; k < POSE_FLOATS; ++k) v[k] = get_f32(b + 4 * k);
        bad |= record_bad(v);
        put_pose(r, s, i, v + 4, v, half + 3 * (size_t)i, shifted);
    }
    return bad ? -1 : 0;
}

#if CD_X86_SIMD
_Static_assert(offsetof(cd_posef, q) == 12 && offsetof(cd_posef, h) == 28 && sizeof(cd_posef) == 40,
               "a pose is c, q, h: floats 0-2, 3-6, 7-9");
// The lanes of a record in its 32-byte load: a cdlab record's seven (qw qx qy qz x y z), a
// Broadmark box's eight; and the bytes from one record to the next.
__attribute__((always_inline, target("avx2"))) static inline __m256i record_lanes(int cdlab)
{
    return cdlab ? _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, -1, 0) : _mm256_set1_epi32(-1);
}
static inline size_t record_bytes(int cdlab) { return cdlab ? 4 * POSE_FLOATS : 4 * BM_BOX_FLOATS; }
// The objects whose record in raw differs from prev's (a cdlab record's 28 bytes, a Broadmark
// box's 32; each read as 32, the buffers' RAW_PAD covering the last), into list in object order;
// returns how many. The AVX2 frames below then visit only those and ask for each one's slot a few
// listed objects ahead: when most records repeat (a pile at rest), one pass of compares and then
// the changed records cost less than visiting every object and asking for every slot.
__attribute__((target("avx2"))) static uint32_t list_changed(const unsigned char *raw, const unsigned char *prev,
                                                             uint32_t n, int cdlab, uint32_t *list)
{
    const __m256i mask = record_lanes(cdlab);
    const size_t stride = record_bytes(cdlab);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i) {
        __m256i rec = _mm256_loadu_si256((const __m256i *)(raw + stride * i));
        __m256i was = _mm256_loadu_si256((const __m256i *)(prev + stride * i));
        list[m] = i;
        m += !_mm256_testz_si256(_mm256_xor_si256(rec, was), mask);
    }
    return m;
}

// A pose into slot `slot` of s as its first eight floats (row) and its last two (h12), noted when
// any bit differs from the slot's: put_pose's compare and write for the AVX2 frames below.
__attribute__((target("avx2"))) static inline void put_row(cd_scene *s, uint32_t slot, __m256i row, uint64_t h12)
{
    cd_posef *to = &s->pose[slot];
    uint64_t old12;
    memcpy(&old12, &to->h[1], sizeof old12);
    __m256i old = _mm256_loadu_si256((const __m256i *)to);
    if (!_mm256_testz_si256(_mm256_xor_si256(row, old), _mm256_set1_epi32(-1)) || old12 != h12)
        cd_scene_note_pose(s, slot);
    _mm256_storeu_si256((__m256i *)to, row);
    memcpy(&to->h[1], &h12, sizeof h12);
}

// Record i of a cdlab frame (rec: qw qx qy qz x y z and a lane past it) as the slot's first eight
// floats (row) and its last two (h12): put_cdlab_frame's decode on AVX2 registers, the same bits.
// decode's checks run on the lanes, the quaternion's norm summed in put_pose's order
// ((w² + x²) + y²) + z² in double; the shift adds in double and rounds to float once, as put_pose
// does. Returns 1 when the record fails a check. Scalar, a record took about 80 instructions, a
// fifth of the free fall's frame.
__attribute__((always_inline, target("avx2"))) static inline int
cdlab_row_avx2(const cd_trace_replay *r, uint32_t i, __m256i rec, int shifted, __m256i *row, uint64_t *h12)
{
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), max_coord = _mm_set1_ps((float)MAX_COORD);
    __m128 q = _mm_castsi128_ps(_mm256_castsi256_si128(rec));
    __m128 c = _mm_castsi128_ps(_mm256_extracti128_si256(rec, 1));  // x y z and a lane of the next record
    // |x|, |y|, |z| <= MAX_COORD (false for a NaN), as record_bad.
    int bad = (_mm_movemask_ps(_mm_cmp_ps(_mm_and_ps(c, abs_mask), max_coord, _CMP_LE_OQ)) & 7) != 7;
    __m256d qd = _mm256_cvtps_pd(q);
    qd = _mm256_mul_pd(qd, qd);
    __m128d lo = _mm256_castpd256_pd128(qd), hi = _mm256_extractf128_pd(qd, 1);
    __m128d q2 = _mm_add_sd(_mm_add_sd(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)), hi), _mm_unpackhi_pd(hi, hi));
    double n2 = _mm_cvtsd_f64(q2);
    bad |= !(n2 >= 0.25 && n2 <= 4.0);
    if (shifted)
        c = _mm256_cvtpd_ps(
            _mm256_add_pd(_mm256_cvtps_pd(c), _mm256_setr_pd(r->shift[0], r->shift[1], r->shift[2], 0.0)));
    const float *h = r->trace->half + 3 * (size_t)i;
    // The slot's first eight floats: c0 c1 c2 qw | qx qy qz h0.
    __m128 row_lo = _mm_insert_ps(c, q, 0x30);  // q's lane 0 into lane 3
    __m128 row_hi = _mm_insert_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 3, 2, 1)), _mm_load_ss(h), 0x30);
    *row = _mm256_castps_si256(_mm256_set_m128(row_hi, row_lo));
    memcpy(h12, h + 1, sizeof *h12);
    return bad;
}

// A Broadmark record (rec: lo x y z 0, hi x y z 0) as the slot's row and h12: put_broadmark_frame's
// decode on AVX2 registers, the same bits. decode's checks run on the lanes; centre and
// half-extents are 0.5 (lo + hi) and 0.5 (hi − lo) in double, each rounded to float once, and the
// centre is then shifted as put_pose shifts it. Returns 1 when the record fails a check.
__attribute__((always_inline, target("avx2"))) static inline int
broadmark_row_avx2(const cd_trace_replay *r, __m256i rec, int shifted, __m256i *row, uint64_t *h12)
{
    const __m256d half = _mm256_set1_pd(0.5);
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), max_coord = _mm_set1_ps((float)MAX_COORD);
    const __m128 zero = _mm_setzero_ps(), one = _mm_set_ss(1.0f);
    __m128 lo = _mm_castsi128_ps(_mm256_castsi256_si128(rec));
    __m128 hi = _mm_castsi128_ps(_mm256_extracti128_si256(rec, 1));
    // |lo|, |hi| <= MAX_COORD and lo <= hi on x, y, z (false for a NaN); the fourth lanes 0.
    __m128 ok = _mm_and_ps(_mm_cmp_ps(_mm_and_ps(lo, abs_mask), max_coord, _CMP_LE_OQ),
                           _mm_cmp_ps(_mm_and_ps(hi, abs_mask), max_coord, _CMP_LE_OQ));
    ok = _mm_and_ps(ok, _mm_cmp_ps(lo, hi, _CMP_LE_OQ));
    __m128 fourth = _mm_and_ps(_mm_cmp_ps(lo, zero, _CMP_EQ_OQ), _mm_cmp_ps(hi, zero, _CMP_EQ_OQ));
    int bad = (_mm_movemask_ps(ok) & 7) != 7 || !(_mm_movemask_ps(fourth) & 8);
    __m256d lod = _mm256_cvtps_pd(lo), hid = _mm256_cvtps_pd(hi);
    __m128 c = _mm256_cvtpd_ps(_mm256_mul_pd(half, _mm256_add_pd(lod, hid)));
    __m128 h = _mm256_cvtpd_ps(_mm256_mul_pd(half, _mm256_sub_pd(hid, lod)));
    if (shifted)
        c = _mm256_cvtpd_ps(
            _mm256_add_pd(_mm256_cvtps_pd(c), _mm256_setr_pd(r->shift[0], r->shift[1], r->shift[2], 0.0)));
    // The slot's first eight floats: c0 c1 c2 1 | 0 0 0 h0; then h1 h2.
    __m128 row_lo = _mm_insert_ps(c, one, 0x30), row_hi = _mm_insert_ps(zero, h, 0x30);
    *row = _mm256_castps_si256(_mm256_set_m128(row_hi, row_lo));
    *h12 = (uint64_t)_mm_cvtsi128_si64(_mm_castps_si128(_mm_shuffle_ps(h, h, _MM_SHUFFLE(3, 3, 2, 1))));
    return bad;
}

// The frame in t->raw into the scene's slots on AVX2 registers (put_cdlab_frame and
// put_broadmark_frame, the same bits): a record is one 32-byte load; the skip of a record equal to
// the frame before's is one compare of its lanes (record_lanes); the decoded pose is compared
// with the slot's and written as one row and one 64-bit word (put_row). The objects visited are
// list[0, n) (list_changed's: no compare then), or with list NULL objects 0 .. n − 1, each slot
// asked for AHEAD visits ahead; *written counts the records written. Returns 0, or -1 when some
// object fails a check (some slots are written then; the replay stops and decode_each says what
// is wrong).
__attribute__((always_inline, target("avx2"))) static inline int frame_records_avx2(const cd_trace_replay *r,
                                                                                    cd_scene *s, int shifted,
                                                                                    const uint32_t *list, uint32_t n,
                                                                                    uint32_t *written, int cdlab)
{
    const unsigned char *raw = r->trace->raw, *prev = list ? NULL : r->prev;
    const __m256i lanes = record_lanes(cdlab);
    const size_t stride = record_bytes(cdlab);
    int bad = 0;
    uint32_t w = 0;  // records written
    enum { AHEAD = 8 };
    for (uint32_t j = 0; j < n; ++j) {
        uint32_t i = list ? list[j] : j;
        if (j + AHEAD < n) __builtin_prefetch(&s->pose[r->slot_of[list ? list[j + AHEAD] : j + AHEAD]], 1);
        __m256i rec = _mm256_loadu_si256((const __m256i *)(raw + stride * i));
        if (prev &&
            _mm256_testz_si256(_mm256_xor_si256(rec, _mm256_loadu_si256((const __m256i *)(prev + stride * i))), lanes))
            continue;
        __m256i row;
        uint64_t h12;
        bad |= cdlab ? cdlab_row_avx2(r, i, rec, shifted, &row, &h12) : broadmark_row_avx2(r, rec, shifted, &row, &h12);
        put_row(s, r->slot_of[i], row, h12);
        ++w;
    }
    *written = w;
    return bad ? -1 : 0;
}

// frame_records_avx2 with one copy of the loop per format and per case of list, so that no
// record tests either.
__attribute__((target("avx2"))) static int put_frame_avx2(const cd_trace_replay *r, cd_scene *s, int shifted,
                                                          const uint32_t *list, uint32_t n, uint32_t *written,
                                                          int cdlab)
{
    if (cdlab)
        return list ? frame_records_avx2(r, s, shifted, list, n, written, 1)
                    : frame_records_avx2(r, s, shifted, NULL, n, written, 1);
    return list ? frame_records_avx2(r, s, shifted, list, n, written, 0)
                : frame_records_avx2(r, s, shifted, NULL, n, written, 0);
}
#endif

// A Broadmark frame in t->raw into the scene's slots (decode, then put_pose), but for the objects
// whose 32-byte record is byte for byte that of the frame before (r->prev, when there is one):
// their slots hold that pose already, checked then. Returns 0, or -1 at the first object that
// fails a check (the objects skipped passed them a frame before; those before it are written
// then, and the replay stops).
static int put_broadmark_frame(const cd_trace_replay *r, cd_scene *s, int shifted)
{
    const cd_trace *t = r->trace;
    for (uint32_t i = 0; i < s->count; ++i) {
        size_t at = 4 * BM_BOX_FLOATS * (size_t)i;
        if (r->prev && memcmp(t->raw + at, r->prev + at, 4 * BM_BOX_FLOATS) == 0) continue;
        cd_posef p;
        if (decode(t, r->next, i, &p, NULL, 0)) return -1;  // load_frame says why
        put_pose(r, s, i, p.c, p.q, p.h, shifted);
    }
    return 0;
}

// Frame r->next into the scene's slots, shifted, straight from the bytes read; the frame's bytes
// are then kept as the frame before (r->prev), by which the next frame skips its unchanged records.
static int load_frame(cd_trace_replay *r, cd_scene *s, char *err, size_t len)
{
    cd_trace *t = r->trace;
    if (r->next >= t->info.frames)
        return fail(err, len, t->path, t->info.bytes, "ended early: the run needs frame %llu, the trace has %llu",
                    (unsigned long long)r->next, (unsigned long long)t->info.frames);
    if (r->frames) {
        t->raw = r->frames + r->next * t->frame_bytes;
        r->prev = r->next ? t->raw - t->frame_bytes : NULL;
    } else if (read_raw(t, r->next, err, len)) {
        return -1;
    }
    int shifted = r->shift[0] != 0.0 || r->shift[1] != 0.0 || r->shift[2] != 0.0;
    // Each frame loop only says whether some object failed a check; decode_each then finds the
    // first (the records a loop skipped passed a frame before) and says what is wrong with it.
    int cdlab = t->info.format == CD_TRACE_CDLAB, failed;
#if CD_X86_SIMD
    if (s->avx2) {
        // The list of changed records when the frame before changed under half of them (a scene
        // at rest), else every object visited and compared on the way. A replay in memory listed
        // them at its start, where under half changed.
        const uint32_t *list = NULL;
        uint32_t n = s->count;
        if (r->frames) {
            if (r->prev && r->list_n[r->next] < s->count) list = r->lists + r->list_at[r->next], n = r->list_n[r->next];
        } else if (r->prev && r->nchanged < s->count / 2) {
            n = list_changed(t->raw, r->prev, s->count, cdlab, r->changed);
            list = r->changed;
        }
        failed = put_frame_avx2(r, s, shifted, list, n, &r->nchanged, cdlab);
    } else
#endif
        failed = cdlab ? put_cdlab_frame(r, s, shifted) : put_broadmark_frame(r, s, shifted);
    if (failed) {
        decode_each(t, r->next, NULL, err, len);
        return -1;
    }
    if (!r->frames) {
        if (!r->prev) r->prev = cd_alloc_zero(1, t->frame_bytes + RAW_PAD);
        unsigned char *before = r->prev;  // this frame becomes the one before
        r->prev = t->raw, t->raw = before;
    }
    r->next++;
    return 0;
}

// Read every frame of r's trace into memory and, on scene s's AVX2 path, list each frame's changed
// records (see cd_trace_replay.frames), when they fit in CD_TRACE_REPLAY_MEMORY and
// CDLAB_TRACE_STREAM is not 1; else leave r reading frame by frame. 0, or -1 with what went wrong.
static int hold_frames(cd_trace_replay *r, const cd_scene *s, char *err, size_t len)
{
    cd_trace *t = r->trace;
    const uint64_t frames = t->info.frames, bytes = frames * t->frame_bytes;
    if (bytes > CD_TRACE_REPLAY_MEMORY || cd_trace_streamed()) return 0;
    r->frames = cd_alloc_zero(1, bytes + RAW_PAD);
    if (fseeko(t->f, (off_t)t->data, SEEK_SET) != 0)
        return fail(err, len, t->path, t->data, "cannot seek: %s", strerror(errno));
    size_t got = fread(r->frames, 1, bytes, t->f);
    if (got != bytes)
        return fail(err, len, t->path, t->data + got,
                    "ended early in frame %llu of %llu (the file is shorter than its header says)",
                    (unsigned long long)(got / t->frame_bytes), (unsigned long long)frames);
    r->own_raw = t->raw;
#if CD_X86_SIMD
    if (!s->avx2) return 0;  // the plain loop compares each record with the frame before's as it goes
    const uint32_t n = s->count;
    const int cdlab = t->info.format == CD_TRACE_CDLAB;
    r->list_n = cd_alloc(sizeof *r->list_n * frames);
    r->list_at = cd_alloc_zero(frames, sizeof *r->list_at);
    size_t cap = 0, used = 0;
    r->list_n[0] = n;
    for (uint64_t f = 1; f < frames; ++f) {
        const unsigned char *now = r->frames + f * t->frame_bytes;
        cd_grow((void **)&r->lists, sizeof *r->lists, &cap, used + n);  // list_changed writes n entries
        uint32_t m = list_changed(now, now - t->frame_bytes, n, cdlab, r->lists + used);
        r->list_at[f] = used, r->list_n[f] = m < n / 2 ? m : n;
        if (m < n / 2) used += m;
    }
#else
    (void)s;
#endif
    return 0;
}

cd_trace_replay *cd_trace_replay_start(const char *path, uint32_t reorder, cd_scene **scene, char *err, size_t len)
{
    *scene = NULL;
    cd_trace *t = cd_trace_open(path, 0, err, len);
    if (!t) return NULL;
    double side = 0.0;
    for (int k = 0; k < 3; ++k) side = fmax(side, t->info.hi[k] - t->info.lo[k]);
    cd_trace_replay *r = cd_alloc_zero(1, sizeof *r);
    r->trace = t;
    for (int k = 0; k < 3; ++k) r->shift[k] = -t->info.lo[k];
    cd_scene *s = cd_scene_create_empty((uint32_t)t->info.objects, side > 0.0 ? side : 1.0);
    s->reorder = reorder;
    r->slot_of = cd_scene_slots(s);
    r->changed = cd_alloc(((size_t)t->info.objects + 1) * sizeof *r->changed);
    r->nchanged = (uint32_t)t->info.objects;
    if (hold_frames(r, s, err, len) || load_frame(r, s, err, len)) {
        cd_scene_destroy(s);
        cd_trace_replay_end(r);
        return NULL;
    }
    cd_scene_refresh(s);
    *scene = s;
    return r;
}

int cd_trace_replay_step(cd_trace_replay *r, cd_scene *s, char *err, size_t len)
{
    if (cd_scene_reorder_due(s)) cd_scene_reorder(s);
    if (s->layout != r->layout) {
        cd_free(r->slot_of);
        r->slot_of = cd_scene_slots(s);
        r->layout = s->layout;
    }
    if (load_frame(r, s, err, len)) return -1;
    cd_scene_refresh_noted(s);  // a trace's quaternions have norm 0.5 to 2 (decode)
    s->frame++;
    return 0;
}

uint64_t cd_trace_replay_frames(const cd_trace_replay *r) { return r->trace->info.frames; }

void cd_trace_replay_end(cd_trace_replay *r)
{
    if (!r) return;
    if (r->own_raw) r->trace->raw = r->own_raw, r->prev = NULL;  // they pointed into frames
    cd_trace_close(r->trace);
    cd_free(r->slot_of);
    cd_free(r->changed);
    cd_free(r->prev);
    cd_free(r->frames), cd_free(r->lists), cd_free(r->list_n), cd_free(r->list_at);
    cd_free(r);
}
