// Prefill gemm on AMX-BF16 tiles: the AMX tier's candidates for the quantized types whose
// rows the table widens to F32 with SIMD code (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K).
//
// Why: the int8 tiles' products stop at each block of 32, because each block has its own scale
// on both sides: each product's sums have to be stored and scaled in zmm, and that, not the
// tiles, bounds the int8 kernels.
// Weights widened to BF16 carry their scales in them, and BF16 activations need none, so a C
// tile's F32 sums run on over a whole row (or a span of one): the loop is tile loads and
// products alone.
//
// Accuracy: each weight is its F32 value (as the table's dequantizer gives it) rounded once to
// BF16 (subnormals flushed to zero), and each activation too (matmul converts them once per
// call); a product of two BF16s is exact in F32, and the sums are F32. That is at most 2^-8 of
// each weight and each activation itself, where int8 activations (llama.cpp's Q8_0, Q8_K) are
// off by up to 2^-8 of their block's largest value whatever their own size: the logits come
// closer to exact math (test_golden measures them against the float64 reference).
//
// Layout: tile A holds 16 activation rows of 32 BF16s, read straight from the activations with a
// stride; tile B holds 16 weight rows of 32 elements as TDPBF16PS wants them (row p: elements 2p
// and 2p + 1 of each weight row, side by side), widened per span into a per-thread panel. Each A
// and B tile serves two products: C tiles 0-3 are a 2 x 2 block, A tiles 4-5, B tiles 6-7.
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_amx/amx_kernels.h"
#include "kernels/x86_amx/amx_tiles.h"
#include "kernels/x86_amx/dword_transpose16.h"
#include "kernels/x86_avx2/avx2_kernels.h"

#include <algorithm>
#include <cstring>
#include <immintrin.h>
#include <vector>

namespace hearth::kernels::amx {
namespace {

constexpr int kTileRows = 16;
constexpr int64_t kStep = 32; // elements of a row in one product: 16 pairs
constexpr size_t kTileBytes = 1024;
constexpr size_t kBf16Bytes = 2;
// A row longer than kLongestSpan is multiplied a span of kSpan elements at a time, each span over
// the whole batch, so that the chunk's panel (at most 512 rows x 1024 elements, 1 MB) stays in
// L2 while it meets every activation row. Each span after the first adds to the sums in y. Rows
// up to kLongestSpan go whole: shorter spans for them cost more in passes than they save.
constexpr int64_t kLongestSpan = 1024;
constexpr int64_t kSpan = 512;
// Row-major weights are dequantized to F32 kPiece elements at a time (a whole number of blocks of
// every type).
constexpr int64_t kPiece = 256;

struct alignas(64) Tile {
    uint8_t bytes[kTileBytes];
};

struct Scratch {
    std::vector<Tile> panel;        // per group of 16 weight rows, per step: tile B
    std::vector<float> widened;     // 16 weight rows of a piece, in F32
    std::vector<uint8_t> last_rows; // the batch's last, short tile of rows, zero-padded to 16
};

struct alignas(64) Staging {
    float sums[kTileRows][kTileRows];
};

// Dword n of the result: a[n] rounded to BF16 in its low half, b[n] in its high half (a row
// of tile B for weight rows n = 0..15 and two consecutive elements).
inline __m512i bf16_pairs(__m512 a, __m512 b) {
    const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8,
                                                23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    return _mm512_permutexvar_epi16(interleave, (__m512i)_mm512_cvtne2ps_pbh(b, a));
}

// Weight rows as the file lays them out: each group of up to 16 rows is widened to F32 by the
// AVX2 tier's dequantizer (the reference's bits), then rounded to BF16 and transposed into tiles B.
struct RowMajorWeights {
    DequantizeRowFn dequantize;
    TypeTraits traits;
    const uint8_t* rows; // the chunk's first row
    size_t row_bytes;
    int64_t n_rows; // in the chunk
    float* widened; // scratch: 16 rows of a piece

