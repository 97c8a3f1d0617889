// SPDX-License-Identifier: MIT
#include "cd_core.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Why the process is about to abort, for a SIGABRT handler to pass on (cd_fatal_message).
static char fatal[512];

const char *cd_fatal_message(void) { return fatal; }

_Noreturn void cd_assert_fail(const char *expr, const char *file, int line)
{
    snprintf(fatal, sizeof fatal, "assertion failed: %s (%s:%d)", expr, file, line);
    fprintf(stderr, "cdlab: %s\n", fatal);
    abort();
}

static _Noreturn void out_of_memory(size_t bytes)
{
    snprintf(fatal, sizeof fatal, "out of memory allocating %zu bytes", bytes);
    fprintf(stderr, "cdlab: %s\n", fatal);
    abort();
}

// Blocks of CD_HUGE_ADVICE_MIN bytes and more (a large scene's per-object arrays, a broad phase's
// columns, the narrow step's pose records) are advised to use transparent huge pages, where the
// kernel offers them only on request (THP "madvise" mode, Debian's default): with 4 KiB pages a
// window or a narrow test that reaches a few scattered lines misses the TLB on each. The advice
// covers the block's pages; a 2 MiB page is used only where the whole aligned 2 MiB lies in
// advised memory, so a block's ragged ends keep small pages. Failure leaves small pages. On the
// 2-vCPU Intel Xeon guest: grid_multi at 10⁶ cubes 4-5 % faster a frame, lbvh_refit 2-4 %, at
// the same resident memory; at 10⁵ cubes (few blocks of 4 MiB) no change.
enum { CD_HUGE_ADVICE_MIN = 4 << 20 };

static void *advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= CD_HUGE_ADVICE_MIN) {
        const uintptr_t page = 4096, a = (uintptr_t)p & ~(page - 1),
                        b = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#else
    (void)bytes;
#endif
    return p;
}

void *cd_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) out_of_memory(bytes);
    return advise_huge(p, bytes);
}

void *cd_alloc_zero(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size);
    return advise_huge(p, count * size);
}

void *cd_realloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) out_of_memory(bytes);
    return advise_huge(q, bytes);
}

void cd_free(void *p) { free(p); }

// The environment switch name is on: set to anything but the empty string or "0" (so
// CDLAB_NO_AVX2=0 leaves the AVX2 paths on, as a reader of the line expects).
static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static _Atomic uint64_t switch_reads;

uint64_t cd_cpu_switch_reads(void) { return atomic_load_explicit(&switch_reads, memory_order_relaxed); }

