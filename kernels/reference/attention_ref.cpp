// Scalar attention over an F16 KV cache in F32: the oracle of the SIMD versions.
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include <cmath>

namespace hearth::kernels {
namespace {

// dot(q, k) in F32 over 8 interleaved partial sums, added pairwise: closer to the exact sum than
// one running sum, and the order of the AVX2 kernel's 8-lane dot products.
float dot_f32_f16(const float* q, const uint16_t* k, int64_t n) {
    float lanes[8] = {};
    for (int64_t i = 0; i < n; ++i)
        lanes[i % 8] = std::fma(q[i], fp16_to_fp32(k[i]), lanes[i % 8]);
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

} // namespace

// One pass over the keys with an online softmax: the running maximum, the sum of weights and
// the weighted sum of values in F32; a key above the maximum rescales what came before.
void attend_f16_ref(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride,
                    int64_t n_keys, int64_t head_dim, float scale, float* out) {
    float acc[kMaxAttentionHeadDim] = {};
    float max_score = -INFINITY, sum = 0.0f;
    for (int64_t j = 0; j < n_keys; ++j) {
        const float score = dot_f32_f16(q, keys + static_cast<size_t>(j) * kv_stride, head_dim) * scale;
        if (score == -INFINITY) continue; // weight 0 (and exp(-inf - -inf) would be NaN)
        if (score > max_score) {
            const float rescale = std::exp(max_score - score);
            for (int64_t d = 0; d < head_dim; ++d)
                acc[d] *= rescale;
            sum *= rescale;
            max_score = score;
        }
        const float weight = std::exp(score - max_score);
        sum += weight;
        const uint16_t* v = values + static_cast<size_t>(j) * kv_stride;
        for (int64_t d = 0; d < head_dim; ++d)
            acc[d] = std::fma(fp16_to_fp32(v[d]), weight, acc[d]);
    }
    for (int64_t d = 0; d < head_dim; ++d)
        out[d] = acc[d] / sum;
}

void attend_group_f16_ref(const float* q, float* out, size_t head_stride, size_t position_stride,
                          int64_t n_heads, int64_t n_positions, const uint16_t* keys, const uint16_t* values,
                          size_t kv_stride, int64_t n_keys, int64_t head_dim, float scale) {
    for (int64_t p = 0; p < n_positions; ++p)
        for (int64_t h = 0; h < n_heads; ++h) {
            const size_t row =
                static_cast<size_t>(p) * position_stride + static_cast<size_t>(h) * head_stride;
            attend_f16_ref(q + row, keys, values, kv_stride, n_keys + p, head_dim, scale, out + row);
        }
}

} // namespace hearth::kernels