    // Group g's elements [k0, k0 + span) as span / 32 tiles B; rows past the chunk are zeros.
    void widen(int64_t g, int64_t k0, int64_t span, Tile* tiles) const {
        const int count = static_cast<int>(std::min<int64_t>(kTileRows, n_rows - g * kTileRows));
        const uint8_t* first_row = rows + static_cast<size_t>(g * kTileRows) * row_bytes;
        const size_t offset = static_cast<size_t>(k0 / traits.block_elements) * traits.block_bytes;
        // A piece at a time, so that its 16 rows in F32 (16 KB) stay in L1 between the dequantizer's
        // stores and the loads that round them (a whole span's, up to 64 KB, would go out to L2).
        for (int64_t p0 = 0; p0 < span; p0 += kPiece) {
            const int64_t piece = std::min(kPiece, span - p0);
            const size_t piece_offset =
                offset + static_cast<size_t>(p0 / traits.block_elements) * traits.block_bytes;
            for (int r = 0; r < count; ++r) {
                const uint8_t* row = first_row + static_cast<size_t>(r) * row_bytes + piece_offset;
                // The weights come from DRAM once per prompt: asking for the next group's span while
                // this one is widened raised Qwen2.5-0.5B Q8_0's pp512 by 5%.
                const uint8_t* next_group_row = row + kTileRows * row_bytes;
                const size_t piece_bytes =
                    static_cast<size_t>(piece / traits.block_elements) * traits.block_bytes;
                for (size_t b = 0; b < piece_bytes; b += 64)
                    _mm_prefetch(reinterpret_cast<const char*>(next_group_row + b), _MM_HINT_T0);
                dequantize(row, widened + r * kPiece, piece);
            }
            for (int64_t s = 0; s < piece / kStep; ++s) {
                __m512i dwords[kTileRows];
                for (int r = 0; r < kTileRows; ++r) {
                    if (r >= count) {
                        dwords[r] = _mm512_setzero_si512();
                        continue;
                    }
                    const float* x = widened + r * kPiece + s * kStep;
                    // Dword p of the row: elements 2p and 2p + 1, rounded to nearest even.
                    dwords[r] = (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + 16), _mm512_loadu_ps(x));
                }
                transpose16(dwords); // dword p of each row into row p of the tile
                Tile& tile = tiles[p0 / kStep + s];
                for (int p = 0; p < kTileRows; ++p)
                    _mm512_store_si512(tile.bytes + p * 64, dwords[p]);
            }
        }
    }
};

// Q4_K rows repacked in groups of 16 (interleaved_rows.h): a chunk of 4 quants holds the 16
// rows side by side, lane r for row r, so the tiles come straight from it with no transpose.
// Each weight is the dequantizer's F32 value (the scale and min products, then multiply and
// subtract), so the tiles are bit for bit those of the rows unpacked.
struct InterleavedQ4_KWeights {
    const InterleavedQ4_K* groups; // the chunk's first group
    int64_t super_blocks;          // per row

    void widen(int64_t g, int64_t k0, int64_t span, Tile* tiles) const {
        const __m512i low4 = _mm512_set1_epi32(0x0F);
        for (int64_t i = 0; i < span / QK_K; ++i) {
            const InterleavedQ4_K& b = groups[g * super_blocks + k0 / QK_K + i];
            const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.d)));
            const __m512 dmin = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.dmin)));
            for (int p = 0; p < 4; ++p) {
                auto bytes = [](const uint8_t* v) {
                    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v)));
                };
                const __m512i scale_low = bytes(b.scale_low[p]), min_low = bytes(b.min_low[p]),
                              high = bytes(b.high[p]);
                for (int h = 0; h < 2; ++h) { // sub-block 2p + h: the low nibbles, then the high
                    const __m512i sc = _mm512_or_si512(
                        _mm512_and_si512(_mm512_srli_epi32(scale_low, 4 * h), low4),
                        _mm512_slli_epi32(
                            _mm512_and_si512(_mm512_srli_epi32(high, 2 * h), _mm512_set1_epi32(3)), 4));
                    const __m512i m = _mm512_or_si512(
                        _mm512_and_si512(_mm512_srli_epi32(min_low, 4 * h), low4),
                        _mm512_slli_epi32(
                            _mm512_and_si512(_mm512_srli_epi32(high, 4 + 2 * h), _mm512_set1_epi32(3)), 4));
                    const __m512 scale = _mm512_mul_ps(d, _mm512_cvtepi32_ps(sc));
                    const __m512 min = _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(m));
                    Tile& tile = tiles[i * 8 + 2 * p + h];
                    for (int c = 0; c < 8; ++c) { // quants 4c .. 4c + 3 of the sub-block
                        const __m512i quants =
                            _mm512_and_si512(_mm512_srli_epi32(_mm512_loadu_si512(b.qs[p][c]), 4 * h),
                                             _mm512_set1_epi32(0x0F0F0F0F));
                        __m512 v[4];
                        for (int k = 0; k < 4; ++k)
                            v[k] = _mm512_sub_ps(_mm512_mul_ps(scale, _mm512_cvtepi32_ps(_mm512_and_si512(
                                                                          _mm512_srli_epi32(quants, 8 * k),
                                                                          _mm512_set1_epi32(0xFF)))),
                                                 min);
                        _mm512_store_si512(tile.bytes + (2 * c) * 64, bf16_pairs(v[0], v[1]));
                        _mm512_store_si512(tile.bytes + (2 * c + 1) * 64, bf16_pairs(v[2], v[3]));
                    }
                }
            }
        }
    }
};

