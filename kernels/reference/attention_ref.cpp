// Scalar attention over an F16, Q8_0 or Q4_0 KV cache in F32: the oracle of the SIMD versions.
#include "kernels/fp16.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include <cmath>

namespace hearth::kernels {
namespace {

// dot(q, k) in F32 over 8 interleaved partial sums, added pairwise: closer to the exact sum than
// one running sum, and the order of the AVX2 kernel's 8-lane dot products.
float dot_f32(const float* q, const float* k, int64_t n) {
    float lanes[8] = {};
    for (int64_t i = 0; i < n; ++i)
        lanes[i % 8] = std::fma(q[i], k[i], lanes[i % 8]);
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// Row j of a KV head, widened exactly to head_dim floats.
void widen_row(const KvRows& rows, int64_t j, int64_t head_dim, float* dst) {
    const void* row = static_cast<const char*>(rows.data) + static_cast<size_t>(j) * rows.row_bytes;
    switch (rows.type) {
    case TensorType::Q8_0:
        return dequantize_row_q8_0_ref(row, dst, head_dim);
    case TensorType::Q4_0:
        return dequantize_row_q4_0_ref(row, dst, head_dim);
    default: {
        const auto* halves = static_cast<const uint16_t*>(row);
        for (int64_t d = 0; d < head_dim; ++d)
            dst[d] = fp16_to_fp32(halves[d]);
    }
    }
}

// One pass over the keys with an online softmax: the running maximum, the sum of weights and
// the weighted sum of values in F32; a key above the maximum rescales what came before.
// With limits, the keys before the row's window are skipped and each score is soft-capped.
void attend_row(const float* q, const KvRows& keys, const KvRows& values, int64_t n_keys, int64_t head_dim,
                float scale, float* out, AttentionLimits limits) {
    float acc[kMaxAttentionHeadDim] = {};
    float key[kMaxAttentionHeadDim], value[kMaxAttentionHeadDim];
    float max_score = -INFINITY, sum = 0.0f;
    const int64_t first_key = limits.window > 0 && n_keys > limits.window ? n_keys - limits.window : 0;
    for (int64_t j = first_key; j < n_keys; ++j) {
        widen_row(keys, j, head_dim, key);
        float score = dot_f32(q, key, head_dim) * scale;
        if (limits.softcap > 0) score = limits.softcap * std::tanh(score / limits.softcap);
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
        widen_row(values, j, head_dim, value);
        for (int64_t d = 0; d < head_dim; ++d)
            acc[d] = std::fma(value[d], weight, acc[d]);
    }
    for (int64_t d = 0; d < head_dim; ++d)
        out[d] = acc[d] / sum;
}

} // namespace

void attend_ref(const float* q, float* out, size_t head_stride, size_t position_stride, int64_t n_heads,
                int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys, int64_t head_dim,
                float scale, AttentionLimits limits) {
    for (int64_t p = 0; p < n_positions; ++p)
        for (int64_t h = 0; h < n_heads; ++h) {
            const size_t row =
                static_cast<size_t>(p) * position_stride + static_cast<size_t>(h) * head_stride;
            attend_row(q + row, keys, values, n_keys + p, head_dim, scale, out + row, limits);
        }
}

} // namespace hearth::kernels
