#pragma once
// Small batches over F16 and BF16 weights (a verify pass's drafted tokens, a short message): each
// weight vector is widened once for a group of activation rows (themselves widened to floats once
// per call), and each pair is summed exactly as decode sums it (one accumulator over blocks of the vector's
// lanes, the tier's lane sum, the last few columns in double), so that every row of the batch
// comes out bit for bit as decoding it alone would give it. The rows of the tile hide the FMA
// latency as decode's eight rows do; the group's activation rows share each weight load.
// Shared by the AVX2 and AVX-512 tiers (gemm_float_avx2.cpp, gemm_float_avx512.cpp), each with
// its vector's traits:
//   Reg; kLanes; kMaxAccumulators (registers the tile may keep); kMaxGroup (activation rows);
//   kMaxBatch (larger batches go to the tier's prefill);
//   widen(const uint16_t*) -> Reg of kLanes halves; load(const float*); store(float*, Reg);
//   zero(); fmadd(a, b, c); lane_sum(Reg) -> float, decode's order.
#include "kernels/decode_prefetch.h"
#include "kernels/x86_avx2/float_rows.h"
#include "kernels/x86_avx2/gemm_tiles.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace hearth::kernels {

template <class Vec, bool kBf16> struct HalfFewRows {
    using Reg = typename Vec::Reg;
    static constexpr int kMaxRows = 8;

    // Weight rows per tile for a group of g activation rows: as many as the accumulators allow.
    static constexpr int rows_for_group(int g) { return std::clamp(Vec::kMaxAccumulators / g, 1, kMaxRows); }

    // R weight rows by G activation rows: y[g * y_stride + r] for the pairs. `x` holds the group's
    // widened rows (stride x_stride floats, each n long); `prefetch`: the first group over these
    // rows asks for their lines ahead, as decode does.
    template <int R, int G> struct Tile {
        static void run(const uint16_t* const* rows, const float* x, int64_t x_stride, int64_t n, float* y,
                        int64_t y_stride, bool prefetch) {
            const int64_t vector_columns = n / Vec::kLanes * Vec::kLanes;
            const DecodePrefetch& plan = decode_prefetch();
            const auto ahead = static_cast<int64_t>(plan.row_bytes_ahead / sizeof(uint16_t));
            Reg acc[R][G];
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
                for (int g = 0; g < G; ++g)
                    acc[r][g] = Vec::zero();
            for (int64_t i = 0; i < vector_columns; i += Vec::kLanes) {
                if (prefetch && (i & 31) == 0) // a line of each row: 32 halves
#pragma GCC unroll 8
                    for (int r = 0; r < R; ++r)
                        prefetch_weight_lines(rows[r] + i + ahead, 1, plan.into_l2);
                Reg xv[G];
#pragma GCC unroll 8
                for (int g = 0; g < G; ++g)
                    xv[g] = Vec::load(x + g * x_stride + i);
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r) {
                    const Reg wv = Vec::template widen<kBf16>(rows[r] + i);
#pragma GCC unroll 8
                    for (int g = 0; g < G; ++g)
                        acc[r][g] = Vec::fmadd(wv, xv[g], acc[r][g]);
                }
            }
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
                for (int g = 0; g < G; ++g) {
                    if (vector_columns == n) {
                        y[g * y_stride + r] = Vec::lane_sum(acc[r][g]);
                        continue;
                    }
                    // Products of halves are exact in float; decode adds them in double.
                    double sum = vector_columns > 0 ? Vec::lane_sum(acc[r][g]) : 0.0;
                    for (int64_t j = vector_columns; j < n; ++j)
                        sum += avx2::load1(rows[r] + j, kBf16) * x[g * x_stride + j];
                    y[g * y_stride + r] = static_cast<float>(sum);
                }
        }
    };

    using TileFn = void (*)(const uint16_t* const*, const float*, int64_t, int64_t, float*, int64_t, bool);
    // Only the shapes run() takes: a later group of a batch is never larger than its first, so
    // its tile never has more rows than rows_for_group allows it.
    template <int R, int G> static constexpr TileFn tile() {
        if constexpr (R <= rows_for_group(G))
            return &Tile<R, G>::run;
        else
            return nullptr;
    }

    static void run(const avx2::GemmCall& call) {
        const int64_t n = call.n;
        // The activation rows as floats (stride a multiple of 16 floats, each on a cache line).
        thread_local std::vector<float> widened_rows;
        const int64_t stride = (n + 15) / 16 * 16;
        float* const x = avx2::line_aligned(widened_rows, static_cast<size_t>(call.batch * stride));
        static constexpr auto tiles = []<size_t... I>(std::index_sequence<I...>) {
            return std::array<TileFn, kMaxRows * Vec::kMaxGroup>{
                tile<int(I / Vec::kMaxGroup) + 1, int(I % Vec::kMaxGroup) + 1>()...};
        }
        (std::make_index_sequence<kMaxRows * Vec::kMaxGroup>{});
        const char* a = static_cast<const char*>(call.activations);
        for (int64_t b = 0; b < call.batch; ++b) {
            const auto* halves = reinterpret_cast<const uint16_t*>(a + b * call.activation_row_bytes);
            float* to = x + b * stride;
            int64_t i = 0;
            for (; i + Vec::kLanes <= n; i += Vec::kLanes)
                Vec::store(to + i, Vec::template widen<kBf16>(halves + i));
            for (; i < n; ++i)
                to[i] = avx2::load1(halves + i, kBf16);
        }
        // Rows outer: a tile's weight rows, widened once per group, stay in L1 for the next group.
        const char* w = static_cast<const char*>(call.weights);
        const int tile_rows = rows_for_group(static_cast<int>(std::min<int64_t>(Vec::kMaxGroup, call.batch)));
        for (int64_t r0 = call.row_begin; r0 < call.row_end; r0 += tile_rows) {
            const int r = static_cast<int>(std::min<int64_t>(tile_rows, call.row_end - r0));
            const uint16_t* rows[kMaxRows];
            for (int k = 0; k < r; ++k)
                rows[k] = reinterpret_cast<const uint16_t*>(w + (r0 + k) * call.weight_row_bytes);
            for (int64_t b0 = 0; b0 < call.batch; b0 += Vec::kMaxGroup) {
                const int g = static_cast<int>(std::min<int64_t>(Vec::kMaxGroup, call.batch - b0));
                tiles[static_cast<size_t>((r - 1) * Vec::kMaxGroup + (g - 1))](
                    rows, x + b0 * stride, stride, n, call.y + b0 * call.y_stride + r0, call.y_stride,
                    b0 == 0);
            }
        }
    }
};

} // namespace hearth::kernels
