// SPDX-License-Identifier: MIT
// OFF, OBJ and ASCII STL checked line by line, PLY's header. The grammar accepted is a subset of
// what Assimp's readers read the same way: decimal numbers only (no nan, inf or hex), written
// with a digit before any point, coordinates judged as the floats Assimp makes of them, counts
// and indices in plain decimal digits, counts that match the lines present, indices in range,
// printable ASCII outside comments and names, LF or CR LF line ends. Each rule below names the
// Assimp reading (5.2, code/AssetLib/) that it keeps a file away from: a text the two would read
// differently is refused here with its line, never left to a silently different mesh. Nothing is
// allocated from a count in the file, so a header that promises 4·10⁹ faces costs nothing but
// the scan.
#include "text_check.h"

#include "cd_csv.h"  // cd_csv_parse_double: the one reading of a number

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct scan {
    const char *name;
    const char *p, *end;  // unread bytes
    const char *ls, *le;  // current line [ls, le), without its newline
    const char *tok;      // next unread byte of the current line
    unsigned long line;   // 1-based number of the current line
    int hash_comments;    // '#' starts a comment (not in STL, which has none)
    int had_comment;      // the current line had one, cut off at le
    int empty;            // the current line has no byte at all (but a CR before its LF)
    char *err;
    size_t err_len;
} scan;

static int fail(scan *s, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(s->err, s->err_len, "%s:%lu: %s", s->name, s->line, what);
    return -1;
}

// Space and tab separate tokens: the only two that every reader's SkipSpaces skips.
static int is_space(char c) { return c == ' ' || c == '\t'; }

// Next line into ls/le with its CR before the LF and its comment ('#' to the end, where
// hash_comments) cut; 0 at the end of the data, -1 on a byte no text mesh has: a control byte
// anywhere (a CR inside a line, a form feed, which Assimp takes for line ends; a vertical tab),
// or a non-ASCII byte outside comments unless names_may_be_utf8 (OBJ's object, group and
// material names).
static int next_line(scan *s, int names_may_be_utf8)
{
    if (s->p >= s->end) return 0;
    s->ls = s->p;
    const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
    s->le = nl ? nl : s->end;
    s->p = nl ? nl + 1 : s->end;
    s->line++;
    size_t n = (size_t)(s->le - s->ls);
    if (n && s->ls[n - 1] == '\r') s->le = s->ls + --n;
    s->empty = n == 0;
    const char *hash = s->hash_comments ? memchr(s->ls, '#', n) : NULL;
    for (const char *c = s->ls; c < s->le; ++c) {
        unsigned char b = (unsigned char)*c;
        if ((b < 0x20 && !is_space((char)b)) || b == 0x7f || (b >= 0x80 && !names_may_be_utf8 && (!hash || c < hash)))
            return fail(s, "unexpected byte 0x%02x in column %ld: expected printable text", b, (long)(c - s->ls) + 1);
    }
    s->had_comment = hash != NULL;
    if (hash) s->le = hash;
    s->tok = s->ls;
    return 1;
}

// The next whitespace-separated token of the line: 1 with [*t, *t + *len), 0 at the line's end.
static int token(scan *s, const char **t, size_t *len)
{
    while (s->tok < s->le && is_space(*s->tok)) ++s->tok;
    if (s->tok >= s->le) return 0;
    *t = s->tok;
    while (s->tok < s->le && !is_space(*s->tok)) ++s->tok;
    *len = (size_t)(s->tok - *t);
    return 1;
}

static int line_is_blank(scan *s)
{
    const char *t = NULL;
    size_t len = 0;
    const char *save = s->tok;
    int blank = !token(s, &t, &len);
    s->tok = save;
    return blank;
}

// [+-]digits[.[digits]][(e|E)[+-]digits]: what every reader parses alike. A digit comes before
// any point: Assimp's OBJ reader counts a vertex's numbers by their first byte (a digit or a
// sign), so "v .5 0 0" has two and is dropped, and every later index shifts.
static int is_decimal(const char *t, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (t[i] == '+' || t[i] == '-')) ++i;
    while (i < len && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
    if (!digits) return 0;
    if (i < len && t[i] == '.') {
        ++i;
        while (i < len && t[i] >= '0' && t[i] <= '9') ++i;
    }
    if (i < len && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < len && (t[i] == '+' || t[i] == '-')) ++i;
        size_t exp = 0;
        while (i < len && t[i] >= '0' && t[i] <= '9') ++i, ++exp;
        if (!exp) return 0;
    }
    return i == len;
}

