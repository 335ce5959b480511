// Attention of one query over an F16 KV cache with F16C and FMA, at exactly the reference's
// roundings (attention_ref.cpp): the value accumulator lives as 8 halves per register and is
// rounded to F16 after each fused multiply-add, as the scalar code does per element, and the
// score's dot product sums in the reference's (and ggml's AVX2 F16 dot's) order: four 8-wide
// F32 accumulators over steps of 32, folded (0 + 2) + (1 + 3), the tail added in double.
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"

#include <algorithm>
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

// Up to kGroup queries that share keys and values, interleaved key by key: each key and value
// row is widened to F32 once, and the queries' accumulator chains (F16 round trips through L1)
// are independent, so the core overlaps them instead of waiting on one. Per query, every
// operation is the one attend<D> does, in the same order.
constexpr int64_t kGroup = 8;

template <int64_t D>
void attend_group(const float* q, size_t q_stride, int64_t n_queries, const uint16_t* keys,
                  const uint16_t* values, size_t kv_stride, int64_t n_keys, float scale, float* out,
                  size_t out_stride) {
    alignas(32) float q16[kGroup][D]; // the queries rounded to F16, held as floats
    alignas(32) uint16_t acc[kGroup][D];
    alignas(32) float key[D], value[D];
    float max_score[kGroup], sum[kGroup];
    for (int64_t h = 0; h < n_queries; ++h) {
        for (int64_t d = 0; d < D; d += 8) {
            const __m128i half =
                _mm256_cvtps_ph(_mm256_loadu_ps(q + static_cast<size_t>(h) * q_stride + d), kRound);
            _mm256_store_ps(q16[h] + d, _mm256_cvtph_ps(half));
            _mm_store_si128(reinterpret_cast<__m128i*>(acc[h] + d), _mm_setzero_si128());
        }
        max_score[h] = -INFINITY;
        sum[h] = 0.0f;
    }
    for (int64_t j = 0; j < n_keys; ++j) {
        const uint16_t* k = keys + static_cast<size_t>(j) * kv_stride;
        const uint16_t* v = values + static_cast<size_t>(j) * kv_stride;
#pragma GCC unroll 16
        for (int64_t d = 0; d < D; d += 8) {
            _mm256_store_ps(key + d, load_halves(k + d));
            _mm256_store_ps(value + d, load_halves(v + d));
        }
        for (int64_t h = 0; h < n_queries; ++h) {
            // dot(q16, k) in ggml's order (see dot_f16); D is a multiple of 32: no tail.
            __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
#pragma GCC unroll 4
            for (int64_t i = 0; i < D; i += 32) {
                s0 = _mm256_fmadd_ps(_mm256_load_ps(q16[h] + i), _mm256_load_ps(key + i), s0);
                s1 = _mm256_fmadd_ps(_mm256_load_ps(q16[h] + i + 8), _mm256_load_ps(key + i + 8), s1);
                s2 = _mm256_fmadd_ps(_mm256_load_ps(q16[h] + i + 16), _mm256_load_ps(key + i + 16), s2);
                s3 = _mm256_fmadd_ps(_mm256_load_ps(q16[h] + i + 24), _mm256_load_ps(key + i + 24), s3);
            }
            s0 = _mm256_add_ps(_mm256_add_ps(s0, s2), _mm256_add_ps(s1, s3));
            const __m128 t0 = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
            const __m128 t1 = _mm_hadd_ps(t0, t0);
            const float score = _mm_cvtss_f32(_mm_hadd_ps(t1, t1)) * scale;
            float weight = 1.0f;
            auto* a = reinterpret_cast<__m128i*>(acc[h]);
            if (score > max_score[h]) {
                const float rescale = std::exp(max_score[h] - score);
                const __m256 r = _mm256_set1_ps(rescale);
#pragma GCC unroll 16
                for (int64_t d = 0; d < D / 8; ++d)
                    _mm_store_si128(
                        a + d,
                        _mm256_cvtps_ph(_mm256_mul_ps(_mm256_cvtph_ps(_mm_load_si128(a + d)), r), kRound));
                sum[h] = std::fma(sum[h], rescale, 1.0f);
                max_score[h] = score;
            } else {
                weight = std::exp(score - max_score[h]);
                sum[h] += weight;
            }
            const __m256 w = _mm256_set1_ps(weight);
#pragma GCC unroll 16
            for (int64_t d = 0; d < D / 8; ++d) {
                const __m256 updated =
                    _mm256_fmadd_ps(_mm256_load_ps(value + 8 * d), w, _mm256_cvtph_ps(_mm_load_si128(a + d)));
                _mm_store_si128(a + d, _mm256_cvtps_ph(updated, kRound));
            }
        }
    }
    for (int64_t h = 0; h < n_queries; ++h) {
        const __m256 inv_sum = _mm256_set1_ps(1.0f / sum[h]);
        for (int64_t d = 0; d < D; d += 8)
            _mm256_storeu_ps(out + static_cast<size_t>(h) * out_stride + d,
                             _mm256_mul_ps(load_halves(acc[h] + d), inv_sum));
    }
}

} // namespace

void attend_group_f16(const float* q, size_t q_stride, int64_t n_queries, const uint16_t* keys,
                      const uint16_t* values, size_t kv_stride, int64_t n_keys, int64_t head_dim, float scale,
                      float* out, size_t out_stride) {
    for (int64_t first = 0; first < n_queries; first += kGroup) {
        const int64_t count = std::min(kGroup, n_queries - first);
        const float* q_part = q + static_cast<size_t>(first) * q_stride;
        float* out_part = out + static_cast<size_t>(first) * out_stride;
        switch (head_dim) {
        case 64:
            attend_group<64>(q_part, q_stride, count, keys, values, kv_stride, n_keys, scale, out_part,
                             out_stride);
            break;
        case 128:
            attend_group<128>(q_part, q_stride, count, keys, values, kv_stride, n_keys, scale, out_part,
                              out_stride);
            break;
        default: // other head sizes: one query at a time
            for (int64_t h = 0; h < count; ++h)
                attend_f16(q_part + static_cast<size_t>(h) * q_stride, keys, values, kv_stride, n_keys,
                           head_dim, scale, out_part + static_cast<size_t>(h) * out_stride);
        }
    }
}

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
