// Prefill and decode for F16 and BF16 weights, with activations of their type (gemm_avx2.cpp's
// gemm_for picks the family), every pair summed in one order: prefill and decode agree, and agree
// with the rows' dot product (vec_dot_float_avx2.cpp).
#include "kernels/block_formats.h"
#include "kernels/decode_prefetch.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/float_rows.h"
#include "kernels/x86_avx2/gemm_tiles.h"
#include "kernels/x86_avx2/half_few_rows.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace hearth::kernels::avx2 {
namespace {

// Prefill of F16 and BF16 weights: tiles of 4 weight rows by 3 activation rows, one float
// accumulator of 8 lanes per pair (12 registers; 7 loads per 12 FMAs), over columns in blocks of 8,
// the last few added exactly in double. Cache-blocked for long rows and large batches (an image's
// 4096 patches, rows of 4304): a block of activation rows is widened to floats once and stays in
// L2 while every tile of weight rows passes it, each tile widened a chunk of columns at a time,
// which stays in L1, the accumulators kept between chunks.
constexpr int kTileRows = 4;
constexpr int kTileBatch = 3;
constexpr int64_t kColumnChunk = 512; // a multiple of 8: a tile's chunk of weights is 8 KiB
// Activation rows per block: as many as fit in 256 KiB of floats (half of L2), a multiple of
// kTileBatch, at least 24 (413 KiB of rows of 4304) and at most 240. The more rows, the fewer
// times each weight is widened: once per block.
int64_t batch_block_rows(int64_t columns) {
    const int64_t fit = (int64_t{256} << 10) / (4 * std::max<int64_t>(columns, 1)) / kTileBatch * kTileBatch;
    return std::clamp<int64_t>(fit, 24, 240);
}

struct TileSums {
    __m256 sums[kTileRows][kTileBatch];
};

template <int RM, int RN> struct HalfTile {
    // Adds the products of `columns` (a multiple of 8) columns: `w` the tile's widened rows
    // (stride kColumnChunk), `x` its widened activation rows (stride x_stride).
    static void run(const float* w, const float* x, int64_t x_stride, int64_t columns, bool first,
                    TileSums& t) {
        __m256 acc[RM][RN];
#pragma GCC unroll 4
        for (int r = 0; r < RM; ++r)
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b)
                acc[r][b] = first ? _mm256_setzero_ps() : t.sums[r][b];
        for (int64_t i = 0; i < columns; i += 8) {
            __m256 xv[RN];
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b)
                xv[b] = _mm256_loadu_ps(x + b * x_stride + i);
#pragma GCC unroll 4
            for (int r = 0; r < RM; ++r) {
                const __m256 wv = _mm256_loadu_ps(w + r * kColumnChunk + i);
#pragma GCC unroll 4
                for (int b = 0; b < RN; ++b)
                    acc[r][b] = _mm256_fmadd_ps(wv, xv[b], acc[r][b]);
            }
        }
#pragma GCC unroll 4
        for (int r = 0; r < RM; ++r)
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b)
                t.sums[r][b] = acc[r][b];
    }
};

using HalfTileFn = void (*)(const float*, const float*, int64_t, int64_t, bool, TileSums&);
constexpr auto kHalfTiles = []<size_t... I>(std::index_sequence<I...>) {
    return std::array<HalfTileFn, kTileRows * kTileBatch>{
        &HalfTile<int(I / kTileBatch) + 1, int(I % kTileBatch) + 1>::run...};
}
(std::make_index_sequence<kTileRows * kTileBatch>{});

template <bool kBf16> void widen_columns(const uint16_t* from, int64_t columns, float* to) {
    for (int64_t i = 0; i < columns; i += 8)
        _mm256_storeu_ps(to + i, load8(from + i, kBf16));
}

