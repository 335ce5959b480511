#pragma once
// IEEE half and bfloat16 <-> float conversion, portable bit manipulation.
// Float -> half/bf16 rounds to nearest, ties to even; denormals, infinities
// and NaN (kept quiet, sign kept) are handled exactly. The SIMD kernels use
// F16C instead, which gives the same results.
#include "kernels/block_formats.h"
#include <bit>
#include <cstdint>

namespace hearth::kernels {

inline float fp16_to_fp32(fp16_bits h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t magnitude = h & 0x7fffu;
    if (magnitude >= 0x7c00u) // infinity or NaN: widen the payload
        return std::bit_cast<float>(sign | 0x7f800000u | ((magnitude & 0x3ffu) << 13));
    if (magnitude >= 0x0400u) // normal: rebias the exponent from 15 to 127
        return std::bit_cast<float>(sign | ((magnitude << 13) + ((127u - 15u) << 23)));
    // Zero or denormal: magnitude * 2^-24 is exact in float.
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(static_cast<float>(magnitude) * 0x1p-24f));
}

inline fp16_bits fp32_to_fp16(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) { // infinity, or NaN made quiet so it stays a NaN
        const uint32_t nan_payload = magnitude > 0x7f800000u ? 0x200u | ((magnitude >> 13) & 0x3ffu) : 0u;
        return static_cast<fp16_bits>(sign | 0x7c00u | nan_payload);
    }
    if (magnitude >= 0x477ff000u) // 65520 and above round to infinity
        return static_cast<fp16_bits>(sign | 0x7c00u);
    if (magnitude >= 0x38800000u) { // normal half: rebias, then round the 13 dropped bits to even
        const uint32_t odd = (magnitude >> 13) & 1u;
        magnitude = magnitude - ((127u - 15u) << 23) + 0xfffu + odd;
        return static_cast<fp16_bits>(sign | (magnitude >> 13));
    }
    // Denormal half or zero: adding 0.5 makes the FPU round to a multiple of 2^-24
    // (ties to even), which is exactly the half denormal step.
    const float shifted = std::bit_cast<float>(magnitude) + 0.5f;
    return static_cast<fp16_bits>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
}

inline float bf16_to_fp32(bf16_bits h) {
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

inline bf16_bits fp32_to_bf16(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: truncate and force quiet so it stays a NaN
        return static_cast<bf16_bits>((bits >> 16) | 0x40u);
    const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<bf16_bits>((bits + rounding) >> 16);
}

} // namespace hearth::kernels
