#pragma once
// Loads of float weight and activation rows (F32, F16, BF16) as 8 floats, ggml's reduction of
// its four F32 dot-product accumulators, and the lane sums of the F16/BF16 dot products and gemm.
// Include only from kernels/x86_avx2/*.cpp and the AVX-512 tier's gemm_float_avx512.cpp.
#include "kernels/x86_avx2/avx2_util.h"

#include <cstring>

namespace hearth::kernels::avx2 {

inline __m256 load8(const float* p) {
    return _mm256_loadu_ps(p);
}
inline __m256 load8(const uint16_t* p, bool is_bf16) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (is_bf16) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(half), 16));
    return _mm256_cvtph_ps(half);
}
inline float load1(const float* p) {
    return *p;
}
inline float load1(const uint16_t* p, bool is_bf16) {
    if (is_bf16) {
        const uint32_t bits = static_cast<uint32_t>(*p) << 16;
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
    return fp16_to_float(*p);
}

// ggml's GGML_F32x8_REDUCE: (0 + 2) + (1 + 3), then the 128-bit halves, then pairwise.
inline float reduce_like_ggml(__m256 acc0, __m256 acc1, __m256 acc2, __m256 acc3) {
    const __m256 r = _mm256_add_ps(_mm256_add_ps(acc0, acc2), _mm256_add_ps(acc1, acc3));
    const __m128 t0 = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
    const __m128 t1 = _mm_hadd_ps(t0, t0);
    return _mm_cvtss_f32(_mm_hadd_ps(t1, t1));
}

// The sum of an accumulator's 8 lanes, ((0+1)+(2+3))+((4+5)+(6+7)), and of four accumulators' at
// once in the same order: the F16/BF16 products' order, whichever kernel or tile computes a pair.
inline float lane_sum(__m256 a) {
    const __m256 h = _mm256_hadd_ps(a, a);
    const __m256 q = _mm256_hadd_ps(h, h);
    return _mm_cvtss_f32(_mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1)));
}
inline __m128 lane_sums(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
    const __m256 q = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
    return _mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1));
}

} // namespace hearth::kernels::avx2
