// SPDX-License-Identifier: MIT
// cdlab core: value-type math (vec3, mat3, quat), the seeded RNG, the assert hook and a
// growable array helper. Knows about nothing else in cdlab.
#ifndef CD_CORE_H
#define CD_CORE_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

// ---------------------------------------------------------------------------------------------
// Assert: one replaceable macro. Programmer errors assert; errors from outside return codes.

/// Called when a CD_ASSERT fails; prints the location and aborts.
_Noreturn void cd_assert_fail(const char *expr, const char *file, int line);

/// Why cdlab is about to abort ("assertion failed: ...", "out of memory allocating N bytes"), set
/// just before abort() by cd_assert_fail and the allocators; "" before. A SIGABRT handler may read
/// it (the runner's names the reason in the run's INCOMPLETE marker).
const char *cd_fatal_message(void);

#define CD_ASSERT(c) ((c) ? (void)0 : cd_assert_fail(#c, __FILE__, __LINE__))

#ifdef CD_VALIDATE
/// Expensive invariant checks, compiled in only with -Dvalidate=true.
#define CD_VALIDATE_ASSERT(c) CD_ASSERT(c)
#else
#define CD_VALIDATE_ASSERT(c) ((void)0)
#endif

// ---------------------------------------------------------------------------------------------
// Allocation: one hook that knows the size; aborts on exhaustion so callers need no checks.

/// malloc that aborts with a message when memory runs out.
void *cd_alloc(size_t bytes);
/// calloc that aborts with a message when memory runs out.
void *cd_alloc_zero(size_t count, size_t size);
/// realloc that aborts with a message when memory runs out.
void *cd_realloc(void *p, size_t bytes);
/// Free memory from cd_alloc/cd_alloc_zero/cd_realloc (NULL allowed).
void cd_free(void *p);

/// Grow *items (of element size elem) so it holds at least need elements; doubles capacity.
void cd_grow(void **items, size_t elem, size_t *capacity, size_t need);

