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

// ggml_vec_dot_f16 on AVX2: blocks of 32 in four 8-lane fused multiply-add accumulators,
// folded (0 + 2) + (1 + 3), then the 128-bit halves, then pairwise; the tail beyond the last
// whole block (all of a head of 8 or 16) is added in double. Products of halves are exact.
float dot_f16(const float* q16, const uint16_t* k, int64_t n) {
    const int64_t blocked = n & ~int64_t{31};
    double sum = 0.0;
    if (blocked > 0) {
        float lanes[4][8] = {};
        for (int64_t i = 0; i < blocked; i += 32)
            for (int j = 0; j < 4; ++j)
                for (int l = 0; l < 8; ++l)
                    lanes[j][l] = std::fma(q16[i + 8 * j + l], fp16_to_fp32(k[i + 8 * j + l]), lanes[j][l]);
        float r[8];
        for (int l = 0; l < 8; ++l)
            r[l] = (lanes[0][l] + lanes[2][l]) + (lanes[1][l] + lanes[3][l]);
        sum = ((r[0] + r[4]) + (r[1] + r[5])) + ((r[2] + r[6]) + (r[3] + r[7]));
    }
    for (int64_t i = blocked; i < n; ++i)
        sum += static_cast<double>(q16[i] * fp16_to_fp32(k[i]));
    return static_cast<float>(sum);
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
        const float score = dot_f16(q16, keys + static_cast<size_t>(j) * kv_stride, head_dim) * scale;
        float weight = 1.0f;
        if (score > max_score) {
            const float rescale = std::exp(max_score - score);
            for (int64_t d = 0; d < head_dim; ++d)
                acc[d] = round_to_half(acc[d] * rescale);
            sum = std::fma(sum, rescale, 1.0f); // ggml's S = S*ms + vs, compiled to an FMA
            max_score = score;
        } else {
            weight = std::exp(score - max_score);
            sum += weight; // S*1 + vs: the same sum, fused or not
        }
        const uint16_t* v = values + static_cast<size_t>(j) * kv_stride;
        for (int64_t d = 0; d < head_dim; ++d)
            acc[d] = round_to_half(std::fma(fp16_to_fp32(v[d]), weight, acc[d]));
    }
    const float inv_sum = 1.0f / sum;
    for (int64_t d = 0; d < head_dim; ++d)
        out[d] = acc[d] * inv_sum;
}

void attend_group_f16_ref(const float* q, size_t q_stride, int64_t n_queries, const uint16_t* keys,
                          const uint16_t* values, size_t kv_stride, int64_t n_keys, int64_t head_dim,
                          float scale, float* out, size_t out_stride) {
    for (int64_t i = 0; i < n_queries; ++i)
        attend_f16_ref(q + static_cast<size_t>(i) * q_stride, keys, values, kv_stride, n_keys, head_dim,
                       scale, out + static_cast<size_t>(i) * out_stride);
}

} // namespace hearth::kernels
