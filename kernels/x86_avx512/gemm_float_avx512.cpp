// Prefill and decode for F16 and BF16 weights with activations of their type, in 512-bit
// vectors: the AVX2 tier's design (gemm_float_avx2.cpp) at twice the width, which doubles the
// FMA rate on CPUs with full 512-bit units (Zen 5, Intel's server cores). Every pair is summed in
// one order, this tier's own: one accumulator of 16 lanes over blocks of 16 columns, lane i added
// to lane i + 8, then the AVX2 tier's lane order; the last few columns exactly in double. Prefill,
// decode and the rows' dot product (vec_dot_f16_f16) agree to the bit.
#include "kernels/decode_prefetch.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/float_rows.h"
#include "kernels/x86_avx2/gemm_tiles.h"
#include "kernels/x86_avx2/half_few_rows.h"
#include "kernels/x86_avx512/avx512_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace hearth::kernels::avx512 {
namespace {

using avx2::GemmCall;     // the call's arguments, as the AVX2 tiles take them
using avx2::line_aligned; // panels on cache lines
using avx2::load1;        // one half to a float

inline __m512 load16(const uint16_t* p, bool is_bf16) {
    const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    if (is_bf16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
    return _mm512_cvtph_ps(half);
}

// Lane i + lane i + 8: the 8 lanes the sums below take in the AVX2 tier's order.
inline __m256 fold(__m512 a) {
    return _mm256_add_ps(_mm512_castps512_ps256(a), _mm512_extractf32x8_ps(a, 1));
}

// ((0+1)+(2+3))+((4+5)+(6+7)) of the folded lanes, for one accumulator and for four at once.
inline float lane_sum(__m512 a) {
    const __m256 f = fold(a);
    const __m256 h = _mm256_hadd_ps(f, f);
    const __m256 q = _mm256_hadd_ps(h, h);
    return _mm_cvtss_f32(_mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1)));
}
inline __m128 lane_sums(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
    const __m256 q = _mm256_hadd_ps(_mm256_hadd_ps(fold(a0), fold(a1)), _mm256_hadd_ps(fold(a2), fold(a3)));
    return _mm_add_ps(_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1));
}

// One accumulator over blocks of 16, its lanes by lane_sum, the tail (products of halves are
// exact in float) in double.
float dot_halves(int64_t n, const uint16_t* w, const uint16_t* x, bool is_bf16) {
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        acc = _mm512_fmadd_ps(load16(w + i, is_bf16), load16(x + i, is_bf16), acc);
    double sum = 0;
    if (i > 0) sum = lane_sum(acc);
    for (; i < n; ++i)
        sum += load1(w + i, is_bf16) * load1(x + i, is_bf16);
    return static_cast<float>(sum);
}

// Prefill: tiles of 8 weight rows by 3 activation rows, one accumulator of 16 floats per pair (24
// registers; 11 loads per 24 FMAs). Cache-blocked as the AVX2 tier's: a block of activation rows
// widened to floats once stays in L2 while every tile of weight rows passes it, each tile's rows
// widened a chunk of columns at a time (16 KiB, in L1), the accumulators kept between chunks.
constexpr int kTileRows = 8;
constexpr int kTileBatch = 3;
constexpr int64_t kColumnChunk = 512; // a multiple of 16
// Activation rows per block: as many as fit in 256 KiB of floats, a multiple of kTileBatch, at
// least 24 and at most 240.
int64_t batch_block_rows(int64_t columns) {
    const int64_t fit = (int64_t{256} << 10) / (4 * std::max<int64_t>(columns, 1)) / kTileBatch * kTileBatch;
    return std::clamp<int64_t>(fit, 24, 240);
}

struct TileSums {
    __m512 sums[kTileRows][kTileBatch];
};

template <int RM, int RN> struct HalfTile {
    // Adds the products of `columns` (a multiple of 16) columns: `w` the tile's widened rows
    // (stride kColumnChunk), `x` its widened activation rows (stride x_stride).
    static void run(const float* w, const float* x, int64_t x_stride, int64_t columns, bool first,
                    TileSums& t) {
        __m512 acc[RM][RN];
#pragma GCC unroll 8
        for (int r = 0; r < RM; ++r)
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b)
                acc[r][b] = first ? _mm512_setzero_ps() : t.sums[r][b];
        for (int64_t i = 0; i < columns; i += 16) {
            __m512 xv[RN];
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b)
                xv[b] = _mm512_loadu_ps(x + b * x_stride + i);
#pragma GCC unroll 8
            for (int r = 0; r < RM; ++r) {
                const __m512 wv = _mm512_loadu_ps(w + r * kColumnChunk + i);
#pragma GCC unroll 4
                for (int b = 0; b < RN; ++b)
                    acc[r][b] = _mm512_fmadd_ps(wv, xv[b], acc[r][b]);
            }
        }
