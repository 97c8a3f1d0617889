// SPDX-License-Identifier: MIT
// narrow: OBB–OBB SAT against independent oracles, sphere tests, known answers.
//
// Oracles for OBB–OBB (none of them uses separating axes):
//  - exact geometry written here: two boxes meet iff an edge of one meets the other solid box
//    (segment clipping); when they do not, their distance is the least vertex–box or edge–edge
//    distance. When they do, a point of one box lying depth d inside the other proves that the
//    penetration depth is at least d (moving by less than d cannot take that point out).
//  - libccd's GJK (Debian libccd-dev, a test-only dependency) with a box support function.
//  - for pairs built near contact, the construction itself: the signed gap is known exactly.
//
// Tolerance band. CD_SAT_EPSILON inflates every projected radius, so the SAT may call a pair with
// a small positive gap "overlapping", never the reverse (beyond rounding). For a face-separated
// pair the inflation is CD_SAT_EPSILON·(half-extents); for an edge pair at angle θ it is that over
// sin θ, and a face axis takes over once the gap exceeds about (edge length)·sin θ, so no pair
// with a gap above sqrt(CD_SAT_EPSILON)·S is misjudged, S being the sum of the six half-extents.
// That is the general band. Pairs built as face–face, vertex–face or edge–edge at an angle of at
// least 0.3 rad use the tight band 2e-11·S. Outside its band a pair must be judged exactly
// (0 disagreements asserted); inside, either answer is accepted and counted.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ccd/ccd.h>
#include <float.h>
#include <stdio.h>

#include "cd_narrow.h"
#include "test_util.h"

#define TIGHT_BAND 2e-11
#define GENERAL_BAND sqrt(CD_SAT_EPSILON)

enum { RANDOM_PAIRS = 100000, THIN_PAIRS = 20000, BUILT_PER_CELL = 2500, PARALLEL_PER_CELL = 400 };

static const double pi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------
// Independent exact geometry.

static double half_of(const cd_obb *b, int i) { return cd_v3_get(b->half, i); }

static cd_vec3 to_local(const cd_obb *b, cd_vec3 p) { return cd_m3_tmul_v(b->axes, cd_v3_sub(p, b->c)); }

/// Sum of the six half-extents: the length scale of a pair.
static double pair_scale(const cd_obb *a, const cd_obb *b)
{
    return a->half.x + a->half.y + a->half.z + b->half.x + b->half.y + b->half.z;
}

/// Clip p + s·(q − p), s ∈ [0, 1], to the closed box b; the surviving interval is [*s0, *s1].
static int clip_segment(const cd_obb *b, cd_vec3 p, cd_vec3 q, double *s0, double *s1)
{
    cd_vec3 lp = to_local(b, p), lq = to_local(b, q);
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 3; ++i) {
        double a = cd_v3_get(lp, i), d = cd_v3_get(lq, i) - a, h = half_of(b, i);
        if (d == 0.0) {
            if (fabs(a) > h) return 0;
            continue;
        }
        double t0 = (-h - a) / d, t1 = (h - a) / d;
        lo = fmax(lo, fmin(t0, t1));
        hi = fmin(hi, fmax(t0, t1));
        if (lo > hi) return 0;
    }
    *s0 = lo;
    *s1 = hi;
    return 1;
}

/// How deep p lies inside b (negative when outside along some axis).
static double point_depth(const cd_obb *b, cd_vec3 p)
{
    cd_vec3 l = to_local(b, p);
    double d = INFINITY;
    for (int i = 0; i < 3; ++i) d = fmin(d, half_of(b, i) - fabs(cd_v3_get(l, i)));
    return d;
}

/// Distance from p to the solid box b.
static double point_box_distance(const cd_obb *b, cd_vec3 p)
{
    cd_vec3 l = to_local(b, p);
    double s = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = fmax(fabs(cd_v3_get(l, i)) - half_of(b, i), 0.0);
        s += e * e;
    }
    return sqrt(s);
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

/// Distance between segments p1q1 and p2q2 (Ericson, RTCD §5.1.9, with the parallel case).
static double segment_distance(cd_vec3 p1, cd_vec3 q1, cd_vec3 p2, cd_vec3 q2)
{
    cd_vec3 d1 = cd_v3_sub(q1, p1), d2 = cd_v3_sub(q2, p2), r = cd_v3_sub(p1, p2);
    double a = cd_v3_dot(d1, d1), e = cd_v3_dot(d2, d2), f = cd_v3_dot(d2, r);
    double s, t;
    if (a == 0.0 && e == 0.0) {
        s = t = 0.0;
    } else if (a == 0.0) {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = cd_v3_dot(d1, r);
        if (e == 0.0) {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            double b = cd_v3_dot(d1, d2), denom = a * e - b * b;
            s = denom > 0.0 ? clamp01((b * f - c * e) / denom) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / a);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((b - c) / a);
            }
        }
    }
    cd_vec3 c1 = cd_v3_add(p1, cd_v3_scale(d1, s)), c2 = cd_v3_add(p2, cd_v3_scale(d2, t));
    return cd_v3_len(cd_v3_sub(c1, c2));
}

/// The 12 edges of b as corner index pairs into cd_obb_corners' order.
static void box_edges(int edge[12][2])
{
    int n = 0;
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 8; ++k)
            if (!(k >> j & 1)) edge[n][0] = k, edge[n][1] = k | 1 << j, ++n;
}

/// What the exact geometry says about a pair: overlap, and a certified lower bound on the
/// magnitude of the signed gap (the distance when apart, a penetration depth bound when not).
typedef struct exact_relation {
    int overlap;
    double gap_bound;
} exact_relation;

static exact_relation exact_obb_obb(const cd_obb *a, const cd_obb *b)
{
    int edge[12][2];
    box_edges(edge);
    const cd_obb *box[2] = {a, b};
    cd_vec3 corner[2][8];
    cd_obb_corners(a, corner[0]);
    cd_obb_corners(b, corner[1]);
    int hit = 0;
    double depth = 0.0;
    for (int side = 0; side < 2; ++side) {
        const cd_obb *other = box[1 - side];
        for (int e = 0; e < 12; ++e) {
            cd_vec3 p = corner[side][edge[e][0]], q = corner[side][edge[e][1]];
            double s0, s1;
            if (!clip_segment(other, p, q, &s0, &s1)) continue;
            hit = 1;
            // The middle of the clipped piece is a point of this box inside the other one.
            cd_vec3 m = cd_v3_add(p, cd_v3_scale(cd_v3_sub(q, p), 0.5 * (s0 + s1)));
            depth = fmax(depth, point_depth(other, m));
        }
        for (int k = 0; k < 8; ++k) depth = fmax(depth, point_depth(other, corner[side][k]));
    }
    if (hit) return (exact_relation){1, depth};
    double d = INFINITY;
    for (int side = 0; side < 2; ++side)
        for (int k = 0; k < 8; ++k) d = fmin(d, point_box_distance(box[1 - side], corner[side][k]));
    for (int e = 0; e < 12; ++e)
        for (int f = 0; f < 12; ++f)
            d = fmin(d, segment_distance(corner[0][edge[e][0]], corner[0][edge[e][1]], corner[1][edge[f][0]],
                                         corner[1][edge[f][1]]));
    return (exact_relation){0, d};
}

// ---------------------------------------------------------------------------------------------
// libccd oracle: GJK with support functions.

static void ccd_box_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const cd_obb *b = obj;
    cd_vec3 d = cd_v3(dir->v[0], dir->v[1], dir->v[2]), p = b->c;
    for (int j = 0; j < 3; ++j) {
        double h = half_of(b, j);
        p = cd_v3_add(p, cd_v3_scale(b->axes.col[j], cd_v3_dot(d, b->axes.col[j]) >= 0.0 ? h : -h));
    }
    ccdVec3Set(out, p.x, p.y, p.z);
}

static void ccd_sphere_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const cd_sphere *s = obj;
    cd_vec3 d = cd_v3(dir->v[0], dir->v[1], dir->v[2]);
    double len = cd_v3_len(d);
    cd_vec3 p = len > 0.0 ? cd_v3_add(s->c, cd_v3_scale(d, s->r / len)) : s->c;
    ccdVec3Set(out, p.x, p.y, p.z);
}

static int ccd_overlap(const void *a, ccd_support_fn sa, const void *b, ccd_support_fn sb)
{
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = sa;
    ccd.support2 = sb;
    ccd.max_iterations = 1000;
    return ccdGJKIntersect(a, b, &ccd);
}

static int ccd_obb_obb(const cd_obb *a, const cd_obb *b) { return ccd_overlap(a, ccd_box_support, b, ccd_box_support); }

// ---------------------------------------------------------------------------------------------
// Shared checks.

/// Unnormalised axis number k of cd_obb_obb_overlap_axis.
static cd_vec3 sat_axis(const cd_obb *a, const cd_obb *b, int k)
{
    if (k < 3) return a->axes.col[k];
    if (k < 6) return b->axes.col[k - 3];
    return cd_v3_cross(a->axes.col[(k - 6) / 3], b->axes.col[(k - 6) % 3]);
}

/// Gap between the corner projections of a and b on L (negative when they overlap).
static double projection_gap(const cd_obb *a, const cd_obb *b, cd_vec3 L)
{
    cd_vec3 ca[8], cb[8];
    cd_obb_corners(a, ca);
    cd_obb_corners(b, cb);
    double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        double x = cd_v3_dot(ca[k], L), y = cd_v3_dot(cb[k], L);
        amin = fmin(amin, x), amax = fmax(amax, x), bmin = fmin(bmin, y), bmax = fmax(bmax, y);
    }
    return fmax(bmin - amax, amin - bmax);
}

