#pragma once
// e^x for 8 floats at once, within 2 ulp of the exact value for x in [-87.3, 88] (measured on
// every 61st float there by the attention test). Results below e^-87.3 (subnormal) may be
// flushed to 0, and -inf gives 0: the softmax's masked keys. Inputs above 88 give e^88; NaN
// stays NaN. Include only from kernels/x86_avx2/*.cpp.
#include <immintrin.h>

namespace hearth::kernels::avx2 {

// x = n ln 2 + r with n an integer and |r| <= ln 2 / 2, so e^x = 2^n e^r. e^r is 1 + r + r^2 g(r)
// with g a degree-4 polynomial (Chebyshev fit of (e^r - 1 - r) / r^2, relative error ~1e-8).
[[gnu::always_inline]] inline __m256 exp_f32x8(__m256 x) {
    // max/min return their second operand when either is NaN: a NaN input survives both.
    // -88 keeps n >= -127, where 2^n's exponent field (n + 127) is 0 and the result 0.
    x = _mm256_min_ps(_mm256_set1_ps(88.0f), _mm256_max_ps(_mm256_set1_ps(-88.0f), x));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(0x1.715476p+0f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    // ln 2 in two parts: the second holds what the float first part lacks.
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.62e43p-1f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-0x1.05c61p-29f), r);
    __m256 g = _mm256_set1_ps(0x1.6d10fcp-10f);
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(0x1.120b62p-7f));
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(0x1.55551ap-5f));
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(0x1.5554dep-3f));
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(0.5f));
    const __m256 e_r = _mm256_add_ps(_mm256_fmadd_ps(g, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    const __m256i exponent =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(e_r, _mm256_castsi256_ps(exponent));
}

} // namespace hearth::kernels::avx2
