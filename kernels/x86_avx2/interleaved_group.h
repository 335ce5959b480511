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
    store_8_lanes(v, y, valid_rows);
}

} // namespace hearth::kernels::avx2