/// Asserts the properties every SAT answer must have, whatever the oracle: symmetry outside the
/// band, a reported axis that really separates, and the AABB cull the broad phases rely on.
static void check_sat_properties(const cd_obb *a, const cd_obb *b, int sat, int sat_rev, int outside_band)
{
    if (outside_band) assert_int_equal(sat, sat_rev);
    int axis;
    assert_int_equal(cd_obb_obb_overlap_axis(a, b, &axis), sat);
    if (sat) {
        assert_int_equal(axis, -1);
        cd_aabb ba = cd_obb_aabb(a), bb = cd_obb_aabb(b);
        assert_true(cd_aabb_aabb_overlap(&ba, &bb));
    } else {
        assert_true(axis >= 0 && axis < 15);
        cd_vec3 L = sat_axis(a, b, axis);
        // The projections on the reported axis are disjoint up to rounding of the corners.
        assert_true(projection_gap(a, b, L) >= -1e-13 * pair_scale(a, b) * cd_v3_len(L));
    }
    if (sat_rev) {
        cd_aabb ba = cd_obb_aabb(a), bb = cd_obb_aabb(b);
        assert_true(cd_aabb_aabb_overlap(&bb, &ba));
    }
}

/// Agreement counts of one answer against the truth, split by the band.
typedef struct tally {
    long pairs, agree, wrong_outside, in_band, in_band_wrong;
} tally;

static void tally_add(tally *t, int answer, int truth, int outside_band)
{
    t->pairs++;
    t->agree += answer == truth;
    if (outside_band) {
        t->wrong_outside += answer != truth;
    } else {
        t->in_band++;
        t->in_band_wrong += answer != truth;
    }
}

static void tally_print(const char *who, const char *what, const tally *t)
{
    printf("# %-8s %-34s pairs %6ld  agree %6ld  wrong outside band %ld  in band %ld (%ld differ)\n", who, what,
           t->pairs, t->agree, t->wrong_outside, t->in_band, t->in_band_wrong);
}

// ---------------------------------------------------------------------------------------------
// Random pairs.

static cd_obb random_box(cd_rng *r, double spread, double hmin, double hmax)
{
    cd_vec3 c =
        cd_v3(cd_rng_range(r, -spread, spread), cd_rng_range(r, -spread, spread), cd_rng_range(r, -spread, spread));
    cd_vec3 h = cd_v3(cd_rng_range(r, hmin, hmax), cd_rng_range(r, hmin, hmax), cd_rng_range(r, hmin, hmax));
    return cd_obb_from_pose(c, cd_rng_rotation(r), h);
}

/// Compares the SAT, the exact geometry and libccd on one pair; the exact geometry is the truth.
static void judge_pair(const cd_obb *a, const cd_obb *b, tally *sat_t, tally *ccd_t)
{
    exact_relation truth = exact_obb_obb(a, b);
    int outside = truth.gap_bound > GENERAL_BAND * pair_scale(a, b);
    int sat = cd_obb_obb_overlap(a, b), sat_rev = cd_obb_obb_overlap(b, a);
    tally_add(sat_t, sat, truth.overlap, outside);
    tally_add(ccd_t, ccd_obb_obb(a, b) != 0, truth.overlap, outside);
    check_sat_properties(a, b, sat, sat_rev, outside);
}

static void obb_obb_random_vs_oracles(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(1, CD_STREAM_TEST + 11);
    tally sat_t = {0}, ccd_t = {0};
    long overlapping = 0;
    for (int n = 0; n < RANDOM_PAIRS; ++n) {
        // Centres within ±2 of each other and half-extents 0.05..1: about half the pairs overlap.
        cd_obb a = random_box(&r, 1.0, 0.05, 1.0), b = random_box(&r, 1.0, 0.05, 1.0);
        judge_pair(&a, &b, &sat_t, &ccd_t);
        overlapping += cd_obb_obb_overlap(&a, &b);
    }
    printf("# random OBB pairs: %d, overlapping %ld; general band |gap| <= sqrt(CD_SAT_EPSILON)*S\n", RANDOM_PAIRS,
           overlapping);
    tally_print("SAT", "vs exact geometry (random)", &sat_t);
    tally_print("libccd", "vs exact geometry (random)", &ccd_t);
    assert_int_equal(sat_t.pairs, RANDOM_PAIRS);
    assert_int_equal(sat_t.wrong_outside, 0);
    assert_int_equal(ccd_t.wrong_outside, 0);
    // Both outcomes are well represented, so the agreement is not a trivial one.
    assert_true(overlapping > RANDOM_PAIRS / 4 && overlapping < 3 * RANDOM_PAIRS / 4);
}

static void obb_obb_thin_random_vs_oracles(void **state)
{
    (void)state;
    // Plates (one half-extent 0 or 1e-9) and needles (two) against ordinary and thin boxes.
    cd_rng r = cd_rng_make(2, CD_STREAM_TEST + 12);
    tally sat_t = {0}, ccd_t = {0};
    for (int n = 0; n < THIN_PAIRS; ++n) {
        cd_obb a = random_box(&r, 0.6, 0.05, 1.0), b = random_box(&r, 0.6, 0.05, 1.0);
        int flat = 1 + (int)cd_rng_below(&r, 2);
        for (int k = 0; k < flat; ++k) {
            double *h = &a.half.x + cd_rng_below(&r, 3);
            *h = (cd_rng_next(&r) & 1) ? 0.0 : 1e-9;
        }
        if (cd_rng_next(&r) & 1) {
            double *h = &b.half.x + cd_rng_below(&r, 3);
            *h = (cd_rng_next(&r) & 1) ? 0.0 : 1e-9;
        }
        judge_pair(&a, &b, &sat_t, &ccd_t);
    }
    tally_print("SAT", "vs exact geometry (thin boxes)", &sat_t);
    tally_print("libccd", "vs exact geometry (thin boxes)", &ccd_t);
    assert_int_equal(sat_t.wrong_outside, 0);
}

// ---------------------------------------------------------------------------------------------
// Pairs built near contact, with the signed gap known by construction.

typedef enum contact_kind { FACE_FACE, VERTEX_FACE, EDGE_EDGE, EDGE_EDGE_PARALLEL, CONTACT_KINDS } contact_kind;

static const char *const kind_name[CONTACT_KINDS] = {"face-face", "vertex-face", "edge-edge",
                                                     "edge-edge near-parallel"};

/// A built pair: boxes a and b whose signed gap is gap (negative: penetration), and a certified
/// lower bound on |signed gap| (for penetrating edge pairs the depth is only bounded below).
typedef struct built_pair {
    cd_obb a, b;
    double gap, gap_bound;
} built_pair;

/// Random offset within the middle half of a's face (or edge) across axes other than skip.
static cd_vec3 face_offset(cd_rng *r, const cd_obb *a, int skip1, int skip2)
{
    cd_vec3 u = cd_v3(0, 0, 0);
    for (int k = 0; k < 3; ++k)
        if (k != skip1 && k != skip2)
            u = cd_v3_add(u, cd_v3_scale(a->axes.col[k], cd_rng_range(r, -0.5, 0.5) * half_of(a, k)));
    return u;
}

static cd_vec3 random_halves(cd_rng *r, double s)
{
    return cd_v3(s * cd_rng_range(r, 0.25, 1.0), s * cd_rng_range(r, 0.25, 1.0), s * cd_rng_range(r, 0.25, 1.0));
}

/// b rests on face ±i of a (b's axes are a's turned about the face normal), gap g apart. A point of
/// b's face lies |g| deep in a, away from a's other faces, so the depth is exactly |g| too.
static void build_face_face(cd_rng *r, cd_obb *a, cd_obb *b, double g, double s)
{
    int i = (int)cd_rng_below(r, 3);
    cd_vec3 n = cd_v3_scale(a->axes.col[i], (cd_rng_next(r) & 1) ? 1.0 : -1.0);
    cd_mat3 turn = cd_q_to_m3(cd_q_from_rotvec(cd_v3_scale(n, cd_rng_range(r, 0, 2 * pi))));
    b->axes = cd_m3_mul(turn, a->axes);
    b->half = random_halves(r, s);
    double up = half_of(a, i) + half_of(b, i) + g;
    b->c = cd_v3_add(cd_v3_add(a->c, cd_v3_scale(n, up)), face_offset(r, a, i, i));
}

/// b's lowest corner (along the normal of a's face ±i) sits g above the middle half of that face.
static void build_vertex_face(cd_rng *r, cd_obb *a, cd_obb *b, double g, double s)
{
    int i = (int)cd_rng_below(r, 3);
    cd_vec3 n = cd_v3_scale(a->axes.col[i], (cd_rng_next(r) & 1) ? 1.0 : -1.0);
    b->axes = cd_q_to_m3(cd_rng_rotation(r));
    b->half = random_halves(r, s);
    cd_vec3 lowest = cd_v3(0, 0, 0);
    for (int k = 0; k < 3; ++k) {
        double sign = cd_v3_dot(b->axes.col[k], n) > 0.0 ? -1.0 : 1.0;
        lowest = cd_v3_add(lowest, cd_v3_scale(b->axes.col[k], sign * half_of(b, k)));
    }
    cd_vec3 tip = cd_v3_add(cd_v3_add(a->c, cd_v3_scale(n, half_of(a, i) + g)), face_offset(r, a, i, i));
    b->c = cd_v3_sub(tip, lowest);
}

