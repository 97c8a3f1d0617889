// SPDX-License-Identifier: MIT
// `cdlab query` on arbitrary CSV: the first byte picks the shape-pair kind, the second the
// algorithm (tri-tri's --algo; the other kinds have one test), the rest is the file. Checked on every input, against what is re-derived here:
//  - the exit status is 0 (answered) or 2 (refused); an abort or a sanitizer report is a finding;
//  - it is 2 exactly when some row breaks the documented rules: the kind's field count, finite
//    numbers, radii and half-extents >= 0, quaternion norm 0.5 to 2 (cd_q_near_unit), lengths
//    spanning at most CD_NARROW_SPREAD binary exponents (measured here with frexp);
//  - every answer of an exact test is the exact one, re-evaluated in rationals (query_oracle.h,
//    none of the library's arithmetic): tri-tri with exact and gd, sphere-sphere; sphere-obb and
//    obb-obb wherever the pair is apart or overlapping by more than the oracle's band.
#include "cd_csv.h"
#include "cd_narrow.h"
#include "cli.h"
#include "fuzz_util.h"
#include "query_oracle.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_kind {
    const char *name, *columns;
    size_t fields;
    uint32_t quaternion;  // bit i: field i is a quaternion component, not a length
} fuzz_kind;

static const fuzz_kind kinds[] = {
    {"tri-tri", "ax0,ay0,az0,ax1,ay1,az1,ax2,ay2,az2,bx0,by0,bz0,bx1,by1,bz1,bx2,by2,bz2", 18, 0},
    {"sphere-sphere", "acx,acy,acz,ar,bcx,bcy,bcz,br", 8, 0},
    {"sphere-obb", "scx,scy,scz,sr,bcx,bcy,bcz,bqw,bqx,bqy,bqz,bhx,bhy,bhz", 14, 0xfu << 7},
    {"obb-obb", "acx,acy,acz,aqw,aqx,aqy,aqz,ahx,ahy,ahz,bcx,bcy,bcz,bqw,bqx,bqy,bqz,bhx,bhy,bhz", 20,
     0xfu << 3 | 0xfu << 13},
};

static int is_header(const fuzz_kind *k, const cd_csv_row *row)
{
    size_t len = 0, want = strlen(k->columns);
    for (size_t i = 0; i < row->count; ++i) {
        size_t n = strlen(row->fields[i]);
        if (len + (i > 0) + n > want) return 0;
        if (i > 0 && k->columns[len++] != ',') return 0;
        if (memcmp(k->columns + len, row->fields[i], n) != 0) return 0;
        len += n;
    }
    return len == want;
}

static int box_ok(const double *v)
{
    return cd_q_near_unit((cd_quat){v[3], v[4], v[5], v[6]}) && v[7] >= 0 && v[8] >= 0 && v[9] >= 0;
}

// The documented rules for a parsed row of kind k.
static int row_ok(const fuzz_kind *k, const double *v)
{
    int ok = 1;
    if (k->fields == 8) ok = v[3] >= 0 && v[7] >= 0;
    if (k->fields == 14) ok = v[3] >= 0 && box_ok(v + 4);
    if (k->fields == 20) ok = box_ok(v) && box_ok(v + 10);
    int lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < k->fields; ++i) {
        if (k->quaternion >> i & 1u || v[i] == 0.0) continue;
        int e;
        double m = frexp(fabs(v[i]), &e);        // |v| = m · 2^e, m in [0.5, 1)
        uint64_t bits = (uint64_t)ldexp(m, 53);  // m's 53 significant bits as an integer
        int l = e - 53 + __builtin_ctzll(bits);  // the lowest set bit of v is 2^l
        lo = l < lo ? l : lo;
        hi = e - 1 > hi ? e - 1 : hi;
    }
    return ok && (lo > hi || hi - lo <= CD_NARROW_SPREAD);
}

// The oracle's answer for a valid row: 0, 1, or −1 when it has none (plain float; a box pair
// within the band).
static int oracle(const fuzz_kind *k, const char *algo, const double *v)
{
    switch (k->fields) {
    case 18: return strcmp(algo, "float") == 0 ? -1 : qo_tri_tri(v);
    case 8: return qo_sphere_sphere(v);
    case 14: return qo_sphere_obb(v);
    default: return qo_obb_obb(v);
    }
}

// Compare the query's exit status and output with the rules and the oracle, row by row.
static void check(const fuzz_kind *k, const char *algo, const char *in_path, const char *out_path, int rc)
{
    cd_csv_table t, out = {0};
    char err[512];
    if (cd_csv_read(in_path, &t, err, sizeof err) != 0) {
        FUZZ_CHECK(rc == 2, "query answered a file the CSV reader refuses (%s)", err);
        return;
    }
    if (rc == 0) FUZZ_CHECK(cd_csv_read(out_path, &out, err, sizeof err) == 0, "unreadable output: %s", err);
    size_t answer = 1;  // out's row 0 is its header
    int bad = 0;
    for (size_t r = 0; r < t.count && !bad; ++r) {
        const cd_csv_row *row = &t.rows[r];
        if (r == 0 && is_header(k, row)) continue;
        double v[20];
        bad = row->count != k->fields;
        for (size_t i = 0; i < row->count && !bad; ++i) bad = cd_csv_parse_double(row->fields[i], &v[i]) != 0;
        bad = bad || !row_ok(k, v);
        if (bad || rc != 0) continue;
        FUZZ_CHECK(answer < out.count && out.rows[answer].count >= 2, "no answer for line %zu", row->line);
        const cd_csv_row *o = &out.rows[answer++];
        FUZZ_CHECK(strtoull(o->fields[0], NULL, 10) == row->line, "answer for line %s, expected %zu", o->fields[0],
                   row->line);
        int got = strcmp(o->fields[1], "1") == 0, want = oracle(k, algo, v);
        FUZZ_CHECK(want < 0 || got == want, "%s --algo %s, line %zu: answered %d, the exact answer is %d", k->name,
                   algo, row->line, got, want);
    }
    FUZZ_CHECK(rc == (bad ? 2 : 0), "exit %d, but the rules %s a row", rc, bad ? "refuse" : "refuse no");
    if (rc == 0) FUZZ_CHECK(answer == out.count, "%zu answers for %zu rows", out.count - 1, answer - 1);
    cd_csv_table_free(&t);
    if (rc == 0) cd_csv_table_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const algos[] = {"exact", "gd", "float"};
    if (size < 2) return 0;
    const fuzz_kind *k = &kinds[data[0] % 4];
    // --algo chooses the triangle test and is refused with the other kinds, which have one test.
    const char *algo = k->fields == 18 ? algos[data[1] % 3] : "exact";
    char in_path[256], out_path[300];
    snprintf(in_path, sizeof in_path, "%s", fuzz_input_file(data + 2, size - 2, "csv"));
    snprintf(out_path, sizeof out_path, "%s.out", in_path);
    remove(out_path);
    char *argv[] = {"query", (char *)k->name, in_path, "--explain", "--out", out_path, "--algo", (char *)algo, NULL};
    int rc = cd_cmd_query(k->fields == 18 ? 8 : 6, argv);
    FUZZ_CHECK(rc == 0 || rc == 2, "exit status %d", rc);
    check(k, algo, in_path, out_path, rc);
    remove(out_path);
    return 0;
}
