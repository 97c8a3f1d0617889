// SPDX-License-Identifier: MIT
// A plugin whose methods report candidates that name no pair of the scene's objects (tests/cli/
// verify.sh and plugins.sh): cdlab must drop them before its narrow step reads the scene at those
// ids, `cdlab verify` must fail the methods and `cdlab run` refuse their points, never read out of
// bounds. Both report naive's pairs besides:
//   plugin_bad_ids        serial (no candidates_part): (0, 0xFFFFFFF0) in every scene of a cube
//                         or more, far past any array (it crashed verify);
//   plugin_bad_ids_parts  in parts: (0, count) from part 0, one past the end, and (1, 1), a
//                         self pair, from the last part; its serial candidates report the same.
#include "cd_plugin.h"

static void *bi_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)p, (void)threads, (void)s;
    return NULL;
}

static void bi_update(void *self, const cd_scene *s) { (void)self, (void)s; }

static void bi_destroy(void *self) { (void)self; }

// Pairs (i, j), i < j, of the rows i ≡ part (mod parts).
static void rows(const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink)
{
    for (uint32_t i = part; i < s->count; i += parts)
        for (uint32_t j = i + 1; j < s->count; ++j) cd_sink_push(sink, i, j);
}

// Part part's rows, then its bad candidates.
static void bi_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                    cd_broad_stats *st)
{
    (void)self, (void)st;
    rows(s, part, parts, sink);
    if (part == 0 && s->count >= 1) cd_sink_push(sink, 0, s->count);
    if (part == parts - 1 && s->count >= 2) cd_sink_push(sink, 1, 1);
}

static void bi_parts_all(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    for (uint32_t k = 0; k < 4; ++k) bi_part(self, s, k, 4, sink, st);
}

static void bi_huge(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    (void)self, (void)st;
    rows(s, 0, 1, sink);
    if (s->count >= 1) cd_sink_push(sink, 0, 0xFFFFFFF0u);
}

static const cd_broad_method huge = {.name = "plugin_bad_ids",
                                     .description = "test plugin: naive's candidates and (0, 0xFFFFFFF0)",
                                     .create = bi_create,
                                     .update = bi_update,
                                     .candidates = bi_huge,
                                     .destroy = bi_destroy};
static const cd_broad_method parts = {.name = "plugin_bad_ids_parts",
                                      .description = "test plugin: naive's candidates in parts, (0, n) and (1, 1)",
                                      .create = bi_create,
                                      .update = bi_update,
                                      .candidates = bi_parts_all,
                                      .candidates_part = bi_part,
                                      .destroy = bi_destroy};
static const cd_broad_method *const methods[] = {&huge, &parts};

CD_PLUGIN_EXPORT const cd_plugin *cdlab_plugin_v1(void)
{
    static const cd_plugin p = {CD_PLUGIN_VERSION_FIELDS, .name = "bad_ids", .methods = methods, .method_count = 2};
    return &p;
}
