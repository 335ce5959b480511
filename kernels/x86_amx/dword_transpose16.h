#pragma once
// A 16 x 16 transpose of dwords in zmm registers, for the AMX kernels that turn rows into the
// pair layout of a B tile (attention_amx.cpp, gemm_bf16_amx.cpp). AVX-512 F alone; the anonymous
// namespace gives each translation unit its own copy.
#include <immintrin.h>

namespace hearth::kernels::amx {
namespace {

// 16 rows of 16 dwords transposed in place.
[[gnu::always_inline]] inline void transpose16(__m512i (&r)[16]) {
    __m512i a[16], b[16];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
        b[4 * i] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
        b[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
    }
    // b[4 i + j], 128-bit lane L: column 4 L + j of rows 4 i .. 4 i + 3.
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
        const __m512i even_lanes_01 = _mm512_shuffle_i32x4(b[j], b[4 + j], 0x88);
        const __m512i odd_lanes_01 = _mm512_shuffle_i32x4(b[j], b[4 + j], 0xdd);
        const __m512i even_lanes_23 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0x88);
        const __m512i odd_lanes_23 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0xdd);
        r[j] = _mm512_shuffle_i32x4(even_lanes_01, even_lanes_23, 0x88);
        r[8 + j] = _mm512_shuffle_i32x4(even_lanes_01, even_lanes_23, 0xdd);
        r[4 + j] = _mm512_shuffle_i32x4(odd_lanes_01, odd_lanes_23, 0x88);
        r[12 + j] = _mm512_shuffle_i32x4(odd_lanes_01, odd_lanes_23, 0xdd);
    }
}

} // namespace
} // namespace hearth::kernels::amx
