// SPDX-License-Identifier: MIT
// The frame's separating-axis test on SAT_W cube pairs at once, in the lanes of GCC's generic
// vectors of doubles. Private to broad.c, which includes it once per width: define SAT_W (4 or 8)
// first, and SAT_TARGET (a target attribute string) where the vectors are wider than the
// baseline's registers: GCC lowers generic vectors by the function's own target, so without it
// an always-inlined eight-lane body would be split into scalar compares. It defines lanesW, maskW,
// obbW (centre, axes as columns, half-extents of SAT_W cubes), obbW_axes (the axes from
// quaternions) and satW_of (bit k set when the cubes in lane k overlap).
// Every lane evaluates cd_quat_axes's and cd_obb_obb_overlap_axis's expressions in their order
// (-ffp-contract=off keeps FMA out of every build), so each answer has the scalar test's bits;
// tests/test_broad.c checks that lane by lane for every build the CPU runs.
#ifndef SAT_W
#error "define SAT_W before including sat_lanes.h"
#endif

#ifdef SAT_TARGET
#define SAT_INLINE __attribute__((always_inline, target(SAT_TARGET))) static inline
#else
#define SAT_INLINE __attribute__((always_inline)) static inline
#endif
#define SAT_CAT2(a, b) a##b
#define SAT_CAT(a, b) SAT_CAT2(a, b)
#define SAT_LANES SAT_CAT(lanes, SAT_W)
#define SAT_MASK SAT_CAT(mask, SAT_W)
#define SAT_OBB SAT_CAT(obb, SAT_W)

typedef double SAT_LANES __attribute__((vector_size(8 * SAT_W)));
typedef int64_t SAT_MASK __attribute__((vector_size(8 * SAT_W)));

typedef struct SAT_OBB {
    SAT_LANES c[3], ax[3][3], e[3];
} SAT_OBB;

// Macros, not functions: a function taking or returning a vector wider than the build's registers
// outside an always-inlined body would change the ABI.
#define SAT_ABS(x) ((SAT_LANES)((SAT_MASK)(x) & ~((SAT_MASK){0} + INT64_MIN)))
#define SAT_ALL(m, all)                                                 \
    do {                                                                \
        int64_t and_ = -1;                                              \
        for (int l_ = 0; l_ < SAT_W; ++l_) and_ &= (m)[l_];             \
        (all) = and_ != 0;                                              \
    } while (0)

// The axes of the cubes from their quaternions (w, x, y, z), as cd_quat_axes computes them.
SAT_INLINE void SAT_CAT(SAT_OBB, _axes)(SAT_OBB *o, SAT_LANES w, SAT_LANES x,
                                                                          SAT_LANES y, SAT_LANES z)
{
    SAT_LANES s = 2.0 / (w * w + x * x + y * y + z * z);
    SAT_LANES xx = s * x * x, yy = s * y * y, zz = s * z * z, xy = s * x * y, xz = s * x * z, yz = s * y * z;
    SAT_LANES wx = s * w * x, wy = s * w * y, wz = s * w * z;
    const SAT_LANES one = (SAT_LANES){0} + 1.0;
    o->ax[0][0] = one - (yy + zz), o->ax[0][1] = xy + wz, o->ax[0][2] = xz - wy;
    o->ax[1][0] = xy - wz, o->ax[1][1] = one - (xx + zz), o->ax[1][2] = yz + wx;
    o->ax[2][0] = xz + wy, o->ax[2][1] = yz - wx, o->ax[2][2] = one - (xx + yy);
}

// Bit k set when the cubes in lane k of pa and pb overlap (cd_obb_obb_overlap of their
// cd_scene_obb). Inlined into each build, the same code for any CPU.
SAT_INLINE unsigned SAT_CAT(SAT_CAT(sat, SAT_W), _of)(const SAT_OBB *pa,
                                                                                      const SAT_OBB *pb)
{
    const SAT_OBB a = *pa, b = *pb;
    const SAT_LANES eps = (SAT_LANES){0} + CD_SAT_EPSILON;
    SAT_LANES R[3][3], AR[3][3], t[3], d[3];
    for (int k = 0; k < 3; ++k) d[k] = b.c[k] - a.c[k];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            R[i][j] = a.ax[i][0] * b.ax[j][0] + a.ax[i][1] * b.ax[j][1] + a.ax[i][2] * b.ax[j][2];
            AR[i][j] = SAT_ABS(R[i][j]) + eps;
        }
        t[i] = d[0] * a.ax[i][0] + d[1] * a.ax[i][1] + d[2] * a.ax[i][2];
    }
    SAT_MASK sep = {0};
    int all;
    for (int i = 0; i < 3; ++i)  // faces of a
        sep |= SAT_ABS(t[i]) > a.e[i] + (b.e[0] * AR[i][0] + b.e[1] * AR[i][1] + b.e[2] * AR[i][2]);
    SAT_ALL(sep, all);
    if (all) return 0;
    for (int j = 0; j < 3; ++j) {  // faces of b
        SAT_LANES ra = a.e[0] * AR[0][j] + a.e[1] * AR[1][j] + a.e[2] * AR[2][j];
        SAT_LANES tj = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        sep |= SAT_ABS(tj) > ra + b.e[j];
    }
    SAT_ALL(sep, all);
    if (all) return 0;
    for (int i = 0; i < 3; ++i) {  // edge cross products a_i × b_j
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            SAT_LANES ra = a.e[i1] * AR[i2][j] + a.e[i2] * AR[i1][j];
            SAT_LANES rb = b.e[j1] * AR[i][j2] + b.e[j2] * AR[i][j1];
            SAT_LANES tl = t[i2] * R[i1][j] - t[i1] * R[i2][j];
            sep |= SAT_ABS(tl) > ra + rb;
        }
    }
    unsigned hit = 0;
    for (int l = 0; l < SAT_W; ++l) hit |= (unsigned)(sep[l] == 0) << l;
    return hit;
}

#undef SAT_ALL
#undef SAT_ABS
#undef SAT_OBB
#undef SAT_MASK
#undef SAT_LANES
#undef SAT_CAT
#undef SAT_CAT2
#undef SAT_W
#undef SAT_TARGET
#undef SAT_INLINE
