// Dequantizers of the formats read most often (embedding rows, float fallbacks). Each value is
// computed with the reference's float operations, so results are bit-identical.
#include "kernels/block_formats.h"
#include "kernels/x86_avx2/avx2_k_quants.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/k_quant_chunks.h"
#include "kernels/x86_avx2/legacy_block_quants.h"

namespace hearth::kernels::avx2 {
namespace {

// Stores 32 int8 times d as 32 floats.
inline void store_scaled(__m256i q, float d, float* dst) {
    const __m256 scale = _mm256_set1_ps(d);
    const __m128i low = _mm256_castsi256_si128(q), high = _mm256_extracti128_si256(q, 1);
    _mm256_storeu_ps(dst, _mm256_mul_ps(scale, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(low))));
    _mm256_storeu_ps(dst + 8,
                     _mm256_mul_ps(scale, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(low, 8)))));
    _mm256_storeu_ps(dst + 16, _mm256_mul_ps(scale, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(high))));
    _mm256_storeu_ps(dst + 24,
                     _mm256_mul_ps(scale, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(high, 8)))));
}

// Stores d * q - m (Q4_K, Q5_K: kSubtract) or d * q + m (Q4_1, Q5_1) for 32 unsigned quants q,
// multiply first, as the reference does.
template <bool kSubtract> inline void store_scaled_offset(__m256i q, float d, float m, float* dst) {
    const __m256 scale = _mm256_set1_ps(d), offset = _mm256_set1_ps(m);
    const __m128i low = _mm256_castsi256_si128(q), high = _mm256_extracti128_si256(q, 1);
    const __m128i parts[4] = {low, _mm_srli_si128(low, 8), high, _mm_srli_si128(high, 8)};
    for (int k = 0; k < 4; ++k) {
        const __m256 scaled = _mm256_mul_ps(scale, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(parts[k])));
        _mm256_storeu_ps(dst + 8 * k,
                         kSubtract ? _mm256_sub_ps(scaled, offset) : _mm256_add_ps(scaled, offset));
    }
}

} // namespace

void dequantize_row_f16(const void* src, float* dst, int64_t n) {
    const auto* in = static_cast<const uint16_t*>(src);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(load128(in + i)));
    for (; i < n; ++i)
        dst[i] = fp16_to_float(in[i]);
}

void dequantize_row_bf16(const void* src, float* dst, int64_t n) {
    const auto* in = static_cast<const uint16_t*>(src);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                            _mm256_slli_epi32(_mm256_cvtepu16_epi32(load128(in + i)), 16));
    for (; i < n; ++i) {
        const uint32_t bits = static_cast<uint32_t>(in[i]) << 16;
        std::memcpy(dst + i, &bits, sizeof bits);
    }
}

void dequantize_row_q8_0(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ8_0*>(src);
    for (int64_t b = 0; b < n / QK8_0; ++b)
        store_scaled(load256(blocks[b].qs), fp16_to_float(blocks[b].d), dst + b * QK8_0);
}

void dequantize_row_q4_0(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ4_0*>(src);
    for (int64_t b = 0; b < n / QK4_0; ++b)
        store_scaled(_mm256_sub_epi8(unpack_nibbles_16(blocks[b].qs), _mm256_set1_epi8(8)),
                     fp16_to_float(blocks[b].d), dst + b * QK4_0);
}

void dequantize_row_q5_0(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ5_0*>(src);
    for (int64_t b = 0; b < n / QK5_0; ++b)
        store_scaled(signed_quants(blocks[b]), fp16_to_float(blocks[b].d), dst + b * QK5_0);
}

void dequantize_row_q4_1(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ4_1*>(src);
    for (int64_t b = 0; b < n / QK4_1; ++b)
        store_scaled_offset<false>(unsigned_quants(blocks[b]), fp16_to_float(blocks[b].d),
                                   fp16_to_float(blocks[b].m), dst + b * QK4_1);
}

void dequantize_row_q5_1(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ5_1*>(src);
    for (int64_t b = 0; b < n / QK5_1; ++b)
        store_scaled_offset<false>(unsigned_quants(blocks[b]), fp16_to_float(blocks[b].d),
                                   fp16_to_float(blocks[b].m), dst + b * QK5_1);
}

namespace {

// Q4_K and Q5_K: 8 sub-blocks of 32, each with a six-bit scale and min; quants_of(block, j)
// gives the quants of sub-blocks 2j and 2j + 1.
template <class Block, class QuantsOf>
void dequantize_scaled_with_mins(const void* src, float* dst, int64_t n, QuantsOf quants_of) {
    const auto* blocks = static_cast<const Block*>(src);
    for (int64_t b = 0; b < n / QK_K; ++b) {
        const Block& block = blocks[b];
        uint32_t words[4];
        unpack_k4_scales(block.scales, words);
        const auto* scales = reinterpret_cast<const uint8_t*>(words);
        const uint8_t* mins = scales + 8;
        const float d = fp16_to_float(block.d), dmin = fp16_to_float(block.dmin);
        float* out = dst + b * QK_K;
        for (int j = 0; j < 4; ++j) {
            const QuantPair q = quants_of(block, j);
            store_scaled_offset<true>(q.low, d * scales[2 * j], dmin * mins[2 * j], out + 64 * j);
            store_scaled_offset<true>(q.high, d * scales[2 * j + 1], dmin * mins[2 * j + 1],
                                      out + 64 * j + 32);
        }
    }
}

} // namespace

void dequantize_row_q4_K(const void* src, float* dst, int64_t n) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    dequantize_scaled_with_mins<BlockQ4_K>(src, dst, n, [&](const BlockQ4_K& block, int j) {
        const __m256i q = load256(block.qs + 32 * j);
        return QuantPair{_mm256_and_si256(q, low4), _mm256_and_si256(_mm256_srli_epi16(q, 4), low4)};
    });
}

void dequantize_row_q5_K(const void* src, float* dst, int64_t n) {
    dequantize_scaled_with_mins<BlockQ5_K>(src, dst, n, [](const BlockQ5_K& block, int j) {
        return q5k_quant_pair(block.qs, load256(block.qh), j);
    });
}

void dequantize_row_q6_K(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ6_K*>(src);
    for (int64_t b = 0; b < n / QK_K; ++b) {
        const BlockQ6_K& block = blocks[b];
        const float d = fp16_to_float(block.d);
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6k_half(block.ql + 64 * half, block.qh + 32 * half, q);
            for (int k = 0; k < 4; ++k) {
                // Two scales per 32 quants: one for each 16. Offset the quants to -32..31 first.
                const __m256i centred = _mm256_sub_epi8(q[k], _mm256_set1_epi8(32));
                float* out = dst + b * QK_K + 128 * half + 32 * k;
                alignas(32) float tmp[32];
                store_scaled(centred, 1.0f, tmp);
                const float s0 = d * block.scales[8 * half + 2 * k],
                            s1 = d * block.scales[8 * half + 2 * k + 1];
                for (int e = 0; e < 16; e += 8) {
                    _mm256_storeu_ps(out + e, _mm256_mul_ps(_mm256_set1_ps(s0), _mm256_load_ps(tmp + e)));
                    _mm256_storeu_ps(out + 16 + e,
                                     _mm256_mul_ps(_mm256_set1_ps(s1), _mm256_load_ps(tmp + 16 + e)));
                }
            }
        }
    }
}

} // namespace hearth::kernels::avx2
