// SPDX-License-Identifier: MIT
// The counting build: the triangle–triangle sources compiled once more with CD_COUNT_OPS, so every
// operation macro of op_count.h tallies into cd_op_tally and every exported name becomes
// cd_count_*. Including the .c files keeps it one source of truth without a second library.
#define CD_COUNT_OPS 1
#include "predicates.c"
#include "tri_tri.c"
#include "tri_tri_cases.c"
#include "tri_tri_float.c"
#include "tri_tri_gd.c"
