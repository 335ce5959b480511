// Dot products of float weight rows (F32, F16, BF16) with F32 activations.
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/float_rows.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

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

namespace {

// Activation rows of a verify pass against one F32 weight row, each weight vector loaded once
// for the G and each pair summed exactly as vec_dot_f32_f32 sums it: 4 x G accumulators.
template <int G>
void f32_rows_as_decode(int64_t n, const float* w, const float* const (&x)[G], float* y, int64_t y_stride) {
    __m256 acc[G][4];
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
            acc[g][k] = _mm256_setzero_ps();
    const int64_t blocked = n & ~int64_t{31};
    for (int64_t i = 0; i < blocked; i += 32) {
        __m256 wv[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
            wv[k] = _mm256_loadu_ps(w + i + 8 * k);
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g)
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k)
                acc[g][k] = _mm256_fmadd_ps(wv[k], _mm256_loadu_ps(x[g] + i + 8 * k), acc[g][k]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g) {
        float sum = reduce_like_ggml(acc[g][0], acc[g][1], acc[g][2], acc[g][3]);
        for (int64_t i = blocked; i < n; ++i)
            sum += w[i] * x[g][i]; // not fused, as vec_dot_f32_f32
        y[g * y_stride] = sum;
    }
}

// Activation rows per pass: 12 accumulators and the row's 4 vectors fill the 16 registers.
constexpr int kF32RowsPerPass = 3;

template <int G>
void f32_rows_pass(int64_t n, const char* w, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
                   const char* a, size_t activation_row_bytes, float* y, int64_t y_stride) {
    const float* x[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g)
        x[g] = reinterpret_cast<const float*>(a + g * activation_row_bytes);
    for (int64_t r = row_begin; r < row_end; ++r)
        f32_rows_as_decode<G>(n, reinterpret_cast<const float*>(w + r * weight_row_bytes), x, y + r,
                              y_stride);
}

} // namespace

void gemm_f32_f32_rows_as_decode(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                                 int64_t row_end, const void* activations, size_t activation_row_bytes,
                                 int64_t batch, float* y, int64_t y_stride) {
    static constexpr auto passes = []<int... I>(std::integer_sequence<int, I...>) {
        return std::array{&f32_rows_pass<I + 1>...};
    }
    (std::make_integer_sequence<int, kF32RowsPerPass>{});
    const char* w = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    for (int64_t first = 0; first < batch; first += kF32RowsPerPass)
        passes[static_cast<size_t>(std::min<int64_t>(kF32RowsPerPass, batch - first) - 1)](
            n, w, weight_row_bytes, row_begin, row_end, a + first * activation_row_bytes,
            activation_row_bytes, y + first * y_stride, y_stride);
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
