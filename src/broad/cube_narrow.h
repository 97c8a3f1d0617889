// SPDX-License-Identifier: MIT
// The cube scene's narrow step, private to broad: a method's candidates arrive in a pair sink, and
// its flush keeps the pairs of cubes that cd_cube_pair_overlap accepts. The frame driver
// (frame.c) owns the sinks and the timing; this file owns the batching and the exact tests.
#ifndef CUBE_NARROW_H
#define CUBE_NARROW_H

#include "cd_broad.h"

/// What a sink's flush needs: where the pairs go and what to count.
typedef struct cube_narrow {
    const cd_scene *scene;
    int boxes_tested;       ///< the method's candidates all have overlapping boxes: no box gate
    cd_pair_list *out;      ///< overlapping pairs of cubes (a < b, cd_scene_ident numbers) are appended
    cd_broad_stats *st;     ///< candidates and narrow_tests are added
    uint64_t narrow_ns;     ///< time spent in the flushes
    cd_sat_build sat;       ///< the batched SAT build (cd_sat_build_default at the instance's creation)
    unsigned width;         ///< its pairs per call (cd_sat_build_width)
    cd_sat_build settle;    ///< the double build that decides the float filter's undecided lanes
                            ///< (cd_sat_build_settling(sat))
    unsigned settle_width;  ///< its pairs per call
} cube_narrow;

/// A pair sink's flush: test the candidates sink->buf[0, count) (ctx is a cube_narrow) and empty it.
void cube_narrow_flush(cd_pair_sink *sink);

#endif