/// The key of the unordered pair {a, b}: the smaller number in the high half.
static inline uint64_t cd_pair_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/// 64-bit FNV-1a of text s continued from h (start with CD_FNV1A_BASIS): a hash of keys written
/// as text, the same on every machine.
#define CD_FNV1A_BASIS 1469598103934665603ull
static inline uint64_t cd_fnv1a(uint64_t h, const char *s)
{
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/// Home entry of a 64-bit key in an open-addressed table of mask + 1 entries (a power of two):
/// Fibonacci hashing, the product's bits from 17 on (a pair key's two halves both reach them).
static inline uint64_t cd_hash_slot(uint64_t key, uint64_t mask)
{
    return ((key * 0x9E3779B97F4A7C15ULL) >> 17) & mask;
}
/// Stable LSD radix sort of (key[i], id[i]) by the 32-bit key, 3 passes of 11 bits; tmp_key and
/// tmp_id are scratch of n elements. The result is in key and id.
void cd_radix_sort_u32(uint32_t *key, uint32_t *id, uint32_t *tmp_key, uint32_t *tmp_id, uint32_t n);
/// The same for keys below 2^bits (bits ≤ 33): one pass per 11 bits.
void cd_radix_sort_bits(uint32_t *key, uint32_t *id, uint32_t *tmp_key, uint32_t *tmp_id, uint32_t n, int bits);

/// 1 where cdlab's x86-64 SIMD paths (AVX2, AVX-512 intrinsics and target attributes) are built.
#if defined(__x86_64__) && defined(__GNUC__)
#define CD_X86_SIMD 1
#else
#define CD_X86_SIMD 0
#endif

/// 1 when cdlab's own AVX2 paths run: the CPU has AVX2 and the environment switch CDLAB_NO_AVX2 is
/// off (unset, empty or "0"; on, every path takes its portable SSE2 twin, as on a CPU without AVX2).
int cd_cpu_avx2(void);
/// 1 when cdlab's own AVX-512 paths run: the CPU has AVX-512 F and VL, cd_cpu_avx2() holds and the
/// environment switch CDLAB_NO_AVX512 is off (unset, empty or "0"; on, it selects their AVX2 or
/// portable twins, which give the same results, so every path can be timed or compared on one
/// machine).
int cd_cpu_avx512(void);
/// The widest instruction set cdlab's own SIMD paths use in this process: "avx512" (cd_cpu_avx512),
/// "avx2" (cd_cpu_avx2), or "sse2" (any x86-64; also other architectures' portable code).
const char *cd_cpu_simd(void);
/// The switch that narrowed cd_cpu_simd() in this process ("CDLAB_NO_AVX2" or "CDLAB_NO_AVX512"),
/// or NULL when neither is on.
const char *cd_cpu_simd_switch(void);
/// How many times this process asked cd_cpu_avx2 (cd_cpu_avx512 asks it too), from any thread: a
/// count taken around a creation tells whether the created thing chose a SIMD path (src/verify/
/// checks such methods on every narrower path for every scene).
uint64_t cd_cpu_switch_reads(void);
/// Bytes of frames a trace replay reads whole at its start (cd_trace_replay_start); a longer trace
/// is read frame by frame.
#define CD_TRACE_REPLAY_MEMORY ((uint64_t)256 << 20)
/// 1 when the switch CDLAB_TRACE_STREAM is on (set, not empty, not "0"): every trace replay reads
/// its frames from the file as it goes.
int cd_trace_streamed(void);

// ---------------------------------------------------------------------------------------------
// vec3

/// A 3-vector of doubles, passed by value.
typedef struct cd_vec3 {
    double x, y, z;
} cd_vec3;

static inline cd_vec3 cd_v3(double x, double y, double z) { return (cd_vec3){x, y, z}; }
static inline cd_vec3 cd_v3_add(cd_vec3 a, cd_vec3 b) { return cd_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline cd_vec3 cd_v3_sub(cd_vec3 a, cd_vec3 b) { return cd_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline cd_vec3 cd_v3_scale(cd_vec3 a, double s) { return cd_v3(a.x * s, a.y * s, a.z * s); }
static inline cd_vec3 cd_v3_neg(cd_vec3 a) { return cd_v3(-a.x, -a.y, -a.z); }
static inline double cd_v3_dot(cd_vec3 a, cd_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline cd_vec3 cd_v3_cross(cd_vec3 a, cd_vec3 b)
{
    return cd_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double cd_v3_len2(cd_vec3 a) { return cd_v3_dot(a, a); }
static inline double cd_v3_len(cd_vec3 a) { return sqrt(cd_v3_dot(a, a)); }
static inline cd_vec3 cd_v3_abs(cd_vec3 a) { return cd_v3(fabs(a.x), fabs(a.y), fabs(a.z)); }
static inline cd_vec3 cd_v3_min(cd_vec3 a, cd_vec3 b) { return cd_v3(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z)); }
static inline cd_vec3 cd_v3_max(cd_vec3 a, cd_vec3 b) { return cd_v3(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z)); }
/// Component i (0, 1, 2) of a.
static inline double cd_v3_get(cd_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
/// a / |a|; a must be non-zero.
static inline cd_vec3 cd_v3_normalize(cd_vec3 a) { return cd_v3_scale(a, 1.0 / cd_v3_len(a)); }

// ---------------------------------------------------------------------------------------------
// mat3: column-major; column i is col[i]. For a rotation, columns are the body axes in world.

/// A 3x3 matrix stored as three columns.
typedef struct cd_mat3 {
    cd_vec3 col[3];
} cd_mat3;

static inline cd_mat3 cd_m3_identity(void) { return (cd_mat3){{cd_v3(1, 0, 0), cd_v3(0, 1, 0), cd_v3(0, 0, 1)}}; }
/// Row i of m.
static inline cd_vec3 cd_m3_row(cd_mat3 m, int i)
{
    return cd_v3(cd_v3_get(m.col[0], i), cd_v3_get(m.col[1], i), cd_v3_get(m.col[2], i));
}
/// m · v.
static inline cd_vec3 cd_m3_mul_v(cd_mat3 m, cd_vec3 v)
{
    return cd_v3_add(cd_v3_add(cd_v3_scale(m.col[0], v.x), cd_v3_scale(m.col[1], v.y)), cd_v3_scale(m.col[2], v.z));
}
/// mᵀ · v.
static inline cd_vec3 cd_m3_tmul_v(cd_mat3 m, cd_vec3 v)
{
    return cd_v3(cd_v3_dot(m.col[0], v), cd_v3_dot(m.col[1], v), cd_v3_dot(m.col[2], v));
}
/// a · b.
static inline cd_mat3 cd_m3_mul(cd_mat3 a, cd_mat3 b)
{
    return (cd_mat3){{cd_m3_mul_v(a, b.col[0]), cd_m3_mul_v(a, b.col[1]), cd_m3_mul_v(a, b.col[2])}};
}
/// aᵀ · b.
static inline cd_mat3 cd_m3_tmul(cd_mat3 a, cd_mat3 b)
{
    return (cd_mat3){{cd_m3_tmul_v(a, b.col[0]), cd_m3_tmul_v(a, b.col[1]), cd_m3_tmul_v(a, b.col[2])}};
}
/// mᵀ.
static inline cd_mat3 cd_m3_transpose(cd_mat3 m)
{
    return (cd_mat3){{cd_m3_row(m, 0), cd_m3_row(m, 1), cd_m3_row(m, 2)}};
}

// ---------------------------------------------------------------------------------------------
// quat: w + xi + yj + zk; unit quaternions are rotations.

/// A quaternion (w, x, y, z).
typedef struct cd_quat {
    double w, x, y, z;
} cd_quat;

static inline cd_quat cd_q_identity(void) { return (cd_quat){1, 0, 0, 0}; }
/// a · b (apply b, then a).
static inline cd_quat cd_q_mul(cd_quat a, cd_quat b)
{
    return (cd_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static inline double cd_q_norm(cd_quat q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }
/// The norm range within which a quaternion read from outside (scene and query files) counts as a
/// rotation: near unit, as cdlab writes them. Outside it the squares under- or overflow long before
/// the norm is 0 or inf (components near 1e-160 or 1e154), and normalising gives no rotation at all.
#define CD_Q_NORM_MIN 0.5
#define CD_Q_NORM_MAX 2.0
/// 1 when q's norm lies in [CD_Q_NORM_MIN, CD_Q_NORM_MAX] (0 for NaN).
static inline int cd_q_near_unit(cd_quat q)
{
    double n = cd_q_norm(q);
    return n >= CD_Q_NORM_MIN && n <= CD_Q_NORM_MAX;
}
/// q / |q|; q must be non-zero.
static inline cd_quat cd_q_normalize(cd_quat q)
{
    double s = 1.0 / cd_q_norm(q);
    return (cd_quat){q.w * s, q.x * s, q.y * s, q.z * s};
}
/// Rotation by angle |w| about w/|w| (identity for w = 0).
static inline cd_quat cd_q_from_rotvec(cd_vec3 w)
{
    double angle = cd_v3_len(w);
    if (angle == 0.0) return cd_q_identity();
    double s = sin(0.5 * angle) / angle;
    return (cd_quat){cos(0.5 * angle), w.x * s, w.y * s, w.z * s};
}
/// The rotation matrix of a unit quaternion.
static inline cd_mat3 cd_q_to_m3(cd_quat q)
{
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    return (cd_mat3){{cd_v3(1 - 2 * (yy + zz), 2 * (xy + wz), 2 * (xz - wy)),
                      cd_v3(2 * (xy - wz), 1 - 2 * (xx + zz), 2 * (yz + wx)),
                      cd_v3(2 * (xz + wy), 2 * (yz - wx), 1 - 2 * (xx + yy))}};
}
/// Rotate v by unit quaternion q.
static inline cd_vec3 cd_q_rotate(cd_quat q, cd_vec3 v) { return cd_m3_mul_v(cd_q_to_m3(q), v); }

// ---------------------------------------------------------------------------------------------
// RNG: xoshiro256** seeded through splitmix64. A (seed, stream) pair names one sequence, so each
// consumer draws from its own stream and adding draws in one place never shifts another.

/// Generator state; value type, copy to fork.
typedef struct cd_rng {
    uint64_t s[4];
} cd_rng;

/// Streams used inside cdlab; each consumer takes its own so sequences stay stable.
enum cd_rng_stream {
    CD_STREAM_SCENE_PLACE = 1,   ///< cube centres, orientations and sizes
    CD_STREAM_SCENE_MOTION = 2,  ///< linear and angular velocities
    CD_STREAM_MESH_POSES = 3,    ///< mesh-pair poses
    CD_STREAM_TRIANGLES = 4,     ///< random triangle experiments
    CD_STREAM_BODY_MESHES = 5,   ///< which mesh each body of a body scene is
    CD_STREAM_BOOTSTRAP = 6,     ///< `cdlab compare`'s bootstrap resamples
    CD_STREAM_SNAPSHOT = 7,      ///< `cdlab snapshot`'s sample of the boxes it draws
    CD_STREAM_TEST = 100,        ///< tests; add the case number for more
};

/// One step of splitmix64 on *state: returns the next 64-bit output.
uint64_t cd_splitmix64(uint64_t *state);
/// Seed a generator for (seed, stream): splitmix64 over seed ^ stream·golden fills the state.
cd_rng cd_rng_make(uint64_t seed, uint64_t stream);
/// Next 64 random bits (xoshiro256**).
uint64_t cd_rng_next(cd_rng *r);
/// Uniform double in [0, 1) with 53 random bits.
double cd_rng_uniform(cd_rng *r);
/// Uniform double in [lo, hi).
double cd_rng_range(cd_rng *r, double lo, double hi);
/// Uniform integer in [0, n); n > 0 (unbiased, by rejection).
uint64_t cd_rng_below(cd_rng *r, uint64_t n);
/// Uniformly random unit quaternion (Shoemake's subgroup algorithm).
cd_quat cd_rng_rotation(cd_rng *r);
/// Uniform point on the unit sphere.
cd_vec3 cd_rng_unit_vector(cd_rng *r);

// ---------------------------------------------------------------------------------------------
// Method parameters: a broad phase or a hierarchy variant declares its own in a table; the config
// checker, the plan, `cdlab methods`, docs/config.md and the CSV key columns all read that table.

/// What a parameter's value must be.
typedef enum cd_param_type {
    CD_PARAM_INT,   ///< an integer in [min, max]
    CD_PARAM_REAL,  ///< a finite number in [min, max]
    CD_PARAM_WORD,  ///< one of words[]
} cd_param_type;

/// One parameter a method declares: `[method] <name>` in a config, a key column in the CSVs.
typedef struct cd_param_spec {
    const char *name;  ///< letters, digits and _ (e.g. "depth")
    cd_param_type type;
    const char *def;           ///< default, written as in a config file
    double min, max;           ///< bounds for INT and REAL
    const char *const *words;  ///< NULL-terminated allowed words for WORD
    const char *help;          ///< one line for `cdlab methods` and docs/config.md
} cd_param_spec;

/// Most parameters one method declares.
#define CD_PARAMS_MAX 16

/// The values of a method's parameters, one per entry of its table (spec[0, count)).
typedef struct cd_params {
    const cd_param_spec *spec;
    uint32_t count;
    double num[CD_PARAMS_MAX];        ///< INT and REAL values
    const char *word[CD_PARAMS_MAX];  ///< WORD values (pointers into spec[i].words)
} cd_params;

/// Every parameter of the table spec[0, count) at its default (count <= CD_PARAMS_MAX; the defaults
/// must parse).
cd_params cd_params_defaults(const cd_param_spec *spec, size_t count);
/// Index of parameter name in p's table, or -1 when the method does not declare it.
int cd_params_index(const cd_params *p, const char *name);
/// Set parameter name from text (as a config writes it). 0; -1 with what was expected in why
/// (name not declared, not a number, out of range, not one of the words).
int cd_params_set(cd_params *p, const char *name, const char *text, char *why, size_t why_len);
/// Check text as a value of spec: 0, or -1 with what was expected in why.
int cd_param_check(const cd_param_spec *spec, const char *text, char *why, size_t why_len);
/// The value of INT or REAL parameter name (the method must declare it).
double cd_params_num(const cd_params *p, const char *name);
/// The value of WORD parameter name (the method must declare it).
const char *cd_params_word(const cd_params *p, const char *name);
/// Parameter i's value as a config writes it, into buf.
void cd_params_format(const cd_params *p, size_t i, char *buf, size_t len);
/// Settings by name for several methods at once (a test, `cdlab verify`'s scenes): each method
/// takes the ones it declares and ignores the rest.
typedef struct cd_param_settings {
    uint32_t count;
    struct {
        char name[32];
        char text[48];
    } item[CD_PARAMS_MAX];
} cd_param_settings;
/// Add (or replace) setting name = printf(fmt, ...).
void cd_param_settings_put(cd_param_settings *s, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/// Apply the settings of s whose names p declares (s may be NULL). 0, or -1 with why (a value the
/// parameter does not accept).
int cd_params_apply(cd_params *p, const cd_param_settings *s, char *why, size_t why_len);
/// What spec accepts, as `cdlab methods` and docs/config.md say it: "integer in [0, 24]",
/// "number in [1, 1000]", "one of rebuild, incremental".
void cd_param_accepts(const cd_param_spec *spec, char *buf, size_t len);
/// 1 when a spec table is well formed: names of letters, digits and _, unique; count <=
/// CD_PARAMS_MAX; every default accepted; min <= max; words for WORD. Else 0 with why.
int cd_param_table_ok(const cd_param_spec *spec, size_t count, char *why, size_t why_len);

// ---------------------------------------------------------------------------------------------
// Clock

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC).
uint64_t cd_now_ns(void);

// ---------------------------------------------------------------------------------------------
// Pipes between a process and its child

/// Write all n bytes of p to fd, retrying after signals and short writes. 0, or -1 (errno set).
int cd_write_all(int fd, const void *p, size_t n);
/// Read exactly n bytes from fd into p. 0, or -1 on an error or an end of file before n bytes.
int cd_read_all(int fd, void *p, size_t n);
/// The whole file at path, NUL-terminated (cd_free it), its size in *len, read through
/// cd_file_load with CD_FILE_MAX_BYTES and no pipes; NULL with errno set when it cannot be read
/// (EISDIR for a directory, EINVAL for another non-regular file, EFBIG over the limit, ENOMEM).
char *cd_file_read(const char *path, size_t *len);

// ---------------------------------------------------------------------------------------------
// Bounded reading: every file cdlab reads goes through cd_file_load, so no input (/dev/zero, a
// huge or growing file, a directory) can make a reader run without end or take all memory, and
// a read or allocation failure is an error, never a short file. The limits are documented in
// docs/usage.md ("Limits on input").

/// The most bytes of any one input file (mesh, CSV, plugin): 1 GiB.
#define CD_FILE_MAX_BYTES ((size_t)1 << 30)
/// The most bytes of a config file: 1 MiB (the shipped ones are below 4 KiB).
#define CD_CONFIG_MAX_BYTES ((size_t)1 << 20)
/// The longest line of a text input other than a config (CSV rows, run-directory files): 64 KiB.
#define CD_TEXT_MAX_LINE ((size_t)1 << 16)

/// What cd_file_load accepts besides a regular file.
enum cd_file_accept {
    CD_FILE_REGULAR = 0,  ///< a regular file only (the reader needs its size or reads it again)
    /// also a pipe or FIFO (`<(...)`, /dev/stdin from a pipe), read to max: a FIFO no writer has
    /// opened yet is waited for once its type is checked, then read until its writer closes it
    CD_FILE_OR_PIPE = 1,
};

/// Read the file at path whole into *text (NUL-terminated, cd_free it), its size in *len.
/// Refuses a directory, a device, a socket (and a pipe unless accept says so) and a file of more
/// than max bytes. 0, or -1 with the reason (no path) in err: "cannot open: …", "is a directory:
/// …", "not a regular file (a character device): …", "larger than the 1 MiB limit: …", "read
/// error: …", "out of memory: …"; errno is set to match.
int cd_file_load(const char *path, size_t max, enum cd_file_accept accept, char **text, size_t *len, char *err,
                 size_t err_len);
/// The regular file at path opened for reading as a stream (a reader that goes through it piece
/// by piece, as a trace far larger than memory is read): a FIFO, device, socket or directory is
/// refused before a byte is read (no hang on a FIFO without a writer). The stream, or NULL with
/// the reason (no path) in err as cd_file_load gives it.
FILE *cd_file_open_stream(const char *path, char *err, size_t err_len);
/// A file read a line at a time through one buffer of 2 · (max_line + 2) bytes (cd_line_reader_open):
/// memory does not grow with the file, and a bad line is seen before the rest is read.
typedef struct cd_line_reader {
    int fd;
    size_t max, total;  ///< the most bytes the file may hold, and the bytes read so far
    size_t max_line;    ///< the longest line its reader accepts, without its end
    size_t line;        ///< 1-based number of the line last returned
    char *buf;
    size_t cap, start, end;  ///< buf's size, and the bytes read but not yet returned
    int eof;
} cd_line_reader;

/// Open path to be read by cd_line_reader_next, refused as cd_file_load refuses it (a device, a
/// directory, a pipe unless accept says so, a regular file over max bytes). 0, or -1 with the
/// reason (no path) in err and errno set.
int cd_line_reader_open(cd_line_reader *r, const char *path, size_t max, enum cd_file_accept accept, size_t max_line,
                        char *err, size_t err_len);
/// The next line into *line and *n, with its '\n' if it has one (valid until the next call): 1, 0
/// at the end, or -1 with "read error: …" or "larger than the 1 GiB limit: …" (no path) in err.
/// A line longer than max_line + 2 bytes comes back cut to those (no '\n'): enough for its reader
/// to refuse it as too long, as it must, without holding it.
int cd_line_reader_next(cd_line_reader *r, const char **line, size_t *n, char *err, size_t err_len);
/// Close r's file and free its buffer.
void cd_line_reader_close(cd_line_reader *r);
/// max as text for messages: "1 GiB", "64 KiB", "123 bytes".
void cd_file_size_text(size_t max, char *buf, size_t len);
/// s as a message quotes it: printable ASCII as it is, a backslash doubled, tab and CR as \t and
/// \r, every other byte (control characters, DEL, each byte of a non-ASCII character such as a
/// no-break space) as \xNN, so a field that looks right but is not shows why and no escape
/// sequence reaches the terminal. At most len - 1 bytes in buf, cut with "..." where s is longer.
const char *cd_text_shown(const char *s, char *buf, size_t len);

// ---------------------------------------------------------------------------------------------
// Output files written whole or not at all: a failure (a full disk, a file size limit, a bad
// input row found after writing began) leaves the target as it was, and no reader ever sees it
// half-written. The one way cdlab writes a file the user named (cdlab query --out, poses, report,
// trace export).

/// The path the symbolic link link_path points to, a relative target taken against the link's
/// directory (one step; the next may be a link again): a cd_alloc'd string, or NULL when
/// link_path is no link or cannot be read.
char *cd_link_next(const char *link_path);

/// A new file made from template (mkstemp: its last six characters XXXXXX, replaced in place),
/// close-on-exec, with permissions mode, or fopen's (0666 less the umask) where mode is negative.
/// Its descriptor, or -1 with errno set and no file left.
int cd_file_make_temp(char *template, int mode);

/// A file being written as a temporary file beside its target (cd_file_out_open).
typedef struct cd_file_out {
    FILE *f;          ///< the stream to write
    char *target;     ///< the file it replaces (a symbolic link's file: written through it, as fopen)
    char *tmp;        ///< the temporary file: .cdlab-out.XXXXXX (mkstemp) in the target's directory
    int signal_slot;  ///< its entry among the files a terminating signal removes (-1: none)
} cd_file_out;

/// Create o's temporary file for path (symbolic links followed, a dangling one to the file it
/// names), with an existing target's permissions, or fopen's for a new one. 0 with o->f open, or
/// -1 with "cannot write: <cause>" (no path) in err and errno set: also for an existing target
/// this process may not write, as fopen refused it. The target's directory must be writable: the
/// finished file is renamed into it. Until commit or abort, SIGINT, SIGTERM or SIGHUP (where the
/// process left them at their default action) removes the temporary file before ending it; from
/// then on a file size limit is a write error (cd_file_size_limit_as_error).
int cd_file_out_open(cd_file_out *o, const char *path, char *err, size_t err_len);
/// Flush, fsync and close o's stream, then rename the temporary file over the target. 0, or -1
/// with "write error: <cause>" or "cannot rename …" in err, the temporary file removed and the
/// target untouched.
int cd_file_out_commit(cd_file_out *o, char *err, size_t err_len);
/// Close and remove the temporary file (the target stays as it was); no-op on a zeroed o.
void cd_file_out_abort(cd_file_out *o);
/// Make a write past the file size limit (RLIMIT_FSIZE, `ulimit -f`) fail with EFBIG, a write
/// error like any other, instead of SIGXFSZ ending the process with its output cut short: SIGXFSZ
/// is set to SIG_IGN where the process left it at its default action (a program it starts inherits
/// that: cd_cli_spawn_ok gives it back the default). cd_file_out_open and cd_scratch_dir_make do
/// it; cdlab's main does it for standard output.
void cd_file_size_limit_as_error(void);

/// A new scratch directory made from template (mkdtemp: its last six characters XXXXXX, replaced
/// in place), for plain files only. 0, or -1 with errno. Until cd_scratch_dir_remove or
/// cd_scratch_dir_keep, SIGINT, SIGTERM or SIGHUP (where the process left them at their default
/// action) removes it and its files before ending the process, as for a cd_file_out's temporary
/// file.
int cd_scratch_dir_make(char *template);
/// The name of signal s as messages say it ("SIGSEGV"), "a signal" for one without a name here.
/// Async-signal-safe (a handler may call it).
const char *cd_signal_name(int s);
/// Remove dir, made by cd_scratch_dir_make, with the files in it.
void cd_scratch_dir_remove(const char *dir);
/// Keep dir, made by cd_scratch_dir_make, with what it holds: a terminating signal no longer
/// removes it (a scratch directory a command keeps on purpose and names, as cdlab verify's traces
/// when a method fails).
void cd_scratch_dir_keep(const char *dir);

/// The lines of a text in memory, one at a time (cd_lines_next).
typedef struct cd_lines {
    const char *text;
    size_t len, pos;
    size_t line;  ///< 1-based number of the line last returned
} cd_lines;

/// A text file read whole (cd_file_load), handed out line by line as getline does: the bounded
/// replacement of a fopen + getline loop.
typedef struct cd_text_file {
    char *text;
    cd_lines it;
    char *line;  ///< the current line's mutable copy
    size_t cap;
} cd_text_file;

/// Read the regular file at path (at most CD_FILE_MAX_BYTES, no line over CD_TEXT_MAX_LINE): 0, or
/// -1 with "path: reason" or "path:line: line longer than 64 KiB" in err (errno set).
int cd_text_open(cd_text_file *f, const char *path, char *err, size_t err_len);
/// The next line into *line (NUL-terminated, with its newline, owned by f and valid until the next
/// call; the caller may change it): its length, or -1 at the end.
long cd_text_getline(cd_text_file *f, char **line);
/// Free what f holds.
void cd_text_close(cd_text_file *f);

/// The length of line[0..n) without its end: LF, CR LF, or a lone CR ending the file's last line.
/// Line length limits count this, so a line of the limit ending in CR LF is accepted as with LF.
static inline size_t cd_line_body(const char *line, size_t n)
{
    if (n && line[n - 1] == '\n') --n;
    if (n && line[n - 1] == '\r') --n;
    return n;
}
/// A line iterator over text[0..len).
static inline cd_lines cd_lines_of(const char *text, size_t len) { return (cd_lines){text, len, 0, 0}; }
/// The next line into *line and *n (with its '\n' if it has one): 1, or 0 at the end.
int cd_lines_next(cd_lines *it, const char **line, size_t *n);
/// CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID): on a machine shared
/// with other jobs it is what the work cost, blind to preemption.
uint64_t cd_thread_cpu_ns(void);

// ---------------------------------------------------------------------------------------------
// Parts with an owner, shared between threads

/// Most threads a cd_part_queue serves.
#define CD_PART_QUEUE_MAX_THREADS 64

/// Parts 0 .. P − 1 dealt to nt threads in contiguous runs (thread t owns ⌊P·t/nt⌋ .. ⌊P·(t+1)/nt⌋
/// − 1). Each thread takes its own parts from the front of its run, in order; a thread whose run
/// is empty takes the last part of the run with the most left. So data a thread's parts touched
/// in an earlier phase stays in its caches, and a thread slowed by another job on its CPU (a
/// shared machine's vCPU can run at a fraction of its speed for minutes) hands its tail to the
/// other threads.
typedef struct cd_part_queue {
    struct {
        _Alignas(64) _Atomic uint64_t left;  ///< next part (low 32 bits) and end (high 32 bits)
    } run[CD_PART_QUEUE_MAX_THREADS];        // a line each: the owners' claims do not contend
    uint32_t threads;
} cd_part_queue;

/// Deal parts [0, parts) to nt threads (1 ≤ nt ≤ CD_PART_QUEUE_MAX_THREADS). Call from one thread,
/// with a barrier before any cd_part_queue_take.
void cd_part_queue_deal(cd_part_queue *q, uint32_t parts, uint32_t nt);
/// Thread t's next part into *part: 1, or 0 when every part has been taken.
int cd_part_queue_take(cd_part_queue *q, uint32_t t, uint32_t *part);
#endif
