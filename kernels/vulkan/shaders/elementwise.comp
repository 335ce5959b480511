#version 450
// Element-wise ops on x in place, one thread per element (several when there are many).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 256;

layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };

const uint OP_ADD = 0u;      // x += y
const uint OP_ADD_BIAS = 1u; // x += y[i % dim]
const uint OP_SCALE = 2u;    // x *= value
const uint OP_SOFT_CAP = 3u; // x = value * tanh(x / value)
const uint OP_SWIGLU = 4u;   // x = silu(x) * y
const uint OP_GEGLU = 5u;    // x = gelu(x) * y
const uint OP_GELU = 6u;     // x = gelu(x)

layout(push_constant) uniform Push {
    uint x_offset, y_offset;
    uint count, dim, op;
    float value;
    uint per_thread;
} p;

void main() {
    uint first = (linear_group() * WORKGROUP + gl_LocalInvocationID.x) * p.per_thread;
    for (uint i = first; i < min(first + p.per_thread, p.count); ++i) {
        float v = x[p.x_offset + i];
        if (p.op == OP_ADD) v += y[p.y_offset + i];
        else if (p.op == OP_ADD_BIAS) v += y[p.y_offset + i % p.dim];
        else if (p.op == OP_SCALE) v *= p.value;
        else if (p.op == OP_SOFT_CAP) v = p.value * safe_tanh(v / p.value);
        else if (p.op == OP_SWIGLU) v = silu(v) * y[p.y_offset + i];
        else if (p.op == OP_GEGLU) v = gelu_tanh(v) * y[p.y_offset + i];
        else if (p.op == OP_GELU) v = gelu_tanh(v);
        x[p.x_offset + i] = v;
    }
}
