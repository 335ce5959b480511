// Reference kernels of the float weight types. F32 weights dot F32 activations; F16 and
// BF16 weights dot activations rounded to their own type.
#include "kernels/f32_batched_dot.h"
#include "kernels/fp16.h"
#include "kernels/reference/reference_kernels.h"

#include <cmath>
#include <cstring>

namespace hearth::kernels {

void quantize_row_f32_ref(const float* src, void* dst, int64_t n) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void dequantize_row_f32_ref(const void* src, float* dst, int64_t n) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

// Summed in the order of ggml's AVX2 vec_dot_f32 (4 x 8 fused multiply-add lanes over
// blocks of 32, the accumulators folded (0 + 2) + (1 + 3), the 128-bit halves added, then
// pairwise; then the tail, each product rounded before it is added: ggml's `sumf += x*y` is
// not contracted), so that the scalar and SIMD paths agree to the bit and F32 models
// reproduce llama.cpp's logits (stories260K, whose FFN width 172 leaves a tail of 12).
float vec_dot_f32_f32_ref(int64_t n, const void* weights, const void* activations) {
    const auto* w = static_cast<const float*>(weights);
    const auto* a = static_cast<const float*>(activations);
    float lanes[4][8] = {};
    const int64_t blocked = n & ~int64_t{31};
    for (int64_t i = 0; i < blocked; i += 32)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 8; ++l)
                lanes[j][l] = std::fma(w[i + j * 8 + l], a[i + j * 8 + l], lanes[j][l]);
    float r[8];
    for (int l = 0; l < 8; ++l)
        r[l] = (lanes[0][l] + lanes[2][l]) + (lanes[1][l] + lanes[3][l]);
    float sum = ((r[0] + r[4]) + (r[1] + r[5])) + ((r[2] + r[6]) + (r[3] + r[7]));
    for (int64_t i = blocked; i < n; ++i)
        sum += w[i] * a[i]; // not fused: the kernels are built with -ffp-contract=off
    return sum;
}

// llamafile's tinyBLAS order (llama.cpp's F32 matmul for batches of 2+ rows): one 8-lane
// fused multiply-add accumulator along the row, then the 128-bit halves, then pairwise.
// n is a multiple of 8.
float vec_dot_f32_f32_batched_ref(int64_t n, const void* weights, const void* activations) {
    const auto* w = static_cast<const float*>(weights);
    const auto* a = static_cast<const float*>(activations);
    float lanes[8] = {};
    for (int64_t i = 0; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; ++l)
            lanes[l] = std::fma(w[i + l], a[i + l], lanes[l]);
    float h[4];
    for (int l = 0; l < 4; ++l)
        h[l] = lanes[l] + lanes[l + 4];
    return (h[0] + h[2]) + (h[1] + h[3]);
}

void quantize_row_f16_ref(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<fp16_bits*>(dst);
    for (int64_t i = 0; i < n; ++i)
        out[i] = fp32_to_fp16(src[i]);
}

void dequantize_row_f16_ref(const void* src, float* dst, int64_t n) {
    const auto* in = static_cast<const fp16_bits*>(src);
    for (int64_t i = 0; i < n; ++i)
        dst[i] = fp16_to_fp32(in[i]);
}

// Half-precision weights meet half-precision activations, as in ggml_vec_dot_f16 on AVX2:
// blocks of 32 in four 8-lane fused multiply-add accumulators, reduced like the F32 dot;
// the tail (each product of two halves exact in float) is added in double.
float vec_dot_f16_f16_ref(int64_t n, const void* weights, const void* activations) {
    const auto* w = static_cast<const fp16_bits*>(weights);
    const auto* a = static_cast<const fp16_bits*>(activations);
    const int64_t blocked = n & ~int64_t{31};
    double sum = 0;
    if (blocked > 0) {
        float lanes[4][8] = {};
        for (int64_t i = 0; i < blocked; i += 32)
            for (int j = 0; j < 4; ++j)
                for (int l = 0; l < 8; ++l)
                    lanes[j][l] =
                        std::fma(fp16_to_fp32(w[i + j * 8 + l]), fp16_to_fp32(a[i + j * 8 + l]), lanes[j][l]);
        float r[8];
        for (int l = 0; l < 8; ++l)
            r[l] = (lanes[0][l] + lanes[2][l]) + (lanes[1][l] + lanes[3][l]);
        sum = ((r[0] + r[4]) + (r[1] + r[5])) + ((r[2] + r[6]) + (r[3] + r[7]));
    }
    for (int64_t i = blocked; i < n; ++i)
        sum += fp16_to_fp32(w[i]) * fp16_to_fp32(a[i]);
    return static_cast<float>(sum);
}

void quantize_row_bf16_ref(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<bf16_bits*>(dst);
    for (int64_t i = 0; i < n; ++i)
        out[i] = fp32_to_bf16(src[i]);
}

void dequantize_row_bf16_ref(const void* src, float* dst, int64_t n) {
    const auto* in = static_cast<const bf16_bits*>(src);
    for (int64_t i = 0; i < n; ++i)
        dst[i] = bf16_to_fp32(in[i]);
}

float vec_dot_bf16_bf16_ref(int64_t n, const void* weights, const void* activations) {
    const auto* w = static_cast<const bf16_bits*>(weights);
    const auto* a = static_cast<const bf16_bits*>(activations);
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
        sum += bf16_to_fp32(w[i]) * bf16_to_fp32(a[i]);
    return static_cast<float>(sum);
}

} // namespace hearth::kernels
