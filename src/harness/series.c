// SPDX-License-Identifier: MIT
// A kind's notes on its sweeps (cd_run_note_series): kept by the runner for the rest of the run,
// sent back by a point's child process, journalled in progress.part and reloaded by --resume.
#include "cd_core.h"
#include "run_private.h"

#include <stdio.h>
#include <string.h>

void cd_run_note_series(cd_run *r, const char *series, double at, double value)
{
    if (!r->notes) r->notes = cd_alloc_zero(CD_RUN_MAX_NOTES, sizeof *r->notes);
    if (r->note_count == CD_RUN_MAX_NOTES) return;
    cd_series_note *n = &r->notes[r->note_count++];
    snprintf(n->series, sizeof n->series, "%s", series);
    n->at = at, n->value = value;
}

int cd_run_series_noted(const cd_run *r, const char *series, double below, double *at, double *value)
{
    for (size_t k = 0; k < r->note_count; ++k)
        if (r->notes[k].at < below && strcmp(r->notes[k].series, series) == 0) {
            *at = r->notes[k].at, *value = r->notes[k].value;
            return 1;
        }
    return 0;
}