template <bool kBf16> void prefill_half(const GemmCall& call) {
    const int64_t n = call.n;
    const int64_t vector_columns = n / 8 * 8;    // summed in the accumulators; the rest, exactly
    thread_local std::vector<float> activations; // (activation row of the block, column)
    thread_local std::vector<float> panel;       // (tile row, column of the chunk)
    thread_local std::vector<TileSums> sums;     // per kTileBatch activation rows of the block
    const int64_t block_rows = batch_block_rows(vector_columns);
    float* const widened = line_aligned(activations, static_cast<size_t>(block_rows * vector_columns));
    float* const tile_rows = line_aligned(panel, static_cast<size_t>(kTileRows * kColumnChunk));
    if (sums.size() < static_cast<size_t>(block_rows / kTileBatch))
        sums.resize(static_cast<size_t>(block_rows / kTileBatch));
    const char* w = static_cast<const char*>(call.weights);
    const char* a = static_cast<const char*>(call.activations);
    const auto activation_row = [&](int64_t b) {
        return reinterpret_cast<const uint16_t*>(a + b * call.activation_row_bytes);
    };
    const auto weight_row = [&](int64_t r) {
        return reinterpret_cast<const uint16_t*>(w + r * call.weight_row_bytes);
    };
    for (int64_t b0 = 0; b0 < call.batch; b0 += block_rows) {
        const int64_t block = std::min(block_rows, call.batch - b0);
        for (int64_t b = 0; b < block; ++b)
            widen_columns<kBf16>(activation_row(b0 + b), vector_columns, widened + b * vector_columns);
        for (int64_t r0 = call.row_begin; r0 < call.row_end; r0 += kTileRows) {
            const int rm = static_cast<int>(std::min<int64_t>(kTileRows, call.row_end - r0));
            for (int64_t c0 = 0; c0 < vector_columns; c0 += kColumnChunk) {
                const int64_t columns = std::min(kColumnChunk, vector_columns - c0);
                for (int r = 0; r < rm; ++r)
                    widen_columns<kBf16>(weight_row(r0 + r) + c0, columns, tile_rows + r * kColumnChunk);
                for (int64_t b = 0; b < block; b += kTileBatch) {
                    const int rn = static_cast<int>(std::min<int64_t>(kTileBatch, block - b));
                    kHalfTiles[static_cast<size_t>((rm - 1) * kTileBatch + (rn - 1))](
                        tile_rows, widened + b * vector_columns + c0, vector_columns, columns, c0 == 0,
                        sums[static_cast<size_t>(b / kTileBatch)]);
                }
            }
            if (rm == kTileRows && vector_columns == n && n > 0) {
                // Whole tiles of rows without a tail (every real model's): four sums at a time.
                for (int64_t b = 0; b < block; ++b) {
                    const TileSums& t = sums[static_cast<size_t>(b / kTileBatch)];
                    const int64_t j = b % kTileBatch;
                    _mm_storeu_ps(call.y + (b0 + b) * call.y_stride + r0,
                                  lane_sums(t.sums[0][j], t.sums[1][j], t.sums[2][j], t.sums[3][j]));
                }
                continue;
            }
            for (int64_t b = 0; b < block; ++b) {
                const uint16_t* x = activation_row(b0 + b);
                for (int r = 0; r < rm; ++r) {
                    double sum = 0;
                    if (vector_columns > 0)
                        sum = lane_sum(sums[static_cast<size_t>(b / kTileBatch)].sums[r][b % kTileBatch]);
                    const uint16_t* row = weight_row(r0 + r);
                    for (int64_t j = vector_columns; j < n; ++j)
                        sum += load1(row + j, kBf16) * load1(x + j, kBf16);
                    call.y[(b0 + b) * call.y_stride + r0 + r] = static_cast<float>(sum);
                }
            }
        }
    }
}

