// SPDX-License-Identifier: MIT
// `cdlab query KIND FILE.csv [--explain] [--algo A] [--out OUT.csv]`: answer one overlap question
// per CSV row with the library's narrow-phase tests, for users checking their own cases. The file
// is read a row at a time, each row checked and answered as it comes; the answers are held (two
// bytes a row, most often) and written only once every row has passed, so a bad row (reported at
// once as FILE:LINE: what was expected) leaves no output, and memory does not grow with the
// file's text.
#include "cli.h"
#include "options.h"
#include "cd_csv.h"
#include "cd_narrow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { QUERY_MAX_FIELDS = 20, QUERY_MAX_WHY = 128 };
#define QUERY_STR2(x) #x
#define QUERY_STR(x) QUERY_STR2(x)

/// One shape-pair kind: its input columns and how to answer a parsed row.
typedef struct query_kind {
    const char *name;
    size_t fields;
    const char *columns;  ///< the header, also accepted as the file's first row
    uint32_t quaternion;  ///< bit i set when field i is a quaternion component (not a length)
    /// Validate v (count fields); NULL when fine, else what was expected.
    const char *(*check)(const double *v);
    /// Answer the row; *why receives a short name of the deciding test.
    int (*answer)(const double *v, const char *algo, const char **why);
} query_kind;

// ---------------------------------------------------------------------------------------------
// Row layouts. A sphere is cx,cy,cz,r; a box is cx,cy,cz,qw,qx,qy,qz,hx,hy,hz (quaternion
// normalised here); a triangle is x0,y0,z0,x1,y1,z1,x2,y2,z2. The answer functions see the row's
// lengths (every field but a quaternion's) after cd_narrow_normalize.

static cd_sphere sphere_at(const double *v) { return (cd_sphere){cd_v3(v[0], v[1], v[2]), v[3]}; }

static cd_obb obb_at(const double *v)
{
    cd_quat q = cd_q_normalize((cd_quat){v[3], v[4], v[5], v[6]});
    return cd_obb_from_pose(cd_v3(v[0], v[1], v[2]), q, cd_v3(v[7], v[8], v[9]));
}

static const char *check_sphere(const double *v) { return v[3] >= 0 ? NULL : "a radius r >= 0"; }

static const char *check_obb(const double *v)
{
    // As a scene file's: a quaternion far from unit length is a mistake, and its squares under- or
    // overflow long before its norm reads 0 or inf.
    if (!cd_q_near_unit((cd_quat){v[3], v[4], v[5], v[6]}))
        return "a unit quaternion qw,qx,qy,qz (norm " QUERY_STR(CD_Q_NORM_MIN) " to " QUERY_STR(CD_Q_NORM_MAX) ")";
    if (v[7] < 0 || v[8] < 0 || v[9] < 0) return "half-extents hx,hy,hz >= 0";
    return NULL;
}

static const char *check_none(const double *v)
{
    (void)v;
    return NULL;
}

static const char *check_sphere_sphere(const double *v)
{
    const char *e = check_sphere(v);
    return e ? e : check_sphere(v + 4);
}

static const char *check_sphere_obb(const double *v)
{
    const char *e = check_sphere(v);
    return e ? e : check_obb(v + 4);
}

static const char *check_obb_obb(const double *v)
{
    const char *e = check_obb(v);
    return e ? e : check_obb(v + 10);
}

static int answer_tri_tri(const double *v, const char *algo, const char **why)
{
    cd_triangle a, b;
    for (int i = 0; i < 3; ++i) {
        a.v[i] = cd_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
        b.v[i] = cd_v3(v[9 + 3 * i], v[9 + 3 * i + 1], v[9 + 3 * i + 2]);
    }
    cd_tri_tri_why w;
    int hit = strcmp(algo, "gd") == 0      ? cd_tri_tri_overlap_gd_explain(&a, &b, &w)
              : strcmp(algo, "float") == 0 ? cd_tri_tri_overlap_float_explain(&a, &b, &w)
                                           : cd_tri_tri_overlap_explain(&a, &b, &w);
    *why = cd_tri_tri_why_name(w);
    return hit;
}

