// SPDX-License-Identifier: MIT
// An open-addressed index of strings kept elsewhere (cd_text_index in run_private.h): the run's
// warnings, each kept once, and its series notes by series. A run keeps every warning and every
// note (a skipped point warns, a series over budget notes): a new warning compared with every one
// kept, or each point's lookup walking every note, would cost a sweep of 10^6 points (the plan's
// limit) some 10^12 comparisons.
#include "cd_core.h"
#include "run_private.h"

#include <stdint.h>
#include <string.h>

static uint64_t text_hash(const char *s) { return cd_fnv1a(CD_FNV1A_BASIS, s); }

// Put position pos (key s) into the first free slot of its probe sequence; the table has one.
static void place(cd_text_index *x, const char *s, size_t pos)
{
    size_t i = (size_t)cd_hash_slot(text_hash(s), x->mask);
    while (x->slot[i]) i = (i + 1) & x->mask;
    x->slot[i] = pos + 1;
}

size_t cd_text_index_find(const cd_text_index *x, const char *s, cd_text_key key, const void *ctx)
{
    if (!x->slot) return SIZE_MAX;
    // Linear probing, at most half full: the sequence ends at an empty slot.
    for (size_t i = (size_t)cd_hash_slot(text_hash(s), x->mask); x->slot[i]; i = (i + 1) & x->mask)
        if (strcmp(key(ctx, x->slot[i] - 1), s) == 0) return x->slot[i] - 1;
    return SIZE_MAX;
}

void cd_text_index_add(cd_text_index *x, const char *s, size_t pos, cd_text_key key, const void *ctx)
{
    if (2 * (x->count + 1) > (x->slot ? x->mask + 1 : 0)) {  // at most half full: grow, place all again
        size_t old = x->slot ? x->mask + 1 : 0, cap = old ? 2 * old : 16;
        size_t *was = x->slot;
        x->slot = cd_alloc_zero(cap, sizeof *x->slot);
        x->mask = cap - 1;
        for (size_t i = 0; i < old; ++i)
            if (was[i]) place(x, key(ctx, was[i] - 1), was[i] - 1);
        cd_free(was);
    }
    place(x, s, pos);
    x->count++;
}

void cd_text_index_free(cd_text_index *x)
{
    cd_free(x->slot);
    memset(x, 0, sizeof *x);
}
