#version 450
// RMSNorm (mode 0) and LayerNorm (mode 1) of one row per workgroup, sums in F32 across the
// workgroup; optional weight and bias. With accumulate the normed row is added to out (a
// post-norm into the residual stream), rounded first as a separate add would see it. Rows from
// second_rows on take the weight at second_weight_offset (a token's query heads, then its key
// heads, side by side: their two norms in one dispatch).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 256;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Weight { float weight[]; };
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) buffer Out { float out_rows[]; };

layout(push_constant) uniform Push {
    uint x_offset, weight_offset, bias_offset, out_offset;
    uint rows, dim;
    uint mode, has_weight, has_bias;
    float eps;
    uint accumulate;
    uint second_rows, second_weight_offset;
} p;

shared float sums[WORKGROUP];

float workgroup_sum(float value) {
    uint tid = gl_LocalInvocationID.x;
    sums[tid] = value;
    barrier();
    for (uint s = WORKGROUP / 2u; s > 0u; s >>= 1u) {
        if (tid < s) sums[tid] += sums[tid + s];
        barrier();
    }
    float total = sums[0];
    barrier();
    return total;
}

void main() {
    uint row = linear_group();
    if (row >= p.rows) return;
    uint tid = gl_LocalInvocationID.x;
    uint base = p.x_offset + row * p.dim;
    float mean = 0.0;
    if (p.mode == 1u) {
        float sum = 0.0;
        for (uint i = tid; i < p.dim; i += WORKGROUP)
            sum += x[base + i];
        mean = workgroup_sum(sum) / float(p.dim);
    }
    float squares = 0.0;
    for (uint i = tid; i < p.dim; i += WORKGROUP) {
        float centered = x[base + i] - mean;
        squares += centered * centered;
    }
    float factor = 1.0 / sqrt(workgroup_sum(squares) / float(p.dim) + p.eps);
    uint out_base = p.out_offset + row * p.dim;
    uint weight_base = row >= p.second_rows ? p.second_weight_offset : p.weight_offset;
    for (uint i = tid; i < p.dim; i += WORKGROUP) {
        float value = (x[base + i] - mean) * factor;
        if (p.has_weight != 0u) value *= weight[weight_base + i];
        if (p.has_bias != 0u) value += bias[p.bias_offset + i];
        if (p.accumulate != 0u) {
            precise float sum = out_rows[out_base + i] + value; // no fma with the weight's product
            out_rows[out_base + i] = sum;
        } else {
            out_rows[out_base + i] = value;
        }
    }
}
