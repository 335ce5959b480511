#pragma once
// e^x for 8 floats at once, within 2 ulp of the exact value for x in [-87.3, 88] (checked on
// every 61st float there by the attention test). Results below e^-87.3 (subnormal) may be
// flushed to 0, and -inf gives 0: the softmax's masked keys. Inputs above 88 give e^88; NaN
// stays NaN. Included by the AVX2 tier's attention and by x86_avx512/attention_rows.h (the
// AVX-512 and AMX tiers' 8-lane rows), each compiling it with its own flags.
#include "kernels/exp_polynomial.h"
#include <immintrin.h>

namespace hearth::kernels::avx2 {

// exp_polynomial.h gives the algorithm and its constants.
[[gnu::always_inline]] inline __m256 exp_f32x8(__m256 x) {
    namespace c = exp_polynomial;
    // max/min return their second operand when either is NaN: a NaN input survives both.
    x = _mm256_min_ps(_mm256_set1_ps(c::kHighest), _mm256_max_ps(_mm256_set1_ps(c::kLowest), x));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(c::kLog2E)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(c::kLn2High), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(c::kLn2Low), r);
    __m256 g = _mm256_set1_ps(c::kG4);
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(c::kG3));
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(c::kG2));
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(c::kG1));
    g = _mm256_fmadd_ps(g, r, _mm256_set1_ps(c::kG0));
    const __m256 e_r = _mm256_add_ps(_mm256_fmadd_ps(g, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    const __m256i exponent =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(e_r, _mm256_castsi256_ps(exponent));
}

} // namespace hearth::kernels::avx2