// A real number token; -1 with the message on anything else or a value beyond double's range.
static int real_token(scan *s, const char *t, size_t len, const char *what, double *v)
{
    char buf[72];
    size_t sign = len && (t[0] == '-' || t[0] == '+');
    if (len - sign >= 3 && (strncasecmp(t + sign, "nan", 3) == 0 || strncasecmp(t + sign, "inf", 3) == 0))
        return fail(s, "%s: '%.*s' is not a finite number", what, (int)(len < 40 ? len : 40), t);
    if (len >= sizeof buf || !is_decimal(t, len))
        return fail(s, "%s: '%.*s' is not a decimal number (expected digits, then an optional fraction and exponent)",
                    what, (int)(len < 40 ? len : 40), t);
    memcpy(buf, t, len);
    buf[len] = '\0';
    // The one reading of a number (cd_csv_parse_double): a decimal beyond double's range is not
    // finite, and a non-zero one below half the smallest subnormal, which strtod reads as 0, is
    // refused as the CSV readers and options refuse it.
    cd_number_fault f = cd_csv_parse_double(buf, v);
    if (f == CD_NUMBER_ROUNDS_TO_ZERO)
        return fail(s, "%s: '%s' is not a usable number%s", what, buf, cd_number_fault_note(f));
    if (f) return fail(s, "%s: '%s' is not finite", what, buf);
    return 0;
}

// Digits from t[*i] as Assimp's strtoul10_64 reads them: into a uint64 that wraps, the wrap
// seen only where the new value is below the old (then -1: Assimp reads 0 and leaves the text
// where it was), at most max digits where max > 0 (the rest skipped); *count gets how many.
static int assimp_digits(const char *t, size_t len, size_t *i, unsigned max, uint64_t *v, unsigned *count)
{
    uint64_t x = 0;
    unsigned n = 0;
    while (*i < len && t[*i] >= '0' && t[*i] <= '9') {
        uint64_t y = x * 10 + (uint64_t)(t[*i] - '0');
        if (y < x) return -1;
        x = y, ++*i, ++n;
        if (max && n == max) {
            while (*i < len && t[*i] >= '0' && t[*i] <= '9') ++*i;
            break;
        }
    }
    *v = x, *count = n;
    return 0;
}

// The float Assimp's fast_atoreal_move<float> (include/assimp/fast_atof.h) makes of a decimal
// token (is_decimal's): the integer part as a uint64 rounded to float, plus at most 15 fraction
// digits as a double times 10^-digits rounded to float, the sum times powf(10, exponent) in
// float. Each step as there, in the same order and precision, so the result is Assimp's bit for
// bit; -1 where a digit run wraps as assimp_digits sees it.
static int assimp_float(const char *t, size_t len, float *out)
{
    static const double scale[16] = {0.0,  1e-1, 1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                     1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15};
    size_t i = t[0] == '-' || t[0] == '+';
    uint64_t v;
    unsigned n;
    if (assimp_digits(t, len, &i, 0, &v, &n)) return -1;
    float f = (float)v;
    if (i + 1 < len && t[i] == '.' && t[i + 1] >= '0' && t[i + 1] <= '9') {
        ++i;
        assimp_digits(t, len, &i, 15, &v, &n);  // 15 digits stay below 2^64
        f += (float)((double)v * scale[n]);
    } else if (i < len && t[i] == '.') {
        ++i;
    }
    if (i < len && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        int negative = t[i] == '-';
        if (t[i] == '-' || t[i] == '+') ++i;
        if (assimp_digits(t, len, &i, 0, &v, &n)) return -1;
        float e = (float)v;
        f *= powf(10.0f, negative ? -e : e);
    }
    *out = t[0] == '-' ? -f : f;
    return 0;
}

// A coordinate: a number as real_token reads it, kept as Assimp keeps it, in float (ai_real).
// Refused: a value beyond float's range; a non-zero one whose float is 0 (as the CSV readers
// refuse 1e-400); and one Assimp's parsing reads otherwise than the nearest float, beyond a
// relative 2⁻²⁰. Within that, Assimp's error on a normal float is at most about 3 ulp (2⁻²⁴
// each: the integer part's rounding, the fraction's, their sum, powf, the product), so every
// ordinary coordinate passes; what does not is a long fraction ("0.000000000012345678": 15
// digits kept), a subnormal scale ("123e-45": 123 · powf(10, -45)), a power of ten beyond range
// on the way ("0.001e41": inf), a 20-digit integer part that wraps.
static int coord_token(scan *s, const char *t, size_t len, const char *what, float *out)
{
    double d;
    if (real_token(s, t, len, what, &d)) return -1;
    int shown = (int)len;  // real_token refused 72 bytes and more
    float r = (float)d, a = 0.0f;
    if (isinf(r))
        return fail(s, "%s: '%.*s' is not finite as a float (coordinates are read as floats: magnitude at most %.9g)",
                    what, shown, t, (double)FLT_MAX);
    if (r == 0.0f && d != 0.0)
        return fail(s, "%s: '%.*s' is not a usable number%s: coordinates are read as floats", what, shown, t,
                    cd_number_fault_note(CD_NUMBER_ROUNDS_TO_ZERO));
    if (assimp_float(t, len, &a) || !(a == r || fabsf(a - r) <= fabsf(r) * 0x1p-20f))
        return fail(s,
                    "%s: '%.*s' reads as %.9g in the mesh reader (Assimp, which keeps 15 fraction digits and "
                    "scales by powers of 10 in float), not %.9g: write it as %.9g",
                    what, shown, t, (double)a, (double)r, (double)r);
    *out = r;
    return 0;
}