/// An edge of b crosses an edge of a at angle theta, g apart along their common normal n, which
/// lies strictly inside both edges' normal cones (angles beta, gamma in [0.2, pi/2 − 0.2]); the
/// crossing point is in the middle half of both edges. Returns min(cos beta, sin beta): a
/// penetrating pair's depth is at least |g| times that (b's edge point is that deep inside a).
static double build_edge_edge(cd_rng *r, cd_obb *a, cd_obb *b, double g, double s, double theta)
{
    int i = (int)cd_rng_below(r, 3), i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    double s1 = (cd_rng_next(r) & 1) ? 1.0 : -1.0, s2 = (cd_rng_next(r) & 1) ? 1.0 : -1.0;
    double beta = cd_rng_range(r, 0.2, pi / 2 - 0.2), gamma = cd_rng_range(r, 0.2, pi / 2 - 0.2);
    cd_vec3 ai = a->axes.col[i];
    cd_vec3 n = cd_v3_add(cd_v3_scale(a->axes.col[i1], s1 * cos(beta)), cd_v3_scale(a->axes.col[i2], s2 * sin(beta)));
    cd_vec3 p = cd_v3_add(cd_v3_add(a->c, cd_v3_scale(a->axes.col[i1], s1 * half_of(a, i1))),
                          cd_v3_scale(a->axes.col[i2], s2 * half_of(a, i2)));
    p = cd_v3_add(p, face_offset(r, a, i1, i2));
    cd_vec3 d = cd_v3_add(cd_v3_scale(ai, cos(theta)), cd_v3_scale(cd_v3_cross(n, ai), sin(theta)));
    cd_vec3 w = cd_v3_cross(n, d);
    int j = (int)cd_rng_below(r, 3), j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    // Right-handed: d × b_j1 = b_j2, and −n = cos(gamma)·b_j1 + sin(gamma)·b_j2.
    b->axes.col[j] = d;
    b->axes.col[j1] = cd_v3_sub(cd_v3_scale(n, -cos(gamma)), cd_v3_scale(w, sin(gamma)));
    b->axes.col[j2] = cd_v3_add(cd_v3_scale(n, -sin(gamma)), cd_v3_scale(w, cos(gamma)));
    b->half = random_halves(r, s);
    cd_vec3 q = cd_v3_add(p, cd_v3_scale(n, g));
    cd_vec3 to_centre =
        cd_v3_add(cd_v3_scale(b->axes.col[j1], half_of(b, j1)), cd_v3_scale(b->axes.col[j2], half_of(b, j2)));
    to_centre = cd_v3_add(to_centre, cd_v3_scale(d, cd_rng_range(r, -0.5, 0.5) * half_of(b, j)));
    b->c = cd_v3_sub(q, to_centre);
    return fmin(cos(beta), sin(beta));
}

static built_pair build_pair(cd_rng *r, contact_kind kind, double rel_gap, double theta)
{
    double s = pow(10.0, cd_rng_range(r, -2, 2));
    built_pair p;
    p.a = cd_obb_from_pose(cd_v3(cd_rng_range(r, -s, s), cd_rng_range(r, -s, s), cd_rng_range(r, -s, s)),
                           cd_rng_rotation(r), random_halves(r, s));
    p.gap = rel_gap * s;
    double cone = 1.0;
    switch (kind) {
    case FACE_FACE: build_face_face(r, &p.a, &p.b, p.gap, s); break;
    case VERTEX_FACE: build_vertex_face(r, &p.a, &p.b, p.gap, s); break;
    case EDGE_EDGE: cone = build_edge_edge(r, &p.a, &p.b, p.gap, s, cd_rng_range(r, 0.3, pi / 2)); break;
    default: cone = build_edge_edge(r, &p.a, &p.b, p.gap, s, theta); break;
    }
    p.gap_bound = p.gap > 0.0 ? p.gap : -p.gap * cone;
    if (cd_rng_next(r) & 1) {
        cd_obb t = p.a;
        p.a = p.b;
        p.b = t;
    }
    return p;
}

static const double rel_gaps[6] = {1e-3, -1e-3, 1e-6, -1e-6, 1e-9, -1e-9};
static const double thetas[6] = {0.0, 1e-9, 1e-7, 1e-5, 1e-3, 1e-2};

static void obb_obb_built_near_contact(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(3, CD_STREAM_TEST + 13);
    tally total = {0};
    long ccd_agree = 0, exact_agree = 0, exact_wrong_outside = 0;
    for (int kind = 0; kind < CONTACT_KINDS; ++kind) {
        int nth = kind == EDGE_EDGE_PARALLEL ? 6 : 1;
        int per = kind == EDGE_EDGE_PARALLEL ? PARALLEL_PER_CELL : BUILT_PER_CELL;
        double band_rel = kind == EDGE_EDGE_PARALLEL ? GENERAL_BAND : TIGHT_BAND;
        for (int g = 0; g < 6; ++g) {
            tally t = {0};
            long cell_ccd = 0;
            for (int th = 0; th < nth; ++th)
                for (int n = 0; n < per; ++n) {
                    built_pair p = build_pair(&r, (contact_kind)kind, rel_gaps[g], thetas[th]);
                    int truth = p.gap < 0.0;
                    int outside = p.gap_bound > band_rel * pair_scale(&p.a, &p.b);
                    int sat = cd_obb_obb_overlap(&p.a, &p.b), sat_rev = cd_obb_obb_overlap(&p.b, &p.a);
                    tally_add(&t, sat, truth, outside);
                    tally_add(&total, sat, truth, outside);
                    check_sat_properties(&p.a, &p.b, sat, sat_rev, outside);
                    // The oracles are checked against the construction too (reported, and the
                    // exact geometry must be right wherever the general band cannot excuse it).
                    int ccd = ccd_obb_obb(&p.a, &p.b) != 0;
                    cell_ccd += ccd == truth;
                    exact_relation ex = exact_obb_obb(&p.a, &p.b);
                    exact_agree += ex.overlap == truth;
                    if (p.gap_bound > 1e-12 * pair_scale(&p.a, &p.b)) exact_wrong_outside += ex.overlap != truth;
                }
            ccd_agree += cell_ccd;
            char what[64];
            snprintf(what, sizeof what, "%s gap %+.0e*s", kind_name[kind], rel_gaps[g]);
            tally_print("SAT", what, &t);
            printf("#          (libccd GJK agrees with the construction on %ld of %ld)\n", cell_ccd, t.pairs);
            assert_int_equal(t.wrong_outside, 0);
        }
    }
    printf("# built near contact: %ld pairs, SAT agrees %ld, wrong outside band %ld, in band %ld (%ld differ); "
           "exact geometry agrees %ld, libccd agrees %ld\n",
           total.pairs, total.agree, total.wrong_outside, total.in_band, total.in_band_wrong, exact_agree, ccd_agree);
    printf("# bands: tight 2e-11*S (face-face, vertex-face, edge-edge >= 0.3 rad), general sqrt(CD_SAT_EPSILON)*S "
           "(near-parallel edges, random pairs); S = sum of the six half-extents\n");
    assert_int_equal(total.wrong_outside, 0);
    assert_int_equal(exact_wrong_outside, 0);
}

static void obb_obb_band_measured(void **state)
{
    (void)state;
    // Sweep positive gaps through the bands and record the largest gap (over S) that the SAT
    // still calls overlap: this is the measured band, and it must lie inside the stated one.
    cd_rng r = cd_rng_make(8, CD_STREAM_TEST + 18);
    double worst[CONTACT_KINDS] = {0};
    long accepted[CONTACT_KINDS] = {0}, tried[CONTACT_KINDS] = {0};
    for (int kind = 0; kind < CONTACT_KINDS; ++kind)
        for (int n = 0; n < 10000; ++n) {
            int parallel = kind == EDGE_EDGE_PARALLEL;
            double rel = pow(10.0, parallel ? cd_rng_range(&r, -10, -5) : cd_rng_range(&r, -14, -9));
            double theta = (n % 10 == 0) ? 0.0 : pow(10.0, cd_rng_range(&r, -10, -1));
            built_pair p = build_pair(&r, (contact_kind)kind, rel, theta);
            tried[kind]++;
            if (!cd_obb_obb_overlap(&p.a, &p.b)) continue;
            accepted[kind]++;
            worst[kind] = fmax(worst[kind], p.gap / pair_scale(&p.a, &p.b));
        }
    for (int kind = 0; kind < CONTACT_KINDS; ++kind)
        printf("# measured band %-24s: %ld of %ld separated pairs called overlap, largest gap %.3g*S\n",
               kind_name[kind], accepted[kind], tried[kind], worst[kind]);
    for (int kind = 0; kind < EDGE_EDGE_PARALLEL; ++kind) assert_true(worst[kind] <= TIGHT_BAND);
    assert_true(worst[EDGE_EDGE_PARALLEL] <= GENERAL_BAND);
    // The sweep reaches into the band: some pairs are accepted, else it measured nothing.
    for (int kind = 0; kind < CONTACT_KINDS; ++kind) assert_true(accepted[kind] > 0);
}

// ---------------------------------------------------------------------------------------------
// Known answers.

static cd_obb axis_box(double cx, double cy, double cz, double hx, double hy, double hz)
{
    return (cd_obb){cd_v3(cx, cy, cz), cd_m3_identity(), cd_v3(hx, hy, hz)};
}

/// Overlap answer of the SAT, asserted to be the same in both argument orders.
static int sat_both(const cd_obb *a, const cd_obb *b)
{
    int ab = cd_obb_obb_overlap(a, b), ba = cd_obb_obb_overlap(b, a);
    assert_int_equal(ab, ba);
    return ab;
}

