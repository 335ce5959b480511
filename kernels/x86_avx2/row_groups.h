#pragma once
// Groups of weight rows reduced together, one row per lane of a vector. Included by tiers
// compiled with different flags (x86_avx2/, x86_avxvnni/, x86_avx512/): the anonymous namespace gives each
// translation unit its own copy, so no tier links another's code.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels {
namespace {

// The group's rows from row `first`; a group at the end of the range repeats its last valid
// row, so that every lane reads real blocks.
template <int kRows, class Block>
inline void group_rows(const char* weights, size_t row_bytes, int64_t first, int valid_rows,
                       const Block* (&rows)[kRows]) {
    for (int k = 0; k < kRows; ++k)
        rows[k] = reinterpret_cast<const Block*>(weights + (first + std::min(k, valid_rows - 1)) * row_bytes);
}

// Lanes [0, valid_rows) of an 8-row group's results to y[0, valid_rows).
inline void store_8_lanes(__m256 v, float* y, int valid_rows) {
    if (valid_rows == 8) {
        _mm256_storeu_ps(y, v);
        return;
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    std::copy(lanes, lanes + valid_rows, y);
}

} // namespace
} // namespace hearth::kernels
