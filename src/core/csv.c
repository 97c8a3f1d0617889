// SPDX-License-Identifier: MIT
#include "cd_csv.h"

#include "cd_core.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// The row libcsv is reading: its fields one after another in text, each NUL-terminated.
typedef struct reader {
    char *text;
    size_t len, cap;
    size_t *start;  // where each field starts in text
    size_t count, start_cap;
    int ended;    // rows libcsv ended in this line
    int bare_cr;  // libcsv ended a row inside the line: at a CR that is not the line's end
} reader;

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    cd_grow((void **)&r->text, 1, &r->cap, r->len + len + 1);
    cd_grow((void **)&r->start, sizeof(size_t), &r->start_cap, r->count + 1);
    if (len) memcpy(r->text + r->len, s, len);
    r->text[r->len + len] = '\0';
    r->start[r->count++] = r->len;
    r->len += len + 1;
}

static void on_row(int c, void *data)
{
    reader *r = data;
    // libcsv is fed a line without its end (CSV_REPALL_NL: every unquoted CR reaches here), so a
    // row ends only at csv_fini (c = -1); anything else is a bare CR, which libcsv takes for a line
    // end where line counting does not: its rows would share one line number.
    if (c != -1) r->bare_cr = 1;
    r->ended++;
}

// The messages of two faults of a CSV line, one wording for every reader. A byte-order mark is
// said in words: quoted in a message the mark is invisible ("found '0'" for a field "\uFEFF0").
static int bom_error(const char *path, char *err, size_t err_len)
{
    snprintf(err, err_len,
             "%s:1: starts with a UTF-8 byte-order mark (BOM, bytes EF BB BF): expected CSV text without one "
             "(save the file without a BOM)",
             path);
    return -1;
}

static int bare_cr_error(const char *path, size_t lineno, char *err, size_t err_len)
{
    snprintf(err, err_len,
             "%s:%zu: a carriage return (CR) inside the line: expected lines that end in LF or CR LF (CR alone "
             "does not end a line)",
             path, lineno);
    return -1;
}

// libcsv's options for every reader. Strict: a quote inside an unquoted field, text after a
// closing quote ("1"0) and a quote left open are errors (quote_error); without it libcsv took the
// rest of such a line into one field, and the message counted fields the line visibly has.
#define CD_CSV_OPTIONS (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL)

static int quote_error(const char *path, size_t lineno, int open, char *err, size_t err_len)
{
    snprintf(
        err, err_len, "%s:%zu: %s: expected each field quoted whole (\"...\", a quote inside doubled) or not at all",
        path, lineno,
        open ? "a quoted field without its closing quote" : "a quote inside a field or text after a closing quote");
    return -1;
}

static int has_bom(size_t lineno, const char *line, size_t n)
{
    return lineno == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0;
}

int cd_csv_unquoted_line_check(const char *path, size_t lineno, const char *line, size_t n, char *err, size_t err_len)
{
    if (has_bom(lineno, line, n)) return bom_error(path, err, err_len);
    if (memchr(line, '\r', n)) return bare_cr_error(path, lineno, err, err_len);
    return 0;
}

