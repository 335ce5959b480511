#pragma once
// Unpacking of K-quant super-blocks into AVX2 registers, shared by vec_dot and gemm.
#include "kernels/x86_avx2/avx2_util.h"

namespace hearth::kernels::avx2 {

inline __m256i load256(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
inline __m128i load128(const void* p) {
    return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

// Q4_K/Q5_K scales as 8 int16 in both lanes, mins as 8 int16.
struct K4Scales {
    __m256i scales;
    __m128i mins;
};
inline K4Scales unpack_k4(const uint8_t* packed) {
    uint32_t words[4];
    unpack_k4_scales(packed, words);
    const __m256i both = _mm256_cvtepu8_epi16(load128(words));
    return {_mm256_broadcastsi128_si256(_mm256_castsi256_si128(both)), _mm256_extracti128_si256(both, 1)};
}

// 4 int32 whose sum is sum_j mins[j] * (sum of the 32 activations of sub-block j).
inline __m128i min_dot_bsums(__m128i mins, const int16_t* bsums) {
    const __m128i pair_sums = _mm_hadd_epi16(load128(bsums), load128(bsums + 8));
    return _mm_madd_epi16(mins, pair_sums);
}

// 8 int32 of scale[sub_block] * dot(q, x) over 32 elements (q unsigned, x signed).
inline __m256i scaled_dot(__m256i q, __m256i x, __m256i scales, int sub_block) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(q, x), _mm256_shuffle_epi8(scales, pick_word(sub_block)));
}

// Q6_K: the 16 int8 scales as int16 (scales 0-7 in the low lane, 8-15 in the high one).
inline __m256i q6k_scales(const int8_t* scales) {
    return _mm256_cvtepi8_epi16(load128(scales));
}
inline __m256i broadcast_lane(__m256i v, int lane) {
    return lane == 0 ? _mm256_permute2x128_si256(v, v, 0x00) : _mm256_permute2x128_si256(v, v, 0x11);
}

// One half (128 elements) of a Q6_K super-block as four vectors of 32 unsigned quants (0..63),
// elements 32k..32k+31 in q[k]. ql holds the low 4 bits: bytes 0-31 of elements 0-31 (low
// nibble) and 64-95 (high nibble), bytes 32-63 likewise for 32-63 and 96-127; qh byte l holds
// the top 2 bits of elements l, l+32, l+64, l+96 in bits 0-1, 2-3, 4-5, 6-7.
inline void unpack_q6k_half(const uint8_t* ql, const uint8_t* qh, __m256i q[4]) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), two = _mm256_set1_epi8(0x03);
    const __m256i l0 = load256(ql), l1 = load256(ql + 32), h = load256(qh);
    q[0] = _mm256_or_si256(_mm256_and_si256(l0, low4), _mm256_slli_epi16(_mm256_and_si256(h, two), 4));
    q[1] = _mm256_or_si256(_mm256_and_si256(l1, low4),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), two), 4));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), low4),
                           _mm256_and_si256(h, _mm256_set1_epi8(0x30)));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), low4),
                           _mm256_srli_epi16(_mm256_and_si256(h, _mm256_set1_epi8(char(0xC0))), 2));
}

} // namespace hearth::kernels::avx2
