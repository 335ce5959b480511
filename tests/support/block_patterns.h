#pragma once
// The kinds of weight and activation blocks the kernel suites feed every kernel: realistic
// blocks and the bit patterns at the edges of each format, and rows made of them.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace hearth::test {

enum class BlockPattern {
    Quantized,      // normal floats through the reference quantizers: realistic blocks
    RawBytes,       // every quant and scale bit random, fp16 scales finite
    AllOnes,        // every byte 0xFF: largest quants, largest 6-bit scales, Q6_K scale -1
    AllHighBit,     // every byte 0x80: Q8_0 quant -128, Q6_K scale -128
    ZeroScales,     // random quants under zero fp16 scales
    MaxActivation,  // realistic weights, activations all +-127 (the largest quant)
    RawActivations, // Q8_0 activation quants random bytes in [-127, 127], random scales
};

inline const char* pattern_name(BlockPattern p) {
    switch (p) {
    case BlockPattern::Quantized:
        return "quantized";
    case BlockPattern::RawBytes:
        return "raw";
    case BlockPattern::AllOnes:
        return "ff";
    case BlockPattern::AllHighBit:
        return "80";
    case BlockPattern::ZeroScales:
        return "zero-scales";
    case BlockPattern::MaxActivation:
        return "max-activation";
    case BlockPattern::RawActivations:
        return "raw-activations";
    }
    return "?";
}

using Bytes = std::vector<uint8_t>;

inline bool is_float_type(kernels::TensorType t) {
    return t == kernels::TensorType::F32 || t == kernels::TensorType::F16 || t == kernels::TensorType::BF16;
}

// Byte offsets of the fp16 scale fields in one block of each quantized type.
inline std::vector<size_t> fp16_fields(kernels::TensorType t) {
    using namespace kernels;
    switch (t) {
    case TensorType::Q4_0:
        return {offsetof(BlockQ4_0, d)};
    case TensorType::Q4_1:
        return {offsetof(BlockQ4_1, d), offsetof(BlockQ4_1, m)};
    case TensorType::Q5_0:
        return {offsetof(BlockQ5_0, d)};
    case TensorType::Q5_1:
        return {offsetof(BlockQ5_1, d), offsetof(BlockQ5_1, m)};
    case TensorType::Q8_0:
        return {offsetof(BlockQ8_0, d)};
    case TensorType::Q2_K:
        return {offsetof(BlockQ2_K, d), offsetof(BlockQ2_K, dmin)};
    case TensorType::Q3_K:
        return {offsetof(BlockQ3_K, d)};
    case TensorType::Q4_K:
        return {offsetof(BlockQ4_K, d), offsetof(BlockQ4_K, dmin)};
    case TensorType::Q5_K:
        return {offsetof(BlockQ5_K, d), offsetof(BlockQ5_K, dmin)};
    case TensorType::Q6_K:
        return {offsetof(BlockQ6_K, d)};
    default:
        return {};
    }
}

inline std::vector<float> normal_floats(int64_t n, std::mt19937& rng, float sigma = 1.0f) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v)
        x = dist(rng);
    return v;
}

// One weight row of n elements of type t in pattern p (float types: normal values whatever p).
inline Bytes make_weight_row(kernels::TensorType t, int64_t n, BlockPattern p, std::mt19937& rng) {
    Bytes row(kernels::row_bytes(t, n));
    if (is_float_type(t) || p == BlockPattern::Quantized || p == BlockPattern::MaxActivation ||
        p == BlockPattern::RawActivations) {
        kernels::reference_ops(t).quantize(normal_floats(n, rng).data(), row.data(), n);
        return row;
    }
    if (p == BlockPattern::AllOnes) std::fill(row.begin(), row.end(), uint8_t{0xFF});
    if (p == BlockPattern::AllHighBit) std::fill(row.begin(), row.end(), uint8_t{0x80});
    if (p == BlockPattern::RawBytes || p == BlockPattern::ZeroScales)
        for (uint8_t& b : row)
            b = static_cast<uint8_t>(rng());
    std::uniform_real_distribution<float> scale(1e-3f, 0.1f);
    const size_t block_bytes = kernels::type_traits(t).block_bytes;
    for (size_t block = 0; block < row.size(); block += block_bytes)
        for (size_t offset : fp16_fields(t)) {
            const float value = p == BlockPattern::ZeroScales ? 0.0f
                                : p == BlockPattern::RawBytes ? scale(rng)
                                                              : 0.05f;
            const kernels::fp16_bits bits = kernels::fp32_to_fp16(value);
            std::memcpy(&row[block + offset], &bits, sizeof bits);
        }
    return row;
}

// One activation row of n elements in format `activation` (F32: the floats themselves), quantized
// by the reference's activation quantizer.
inline Bytes make_activation_row(kernels::TensorType activation, int64_t n, BlockPattern p,
                                 std::mt19937& rng) {
    using kernels::TensorType;
    std::vector<float> x = normal_floats(n, rng);
    if (p == BlockPattern::MaxActivation)
        for (float& v : x)
            v = v < 0 ? -1.0f : 1.0f;
    if (activation == TensorType::F32) {
        Bytes out(x.size() * sizeof(float));
        std::memcpy(out.data(), x.data(), out.size());
        return out;
    }
    Bytes out(kernels::row_bytes(activation, n));
    const kernels::ReferenceOps ops = kernels::reference_ops(activation);
    // All +-1 through the weight quantizer: every quant +-127 (Q8_0's activation quantizer may
    // pick a smaller largest quant whose fp16 scale fits 1 better).
    (p == BlockPattern::MaxActivation ? ops.quantize : ops.quantize_activations)(x.data(), out.data(), n);
    if (p == BlockPattern::RawActivations && activation == TensorType::Q8_0) {
        std::uniform_real_distribution<float> scale(1e-3f, 0.1f);
        for (auto* block = reinterpret_cast<kernels::BlockQ8_0*>(out.data());
             block < reinterpret_cast<kernels::BlockQ8_0*>(out.data() + out.size()); ++block) {
            block->d = kernels::fp32_to_fp16(scale(rng));
            for (int8_t& q : block->qs)
                q = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
        }
    }
    return out;
}

} // namespace hearth::test