// cd_obb_obb_overlap2 (and cd_obb_obb_overlap2_wide where it runs) answers each lane exactly as
// cd_obb_obb_overlap does: random pairs (half overlapping) and pairs built at ±1e-3..1e-9 of
// contact, with every lane combination.
static void obb_obb_two_lanes_equal_scalar(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(77, CD_STREAM_TEST);
    uint64_t pairs = 0, overlapping = 0, differing_lanes = 0;
    // The 256-bit form (cd_sat_wide.h, the mesh traversal's AVX-512 build) where the CPU runs it.
    const int wide_runs = CD_X86_SIMD && cd_cpu_avx2();
    for (int i = 0; i < 200000; ++i) {
        cd_obb a[2], b[2];
        for (int l = 0; l < 2; ++l) {
            if (i % 4 == 3) {  // near contact: the band where rounding decides
                built_pair p = build_pair(&r, (contact_kind)cd_rng_below(&r, CONTACT_KINDS),
                                          rel_gaps[cd_rng_below(&r, 6)], thetas[cd_rng_below(&r, 6)]);
                a[l] = p.a, b[l] = p.b;
            } else {
                a[l] = random_box(&r, 2.0, 0.1, 1.5);
                b[l] = random_box(&r, 2.0, 0.1, 1.5);
            }
        }
        unsigned two = cd_obb_obb_overlap2(&a[0], &b[0], &a[1], &b[1]), wide = two;
#if CD_X86_SIMD
        if (wide_runs) wide = cd_obb_obb_overlap2_wide(&a[0], &b[0], &a[1], &b[1]);
#endif
        for (int l = 0; l < 2; ++l) {
            unsigned one = (unsigned)cd_obb_obb_overlap(&a[l], &b[l]);
            if ((two >> l & 1u) != one) fail_msg("pair %d lane %d: two-lane %u, scalar %u", i, l, two >> l & 1u, one);
            if ((wide >> l & 1u) != one) fail_msg("pair %d lane %d: wide %u, scalar %u", i, l, wide >> l & 1u, one);
            overlapping += one;
            ++pairs;
        }
        differing_lanes += (two == 1u || two == 2u);
    }
    print_message("# two-lane SAT%s: %llu pairs, %llu overlapping, %llu calls with lanes differing, 0 disagreements\n",
                  wide_runs ? " and its 256-bit form" : "", (unsigned long long)pairs, (unsigned long long)overlapping,
                  (unsigned long long)differing_lanes);
    assert_true(overlapping > pairs / 5 && overlapping < pairs - pairs / 5);
    assert_true(differing_lanes > 10000);  // the early outs ran with one lane separated only
}

#if CD_X86_SIMD
// cd_obb_obb_overlap2_wide evaluates cd_obb_obb_overlap's expressions bit for bit, checked where
// a difference of one rounding shows: B slides along a random line out of A, bisected down to two
// adjacent doubles of its offset at which the scalar test's answer flips (on a face axis of
// either box or on an edge axis), and both positions go through the lanes in both orders. A
// reassociated sum in the wide form (a relative change of 1e-16) fails here, which the sampled
// bands above do not catch.
static void obb_obb_wide_equal_scalar_at_the_flip(void **state)
{
    (void)state;
    // The CPU's own answer, not cd_cpu_avx2's: CDLAB_NO_AVX2 steers the dispatch, and this test
    // calls the AVX2 form directly. And no skip(): cmocka prints it as "not ok # SKIP" in TAP,
    // which meson counts as a failure.
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) {
        print_message("# no AVX2 on this CPU: the two-lane wide form is not built to run here\n");
        return;
    }
    cd_rng r = cd_rng_make(78, CD_STREAM_TEST);
    int flips = 0, by_kind[3] = {0};
    for (int i = 0; i < 4000; ++i) {
        cd_obb a = random_box(&r, 0.0, 0.1, 1.5), b = random_box(&r, 0.0, 0.1, 1.5);
        cd_vec3 dir = cd_v3_normalize(cd_v3(cd_rng_range(&r, -1, 1), cd_rng_range(&r, -1, 1), cd_rng_range(&r, -1, 1)));
        const cd_vec3 c0 = b.c;
        double lo = 0.0, hi = 8.0;  // the centres coincide at 0; the boxes (half-extents < 1.5) are apart at 8
        cd_obb at[2] = {b, b};
        at[1].c = cd_v3_add(c0, cd_v3_scale(dir, hi));
        if (!cd_obb_obb_overlap(&a, &at[0]) || cd_obb_obb_overlap(&a, &at[1])) continue;
        while (nextafter(lo, hi) < hi) {
            double mid = lo + (hi - lo) / 2;
            if (mid <= lo || mid >= hi) mid = nextafter(lo, hi);
            at[0].c = cd_v3_add(c0, cd_v3_scale(dir, mid));
            *(cd_obb_obb_overlap(&a, &at[0]) ? &lo : &hi) = mid;
        }
        at[0].c = cd_v3_add(c0, cd_v3_scale(dir, lo)), at[1].c = cd_v3_add(c0, cd_v3_scale(dir, hi));
        int want[2], axis;
        for (int l = 0; l < 2; ++l) want[l] = cd_obb_obb_overlap(&a, &at[l]);
        if (want[0] == want[1]) continue;  // the moved centres rounded to the same point
        cd_obb_obb_overlap_axis(&a, want[0] ? &at[1] : &at[0], &axis);
        ++by_kind[axis < 3 ? 0 : axis < 6 ? 1 : 2];
        unsigned w01 = cd_obb_obb_overlap2_wide(&a, &at[0], &a, &at[1]);
        unsigned w10 = cd_obb_obb_overlap2_wide(&a, &at[1], &a, &at[0]);
        unsigned t01 = cd_obb_obb_overlap2(&a, &at[0], &a, &at[1]);
        for (int l = 0; l < 2; ++l) {
            if ((w01 >> l & 1u) != (unsigned)want[l])
                fail_msg("pair %d lane %d: wide %u, scalar %d", i, l, w01 >> l & 1u, want[l]);
            if ((w10 >> (1 - l) & 1u) != (unsigned)want[l])
                fail_msg("pair %d lane %d: wide %u, scalar %d", i, 1 - l, w10 >> (1 - l) & 1u, want[l]);
            if ((t01 >> l & 1u) != (unsigned)want[l])
                fail_msg("pair %d lane %d: two-lane %u, scalar %d", i, l, t01 >> l & 1u, want[l]);
        }
        ++flips;
    }
    print_message(
        "# wide SAT at the flip: %d pairs one rounding apart (separated on a face of a: %d, of b: %d, an edge: %d)\n",
        flips, by_kind[0], by_kind[1], by_kind[2]);
    for (int k = 0; k < 3; ++k) assert_true(by_kind[k] > 100);
}
#endif

static void obb_obb_known_identical_and_nested(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(4, CD_STREAM_TEST + 14);
    for (int n = 0; n < 1000; ++n) {
        cd_obb a = random_box(&r, 100.0, 0.01, 10.0);
        int axis = 0;
        assert_true(cd_obb_obb_overlap_axis(&a, &a, &axis));
        assert_int_equal(axis, -1);
        // A box at a's centre, turned anyhow, with radius below a's smallest half-extent.
        double m = fmin(a.half.x, fmin(a.half.y, a.half.z));
        cd_obb inner = cd_obb_from_pose(a.c, cd_rng_rotation(&r), cd_v3(0.5 * m, 0.3 * m, 0.2 * m));
        assert_true(sat_both(&a, &inner));
        // Off-centre but still inside: shifted along a's first axis by less than the slack.
        inner.c = cd_v3_add(a.c, cd_v3_scale(a.axes.col[0], a.half.x - 0.7 * m));
        assert_true(sat_both(&a, &inner));
    }
}

static void obb_obb_known_touching_faces(void **state)
{
    (void)state;
    int axis;
    // Exactly representable: faces at x = 1 meet. Contact counts as overlap.
    cd_obb a = axis_box(0, 0, 0, 1, 1, 1), b = axis_box(2, 0, 0, 1, 1, 1);
    assert_true(sat_both(&a, &b));
    b = axis_box(0, -2.5, 0, 1, 1.5, 1);
    assert_true(sat_both(&a, &b));
    b = axis_box(0.25, 0.5, 1.75, 0.5, 0.5, 0.75);
    assert_true(sat_both(&a, &b));
    // Touching only along an edge, and only at a corner.
    b = axis_box(2, 2, 0, 1, 1, 1);
    assert_true(sat_both(&a, &b));
    b = axis_box(2, 2, 2, 1, 1, 1);
    assert_true(sat_both(&a, &b));
    // 1e-9 apart (far outside the band of 2e-11·S) is separation, found on a's face axis x.
    b = axis_box(2 + 1e-9, 0, 0, 1, 1, 1);
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_int_equal(axis, 0);
    b = axis_box(0, 0, -2 - 1e-9, 1, 1, 1);
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_int_equal(axis, 2);
    // Same with b given a 90° turn about z whose matrix is exact: b's x axis is world y.
    b = axis_box(0, 2, 0, 1, 2, 1);
    b.axes = (cd_mat3){{cd_v3(0, 1, 0), cd_v3(-1, 0, 0), cd_v3(0, 0, 1)}};
    assert_true(sat_both(&a, &b));  // b spans x in [-2, 2], y in [1, 3]
    b.c.y = 2 + 1e-9;
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_true(axis == 1 || axis == 3);  // a's y face or b's x face: the same plane
}

static void obb_obb_known_parallel_axes(void **state)
{
    (void)state;
    // Identical axes: all nine cross products are exactly zero, the epsilon keeps them inert.
    int axis;
    cd_obb a = axis_box(0, 0, 0, 1, 2, 3);
    cd_obb b = axis_box(0.5, 0.7, -0.3, 1, 1, 1);
    assert_true(sat_both(&a, &b));
    b = axis_box(0, 4.5, 0, 1, 2, 1);
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_int_equal(axis, 1);
    b = axis_box(2.1, 3.1, 4.1, 1, 1, 1);
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_int_equal(axis, 0);
    // Same directions under a common random rotation: cross products are rounding noise only.
    cd_rng r = cd_rng_make(5, CD_STREAM_TEST + 15);
    for (int n = 0; n < 1000; ++n) {
        cd_mat3 m = cd_q_to_m3(cd_rng_rotation(&r));
        cd_obb ra = {cd_v3(0, 0, 0), m, cd_v3(1, 2, 3)}, rb = {cd_m3_mul_v(m, cd_v3(1.9, 0, 0)), m, cd_v3(1, 1, 1)};
        assert_true(sat_both(&ra, &rb));  // 0.1 deep along a's x
        rb.c = cd_m3_mul_v(m, cd_v3(2.1, 0.5, -0.5));
        assert_false(cd_obb_obb_overlap_axis(&ra, &rb, &axis));
        assert_true(axis == 0 || axis == 3);  // the x faces (both boxes share them)
    }
}

