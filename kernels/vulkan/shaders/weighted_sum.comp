#version 450
// y[b] += sum_j weights[b, j] * x[b, j] over the k chosen experts' outputs: one thread per
// element of y.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 256;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Weights { float w[]; };
layout(std430, binding = 2) buffer Y { float y[]; };

layout(push_constant) uniform Push {
    uint x_offset, w_offset, y_offset;
    uint n, k, dim;
} p;

void main() {
    uint index = linear_group() * WORKGROUP + gl_LocalInvocationID.x;
    if (index >= p.n * p.dim) return;
    uint b = index / p.dim, d = index % p.dim;
    float sum = y[p.y_offset + index];
    for (uint j = 0u; j < p.k; ++j)
        sum += w[p.w_offset + b * p.k + j] * x[p.x_offset + (b * p.k + j) * p.dim + d];
    y[p.y_offset + index] = sum;
}
