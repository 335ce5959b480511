#pragma once
// Register-blocked gemm driver: the [row_begin, row_end) x [0, batch) output is cut into
// tiles of RM weight rows by RN activation rows. Each tile kernel decodes a weight block
// once for its RN activation rows, and loads an activation block once for its RM weight rows.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace hearth::kernels::avx2 {

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

    static void run(int64_t blocks, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                    int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                    float* y, int64_t y_stride) {
        const char* w = static_cast<const char*>(weights);
        const char* a = static_cast<const char*>(activations);
        // Rows outer: a tile's weight rows stay in L1 while every activation row streams past.
        for (int64_t r = row_begin; r < row_end; r += RM) {
            const int64_t rm = std::min<int64_t>(RM, row_end - r);
            for (int64_t b = 0; b < batch; b += RN) {
                const int64_t rn = std::min<int64_t>(RN, batch - b);
                table[(rm - 1) * RN + (rn - 1)](blocks, w + r * weight_row_bytes, weight_row_bytes,
                                                a + b * activation_row_bytes, activation_row_bytes,
                                                y + b * y_stride + r, y_stride);
            }
        }
    }
};

} // namespace hearth::kernels::avx2