static void obb_obb_known_crossing_edges_45(void **state)
{
    (void)state;
    // a: unit cube. b: unit cube turned 45° about z, then 45° about x (through its centre), so a
    // vertex-free edge of b points down-left at a's top-right edge region. Checked generally:
    // the built edge–edge pairs at exactly 45° with gaps ±0.01 of the size.
    cd_rng r = cd_rng_make(6, CD_STREAM_TEST + 16);
    int edge_axis = 0;
    for (int n = 0; n < 2000; ++n) {
        cd_obb a = cd_obb_from_pose(cd_v3(0, 0, 0), cd_rng_rotation(&r), cd_v3(1, 1, 1)), b;
        build_edge_edge(&r, &a, &b, 0.01, 1.0, pi / 4);
        int axis;
        assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
        edge_axis += axis >= 6;
        build_edge_edge(&r, &a, &b, -0.01, 1.0, pi / 4);
        assert_true(sat_both(&a, &b));
        // Gap zero up to construction rounding: the inflated radii call it contact.
        build_edge_edge(&r, &a, &b, 0.0, 1.0, pi / 4);
        assert_true(sat_both(&a, &b));
    }
    // Only the edge-pair axis separates these: the face axes of both boxes see overlap.
    assert_int_equal(edge_axis, 2000);
    // A fixed case. a: unit cube turned 45° about y, so its top is an edge along y at z = sqrt(2).
    // b: unit cube turned 45° about x (bottom edge along x), then 45° about z: its bottom edge
    // runs along (1, 1, 0) at z_b − sqrt(2). The two horizontal edges cross at 45°.
    cd_obb a = cd_obb_from_pose(cd_v3(0, 0, 0), cd_q_from_rotvec(cd_v3(0, pi / 4, 0)), cd_v3(1, 1, 1));
    cd_quat q = cd_q_mul(cd_q_from_rotvec(cd_v3(0, 0, pi / 4)), cd_q_from_rotvec(cd_v3(pi / 4, 0, 0)));
    cd_obb b = cd_obb_from_pose(cd_v3(0, 0, 2 * sqrt(2.0) + 1e-6), q, cd_v3(1, 1, 1));
    int axis;
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_true(axis >= 6);  // an edge-pair axis: every face axis sees the projections overlap
    assert_false(cd_obb_obb_overlap_axis(&b, &a, &axis));
    b.c.z = 2 * sqrt(2.0) - 1e-6;
    assert_true(sat_both(&a, &b));
}

static void obb_obb_known_far_apart(void **state)
{
    (void)state;
    int axis;
    cd_obb a = axis_box(0, 0, 0, 1, 1, 1);
    cd_obb b = cd_obb_from_pose(cd_v3(1e6, -1e6, 3e5), cd_q_normalize((cd_quat){1, 2, 3, 4}), cd_v3(5, 5, 5));
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_int_equal(axis, 0);
    b.c = cd_v3(0, 0, -1e12);
    assert_false(cd_obb_obb_overlap_axis(&a, &b, &axis));
    assert_int_equal(axis, 2);
    // Huge boxes far from the origin, overlapping by a lot: no precision surprises.
    cd_obb big_a = axis_box(1e9, 1e9, 1e9, 1e3, 1e3, 1e3);
    cd_obb big_b =
        cd_obb_from_pose(cd_v3(1e9 + 1500, 1e9, 1e9), cd_q_from_rotvec(cd_v3(0, 0, 0.3)), cd_v3(1e3, 1e3, 1e3));
    assert_true(sat_both(&big_a, &big_b));
}

static void obb_obb_known_thin_boxes(void **state)
{
    (void)state;
    int axis;
    // A square plate (zero thickness) in z = 0.
    cd_obb plate = axis_box(0, 0, 0, 1, 1, 0);
    cd_obb cube = axis_box(0, 0, 1, 1, 1, 1);
    assert_true(sat_both(&plate, &cube));  // resting on it: contact
    cube.c.z = 1 + 1e-9;
    assert_false(cd_obb_obb_overlap_axis(&plate, &cube, &axis));
    assert_int_equal(axis, 2);
    cube.c.z = 0.5;
    assert_true(sat_both(&plate, &cube));  // plate passes through the cube
    // Two plates crossing at right angles, and two coplanar plates.
    cd_obb wall = axis_box(0.5, 0, 0, 1, 0, 1);
    assert_true(sat_both(&plate, &wall));
    cd_obb side = axis_box(1.5, 0, 0, 0.5, 1, 0);
    assert_true(sat_both(&plate, &side));  // overlap in the plane
    side.c.x = 2.0 + 1e-9;
    assert_false(sat_both(&plate, &side));
    side.c = cd_v3(0.2, 0.1, 1e-3);  // parallel plates 1e-3 apart
    assert_false(cd_obb_obb_overlap_axis(&plate, &side, &axis));
    assert_true(axis == 2 || axis == 5);
    // A needle (1e-9 thick) through a turned plate, and one missing it.
    cd_obb needle = axis_box(0.1, 0.2, 0, 1e-9, 1e-9, 2);
    cd_obb tilted = cd_obb_from_pose(cd_v3(0, 0, 0.5), cd_q_from_rotvec(cd_v3(0.4, -0.3, 0)), cd_v3(1, 1, 1e-9));
    assert_true(sat_both(&needle, &tilted));
    needle.c = cd_v3(3, 0, 0);
    assert_false(sat_both(&needle, &tilted));
    // Degenerate to a point: a box of zero size inside and outside another.
    cd_obb point = axis_box(0.5, 0.5, 0.5, 0, 0, 0);
    assert_true(sat_both(&point, &cube));
    point.c.x = 1.5;
    assert_false(sat_both(&point, &cube));
    point.c.x = 1.0;  // exactly on the face
    assert_true(sat_both(&point, &cube));
}

// ---------------------------------------------------------------------------------------------
// Spheres.

static void sphere_sphere_known(void **state)
{
    (void)state;
    cd_sphere a = {cd_v3(0, 0, 0), 2};
    cd_sphere b = {cd_v3(3, 4, 0), 3};  // centre distance 5 = 2 + 3: touching, exactly
    assert_true(cd_sphere_sphere_overlap(&a, &b) && cd_sphere_sphere_overlap(&b, &a));
    // Radii are summed in floating point, so one ulp off 3 rounds back to 5 (a tie to even);
    // two ulps of 5 below touching is a gap the test must see.
    b.r = 3.0 - 2 * (cd_round_up(5.0) - 5.0);
    assert_false(cd_sphere_sphere_overlap(&a, &b));
    b = (cd_sphere){cd_v3(-3, 4, 12), 11};  // distance 13 = 2 + 11
    assert_true(cd_sphere_sphere_overlap(&a, &b));
    b.c.z = 12.000000001;
    assert_false(cd_sphere_sphere_overlap(&a, &b));
    b = (cd_sphere){cd_v3(0.5, 0, 0), 0.1};  // inside
    assert_true(cd_sphere_sphere_overlap(&a, &b));
    b = (cd_sphere){cd_v3(0, 0, 0), 0};  // a point at the centre
    assert_true(cd_sphere_sphere_overlap(&a, &b));
    b = (cd_sphere){cd_v3(100, 0, 0), 1};
    assert_false(cd_sphere_sphere_overlap(&a, &b));
}

static void sphere_obb_known(void **state)
{
    (void)state;
    cd_obb box = axis_box(0, 0, 0, 1, 2, 3);
    struct {
        double x, y, z, r;
        int overlap;
    } cases[] = {
        {4, 0, 0, 3, 1},                // face region, touching exactly
        {4, 0, 0, 2.9999999, 0},        // just short
        {0, -7, 0, 5, 1},               // face -y, touching
        {4, 6, 0, 5, 1},                // edge region: (3, 4) from the edge, distance 5
        {4, 6, 0, 4.999999999, 0},      //
        {-4, -6, 15, 13, 1},            // corner region: (3, 4, 12) from the corner
        {-4, -6, 15, 12.999999999, 0},  //
        {0.5, 0.5, 0.5, 0.1, 1},        // inside, small
        {0.5, -1.5, 2.5, 0, 1},         // a point inside
        {1, 2, 3, 0, 1},                // a point exactly on the corner
        {1.5, 0, 0, 0, 0},              // a point outside
        {0, 0, 0, 100, 1},              // box inside the sphere
        {50, 50, 50, 10, 0},            // far
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cd_sphere s = {cd_v3(cases[k].x, cases[k].y, cases[k].z), cases[k].r};
        assert_int_equal(cd_sphere_obb_overlap(&s, &box), cases[k].overlap);
    }
    // Turned 90° about z with an exact matrix: local x is world y, so world extents are (2, 1, 3).
    box.axes = (cd_mat3){{cd_v3(0, 1, 0), cd_v3(-1, 0, 0), cd_v3(0, 0, 1)}};
    cd_sphere s = {cd_v3(5, 0, 0), 3};
    assert_true(cd_sphere_obb_overlap(&s, &box));
    s.r = cd_round_down(3.0);
    assert_false(cd_sphere_obb_overlap(&s, &box));
    s = (cd_sphere){cd_v3(0, 4, 0), 3};
    assert_true(cd_sphere_obb_overlap(&s, &box));
    s.r = cd_round_down(3.0);
    assert_false(cd_sphere_obb_overlap(&s, &box));
    // Turned 45° about z: the unit cube's corner edge reaches x = sqrt(2).
    cd_obb diamond = cd_obb_from_pose(cd_v3(0, 0, 0), cd_q_from_rotvec(cd_v3(0, 0, pi / 4)), cd_v3(1, 1, 1));
    s = (cd_sphere){cd_v3(sqrt(2.0) + 1, 0, 0.5), 1 + 1e-9};
    assert_true(cd_sphere_obb_overlap(&s, &diamond));
    s.r = 1 - 1e-9;
    assert_false(cd_sphere_obb_overlap(&s, &diamond));
    // Along the face normal (1, 1, 0)/sqrt(2) the face is at distance 1.
    s = (cd_sphere){cd_v3(2 / sqrt(2.0), 2 / sqrt(2.0), 0), 1 + 1e-9};
    assert_true(cd_sphere_obb_overlap(&s, &diamond));
    s.r = 1 - 1e-9;
    assert_false(cd_sphere_obb_overlap(&s, &diamond));
}

