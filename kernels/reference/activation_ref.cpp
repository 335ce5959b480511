// SwiGLU as llama.cpp's CPU backend computes it, lane by lane: the oracle of the SIMD versions.
#include "kernels/reference/reference_kernels.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace hearth::kernels {

// ggml's vector exp (ggml_v_expf, a polynomial from ARM's optimized routines rather than
// libm's expf), for one lane.
float vector_expf_lane(float x) {
    const float shift = 0x1.8p23f;
    const float z = std::fma(x, 0x1.715476p+0f, shift);
    const float n = z - shift;
    const float b = std::fma(-n, 0x1.7f7d1cp-20f, std::fma(-n, 0x1.62e4p-1f, x));
    const uint32_t e = std::bit_cast<uint32_t>(z) << 23;
    const float k = std::bit_cast<float>(e + std::bit_cast<uint32_t>(1.0f));
    const float u = b * b;
    const float j = std::fma(
        std::fma(std::fma(0x1.0e4020p-7f, b, 0x1.573e2ep-5f), u, std::fma(0x1.555e66p-3f, b, 0x1.fffdb6p-2f)),
        u, 0x1.ffffecp-1f * b);
    const float magnitude = std::fabs(n);
    if (!(magnitude > 126.0f)) return std::fma(k, j, k);
    // Near overflow or underflow the scale 2^n is applied in two steps.
    const uint32_t g = n <= 0.0f ? 0x82000000u : 0u;
    const float s1 = std::bit_cast<float>(g + 0x7f000000u);
    const float s2 = std::bit_cast<float>(e - g);
    if (magnitude > 192.0f) return s1 * s1;
    return std::fma(s2, j, s2) * s1;
}

// llama.cpp takes a row in blocks of 8 lanes with its vector exp and finishes the row's tail
// with libm's expf.
void swiglu_ref(float* gate, const float* up, int64_t n) {
    const int64_t blocked = n & ~int64_t{7};
    for (int64_t i = 0; i < blocked; ++i) {
        const float g = gate[i];
        gate[i] = g / (1.0f + vector_expf_lane(0.0f - g)) * up[i];
    }
    for (int64_t i = blocked; i < n; ++i) {
        const float g = gate[i];
        gate[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

float gelu_lane(float x) {
    const float cube_term = 0.044715f * (x * x);
    const float u2 = -1.5957691216057308f * (x * (1.0f + cube_term)); // -2u
    return x / (1.0f + vector_expf_lane(u2));
}

void gelu_ref(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        x[i] = gelu_lane(x[i]);
}

void softmax_ref(float* row, int64_t n, float scale) {
    float most = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
        row[i] *= scale;
        most = std::fmax(most, row[i]);
    }
    float lanes[8] = {};
    const int64_t blocked = n & ~int64_t{7};
    for (int64_t i = 0; i < n; ++i)
        row[i] = vector_expf_lane(row[i] - most);
    for (int64_t i = 0; i < blocked; ++i)
        lanes[i % 8] += row[i];
    float sum =
        ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
    for (int64_t i = blocked; i < n; ++i)
        sum += row[i];
    const float inverse = 1.0f / sum;
    for (int64_t i = 0; i < n; ++i)
        row[i] *= inverse;
}

} // namespace hearth::kernels
