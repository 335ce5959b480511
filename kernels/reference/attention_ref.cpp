// Scalar attention of one query over an F16 KV cache: the oracle of the SIMD versions.
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include <cmath>

namespace hearth::kernels {
namespace {
inline float round_to_half(float x) {
    return fp16_to_fp32(fp32_to_fp16(x));
}
} // namespace

// Flash attention in one pass with an online softmax, at llama.cpp's precision (see
// AttendF16Fn): this matches the CPU results llama.cpp's outputs are judged by far better
// than an F32 accumulator does.
void attend_f16_ref(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride,
                    int64_t n_keys, int64_t head_dim, float scale, float* out) {
    float q16[kMaxAttentionHeadDim];
    float acc[kMaxAttentionHeadDim]; // values representable in F16
    for (int64_t d = 0; d < head_dim; ++d) {
        q16[d] = round_to_half(q[d]);
        acc[d] = 0.0f;
    }
    float max_score = -INFINITY, sum = 0.0f;
    for (int64_t j = 0; j < n_keys; ++j) {
        // Products of halves are exact in float; their sum is kept in double.
        const uint16_t* k = keys + static_cast<size_t>(j) * kv_stride;
        double dot = 0.0;
        for (int64_t d = 0; d < head_dim; ++d)
            dot += q16[d] * fp16_to_fp32(k[d]);
        const float score = static_cast<float>(dot) * scale;
        float weight = 1.0f;
        if (score > max_score) {
            const float rescale = std::exp(max_score - score);
            for (int64_t d = 0; d < head_dim; ++d)
                acc[d] = round_to_half(acc[d] * rescale);
            sum *= rescale;
            max_score = score;
        } else {
            weight = std::exp(score - max_score);
        }
        const uint16_t* v = values + static_cast<size_t>(j) * kv_stride;
        for (int64_t d = 0; d < head_dim; ++d)
            acc[d] = round_to_half(std::fma(fp16_to_fp32(v[d]), weight, acc[d]));
        sum += weight;
    }
    const float inv_sum = 1.0f / sum;
    for (int64_t d = 0; d < head_dim; ++d)
        out[d] = acc[d] * inv_sum;
}

} // namespace hearth::kernels
