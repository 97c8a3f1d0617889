// SPDX-License-Identifier: MIT
// OFF and OBJ checked line by line. The grammar accepted is a strict subset of what Assimp's
// readers take: decimal numbers only (no nan, inf or hex), counts that match the lines present,
// indices in range, printable ASCII outside comments and names. Nothing is allocated from a
// count in the file, so a header that promises 4·10⁹ faces costs nothing but the scan.
#include "text_check.h"

#include "cd_csv.h"  // cd_csv_parse_double: the one reading of a number

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

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Next line into ls/le with its comment ('#' to the end) cut; 0 at the end of the data, -1 on a
// byte no text mesh has: a control byte anywhere, or a non-ASCII byte outside comments unless
// names_may_be_utf8 (OBJ's object, group and material names).
static int next_line(scan *s, int names_may_be_utf8)
{
    if (s->p >= s->end) return 0;
    s->ls = s->p;
    const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
    s->le = nl ? nl : s->end;
    s->p = nl ? nl + 1 : s->end;
    s->line++;
    const char *hash = memchr(s->ls, '#', (size_t)(s->le - s->ls));
    for (const char *c = s->ls; c < s->le; ++c) {
        unsigned char b = (unsigned char)*c;
        if ((b < 0x20 && !is_space((char)b)) || b == 0x7f || (b >= 0x80 && !names_may_be_utf8 && (!hash || c < hash)))
            return fail(s, "unexpected byte 0x%02x in column %ld: expected printable text", b, (long)(c - s->ls) + 1);
    }
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

// [+-]digits[.digits][(e|E)[+-]digits] or [+-].digits[...]: what every reader parses alike.
static int is_decimal(const char *t, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (t[i] == '+' || t[i] == '-')) ++i;
    while (i < len && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
    if (i < len && t[i] == '.') {
        ++i;
        while (i < len && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
    }
    if (!digits) return 0;
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
        return fail(s, "%s: '%.*s' is not a decimal number", what, (int)(len < 40 ? len : 40), t);
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

// A decimal integer token in [lo, hi].
static int int_token(scan *s, const char *t, size_t len, const char *what, int64_t lo, int64_t hi, int64_t *v)
{
    size_t i = (len && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
    if (i == len || len > 19) return fail(s, "%s: '%.*s' is not an integer", what, (int)(len < 40 ? len : 40), t);
    int64_t x = 0;
    for (size_t k = i; k < len; ++k) {
        if (t[k] < '0' || t[k] > '9') return fail(s, "%s: '%.*s' is not an integer", what, (int)len, t);
        x = x * 10 + (t[k] - '0');
    }
    if (t[0] == '-') x = -x;
    if (x < lo || x > hi)
        return fail(s, "%s is %lld: expected %lld..%lld", what, (long long)x, (long long)lo, (long long)hi);
    *v = x;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// OFF: "OFF" (or COFF, NOFF, CNOFF), then "vertices faces [edges]" (on the keyword's line or the
// next), the vertex lines (x y z and optional colour or normal numbers), the face lines
// (k, then k vertex indices in [0, vertices), k in 3..9, then an optional colour), then nothing
// but blank lines. Assimp's OFF reader drops a face of more than nine vertices without a word,
// so such a face is an error here rather than a silent hole.

enum { OFF_MAX_FACE = 9 };
static const char *const off_keywords[] = {"OFF", "COFF", "NOFF", "CNOFF"};

static int next_content_line(scan *s, int utf8)
{
    int rc;
    while ((rc = next_line(s, utf8)) == 1)
        if (!line_is_blank(s)) return 1;
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
    int known = 0;
    for (size_t k = 0; k < sizeof off_keywords / sizeof off_keywords[0]; ++k)
        known |= len == strlen(off_keywords[k]) && memcmp(t, off_keywords[k], len) == 0;
    if (!known) return fail(s, "'%.*s': expected the keyword OFF on the first line", (int)(len < 40 ? len : 40), t);
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
        if (int_token(s, t, len, what[ncounts], 0, UINT32_MAX, &counts[ncounts])) return -1;
        ++ncounts;
    }
    if (ncounts < 2) return fail(s, "expected 'vertices faces edges' (the edge count may be left out)");
    int64_t nv = counts[0], nf = counts[1];
    if (nv < 3) return fail(s, "%lld vertices: a triangle needs at least 3", (long long)nv);
    if (nf < 1) return fail(s, "0 faces: expected at least one");
    for (int64_t v = 0; v < nv; ++v) {
        rc = next_content_line(s, 0);
        if (rc < 0) return -1;
        if (rc == 0) return fail(s, "the file ends after %lld of %lld vertices", (long long)v, (long long)nv);
        char what[64];
        snprintf(what, sizeof what, "vertex %lld", (long long)v);
        int n = 0;
        double x;
        while (token(s, &t, &len)) {
            if (real_token(s, t, len, what, &x)) return -1;
            ++n;
        }
        if (n < 3) return fail(s, "vertex %lld has %d numbers: expected x y z", (long long)v, n);
    }
    for (int64_t f = 0; f < nf; ++f) {
        rc = next_content_line(s, 0);
        if (rc < 0) return -1;
        if (rc == 0) return fail(s, "the file ends after %lld of %lld faces", (long long)f, (long long)nf);
        char what[64];
        snprintf(what, sizeof what, "face %lld: its vertex count", (long long)f);
        int64_t k, idx;
        token(s, &t, &len);
        if (int_token(s, t, len, what, 3, OFF_MAX_FACE, &k)) return -1;
        snprintf(what, sizeof what, "face %lld: a vertex index", (long long)f);
        for (int64_t i = 0; i < k; ++i) {
            if (!token(s, &t, &len))
                return fail(s, "face %lld has %lld of its %lld vertex indices", (long long)f, (long long)i,
                            (long long)k);
            if (int_token(s, t, len, what, 0, nv - 1, &idx)) return -1;
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
// OBJ: one statement per line. v takes 3 to 7 numbers (x y z, then w or an r g b colour), vt 1
// to 3, vn 3, vp 1 to 3; f, l and p take vertex references v, v/vt, v//vn or v/vt/vn, where a
// positive index counts from the file's first element (1-based, any element of the file) and a
// negative one back from the latest (-1 is the last defined so far). f needs three references,
// l two, p one. Names and groups (o, g, s, usemtl, mtllib) take any text; the statements of
// free-form geometry are rejected, because no mesh comes of them.

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
        if (int_token(s, part[k], plen[k], what, -INT64_C(999999999999), INT64_C(999999999999), &x)) return -1;
        if (x == 0) return fail(s, "%s: %s index 0: OBJ indices start at 1 (or count back from -1)", stmt, kinds[k]);
        if (x > 0 && x > all[k])
            return fail(s, "%s: %s index %lld: the file has %lld", stmt, kinds[k], (long long)x, (long long)all[k]);
        if (x < 0 && -x > have[k])
            return fail(s, "%s: %s index %lld: only %lld defined before this line", stmt, kinds[k], (long long)x,
                        (long long)have[k]);
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
        if (v || vt || vn || vp) {
            int lo = v ? 3 : vn ? 3 : 1, hi = v ? 7 : 3, n = 0;
            const char *stmt = v ? "v" : vt ? "vt" : vn ? "vn" : "vp";
            double x;
            while (token(s, &t, &len)) {
                if (check) {
                    // names are UTF-8, numbers are not
                    for (size_t i = 0; i < len; ++i)
                        if ((unsigned char)t[i] >= 0x80) return fail(s, "%s: unexpected non-ASCII byte", stmt);
                    if (real_token(s, t, len, stmt, &x)) return -1;
                }
                ++n;
            }
            if (check && (n < lo || n > hi)) return fail(s, "%s has %d numbers: expected %d to %d", stmt, n, lo, hi);
            sofar.v += v, sofar.vt += vt, sofar.vn += vn;
            continue;
        }
        int f = is_word(t, len, "f"), l = is_word(t, len, "l"), p = is_word(t, len, "p");
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
        static const char *const named[] = {"o",      "g",        "s",        "usemtl",     "mtllib",
                                            "usemap", "maplib",   "lod",      "shadow_obj", "trace_obj",
                                            "bevel",  "c_interp", "d_interp", "mg"};
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
            if (int_token(s, t, len, "the element count", 0, UINT32_MAX, &count)) return -1;
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
    if (n >= 4 && memcmp(data, "ply", 3) == 0 && (data[3] == '\n' || data[3] == '\r')) return MESH_TEXT_PLY;
    size_t i = 0;
    while (i < n && (is_space(data[i]) || data[i] == '\n')) ++i;
    const char *t = data + i;
    size_t left = n - i;
    for (size_t k = 0; k < sizeof off_keywords / sizeof off_keywords[0]; ++k) {
        size_t kl = strlen(off_keywords[k]);
        if (left >= kl && memcmp(t, off_keywords[k], kl) == 0 && (left == kl || is_space(t[kl]) || t[kl] == '\n'))
            return MESH_TEXT_OFF;
    }
    return MESH_TEXT_NONE;
}

int mesh_text_check(mesh_text_format fmt, const char *name, const char *data, size_t n, char *err, size_t err_len)
{
    scan s = {.name = name, .p = data, .end = data + n, .err = err, .err_len = err_len};
    if (fmt == MESH_TEXT_OFF) return check_off(&s);
    if (fmt == MESH_TEXT_OBJ) return check_obj(&s);
    if (fmt == MESH_TEXT_PLY) return check_ply_header(&s);
    return 0;
}
