// Shared by the VNNI tiers: compiled once by x86_avxvnni/vec_dot_q8_0_family_avxvnni.cpp and once by
// x86_avx512/vec_dot_q8_0_family_avx512.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// The tier's dot products of the 32-element formats with one Q8_0 activation row (matmul's
// decode takes the gemm's own row kernel, gemm_q8_0_family.cpp). Each block's integer dot is
// exact: vpdpbusd of the unsigned quants with the activations, less offset times the
// activations' sum (one more vpdpbusd, against a vector of the offset); then one FMA per block
// with the product of the two scales.
#pragma once
#include "kernels/x86_vnni_shared/q8_0_family.h"

namespace hearth::kernels::HEARTH_VNNI_NS {
namespace q8_0_family {
namespace {

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// Adds block i's d * dx * dot(u - offset, x) (and m * dx * sum(x)) to acc.
template <class Format>
[[gnu::always_inline]] inline __m256 add_block(const typename Format::Block& w, const BlockQ8_0& a,
                                               __m256 acc) {
    const __m256i x = load_bytes(a.qs);
    const __m256i u = Format::unsigned_quants(w);
    const float dx = fp16_to_float(a.d);
    const __m256i zero = _mm256_setzero_si256();
    if constexpr (Format::kHasMin) {
        const __m256i dot = dpbusd(zero, u, x);
        const __m256i sum = dpbusd(zero, _mm256_set1_epi8(1), x);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w.d) * dx), _mm256_cvtepi32_ps(dot), acc);
        return _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w.m) * dx), _mm256_cvtepi32_ps(sum), acc);
    } else {
        const __m256i offset_sum = dpbusd(zero, _mm256_set1_epi8(static_cast<char>(Format::kOffset)), x);
        const __m256i dot = _mm256_sub_epi32(dpbusd(zero, u, x), offset_sum);
        return _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w.d) * dx), _mm256_cvtepi32_ps(dot), acc);
    }
}

} // namespace

template <class Format> float vec_dot(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const typename Format::Block*>(weight_row);
    const auto* a = static_cast<const BlockQ8_0*>(activation_row);
    const int64_t blocks = n / QK8_0;
    // Two accumulators, so that consecutive blocks' FMAs do not wait on each other.
    __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 2 <= blocks; i += 2) {
        even = add_block<Format>(w[i], a[i], even);
        odd = add_block<Format>(w[i + 1], a[i + 1], odd);
    }
    if (i < blocks) even = add_block<Format>(w[i], a[i], even);
    return hsum(_mm256_add_ps(even, odd));
}

template float vec_dot<Q8_0Format>(int64_t, const void*, const void*);
template float vec_dot<Q4_0Format>(int64_t, const void*, const void*);
template float vec_dot<Q5_0Format>(int64_t, const void*, const void*);
template float vec_dot<Q4_1Format>(int64_t, const void*, const void*);
template float vec_dot<Q5_1Format>(int64_t, const void*, const void*);

} // namespace q8_0_family

VecDotFn q8_0_family_vec_dot(TensorType type) {
    using namespace q8_0_family;
    switch (type) {
    case TensorType::Q8_0:
        return vec_dot<Q8_0Format>;
    case TensorType::Q4_0:
        return vec_dot<Q4_0Format>;
    case TensorType::Q5_0:
        return vec_dot<Q5_0Format>;
    case TensorType::Q4_1:
        return vec_dot<Q4_1Format>;
    case TensorType::Q5_1:
        return vec_dot<Q5_1Format>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