static int answer_sphere_sphere(const double *v, const char *algo, const char **why)
{
    (void)algo;
    cd_sphere a = sphere_at(v), b = sphere_at(v + 4);
    *why = "centre_distance";
    return cd_sphere_sphere_overlap_exact(&a, &b);
}

static int answer_sphere_obb(const double *v, const char *algo, const char **why)
{
    (void)algo;
    cd_sphere s = sphere_at(v);
    cd_obb b = obb_at(v + 4);
    *why = "closest_box_point";
    return cd_sphere_obb_overlap(&s, &b);
}

static int answer_obb_obb(const double *v, const char *algo, const char **why)
{
    (void)algo;
    static const char *const axes[15] = {
        "axis_a0",    "axis_a1",    "axis_a2",    "axis_b0",    "axis_b1",    "axis_b2",    "axis_a0xb0", "axis_a0xb1",
        "axis_a0xb2", "axis_a1xb0", "axis_a1xb1", "axis_a1xb2", "axis_a2xb0", "axis_a2xb1", "axis_a2xb2",
    };
    cd_obb a = obb_at(v), b = obb_at(v + 10);
    int axis;
    int hit = cd_obb_obb_overlap_axis(&a, &b, &axis);
    *why = hit ? "no_separating_axis" : (axis >= 0 && axis < 15 ? axes[axis] : "unknown");
    return hit;
}

static const query_kind query_kinds[] = {
    {"tri-tri", 18, "ax0,ay0,az0,ax1,ay1,az1,ax2,ay2,az2,bx0,by0,bz0,bx1,by1,bz1,bx2,by2,bz2", 0, check_none,
     answer_tri_tri},
    {"sphere-sphere", 8, "acx,acy,acz,ar,bcx,bcy,bcz,br", 0, check_sphere_sphere, answer_sphere_sphere},
    {"sphere-obb", 14, "scx,scy,scz,sr,bcx,bcy,bcz,bqw,bqx,bqy,bqz,bhx,bhy,bhz", 0xfu << 7, check_sphere_obb,
     answer_sphere_obb},
    {"obb-obb", 20, "acx,acy,acz,aqw,aqx,aqy,aqz,ahx,ahy,ahz,bcx,bcy,bcz,bqw,bqx,bqy,bqz,bhx,bhy,bhz",
     0xfu << 3 | 0xfu << 13, check_obb_obb, answer_obb_obb},
};

// ---------------------------------------------------------------------------------------------

// The range rule and the kinds with their columns, for --help.
static void kinds_help(char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len,
                                "Each row's lengths (all but the quaternions, which need norm 0.5 to 2) are scaled by\n"
                                "one power of two into the tests' range; a row whose lengths span more than %d binary\n"
                                "exponents is refused.\n\nkinds and their columns:\n",
                                CD_NARROW_SPREAD);
    for (size_t i = 0; i < sizeof query_kinds / sizeof query_kinds[0] && k < len; ++i)
        k += (size_t)snprintf(buf + k, len - k, "  %-14s %s\n", query_kinds[i].name, query_kinds[i].columns);
}

// The addresses of the row's lengths (its fields but the quaternions'); returns their count.
static size_t row_lengths(const query_kind *k, double *v, double *len[QUERY_MAX_FIELDS])
{
    size_t n = 0;
    for (size_t i = 0; i < k->fields; ++i)
        if (!(k->quaternion >> i & 1u)) len[n++] = &v[i];
    return n;
}

// Move the row's lengths into the tests' exponent range by one power of two (which changes no
// answer, cd_narrow.h); −1 when their spread is too wide for it.
static int normalize_row(const query_kind *k, double *v)
{
    double *len[QUERY_MAX_FIELDS];
    return cd_narrow_normalize(len, row_lengths(k, v, len));
}

static int row_spread(const query_kind *k, double *v)
{
    double *len[QUERY_MAX_FIELDS];
    return cd_narrow_spread(len, row_lengths(k, v, len));
}

// A header row: its fields spell the kind's column names.
static int is_header(const query_kind *k, const cd_csv_row *row)
{
    char joined[512] = "";
    for (size_t i = 0; i < row->count; ++i) {
        if (strlen(joined) + strlen(row->fields[i]) + 2 > sizeof joined) return 0;
        if (i) strcat(joined, ",");
        strcat(joined, row->fields[i]);
    }
    return strcmp(joined, k->columns) == 0;
}