#pragma GCC unroll 8
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
    for (int64_t i = 0; i < columns; i += 16)
        _mm512_storeu_ps(to + i, load16(from + i, kBf16));
}

template <bool kBf16> void prefill_half(const GemmCall& call) {
    const int64_t n = call.n;
    const int64_t vector_columns = n / 16 * 16;  // summed in the accumulators; the rest, exactly
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
                    float* y = call.y + (b0 + b) * call.y_stride + r0;
                    for (int r = 0; r < kTileRows; r += 4)
                        _mm_storeu_ps(y + r, lane_sums(t.sums[r][j], t.sums[r + 1][j], t.sums[r + 2][j],
                                                       t.sums[r + 3][j]));
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
    const int64_t vector_columns = n / 16 * 16;
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
        __m512 acc[kRows];
        for (int r = 0; r < kRows; ++r) {
            rows[r] = weight_row(r0 + r);
            acc[r] = _mm512_setzero_ps();
        }
        for (int64_t i = 0; i < vector_columns; i += 16) {
            if ((i & 31) == 0) // a line of each row: 32 halves
#pragma GCC unroll 8
                for (int r = 0; r < kRows; ++r)
                    prefetch_weight_lines(rows[r] + i + ahead, 1, plan.into_l2);
            const __m512 xv = load16(x + i, kBf16);
#pragma GCC unroll 8
            for (int r = 0; r < kRows; ++r)
                acc[r] = _mm512_fmadd_ps(load16(rows[r] + i, kBf16), xv, acc[r]);
        }
        if (vector_columns == n && n > 0) {
            for (int r = 0; r < kRows; r += 4)
                _mm_storeu_ps(call.y + r0 + r, lane_sums(acc[r], acc[r + 1], acc[r + 2], acc[r + 3]));
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
        call.y[r0] = dot_halves(n, weight_row(r0), x, kBf16);
}

// Small batches (half_few_rows.h): 24 accumulators, a group of up to 6 activation rows by 4
// weight rows (or 4 by 6, 2 or 3 by 8). Xeon (family 6 model 207), 2048 x 2048 F16, one thread,
// us, these / the prefill: 4 rows 439-510 / 622-637, 8 rows 743-833 / 906-1011, 16 rows
// 1262-1378 / 1431-1483 (groups of 8 by 3 rows spill: 8 rows 910-1550).
struct Zmm {
    using Reg = __m512;
    static constexpr int kLanes = 16;
    static constexpr int kMaxAccumulators = 24;
    static constexpr int kMaxGroup = 6;
    static constexpr int kMaxBatch = 16;
    template <bool kBf16> static Reg widen(const uint16_t* p) { return load16(p, kBf16); }
    static Reg load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
    static Reg zero() { return _mm512_setzero_ps(); }
    static Reg fmadd(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
    static float lane_sum(Reg a) { return avx512::lane_sum(a); }
};

template <bool kBf16>
void gemm_half(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
               const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
               int64_t y_stride) {
    const GemmCall call{n,       weights,     weight_row_bytes,     row_begin,
                        row_end, activations, activation_row_bytes, batch,
                        y,       y_stride};
    if (batch == 1) return gemv_half<kBf16>(call);
    if (batch <= Zmm::kMaxBatch) return HalfFewRows<Zmm, kBf16>::run(call);
    prefill_half<kBf16>(call);
}

} // namespace

float vec_dot_f16_f16(int64_t n, const void* weight_row, const void* activation_row) {
    return dot_halves(n, static_cast<const uint16_t*>(weight_row),
                      static_cast<const uint16_t*>(activation_row), false);
}
float vec_dot_bf16_bf16(int64_t n, const void* weight_row, const void* activation_row) {
    return dot_halves(n, static_cast<const uint16_t*>(weight_row),
                      static_cast<const uint16_t*>(activation_row), true);
}
GemmFn gemm_for_float(TensorType type) {
    switch (type) {
    case TensorType::F16:
        return gemm_half<false>;
    case TensorType::BF16:
        return gemm_half<true>;
    default:
        return nullptr;
    }
}

void add_float_kernels(KernelTable& table) {
    for (const auto& [type, name] :
         {std::pair{TensorType::F16, "gemm_f16_f16"}, std::pair{TensorType::BF16, "gemm_bf16_bf16"}})
        table.of(type).matmul.put_first(
            {with_rows_as_single(matmul_kernel(name, cpu(Isa::Avx512), gemm_for_float(type), type))});
}

} // namespace hearth::kernels::avx512
