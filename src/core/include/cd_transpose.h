// SPDX-License-Identifier: MIT
// The 8 × 8 float transpose on AVX2 registers, shared by the narrow step (records to lanes) and
// the motion step (columns to records). Include only where CD_X86_SIMD is 1.
#ifndef CD_TRANSPOSE_H
#define CD_TRANSPOSE_H

#include <immintrin.h>

/// f[j] holds element j of every r[k] (f[j][k] = r[k][j]): the usual 8 × 8 transpose, 24 shuffles.
__attribute__((always_inline, target("avx2"))) static inline void cd_transpose8(const __m256 r[8], __m256 f[8])
{
    __m256 t[8], u[8];
    for (int k = 0; k < 8; k += 2)
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]), t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44), u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
        u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44), u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    for (int k = 0; k < 4; ++k)
        f[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20), f[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
}

#endif