// Parse and check one data row into v (k->fields numbers, normalised): 0, or -1 after printing
// "file:line: what was expected".
static int parse_row(const query_kind *k, const char *path, const cd_csv_row *row, double *v)
{
    if (row->count != k->fields) {
        fprintf(stderr, "%s:%zu: expected %zu fields for %s (%s), found %zu\n", path, row->line, k->fields, k->name,
                k->columns, row->count);
        return -1;
    }
    for (size_t i = 0; i < k->fields; ++i) {
        cd_number_fault f = cd_csv_parse_double(row->fields[i], &v[i]);
        if (f != CD_NUMBER_OK) {
            char shown[256];
            fprintf(stderr, "%s:%zu: field %zu: expected a finite number, found '%s'%s\n", path, row->line, i + 1,
                    cd_text_shown(row->fields[i], shown, sizeof shown), cd_number_fault_note(f));
            return -1;
        }
    }
    const char *bad = k->check(v);
    if (bad) {
        fprintf(stderr, "%s:%zu: expected %s\n", path, row->line, bad);
        return -1;
    }
    if (normalize_row(k, v) != 0) {
        fprintf(stderr,
                "%s:%zu: expected lengths whose binary exponents span at most %d bits (from the lowest set bit "
                "of any non-zero length to the top bit of the largest; quaternions aside), found %d\n",
                path, row->line, CD_NARROW_SPREAD, row_spread(k, v));
        return -1;
    }
    return 0;
}

// The answers so far, held until every row has been checked (a bad row writes nothing), a few
// bytes each: per row the distance from the previous answered line (LEB128: one byte for
// consecutive lines), then one byte of overlap bit and deciding test (an index into why[]).
typedef struct answers {
    unsigned char *b;
    size_t len, cap, rows;
    size_t last_line;
    const char *why[QUERY_MAX_WHY];  // the deciding tests' names met so far (static strings)
    unsigned nwhy;
} answers;

// Add line's answer: 0, or -1 after printing "file:line: out of memory: …" (exit 2, as a file too
// large to read is).
static int answers_add(answers *a, const char *path, size_t line, int hit, const char *why)
{
    unsigned w = 0;
    while (w < a->nwhy && a->why[w] != why) ++w;
    if (w == a->nwhy) {
        CD_ASSERT(a->nwhy < QUERY_MAX_WHY);  // every answer function names one of a few tests
        a->why[a->nwhy++] = why;
    }
    if (a->cap - a->len < 11) {  // a 64-bit delta takes at most 10 bytes, the answer 1
        size_t cap = a->cap ? 2 * a->cap : 1 << 16;
        unsigned char *g = realloc(a->b, cap);
        if (!g) {
            fprintf(stderr, "%s:%zu: out of memory: cannot allocate %zu bytes for the answers of %zu rows\n", path,
                    line, cap, a->rows);
            return -1;
        }
        a->b = g, a->cap = cap;
    }
    for (size_t d = line - a->last_line;; d >>= 7) {
        a->b[a->len++] = (unsigned char)((d & 0x7f) | (d >= 0x80 ? 0x80 : 0));
        if (d < 0x80) break;
    }
    a->b[a->len++] = (unsigned char)(w << 1 | (hit != 0));
    a->last_line = line;
    a->rows++;
    return 0;
}

// Write the header and every answer of a to f.
static void answers_write(const answers *a, FILE *f, int explain)
{
    const char *head[] = {"line", "overlap", "decided_by"};
    cd_csv_write_row(f, head, explain ? 3 : 2);
    size_t line = 0;
    for (size_t i = 0; i < a->len;) {
        size_t d = 0;
        for (int shift = 0;; shift += 7) {
            unsigned char c = a->b[i++];
            d |= (size_t)(c & 0x7f) << shift;
            if (!(c & 0x80)) break;
        }
        line += d;
        unsigned char c = a->b[i++];
        char num[32];
        snprintf(num, sizeof num, "%zu", line);
        const char *row[] = {num, c & 1 ? "1" : "0", a->why[c >> 1]};
        cd_csv_write_row(f, row, explain ? 3 : 2);
    }
}