int cd_cpu_avx2(void)
{
    atomic_fetch_add_explicit(&switch_reads, 1, memory_order_relaxed);
    if (env_on("CDLAB_NO_AVX2")) return 0;
#if CD_X86_SIMD
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

int cd_cpu_avx512(void)
{
    if (env_on("CDLAB_NO_AVX512") || !cd_cpu_avx2()) return 0;
#if CD_X86_SIMD
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

const char *cd_cpu_simd(void)
{
    if (cd_cpu_avx512()) return "avx512";
    if (cd_cpu_avx2()) return "avx2";
    return "sse2";
}

const char *cd_cpu_simd_switch(void)
{
    if (env_on("CDLAB_NO_AVX2")) return "CDLAB_NO_AVX2";
    if (env_on("CDLAB_NO_AVX512")) return "CDLAB_NO_AVX512";
    return NULL;
}

int cd_trace_streamed(void) { return env_on("CDLAB_TRACE_STREAM"); }

void cd_grow(void **items, size_t elem, size_t *capacity, size_t need)
{
    if (need <= *capacity) return;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < need) cap *= 2;
    *items = cd_realloc(*items, cap * elem);
    *capacity = cap;
}

#include <time.h>

uint64_t cd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t cd_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void cd_part_queue_deal(cd_part_queue *q, uint32_t parts, uint32_t nt)
{
    CD_ASSERT(nt >= 1 && nt <= CD_PART_QUEUE_MAX_THREADS);
    q->threads = nt;
    for (uint32_t t = 0; t < nt; ++t) {
        uint64_t first = (uint64_t)parts * t / nt, end = (uint64_t)parts * (t + 1) / nt;
        atomic_store(&q->run[t].left, first | end << 32);
    }
}

int cd_part_queue_take(cd_part_queue *q, uint32_t t, uint32_t *part)
{
    uint64_t v = atomic_load(&q->run[t].left);
    while ((uint32_t)v < (uint32_t)(v >> 32))  // own run, from the front
        if (atomic_compare_exchange_weak(&q->run[t].left, &v, v + 1)) {
            *part = (uint32_t)v;
            return 1;
        }
    for (;;) {  // the run with the most left, from the back
        uint32_t victim = 0, most = 0;
        for (uint32_t u = 0; u < q->threads; ++u) {
            uint64_t w = atomic_load(&q->run[u].left);
            uint32_t n = (uint32_t)(w >> 32) - (uint32_t)w;
            if ((uint32_t)w < (uint32_t)(w >> 32) && n > most) most = n, victim = u;
        }
        if (!most) return 0;
        uint64_t w = atomic_load(&q->run[victim].left);
        while ((uint32_t)w < (uint32_t)(w >> 32))
            if (atomic_compare_exchange_weak(&q->run[victim].left, &w, w - ((uint64_t)1 << 32))) {
                *part = (uint32_t)(w >> 32) - 1;
                return 1;
            }
    }
}

enum { CD_RADIX_BITS = 11, CD_RADIX_SIZE = 1 << CD_RADIX_BITS, CD_RADIX_PASSES = 3 };

void cd_radix_sort_u32(uint32_t *key, uint32_t *id, uint32_t *tmp_key, uint32_t *tmp_id, uint32_t n)
{
    cd_radix_sort_bits(key, id, tmp_key, tmp_id, n, 32);
}

void cd_radix_sort_bits(uint32_t *key, uint32_t *id, uint32_t *tmp_key, uint32_t *tmp_id, uint32_t n, int bits)
{
    int passes = (bits + CD_RADIX_BITS - 1) / CD_RADIX_BITS;
    CD_ASSERT(passes >= 1 && passes <= CD_RADIX_PASSES);
    uint32_t hist[CD_RADIX_PASSES][CD_RADIX_SIZE];
    memset(hist, 0, sizeof hist);
    for (uint32_t i = 0; i < n; ++i)
        for (int p = 0; p < passes; ++p) hist[p][(key[i] >> (p * CD_RADIX_BITS)) & (CD_RADIX_SIZE - 1)]++;
    uint32_t *k_in = key, *k_out = tmp_key, *i_in = id, *i_out = tmp_id;
    for (int p = 0; p < passes; ++p) {
        uint32_t sum = 0;
        for (int b = 0; b < CD_RADIX_SIZE; ++b) {
            uint32_t c = hist[p][b];
            hist[p][b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t d = hist[p][(k_in[i] >> (p * CD_RADIX_BITS)) & (CD_RADIX_SIZE - 1)]++;
            k_out[d] = k_in[i];
            i_out[d] = i_in[i];
        }
        uint32_t *t = k_in;
        k_in = k_out, k_out = t;
        t = i_in, i_in = i_out, i_out = t;
    }
    if (k_in != key) {  // an odd pass count leaves the result in the scratch arrays
        memcpy(key, k_in, n * sizeof *key);
        memcpy(id, i_in, n * sizeof *id);
    }
}

int cd_write_all(int fd, const void *p, size_t n)
{
    for (const char *c = p; n;) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

int cd_read_all(int fd, void *p, size_t n)
{
    for (char *c = p; n;) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

const char *cd_text_shown(const char *s, char *buf, size_t len)
{
    if (!len) return buf;
    size_t n = 0;
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        char one[8];
        if (c == '\\')
            snprintf(one, sizeof one, "\\\\");
        else if (c == '\t')
            snprintf(one, sizeof one, "\\t");
        else if (c == '\r')
            snprintf(one, sizeof one, "\\r");
        else if (c < 0x20 || c >= 0x7F)
            snprintf(one, sizeof one, "\\x%02X", c);
        else
            one[0] = (char)c, one[1] = '\0';
        size_t k = strlen(one);
        if (n + k + 4 > len) {  // room for "..." and the NUL
            snprintf(buf + n, len - n, "%s", len - n > 3 ? "..." : "");
            return buf;
        }
        memcpy(buf + n, one, k);
        n += k;
    }
    buf[n] = '\0';
    return buf;
}
