#pragma once
// Groups of 8 weight rows reduced together, row r in lane r of a vector, as llama.cpp's
// repacked (interleaved) Q4_0 and Q4_K kernels sum them. Include only from kernels/x86_avx2/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

#include "kernels/x86_avx2/row_groups.h"

namespace hearth::kernels::avx2 {

constexpr int kGroupRows = 8;

// Lanes [0, valid_rows) of v to y[0, valid_rows).
inline void store_group_lanes(__m256 v, float* y, int valid_rows) {
    if (valid_rows == kGroupRows) {
        _mm256_storeu_ps(y, v);
        return;
    }
    alignas(32) float lanes[kGroupRows];
    _mm256_store_ps(lanes, v);
    std::copy(lanes, lanes + valid_rows, y);
}

} // namespace hearth::kernels::avx2
