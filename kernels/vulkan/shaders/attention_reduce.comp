#version 450
// The splits of attention.comp combined: per row, the splits' accumulators and sums rescaled to
// the largest of their maxima, summed in split order, and divided. One thread per element.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 256;
const float NEG_INF = -1.0 / 0.0;

layout(std430, binding = 0) readonly buffer Partial { float partial[]; };
layout(std430, binding = 1) writeonly buffer Out { float out_rows[]; };

layout(push_constant) uniform Push {
    uint partial_offset, out_offset; // elements
    uint rows, head_dim, splits;
} p;

void main() {
    uint index = linear_group() * WORKGROUP + gl_LocalInvocationID.x;
    if (index >= p.rows * p.head_dim) return;
    uint row = index / p.head_dim, d = index % p.head_dim;
    // Accumulators (splits, rows, head_dim), then maximum and sum (splits, rows, 2).
    uint ml_base = p.partial_offset + p.splits * p.rows * p.head_dim;
    float top = NEG_INF;
    for (uint s = 0u; s < p.splits; ++s)
        top = max(top, partial[ml_base + 2u * (s * p.rows + row)]);
    float sum = 0.0, value = 0.0;
    for (uint s = 0u; s < p.splits; ++s) {
        float m = partial[ml_base + 2u * (s * p.rows + row)];
        if (m == NEG_INF) continue; // no key of this split is seen by the row
        float factor = exp(m - top);
        sum += partial[ml_base + 2u * (s * p.rows + row) + 1u] * factor;
        value += partial[p.partial_offset + (s * p.rows + row) * p.head_dim + d] * factor;
    }
    out_rows[p.out_offset + row * p.head_dim + d] = value / sum;
}
