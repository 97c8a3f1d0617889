// SPDX-License-Identifier: MIT
// A plugin whose methods each break one part of the broad-phase contract that `cdlab verify` must
// catch on the path frames really take (tests/cli/verify.sh), and that `cdlab run` must refuse
// rather than crash on. Each borrows naive's callbacks (exported by the cdlab program) but for one:
//   plugin_parts_dups      candidates_part reports every box pair whose cubes do not overlap twice
//                          (from part 0; the other parts nothing); candidates() is naive's, so only
//                          the parts, which every frame of such a method runs, break the contract;
//   plugin_depth           a parameter named like a scene setting (depth) with a narrower range,
//                          0..2, and candidates that drop the first box pair: its reproducer must
//                          hold the depth verify ran it with and show the lost pair;
//   plugin_moves_unfilled  update_coherent returns 1 (a coherent frame) without filling its move list;
//   plugin_moves_range     update_coherent returns 1 with a move list naming slot `count`, past the end;
//   plugin_coherent_extra  update_coherent returns 1 with an empty move list (nothing moved) though the
//                          cubes moved, and candidates() reports every pair anyway: each frame after
//                          the first keeps last frame's pairs and adds them all again (extra pairs
//                          that only frames before it can show);
//   plugin_crash           candidates() aborts on a scene of more than 5 cubes.
#include "cd_plugin.h"

#include <stdlib.h>

extern const cd_broad_method cd_broad_naive;

// ---- plugin_parts_dups

typedef struct doubling {
    cd_pair_sink *out;
    const cd_scene *scene;
} doubling;

static void doubling_flush(cd_pair_sink *sink)
{
    doubling *d = sink->ctx;
    for (uint32_t k = 0; k < sink->count; ++k) {
        uint32_t a = sink->buf[k].a, b = sink->buf[k].b;
        cd_sink_push(d->out, a, b);
        if (!cd_cube_pair_overlap(d->scene, a, b)) cd_sink_push(d->out, a, b);  // the narrow step drops both
    }
    sink->count = 0;
}

static void dups_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *out,
                      cd_broad_stats *st)
{
    (void)parts;
    if (part) return;
    cd_pair buf[64];
    doubling d = {out, s};
    cd_pair_sink sink = {buf, 0, 64, doubling_flush, &d};
    cd_broad_naive.candidates(self, s, &sink, st);
    doubling_flush(&sink);
}

// ---- plugin_depth

typedef struct dropping {
    cd_pair_sink *out;
    int first;
} dropping;

static void dropping_flush(cd_pair_sink *sink)
{
    dropping *d = sink->ctx;
    for (uint32_t k = 0; k < sink->count; ++k) {
        if (d->first) {
            d->first = 0;
            continue;
        }
        cd_sink_push(d->out, sink->buf[k].a, sink->buf[k].b);
    }
    sink->count = 0;
}

static void drop_first(void *self, const cd_scene *s, cd_pair_sink *out, cd_broad_stats *st)
{
    cd_pair buf[64];
    dropping d = {out, 1};
    cd_pair_sink sink = {buf, 0, 64, dropping_flush, &d};
    cd_broad_naive.candidates(self, s, &sink, st);
    dropping_flush(&sink);
}

static const cd_param_spec depth_params[] = {
    {"depth", CD_PARAM_INT, "0", 0, 2, NULL, "a parameter named like the scene's depth, narrower"},
};

// ---- the coherent ones

static int moves_unfilled(void *self, const cd_scene *s, cd_scene_moves *moved)
{
    (void)moved;
    cd_broad_naive.update(self, s);
    return 1;
}

static uint32_t past_end;  // the slot plugin_moves_range names (one frame at a time in the tests)

static int moves_range(void *self, const cd_scene *s, cd_scene_moves *moved)
{
    cd_broad_naive.update(self, s);
    past_end = s->count;
    *moved = (cd_scene_moves){&past_end, 1, NULL};
    return 1;
}

static int moves_none(void *self, const cd_scene *s, cd_scene_moves *moved)
{
    cd_broad_naive.update(self, s);
    *moved = (cd_scene_moves){NULL, 0, NULL};
    return 1;
}

// ---- plugin_crash

static void crash_candidates(void *self, const cd_scene *s, cd_pair_sink *out, cd_broad_stats *st)
{
    if (s->count > 5) abort();
    cd_broad_naive.candidates(self, s, out, st);
}

enum { METHODS = 6 };
static cd_broad_method method[METHODS];
static const cd_broad_method *const methods[METHODS] = {&method[0], &method[1], &method[2],
                                                        &method[3], &method[4], &method[5]};

CD_PLUGIN_EXPORT const cd_plugin *cdlab_plugin_v1(void)
{
    for (int k = 0; k < METHODS; ++k) {
        method[k] = cd_broad_naive;
        method[k].candidates_part = NULL;
    }
    method[0].name = "plugin_parts_dups";
    method[0].description = "test plugin: its parts report apart cubes' box pairs twice";
    method[0].candidates_part = dups_part;
    method[1].name = "plugin_depth";
    method[1].description = "test plugin: depth 0..2, the first box pair dropped";
    method[1].params = depth_params;
    method[1].param_count = 1;
    method[1].candidates = drop_first;
    method[2].name = "plugin_moves_unfilled";
    method[2].description = "test plugin: coherent frames with an unfilled move list";
    method[2].update_coherent = moves_unfilled;
    method[3].name = "plugin_moves_range";
    method[3].description = "test plugin: coherent frames with a slot past the scene's";
    method[3].update_coherent = moves_range;
    method[4].name = "plugin_coherent_extra";
    method[4].description = "test plugin: coherent frames that keep every pair and report them again";
    method[4].update_coherent = moves_none;
    method[5].name = "plugin_crash";
    method[5].description = "test plugin: aborts on more than 5 cubes";
    method[5].candidates = crash_candidates;
    static const cd_plugin p = {CD_PLUGIN_VERSION_FIELDS, .name = "bad_contract", .methods = methods,
                                .method_count = METHODS};
    return &p;
}
