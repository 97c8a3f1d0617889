// SPDX-License-Identifier: MIT
// cdlab narrow phase: exact overlap tests between shapes. Pure functions, no allocation.
// Touching counts as overlap in every test.
#ifndef CD_NARROW_H
#define CD_NARROW_H

#include "cd_shape.h"

#include <stddef.h>
#include <stdint.h>

/// Relative tolerance added to |R| in the OBB–OBB separating-axis test (Gottschalk / Ericson) so
/// that near-parallel edge pairs, whose cross-product axes are near zero, never report a false
/// separation from rounding noise. It makes the test accept boxes whose gap is below about
/// sqrt(CD_SAT_EPSILON)·(sum of half-extents); see tests/test_narrow.c for the measured band.
#define CD_SAT_EPSILON 1e-12

/// OBB–OBB overlap by the separating-axis test on all 15 axes (3 + 3 face normals, 9 edge
/// cross products). Touching counts as overlap.
int cd_obb_obb_overlap(const cd_obb *a, const cd_obb *b);
/// Like cd_obb_obb_overlap; also returns in *axis the index (0..14) of the first separating
/// axis found, or -1 when the boxes overlap: 0..2 faces of a, 3..5 faces of b, 6 + 3·i + j for
/// a_i × b_j.
int cd_obb_obb_overlap_axis(const cd_obb *a, const cd_obb *b, int *axis);
/// Two OBB–OBB tests at once (pair k = (ak, bk) in vector lane k, cd_sat_lanes.h): bit k of the
/// result is set when pair k overlaps. Each lane evaluates cd_obb_obb_overlap's expressions in
/// the same order, so each answer is that test's, bit for bit.
unsigned cd_obb_obb_overlap2(const cd_obb *a0, const cd_obb *b0, const cd_obb *a1, const cd_obb *b1);
#if CD_X86_SIMD
/// cd_obb_obb_overlap2 through cd_sat2_wide (cd_sat_wide.h), the form the mesh traversal's
/// AVX-512 build runs: the same answers. Only where cd_cpu_avx2() holds.
unsigned cd_obb_obb_overlap2_wide(const cd_obb *a0, const cd_obb *b0, const cd_obb *a1, const cd_obb *b1);
#endif
/// Builds of the batched test on pose records: the same answers, bit for bit, on different
/// instruction sets.
typedef enum cd_sat_build {
    CD_SAT_DEFAULT,       ///< the fastest build this process runs (the first below that runs)
    CD_SAT_AVX512_FLOAT,  ///< sixteen pairs per call in AVX-512 float registers (cd_cpu_avx512()): a
                          ///< certified filter whose undecided lanes get the double test
    CD_SAT_AVX512,        ///< eight pairs per SAT in AVX-512 registers (cd_cpu_avx512())
    CD_SAT_AVX2_FLOAT,    ///< eight pairs per call in AVX2 float registers (cd_cpu_avx2()): the same
                          ///< certified filter, its undecided lanes to the double test
    CD_SAT_AVX2,          ///< four pairs per SAT in AVX2 registers (cd_cpu_avx2())
    CD_SAT_BASELINE,      ///< four pairs per SAT as two SSE2 halves (any x86-64)
} cd_sat_build;

/// 1 when this process can run build b (CD_SAT_DEFAULT and CD_SAT_BASELINE always; the AVX-512
/// builds not when CDLAB_NO_AVX512 is set, the AVX2 and AVX-512 ones not when CDLAB_NO_AVX2 is).
int cd_sat_build_runs(cd_sat_build b);
/// The build CD_SAT_DEFAULT stands for in this process.
cd_sat_build cd_sat_build_default(void);
/// Pairs per call that build b tests at once (16, 8 or 4); other counts are padded.
unsigned cd_sat_build_width(cd_sat_build b);
/// OBB–OBB tests of the pose records pa[k] and pb[k], k < n ≤ 16, in build b (which must run
/// here): bit k set when cd_obb_obb_overlap holds for cd_posef_obb(pa[k]) and cd_posef_obb(pb[k]),
/// the scalar test's answer in every lane. *unsure (may be NULL) receives the lanes the float
/// filter left to the double test (0 for the other builds), for tests of its band.
unsigned cd_posef_pairs_overlap(cd_sat_build b, const cd_posef *const pa[], const cd_posef *const pb[], unsigned n,
                                unsigned *unsure);
