#pragma once
// An 8 x 8 transpose of dwords, for kernels that keep 8 weight rows in the 8 lanes of a vector.
// Included by tiers compiled with different flags (x86_avx2/, x86_avxvnni/, x86_avx512/): the anonymous
// namespace gives each translation unit its own copy, so no tier links another's code.
#include <immintrin.h>

namespace hearth::kernels {
namespace {

// 8 rows of 8 dwords -> 8 vectors: out[c] holds dword c of every row, row r in dword r.
inline void transpose_8x8_dwords(const __m256i (&in)[8], __m256i (&out)[8]) {
    __m256i t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_epi32(in[k], in[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi32(in[k], in[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);
        u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
        u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
        u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    for (int k = 0; k < 4; ++k) {
        out[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
        out[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
    }
}

} // namespace
} // namespace hearth::kernels
