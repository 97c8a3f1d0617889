// SPDX-License-Identifier: MIT
// Every pair a candidate, and no box test anywhere before the narrow step: the protocol of the
// hybrid hierarchy's paper (Zhu et al. 2008), where every pair of objects goes to the hierarchies
// and their top layers reject the pairs far apart. naive reports the same candidates, but the frame
// and the body narrow step test their boxes first; under `all` they do not (cd_broad_method.untested).
//
// Exact by construction: every pair is reported once (a superset of the contract's), and the
// narrow step decides. For the cube scene it is naive: the cube narrow step's predicate begins with
// the box test, which it keeps (the cubes kind refuses the method).
#include "cd_broad.h"

static void *all_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)p;
    (void)threads;
    (void)s;
    return NULL;
}

static void all_update(void *self, const cd_scene *s)
{
    (void)self;
    (void)s;
}

// Rows i ≡ part (mod parts), each with its pairs (i, j > i): interleaved rows even out the parts,
// whose rows get shorter as i grows.
static void all_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                cd_broad_stats *st)
{
    (void)self;
    (void)st;
    for (uint32_t i = part; i < s->count; i += parts)
        for (uint32_t j = i + 1; j < s->count; ++j) cd_sink_push(sink, i, j);
}

static void all_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    all_candidates_part(self, s, 0, 1, sink, st);
}

static void all_destroy(void *self) { (void)self; }

const cd_broad_method cd_broad_all = {
    .name = "all",
    .description = "every pair to the narrow step untested, no box test (bodies: every pair to the hierarchies)",
    .create = all_create,
    .update = all_update,
    .candidates = all_candidates,
    .candidates_part = all_candidates_part,
    .untested = 1,
    .destroy = all_destroy,
};
