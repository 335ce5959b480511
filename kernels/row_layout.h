#pragma once
// How a weight matrix's blocks are laid out in memory.
#include <cstdint>

namespace hearth::kernels {

enum class RowLayout : uint8_t {
    RowMajor,      // as stored in GGUF: row after row, blocks in order
    Interleaved16, // groups of 16 rows repacked at load (interleaved_rows.h): Q4_K, Q6_K, Q8_0
};

} // namespace hearth::kernels
