// SwiGLU on 8 lanes at a time: the same operations, in the same order, as swiglu_ref, so the
// results are bit for bit those of the reference (and of llama.cpp's AVX2 build).
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

} // namespace hearth::kernels::avx2
