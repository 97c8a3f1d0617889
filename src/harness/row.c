// SPDX-License-Identifier: MIT
// Summary rows by column name: a kind sets each cell under its column's name, statistics as one
// call, and the row is written only when every column of the kind's table has exactly one cell,
// so a cell can neither land in the wrong column nor be forgotten.
#include "cd_core.h"
#include "cd_harness_cli.h"
#include "run_private.h"

#include <stdio.h>
#include <string.h>

cd_row cd_run_summary_begin(cd_run *r)
{
    const cd_kind *k = r->cfg->kind;
    cd_row row = {k->summary_columns, k->summary_column_count, NULL, NULL};
    row.cells = cd_alloc_zero(row.count ? row.count : 1, sizeof *row.cells);
    row.set = cd_alloc_zero(row.count ? row.count : 1, sizeof *row.set);
    return row;
}

// The index of column name, or count when the table has none.
static size_t column_index(const cd_row *row, const char *name)
{
    size_t k = 0;
    while (k < row->count && strcmp(row->columns[k].name, name) != 0) ++k;
    return k;
}

void cd_row_set(cd_row *row, const char *name, cd_cell c)
{
    size_t k = column_index(row, name);
    if (k == row->count || row->set[k]) {
        fprintf(stderr, "cd_row_set: column '%s' %s\n", name, k == row->count ? "is not in the table" : "set twice");
        CD_ASSERT(!"a summary cell names a column of its kind's table once");
    }
    row->cells[k] = c;
    row->set[k] = 1;
}

void cd_row_set_stats(cd_row *row, const char *name, const cd_stats *st)
{
    static const char *const suffix[] = {"median", "p05", "p95", "mad", "cv", "mean", "min", "max"};
    const double value[] = {st->median, st->p05, st->p95, st->mad, st->cv, st->mean, st->min, st->max};
    int found = 0;
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; ++i) {
        char column[128];
        snprintf(column, sizeof column, "%s_%s", name, suffix[i]);
        if (column_index(row, column) == row->count) continue;
        cd_row_set(row, column, st->n ? cd_cell_real(value[i]) : cd_cell_na());
        found = 1;
    }
    if (!found) fprintf(stderr, "cd_row_set_stats: no column %s_median, _p05, ... in the table\n", name);
    CD_ASSERT(found);
}

void cd_row_set_rest_na(cd_row *row)
{
    for (size_t k = 0; k < row->count; ++k)
        if (!row->set[k]) row->cells[k] = cd_cell_na(), row->set[k] = 1;
}

void cd_run_summary_end(cd_run *r, cd_row *row)
{
    for (size_t k = 0; k < row->count; ++k)
        if (!row->set[k]) {
            fprintf(stderr, "cd_run_summary_end: column '%s' was not set\n", row->columns[k].name);
            CD_ASSERT(!"every summary column has a cell");
        }
    cd_run_summary_row(r, row->cells);
    cd_free(row->cells);
    cd_free(row->set);
    *row = (cd_row){0};
}

void cd_run_warn_noisy(cd_run *r, const cd_point *p, const char *what, double cv)
{
    double limit = cd_run_cv_warn(r);
    if (!(cv > limit)) return;
    char label[300];
    cd_point_label(p, label, sizeof label);
    cd_run_warn(r, "point %zu (%s): %s CV %.3f exceeds cv_warn %.3f (noisy machine or too few frames)", p->index,
                label[0] ? label : "no sweep", what, cv, limit);
}
