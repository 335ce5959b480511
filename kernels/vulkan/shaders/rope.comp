#version 450
// Rotary position embedding in place: one thread per (row, head, pair).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 256;

layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Factors { float factors[]; };

layout(push_constant) uniform Push {
    uint x_offset, factors_offset;
    uint n, n_heads, head_dim, rope_dim;
    uint neox, has_factors;
    uint pos0;
    float log2_base, freq_scale, attn_factor;
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
    if (index >= p.n * p.n_heads * pairs) return;
    uint i = index % pairs;
    uint head = (index / pairs) % p.n_heads;
    uint row = index / (pairs * p.n_heads);
    float inverse_frequency = exp2(-2.0 * float(i) / float(p.rope_dim) * p.log2_base);
    float angle = float(p.pos0 + row) * p.freq_scale * inverse_frequency;
    if (p.has_factors != 0u) angle /= factors[p.factors_offset + i];
    float s, c;
    sin_cos(angle, s, c);
    s *= p.attn_factor;
    c *= p.attn_factor;
    uint base = p.x_offset + (row * p.n_heads + head) * p.head_dim;
    uint a = base + (p.neox != 0u ? i : 2u * i);
    uint b = base + (p.neox != 0u ? i + pairs : 2u * i + 1u);
    float x0 = x[a], x1 = x[b];
    x[a] = x0 * c - x1 * s;
    x[b] = x0 * s + x1 * c;
}