// Q6_K rows repacked in groups of 16 (interleaved_rows.h), as above: each weight is the
// dequantizer's d * scale times (quant - 32).
struct InterleavedQ6_KWeights {
    const InterleavedQ6_K* groups;
    int64_t super_blocks;

    void widen(int64_t g, int64_t k0, int64_t span, Tile* tiles) const {
        for (int64_t i = 0; i < span / QK_K; ++i) {
            const InterleavedQ6_K& b = groups[g * super_blocks + k0 / QK_K + i];
            const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.d)));
            for (int t = 0; t < 8; ++t) { // tile t: elements 32t .. 32t + 31, chunks 8t .. 8t + 7
                for (int half = 0; half < 2; ++half) { // sub-block 2t + half: chunks 8t + 4 half ..
                    const int j = 2 * t + half;
                    const __m512 scale =
                        _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(
                                             reinterpret_cast<const __m128i*>(b.scales[j])))));
                    for (int cc = 0; cc < 4; ++cc) {
                        const int c = 4 * j + cc;
                        const __m512i low = _mm512_and_si512(
                            _mm512_srli_epi32(_mm512_loadu_si512(b.ql(c % 32)), 4 * (c / 32)),
                            _mm512_set1_epi32(0x0F0F0F0F));
                        const __m512i top = _mm512_and_si512(
                            _mm512_srli_epi32(_mm512_loadu_si512(b.qh(c % 16)), 2 * (c / 16)),
                            _mm512_set1_epi32(0x03030303));
                        const __m512i quants = _mm512_or_si512(low, _mm512_slli_epi32(top, 4));
                        __m512 v[4];
                        for (int k = 0; k < 4; ++k) {
                            const __m512i q = _mm512_sub_epi32(
                                _mm512_and_si512(_mm512_srli_epi32(quants, 8 * k), _mm512_set1_epi32(0xFF)),
                                _mm512_set1_epi32(32));
                            v[k] = _mm512_mul_ps(scale, _mm512_cvtepi32_ps(q));
                        }
                        const int row = 2 * (c - 8 * t); // tile rows of elements 4c - 32t ..
                        Tile& tile = tiles[i * 8 + t];
                        _mm512_store_si512(tile.bytes + row * 64, bf16_pairs(v[0], v[1]));
                        _mm512_store_si512(tile.bytes + (row + 1) * 64, bf16_pairs(v[2], v[3]));
                    }
                }
            }
        }
    }
};

// Q8_0 rows repacked in groups of 16 (interleaved_rows.h), in pairs of blocks: each chunk of 4
// quants holds the 16 rows side by side, and each weight is the dequantizer's d * q.
struct InterleavedQ8_0Weights {
    const InterleavedQ8_0* groups;
    int64_t pairs; // per row

