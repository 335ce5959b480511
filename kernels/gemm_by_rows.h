#pragma once
// Matmul kernels (GemmFn) made of a per-row kernel: a dot product per (weight row, activation
// row), or a repacked-rows gemv per activation row. Each tier instantiates them in its own
// files, so that the anonymous namespace gives each translation unit (and its flags) its own
// copy, and the per-row kernel can be inlined into the loop.
#include "kernels/decode_prefetch.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {
namespace {

// Decode over row-major weights: rows one by one through vec_dot, each row's lines asked for
// ahead of it. Several rows at once break the single sequential stream the memory system
// serves best.
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

// A GemmFn of one dot product per (row, activation row): decode as gemv_by_rows, a batch row by
// row, each row against every activation row.
template <VecDotFn kDot>
void gemm_by_dot(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
                 const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                 int64_t y_stride) {
    if (batch == 1) {
        gemv_by_rows(kDot, n, weights, weight_row_bytes, row_begin, row_end, activations, y);
        return;
    }
    const char* w = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    for (int64_t r = row_begin; r < row_end; ++r)
        for (int64_t b = 0; b < batch; ++b)
            y[b * y_stride + r] = kDot(n, w + r * weight_row_bytes, a + b * activation_row_bytes);
}

// A GemmFn over repacked rows (row_begin and row_end whole groups) of one gemv per activation
// row: after the first, the groups are read from cache.
template <InterleavedGemvFn kGemv>
void gemm_by_packed_gemv(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                         const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                         int64_t y_stride) {
    for (int64_t b = 0; b < batch; ++b)
        kGemv(n, packed, row_begin / kInterleavedRows, row_end / kInterleavedRows,
              static_cast<const char*>(activations) + b * activation_row_bytes, y + b * y_stride);
}

} // namespace
} // namespace hearth::kernels
