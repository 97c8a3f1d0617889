// SPDX-License-Identifier: MIT
// The columns of frames.csv and summary.csv. Key columns: the runner writes, after `point`, a
// column for every key of the plan that can vary (every swept key and every parameter of a listed
// method), so a kind cannot leave one out and two points that differ in any key never make rows
// that look alike. A kind that measures what a
// key names (the cubes of a [scene] file, the probes of a search) declares that column itself.
#include "cd_core.h"
#include "cd_csv.h"
#include "config_private.h"
#include "run_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kind_has_column(const cd_kind *k, const char *name)
{
    for (size_t i = 0; i < k->frame_column_count; ++i)
        if (strcmp(k->frame_columns[i].name, name) == 0) return 1;
    for (size_t i = 0; i < k->summary_column_count; ++i)
        if (strcmp(k->summary_columns[i].name, name) == 0) return 1;
    return 0;
}

size_t *cd_run_key_columns(const cd_config *c, size_t *n)
{
    size_t *v = cd_alloc((c->key_count ? c->key_count : 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; i < c->key_count; ++i) {
        const cd_key_spec *s = c->keys[i].spec;
        if (!s->sweep || kind_has_column(c->kind, s->name)) continue;
        for (size_t j = 0; j < *n; ++j)
            if (strcmp(c->keys[v[j]].spec->name, s->name) == 0) {
                fprintf(stderr, "cd_run_key_columns: keys [%s] %s and [%s] %s make one column\n",
                        c->keys[v[j]].spec->section, s->name, s->section, s->name);
                CD_ASSERT(!"key names that can vary are unique within a kind");
            }
        v[(*n)++] = i;
    }
    return v;
}

// A key's cell at the current point: NA for a parameter its method does not read; a parameter
// left at its default shows the default of the method named at the point.
static cd_cell key_cell(const cd_run *r, const cd_point *p, size_t i)
{
    const cd_config_key *k = &r->cfg->keys[i];
    if (cd_point_unread(p, i)) return cd_cell_na();
    const char *text = cd_point_key_text(p, i);
    double num = k->owner && !k->line ? strtod(text, NULL) : k->values[p->pick[i]].num;
    if (k->spec->type == CD_KEY_INT) return cd_cell_int((int64_t)num);
    if (k->spec->type == CD_KEY_REAL) return cd_cell_real(num);
    return cd_cell_text(text);
}

void cd_run_write_key_cells(cd_run *r, FILE *f)
{
    if (!r->key_col) r->key_col = cd_run_key_columns(r->cfg, &r->key_col_count);
    cd_point p = {.cfg = r->cfg, .index = r->point_index, .pick = r->pick};
    char buf[128];
    for (size_t j = 0; j < r->key_col_count; ++j) {
        cd_cell c = key_cell(r, &p, r->key_col[j]);
        cd_cell_format(&c, buf, sizeof buf);
        cd_csv_write_field(f, buf, 0);
    }
}

const char **cd_run_header_fields(const cd_run *r, int frames, size_t *n)
{
    const cd_kind *kind = r->cfg->kind;
    size_t cols = frames ? kind->frame_column_count : kind->summary_column_count, nkeys;
    size_t *keys = cd_run_key_columns(r->cfg, &nkeys);
    const char **f = cd_alloc((cols + nkeys + 2 + r->counters.count) * sizeof *f);
    size_t k = 0;
    f[k++] = cd_runner_columns[0];
    for (size_t i = 0; i < nkeys; ++i) f[k++] = r->cfg->keys[keys[i]].spec->name;
    cd_free(keys);
    for (size_t i = 0; i < cols; ++i) f[k++] = frames ? kind->frame_columns[i].name : kind->summary_columns[i].name;
    if (!frames) f[k++] = cd_runner_columns[1];
    for (size_t i = 0; i < r->counters.count; ++i) f[k++] = r->counters.names[i];
    *n = k;
    return f;
}
