// SPDX-License-Identifier: MIT
#include "cd_csv.h"

#include "cd_core.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    cd_csv_table *t;
    cd_csv_row row;
    size_t row_cap;
    size_t line;  // line of the row being read
    int bare_cr;  // libcsv ended a row inside the line: at a CR that is not the line's end
} reader;

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    cd_grow((void **)&r->row.fields, sizeof(char *), &r->row_cap, r->row.count + 1);
    char *copy = cd_alloc(len + 1);
    if (len) memcpy(copy, s, len);
    copy[len] = '\0';
    r->row.fields[r->row.count++] = copy;
}

static void on_row(int c, void *data)
{
    reader *r = data;
    // libcsv is fed a line without its end (CSV_REPALL_NL: every unquoted CR reaches here), so a
    // row ends only at csv_fini (c = -1); anything else is a bare CR, which libcsv takes for a line
    // end where cd_lines does not: its rows would share one line number.
    if (c != -1) r->bare_cr = 1;
    cd_csv_table *t = r->t;
    r->row.line = r->line;
    cd_grow((void **)&t->rows, sizeof(cd_csv_row), &t->capacity, t->count + 1);
    t->rows[t->count++] = r->row;
    r->row = (cd_csv_row){0};
    r->row_cap = 0;
}

/// The length of a line without its end: LF, CR LF, or (the file's last line) a lone CR.
static size_t line_body(const char *line, size_t n)
{
    if (n && line[n - 1] == '\n') --n;
    if (n && line[n - 1] == '\r') --n;
    return n;
}

int cd_csv_parse_text(const char *path, const char *text, size_t len, cd_csv_table *t, char *err, size_t err_len)
{
    *t = (cd_csv_table){0};
    struct csv_parser p;
    csv_init(&p, CSV_APPEND_NULL | CSV_REPALL_NL);
    reader r = {.t = t};
    cd_lines it = cd_lines_of(text, len);
    const char *line;
    size_t n;
    int rc = 0;
    // Feed libcsv one physical line at a time, without its line end, so every row knows its line
    // number; our files never hold quoted newlines, and a '#' line is a comment.
    while (!rc && cd_lines_next(&it, &line, &n)) {
        r.line = it.line;
        size_t body = line_body(line, n);
        if (n - (line[n - 1] == '\n') > CD_TEXT_MAX_LINE) {
            char lim[32];
            cd_file_size_text(CD_TEXT_MAX_LINE, lim, sizeof lim);
            snprintf(err, err_len, "%s:%zu: line longer than %s: expected CSV rows of at most %s", path, r.line, lim,
                     lim);
            rc = -1;
        } else if (memchr(line, '\0', n)) {  // it would end the field early and let the rest pass unread
            snprintf(err, err_len, "%s:%zu: a NUL byte: expected text", path, r.line);
            rc = -1;
        } else {
            size_t lead = strspn(line, " \t");
            if (lead >= body || line[lead] == '#') continue;
            if (csv_parse(&p, line, body, on_field, on_row, &r) != body) {
                snprintf(err, err_len, "%s:%zu: %s", path, r.line, csv_strerror(csv_error(&p)));
                rc = -1;
            } else {
                csv_fini(&p, on_field, on_row, &r);
                if (r.bare_cr) {
                    snprintf(err, err_len,
                             "%s:%zu: a carriage return (CR) inside the line: expected lines that end in LF or CR LF "
                             "(CR alone does not end a line)",
                             path, r.line);
                    rc = -1;
                }
            }
        }
    }
    csv_free(&p);
    for (size_t i = 0; i < r.row.count; ++i) cd_free(r.row.fields[i]);
    cd_free(r.row.fields);
    if (rc) cd_csv_table_free(t);
    return rc;
}

int cd_csv_load(const char *path, enum cd_file_accept accept, cd_csv_table *t, char *err, size_t err_len)
{
    *t = (cd_csv_table){0};
    char *text, why[256];
    size_t len;
    if (cd_file_load(path, CD_FILE_MAX_BYTES, accept, &text, &len, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", path, why);
        return -1;
    }
    int rc = cd_csv_parse_text(path, text, len, t, err, err_len);
    cd_free(text);
    return rc;
}

int cd_csv_read(const char *path, cd_csv_table *t, char *err, size_t err_len)
{
    return cd_csv_load(path, CD_FILE_REGULAR, t, err, err_len);
}

void cd_csv_table_free(cd_csv_table *t)
{
    for (size_t i = 0; i < t->count; ++i) {
        for (size_t j = 0; j < t->rows[i].count; ++j) cd_free(t->rows[i].fields[j]);
        cd_free(t->rows[i].fields);
    }
    cd_free(t->rows);
    *t = (cd_csv_table){0};
}

int cd_csv_parse_double(const char *field, double *out)
{
    while (*field == ' ' || *field == '\t') field++;
    if (!*field) return -1;
    char *end;
    errno = 0;
    double v = strtod(field, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r') end++;
    if (*end != '\0' || !isfinite(v)) return -1;
    // glibc flags subnormal results with ERANGE too: those are exact doubles (a value printed
    // with %.17g reads back); only a non-zero number that rounded to zero has lost its value.
    if (errno == ERANGE && v == 0.0) return -1;
    *out = v;
    return 0;
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