/// Distance from p to the closed rectangle corner + [0,1]·e1 + [0,1]·e2 (e1 ⊥ e2), world space.
static double point_rectangle_distance(cd_vec3 p, cd_vec3 corner, cd_vec3 e1, cd_vec3 e2)
{
    cd_vec3 d = cd_v3_sub(p, corner);
    double u = cd_v3_len2(e1) > 0 ? clamp01(cd_v3_dot(d, e1) / cd_v3_len2(e1)) : 0.0;
    double v = cd_v3_len2(e2) > 0 ? clamp01(cd_v3_dot(d, e2) / cd_v3_len2(e2)) : 0.0;
    cd_vec3 q = cd_v3_add(corner, cd_v3_add(cd_v3_scale(e1, u), cd_v3_scale(e2, v)));
    return cd_v3_len(cd_v3_sub(p, q));
}

/// Signed distance from p to the box, built from its world corners alone: inside (all six face
/// planes through the corners have p behind them) gives minus the depth, else the distance to the
/// nearest of the six face rectangles.
static double point_box_signed_distance(const cd_obb *b, cd_vec3 p)
{
    cd_vec3 c[8];
    cd_obb_corners(b, c);
    double dist = INFINITY, depth = INFINITY;
    int inside = 1;
    for (int j = 0; j < 3; ++j)
        for (int side = 0; side < 2; ++side) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3, base = side << j;
            cd_vec3 e1 = cd_v3_sub(c[base | 1 << j1], c[base]), e2 = cd_v3_sub(c[base | 1 << j2], c[base]);
            cd_vec3 outward = cd_v3_sub(c[base], c[base ^ 1 << j]);  // across the box, toward this face
            double len = cd_v3_len(outward);
            assert_true(len > 0.0);
            double height = cd_v3_dot(cd_v3_sub(p, c[base]), outward) / len;
            if (height > 0) inside = 0;
            depth = fmin(depth, -height);
            dist = fmin(dist, point_rectangle_distance(p, c[base], e1, e2));
        }
    return inside ? -depth : dist;
}

static void sphere_obb_random_vs_oracles(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(7, CD_STREAM_TEST + 17);
    tally sat_t = {0}, ccd_t = {0};
    for (int n = 0; n < RANDOM_PAIRS; ++n) {
        cd_obb b = random_box(&r, 1.0, 0.05, 1.0);
        cd_sphere s = {cd_v3(cd_rng_range(&r, -2.5, 2.5), cd_rng_range(&r, -2.5, 2.5), cd_rng_range(&r, -2.5, 2.5)),
                       cd_rng_range(&r, 0.0, 1.0)};
        double sd = point_box_signed_distance(&b, s.c);
        int truth = sd <= s.r;
        // Band: a relative 1e-12 of the scene scale around |distance − r| = 0.
        int outside = fabs(sd - s.r) > 1e-12 * 4.0;
        tally_add(&sat_t, cd_sphere_obb_overlap(&s, &b), truth, outside);
        tally_add(&ccd_t, ccd_overlap(&s, ccd_sphere_support, &b, ccd_box_support) != 0, truth, fabs(sd - s.r) > 1e-6);
    }
    tally_print("SAT", "sphere-OBB vs face distances", &sat_t);
    tally_print("libccd", "sphere-OBB vs face distances (1e-6)", &ccd_t);
    assert_int_equal(sat_t.wrong_outside, 0);
    assert_int_equal(ccd_t.wrong_outside, 0);
}

// ---------------------------------------------------------------------------------------------
// Power-of-two scaling (cd_narrow_normalize, as `cdlab query` applies it to every row): the
// answer for a question whose lengths are all multiplied by 2^k, k from -600 to 600, normalised,
// is the answer for the question as given.

static void normalize_bounds(void **state)
{
    (void)state;
    // A spread of exactly 598 bits is accepted, 599 refused (values untouched).
    double x[4] = {1.0, 0x1p-598, 0.0, -0x1p-100};
    double *p[4] = {&x[0], &x[1], &x[2], &x[3]};
    assert_int_equal(cd_narrow_spread(p, 4), 598);
    assert_int_equal(cd_narrow_normalize(p, 4), 0);
    // s = -ilogb(1) = 0 puts 2^-598 below 2^-300, so the shift is raised to 298.
    assert_true(x[0] == 0x1p298 && x[1] == 0x1p-300 && x[2] == 0.0 && x[3] == -0x1p198);
    double y[2] = {1.5, 0x1p-599};  // 1.5's lowest set bit is 2^-1, its ilogb 0: spread 599
    double *q[2] = {&y[0], &y[1]};
    assert_int_equal(cd_narrow_spread(q, 2), 599);
    y[0] = 1.0;
    assert_int_equal(cd_narrow_normalize(q, 2), -1);
    assert_true(y[0] == 1.0 && y[1] == 0x1p-599);
    // The lowest set bit counts, not the magnitude: 1 + 2^-52 spans 52 bits on its own.
    double z[3] = {1e300, 0x1p-1074, 0.0};  // a subnormal beside the top of the range
    double *r[3] = {&z[0], &z[1], &z[2]};
    assert_int_equal(cd_narrow_normalize(r, 3), -1);
    z[0] = 0x1.8p-1000;  // the largest in [1, 2) after the shift: 1.5, and the subnormal 2^-74
    assert_int_equal(cd_narrow_normalize(r, 3), 0);
    assert_true(z[0] == 1.5 && z[1] == 0x1p-74 && z[2] == 0.0);
    double one = 1.0 + 0x1p-52, *o[1] = {&one};
    assert_int_equal(cd_narrow_spread(o, 1), 52);
    double zero = 0.0, *zp[1] = {&zero};
    assert_int_equal(cd_narrow_spread(zp, 1), 0);
    assert_int_equal(cd_narrow_normalize(zp, 1), 0);
}

/// The scale exponents tried for each question: both ends and 2^0, then a seeded sample.
static int scale_exponent(cd_rng *r, int i)
{
    return i == 0 ? -600 : i == 1 ? 600 : i == 2 ? 0 : (int)cd_rng_below(r, 1201) - 600;
}

/// b's lengths (centre, half-extents; not the axes) times 2^k.
static cd_obb obb_scaled(cd_obb b, int k)
{
    b.c = cd_v3(ldexp(b.c.x, k), ldexp(b.c.y, k), ldexp(b.c.z, k));
    b.half = cd_v3(ldexp(b.half.x, k), ldexp(b.half.y, k), ldexp(b.half.z, k));
    return b;
}

static cd_sphere sphere_scaled(cd_sphere s, int k)
{
    return (cd_sphere){cd_v3(ldexp(s.c.x, k), ldexp(s.c.y, k), ldexp(s.c.z, k)), ldexp(s.r, k)};
}

/// Normalise the lengths of up to two boxes and two spheres (NULL where absent) together.
static void normalize_shapes(cd_obb *a, cd_obb *b, cd_sphere *s, cd_sphere *t)
{
    double *p[24];
    size_t n = 0;
    cd_obb *boxes[2] = {a, b};
    cd_sphere *balls[2] = {s, t};
    for (int i = 0; i < 2; ++i) {
        if (boxes[i]) {
            double *f[6] = {&boxes[i]->c.x,    &boxes[i]->c.y,    &boxes[i]->c.z,
                            &boxes[i]->half.x, &boxes[i]->half.y, &boxes[i]->half.z};
            for (int j = 0; j < 6; ++j) p[n++] = f[j];
        }
        if (balls[i]) {
            double *f[4] = {&balls[i]->c.x, &balls[i]->c.y, &balls[i]->c.z, &balls[i]->r};
            for (int j = 0; j < 4; ++j) p[n++] = f[j];
        }
    }
    assert_int_equal(cd_narrow_normalize(p, n), 0);
}