// Read path a row at a time, checking and answering each: 0 with every answer in a, or 2 after
// printing why (the first bad row as file:line, at once, however long the file).
static int answer_rows(const query_kind *k, const char *path, const char *algo, answers *a)
{
    char err[1024];
    cd_csv_stream *in = cd_csv_stream_open(path, CD_FILE_OR_PIPE, err, sizeof err);
    if (!in) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const cd_csv_row *row;
    int got = 0, first = 1, rc = 0;
    while (rc == 0 && (got = cd_csv_stream_next(in, &row, err, sizeof err)) == 1) {
        int header = first && is_header(k, row);  // only the first row may be the header
        first = 0;
        if (header) continue;
        double v[QUERY_MAX_FIELDS];
        const char *why = "";
        if (parse_row(k, path, row, v) != 0) {
            rc = 2;
        } else {
            int hit = k->answer(v, algo, &why);
            if (answers_add(a, path, row->line, hit, why) != 0) rc = 2;
        }
    }
    if (rc == 0 && got < 0) fprintf(stderr, "%s\n", err), rc = 2;
    cd_csv_stream_close(in);
    return rc;
}

static const char query_about[] =
    "Answer one overlap question per CSV row (touching counts as overlap). Output columns:\n"
    "line,overlap (1/0), and with --explain decided_by (the test that decided).\n"
    "'#' lines are comments; a header row equal to the column names below is allowed.\n";

int cd_cmd_query(int argc, char **argv)
{
    const char *algo = NULL, *out_path = NULL;
    int explain = 0;
    static const char *const algos[] = {"exact", "gd", "float", NULL};
    const cli_opt opts[] = {
        {.name = "explain",
         .help = "add the column decided_by: the test that decided",
         .type = CLI_FLAG,
         .dest = &explain},
        {.name = "algo",
         .arg = "A",
         .help = "the triangle test: exact (plane-first, default), gd (Guigue-Devillers,\n"
                 "also exact), float (plain floating point, not exact)",
         .type = CLI_WORD,
         .dest = &algo,
         .words = algos},
        {.name = "out",
         .arg = "OUT.csv",
         .help = "write the answers there instead of stdout (- is stdout)",
         .type = CLI_TEXT,
         .dest = &out_path},
    };
    char after[1024];
    kinds_help(after, sizeof after);
    const cli_spec spec = {.command = "query",
                           .usage = "KIND FILE.csv [--explain] [--algo exact|gd|float] [--out OUT.csv]",
                           .opts = opts,
                           .count = sizeof opts / sizeof opts[0],
                           .min_operands = 2,
                           .max_operands = 2,
                           .operands = "KIND FILE.csv",
                           .about = query_about,
                           .after = after};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    const char *kind_name = ops.n == 2 ? ops.v[0] : NULL, *path = ops.n == 2 ? ops.v[1] : NULL;
    cli_operands_free(&ops);
    if (rc >= 0) return rc;
    const query_kind *k = NULL;
    for (size_t i = 0; i < sizeof query_kinds / sizeof query_kinds[0]; ++i)
        if (strcmp(query_kinds[i].name, kind_name) == 0) k = &query_kinds[i];
    if (!k) {
        fprintf(stderr, "cdlab query: unknown kind '%s': expected tri-tri, sphere-sphere, sphere-obb or obb-obb\n",
                kind_name);
        return 2;
    }
    // Only the triangle test has algorithms: --algo with another kind would be silently ignored.
    if (algo && strcmp(k->name, "tri-tri") != 0) {
        fprintf(stderr, "cdlab query: --algo chooses the triangle test: expected it with tri-tri only, not %s\n",
                k->name);
        return 2;
    }
    if (!algo) algo = "exact";
    // The output is checked and its temporary file made before the input is read, so a path that
    // is refused or cannot be written fails at once, not after a gigabyte of rows; a bad row then
    // gives the output up (an existing file stays as it was).
    cd_cli_output out;
    rc = cd_cli_output_open(&out, "query", out_path);
    if (rc) return rc;
    answers a = {0};
    rc = answer_rows(k, path, algo, &a);
    if (rc == 0) {
        answers_write(&a, out.f, explain);
        rc = cd_cli_output_close(&out);
    } else {
        cd_cli_output_abort(&out);
    }
    free(a.b);
    return rc;
}
