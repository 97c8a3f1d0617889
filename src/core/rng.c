// SPDX-License-Identifier: MIT
// xoshiro256** (Blackman & Vigna) seeded through splitmix64: fast, 256-bit state, and the same
// sequence on every platform, which the golden tests pin.
#include "cd_core.h"

uint64_t cd_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

cd_rng cd_rng_make(uint64_t seed, uint64_t stream)
{
    uint64_t sm = seed ^ (stream * 0xd1342543de82ef95ULL);
    cd_rng r;
    for (int i = 0; i < 4; ++i) r.s[i] = cd_splitmix64(&sm);
    return r;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cd_rng_next(cd_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double cd_rng_uniform(cd_rng *r) { return (double)(cd_rng_next(r) >> 11) * 0x1.0p-53; }

double cd_rng_range(cd_rng *r, double lo, double hi) { return lo + (hi - lo) * cd_rng_uniform(r); }

uint64_t cd_rng_below(cd_rng *r, uint64_t n)
{
    CD_ASSERT(n > 0);
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = cd_rng_next(r);
    while (x >= limit);
    return x % n;
}

cd_quat cd_rng_rotation(cd_rng *r)
{
    // Shoemake, "Uniform random rotations", Graphics Gems III.
    const double two_pi = 6.283185307179586476925286766559;
    double u1 = cd_rng_uniform(r), u2 = cd_rng_uniform(r), u3 = cd_rng_uniform(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    cd_quat q = {a * sin(two_pi * u2), a * cos(two_pi * u2), b * sin(two_pi * u3), b * cos(two_pi * u3)};
    return cd_q_normalize(q);
}

cd_vec3 cd_rng_unit_vector(cd_rng *r)
{
    const double two_pi = 6.283185307179586476925286766559;
    double z = cd_rng_range(r, -1.0, 1.0);
    double phi = two_pi * cd_rng_uniform(r);
    double s = sqrt(fmax(0.0, 1.0 - z * z));
    return cd_v3(s * cos(phi), s * sin(phi), z);
}