// Line number lineno of path, line[0..n) with its end, through libcsv into r: 1 when it holds a
// row (r's fields), 0 when it is blank or a comment ('#'), -1 with "path:line: why" in err. Each
// line is parsed alone: our files never hold quoted newlines. The one place the rules of a CSV
// line live, for a table in memory and a stream alike.
static int parse_line(struct csv_parser *p, reader *r, const char *path, size_t lineno, const char *line, size_t n,
                      char *err, size_t err_len)
{
    r->len = r->count = 0;
    r->ended = r->bare_cr = 0;
    size_t body = cd_line_body(line, n);
    if (body > CD_TEXT_MAX_LINE) {
        char lim[32];
        cd_file_size_text(CD_TEXT_MAX_LINE, lim, sizeof lim);
        snprintf(err, err_len, "%s:%zu: line longer than %s: expected CSV rows of at most %s", path, lineno, lim, lim);
        return -1;
    }
    if (memchr(line, '\0', n)) {  // it would end the field early and let the rest pass unread
        snprintf(err, err_len, "%s:%zu: a NUL byte: expected text", path, lineno);
        return -1;
    }
    if (has_bom(lineno, line, n)) return bom_error(path, err, err_len);
    size_t lead = 0;
    while (lead < body && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
    if (lead == body || line[lead] == '#') return 0;
    if (csv_parse(p, line, body, on_field, on_row, r) != body) {
        if (csv_error(p) == CSV_EPARSE) {
            csv_fini(p, on_field, on_row, r);  // back to a fresh state for the next line
            return quote_error(path, lineno, 0, err, err_len);
        }
        snprintf(err, err_len, "%s:%zu: %s", path, lineno, csv_strerror(csv_error(p)));
        return -1;
    }
    if (csv_fini(p, on_field, on_row, r) != 0) return quote_error(path, lineno, 1, err, err_len);
    if (r->bare_cr) return bare_cr_error(path, lineno, err, err_len);
    return r->ended > 0;
}

static void reader_free(reader *r)
{
    cd_free(r->text);
    cd_free(r->start);
}

// r's row as a table row that owns its fields: one block, the field pointers then their text.
static cd_csv_row row_copy(const reader *r, size_t lineno)
{
    char **fields = cd_alloc(r->count * sizeof(char *) + r->len);
    char *text = (char *)(fields + r->count);
    memcpy(text, r->text, r->len);
    for (size_t i = 0; i < r->count; ++i) fields[i] = text + r->start[i];
    return (cd_csv_row){fields, r->count, lineno};
}

static void table_add(cd_csv_table *t, cd_csv_row row)
{
    cd_grow((void **)&t->rows, sizeof(cd_csv_row), &t->capacity, t->count + 1);
    t->rows[t->count++] = row;
}

int cd_csv_parse_text(const char *path, const char *text, size_t len, cd_csv_table *t, char *err, size_t err_len)
{
    *t = (cd_csv_table){0};
    struct csv_parser p;
    csv_init(&p, CD_CSV_OPTIONS);
    reader r = {0};
    cd_lines it = cd_lines_of(text, len);
    const char *line;
    size_t n;
    int got = 0;
    while (got >= 0 && cd_lines_next(&it, &line, &n))
        if ((got = parse_line(&p, &r, path, it.line, line, n, err, err_len)) == 1) table_add(t, row_copy(&r, it.line));
    csv_free(&p);
    reader_free(&r);
    if (got < 0) cd_csv_table_free(t);
    return got < 0 ? -1 : 0;
}

struct cd_csv_stream {
    char *path;
    cd_line_reader in;
    struct csv_parser p;
    reader r;
    char **fields;  // the current row's field pointers, into r.text
    size_t fields_cap;
    cd_csv_row row;
};

cd_csv_stream *cd_csv_stream_open(const char *path, enum cd_file_accept accept, char *err, size_t err_len)
{
    char why[256];
    cd_line_reader in;
    if (cd_line_reader_open(&in, path, CD_FILE_MAX_BYTES, accept, CD_TEXT_MAX_LINE, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", path, why);
        return NULL;
    }
    cd_csv_stream *s = cd_alloc_zero(1, sizeof *s);
    size_t n = strlen(path) + 1;
    s->path = memcpy(cd_alloc(n), path, n);
    s->in = in;
    csv_init(&s->p, CD_CSV_OPTIONS);
    return s;
}

int cd_csv_stream_next(cd_csv_stream *s, const cd_csv_row **row, char *err, size_t err_len)
{
    const char *line;
    size_t n;
    char why[256];
    for (;;) {
        int got = cd_line_reader_next(&s->in, &line, &n, why, sizeof why);
        if (got == 0) return 0;
        if (got < 0) {
            snprintf(err, err_len, "%s: %s", s->path, why);
            return -1;
        }
        got = parse_line(&s->p, &s->r, s->path, s->in.line, line, n, err, err_len);
        if (got < 0) return -1;
        if (got == 0) continue;
        cd_grow((void **)&s->fields, sizeof(char *), &s->fields_cap, s->r.count);
        for (size_t i = 0; i < s->r.count; ++i) s->fields[i] = s->r.text + s->r.start[i];
        s->row = (cd_csv_row){s->fields, s->r.count, s->in.line};
        *row = &s->row;
        return 1;
    }
}

void cd_csv_stream_close(cd_csv_stream *s)
{
    if (!s) return;
    cd_line_reader_close(&s->in);
    csv_free(&s->p);
    reader_free(&s->r);
    cd_free(s->fields);
    cd_free(s->path);
    cd_free(s);
}

int cd_csv_load(const char *path, enum cd_file_accept accept, cd_csv_table *t, char *err, size_t err_len)
{
    // Read as a stream: the table is all it holds (the file is never in memory whole).
    *t = (cd_csv_table){0};
    cd_csv_stream *s = cd_csv_stream_open(path, accept, err, err_len);
    if (!s) return -1;
    const cd_csv_row *row;
    int got;
    while ((got = cd_csv_stream_next(s, &row, err, err_len)) == 1) table_add(t, row_copy(&s->r, row->line));
    cd_csv_stream_close(s);
    if (got < 0) cd_csv_table_free(t);
    return got < 0 ? -1 : 0;
}

int cd_csv_read(const char *path, cd_csv_table *t, char *err, size_t err_len)
{
    return cd_csv_load(path, CD_FILE_REGULAR, t, err, err_len);
}

void cd_csv_table_free(cd_csv_table *t)
{
    for (size_t i = 0; i < t->count; ++i) cd_free(t->rows[i].fields);  // one block: pointers and text
    cd_free(t->rows);
    *t = (cd_csv_table){0};
}

cd_number_fault cd_csv_parse_double(const char *field, double *out)
{
    while (*field == ' ' || *field == '\t') field++;
    // strtod would skip any white space before the number: a CR, LF, form feed or vertical tab
    // there (possible only in a quoted field) is text around the number, as after it.
    if (!*field || isspace((unsigned char)*field)) return CD_NUMBER_NOT_A_NUMBER;
    char *end;
    errno = 0;
    double v = strtod(field, &end);
    // Spaces and tabs only: a line's CR LF never reaches a field (the reader takes it off with
    // the line's end), so a CR here was inside quotes, part of the value.
    while (*end == ' ' || *end == '\t') end++;
    if (end == field || *end != '\0') return CD_NUMBER_NOT_A_NUMBER;
    if (!isfinite(v)) return CD_NUMBER_NOT_FINITE;
    // glibc flags subnormal results with ERANGE too: those are exact doubles (a value printed
    // with %.17g reads back); only a non-zero number that rounded to zero has lost its value.
    if (errno == ERANGE && v == 0.0) return CD_NUMBER_ROUNDS_TO_ZERO;
    *out = v;
    return CD_NUMBER_OK;
}

const char *cd_number_fault_note(cd_number_fault f)
{
    return f == CD_NUMBER_ROUNDS_TO_ZERO ? " (it rounds to 0; for zero write 0)" : "";
}

int cd_csv_parse_float_within(const char *field, double limit, double *out, char *note, size_t note_len)
{
    double v = 0.0;
    cd_number_fault f = cd_csv_parse_double(field, &v);
    if (f == CD_NUMBER_OK && fabs((double)(float)v) <= limit) {
        *out = v;
        return 0;
    }
    // The float refused beside the text, where they differ: "found '1e30'" alone contradicted
    // "<= 1e30".
    if (f == CD_NUMBER_OK && (double)(float)v != v)
        snprintf(note, note_len, " (%.9g as a float)", (double)(float)v);
    else
        snprintf(note, note_len, "%s", cd_number_fault_note(f));
    return -1;
}

void cd_csv_write_field(FILE *f, const char *field, int first)
{
    if (!first) fputc(',', f);
    if (strpbrk(field, ",\"\n\r"))
        csv_fwrite(f, field, strlen(field));
    else
        fputs(field, f);
}

void cd_csv_write_row(FILE *f, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; ++i) cd_csv_write_field(f, fields[i], i == 0);
    fputc('\n', f);
}

void cd_csv_format_double(char *buf, size_t len, double v) { snprintf(buf, len, "%.17g", v); }
