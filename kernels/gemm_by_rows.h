#pragma once
// Matmul kernels (GemmFn) made of a per-row kernel: a dot product per (weight row, activation
// row), or a repacked-rows gemv per activation row. Each tier instantiates them in its own
// files, so that the anonymous namespace gives each translation unit (and its flags) its own
// copy, and the per-row kernel can be inlined into the loop.
#include "kernels/decode_prefetch.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include <algorithm>
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
        prefetch_row_ahead(row, weight_row_bytes, prefetch);
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

// Row-major rows whose blocks a Decoded type decodes once for every activation row: Decoded(block)
// decodes a weight block (Decoded::Block); decoded.accumulate(activation block, acc) returns acc
// plus their dot product (acc a vector of partial sums, Decoded::zero() at first), and
// Decoded::sum(acc) the row's dot product. A row's dot product is then the same operations for
// one activation row as for several: decode and a small batch give the same bits.
template <class Decoded>
float dot_by_decoded_blocks(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const typename Decoded::Block*>(weight_row);
    const auto* a = static_cast<const typename Decoded::ActivationBlock*>(activation_row);
    auto acc = Decoded::zero();
    for (int64_t i = 0; i < n / Decoded::kBlockElements; ++i)
        acc = Decoded(w[i]).accumulate(a[i], acc);
    return Decoded::sum(acc);
}

// Activation rows [first, first + M) against one weight row, each block decoded once for the M.
template <class Decoded, int M>
void dot_decoded_rows(int64_t blocks, const typename Decoded::Block* w, const char* activations,
                      size_t activation_row_bytes, int64_t first, float* y, int64_t y_stride) {
    using ActivationBlock = typename Decoded::ActivationBlock;
    const ActivationBlock* a[M];
    decltype(Decoded::zero()) acc[M];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
        a[m] = reinterpret_cast<const ActivationBlock*>(activations + (first + m) * activation_row_bytes);
        acc[m] = Decoded::zero();
    }
    for (int64_t i = 0; i < blocks; ++i) {
        const Decoded decoded(w[i]);
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m)
            acc[m] = decoded.accumulate(a[m][i], acc[m]);
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
        y[(first + m) * y_stride] = Decoded::sum(acc[m]);
}

// dot_decoded_rows for the `left` (1 to M) activation rows from `first`.
template <class Decoded, int M>
void dot_last_decoded_rows(int64_t blocks, const typename Decoded::Block* w, const char* activations,
                           size_t activation_row_bytes, int64_t first, int64_t left, float* y,
                           int64_t y_stride) {
    if constexpr (M > 1) {
        if (left < M)
            return dot_last_decoded_rows<Decoded, M - 1>(blocks, w, activations, activation_row_bytes, first,
                                                         left, y, y_stride);
    }
    dot_decoded_rows<Decoded, M>(blocks, w, activations, activation_row_bytes, first, y, y_stride);
}

// A GemmFn of such rows: decode as gemv_by_rows; a batch weight row by weight row (its lines
// asked for ahead, as in decode), against kRowsPerPass activation rows at a time, the row read
// from L1 after the first pass.
template <class Decoded, int kRowsPerPass>
void gemm_by_decoded_blocks(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                            int64_t row_end, const void* activations, size_t activation_row_bytes,
                            int64_t batch, float* y, int64_t y_stride) {
    if (batch == 1) {
        gemv_by_rows(dot_by_decoded_blocks<Decoded>, n, weights, weight_row_bytes, row_begin, row_end,
                     activations, y);
        return;
    }
    const char* base = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    const DecodePrefetch& prefetch = decode_prefetch();
    const int64_t blocks = n / Decoded::kBlockElements;
    for (int64_t r = row_begin; r < row_end; ++r) {
        const char* row = base + r * weight_row_bytes;
        prefetch_row_ahead(row, weight_row_bytes, prefetch);
        const auto* w = reinterpret_cast<const typename Decoded::Block*>(row);
        for (int64_t first = 0; first < batch; first += kRowsPerPass)
            dot_last_decoded_rows<Decoded, kRowsPerPass>(blocks, w, a, activation_row_bytes, first,
                                                         std::min<int64_t>(kRowsPerPass, batch - first),
                                                         y + r, y_stride);
    }
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