    void widen(int64_t g, int64_t k0, int64_t span, Tile* tiles) const {
        for (int64_t i = 0; i < span / InterleavedQ8_0::kColumns; ++i) {
            const InterleavedQ8_0& b = groups[g * pairs + k0 / InterleavedQ8_0::kColumns + i];
            for (int j = 0; j < 2; ++j) { // block j: one tile of 32 elements
                const __m512 d =
                    _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.d[j])));
                Tile& tile = tiles[2 * i + j];
                for (int c = 0; c < QK8_0 / 4; ++c) { // quants 4c .. 4c + 3
                    const __m512i quants = _mm512_loadu_si512(b.qs[j][c]);
                    __m512 v[4];
                    for (int k = 0; k < 4; ++k) // byte k of each dword, sign-extended
                        v[k] = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_srai_epi32(
                                                    _mm512_slli_epi32(quants, 24 - 8 * k), 24)));
                    _mm512_store_si512(tile.bytes + (2 * c) * 64, bf16_pairs(v[0], v[1]));
                    _mm512_store_si512(tile.bytes + (2 * c + 1) * 64, bf16_pairs(v[2], v[3]));
                }
            }
        }
    }
};

// Where a C tile's sums go: straight between tile and y when all 16 x 16 lie in y, else through
// staging (the last, short tiles of the batch and of the chunk).
struct TileOut {
    float* y = nullptr;
    int64_t y_stride = 0;
    int rows = 0; // valid activation rows
    int cols = 0; // valid weight rows
    bool whole() const { return rows == kTileRows && cols == kTileRows; }
};

template <int kC> inline void begin_sums(const TileOut& out, bool first_span) {
    if (!first_span && out.whole())
        load_tile<kC>(out.y, static_cast<size_t>(out.y_stride) * sizeof(float));
    else
        zero_tile<kC>();
}

template <int kC> inline void end_sums(const TileOut& out, bool first_span, Staging& staging) {
    if (out.whole()) {
        store_tile<kC>(out.y, static_cast<size_t>(out.y_stride) * sizeof(float));
        return;
    }
    store_tile<kC>(staging.sums, 64);
    const __mmask16 cols = static_cast<__mmask16>((1u << out.cols) - 1);
    for (int r = 0; r < out.rows; ++r) {
        float* row = out.y + r * out.y_stride;
        __m512 sums = _mm512_load_ps(staging.sums[r]);
        if (!first_span) sums = _mm512_add_ps(sums, _mm512_maskz_loadu_ps(cols, row));
        _mm512_mask_storeu_ps(row, cols, sums);
    }
}

// A block of kM x kN C tiles (each 1 or 2) over `steps` products: A tiles from a[i] (activation
// rows `a_stride` bytes apart), B tiles from b[j].
template <int kM, int kN>
void multiply_block(const uint8_t* const (&a)[2], size_t a_stride, const Tile* const (&b)[2], int64_t steps,
                    const TileOut (&out)[2][2], bool first_span, Staging& staging) {
    begin_sums<0>(out[0][0], first_span);
    if constexpr (kN == 2) begin_sums<1>(out[0][1], first_span);
    if constexpr (kM == 2) begin_sums<2>(out[1][0], first_span);
    if constexpr (kM == 2 && kN == 2) begin_sums<3>(out[1][1], first_span);
    for (int64_t s = 0; s < steps; ++s) {
        load_tile<4>(a[0] + s * kStep * kBf16Bytes, a_stride);
        load_tile<6>(b[0][s].bytes, 64);
        dot_bf16_tiles<0, 4, 6>();
        if constexpr (kN == 2) {
            load_tile<7>(b[1][s].bytes, 64);
            dot_bf16_tiles<1, 4, 7>();
        }
        if constexpr (kM == 2) {
            load_tile<5>(a[1] + s * kStep * kBf16Bytes, a_stride);
            dot_bf16_tiles<2, 5, 6>();
            if constexpr (kN == 2) dot_bf16_tiles<3, 5, 7>();
        }
    }
    end_sums<0>(out[0][0], first_span, staging);
    if constexpr (kN == 2) end_sums<1>(out[0][1], first_span, staging);
    if constexpr (kM == 2) end_sums<2>(out[1][0], first_span, staging);
    if constexpr (kM == 2 && kN == 2) end_sums<3>(out[1][1], first_span, staging);
}

int64_t longest_span_of(int64_t n) {
    return n <= kLongestSpan ? n : kSpan;
}