static void scaled_rows_keep_answers(void **state)
{
    (void)state;
    enum { SCALES = 8, PAIRS = 3000 };
    cd_rng r = cd_rng_make(1, CD_STREAM_TEST + 11);  // the random pairs of obb_obb_random_vs_oracles
    cd_rng ks = cd_rng_make(3, CD_STREAM_TEST + 40);
    long checked = 0, wrong_outside = 0;
    for (int n = 0; n < PAIRS; ++n) {
        cd_obb a = random_box(&r, 1.0, 0.05, 1.0), b = random_box(&r, 1.0, 0.05, 1.0);
        exact_relation truth = exact_obb_obb(&a, &b);
        int outside = truth.gap_bound > GENERAL_BAND * pair_scale(&a, &b);
        int want = cd_obb_obb_overlap(&a, &b);
        for (int i = 0; i < SCALES; ++i) {
            int k = scale_exponent(&ks, i);
            cd_obb sa = obb_scaled(a, k), sb = obb_scaled(b, k);
            normalize_shapes(&sa, &sb, NULL, NULL);
            int got = cd_obb_obb_overlap(&sa, &sb);
            assert_int_equal(got, want);
            wrong_outside += outside && got != truth.overlap;
            ++checked;
        }
    }
    assert_int_equal(wrong_outside, 0);
    // The sphere-box cases of sphere_obb_known, and random pairs against their unscaled answers.
    cd_obb box = axis_box(0, 0, 0, 1, 2, 3);
    const double known[][5] = {{4, 0, 0, 3, 1},
                               {4, 0, 0, 2.9999999, 0},
                               {0, -7, 0, 5, 1},
                               {4, 6, 0, 5, 1},
                               {4, 6, 0, 4.999999999, 0},
                               {-4, -6, 15, 13, 1},
                               {-4, -6, 15, 12.999999999, 0},
                               {1, 2, 3, 0, 1},
                               {1.5, 0, 0, 0, 0}};
    for (size_t c = 0; c < sizeof known / sizeof known[0]; ++c)
        for (int i = 0; i < SCALES; ++i) {
            int k = scale_exponent(&ks, i);
            cd_sphere s = sphere_scaled((cd_sphere){cd_v3(known[c][0], known[c][1], known[c][2]), known[c][3]}, k);
            cd_obb sb = obb_scaled(box, k);
            normalize_shapes(&sb, NULL, &s, NULL);
            assert_int_equal(cd_sphere_obb_overlap(&s, &sb), (int)known[c][4]);
        }
    for (int n = 0; n < PAIRS; ++n) {
        cd_obb b = random_box(&r, 1.0, 0.05, 1.0);
        cd_sphere s = {cd_v3(cd_rng_range(&r, -2.5, 2.5), cd_rng_range(&r, -2.5, 2.5), cd_rng_range(&r, -2.5, 2.5)),
                       cd_rng_range(&r, 0.0, 1.0)};
        int want = cd_sphere_obb_overlap(&s, &b);
        for (int i = 0; i < SCALES; ++i) {
            int k = scale_exponent(&ks, i);
            cd_sphere ss = sphere_scaled(s, k);
            cd_obb sb = obb_scaled(b, k);
            normalize_shapes(&sb, NULL, &ss, NULL);
            assert_int_equal(cd_sphere_obb_overlap(&ss, &sb), want);
        }
    }
    // Spheres: the exact test, scaled, against exact answers (touching rows exactly representable).
    const double spheres[][9] = {
        {0, 0, 0, 2, 3, 4, 0, 3, 1},     {0, 0, 0, 2, -3, 4, 12, 11, 1}, {0, 0, 0, 2, -3, 4, 12.000000001, 11, 0},
        {0, 0, 0, 1, 0.5, 0, 0, 0.1, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 1},    {0, 0, 0, 1, 100, 0, 0, 1, 0},
        {0, 0, 0, 1, 3, 0, 0, 1, 0},     {0, 0, 0, 1, 2, 0, 0, 1, 1},
    };
    for (size_t c = 0; c < sizeof spheres / sizeof spheres[0]; ++c)
        for (int i = 0; i < SCALES; ++i) {
            int k = scale_exponent(&ks, i);
            const double *v = spheres[c];
            cd_sphere sa = sphere_scaled((cd_sphere){cd_v3(v[0], v[1], v[2]), v[3]}, k);
            cd_sphere sb = sphere_scaled((cd_sphere){cd_v3(v[4], v[5], v[6]), v[7]}, k);
            normalize_shapes(NULL, NULL, &sa, &sb);
            assert_int_equal(cd_sphere_sphere_overlap_exact(&sa, &sb), (int)v[8]);
            assert_int_equal(cd_sphere_sphere_overlap_exact(&sb, &sa), (int)v[8]);
        }
    printf("# scaled rows: %ld box pairs x 2^k (k in -600..600) agree with the unscaled answers\n", checked);
}

static void sphere_sphere_exact_known(void **state)
{
    (void)state;
    cd_sphere a = {cd_v3(0, 0, 0), 2};
    cd_sphere b = {cd_v3(3, 4, 0), 3};  // touching exactly
    assert_true(cd_sphere_sphere_overlap_exact(&a, &b));
    // One ulp below 3: the float test rounds the radius sum 5 − 2^-51 back to 5 (a tie to even)
    // and says touching; exactly, (5 − 2^-51)² < 25: apart.
    b.r = cd_round_down(3.0);
    assert_true(cd_sphere_sphere_overlap(&a, &b));
    assert_false(cd_sphere_sphere_overlap_exact(&a, &b));
    // Centre differences and radius sums that round: |c − d| = 2^60 + 1 − 2^-53 against the sum
    // 2^60 + 1 (overlapping by 2^-53), then 2^60 + 1 + 2^-52 (apart by 2^-52); the float test
    // calls both touching.
    cd_sphere c = {cd_v3(0x1p60, 0, 0), 0x1p60}, d = {cd_v3(-1 + 0x1p-53, 0, 0), 1};
    assert_true(cd_sphere_sphere_overlap_exact(&c, &d));
    assert_true(cd_sphere_sphere_overlap(&c, &d));
    d.c.x = -1 - 0x1p-52;
    assert_false(cd_sphere_sphere_overlap_exact(&c, &d));
    assert_true(cd_sphere_sphere_overlap(&c, &d));
    // Random pairs: the exact and the float test agree outside a relative band of 1e-12.
    cd_rng r = cd_rng_make(8, CD_STREAM_TEST + 41);
    for (int n = 0; n < 100000; ++n) {
        cd_sphere s = {cd_v3(cd_rng_range(&r, -2, 2), cd_rng_range(&r, -2, 2), cd_rng_range(&r, -2, 2)),
                       cd_rng_range(&r, 0, 2)};
        cd_sphere t = {cd_v3(cd_rng_range(&r, -2, 2), cd_rng_range(&r, -2, 2), cd_rng_range(&r, -2, 2)),
                       cd_rng_range(&r, 0, 2)};
        double gap = cd_v3_len(cd_v3_sub(s.c, t.c)) - (s.r + t.r);
        int e = cd_sphere_sphere_overlap_exact(&s, &t);
        assert_int_equal(e, cd_sphere_sphere_overlap_exact(&t, &s));
        if (fabs(gap) > 1e-12) assert_int_equal(e, cd_sphere_sphere_overlap(&s, &t));
    }
}

// ---------------------------------------------------------------------------------------------

static void aabb_aabb_known(void **state)
{
    (void)state;
    cd_aabb a = {cd_v3(0, 0, 0), cd_v3(1, 1, 1)};
    cd_aabb b = {cd_v3(1, 0.5, 0.5), cd_v3(2, 2, 2)};  // shares the face x = 1
    assert_true(cd_aabb_aabb_overlap(&a, &b) && cd_aabb_aabb_overlap(&b, &a));
    b.lo.x = cd_round_up(1.0);
    assert_false(cd_aabb_aabb_overlap(&a, &b) || cd_aabb_aabb_overlap(&b, &a));
    b = (cd_aabb){cd_v3(0.2, 0.2, 0.2), cd_v3(0.3, 0.3, 0.3)};
    assert_true(cd_aabb_aabb_overlap(&a, &b));
    b = (cd_aabb){cd_v3(-1, -1, 2), cd_v3(2, 2, 3)};
    assert_false(cd_aabb_aabb_overlap(&a, &b));
}

// cd_posef_pairs_overlap (the cube narrow step's batched test; every build this CPU runs) answers
// each lane as cd_obb_obb_overlap does on cd_posef_obb: pairs of boxes at centre distances around
// contact (half of them overlap), random rotations and sizes, plus axis-aligned cubes touching
// exactly face to face and edge to edge, and cubes turned alike whose faces meet up to the
// rounding of their centres (boundary cases where a rounding difference would show: the float
// filter must leave them to the double test, and a band too narrow for its errors fails here).
// Random poses rarely sit within rounding of contact, so this catches wrong expressions, not
// reassociations. Groups of 8 pairs: every build pads or splits them. The two float filters (16
// and 8 lanes) evaluate the same float expressions per lane, so they leave the same lanes undecided.
// cd_posef_pairs_filter gives each build's answers without the double test (the undecided lanes
// 0), and cd_sat_build_settling's build decides all.
static cd_posef posef_of(cd_vec3 c, cd_quat q, cd_vec3 h)
{
    return (cd_posef){{(float)c.x, (float)c.y, (float)c.z},
                      {(float)q.w, (float)q.x, (float)q.y, (float)q.z},
                      {(float)h.x, (float)h.y, (float)h.z}};
}

