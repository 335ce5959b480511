#pragma once
// The scales of Q2_K and Q3_K super-blocks unpacked into int16 vectors, shared by the AVX2 tier,
// the AVX-512 tier's decode (low_bit_k_avx512.cpp) and the VNNI tiers' prefill panels
// (x86_vnni_shared/gemm_k_quants.h), which are compiled with different flags: the anonymous
// namespace gives each translation unit its own copy, so no tier links another's code.
#include <cstdint>
#include <cstring>
#include <immintrin.h>

namespace hearth::kernels {
namespace {

inline uint32_t read_u32(const uint8_t* bytes) {
    uint32_t word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

// Q2_K's 16 scales (low nibbles) and mins (high nibbles) as int16.
struct Q2KScales {
    __m256i scales, mins;
};
inline Q2KScales q2k_scales(const uint8_t* packed) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed)),
                  low4 = _mm_set1_epi8(0x0f);
    return {_mm256_cvtepu8_epi16(_mm_and_si128(bytes, low4)),
            _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(bytes, 4), low4))};
}

// Q3_K's 16 six-bit scales minus 32 as int16 (unpack_scales_q3_K's layout): the low 4 bits in the
// nibbles of bytes 0-7, the top 2 of scale 4m + r at bits 2m of byte 8 + r. Reads the 12 bytes only.
inline __m256i q3k_scales(const uint8_t* packed) {
    const __m128i nibbles = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(packed));
    const __m128i low4 = _mm_set1_epi8(0x0f);
    const __m128i low =
        _mm_unpacklo_epi64(_mm_and_si128(nibbles, low4), _mm_and_si128(_mm_srli_epi16(nibbles, 4), low4));
    const __m128i top = _mm_and_si128(
        _mm_srlv_epi32(_mm_set1_epi32(static_cast<int>(read_u32(packed + 8))), _mm_setr_epi32(0, 2, 4, 6)),
        _mm_set1_epi8(3));
    return _mm256_cvtepi8_epi16(_mm_sub_epi8(_mm_or_si128(low, _mm_slli_epi16(top, 4)), _mm_set1_epi8(32)));
}

// What q3k_chunk's "q - 4 where the high bit is clear" takes off a super-block's sum: 4 * scale *
// (sum of each 16 activations), negated, as 8 int32.
inline __m256i q3k_offset_terms(__m256i scales, const int16_t* bsums) {
    return _mm256_sub_epi32(
        _mm256_setzero_si256(),
        _mm256_slli_epi32(
            _mm256_madd_epi16(scales, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bsums))), 2));
}

} // namespace
} // namespace hearth::kernels
