#pragma once
// The kinds of weight and activation blocks the SIMD kernel suites feed every tier: realistic
// blocks and the bit patterns at the edges of each format.
namespace hearth::test {

enum class BlockPattern {
    Quantized,      // normal floats through the reference quantizers: realistic blocks
    RawBytes,       // every quant and scale bit random, fp16 scales finite
    AllOnes,        // every byte 0xFF: largest quants, largest 6-bit scales, Q6_K scale -1
    AllHighBit,     // every byte 0x80: Q8_0 quant -128, Q6_K scale -128
    ZeroScales,     // random quants under zero fp16 scales
    MaxActivation,  // realistic weights, activations all +-127
    RawActivations, // activation quants random bytes, -128 included
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

} // namespace hearth::test