// Scratch of the calling thread, grown on its first prefill and reused (decode never comes
// here): the panel of tiles B for `groups` groups and spans up to `longest_span`, and a span of
// 16 rows in F32.
Scratch& scratch_for(int64_t groups, int64_t longest_span) {
    thread_local Scratch scratch;
    const size_t panel_tiles = static_cast<size_t>(groups * (longest_span / kStep));
    if (scratch.panel.size() < panel_tiles) scratch.panel.resize(panel_tiles);
    if (scratch.widened.size() < static_cast<size_t>(kTileRows * kPiece))
        scratch.widened.resize(static_cast<size_t>(kTileRows * kPiece));
    return scratch;
}

// y[b * y_stride + r] = dot(weight row r, activation row b) for the chunk's `rows` weight rows
// (from `weights`, a source above) and the batch; y starts at the chunk's first row.
template <class Weights>
void multiply_on_tiles(const Weights& weights, Scratch& scratch, int64_t n, int64_t rows,
                       const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                       int64_t y_stride) {
    const int64_t groups = (rows + kTileRows - 1) / kTileRows;
    const int64_t longest_span = longest_span_of(n);

    // Tiles of 16 activation rows; the last, if short, from a copy padded with zero rows.
    const auto* a = static_cast<const uint8_t*>(activations);
    const int64_t whole_batch_tiles = batch / kTileRows;
    const int64_t batch_tiles = (batch + kTileRows - 1) / kTileRows;
    if (batch_tiles > whole_batch_tiles) {
        const size_t tile_offset = static_cast<size_t>(whole_batch_tiles * kTileRows) * activation_row_bytes;
        scratch.last_rows.assign(kTileRows * activation_row_bytes, 0);
        std::memcpy(scratch.last_rows.data(), a + tile_offset,
                    static_cast<size_t>(batch % kTileRows) * activation_row_bytes);
    }
    auto tile_rows = [&](int64_t t) {
        return t < whole_batch_tiles ? a + static_cast<size_t>(t * kTileRows) * activation_row_bytes
                                     : scratch.last_rows.data();
    };

    const TilesInUse tiles(full_tiles());
    Staging staging;
    for (int64_t k0 = 0; k0 < n; k0 += longest_span) {
        const int64_t span = std::min(longest_span, n - k0);
        const int64_t steps = span / kStep;
        for (int64_t g = 0; g < groups; ++g)
            weights.widen(g, k0, span, scratch.panel.data() + g * steps);
        const bool first_span = k0 == 0;
        const size_t span_offset = static_cast<size_t>(k0) * kBf16Bytes;
        for (int64_t t = 0; t < batch_tiles; t += 2) {
            const int m_tiles = batch_tiles - t >= 2 ? 2 : 1;
            const uint8_t* const a_tiles[2] = {tile_rows(t) + span_offset,
                                               m_tiles == 2 ? tile_rows(t + 1) + span_offset : nullptr};
            for (int64_t g = 0; g < groups; g += 2) {
                const int n_tiles = groups - g >= 2 ? 2 : 1;
                const Tile* const b_tiles[2] = {scratch.panel.data() + g * steps,
                                                scratch.panel.data() + (g + 1) * steps};
                TileOut out[2][2];
                for (int i = 0; i < m_tiles; ++i)
                    for (int j = 0; j < n_tiles; ++j) {
                        const int64_t first_row = (t + i) * kTileRows;
                        const int64_t first_col = (g + j) * kTileRows;
                        out[i][j] = {y + first_row * y_stride + first_col, y_stride,
                                     static_cast<int>(std::min<int64_t>(kTileRows, batch - first_row)),
                                     static_cast<int>(std::min<int64_t>(kTileRows, rows - first_col))};
                    }
                const size_t stride = activation_row_bytes;
                if (m_tiles == 2 && n_tiles == 2)
                    multiply_block<2, 2>(a_tiles, stride, b_tiles, steps, out, first_span, staging);
                else if (m_tiles == 2)
                    multiply_block<2, 1>(a_tiles, stride, b_tiles, steps, out, first_span, staging);
                else if (n_tiles == 2)
                    multiply_block<1, 2>(a_tiles, stride, b_tiles, steps, out, first_span, staging);
                else
                    multiply_block<1, 1>(a_tiles, stride, b_tiles, steps, out, first_span, staging);
            }
        }
    }
}

