// SPDX-License-Identifier: MIT
// What stays inside the harness: the runner's raw summary row (kinds write rows through cd_row),
// the kind lookup of the config parser and a point's chain.
#ifndef HARNESS_PRIVATE_H
#define HARNESS_PRIVATE_H

#include "cd_harness_cli.h"

/// The kind of set called name, or NULL.
const struct cd_kind *cd_kind_set_find(const cd_kind_set *kinds, const char *name);
/// For kinds: the point's summary.csv row (peak RSS and counter means appended by the runner).
void cd_run_summary_row(cd_run *r, const cd_cell *cells);
/// The chain of point p (cd_kind.chain) as a 64-bit hash of its key (FNV-1a), 0 when p is in no
/// chain: points with the same key must run in one shard, in plan order (shard.c), and the
/// budget's skips are foreseen along them (estimate.c).
uint64_t cd_point_chain(const cd_point *p);

#endif