static void posef_batches_match_scalar_test(void **state)
{
    (void)state;
    enum { PAIRS = 4096, ROUNDS = 100 };  // 409 600 pairs
    cd_rng r = cd_rng_make(77, CD_STREAM_TEST + 5);
    uint64_t agree = 0, hits = 0, unsure[4] = {0}, kinds[4] = {0};
    enum { RANDOM, ALIGNED_TOUCHING, TURNED_CONTACT, SAME_AXIS_OVERLAP };
    static uint8_t kind[PAIRS];       // which of the three the pair is
    static cd_posef pose[2 * PAIRS];  // pair k: records 2k and 2k + 1
    enum { BUILDS = 6 };
    static const cd_sat_build builds[BUILDS] = {CD_SAT_DEFAULT,    CD_SAT_AVX512_FLOAT, CD_SAT_AVX512,
                                                CD_SAT_AVX2_FLOAT, CD_SAT_AVX2,         CD_SAT_BASELINE};
    print_message("# sat builds here: AVX-512 float and double %s, AVX2 float and double %s, baseline yes\n",
                  cd_sat_build_runs(CD_SAT_AVX512) ? "yes" : "no", cd_sat_build_runs(CD_SAT_AVX2) ? "yes" : "no");
    int filters = cd_sat_build_runs(CD_SAT_AVX512_FLOAT) + cd_sat_build_runs(CD_SAT_AVX2_FLOAT);
    for (int round = 0; round < ROUNDS; ++round) {
        for (uint32_t k = 0; k < PAIRS; ++k) {
            double ha = cd_rng_range(&r, 0.05, 2.0), hb = cd_rng_range(&r, 0.05, 2.0);
            cd_vec3 c = cd_v3(cd_rng_range(&r, 10, 90), cd_rng_range(&r, 10, 90), cd_rng_range(&r, 10, 90));
            kind[k] = RANDOM;
            if (cd_rng_below(&r, 8) == 0) {  // axis-aligned, touching exactly along one or two axes
                kind[k] = ALIGNED_TOUCHING;
                cd_vec3 off = cd_v3(ha + hb, cd_rng_below(&r, 2) ? ha + hb : 0.0, 0.0);
                pose[2 * k] = posef_of(c, cd_q_identity(), cd_v3(ha, ha, ha));
                pose[2 * k + 1] = posef_of(cd_v3_add(c, off), cd_q_identity(), cd_v3(hb, hb, hb));
                continue;
            }
            if (cd_rng_below(&r, 8) == 0) {  // both turned about one coordinate axis alone, clearly overlapping
                kind[k] = SAME_AXIS_OVERLAP;
                int axis = (int)cd_rng_below(&r, 3);
                cd_quat q[2];
                for (int j = 0; j < 2; ++j) {
                    double angle = cd_rng_below(&r, 4) ? cd_rng_range(&r, 0, 6.283185307179586) : 0.0;
                    q[j] = (cd_quat){cos(0.5 * angle), 0, 0, 0};
                    double sn = sin(0.5 * angle);
                    if (axis == 0) q[j].x = sn;
                    if (axis == 1) q[j].y = sn;
                    if (axis == 2) q[j].z = sn;
                }
                double m = 0.4 * (ha < hb ? ha : hb);
                cd_vec3 off = cd_v3(cd_rng_range(&r, -m, m), cd_rng_range(&r, -m, m), cd_rng_range(&r, -m, m));
                pose[2 * k] = posef_of(c, q[0], cd_v3(ha, ha * cd_rng_range(&r, 0.5, 1), ha));
                pose[2 * k + 1] = posef_of(cd_v3_add(c, off), q[1], cd_v3(hb, hb, hb * cd_rng_range(&r, 0.5, 1)));
                continue;
            }
            if (cd_rng_below(&r, 8) == 0) {  // turned alike, face to face at contact up to rounding
                kind[k] = TURNED_CONTACT;
                cd_quat q = cd_rng_rotation(&r);
                cd_vec3 normal = cd_q_rotate(q, cd_rng_below(&r, 2) ? cd_v3(0, 1, 0) : cd_v3(0, 0, 1));
                pose[2 * k] = posef_of(c, q, cd_v3(ha, ha, ha));
                pose[2 * k + 1] = posef_of(cd_v3_add(c, cd_v3_scale(normal, ha + hb)), q, cd_v3(hb, hb, hb));
                continue;
            }
            cd_quat qa = cd_rng_rotation(&r), qb = cd_rng_rotation(&r);
            double dist = (ha + hb) * cd_rng_range(&r, 0.5, 1.8);
            cd_vec3 dir = cd_q_rotate(cd_rng_rotation(&r), cd_v3(1, 0, 0));
            pose[2 * k] = posef_of(c, qa, cd_v3(ha, ha * cd_rng_range(&r, 0.5, 1), ha));
            pose[2 * k + 1] = posef_of(cd_v3_add(c, cd_v3_scale(dir, dist)), qb, cd_v3(hb, hb, hb));
        }
        for (uint32_t k = 0; k < PAIRS; k += 8) {
            const cd_posef *pa[8], *pb[8];
            for (uint32_t l = 0; l < 8; ++l) {  // both orders
                uint32_t m = k + l, first = (m & 1) ? 2 * m + 1 : 2 * m;
                pa[l] = &pose[first], pb[l] = &pose[first ^ 1];
            }
            unsigned bits[BUILDS] = {0}, left[BUILDS] = {0}, left_any = 0;
            for (int b = 0; b < BUILDS; ++b)
                if (cd_sat_build_runs(builds[b])) {
                    bits[b] = cd_posef_pairs_overlap(builds[b], pa, pb, 8, &left[b]);
                    left_any |= left[b];
                }
            // Without the double test a build answers its decided lanes alike and leaves the
            // undecided ones 0, and the build that settles them decides every lane.
            for (int b = 0; b < BUILDS; ++b)
                if (cd_sat_build_runs(builds[b])) {
                    unsigned fl = ~0u, fbits = cd_posef_pairs_filter(builds[b], pa, pb, 8, &fl), sl = ~0u;
                    EXPECT_EQ(fl, left[b]);
                    EXPECT_EQ(fbits, bits[b] & ~left[b]);
                    cd_sat_build settling = cd_sat_build_settling(builds[b]);
                    assert_true(cd_sat_build_runs(settling));
                    EXPECT_EQ(cd_posef_pairs_filter(settling, pa, pb, 8, &sl), bits[b]);
                    EXPECT_EQ(sl, 0u);
                }
            // Undecided lanes: the float filters' (the same for both), none for the double builds.
            if (filters == 2) EXPECT_EQ(left[1], left[3]);
            EXPECT_EQ(left[2] | left[4] | left[5], 0u);
            for (uint32_t l = 0; l < 8; ++l) {
                cd_obb a = cd_posef_obb(pa[l]), b = cd_posef_obb(pb[l]);
                unsigned want = (unsigned)cd_obb_obb_overlap(&a, &b);
                int all = 1;
                for (int bi = 0; bi < BUILDS; ++bi)
                    all &= !cd_sat_build_runs(builds[bi]) || (bits[bi] >> l & 1u) == want;
                agree += (unsigned)all;
                hits += want;
                ++kinds[kind[k + l]];
                unsure[kind[k + l]] += left_any >> l & 1u;
            }
        }
    }
    print_message("# sat lanes: %llu of %d pairs agree with the scalar test, %llu overlap\n", (unsigned long long)agree,
                  PAIRS * ROUNDS, (unsigned long long)hits);
    print_message("# float filter left to the double test: %llu of %llu random pairs, %llu of %llu touching exactly, "
                  "%llu of %llu turned alike in contact, %llu of %llu turned about one axis, overlapping\n",
                  (unsigned long long)unsure[RANDOM], (unsigned long long)kinds[RANDOM],
                  (unsigned long long)unsure[ALIGNED_TOUCHING], (unsigned long long)kinds[ALIGNED_TOUCHING],
                  (unsigned long long)unsure[TURNED_CONTACT], (unsigned long long)kinds[TURNED_CONTACT],
                  (unsigned long long)unsure[SAME_AXIS_OVERLAP], (unsigned long long)kinds[SAME_AXIS_OVERLAP]);
    EXPECT_EQ(agree, (uint64_t)PAIRS * ROUNDS);
    if (filters) {
        // Contact sits inside the band, so every such pair goes to the double test; random poses
        // rarely do (within about 2^-13 of the sizes), so the filter decides the rest.
        for (int kd = ALIGNED_TOUCHING; kd <= TURNED_CONTACT; ++kd)
            assert_true(kinds[kd] > 0 && unsure[kd] == kinds[kd]);
        assert_true(unsure[RANDOM] < kinds[RANDOM] / 100);
        // Boxes turned about one coordinate axis alone (the identity among them): their a_k × b_k
        // axis is exactly degenerate, which the filter knows (sat_float.h), so it decides them as
        // it does random ones (all of them were left to the double test before it knew).
        assert_true(kinds[SAME_AXIS_OVERLAP] > 0 && unsure[SAME_AXIS_OVERLAP] < kinds[SAME_AXIS_OVERLAP] / 100);
    }
    assert_true(hits > (uint64_t)PAIRS * ROUNDS / 4 && hits < (uint64_t)PAIRS * ROUNDS * 3 / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(obb_obb_two_lanes_equal_scalar),
#if CD_X86_SIMD
        cmocka_unit_test(obb_obb_wide_equal_scalar_at_the_flip),
#endif
        cmocka_unit_test(posef_batches_match_scalar_test),
        cmocka_unit_test(obb_obb_known_identical_and_nested),
        cmocka_unit_test(obb_obb_known_touching_faces),
        cmocka_unit_test(obb_obb_known_parallel_axes),
        cmocka_unit_test(obb_obb_known_crossing_edges_45),
        cmocka_unit_test(obb_obb_known_far_apart),
        cmocka_unit_test(obb_obb_known_thin_boxes),
        cmocka_unit_test(obb_obb_random_vs_oracles),
        cmocka_unit_test(obb_obb_thin_random_vs_oracles),
        cmocka_unit_test(obb_obb_built_near_contact),
        cmocka_unit_test(obb_obb_band_measured),
        cmocka_unit_test(sphere_sphere_known),
        cmocka_unit_test(sphere_obb_known),
        cmocka_unit_test(sphere_obb_random_vs_oracles),
        cmocka_unit_test(normalize_bounds),
        cmocka_unit_test(scaled_rows_keep_answers),
        cmocka_unit_test(sphere_sphere_exact_known),
        cmocka_unit_test(aabb_aabb_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