// GemmFn over row-major weights of one type.
template <TensorType kType, DequantizeRowFn kDequantize>
void gemm_bf16_rows(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                    int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                    float* y, int64_t y_stride) {
    if (batch <= 0 || row_end <= row_begin) return;
    const int64_t rows = row_end - row_begin;
    Scratch& scratch = scratch_for((rows + kTileRows - 1) / kTileRows, longest_span_of(n));
    const RowMajorWeights source{kDequantize,
                                 type_traits(kType),
                                 static_cast<const uint8_t*>(weights) +
                                     static_cast<size_t>(row_begin) * weight_row_bytes,
                                 weight_row_bytes,
                                 rows,
                                 scratch.widened.data()};
    multiply_on_tiles(source, scratch, n, rows, activations, activation_row_bytes, batch, y + row_begin,
                      y_stride);
}

// GemmFn over rows repacked in groups of 16 (row_begin and row_end whole groups).
template <class Packed, class Weights>
void gemm_bf16_interleaved16(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                             const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                             int64_t y_stride) {
    if (batch <= 0 || row_end <= row_begin) return;
    const int64_t rows = row_end - row_begin;
    const int64_t units = n / Packed::kColumns; // per row
    Scratch& scratch = scratch_for(rows / kTileRows, longest_span_of(n));
    const Weights source{static_cast<const Packed*>(packed) + row_begin / kTileRows * units, units};
    multiply_on_tiles(source, scratch, n, rows, activations, activation_row_bytes, batch, y + row_begin,
                      y_stride);
}

} // namespace

void add_bf16_gemm_kernels(KernelTable& table) {
    using T = TensorType;
    const auto tiles = [](std::string_view name, GemmFn fn, RowLayout layout) {
        Candidate<GemmFn> c = matmul_kernel(name, cpu(Isa::Amx), fn, T::BF16,
                                            {.min_batch = kBf16TileMinBatch, .layout = layout});
        c.whole_batch_per_chunk = true;
        return c;
    };
    constexpr RowLayout kRows = RowLayout::RowMajor, kRepacked = RowLayout::Interleaved16;
    table.of(T::Q8_0).matmul.put_first(
        {tiles("gemm_q8_0_bf16_tiles_interleaved16",
               gemm_bf16_interleaved16<InterleavedQ8_0, InterleavedQ8_0Weights>, kRepacked),
         tiles("gemm_q8_0_bf16_tiles", gemm_bf16_rows<T::Q8_0, avx2::dequantize_row_q8_0>, kRows)});
    table.of(T::Q4_0).matmul.put_first(
        {tiles("gemm_q4_0_bf16_tiles", gemm_bf16_rows<T::Q4_0, avx2::dequantize_row_q4_0>, kRows)});
    table.of(T::Q4_1).matmul.put_first(
        {tiles("gemm_q4_1_bf16_tiles", gemm_bf16_rows<T::Q4_1, avx2::dequantize_row_q4_1>, kRows)});
    table.of(T::Q5_0).matmul.put_first(
        {tiles("gemm_q5_0_bf16_tiles", gemm_bf16_rows<T::Q5_0, avx2::dequantize_row_q5_0>, kRows)});
    table.of(T::Q5_1).matmul.put_first(
        {tiles("gemm_q5_1_bf16_tiles", gemm_bf16_rows<T::Q5_1, avx2::dequantize_row_q5_1>, kRows)});
    table.of(T::Q5_K).matmul.put_first(
        {tiles("gemm_q5_K_bf16_tiles", gemm_bf16_rows<T::Q5_K, avx2::dequantize_row_q5_K>, kRows)});
    table.of(T::Q4_K).matmul.put_first(
        {tiles("gemm_q4_K_bf16_tiles_interleaved16",
               gemm_bf16_interleaved16<InterleavedQ4_K, InterleavedQ4_KWeights>, kRepacked),
         tiles("gemm_q4_K_bf16_tiles", gemm_bf16_rows<T::Q4_K, avx2::dequantize_row_q4_K>, kRows)});
    table.of(T::Q6_K).matmul.put_first(
        {tiles("gemm_q6_K_bf16_tiles_interleaved16",
               gemm_bf16_interleaved16<InterleavedQ6_K, InterleavedQ6_KWeights>, kRepacked),
         tiles("gemm_q6_K_bf16_tiles", gemm_bf16_rows<T::Q6_K, avx2::dequantize_row_q6_K>, kRows)});
}

} // namespace hearth::kernels::amx
