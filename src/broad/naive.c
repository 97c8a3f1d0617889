// SPDX-License-Identifier: MIT
// The reference: every pair is a candidate, as in the seed report's O(n²) loop.
#include "cd_broad.h"

static void *naive_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)p;
    (void)threads;
    (void)s;
    return NULL;
}

static void naive_update(void *self, const cd_scene *s)
{
    (void)self;
    (void)s;
}

static void naive_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    (void)self;
    (void)st;
    for (uint32_t i = 0; i < s->count; ++i)
        for (uint32_t j = i + 1; j < s->count; ++j) cd_sink_push(sink, i, j);
}

static void naive_destroy(void *self) { (void)self; }

const cd_broad_method cd_broad_naive = {
    .name = "naive",
    .description = "O(n^2) reference: every pair goes to the exact test",
    .create = naive_create,
    .update = naive_update,
    .candidates = naive_candidates,
    .shape_stats = NULL,
    .destroy = naive_destroy,
};
