// Helpers shared by the shaders.
#extension GL_EXT_control_flow_attributes : require

// Groups are dispatched in two dimensions when their count passes the limit of one:
// this is the group's linear index.
uint linear_group() {
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}

// tanh that never overflows into NaN: for |x| > 15 it is +-1 in float anyway.
float safe_tanh(float x) {
    return tanh(clamp(x, -15.0, 15.0));
}

// GELU, tanh approximation (the engine's gelu).
float gelu_tanh(float x) {
    const float sqrt_2_over_pi = 0.79788456080286535588;
    return 0.5 * x * (1.0 + safe_tanh(sqrt_2_over_pi * x * (1.0 + 0.044715 * x * x)));
}

float silu(float x) {
    return x / (1.0 + exp(-x));
}

// a / b rounded to nearest as IEEE division is (GLSL's division may be off by 2.5 ulp): one
// Newton step on the quotient with the exact residual from fma.
float divide_rn(float a, float b) {
    precise float y = 1.0 / b;
    precise float q = a * y;
    precise float r = fma(-q, b, a);
    return fma(r, y, q);
}

// IEEE half bits of f, rounded to nearest even, as the CPU's fp32_to_fp16 (GLSL's packHalf2x16
// rounds as the implementation likes).
uint float_to_half_rn(float f) {
    uint bits = floatBitsToUint(f);
    uint sign = (bits >> 16) & 0x8000u;
    uint magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) {
        uint payload = magnitude > 0x7f800000u ? (0x200u | ((magnitude >> 13) & 0x3ffu)) : 0u;
        return sign | 0x7c00u | payload;
    }
    if (magnitude >= 0x477ff000u) return sign | 0x7c00u;
    if (magnitude >= 0x38800000u) {
        uint odd = (magnitude >> 13) & 1u;
        magnitude = magnitude - ((127u - 15u) << 23) + 0xfffu + odd;
        return sign | (magnitude >> 13);
    }
    // Below the smallest normal half: count whole steps of 2^-24, rounding halves to even.
    float steps = uintBitsToFloat(magnitude) * 16777216.0; // exact: a power of two
    float whole = floor(steps);
    float rest = steps - whole;
    uint q = uint(whole);
    if (rest > 0.5 || (rest == 0.5 && (q & 1u) == 1u)) q += 1u;
    return sign | q;
}

// Half bits to float, denormals included.
float half_to_float(uint h) {
    return unpackHalf2x16(h).x;
}