/// cd_posef_pairs_overlap without the double test: bit k set where the float filter of build b
/// decided that the pair overlaps, *unsure (not NULL) the lanes it left undecided, whose bits are
/// 0. A double build decides every lane (*unsure 0). The caller settles the undecided lanes with
/// cd_sat_build_settling(b), many at a time.
unsigned cd_posef_pairs_filter(cd_sat_build b, const cd_posef *const pa[], const cd_posef *const pb[], unsigned n,
                               unsigned *unsure);
/// The double build that answers as build b without a filter: CD_SAT_AVX512 for
/// CD_SAT_AVX512_FLOAT, CD_SAT_AVX2 for CD_SAT_AVX2_FLOAT, else b itself (CD_SAT_DEFAULT as
/// cd_sat_build_default()).
cd_sat_build cd_sat_build_settling(cd_sat_build b);
/// Sphere–sphere overlap (|c_a − c_b| ≤ r_a + r_b, compared squared).
int cd_sphere_sphere_overlap(const cd_sphere *a, const cd_sphere *b);
/// Sphere–sphere overlap decided exactly: the sign of (r_a + r_b)² − |c_a − c_b|² on floating-point
/// expansions (src/narrow/predicates.c), where cd_sphere_sphere_overlap rounds. Exact whenever
/// every coordinate difference and radius is 0 or of magnitude 2^-300 .. 2^300, which
/// cd_narrow_normalize establishes for any row it accepts.
int cd_sphere_sphere_overlap_exact(const cd_sphere *a, const cd_sphere *b);
/// Sphere–OBB overlap: distance from the sphere centre to the closest box point ≤ r.
int cd_sphere_obb_overlap(const cd_sphere *s, const cd_obb *b);
/// AABB–AABB overlap of closed boxes.
static inline int cd_aabb_aabb_overlap(const cd_aabb *a, const cd_aabb *b)
{
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y && a->lo.z <= b->hi.z &&
           b->lo.z <= a->hi.z;
}

/// Exact triangle–triangle overlap: plane-first test with filtered-exact orientation predicates
/// (src/narrow/tri_tri.c). Contact at a point or along an edge counts; coplanar and degenerate
/// triangles are handled. Exact whenever no product underflows or overflows (coordinate differences
/// 0 or within about 2^-300 .. 2^300), hence invariant under vertex order, swap and 2^k scaling.
int cd_tri_tri_overlap(const cd_triangle *a, const cd_triangle *b);

/// Which test decided a triangle–triangle answer (`cdlab query --explain`, op counts per branch).
typedef enum cd_tri_tri_why {
    CD_TT_PLANE_A,              ///< all of b strictly on one side of a's plane: disjoint
    CD_TT_PLANE_B,              ///< all of a strictly on one side of b's plane: disjoint
    CD_TT_SLICES_DISJOINT,      ///< planes cross; the two slices on their common line are apart
    CD_TT_SLICES_OVERLAP,       ///< planes cross; the two slices on their common line meet
    CD_TT_COPLANAR_SEPARATED,   ///< same plane; an edge line separates the triangles
    CD_TT_COPLANAR_OVERLAP,     ///< same plane; no edge line separates them
    CD_TT_DEGENERATE_DISJOINT,  ///< a zero-area triangle (segment or point) misses the other
    CD_TT_DEGENERATE_OVERLAP,   ///< a zero-area triangle (segment or point) meets the other
    CD_TT_WHY_COUNT
} cd_tri_tri_why;

/// Short name of a cd_tri_tri_why value ("plane_a", "slices_overlap", ...).
const char *cd_tri_tri_why_name(cd_tri_tri_why why);
/// cd_tri_tri_overlap that also reports in *why which test decided.
int cd_tri_tri_overlap_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);
/// The same plane-first algorithm in plain floating point (no filter, divided slice coordinates);
/// the baseline of the throughput experiment, not exact. Zero normals go to the exact routines.
int cd_tri_tri_overlap_float(const cd_triangle *a, const cd_triangle *b);
/// cd_tri_tri_overlap_float that also reports in *why which test decided.
int cd_tri_tri_overlap_float_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);
/// Guigue–Devillers triangle–triangle test on exact orientation signs (src/narrow/tri_tri_gd.c);
/// same contract as cd_tri_tri_overlap.
int cd_tri_tri_overlap_gd(const cd_triangle *a, const cd_triangle *b);
/// cd_tri_tri_overlap_gd that also reports in *why which test decided.
int cd_tri_tri_overlap_gd_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);

