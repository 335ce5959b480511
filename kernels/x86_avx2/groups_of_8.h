#pragma once
// Groups of 8 weight rows reduced together, row r in lane r of a vector, as llama.cpp's
// repacked Q4_0 and Q4_K kernels (q4_0_8x8, q4_K_8x8) sum them. Included by
// q4_0_groups_of_8_avx2.cpp and q4_k_groups_of_8_avx2.cpp (the AVX2 tier).
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
