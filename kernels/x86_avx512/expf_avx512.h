#pragma once
// e^x for 16 floats at once: x86_avx2/expf_avx2.h's algorithm and accuracy (exp_polynomial.h),
// lane for lane the same results; and 2^x for 16 or 8 floats (exp2_polynomial), lane for lane
// the same at both widths. Include only from kernels/x86_avx512/*.cpp.
#include "kernels/exp_polynomial.h"
#include <immintrin.h>

namespace hearth::kernels::avx512 {

[[gnu::always_inline]] inline __m512 exp_f32x16(__m512 x) {
    namespace c = exp_polynomial;
    // max/min return their second operand when either is NaN: a NaN input survives both.
    x = _mm512_min_ps(_mm512_set1_ps(c::kHighest), _mm512_max_ps(_mm512_set1_ps(c::kLowest), x));
    const __m512 n =
        _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(c::kLog2E)), _MM_FROUND_TO_NEAREST_INT);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(c::kLn2High), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(c::kLn2Low), r);
    __m512 g = _mm512_set1_ps(c::kG4);
    g = _mm512_fmadd_ps(g, r, _mm512_set1_ps(c::kG3));
    g = _mm512_fmadd_ps(g, r, _mm512_set1_ps(c::kG2));
    g = _mm512_fmadd_ps(g, r, _mm512_set1_ps(c::kG1));
    g = _mm512_fmadd_ps(g, r, _mm512_set1_ps(c::kG0));
    const __m512 e_r = _mm512_add_ps(_mm512_fmadd_ps(g, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
    const __m512i exponent =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(e_r, _mm512_castsi512_ps(exponent));
}

[[gnu::always_inline]] inline __m512 exp2_f32x16(__m512 x) {
    namespace c = exp2_polynomial;
    // r = x - round(x) in one instruction (vreduceps, exact), and n = x - r (exact). No clamping:
    // infinite x give r = 0 and n = x, and scalef gives 0 or inf; finite n past the float range
    // give 0 or inf too, as 2^x rounds. A NaN stays NaN.
    const __m512 r = _mm512_reduce_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 n = _mm512_sub_ps(x, r);
    __m512 h = _mm512_set1_ps(c::kH5);
    h = _mm512_fmadd_ps(h, r, _mm512_set1_ps(c::kH4));
    h = _mm512_fmadd_ps(h, r, _mm512_set1_ps(c::kH3));
    h = _mm512_fmadd_ps(h, r, _mm512_set1_ps(c::kH2));
    h = _mm512_fmadd_ps(h, r, _mm512_set1_ps(c::kH1));
    h = _mm512_fmadd_ps(h, r, _mm512_set1_ps(c::kH0));
    return _mm512_scalef_ps(_mm512_fmadd_ps(h, r, _mm512_set1_ps(1.0f)), n);
}

// 8 lanes through the 16-lane form (the upper half zeros): the same bits by construction.
[[gnu::always_inline]] inline __m256 exp2_f32x8(__m256 x) {
    return _mm512_castps512_ps256(exp2_f32x16(_mm512_zextps256_ps512(x)));
}

} // namespace hearth::kernels::avx512