// Decode: eight rows at a time (independent accumulators hide the FMA latency, eight streams keep
// the memory busy), each row's lines asked for ahead as the CPU's decode plan says; each pair
// summed in the tiles' order, so that a row's result is prefill's bit for bit (and dot_halves').
template <bool kBf16> void gemv_half(const GemmCall& call) {
    constexpr int kRows = 8;
    const int64_t n = call.n;
    const int64_t vector_columns = n / 8 * 8;
    const auto* x = static_cast<const uint16_t*>(call.activations);
    const char* w = static_cast<const char*>(call.weights);
    const auto weight_row = [&](int64_t r) {
        return reinterpret_cast<const uint16_t*>(w + r * call.weight_row_bytes);
    };
    const DecodePrefetch& plan = decode_prefetch();
    const auto ahead = static_cast<int64_t>(plan.row_bytes_ahead / sizeof(uint16_t));
    int64_t r0 = call.row_begin;
    for (; r0 + kRows <= call.row_end; r0 += kRows) {
        const uint16_t* rows[kRows];
        __m256 acc[kRows];
        for (int r = 0; r < kRows; ++r) {
            rows[r] = weight_row(r0 + r);
            acc[r] = _mm256_setzero_ps();
        }
        for (int64_t i = 0; i < vector_columns; i += 8) {
            if ((i & 31) == 0) // a line of each row: 32 halves
#pragma GCC unroll 8
                for (int r = 0; r < kRows; ++r)
                    prefetch_weight_lines(rows[r] + i + ahead, 1, plan.into_l2);
            const __m256 xv = load8(x + i, kBf16);
#pragma GCC unroll 8
            for (int r = 0; r < kRows; ++r)
                acc[r] = _mm256_fmadd_ps(load8(rows[r] + i, kBf16), xv, acc[r]);
        }
        if (vector_columns == n && n > 0) {
            _mm_storeu_ps(call.y + r0, lane_sums(acc[0], acc[1], acc[2], acc[3]));
            _mm_storeu_ps(call.y + r0 + 4, lane_sums(acc[4], acc[5], acc[6], acc[7]));
            continue;
        }
        for (int r = 0; r < kRows; ++r) {
            double sum = vector_columns > 0 ? lane_sum(acc[r]) : 0.0;
            for (int64_t j = vector_columns; j < n; ++j)
                sum += load1(rows[r] + j, kBf16) * load1(x + j, kBf16);
            call.y[r0 + r] = static_cast<float>(sum);
        }
    }
    for (; r0 < call.row_end; ++r0) // the last rows: the rows' dot product, the same order
        call.y[r0] = kBf16 ? vec_dot_bf16_bf16(n, weight_row(r0), x) : vec_dot_f16_f16(n, weight_row(r0), x);
}

// Small batches (half_few_rows.h): 12 accumulators, a group of up to 4 activation rows by 3
// weight rows (or 2 by 6, 3 by 4). Beyond one group the prefill's panel, widened once, costs
// less. Xeon (family 6 model 207), 2048 x 2048 F16, one thread, us, these / the prefill: 2 rows
// 347-383 / 488-529, 4 rows 480-609 / 665-725, 8 rows 876-1076 / 957-1069 (groups of 3 and of 2
// cost more, of 6 spill).
struct Ymm {
    using Reg = __m256;
    static constexpr int kLanes = 8;
    static constexpr int kMaxAccumulators = 12;
    static constexpr int kMaxGroup = 4;
    static constexpr int kMaxBatch = 4;
    template <bool kBf16> static Reg widen(const uint16_t* p) { return load8(p, kBf16); }
    static Reg load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
    static Reg zero() { return _mm256_setzero_ps(); }
    static Reg fmadd(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
    static float lane_sum(Reg a) { return avx2::lane_sum(a); }
};

template <bool kBf16>
void gemm_half(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
               const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
               int64_t y_stride) {
    const GemmCall call{n,       weights,     weight_row_bytes,     row_begin,
                        row_end, activations, activation_row_bytes, batch,
                        y,       y_stride};
    if (batch == 1) return gemv_half<kBf16>(call);
    if (batch <= Ymm::kMaxBatch) return HalfFewRows<Ymm, kBf16>::run(call);
    prefill_half<kBf16>(call);
}

} // namespace

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn gemm_for_float(TensorType type) {
    switch (type) {
    case TensorType::F16:
        return gemm_half<false>;
    case TensorType::BF16:
        return gemm_half<true>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::avx2