// ---------------------------------------------------------------------------------------------
// Exponent range. The tests above see the same geometry, and (with nothing under- or overflowing)
// compute the same bits, when every length of a question (coordinates, radii, half-extents; not a
// quaternion) is multiplied by one power of two. Their contracts hold for lengths and length
// differences of magnitude 2^-300 .. 2^300, so a question from outside (`cdlab query`) is first
// moved into that range by cd_narrow_normalize; a question whose lengths spread over more binary
// exponents than the range holds cannot be, and is refused.

/// Lowest set bit a normalised non-zero length may have: 2^CD_NARROW_EXP_LO.
#define CD_NARROW_EXP_LO (-300)
/// Largest binary exponent (ilogb) a normalised length may have: every one is below 2^299.
#define CD_NARROW_EXP_HI 298
/// The largest spread cd_narrow_normalize accepts: ilogb of the largest |length| minus the
/// exponent of the lowest set bit of any non-zero length.
#define CD_NARROW_SPREAD (CD_NARROW_EXP_HI - CD_NARROW_EXP_LO)

/// The spread of the n finite values *x[i] (CD_NARROW_SPREAD's measure); 0 when all are 0.
int cd_narrow_spread(double *const x[], size_t n);
/// Multiply the n finite values *x[i] by one power of two 2^s, exactly, so that every non-zero one
/// has its lowest set bit at or above 2^CD_NARROW_EXP_LO and its ilogb at most CD_NARROW_EXP_HI;
/// s is −ilogb of the largest when that suffices (the largest lands in [1, 2)). Returns 0, or −1
/// with nothing changed when the spread exceeds CD_NARROW_SPREAD. The same values times any 2^k
/// (all still finite) give the same results, bit for bit.
int cd_narrow_normalize(double *const x[], size_t n);

// ---------------------------------------------------------------------------------------------
// The counting build: the same triangle–triangle sources compiled once more with every
// floating-point operation tallied (tri_tri_counted.c), so operation counts come from the code
// that is timed.

/// Tallies of scalar floating-point operations. fabs and max/min are sign/compare operations and are
/// kept apart from arithmetic so that the arithmetic count can be compared with the seed's model.
typedef struct cd_op_counts {
    uint64_t addsub;  ///< additions and subtractions
    uint64_t mul;     ///< multiplications
    uint64_t div;     ///< divisions
    uint64_t cmp;     ///< floating-point comparisons (including max/min)
    uint64_t abs;     ///< absolute values
    uint64_t exact;   ///< calls of an exact (expansion) predicate after the filter failed
} cd_op_counts;

/// The tally of the counting build. Owned by the benchmark: reset it, call a cd_count_* test, read
/// it. The only global mutable state of the narrow module (single-threaded use).
extern cd_op_counts cd_op_tally;

/// Counted copy of the filtered-exact plane-first test: reset cd_op_tally, call, read it.
int cd_count_tri_tri_overlap(const cd_triangle *a, const cd_triangle *b);
/// Counted plain-float plane-first test.
int cd_count_tri_tri_overlap_float(const cd_triangle *a, const cd_triangle *b);
/// Counted Guigue–Devillers test.
int cd_count_tri_tri_overlap_gd(const cd_triangle *a, const cd_triangle *b);
/// Counted explain variant of the filtered-exact plane-first test.
int cd_count_tri_tri_overlap_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);
/// Counted explain variant of the plain-float plane-first test.
int cd_count_tri_tri_overlap_float_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);
/// Counted explain variant of the Guigue–Devillers test.
int cd_count_tri_tri_overlap_gd_explain(const cd_triangle *a, const cd_triangle *b, cd_tri_tri_why *why);

#endif
