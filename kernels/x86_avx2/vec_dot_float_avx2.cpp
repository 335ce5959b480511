// Dot products of float weight rows (F32, F16, BF16) with F32 activations.
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/float_rows.h"

#include <cmath>

namespace hearth::kernels::avx2 {
namespace {

// Four independent accumulators hide the FMA latency; the tail goes 8, then 1, at a time.
template <class Weight, class... Mode> float dot(int64_t n, const Weight* w, const float* x, Mode... mode) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm256_fmadd_ps(load8(w + i, mode...), load8(x + i), acc0);
        acc1 = _mm256_fmadd_ps(load8(w + i + 8, mode...), load8(x + i + 8), acc1);
        acc2 = _mm256_fmadd_ps(load8(w + i + 16, mode...), load8(x + i + 16), acc2);
        acc3 = _mm256_fmadd_ps(load8(w + i + 24, mode...), load8(x + i + 24), acc3);
    }
    for (; i + 8 <= n; i += 8)
        acc0 = _mm256_fmadd_ps(load8(w + i, mode...), load8(x + i), acc0);
    float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
    for (; i < n; ++i)
        sum += load1(w + i, mode...) * x[i];
    return sum;
}

// Both rows in halves, in the F16/BF16 gemm's order (gemm_float_avx2.cpp), so that decode and
// prefill agree: one accumulator over blocks of 8, its lanes summed by lane_sum, the tail (products
// of halves are exact in float) summed in double.
float dot_halves(int64_t n, const uint16_t* w, const uint16_t* x, bool is_bf16) {
    __m256 acc = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        acc = _mm256_fmadd_ps(load8(w + i, is_bf16), load8(x + i, is_bf16), acc);
    double sum = 0;
    if (i > 0) sum = lane_sum(acc);
    for (; i < n; ++i)
        sum += load1(w + i, is_bf16) * load1(x + i, is_bf16);
    return static_cast<float>(sum);
}

} // namespace

// The same order of summation as the reference (and ggml_vec_dot_f32): blocks of 32 in four
// accumulators reduced as ggml does, the tail's products rounded and added one by one.
float vec_dot_f32_f32(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const float*>(weight_row);
    const auto* x = static_cast<const float*>(activation_row);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
    const int64_t blocked = n & ~int64_t{31};
    for (int64_t i = 0; i < blocked; i += 32) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i), _mm256_loadu_ps(x + i), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 8), _mm256_loadu_ps(x + i + 8), acc1);
        acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 16), _mm256_loadu_ps(x + i + 16), acc2);
        acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(w + i + 24), _mm256_loadu_ps(x + i + 24), acc3);
    }
    float sum = reduce_like_ggml(acc0, acc1, acc2, acc3);
    for (int64_t i = blocked; i < n; ++i)
        sum += w[i] * x[i]; // not fused (-ffp-contract=off), as in ggml
    return sum;
}

float vec_dot_f16_f16(int64_t n, const void* weight_row, const void* activation_row) {
    return dot_halves(n, static_cast<const uint16_t*>(weight_row),
                      static_cast<const uint16_t*>(activation_row), false);
}
float vec_dot_bf16_bf16(int64_t n, const void* weight_row, const void* activation_row) {
    return dot_halves(n, static_cast<const uint16_t*>(weight_row),
                      static_cast<const uint16_t*>(activation_row), true);
}

void quantize_row_f16(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<uint16_t*>(dst);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
        out[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
}

} // namespace hearth::kernels::avx2
