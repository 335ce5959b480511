#version 450
// Rotary position embedding in place: one thread per (row, head, pair), of x and then of y
// (queries and keys in one dispatch; n_heads_y 0: x alone).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 256;

layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Factors { float factors[]; };
layout(std430, binding = 2) buffer Y { float y[]; };

layout(push_constant) uniform Push {
    uint x_offset, factors_offset;
    uint n, n_heads, head_dim, rope_dim;
    uint neox, has_factors;
    uint pos0;
    float log2_base, freq_scale, attn_factor;
    uint y_offset, n_heads_y;
} p;

// sin and cos of a large angle: reduced to [-pi, pi] first (Cody-Waite, 2 pi in two parts, the
// first exact times any turn count below 2^15), where GLSL's sin and cos are accurate.
void sin_cos(float angle, out float s, out float c) {
    const float two_pi_1 = 6.28125;
    const float two_pi_2 = 1.9353071795864769253e-3;
    float turns = floor(angle * 0.15915494309189535 + 0.5);
    precise float reduced = fma(-turns, two_pi_1, angle);
    reduced = fma(-turns, two_pi_2, reduced);
    s = sin(reduced);
    c = cos(reduced);
}

void main() {
    uint pairs = p.rope_dim / 2u;
    uint index = linear_group() * WORKGROUP + gl_LocalInvocationID.x;
    uint in_x = p.n * p.n_heads * pairs;
    bool of_y = index >= in_x;
    if (of_y) index -= in_x;
    uint heads = of_y ? p.n_heads_y : p.n_heads;
    if (index >= p.n * heads * pairs) return;
    uint i = index % pairs;
    uint head = (index / pairs) % heads;
    uint row = index / (pairs * heads);
    float inverse_frequency = exp2(-2.0 * float(i) / float(p.rope_dim) * p.log2_base);
    float angle = float(p.pos0 + row) * p.freq_scale * inverse_frequency;
    if (p.has_factors != 0u) angle /= factors[p.factors_offset + i];
    float s, c;
    sin_cos(angle, s, c);
    s *= p.attn_factor;
    c *= p.attn_factor;
    uint base = (of_y ? p.y_offset : p.x_offset) + (row * heads + head) * p.head_dim;
    uint a = base + (p.neox != 0u ? i : 2u * i);
    uint b = base + (p.neox != 0u ? i + pairs : 2u * i + 1u);
    if (of_y) {
        float y0 = y[a], y1 = y[b];
        y[a] = y0 * c - y1 * s;
        y[b] = y0 * s + y1 * c;
    } else {
        float x0 = x[a], x1 = x[b];
        x[a] = x0 * c - x1 * s;
        x[b] = x0 * s + x1 * c;
    }
}
