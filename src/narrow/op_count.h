// SPDX-License-Identifier: MIT
// The counting macro layer of the triangle–triangle tests. Every floating-point operation in
// predicates.c, tri_tri.c, tri_tri_float.c and tri_tri_gd.c is written through these macros. In the
// normal build they are the plain operators; the counting build (tri_tri_counted.c) compiles the
// same sources with CD_COUNT_OPS defined, which renames every exported function to cd_count_* and
// makes each macro bump a tally, so operation counts come from the very code that is timed.
#ifndef OP_COUNT_H
#define OP_COUNT_H

#include "cd_narrow.h"  // the tally, and the counted entry points under their own names

#include <math.h>
#include <stdint.h>

// Plain compare-and-select (one maxsd/minsd); fmax's NaN rules would cost a call. Inputs are finite.
static inline double cd_op_max(double a, double b) { return a > b ? a : b; }
static inline double cd_op_min(double a, double b) { return a < b ? a : b; }

#ifdef CD_COUNT_OPS
// Functions, not comma expressions: nested counted operations then stay well sequenced.
static inline double cd_cnt_add(double a, double b)
{
    cd_op_tally.addsub++;
    return a + b;
}
static inline double cd_cnt_sub(double a, double b)
{
    cd_op_tally.addsub++;
    return a - b;
}
static inline double cd_cnt_mul(double a, double b)
{
    cd_op_tally.mul++;
    return a * b;
}
static inline double cd_cnt_div(double a, double b)
{
    cd_op_tally.div++;
    return a / b;
}
static inline int cd_cnt_lt(double a, double b)
{
    cd_op_tally.cmp++;
    return a < b;
}
static inline int cd_cnt_le(double a, double b)
{
    cd_op_tally.cmp++;
    return a <= b;
}
static inline int cd_cnt_eq(double a, double b)
{
    cd_op_tally.cmp++;
    return a == b;
}
static inline double cd_cnt_abs(double a)
{
    cd_op_tally.abs++;
    return fabs(a);
}
static inline double cd_cnt_max(double a, double b)
{
    cd_op_tally.cmp++;
    return cd_op_max(a, b);
}
static inline double cd_cnt_min(double a, double b)
{
    cd_op_tally.cmp++;
    return cd_op_min(a, b);
}
#define CD_ADD(a, b) cd_cnt_add((a), (b))
#define CD_SUB(a, b) cd_cnt_sub((a), (b))
#define CD_MUL(a, b) cd_cnt_mul((a), (b))
#define CD_DIV(a, b) cd_cnt_div((a), (b))
#define CD_LT(a, b) cd_cnt_lt((a), (b))
#define CD_LE(a, b) cd_cnt_le((a), (b))
#define CD_GT(a, b) cd_cnt_lt((b), (a))
#define CD_GE(a, b) cd_cnt_le((b), (a))
#define CD_EQ(a, b) cd_cnt_eq((a), (b))
#define CD_ABS(a) cd_cnt_abs(a)
#define CD_MAX(a, b) cd_cnt_max((a), (b))
#define CD_MIN(a, b) cd_cnt_min((a), (b))
#define CD_COUNT_EXACT() (cd_op_tally.exact++)
// Same sources, distinct symbols: the counted copies live beside the fast ones in one library.
#define cd_orient3d cd_count_orient3d
#define cd_orient3d_exact cd_count_orient3d_exact
#define cd_orient2d cd_count_orient2d
#define cd_orient2d_exact cd_count_orient2d_exact
#define cd_tri_tri_overlap cd_count_tri_tri_overlap
#define cd_tri_tri_overlap_explain cd_count_tri_tri_overlap_explain
#define cd_tri_tri_overlap_float cd_count_tri_tri_overlap_float
#define cd_tri_tri_overlap_float_explain cd_count_tri_tri_overlap_float_explain
#define cd_tri_tri_overlap_gd cd_count_tri_tri_overlap_gd
#define cd_tri_tri_overlap_gd_explain cd_count_tri_tri_overlap_gd_explain
#define cd_tri_tri_degenerate cd_count_tri_tri_degenerate
#define cd_tri_tri_degenerate_one cd_count_tri_tri_degenerate_one
#define cd_tri_tri_coplanar cd_count_tri_tri_coplanar
#define cd_tri_tri_coplanar_oriented cd_count_tri_tri_coplanar_oriented
#define cd_tri_tri_is_degenerate cd_count_tri_tri_is_degenerate
#else
#define CD_ADD(a, b) ((a) + (b))
#define CD_SUB(a, b) ((a) - (b))
#define CD_MUL(a, b) ((a) * (b))
#define CD_DIV(a, b) ((a) / (b))
#define CD_LT(a, b) ((a) < (b))
#define CD_LE(a, b) ((a) <= (b))
#define CD_GT(a, b) ((a) > (b))
#define CD_GE(a, b) ((a) >= (b))
#define CD_EQ(a, b) ((a) == (b))
#define CD_ABS(a) fabs(a)
#define CD_MAX(a, b) cd_op_max((a), (b))
#define CD_MIN(a, b) cd_op_min((a), (b))
#define CD_COUNT_EXACT() ((void)0)
#endif

#endif
