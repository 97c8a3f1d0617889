// SPDX-License-Identifier: MIT
// cdlab shapes: axis-aligned box, sphere, oriented box, triangle, and the enclosing-volume
// constructions between them. Enclosures are rounded outward: a cull on them never drops a pair
// that an exact test on the enclosed shape would accept.
#ifndef CD_SHAPE_H
#define CD_SHAPE_H

#include "cd_core.h"

/// Axis-aligned box [lo, hi].
typedef struct cd_aabb {
    cd_vec3 lo, hi;
} cd_aabb;

/// Sphere of centre c and radius r.
typedef struct cd_sphere {
    cd_vec3 c;
    double r;
} cd_sphere;

/// Oriented box: centre, three unit axes (columns of axes, a rotation) and half-extents.
typedef struct cd_obb {
    cd_vec3 c;
    cd_mat3 axes;
    cd_vec3 half;
} cd_obb;

/// Triangle with vertices v[0], v[1], v[2].
typedef struct cd_triangle {
    cd_vec3 v[3];
} cd_triangle;

/// An axis-aligned box in float: one 24-byte record (the cube scene's world AABB per cube, which
/// every broad phase reads whole).
typedef struct cd_aabbf {
    float lo[3], hi[3];
} cd_aabbf;

/// Closed float boxes overlap (the same answer as the double test on their exact copies).
static inline int cd_aabbf_overlap(const cd_aabbf *a, const cd_aabbf *b)
{
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

/// An oriented box as a 40-byte float record: centre, rotation quaternion (w, x, y, z; any
/// non-zero norm) and half-extents. The cube scene stores one per cube: the narrow step visits
/// cubes in random order, and one record costs one or two cache lines where ten arrays would
/// cost ten.
typedef struct cd_posef {
    float c[3], q[4], h[3];
} cd_posef;

/// Axes of the rotation q/|q| for q = (w, x, y, z), computed in double as I + s·(…) with
/// s = 2/|q|² (exact for any non-zero q, no square root), so the axes are orthonormal to double
/// rounding whatever the float rounding of q. The one definition that the exact narrow test, its
/// batched lanes and the scene's box bounds share.
static inline cd_mat3 cd_quat_axes(double w, double x, double y, double z)
{
    double s = 2.0 / (w * w + x * x + y * y + z * z);
    double xx = s * x * x, yy = s * y * y, zz = s * z * z, xy = s * x * y, xz = s * x * z, yz = s * y * z;
    double wx = s * w * x, wy = s * w * y, wz = s * w * z;
    return (cd_mat3){{cd_v3(1 - (yy + zz), xy + wz, xz - wy), cd_v3(xy - wz, 1 - (xx + zz), yz + wx),
                      cd_v3(xz + wy, yz - wx, 1 - (xx + yy))}};
}

/// The box a pose record stands for, exactly: centre and half-extents read from the floats, axes
/// cd_quat_axes of its quaternion.
static inline cd_obb cd_posef_obb(const cd_posef *p)
{
    return (cd_obb){cd_v3(p->c[0], p->c[1], p->c[2]), cd_quat_axes(p->q[0], p->q[1], p->q[2], p->q[3]),
                    cd_v3(p->h[0], p->h[1], p->h[2])};
}

/// The oriented box with centre c, rotation q (unit) and half-extents half.
cd_obb cd_obb_from_pose(cd_vec3 c, cd_quat q, cd_vec3 half);

/// Projected radius of b on world axis i (|axis_0[i]|·h0 + |axis_1[i]|·h1 + |axis_2[i]|·h2).
static inline double cd_obb_world_radius(const cd_obb *b, int i)
{
    return fabs(cd_v3_get(b->axes.col[0], i)) * b->half.x + fabs(cd_v3_get(b->axes.col[1], i)) * b->half.y +
           fabs(cd_v3_get(b->axes.col[2], i)) * b->half.z;
}

/// World AABB enclosing b, rounded outward by one ulp on each bound after a margin that covers
/// the rounding of the radius sum and of the corners as cd_obb_corners computes them.
cd_aabb cd_obb_aabb(const cd_obb *b);
/// Smallest AABB of a set of points (exact: min/max are exact operations).
cd_aabb cd_aabb_of_points(const cd_vec3 *p, size_t n);
/// Union of two AABBs.
static inline cd_aabb cd_aabb_union(cd_aabb a, cd_aabb b)
{
    return (cd_aabb){cd_v3_min(a.lo, b.lo), cd_v3_max(a.hi, b.hi)};
}
/// True when every point of inner lies in outer (closed boxes).
static inline int cd_aabb_contains(cd_aabb outer, cd_aabb inner)
{
    return outer.lo.x <= inner.lo.x && outer.lo.y <= inner.lo.y && outer.lo.z <= inner.lo.z &&
           inner.hi.x <= outer.hi.x && inner.hi.y <= outer.hi.y && inner.hi.z <= outer.hi.z;
}
/// Sphere enclosing the AABB (centre at its middle), radius rounded outward.
cd_sphere cd_aabb_bounding_sphere(cd_aabb a);
/// Sphere enclosing b, radius rounded outward.
cd_sphere cd_obb_bounding_sphere(const cd_obb *b);
/// The eight corners of b.
void cd_obb_corners(const cd_obb *b, cd_vec3 out[8]);

// Bit arithmetic instead of libm's nextafter: it is called six times per cube per frame, where a
// library call is a large share of the motion step. Same results as nextafter.
static inline double cd_bits_to_double(uint64_t u)
{
    union {
        uint64_t u;
        double d;
    } b = {.u = u};
    return b.d;
}
static inline uint64_t cd_double_to_bits(double x)
{
    union {
        double d;
        uint64_t u;
    } b = {.d = x};
    return b.u;
}
/// Round x up to the next representable double (toward +inf); equals nextafter(x, INFINITY).
static inline double cd_round_up(double x)
{
    if (!(x < INFINITY)) return x;   // +inf and NaN stay
    if (x == 0.0) return 0x1p-1074;  // ±0 → smallest subnormal
    uint64_t u = cd_double_to_bits(x);
    return cd_bits_to_double(x > 0.0 ? u + 1 : u - 1);
}
/// Round x down to the next representable double (toward -inf); equals nextafter(x, -INFINITY).
static inline double cd_round_down(double x)
{
    if (!(x > -INFINITY)) return x;  // -inf and NaN stay
    if (x == 0.0) return -0x1p-1074;
    uint64_t u = cd_double_to_bits(x);
    return cd_bits_to_double(x > 0.0 ? u - 1 : u + 1);
}

/// Next float toward −inf (f not NaN; −inf stays). Bit arithmetic with selects, no branches, so
/// loops that round many bounds vectorise; same results as nextafterf(f, −INFINITY).
static inline float cd_float_next_down(float f)
{
    union {
        float f;
        uint32_t u;
    } b = {.f = f};
    uint32_t u = b.u, r = u + 2u * (u >> 31) - 1u;  // magnitude grows below zero, shrinks above
    r = (u & 0x7fffffffu) == 0 ? 0x80000001u : r;   // ±0 → −denorm_min
    r = u == 0xff800000u ? u : r;                   // −inf has nothing below
    b.u = r;
    return b.f;
}
/// Next float toward +inf (f not NaN).
static inline float cd_float_next_up(float f) { return -cd_float_next_down(-f); }
/// A float strictly below d (d not NaN, |d| ≤ FLT_MAX): the largest float < d when (float)d
/// rounds to d or above, else (float)d. Strict, so it also covers a rounding of d itself: when d
/// is a rounded double, the float lies at least one double ulp below it.
static inline float cd_float_below(double d)
{
    float f = (float)d;
    return (double)f >= d ? cd_float_next_down(f) : f;
}
/// A float strictly above d (the mirror of cd_float_below).
static inline float cd_float_above(double d) { return -cd_float_below(-d); }
#endif
