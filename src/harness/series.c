// SPDX-License-Identifier: MIT
// A kind's notes on its sweeps (cd_run_note_series): kept by the runner for the rest of the run,
// sent back by a point's child process, journalled in progress.part and reloaded by --resume.
#include "cd_core.h"
#include "run_private.h"

#include <stdio.h>
#include <string.h>

// The series of note pos, for r->note_index.
static const char *note_series(const void *ctx, size_t pos) { return ((const cd_run *)ctx)->notes[pos].series; }

void cd_run_note_series(cd_run *r, const char *series, double at, double value)
{
    // Every note is kept: one dropped is a point measured that the series' budget skips (and that
    // the dry run, which foresees the skips, said it would).
    if (r->note_count == r->note_cap) {
        cd_grow((void **)&r->notes, sizeof *r->notes, &r->note_cap, r->note_count + 1);
        r->note_next = cd_realloc(r->note_next, r->note_cap * sizeof *r->note_next);
    }
    size_t k = r->note_count++;
    cd_series_note *n = &r->notes[k];
    memset(n, 0, sizeof *n);  // whole, for the pipe from a point's process
    snprintf(n->series, sizeof n->series, "%s", series);
    n->at = at, n->value = value;
    r->note_next[k] = SIZE_MAX;
    // Chained after the series' last note: cd_run_series_noted walks a series' notes in the order
    // they were made.
    size_t first = cd_text_index_find(&r->note_index, n->series, note_series, r);
    if (first == SIZE_MAX) {
        cd_text_index_add(&r->note_index, n->series, k, note_series, r);
    } else {
        while (r->note_next[first] != SIZE_MAX) first = r->note_next[first];
        r->note_next[first] = k;
    }
}

int cd_run_series_noted(const cd_run *r, const char *series, double below, double *at, double *value)
{
    char key[sizeof r->notes->series];
    snprintf(key, sizeof key, "%s", series);  // as kept
    for (size_t k = cd_text_index_find(&r->note_index, key, note_series, r); k != SIZE_MAX; k = r->note_next[k])
        if (r->notes[k].at < below) {
            *at = r->notes[k].at, *value = r->notes[k].value;
            return 1;
        }
    return 0;
}

void cd_run_free_notes(cd_run *r)
{
    cd_free(r->notes);
    cd_free(r->note_next);
    cd_text_index_free(&r->note_index);
    r->notes = NULL, r->note_next = NULL;
    r->note_count = r->note_cap = 0;
}
