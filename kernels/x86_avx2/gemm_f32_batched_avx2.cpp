// F32 weights times a batch of activation rows in llamafile tinyBLAS's order (f32_batched_dot.h):
// each dot product one 8-lane FMA chain, its lanes summed by hsum. A tile of 4 weight rows by 3
// activation rows runs 12 such chains side by side, each in its own order, so the results are
// those of one dot product at a time (vec_dot_f32_f32_batched_ref) bit for bit, without waiting
// out every FMA's latency on a single chain.
#include "kernels/f32_batched_dot.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"

#include <algorithm>
#include <immintrin.h>

namespace hearth::kernels::avx2 {
namespace {

constexpr int kTileRows = 4;  // weight rows per tile
constexpr int kTileBatch = 3; // activation rows per tile: 12 accumulators, 3 inputs, 1 weight

template <int R, int B>
void tile(int64_t n, const float* const (&w)[kTileRows], const float* const (&x)[kTileBatch], float* y,
          int64_t y_stride) {
    __m256 acc[R][B];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
        for (int b = 0; b < B; ++b)
            acc[r][b] = _mm256_setzero_ps();
    for (int64_t i = 0; i + 8 <= n; i += 8) {
        __m256 xv[B];
#pragma GCC unroll 3
        for (int b = 0; b < B; ++b)
            xv[b] = _mm256_loadu_ps(x[b] + i);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
            const __m256 wv = _mm256_loadu_ps(w[r] + i);
#pragma GCC unroll 3
            for (int b = 0; b < B; ++b)
                acc[r][b] = _mm256_fmadd_ps(wv, xv[b], acc[r][b]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
        for (int b = 0; b < B; ++b)
            y[b * y_stride + r] = hsum(acc[r][b]);
}

template <int R>
void tile_of_batch(int b, int64_t n, const float* const (&w)[kTileRows], const float* const (&x)[kTileBatch],
                   float* y, int64_t y_stride) {
    switch (b) {
    case 1:
        return tile<R, 1>(n, w, x, y, y_stride);
    case 2:
        return tile<R, 2>(n, w, x, y, y_stride);
    default:
        return tile<R, 3>(n, w, x, y, y_stride);
    }
}

} // namespace

void gemm_f32_f32_batched(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                          int64_t row_end, const void* activations, size_t activation_row_bytes,
                          int64_t batch, float* y, int64_t y_stride) {
    const char* wb = static_cast<const char*>(weights);
    const char* ab = static_cast<const char*>(activations);
    for (int64_t r = row_begin; r < row_end; r += kTileRows) {
        const int rows = static_cast<int>(std::min<int64_t>(kTileRows, row_end - r));
        const float* w[kTileRows];
        for (int i = 0; i < kTileRows; ++i)
            w[i] = reinterpret_cast<const float*>(wb + (r + std::min(i, rows - 1)) * weight_row_bytes);
        for (int64_t b = 0; b < batch; b += kTileBatch) {
            const int count = static_cast<int>(std::min<int64_t>(kTileBatch, batch - b));
            const float* x[kTileBatch];
            for (int i = 0; i < kTileBatch; ++i)
                x[i] =
                    reinterpret_cast<const float*>(ab + (b + std::min(i, count - 1)) * activation_row_bytes);
            float* out = y + b * y_stride + r;
            switch (rows) {
            case 1:
                tile_of_batch<1>(count, n, w, x, out, y_stride);
                break;
            case 2:
                tile_of_batch<2>(count, n, w, x, out, y_stride);
                break;
            case 3:
                tile_of_batch<3>(count, n, w, x, out, y_stride);
                break;
            default:
                tile_of_batch<4>(count, n, w, x, out, y_stride);
                break;
            }
        }
    }
}

} // namespace hearth::kernels::avx2
