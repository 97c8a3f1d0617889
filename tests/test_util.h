// SPDX-License-Identifier: MIT
// What every test may need, in one header (include it after <cmocka.h> and the module headers the
// test uses): equality checks that print both values and both expressions, and helpers for config
// errors, CSV columns and pair lists, each compiled only where its module's header was included.
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// EXPECT_EQ(a, b): a == b, else the test fails with "file:line: a == b: <value> != <value>".
// Integers print as integers (signed or unsigned by the type of a + b), floating point with 17
// significant digits, so a failed check says what it got.

static inline void expect_eq_i64(int64_t a, int64_t b, const char *ea, const char *eb, const char *file, int line)
{
    if (a == b) return;
    print_error("%s:%d: %s == %s: %" PRId64 " != %" PRId64 "\n", file, line, ea, eb, a, b);
    _fail(file, line);
}

static inline void expect_eq_u64(uint64_t a, uint64_t b, const char *ea, const char *eb, const char *file, int line)
{
    if (a == b) return;
    print_error("%s:%d: %s == %s: %" PRIu64 " != %" PRIu64 "\n", file, line, ea, eb, a, b);
    _fail(file, line);
}

static inline void expect_eq_dbl(double a, double b, const char *ea, const char *eb, const char *file, int line)
{
    if (a == b) return;
    print_error("%s:%d: %s == %s: %.17g != %.17g\n", file, line, ea, eb, a, b);
    _fail(file, line);
}

#define EXPECT_EQ(a, b)                          \
    _Generic((a) + (b), float                    \
             : expect_eq_dbl, double             \
             : expect_eq_dbl, unsigned           \
             : expect_eq_u64, unsigned long      \
             : expect_eq_u64, unsigned long long \
             : expect_eq_u64, default            \
             : expect_eq_i64)((a), (b), #a, #b, __FILE__, __LINE__)

/// s contains sub, else the test fails printing both.
#define EXPECT_CONTAINS(s, sub) expect_contains((s), (sub), #s, __FILE__, __LINE__)

static inline void expect_contains(const char *s, const char *sub, const char *es, const char *file, int line)
{
    if (s && strstr(s, sub)) return;
    print_error("%s:%d: %s = \"%s\" does not contain \"%s\"\n", file, line, es, s ? s : "(null)", sub);
    _fail(file, line);
}

// ---------------------------------------------------------------------------------------------
// Config errors: the text must be rejected with a message naming where (e.g. "bad.ini:3:") and
// what (a phrase of the message), and nothing may be left in the config.
#ifdef CD_KINDS_H
static inline void expect_config_error(const char *text, const char *where, const char *what)
{
    cd_config c;
    char err[1024] = "";
    EXPECT_EQ(cd_config_parse(cd_kinds(), "bad.ini", text, strlen(text), &c, err, sizeof err), -1);
    EXPECT_CONTAINS(err, where);
    EXPECT_CONTAINS(err, what);
    EXPECT_EQ(c.key_count, 0);
}
#endif

// ---------------------------------------------------------------------------------------------
// CSV: the index of a column by its header name (the test fails when there is none).
#ifdef CD_CSV_H
static inline size_t csv_column(const cd_csv_row *header, const char *name)
{
    for (size_t i = 0; i < header->count; ++i)
        if (strcmp(header->fields[i], name) == 0) return i;
    fail_msg("no column '%s' in the header", name);
    return 0;
}
#endif

// ---------------------------------------------------------------------------------------------
// Pair lists: equal in order (expect_pairs_equal) or as sets (expect_same_pairs sorts both first);
// else the test fails at the first difference, naming `what`.
#ifdef CD_BROAD_H
static inline void expect_pairs_equal(const cd_pair_list *got, const cd_pair_list *want, const char *what)
{
    size_t n = got->count < want->count ? got->count : want->count;
    for (size_t k = 0; k < n; ++k)
        if (got->items[k].a != want->items[k].a || got->items[k].b != want->items[k].b)
            fail_msg("%s: pair %zu is (%u, %u), expected (%u, %u) (%zu and %zu pairs)", what, k, got->items[k].a,
                     got->items[k].b, want->items[k].a, want->items[k].b, got->count, want->count);
    if (got->count != want->count)
        fail_msg("%s: %zu pairs, expected %zu (the first %zu agree)", what, got->count, want->count, n);
}

static inline void expect_same_pairs(cd_pair_list *got, cd_pair_list *want, const char *what)
{
    cd_pair_list_sort(got);
    cd_pair_list_sort(want);
    expect_pairs_equal(got, want, what);
}
#endif

// ---------------------------------------------------------------------------------------------
// Meshes: the mesh a spec names (generator or file), normalised into [-1,1]³.
#ifdef CD_MESH_H
static inline cd_mesh test_mesh(const char *spec)
{
    cd_mesh m = {0};
    char err[256];
    if (cd_mesh_from_spec(spec, &m, err, sizeof err)) fail_msg("%s: %s", spec, err);
    cd_mesh_normalize(&m);
    return m;
}
#endif

#endif
