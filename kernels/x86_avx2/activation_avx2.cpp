// SwiGLU, GELU and a row's softmax on 8 lanes at a time: the same operations, in the same order,
// as swiglu_ref, gelu_ref and softmax_ref, so the results are bit for bit the reference's (and
// SwiGLU's those of llama.cpp's AVX2 build).
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"

#include <cmath>
#include <immintrin.h>

namespace hearth::kernels::avx2 {
namespace {

// exp of 8 lanes; lanes whose 2^n would overflow or underflow the direct path (|n| > 126,
// rare: |x| > 87) are redone by the reference one at a time.
inline __m256 vector_expf(__m256 x) {
    const __m256 shift = _mm256_set1_ps(0x1.8p23f);
    const __m256 z = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p+0f), shift);
    const __m256 n = _mm256_sub_ps(z, shift);
    const __m256 b = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.7f7d1cp-20f),
                                      _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.62e4p-1f), x));
    const __m256i e = _mm256_slli_epi32(_mm256_castps_si256(z), 23);
    const __m256 k = _mm256_castsi256_ps(_mm256_add_epi32(e, _mm256_castps_si256(_mm256_set1_ps(1.0f))));
    const __m256 u = _mm256_mul_ps(b, b);
    const __m256 j = _mm256_fmadd_ps(
        _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(0x1.0e4020p-7f), b, _mm256_set1_ps(0x1.573e2ep-5f)), u,
                        _mm256_fmadd_ps(_mm256_set1_ps(0x1.555e66p-3f), b, _mm256_set1_ps(0x1.fffdb6p-2f))),
        u, _mm256_mul_ps(_mm256_set1_ps(0x1.ffffecp-1f), b));
    __m256 result = _mm256_fmadd_ps(k, j, k);
    const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), n);
    const int outside = _mm256_movemask_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(126.0f), _CMP_GT_OQ));
    if (outside != 0) {
        alignas(32) float lanes[8], values[8];
        _mm256_store_ps(lanes, x);
        _mm256_store_ps(values, result);
        for (int i = 0; i < 8; ++i)
            if (outside & (1 << i)) values[i] = vector_expf_lane(lanes[i]);
        result = _mm256_load_ps(values);
    }
    return result;
}

} // namespace

void swiglu(float* gate, const float* up, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 e = vector_expf(_mm256_sub_ps(_mm256_setzero_ps(), g));
        _mm256_storeu_ps(gate + i,
                         _mm256_mul_ps(_mm256_div_ps(g, _mm256_add_ps(one, e)), _mm256_loadu_ps(up + i)));
    }
    for (; i < n; ++i) // the tail as llama.cpp's: libm's expf
        gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void gelu(float* x, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 cube_term = _mm256_mul_ps(_mm256_set1_ps(0.044715f), _mm256_mul_ps(v, v));
        const __m256 u2 = _mm256_mul_ps(_mm256_set1_ps(-1.5957691216057308f),
                                        _mm256_mul_ps(v, _mm256_add_ps(one, cube_term)));
        _mm256_storeu_ps(x + i, _mm256_div_ps(v, _mm256_add_ps(one, vector_expf(u2))));
    }
    for (; i < n; ++i)
        x[i] = gelu_lane(x[i]);
}

void softmax(float* row, int64_t n, float scale) {
    const int64_t blocked = n & ~int64_t{7};
    const __m256 scale8 = _mm256_set1_ps(scale);
    __m256 most8 = _mm256_set1_ps(-INFINITY);
    for (int64_t i = 0; i < blocked; i += 8) {
        const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(row + i), scale8);
        _mm256_storeu_ps(row + i, v);
        most8 = _mm256_max_ps(most8, v);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, most8);
    float most = -INFINITY;
    for (const float lane : lanes)
        most = std::fmax(most, lane);
    for (int64_t i = blocked; i < n; ++i) {
        row[i] *= scale;
        most = std::fmax(most, row[i]);
    }
    const __m256 max8 = _mm256_set1_ps(most);
    __m256 sum8 = _mm256_setzero_ps();
    for (int64_t i = 0; i < blocked; i += 8) {
        const __m256 e = vector_expf(_mm256_sub_ps(_mm256_loadu_ps(row + i), max8));
        _mm256_storeu_ps(row + i, e);
        sum8 = _mm256_add_ps(sum8, e);
    }
    _mm256_store_ps(lanes, sum8);
    float sum =
        ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
    for (int64_t i = blocked; i < n; ++i) {
        row[i] = vector_expf_lane(row[i] - most);
        sum += row[i];
    }
    const float inverse = 1.0f / sum;
    const __m256 inverse8 = _mm256_set1_ps(inverse);
    for (int64_t i = 0; i < blocked; i += 8)
        _mm256_storeu_ps(row + i, _mm256_mul_ps(_mm256_loadu_ps(row + i), inverse8));
    for (int64_t i = blocked; i < n; ++i)
        row[i] *= inverse;
}

} // namespace hearth::kernels::avx2
