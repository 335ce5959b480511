#pragma once
// Decode over row-major weights, one row at a time through a dot product, each row's lines
// asked for ahead of it: shared by the AVX2 and AVX-512 tiers, which are compiled with
// different flags; the anonymous namespace gives each translation unit its own copy.
#include "kernels/decode_prefetch.h"
#include "kernels/kernel_table.h"
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels {
namespace {

// Rows one by one through vec_dot, each prefetched ahead. (Tiles of 4 rows x 1 were measured
// slower: 32.6 against 35.6 tok/s on Qwen2.5-0.5B Q4_K_M, as several rows at once break the
// single sequential stream the memory system serves best.)
inline void gemv_by_rows(VecDotFn vec_dot, int64_t n, const void* weights, size_t weight_row_bytes,
                         int64_t row_begin, int64_t row_end, const void* activation, float* y) {
    const char* base = static_cast<const char*>(weights);
    const DecodePrefetch& prefetch = decode_prefetch();
    for (int64_t r = row_begin; r < row_end; ++r) {
        const char* row = base + r * weight_row_bytes;
        prefetch_weight_lines(row + prefetch.row_bytes_ahead, weight_row_bytes, prefetch.into_l2);
        y[r] = vec_dot(n, row, activation);
    }
}

} // namespace
} // namespace hearth::kernels
