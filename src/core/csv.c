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
    (void)c;
    reader *r = data;
    cd_csv_table *t = r->t;
    r->row.line = r->line;
    cd_grow((void **)&t->rows, sizeof(cd_csv_row), &t->capacity, t->count + 1);
    t->rows[t->count++] = r->row;
    r->row = (cd_csv_row){0};
    r->row_cap = 0;
}

int cd_csv_read(const char *path, cd_csv_table *t, char *err, size_t err_len)
{
    *t = (cd_csv_table){0};
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct csv_parser p;
    csv_init(&p, CSV_APPEND_NULL);
    reader r = {.t = t};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    // Feed libcsv one physical line at a time so every row knows its line number; our files never
    // hold quoted newlines, and a '#' line is a comment.
    while ((n = getline(&line, &cap, f)) >= 0) {
        r.line++;
        // A NUL byte would end the field early and let the rest of it pass unread.
        if (memchr(line, '\0', (size_t)n)) {
            snprintf(err, err_len, "%s:%zu: a NUL byte: expected text", path, r.line);
            rc = -1;
            break;
        }
        size_t lead = strspn(line, " \t");
        if (line[lead] == '#' || line[lead] == '\n' || line[lead] == '\r' || line[lead] == '\0') continue;
        if (csv_parse(&p, line, (size_t)n, on_field, on_row, &r) != (size_t)n) {
            snprintf(err, err_len, "%s:%zu: %s", path, r.line, csv_strerror(csv_error(&p)));
            rc = -1;
            break;
        }
        csv_fini(&p, on_field, on_row, &r);
    }
    free(line);
    csv_free(&p);
    for (size_t i = 0; i < r.row.count; ++i) cd_free(r.row.fields[i]);
    cd_free(r.row.fields);
    fclose(f);
    if (rc) cd_csv_table_free(t);
    return rc;
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
