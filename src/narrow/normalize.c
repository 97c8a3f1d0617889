// SPDX-License-Identifier: MIT
// Power-of-two normalisation of a question's lengths (cd_narrow_normalize).
//
// Claim: after cd_narrow_normalize accepts values x_1..x_n (finite, spread D ≤ 598), every non-zero
// normalised value and every non-zero difference of two of them, rounded or not, has magnitude
// in [2^-300, 2^300], and the answers of the tests equal those for the values as given (exactly so
// for the exact tests).
//
// Proof. Let lo be the smallest exponent of a lowest set bit and hi the largest ilogb over the
// non-zero x_i, D = hi − lo. The shift s is −hi, raised to −300 − lo when lo − hi < −300; the two
// conditions lo + s ≥ −300 and hi + s ≤ 298 then hold whenever D ≤ 598 (with s = −hi the second is
// hi + s = 0; with s = −300 − lo it is hi + s = D − 300 ≤ 298). Every x_i·2^s is a multiple of
// 2^(lo+s) ≥ 2^-300 and below 2^(hi+s+1) ≤ 2^299 in magnitude: its significant bits lie between
// 2^-300 and 2^298, at most 53 of them, so it is a normal double and ldexp computes it exactly.
// A difference of two such values is a multiple of 2^-300, so 0 or at least 2^-300 in magnitude,
// and below 2^300; rounding is monotone and both bounds are doubles, so its rounded value stays
// in the same range. That is the contract of the orientation predicates (predicates.h), of the
// plane filter (tri_tri_plane.h) and of the exact sphere test (predicates.c), so the exact tests
// return the exact signs of the scaled question; those signs are the signs of the given question,
// since every determinant or squared distance they take is a homogeneous polynomial in the
// lengths (2^s scales it by a power of two). The floating-point tests compute, on the scaled
// values, each result of the unscaled computation times the same power of two as long as nothing
// under- or overflows, which the range guarantees with a margin of 2^700 for their products of at
// most three lengths; so they too answer as on the given question, minus its over- and underflows.
//
// The shift depends only on lo and hi, which 2^k moves by k: the values times 2^k normalise to the
// same doubles, so every answer is invariant under such scaling (tests/test_narrow*.c check it
// from 2^-600 to 2^600).
#include "cd_narrow.h"
#include "predicates.h"

#include <limits.h>
#include <math.h>

// lo and hi of the claim above; 0 when every value is 0.
static int exponent_range(double *const x[], size_t n, int *lo, int *hi)
{
    int any = 0;
    *lo = INT_MAX;
    *hi = INT_MIN;
    for (size_t i = 0; i < n; ++i) {
        double v = *x[i];
        CD_ASSERT(isfinite(v));
        if (v == 0.0) continue;
        int l = cd_grid_exp(v), h = ilogb(v);
        *lo = l < *lo ? l : *lo;
        *hi = h > *hi ? h : *hi;
        any = 1;
    }
    return any;
}

int cd_narrow_spread(double *const x[], size_t n)
{
    int lo, hi;
    return exponent_range(x, n, &lo, &hi) ? hi - lo : 0;
}

int cd_narrow_normalize(double *const x[], size_t n)
{
    int lo, hi;
    if (!exponent_range(x, n, &lo, &hi)) return 0;
    if (hi - lo > CD_NARROW_SPREAD) return -1;
    int s = -hi;
    if (lo + s < CD_NARROW_EXP_LO) s = CD_NARROW_EXP_LO - lo;
    for (size_t i = 0; i < n; ++i) *x[i] = ldexp(*x[i], s);
    return 0;
}
