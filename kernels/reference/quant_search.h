#pragma once
// Scale searches of the K-quant quantizers: for a group of values they choose a
// scale (and min) that minimise a weighted squared or absolute error, rather than
// simply mapping the extreme value to the extreme quant. The algorithms follow
// llama.cpp's reference quantizers so that our files have comparable error.
#include <bit>
#include <cstdint>

namespace hearth::kernels {

// Round to nearest, ties to even, for |v| < 2^22: adding 1.5 * 2^23 makes the FPU
// round v into the low mantissa bits.
inline int nearest_int(float v) {
    const float shifted = v + 12582912.f;
    return static_cast<int>(std::bit_cast<uint32_t>(shifted) & 0x007fffffu) - 0x00400000;
}

// Asymmetric quants: x[i] ~ scale * L[i] - min with L[i] in [0, nmax] and min >= 0.
// Tries nstep+1 candidate scales (nmax + rmin + rdelta * step) / range, fitting scale
// and min by weighted least squares for each, and keeps the one with the smallest
// weighted error (absolute when use_mad). Returns scale and stores min.
float fit_scale_and_min(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* min,
                        float rmin, float rdelta, int nstep, bool use_mad);

// Symmetric quants weighted by x^2: x[i] ~ scale * (L[i] - nmax), L[i] in [0, 2 nmax - 1].
// Searches scales around nmax / max|x|. Returns the scale (signed, like the largest value).
float fit_symmetric_scale(int n, int nmax, const float* x, int8_t* L);

// Symmetric quants weighted by x^2, refined one quant at a time (Q3_K's scheme):
// x[i] ~ scale * (L[i] - nmax), L[i] in [0, 2 nmax - 1]. Returns the scale.
float fit_symmetric_scale_iterative(int n, int nmax, const float* x, int8_t* L);

} // namespace hearth::kernels
