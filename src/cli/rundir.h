// SPDX-License-Identifier: MIT
// A complete run directory read back for the subcommands that read runs (report, compare): its
// meta.ini as (section, key, value) entries, its summary.csv and frames.csv as tables, and the
// columns sorted into the point's parameters, the times that vary run to run and the
// deterministic rest.
#ifndef RUNDIR_H
#define RUNDIR_H

#include "cd_csv.h"
#include "cd_harness_cli.h"

#include <stddef.h>
#include <stdio.h>

/// One `key = value` of an INI file; continuation lines (indented) are joined with one space.
typedef struct cd_ini_entry {
    char *section, *key, *value;
    size_t line;  ///< 1-based line of the key
} cd_ini_entry;

/// Every entry of an INI file in file order.
typedef struct cd_ini {
    cd_ini_entry *items;
    size_t count, capacity;
} cd_ini;

/// Read path. 0, or -1 with "path: reason" or "path:line: reason" in err. meta.ini's lines may be
/// longer than inih reads, so this reader has no line limit.
int cd_ini_read(const char *path, cd_ini *ini, char *err, size_t err_len);
/// The value of section.key, or NULL.
const char *cd_ini_get(const cd_ini *ini, const char *section, const char *key);
/// Free what ini holds.
void cd_ini_free(cd_ini *ini);

/// What a summary or frames column is.
typedef enum cd_col_role {
    CD_COL_POINT = 0,  ///< the `point` index (differs between runs of different plans)
    CD_COL_PARAM,      ///< a config key's value: the point's identity
    CD_COL_VARYING,    ///< wall-clock or memory: differs from run to run ([columns] in meta.ini)
    CD_COL_EXACT,      ///< deterministic: equal in every run of the same config and seed
} cd_col_role;

/// A run directory as read back.
typedef struct cd_rundir {
    char *dir;
    cd_ini meta;
    cd_csv_table summary, frames;  ///< row 0 is the header
    cd_col_role *summary_role, *frames_role;
    size_t *summary_distinct;  ///< per summary column, its distinct values (cd_rundir_distinct)
} cd_rundir;

/// Read dir: refuses a run that is not complete (cd_run_dir_check), then meta.ini, summary.csv and
/// frames.csv. 0, or -1 with "dir: reason" / "file:line: reason" in err.
int cd_rundir_read(const char *dir, cd_rundir *r, char *err, size_t err_len);
/// Free what r holds.
void cd_rundir_free(cd_rundir *r);
/// Index of column name in a table's header row, or -1.
int cd_table_column(const cd_csv_table *t, const char *name);
/// Field col of row i (1-based data rows; i = 0 is the header); "" when the row is short.
const char *cd_table_field(const cd_csv_table *t, size_t i, int col);
/// meta.ini's section.key, or def when absent.
const char *cd_rundir_meta(const cd_rundir *r, const char *section, const char *key, const char *def);
/// Number of distinct values of summary column col over the data rows.
size_t cd_rundir_distinct(const cd_rundir *r, int col);

/// The config of the run in dir (checked with cd_run_dir_check first), as the run used it: its
/// config.ini, a byte copy, read as the config it copies (meta.ini [config] dir and path), so that
/// relative paths name the files the run read; each file it names must have the SHA-256 meta.ini
/// [inputs] records. 0, or -1 with err set (c is then empty).
int cd_rundir_config(const cd_kind_set *kinds, const char *dir, cd_config *c, char *err, size_t len);
/// The results root the run directory dir lies in (the <output> of <output>/<experiment>/<run-id>,
/// found from dir's real path, so `latest`, a trailing '/' and "." name the same run): where the
/// run put its cache/ of simulated traces. 0, or -1 with err set (dir cannot be resolved).
int cd_rundir_results_root(const char *dir, char *out, size_t len, char *err, size_t err_len);

/// Write s as cd_xml_text makes it, with <, >, &, " and ' escaped as entities: text or an
/// attribute value of a well-formed UTF-8 page, whatever bytes s holds.
void cd_html_escape(FILE *f, const char *s);
/// s as text a well-formed UTF-8 XML document may hold, markup left as it is (an inlined SVG), in
/// a new string (cd_free): each character XML 1.0 does not allow — a control character other
/// than tab and line feed, U+FFFE or U+FFFF — and each byte that is not part of well-formed UTF-8
/// (a stray continuation byte, a cut, overlong or surrogate sequence, one above U+10FFFF) becomes
/// U+FFFD, the replacement character; everything else is copied.
char *cd_xml_text(const char *s);

#endif
