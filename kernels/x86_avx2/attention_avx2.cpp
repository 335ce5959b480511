// Attention of one query over an F16 KV cache with F16C and FMA, at exactly the reference's
// roundings (attention_ref.cpp): the value accumulator lives as 8 halves per register and is
// rounded to F16 after each fused multiply-add, as the scalar code does per element, and the
// score's dot product sums in the reference's (and ggml's AVX2 F16 dot's) order: four 8-wide
// F32 accumulators over steps of 32, folded (0 + 2) + (1 + 3), the tail added in double.
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"

#include <cmath>

namespace hearth::kernels::avx2 {
namespace {

constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

inline __m256 load_halves(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// dot(q16, k) in ggml's order: q16 holds the query already rounded to F16.
inline float dot_f16(const uint16_t* q16, const uint16_t* k, int64_t n) {
    const int64_t whole = n & ~int64_t(31);
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t i = 0; i < whole; i += 32) {
        s0 = _mm256_fmadd_ps(load_halves(q16 + i), load_halves(k + i), s0);
        s1 = _mm256_fmadd_ps(load_halves(q16 + i + 8), load_halves(k + i + 8), s1);
        s2 = _mm256_fmadd_ps(load_halves(q16 + i + 16), load_halves(k + i + 16), s2);
        s3 = _mm256_fmadd_ps(load_halves(q16 + i + 24), load_halves(k + i + 24), s3);
    }
    s0 = _mm256_add_ps(s0, s2);
    s1 = _mm256_add_ps(s1, s3);
    s0 = _mm256_add_ps(s0, s1);
    const __m128 t0 = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    const __m128 t1 = _mm_hadd_ps(t0, t0);
    double sum = _mm_cvtss_f32(_mm_hadd_ps(t1, t1));
    for (int64_t i = whole; i < n; ++i)
        sum += static_cast<double>(_cvtsh_ss(q16[i]) * _cvtsh_ss(k[i]));
    return static_cast<float>(sum);
}

// D > 0: the head size known at compile time (loops fully unrolled, accumulator in registers).
template <int64_t D>
void attend(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride, int64_t n_keys,
            int64_t head_dim, float scale, float* out) {
    const int64_t dim = D > 0 ? D : head_dim;
    alignas(32) uint16_t q16[kMaxAttentionHeadDim];
    alignas(32) uint16_t acc[kMaxAttentionHeadDim]; // the F16 accumulator
    for (int64_t d = 0; d < dim; d += 8) {
        _mm_store_si128(reinterpret_cast<__m128i*>(q16 + d), _mm256_cvtps_ph(_mm256_loadu_ps(q + d), kRound));
        _mm_store_si128(reinterpret_cast<__m128i*>(acc + d), _mm_setzero_si128());
    }
    float max_score = -INFINITY, sum = 0.0f;
    for (int64_t j = 0; j < n_keys; ++j) {
        const float score = dot_f16(q16, keys + static_cast<size_t>(j) * kv_stride, dim) * scale;
        float weight = 1.0f;
        if (score > max_score) {
            const __m256 rescale = _mm256_set1_ps(std::exp(max_score - score));
#pragma GCC unroll 16
            for (int64_t d = 0; d < dim; d += 8) {
                auto* a = reinterpret_cast<__m128i*>(acc + d);
                _mm_store_si128(
                    a, _mm256_cvtps_ph(_mm256_mul_ps(_mm256_cvtph_ps(_mm_load_si128(a)), rescale), kRound));
            }
            sum = std::fma(sum, _mm256_cvtss_f32(rescale), 1.0f); // ggml's S = S*ms + vs, fused
            max_score = score;
        } else {
            weight = std::exp(score - max_score);
            sum += weight;
        }
        const uint16_t* v = values + static_cast<size_t>(j) * kv_stride;
        const __m256 w = _mm256_set1_ps(weight);
#pragma GCC unroll 16
        for (int64_t d = 0; d < dim; d += 8) {
            auto* a = reinterpret_cast<__m128i*>(acc + d);
            const __m256 updated = _mm256_fmadd_ps(load_halves(v + d), w, _mm256_cvtph_ps(_mm_load_si128(a)));
            _mm_store_si128(a, _mm256_cvtps_ph(updated, kRound));
        }
    }
    const __m256 inv_sum = _mm256_set1_ps(1.0f / sum);
    for (int64_t d = 0; d < dim; d += 8)
        _mm256_storeu_ps(out + d, _mm256_mul_ps(load_halves(acc + d), inv_sum));
}

} // namespace

void attend_f16(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride,
                int64_t n_keys, int64_t head_dim, float scale, float* out) {
    switch (head_dim) {
    case 64:
        return attend<64>(q, keys, values, kv_stride, n_keys, head_dim, scale, out);
    case 128:
        return attend<128>(q, keys, values, kv_stride, n_keys, head_dim, scale, out);
    default:
        if (head_dim % 8 == 0 && head_dim <= kMaxAttentionHeadDim)
            return attend<0>(q, keys, values, kv_stride, n_keys, head_dim, scale, out);
        return attend_f16_ref(q, keys, values, kv_stride, n_keys, head_dim, scale, out);
    }
}

} // namespace hearth::kernels::avx2
