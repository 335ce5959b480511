#pragma once
// Register-blocked gemm drivers, shared by the format families' prefill kernels
// (gemm_float_avx2.cpp, gemm_block32_avx2.cpp, gemm_k_quants_avx2.cpp; GemmCall and line_aligned
// also gemm_float_avx512.cpp): the [row_begin, row_end)
// x [0, batch) output is cut into tiles of RM weight rows by RN activation rows. Each tile kernel
// decodes a weight block once for its RN activation rows (or reads it from a panel decoded once
// per RM rows), and loads an activation block once for its RM weight rows.
#include "kernels/gemm_by_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/x86_avx2/avx2_util.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <immintrin.h>
#include <utility>
#include <vector>

namespace hearth::kernels::avx2 {

// A GemmFn's arguments, handed to a format family's prefill.
struct GemmCall {
    int64_t n;
    const void* weights;
    size_t weight_row_bytes;
    int64_t row_begin, row_end;
    const void* activations;
    size_t activation_row_bytes;
    int64_t batch;
    float* y;
    int64_t y_stride;
};

// A tile kernel: `w` is the tile's first weight row, `a` its first activation row, `y` the
// output of (first row, first activation); it writes y[b * y_stride + r] for r < RM, b < RN.
using TileFn = void (*)(int64_t blocks, const char* w, size_t w_stride, const char* a, size_t a_stride,
                        float* y, int64_t y_stride);

template <int RM, int RN, template <int, int> class Tile> struct TileGrid {
    // All tile shapes up to RM x RN, for the remainders at the edges.
    static constexpr auto table = []<size_t... I>(std::index_sequence<I...>) {
        return std::array<TileFn, RM * RN>{&Tile<int(I / RN) + 1, int(I % RN) + 1>::run...};
    }
    (std::make_index_sequence<RM * RN>{});

    static void run(int64_t blocks, const GemmCall& call) {
        const char* w = static_cast<const char*>(call.weights);
        const char* a = static_cast<const char*>(call.activations);
        // Rows outer: a tile's weight rows stay in L1 while every activation row streams past.
        for (int64_t r = call.row_begin; r < call.row_end; r += RM) {
            const int64_t rm = std::min<int64_t>(RM, call.row_end - r);
            for (int64_t b = 0; b < call.batch; b += RN) {
                const int64_t rn = std::min<int64_t>(RN, call.batch - b);
                table[(rm - 1) * RN + (rn - 1)](blocks, w + r * call.weight_row_bytes, call.weight_row_bytes,
                                                a + b * call.activation_row_bytes, call.activation_row_bytes,
                                                call.y + b * call.y_stride + r, call.y_stride);
            }
        }
    }
};

// A weight type's GemmFn: decode (batch 1) runs the rows one by one through the type's dot
// product; prefill, the family's tiles.
template <VecDotFn kRowDot, void (*kPrefill)(const GemmCall&)>
void gemm_entry(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
                const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                int64_t y_stride) {
    if (batch == 1)
        return gemv_by_rows(kRowDot, n, weights, weight_row_bytes, row_begin, row_end, activations, y);
    kPrefill(GemmCall{n, weights, weight_row_bytes, row_begin, row_end, activations, activation_row_bytes,
                      batch, y, y_stride});
}

template <class Block> inline const Block* row_of(const char* base, size_t stride, int index) {
    return reinterpret_cast<const Block*>(base + index * stride);
}

// Panels grow to the widest tile a thread has decoded and keep their memory: no allocation per
// token.
template <class... Vectors> void grow_panel(size_t needed, Vectors&... vectors) {
    ((vectors.size() < needed ? vectors.resize(needed) : void()), ...);
}

// `floats` floats of `buffer` from its first 64-byte boundary (grown as needed): rows whose
// starts are multiples of 16 floats are then read without loads across two cache lines (malloc
// aligns to 16 bytes). The float gemms' widened panels, AVX2's and AVX-512's.
inline float* line_aligned(std::vector<float>& buffer, size_t floats) {
    if (buffer.size() < floats + 15) buffer.resize(floats + 15);
    const auto address = reinterpret_cast<uintptr_t>(buffer.data());
    return reinterpret_cast<float*>((address + 63) & ~uintptr_t{63});
}

// Calls fill(block, at) for every block of `rows` weight rows, `at` = r * blocks + i being the
// block's index in the panel.
template <class Block, class Fill>
[[gnu::always_inline]] inline void for_each_panel_block(const char* w, size_t w_stride, int rows,
                                                        int64_t blocks, Fill fill) {
    for (int r = 0; r < rows; ++r) {
        const Block* row = row_of<Block>(w, w_stride, r);
        for (int64_t i = 0; i < blocks; ++i)
            fill(row[i], static_cast<size_t>(r * blocks + i));
    }
}

// A tile's float accumulators, zeroed (unrolled, as store_tile, so that they stay registers).
template <int RM, int RN> [[gnu::always_inline]] inline void zero_tile(__m256 (&acc)[RM][RN]) {
#pragma GCC unroll 8
    for (int r = 0; r < RM; ++r)
#pragma GCC unroll 8
        for (int b = 0; b < RN; ++b)
            acc[r][b] = _mm256_setzero_ps();
}

// Unrolled, so that the tiles' accumulators stay registers: a loop here made GCC keep a copy
// of every accumulator in memory, stored at each step of the tiles' loops.
template <int RM, int RN>
[[gnu::always_inline]] inline void store_tile(const __m256 (&acc)[RM][RN], float* y, int64_t y_stride) {
#pragma GCC unroll 8
    for (int r = 0; r < RM; ++r)
#pragma GCC unroll 8
        for (int b = 0; b < RN; ++b)
            y[b * y_stride + r] = hsum(acc[r][b]);
}

// Rows outer: each tile of RM weight rows is decoded once into a panel (decode(w, stride,
// rows, blocks, panel)), then every activation row streams past it, RN at a time.
template <int RM, int RN, template <int, int> class Tile, class Panel, class Decode>
void panel_gemm(Decode decode, int64_t blocks, const GemmCall& call) {
    static constexpr auto tiles = []<size_t... I>(std::index_sequence<I...>) {
        using Fn = void (*)(const Panel&, const char*, size_t, float*, int64_t);
        return std::array<Fn, RM * RN>{&Tile<int(I / RN) + 1, int(I % RN) + 1>::run...};
    }
    (std::make_index_sequence<RM * RN>{});
    thread_local Panel panel;
    const char* w = static_cast<const char*>(call.weights);
    const char* a = static_cast<const char*>(call.activations);
    for (int64_t r = call.row_begin; r < call.row_end; r += RM) {
        const int rm = static_cast<int>(std::min<int64_t>(RM, call.row_end - r));
        decode(w + r * call.weight_row_bytes, call.weight_row_bytes, rm, blocks, panel);
        for (int64_t b = 0; b < call.batch; b += RN) {
            const int64_t rn = std::min<int64_t>(RN, call.batch - b);
            tiles[static_cast<size_t>((rm - 1) * RN + (rn - 1))](
                panel, a + b * call.activation_row_bytes, call.activation_row_bytes,
                call.y + b * call.y_stride + r, call.y_stride);
        }
    }
}

} // namespace hearth::kernels::avx2