// A count or index: plain decimal digits, no sign, no leading zero (0 itself allowed), in
// [lo, hi]. Assimp's readers take "+1" and "-0" as 0 (strtoul10 stops at the sign) and read an
// OBJ reference "01" or "+1" twice (it steps over as many bytes as the value has digits).
static int uint_token(scan *s, const char *t, size_t len, const char *what, int64_t lo, int64_t hi, int64_t *v)
{
    int shown = (int)(len < 40 ? len : 40);
    for (size_t k = 0; k < len; ++k)
        if (t[k] < '0' || t[k] > '9') {
            if ((t[k] == '+' || t[k] == '-') && k == 0 && len > 1)
                return fail(s, "%s: '%.*s': expected decimal digits without a sign", what, shown, t);
            return fail(s, "%s: '%.*s' is not an integer", what, shown, t);
        }
    if (len > 1 && t[0] == '0')
        return fail(s, "%s: '%.*s': expected decimal digits without a leading zero", what, shown, t);
    if (len > 18) return fail(s, "%s is %.*s: expected %lld..%lld", what, shown, t, (long long)lo, (long long)hi);
    int64_t x = 0;
    for (size_t k = 0; k < len; ++k) x = x * 10 + (t[k] - '0');
    if (x < lo || x > hi)
        return fail(s, "%s is %lld: expected %lld..%lld", what, (long long)x, (long long)lo, (long long)hi);
    *v = x;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// OFF: "OFF" (or COFF, NOFF, CNOFF), then "vertices faces edges" (on the keyword's line or the
// next), the vertex lines, the face lines (k, then k vertex indices in [0, vertices), k in 3..9,
// then an optional colour), then nothing but blank lines. Comments and blank lines may come
// anywhere before the first vertex line and after the last face line. What Assimp's OFF reader
// (OFF/OFFLoader.cpp) does otherwise, and this refuses:
// - it reads three counts whatever the line: without the edge count it takes vertex 0's first
//   number for it, and every coordinate after shifts;
// - from the first vertex on it reads one vertex or face a line, skipping only empty lines: a
//   comment line or one of spaces is a vertex it cannot read, or a face of 0 vertices that it
//   drops, and the last face with it (it reads as many lines as the count, keeps count - 1);
// - it reads x y z as floats, then NOFF's normal (3 numbers), then COFF's colour, r g b a: it
//   reads on to a fourth colour number at the end of the line and fails;
// - it drops a face of more than nine vertices without a word.

enum { OFF_MAX_FACE = 9 };
static const char *const off_keywords[] = {"OFF", "COFF", "NOFF", "CNOFF"};

static int next_content_line(scan *s, int utf8)
{
    int rc;
    while ((rc = next_line(s, utf8)) == 1)
        if (!line_is_blank(s)) return 1;
    return rc;
}

// The next vertex or face line: empty lines skipped, a comment or spaces refused.
static int next_off_body_line(scan *s)
{
    int rc;
    while ((rc = next_line(s, 0)) == 1) {
        if (s->empty) continue;
        if (!line_is_blank(s)) return 1;
        return fail(s,
                    "%s among the vertex and face lines: the mesh reader (Assimp) reads every line there but an "
                    "empty one as a vertex or face (comments may come before the first vertex and after the "
                    "last face)",
                    s->had_comment ? "a comment line" : "a line of spaces");
    }
    return rc;
}

static int check_off(scan *s)
{
    const char *t = NULL;
    size_t len = 0;
    int rc = next_content_line(s, 0);
    if (rc < 0) return -1;
    if (rc == 0) return fail(s, "empty file: expected the OFF keyword");
    token(s, &t, &len);
    int keyword = -1;
    for (int k = 0; k < (int)(sizeof off_keywords / sizeof off_keywords[0]); ++k)
        if (len == strlen(off_keywords[k]) && memcmp(t, off_keywords[k], len) == 0) keyword = k;
    if (keyword < 0)
        return fail(s, "'%.*s': expected the keyword OFF on the first line", (int)(len < 40 ? len : 40), t);
    // x y z, then for NOFF a normal, for COFF a colour r g b a, for CNOFF both.
    static const int numbers[] = {3, 7, 6, 10};
    static const char *const layout[] = {"x y z", "x y z r g b a", "x y z nx ny nz", "x y z nx ny nz r g b a"};
    if (line_is_blank(s)) {
        rc = next_content_line(s, 0);
        if (rc < 0) return -1;
        if (rc == 0) return fail(s, "the file ends after the OFF keyword: expected 'vertices faces edges'");
    }
    int64_t counts[3] = {0, 0, 0};
    int ncounts = 0;
    while (token(s, &t, &len)) {
        if (ncounts == 3) return fail(s, "more than three counts: expected 'vertices faces edges'");
        static const char *const what[] = {"the vertex count", "the face count", "the edge count"};
        if (uint_token(s, t, len, what[ncounts], 0, UINT32_MAX, &counts[ncounts])) return -1;
        ++ncounts;
    }
    if (ncounts < 3)
        return fail(s, "expected the three counts 'vertices faces edges' (the edge count may be 0; the mesh reader "
                       "(Assimp) takes a third number from the next line)");
    int64_t nv = counts[0], nf = counts[1];
    if (nv < 3) return fail(s, "%lld vertices: a triangle needs at least 3", (long long)nv);
    if (nf < 1) return fail(s, "0 faces: expected at least one");
    for (int64_t v = 0; v < nv; ++v) {
        rc = v ? next_off_body_line(s) : next_content_line(s, 0);
        if (rc < 0) return -1;
        if (rc == 0) return fail(s, "the file ends after %lld of %lld vertices", (long long)v, (long long)nv);
        char what[64];
        snprintf(what, sizeof what, "vertex %lld", (long long)v);
        int n = 0;
        double x;
        float c;
        while (token(s, &t, &len)) {
            if (n < 3 ? coord_token(s, t, len, what, &c) : real_token(s, t, len, what, &x)) return -1;
            ++n;
        }
        if (n < numbers[keyword])
            return fail(s, "vertex %lld has %d numbers: expected %s (%s)", (long long)v, n, layout[keyword],
                        off_keywords[keyword]);
    }
    for (int64_t f = 0; f < nf; ++f) {
        rc = next_off_body_line(s);
        if (rc < 0) return -1;
        if (rc == 0) return fail(s, "the file ends after %lld of %lld faces", (long long)f, (long long)nf);
        char what[64];
        snprintf(what, sizeof what, "face %lld: its vertex count", (long long)f);
        int64_t k, idx;
        token(s, &t, &len);
        if (uint_token(s, t, len, what, 3, OFF_MAX_FACE, &k)) return -1;
        snprintf(what, sizeof what, "face %lld: a vertex index", (long long)f);
        for (int64_t i = 0; i < k; ++i) {
            if (!token(s, &t, &len))
                return fail(s, "face %lld has %lld of its %lld vertex indices", (long long)f, (long long)i,
                            (long long)k);
            if (uint_token(s, t, len, what, 0, nv - 1, &idx)) return -1;
        }
        int colour = 0;
        double x;
        while (token(s, &t, &len)) {
            if (++colour > 4)
                return fail(s, "face %lld: more than %lld indices and a colour", (long long)f, (long long)k);
            if (real_token(s, t, len, "a face colour", &x)) return -1;
        }
    }
    rc = next_content_line(s, 0);
    if (rc < 0) return -1;
    if (rc == 1) return fail(s, "text after the last of the %lld faces", (long long)nf);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// OBJ: one statement per line, from the line's first byte. v takes x y z, x y z w (w not 0) or
// x y z r g b; vt 2 or 3 numbers, vn 3, vp 1 to 3; f, l and p take vertex references v, v/vt,
// v//vn or v/vt/vn, where a positive index counts from the file's first element (1-based, any
// element of the file) and a negative one back from the latest (-1 is the last defined so far).
// f needs three references, l two, p one. Names and groups (o, g, s, usemtl, mtllib) take any
// text; the statements of free-form geometry are rejected, because no mesh comes of them. What
// Assimp's OBJ reader (Obj/ObjFileParser.cpp) does otherwise, and this refuses:
// - it picks the statement by the line's first byte: an indented "  v 1 2 3" is skipped, and
//   "lod 1" is read as a line statement (l);
// - it reads a v line only of 3, 4 or 6 numbers (5 or 7: none, and the indices shift), and
//   counts them on to the end of the line, past a '#' ("v 1 2 3 # 4" has w = '#');
// - a vt of one number fails; a reference's text is stepped over by as many bytes as its value
//   has digits ("01" and "+1" are read twice), and a '#' after the references fails;
// - a v/vt reference before any vt is defined, once a vn is, is taken for v//vn.

typedef struct obj_counts {
    int64_t v, vt, vn;
} obj_counts;

static int obj_ref(scan *s, const char *t, size_t len, const char *stmt, const obj_counts *sofar,
                   const obj_counts *total)
{
    const char *part[3] = {t, NULL, NULL};
    size_t plen[3] = {len, 0, 0};
    int parts = 1;
    for (size_t i = 0; i < len; ++i)
        if (t[i] == '/') {
            if (parts == 3) return fail(s, "%s: '%.*s' has more than two '/'", stmt, (int)len, t);
            plen[parts - 1] = (size_t)(t + i - part[parts - 1]);
            part[parts] = t + i + 1;
            plen[parts] = (size_t)(t + len - part[parts]);
            ++parts;
        }
    static const char *const kinds[3] = {"vertex", "texture coordinate", "normal"};
    const int64_t have[3] = {sofar->v, sofar->vt, sofar->vn}, all[3] = {total->v, total->vt, total->vn};
    for (int k = 0; k < parts; ++k) {
        if (plen[k] == 0) {
            if (k == 0 || (k == 1 && parts == 3)) continue;  // v//vn leaves the texture slot empty
            return fail(s, "%s: '%.*s' has an empty index", stmt, (int)len, t);
        }
        char what[96];
        snprintf(what, sizeof what, "%s: a %s index", stmt, kinds[k]);
        int64_t x;
        int minus = part[k][0] == '-' && plen[k] > 1;
        if (uint_token(s, part[k] + minus, plen[k] - (size_t)minus, what, 0, INT64_C(999999999999), &x)) return -1;
        if (minus) x = -x;
        if (x == 0) return fail(s, "%s: %s index 0: OBJ indices start at 1 (or count back from -1)", stmt, kinds[k]);
        if (x > 0 && x > all[k])
            return fail(s, "%s: %s index %lld: the file has %lld", stmt, kinds[k], (long long)x, (long long)all[k]);
        if (x < 0 && -x > have[k])
            return fail(s, "%s: %s index %lld: only %lld defined before this line", stmt, kinds[k], (long long)x,
                        (long long)have[k]);
        if (k == 1 && have[1] == 0 && have[2] > 0)
            return fail(s,
                        "%s: '%.*s': a texture coordinate index before any vt line, after a vn line: the mesh "
                        "reader (Assimp) reads it as a normal index",
                        stmt, (int)len, t);
    }
    if (plen[0] == 0) return fail(s, "%s: '%.*s' has no vertex index", stmt, (int)len, t);
    return 0;
}

static int is_word(const char *t, size_t len, const char *w) { return len == strlen(w) && memcmp(t, w, len) == 0; }

// One pass: counts (total) when check == 0, the full check when check == 1.
static int obj_pass(scan *s, int check, obj_counts *total, int64_t *faces)
{
    obj_counts sofar = {0, 0, 0};
    const char *t = NULL;
    size_t len = 0;
    int rc;
    *faces = 0;
    while ((rc = next_line(s, 1)) == 1) {
        if (!token(s, &t, &len)) continue;
        if (s->le > s->ls && s->le[-1] == '\\')
            return fail(s, "a line continued with '\\': join it with the next line");
        int v = is_word(t, len, "v"), vt = is_word(t, len, "vt"), vn = is_word(t, len, "vn"),
            vp = is_word(t, len, "vp");
        int f = is_word(t, len, "f"), l = is_word(t, len, "l"), p = is_word(t, len, "p");
        if (check && t != s->ls)
            return fail(s,
                        "'%.*s' after spaces: the mesh reader (Assimp) skips a line that does not start with its "
                        "statement",
                        (int)(len < 40 ? len : 40), t);
        if (check && s->had_comment && (v || vt || vn || vp || f || l || p))
            return fail(s,
                        "a comment after '%.*s': the mesh reader (Assimp) reads on past '#'; put the comment on a "
                        "line of its own",
                        (int)len, t);
        if (v || vt || vn || vp) {
            const char *stmt = v ? "v" : vt ? "vt" : vn ? "vn" : "vp";
            const char *num[8];
            size_t nlen[8];
            int n = 0;
            while (token(s, &num[n < 7 ? n : 7], &nlen[n < 7 ? n : 7])) ++n;
            sofar.v += v, sofar.vt += vt, sofar.vn += vn;
            if (!check) continue;
            static const char *const expect[] = {"x y z, x y z w or x y z r g b", "u v or u v w", "x y z",
                                                 "1 to 3 numbers"};
            int which = v ? 0 : vt ? 1 : vn ? 2 : 3;
            if (v ? n != 3 && n != 4 && n != 6 : vt ? n != 2 && n != 3 : vn ? n != 3 : n < 1 || n > 3)
                return fail(s, "%s has %d numbers: expected %s", stmt, n, expect[which]);
            float xyzw[4];
            double x;
            for (int k = 0; k < n; ++k) {
                // names are UTF-8, numbers are not
                for (size_t i = 0; i < nlen[k]; ++i)
                    if ((unsigned char)num[k][i] >= 0x80) return fail(s, "%s: unexpected non-ASCII byte", stmt);
                // x y z and w are floats Assimp keeps; a colour's r g b are not coordinates.
                if (v && k < (n == 4 ? 4 : 3) ? coord_token(s, num[k], nlen[k], stmt, &xyzw[k])
                                              : real_token(s, num[k], nlen[k], stmt, &x))
                    return -1;
            }
            // Assimp divides by w in float: the quotient is the coordinate.
            if (v && n == 4) {
                if (xyzw[3] == 0.0f) return fail(s, "v: w is 0: expected x y z w with w not 0 (x/w, y/w, z/w)");
                for (int k = 0; k < 3; ++k) {
                    float q = xyzw[k] / xyzw[3];
                    if (!isfinite(q) || (q == 0.0f && xyzw[k] != 0.0f))
                        return fail(s, "v: %.*s/%.*s is %s as a float (coordinates are read as floats)", (int)nlen[k],
                                    num[k], (int)nlen[3], num[3], isfinite(q) ? "0" : "not finite");
                }
            }
            continue;
        }
        if (f || l || p) {
            const char *stmt = f ? "f" : l ? "l" : "p";
            int n = 0;
            while (token(s, &t, &len)) {
                if (check && obj_ref(s, t, len, stmt, &sofar, total)) return -1;
                ++n;
            }
            int need = f ? 3 : l ? 2 : 1;
            if (check && n < need)
                return fail(s, "%s has %d vertex reference%s: expected at least %d", stmt, n, n == 1 ? "" : "s", need);
            *faces += f;
            continue;
        }
        // Not lod: Assimp reads it as a line statement (l) and fails on its "od".
        static const char *const named[] = {"o",        "g",        "s",          "usemtl",    "mtllib",
                                            "usemap",   "maplib",   "shadow_obj", "trace_obj", "bevel",
                                            "c_interp", "d_interp", "mg"};
        int ok = 0;
        for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k) ok |= is_word(t, len, named[k]);
        if (!ok) {
            static const char *const freeform[] = {"cstype", "deg",  "bmat", "step", "curv", "curv2", "surf",  "parm",
                                                   "trim",   "hole", "scrv", "sp",   "end",  "con",   "ctech", "stech"};
            for (size_t k = 0; k < sizeof freeform / sizeof freeform[0]; ++k)
                if (is_word(t, len, freeform[k]))
                    return fail(s, "'%s': free-form curves and surfaces are not read: expected polygon faces (f)",
                                freeform[k]);
            int printable = 1;
            for (size_t i = 0; i < len; ++i) printable &= (unsigned char)t[i] < 0x80;
            if (printable)
                return fail(s, "'%.*s': not an OBJ statement (expected v, vt, vn, f, l, p, o, g, s, usemtl, mtllib)",
                            (int)(len < 40 ? len : 40), t);
            return fail(s, "unexpected non-ASCII text: not an OBJ statement");
        }
    }
    if (rc < 0) return -1;
    if (!check) *total = sofar;
    return 0;
}

static int check_obj(scan *s)
{
    obj_counts total;
    int64_t faces;
    scan first = *s;  // shares s's message buffer
    if (obj_pass(&first, 0, &total, &faces)) return -1;
    if (obj_pass(s, 1, &total, &faces)) return -1;
    if (total.v < 3) return fail(s, "%lld vertices (v): a triangle needs at least 3", (long long)total.v);
    if (faces == 0) return fail(s, "no faces (f): expected at least one");
    return 0;
}

// ---------------------------------------------------------------------------------------------
// PLY: the header only (the body may be binary): "ply", one "format ascii|binary_little_endian|
// binary_big_endian 1.0", then comment and obj_info lines, "element NAME COUNT", "property TYPE
// NAME" and "property list COUNT_TYPE ITEM_TYPE NAME" (each after an element), then
// "end_header". Assimp's PLY reader loops forever on some broken headers; this stops them with
// the line. The body's numbers and indices are left to Assimp and the checks of its result.

static int is_ply_type(const char *t, size_t len)
{
    static const char *const types[] = {"char", "uchar", "short", "ushort", "int",   "uint",   "float",   "double",
                                        "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k)
        if (is_word(t, len, types[k])) return 1;
    return 0;
}

static int check_ply_header(scan *s)
{
    const char *t = NULL;
    size_t len = 0;
    int rc = next_line(s, 0);
    if (rc < 0) return -1;
    if (rc == 0 || !token(s, &t, &len) || !is_word(t, len, "ply") || token(s, &t, &len))
        return fail(s, "expected 'ply' alone on the first line");
    int format = 0, elements = 0;
    while ((rc = next_line(s, 1)) == 1) {
        if (!token(s, &t, &len)) return fail(s, "a blank line in the header: expected a header statement");
        if (is_word(t, len, "comment") || is_word(t, len, "obj_info")) continue;
        for (const char *c = s->ls; c < s->le; ++c)
            if ((unsigned char)*c >= 0x80) return fail(s, "unexpected non-ASCII byte in the header");
        if (is_word(t, len, "end_header")) {
            if (token(s, &t, &len)) return fail(s, "text after end_header");
            if (!format) return fail(s, "end_header before the format line");
            if (!elements) return fail(s, "no element in the header: expected 'element vertex N'");
            return 0;
        }
        if (is_word(t, len, "format")) {
            const char *v = NULL;
            size_t vlen = 0;
            int ok = !format && token(s, &t, &len) &&
                     (is_word(t, len, "ascii") || is_word(t, len, "binary_little_endian") ||
                      is_word(t, len, "binary_big_endian")) &&
                     token(s, &v, &vlen) && is_word(v, vlen, "1.0") && !token(s, &t, &len);
            if (!ok) return fail(s, "expected one 'format ascii|binary_little_endian|binary_big_endian 1.0'");
            format = 1;
        } else if (is_word(t, len, "element")) {
            int64_t count;
            if (!token(s, &t, &len)) return fail(s, "element: expected 'element NAME COUNT'");
            if (!token(s, &t, &len)) return fail(s, "element: expected 'element NAME COUNT'");
            if (uint_token(s, t, len, "the element count", 0, UINT32_MAX, &count)) return -1;
            if (token(s, &t, &len)) return fail(s, "element: expected 'element NAME COUNT'");
            ++elements;
        } else if (is_word(t, len, "property")) {
            if (!elements) return fail(s, "a property before any element");
            if (!token(s, &t, &len)) return fail(s, "property: expected 'property TYPE NAME'");
            int list = is_word(t, len, "list");
            if (list && !(token(s, &t, &len) && is_ply_type(t, len) && token(s, &t, &len)))
                return fail(s, "property list: expected 'property list COUNT_TYPE ITEM_TYPE NAME'");
            if (!is_ply_type(t, len))
                return fail(s,
                            "property type '%.*s': expected char, uchar, short, ushort, int, uint, float, double "
                            "or a sized name (int32, float32, ...)",
                            (int)(len < 40 ? len : 40), t);
            if (!token(s, &t, &len) || token(s, &t, &len)) return fail(s, "property: expected 'property TYPE NAME'");
        } else {
            return fail(s,
                        "'%.*s': not a PLY header statement (expected format, element, property, comment or "
                        "end_header)",
                        (int)(len < 40 ? len : 40), t);
        }
    }
    if (rc < 0) return -1;
    return fail(s, "the file ends inside the header: expected end_header");
}

// ---------------------------------------------------------------------------------------------
// ASCII STL: "solid [name]", then facets, each on seven lines: "facet normal nx ny nz", "outer
// loop", three "vertex x y z", "endloop", "endfacet"; then "endsolid [name]"; then blank lines or
// another solid. Blank lines and indentation anywhere; no comments (STL has none). Assimp's
// reader (STL/STLLoader.cpp) reads words, not lines: it skips every word it does not know, so
// "vertex 0 1 0 junk" passes there, and a fourth vertex line of a facet is dropped with a log
// line only; a name word "facet", "vertex" or "endsolid…" is read as that statement. The file is
// binary where its size is 84 + 50 · the count at bytes 80..83 (Assimp's test, before any
// other): such a file is left to Assimp.

static int stl_is_binary(const unsigned char *d, size_t n)
{
    if (n < 84) return 0;
    uint32_t count = (uint32_t)d[80] | (uint32_t)d[81] << 8 | (uint32_t)d[82] << 16 | (uint32_t)d[83] << 24;
    return (uint32_t)(count * 50u + 84u) == n;  // Assimp's sum, in uint32 as there
}

// The rest of the current line is exactly the words given (NULL-terminated), else -1.
static int stl_words(scan *s, const char *const *words, const char *expected)
{
    const char *t = NULL;
    size_t len = 0;
    for (; *words; ++words)
        if (!token(s, &t, &len) || !is_word(t, len, *words)) return fail(s, "expected '%s'", expected);
    if (token(s, &t, &len)) return fail(s, "text after '%s'", expected);
    return 0;
}

// Three numbers and the line's end: coordinates (vertex) or a normal.
static int stl_numbers(scan *s, const char *what, int coordinates)
{
    const char *t = NULL;
    size_t len = 0;
    for (int k = 0; k < 3; ++k) {
        double x;
        float c;
        if (!token(s, &t, &len)) return fail(s, "%s has %d numbers: expected 3", what, k);
        if (coordinates ? coord_token(s, t, len, what, &c) : real_token(s, t, len, what, &x)) return -1;
    }
    if (token(s, &t, &len)) return fail(s, "%s: '%.*s' after its 3 numbers", what, (int)(len < 40 ? len : 40), t);
    return 0;
}

static int check_stl(scan *s, const unsigned char *data, size_t n)
{
    if (stl_is_binary(data, n)) return 0;
    size_t i = 0;
    while (i < n && is_space((char)data[i])) ++i;
    if (!(n - i > 5 && memcmp(data + i, "solid", 5) == 0)) {
        s->line = 1;
        if (n < 84) return fail(s, "expected 'solid' (an ASCII STL); %zu bytes are too few for a binary STL", n);
        return fail(s,
                    "expected 'solid' (an ASCII STL), or a binary STL of 84 + 50 · %u bytes (the count at bytes "
                    "80..83), not %zu",
                    (unsigned)data[80] | (unsigned)data[81] << 8 | (unsigned)data[82] << 16 | (unsigned)data[83] << 24,
                    n);
    }
    enum { SOLID, FACET_OR_END, LOOP, VERTEX, ENDLOOP, ENDFACET } want = SOLID;
    int vertices = 0, solids = 0;
    long long facets = 0;
    const char *t = NULL;
    size_t len = 0;
    int rc;
    while ((rc = next_line(s, 1)) == 1) {
        if (!token(s, &t, &len)) continue;
        int named = is_word(t, len, "solid") || is_word(t, len, "endsolid");
        for (const char *c = s->ls; c < s->le && !named; ++c)
            if ((unsigned char)*c >= 0x80) return fail(s, "unexpected non-ASCII byte outside a solid's name");
        switch (want) {
        case SOLID:
            if (!is_word(t, len, "solid"))
                return fail(s, "'%.*s': expected 'solid NAME' (or the file's end)", (int)(len < 40 ? len : 40), t);
            for (int w = 0; token(s, &t, &len); ++w) {
                if (w == 0 && len >= 1024) return fail(s, "a solid's name of %zu bytes: expected fewer than 1024", len);
                if (is_word(t, len, "facet") || is_word(t, len, "vertex") ||
                    (len >= 8 && memcmp(t, "endsolid", 8) == 0))
                    return fail(s, "'%.*s' in a solid's name: the mesh reader (Assimp) reads it as a statement",
                                (int)(len < 40 ? len : 40), t);
            }
            ++solids, want = FACET_OR_END;
            break;
        case FACET_OR_END:
            if (is_word(t, len, "endsolid")) {
                want = SOLID;
                break;  // any name after it: Assimp skips the line
            }
            if (!is_word(t, len, "facet") || !token(s, &t, &len) || !is_word(t, len, "normal"))
                return fail(s, "'%.*s': expected 'facet normal nx ny nz' or 'endsolid'", (int)(len < 40 ? len : 40), t);
            if (stl_numbers(s, "facet normal", 0)) return -1;
            want = LOOP;
            break;
        case LOOP: {
            static const char *const w[] = {"outer", "loop", NULL};
            s->tok = t;
            if (stl_words(s, w, "outer loop")) return -1;
            want = VERTEX, vertices = 0;
            break;
        }
        case VERTEX:
            if (!is_word(t, len, "vertex"))
                return fail(s, "'%.*s': expected 'vertex x y z' (%d of the facet's 3 so far)",
                            (int)(len < 40 ? len : 40), t, vertices);
            if (stl_numbers(s, "vertex", 1)) return -1;
            if (++vertices == 3) want = ENDLOOP;
            break;
        case ENDLOOP: {
            static const char *const w[] = {"endloop", NULL};
            s->tok = t;
            if (stl_words(s, w, "endloop")) {
                if (is_word(t, len, "vertex"))
                    return fail(s, "a fourth vertex: expected 'endloop' (facets are triangles)");
                return -1;
            }
            want = ENDFACET;
            break;
        }
        case ENDFACET: {
            static const char *const w[] = {"endfacet", NULL};
            s->tok = t;
            if (stl_words(s, w, "endfacet")) return -1;
            ++facets, want = FACET_OR_END;
            break;
        }
        }
    }
    if (rc < 0) return -1;
    if (want != SOLID)
        return fail(s, "the file ends inside solid %d: expected %s", solids,
                    want == FACET_OR_END ? "'endsolid'" : "the facet's end");
    if (facets == 0) return fail(s, "no facets: expected at least one");
    return 0;
}

// ---------------------------------------------------------------------------------------------

static int has_extension(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && strcasecmp(name + n - e, ext) == 0;
}

mesh_text_format mesh_text_format_of(const char *name, const char *data, size_t n)
{
    if (has_extension(name, ".off")) return MESH_TEXT_OFF;
    if (has_extension(name, ".obj")) return MESH_TEXT_OBJ;
    if (has_extension(name, ".ply")) return MESH_TEXT_PLY;
    if (has_extension(name, ".stl")) return MESH_TEXT_STL;
    if (n >= 4 && memcmp(data, "ply", 3) == 0 && (data[3] == '\n' || data[3] == '\r')) return MESH_TEXT_PLY;
    size_t i = 0;
    while (i < n && (is_space(data[i]) || data[i] == '\n' || data[i] == '\r')) ++i;
    const char *t = data + i;
    size_t left = n - i;
    for (size_t k = 0; k < sizeof off_keywords / sizeof off_keywords[0]; ++k) {
        size_t kl = strlen(off_keywords[k]);
        if (left >= kl && memcmp(t, off_keywords[k], kl) == 0 &&
            (left == kl || is_space(t[kl]) || t[kl] == '\n' || t[kl] == '\r'))
            return MESH_TEXT_OFF;
    }
    return MESH_TEXT_NONE;
}

int mesh_text_check(mesh_text_format fmt, const char *name, const char *data, size_t n, char *err, size_t err_len)
{
    scan s = {.name = name,
              .p = data,
              .end = data + n,
              .hash_comments = fmt != MESH_TEXT_STL,
              .err = err,
              .err_len = err_len};
    if (fmt == MESH_TEXT_OFF) return check_off(&s);
    if (fmt == MESH_TEXT_OBJ) return check_obj(&s);
    if (fmt == MESH_TEXT_PLY) return check_ply_header(&s);
    if (fmt == MESH_TEXT_STL) return check_stl(&s, (const unsigned char *)data, n);
    return 0;
}
