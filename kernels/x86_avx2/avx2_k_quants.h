#pragma once
// Unpacking of K-quant super-blocks into AVX2 registers, shared by vec_dot and gemm.
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/k_quant_chunks.h"
#include "kernels/x86_avx2/low_bit_k_scales.h"

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

// ---- Helpers for the decode dot products, built so that GCC keeps everything in registers.

// Q4_K/Q5_K: the 12 bytes of packed 6-bit scales and mins of one super-block per 128-bit lane
// (as loaded: dwords w0 w1 w2 and one ignored) as bytes: bytes 0-7 of each lane the scales,
// 8-15 the mins (the layout of unpack_k4_scales).
inline __m256i unpack_k4_scale_lanes(__m256i words) {
    // Low bits: w0 & 3f, w2 & 0f, w1 & 3f, (w2 >> 4) & 0f.
    const __m256i low_words = _mm256_srlv_epi32(_mm256_shuffle_epi32(words, _MM_SHUFFLE(2, 1, 2, 0)),
                                                _mm256_setr_epi32(0, 0, 0, 4, 0, 0, 0, 4));
    const __m256i low =
        _mm256_and_si256(low_words, _mm256_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f,
                                                      0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
    // High bits of scales and mins 4-7: the top two bits of w0 and w1, moved to bits 4-5.
    const __m256i high =
        _mm256_and_si256(_mm256_srli_epi32(_mm256_shuffle_epi32(words, _MM_SHUFFLE(1, 0, 0, 0)), 2),
                         _mm256_setr_epi32(0, 0x30303030, 0, 0x30303030, 0, 0x30303030, 0, 0x30303030));
    return _mm256_or_si256(low, high);
}
// The same for one super-block, in both lanes. Reads 16 bytes at `packed`: the 4 after the
// scales belong to the same block.
inline __m256i unpack_k4_scale_bytes(const uint8_t* packed) {
    return unpack_k4_scale_lanes(_mm256_broadcastsi128_si256(load128(packed)));
}

// From unpack_k4_scale_bytes: per dword, scale j zero-extended into both of its 16-bit words,
// scales 0-3 in the low lane and 4-7 in the high one. Stored, each becomes a madd operand
// with one vpbroadcastd from memory, which costs a load instead of a shuffle.
inline __m256i k4_scale_pairs(__m256i scale_bytes) {
    constexpr char z = char(0x80);
    return _mm256_shuffle_epi8(scale_bytes,
                               _mm256_setr_epi8(0, z, 0, z, 1, z, 1, z, 2, z, 2, z, 3, z, 3, z, //
                                                4, z, 4, z, 5, z, 5, z, 6, z, 6, z, 7, z, 7, z));
}
// From unpack_k4_scale_bytes: the 8 mins as int16.
inline __m128i k4_mins(__m256i scale_bytes) {
    constexpr char z = char(0x80);
    return _mm_shuffle_epi8(_mm256_castsi256_si128(scale_bytes),
                            _mm_setr_epi8(8, z, 9, z, 10, z, 11, z, 12, z, 13, z, 14, z, 15, z));
}

// The same for two super-blocks, one per lane (from unpack_k4_scale_lanes): scales 0-3 of
// each lane's block, and scales 4-7.
inline __m256i k4_scale_pairs_low(__m256i scale_bytes) {
    constexpr char z = char(0x80);
    const __m128i pick = _mm_setr_epi8(0, z, 0, z, 1, z, 1, z, 2, z, 2, z, 3, z, 3, z);
    return _mm256_shuffle_epi8(scale_bytes, _mm256_setr_m128i(pick, pick));
}
inline __m256i k4_scale_pairs_high(__m256i scale_bytes) {
    constexpr char z = char(0x80);
    const __m128i pick = _mm_setr_epi8(4, z, 4, z, 5, z, 5, z, 6, z, 6, z, 7, z, 7, z);
    return _mm256_shuffle_epi8(scale_bytes, _mm256_setr_m128i(pick, pick));
}
// The 8 mins of each lane's block as int16.
inline __m256i k4_mins_lanes(__m256i scale_bytes) {
    constexpr char z = char(0x80);
    const __m128i pick = _mm_setr_epi8(8, z, 9, z, 10, z, 11, z, 12, z, 13, z, 14, z, 15, z);
    return _mm256_shuffle_epi8(scale_bytes, _mm256_setr_m128i(pick, pick));
}

// A shuffle mask that spreads Q6_K scale `2k` (of the low lane's 8 words) over the low lane and
// scale `2k+1` over the high lane, from a vector holding the same 8 scales in both lanes.
inline __m256i q6k_scale_pick(int k) {
    return _mm256_setr_m128i(_mm_set1_epi16(static_cast<short>(((4 * k + 1) << 8) | (4 * k))),
                             _mm_set1_epi16(static_cast<short>(((4 * k + 3) << 8) | (4 * k + 2))));
}

// The madd operand that weights chunk c's two sub-blocks of 16, from the 16 scales as int16:
// scale 2c on pairs 0-7 (the chunk's first 16 elements), scale 2c+1 on pairs 8-15.
inline __m256i chunk_scales(__m256i scales, int c) {
    return _mm256_shuffle_epi8(broadcast_lane(scales, c / 4), q6k_scale_pick(c % 4));
}

inline int hsum_i32(__m256i v) {
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    sum = _mm_add_epi32(sum, _mm_unpackhi_epi64(sum, sum));
    return _mm_cvtsi128_si32(_mm_add_epi32(sum, _mm_shuffle_epi32(sum, 1)));
}

// Like unpack_q6k_half, with two operations fewer per half: the top two bits are moved to
// bits 4-5 by one 16-bit shift each (bits pushed over from the neighbouring byte are masked).
inline void unpack_q6k_half_lean(const uint8_t* ql, const uint8_t* qh, __m256i q[4]) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), bits45 = _mm256_set1_epi8(0x30);
    const __m256i l0 = load256(ql), l1 = load256(ql + 32), h = load256(qh);
    q[0] = _mm256_or_si256(_mm256_and_si256(l0, low4), _mm256_and_si256(_mm256_slli_epi16(h, 4), bits45));
    q[1] = _mm256_or_si256(_mm256_and_si256(l1, low4), _mm256_and_si256(_mm256_slli_epi16(h, 2), bits45));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), low4), _mm256_and_si256(h, bits45));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), low4),
                           _mm256_and_si256(_mm256_srli_epi16(h, 2), bits45));
}

} // namespace hearth::kernels::avx2
