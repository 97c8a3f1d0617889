// SPDX-License-Identifier: MIT
// CSV through libcsv: one table reader (rows of string fields with their line numbers) and one
// writer (fields quoted only when needed). Every cdlab CSV goes through these two.
#ifndef CD_CSV_H
#define CD_CSV_H

#include "cd_core.h"

#include <stddef.h>
#include <stdio.h>

/// One parsed row: fields[0..count) are NUL-terminated strings owned by the table (or stream).
typedef struct cd_csv_row {
    char **fields;
    size_t count;
    size_t line;  ///< 1-based line number in the file where the row starts
} cd_csv_row;

/// A whole CSV file. Lines starting with '#' are comments and skipped; blank lines too. Lines end
/// in LF or CR LF; a CR elsewhere outside quotes is refused ("path:line: a carriage return …").
typedef struct cd_csv_table {
    cd_csv_row *rows;
    size_t count, capacity;
} cd_csv_table;

/// Read the regular file at path into t (cd_csv_load with CD_FILE_REGULAR). Returns 0, or -1 with
/// "path:line: reason" or "path: reason" in err.
int cd_csv_read(const char *path, cd_csv_table *t, char *err, size_t err_len);
/// Read path (a regular file, or also a pipe when accept says so) into t, within cd_file_load's
/// limits: CD_FILE_MAX_BYTES per file, CD_TEXT_MAX_LINE per line. 0, or -1 with the reason in err.
int cd_csv_load(const char *path, enum cd_file_accept accept, cd_csv_table *t, char *err, size_t err_len);
/// Parse text[0..len) read from path (named in messages) into t. 0, or -1 with "path:line: …".
int cd_csv_parse_text(const char *path, const char *text, size_t len, cd_csv_table *t, char *err, size_t err_len);
/// Free the table's memory (t itself is the caller's).
void cd_csv_table_free(cd_csv_table *t);

/// A CSV read a row at a time (cd_csv_stream_open): the rules and messages of cd_csv_load, in
/// memory bounded by the longest line, whatever the file's size; a bad line is reported before
/// the lines after it are read.
typedef struct cd_csv_stream cd_csv_stream;
/// Open path (a regular file, or also a pipe when accept says so; at most CD_FILE_MAX_BYTES): the
/// stream, or NULL with "path: reason" in err.
cd_csv_stream *cd_csv_stream_open(const char *path, enum cd_file_accept accept, char *err, size_t err_len);
/// The next row into *row (it and its fields valid until the next call): 1, 0 at the end of the
/// file, or -1 with "path:line: reason" or "path: reason" in err.
int cd_csv_stream_next(cd_csv_stream *s, const cd_csv_row **row, char *err, size_t err_len);
/// Close s (NULL is fine).
void cd_csv_stream_close(cd_csv_stream *s);
/// What cd_csv_load refuses in a line before its fields, for a reader of its own that takes no
/// quoted fields (trace import, which splits its rows itself): line lineno, line[0..n) without its
/// end (a CR LF's CR taken off), starting with a UTF-8 byte-order mark (line 1) or holding a CR.
/// 0, or -1 with cd_csv_load's message, "path:line: ...", in err.
int cd_csv_unquoted_line_check(const char *path, size_t lineno, const char *line, size_t n, char *err, size_t err_len);
/// Why cd_csv_parse_double refused a text (0: it did not). The one reading of a number, for CSV
/// fields, config values and command-line options alike, so each says the same of the same text.
typedef enum cd_number_fault {
    CD_NUMBER_OK = 0,
    CD_NUMBER_NOT_A_NUMBER,    ///< no number, or text around it (a CR in a quoted field included)
    CD_NUMBER_NOT_FINITE,      ///< inf, nan, or a number beyond the largest double
    CD_NUMBER_ROUNDS_TO_ZERO,  ///< non-zero, but below half the smallest subnormal: it would read as 0
} cd_number_fault;

/// Parse field as a finite double (subnormals included: they read back exactly): spaces and tabs
/// around the number are ignored, any other byte is text around it (a CR in a quoted field too: a
/// line's CR LF is taken off before its fields). CD_NUMBER_OK with *out set, or why it was
/// refused with *out untouched.
cd_number_fault cd_csv_parse_double(const char *field, double *out);
/// What a message adds after the refused text for fault f: " (it rounds to 0; for zero write 0)"
/// for CD_NUMBER_ROUNDS_TO_ZERO, whose text is a number however "expected a number" reads; ""
/// for the rest, which the message's own "expected ..." covers.
const char *cd_number_fault_note(cd_number_fault f);
/// Parse field as a value kept in float whose magnitude, as that float, is at most limit (a scene
/// or trace coordinate: 1e30 itself rounds to the float 1.00000002e+30, beyond 1e30). 0 with *out
/// set to the double read, or -1 with note set to what a message adds after the refused text: the
/// float where the text alone would read within the limit (" (1.00000002e+30 as a float)"), or
/// cd_number_fault_note's words.
int cd_csv_parse_float_within(const char *field, double limit, double *out, char *note, size_t note_len);

/// Write one field (quoted by libcsv when it holds a delimiter, quote or newline).
void cd_csv_write_field(FILE *f, const char *field, int first);
/// Write one row of n fields and a newline.
void cd_csv_write_row(FILE *f, const char *const *fields, size_t n);
/// Format a double so that it reads back exactly (%.17g).
void cd_csv_format_double(char *buf, size_t len, double v);

#endif
