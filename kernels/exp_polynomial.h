#pragma once
// The constants of the SIMD kernels' e^x (x86_avx2/expf_avx2.h, x86_avx512/expf_avx512.h), one
// algorithm at two vector widths: x = n ln 2 + r with n an integer and |r| <= ln 2 / 2, so
// e^x = 2^n e^r, and e^r = 1 + r + r^2 g(r) with g a degree-4 polynomial (Chebyshev fit of
// (e^r - 1 - r) / r^2, relative error ~1e-8).
namespace hearth::kernels::exp_polynomial {

// Inputs are clamped to [kLowest, kHighest]: -88 keeps n >= -127, where 2^n's exponent field
// (n + 127) is 0 and the result 0; e^88 is below the largest float.
inline constexpr float kLowest = -88.0f;
inline constexpr float kHighest = 88.0f;
inline constexpr float kLog2E = 0x1.715476p+0f;
// ln 2 in two parts: the second holds what the float first part lacks.
inline constexpr float kLn2High = 0x1.62e43p-1f;
inline constexpr float kLn2Low = -0x1.05c61p-29f;
// g(r) = ((((kG4 r + kG3) r + kG2) r + kG1) r + kG0)
inline constexpr float kG4 = 0x1.6d10fcp-10f;
inline constexpr float kG3 = 0x1.120b62p-7f;
inline constexpr float kG2 = 0x1.55551ap-5f;
inline constexpr float kG1 = 0x1.5554dep-3f;
inline constexpr float kG0 = 0.5f;

} // namespace hearth::kernels::exp_polynomial

// 2^x for the AVX-512 attention, whose scores come in units of log2 e (the queries carry the
// factor), which saves the multiply and the two-part subtraction of the range reduction:
// x = n + r with n an integer and |r| <= 1/2, so 2^x = 2^n 2^r (scalef, which needs no clamping
// of n), and 2^r = 1 + r h(r) with h a degree-5 polynomial (Chebyshev fit of (2^r - 1) / r on
// [-1/2, 1/2], relative error 5e-9 before float rounding).
namespace hearth::kernels::exp2_polynomial {

// h(r) = ((((kH5 r + kH4) r + kH3) r + kH2) r + kH1) r + kH0
inline constexpr float kH5 = 0x1.44138ap-13f;
inline constexpr float kH4 = 0x1.5f089p-10f;
inline constexpr float kH3 = 0x1.3b2a54p-7f;
inline constexpr float kH2 = 0x1.c6af6cp-5f;
inline constexpr float kH1 = 0x1.ebfbep-3f;
inline constexpr float kH0 = 0x1.62e43p-1f;

} // namespace hearth::kernels::exp2_polynomial
