#pragma once
// K-quant super-blocks' quants as bytes in element order, 32 elements (a chunk) per vector: the
// 2-bit quants of Q2_K and Q3_K with Q3_K's high bit, and Q5_K's 5-bit quants. Shared by the
// AVX2 kernels and the VNNI tiers' prefill panels, which are compiled with different flags: the
// anonymous namespace gives each translation unit its own copy, so no tier links another's code.
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels {
namespace {

// Q2_K and Q3_K: the 2-bit quants of chunk c (elements 32c..32c+31) sit at bits 2(c%4) of the
// 32 bytes of their half, qs[32 * (c/4)..].
inline __m256i two_bit_chunk(__m256i half_bytes, int c) {
    return _mm256_and_si256(_mm256_srli_epi16(half_bytes, 2 * (c % 4)), _mm256_set1_epi8(3));
}
// Q3_K's quants of chunk c as 0..7: the 2-bit part and the high bit (bit c of hmask[l] for
// element 32c + l) at bit 2. A set high bit means q; a clear one q - 4, which the kernels take
// off as 4 * scale * (sum of each 16 activations).
inline __m256i q3k_chunk(__m256i half_bytes, __m256i high_bits, int c) {
    const __m256i moved = c < 2 ? _mm256_slli_epi16(high_bits, 2 - c) : _mm256_srli_epi16(high_bits, c - 2);
    return _mm256_or_si256(two_bit_chunk(half_bytes, c), _mm256_and_si256(moved, _mm256_set1_epi8(4)));
}

// Q5_K's quants 0..31 of sub-blocks 2j (low nibbles of qs[32j..]) and 2j+1 (their high
// nibbles). `high_bits` holds the block's 32 qh bytes: bit 2j of qh[l] is the fifth bit of
// element 64j+l, bit 2j+1 that of element 64j+32+l; one 16-bit shift moves it to bit 4 (bits
// pushed over from the neighbouring byte are masked).
struct QuantPair {
    __m256i low, high;
};
inline QuantPair q5k_quant_pair(const uint8_t* qs, __m256i high_bits, int j) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), bit4 = _mm256_set1_epi8(0x10);
    const auto fifth_bit = [&](int bit) {
        const __m256i moved = bit < 4   ? _mm256_slli_epi16(high_bits, 4 - bit)
                              : bit > 4 ? _mm256_srli_epi16(high_bits, bit - 4)
                                        : high_bits;
        return _mm256_and_si256(moved, bit4);
    };
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 32 * j));
    return {_mm256_or_si256(_mm256_and_si256(q, low4), fifth_bit(2 * j)),
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), low4), fifth_bit(2 * j + 1))};
}

} // namespace
} // namespace hearth::kernels
