// Prefill gemm of Q8_0 weights on AMX-INT8 tiles (kernel_table.h's GemmFn), row-major and
// repacked, for batches of kMinBatch activation rows or more; the table gives smaller batches
// and decode to the AVX-512 tier's vpdpbusd kernels.
//
// Why: the vpdpbusd kernel does 64 multiply-adds per instruction; a TDPBSSD does 16 x 16 x 32 =
// 8192 (one block of 32 for 16 activation rows and 16 weight rows). Each block has its own scale
// on both sides, so a block's integer sums cannot run on into the next block's in the tile: each
// is stored, converted and scaled in zmm (16 rows x (convert, multiply, FMA)); that store and
// scaling, not the tiles, bound the loop.
//
// Exact as the other tiers: a block's integer dot is exact in int32 and in float (at most
// 32 x 128 x 128 < 2^24), then one rounding for the product of the two scales and one FMA into
// the row's F32 sum.
//
// Layout: tile A holds 16 activation rows' quants of one block, read straight from the Q8_0
// activations (a tile load takes a stride); tile B holds 16 weight rows of that block as TDPBSSD
// wants them, 4 bytes of each row side by side (8 rows of 64 bytes), made once per call into a
// per-thread panel; tile C sums the 16 x 16 int32 products (amx_tiles.h's block_products: two C
// tiles alternate by block).
#include "kernels/block_formats.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/x86_amx/amx_kernels.h"
#include "kernels/x86_amx/amx_tiles.h"

#include <algorithm>
#include <cstring>
#include <immintrin.h>
#include <vector>

namespace hearth::kernels::amx {
namespace {

constexpr int kRows = 16;      // weight rows per group: a C tile's 16 int32 columns
constexpr int kBatchRows = 16; // activation rows per C tile
constexpr int64_t kMinBatch = 8;
constexpr size_t kBlockBytes = sizeof(BlockQ8_0);
constexpr size_t kPanelBlockBytes = 8 * 64; // one block of a group in tile B's layout

struct Scratch {
    std::vector<uint8_t> panels;           // per group, per block: 512 bytes of tile B
    std::vector<float> weight_scales;      // per group, per block: 16 scales
    std::vector<float> activation_scales;  // per block: the 16 rows' scales of one activation tile
    std::vector<uint8_t> last_activations; // the last activation tile's rows, zero-padded to 16
};

// Grown on a thread's first prefill, then reused (decode never comes here).
Scratch& thread_scratch() {
    thread_local Scratch scratch;
    return scratch;
}

// The byte offsets of 16 rows `stride` bytes apart, for gathers.
inline __m512i offsets_of_rows(size_t stride) {
    return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                              _mm512_set1_epi32(static_cast<int>(stride)));
}

// The panel of weight rows [first, first + count) (count <= 16): rows past count are zeros, and
// so are their scales.
void make_panel(const uint8_t* weights, size_t row_bytes, int64_t first, int count, int64_t blocks,
                uint8_t* panel, float* scales) {
    const __mmask16 valid = static_cast<__mmask16>((1u << count) - 1);
    const __m512i row_offsets = offsets_of_rows(row_bytes);
    const uint8_t* rows = weights + static_cast<size_t>(first) * row_bytes;
    for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t* block = rows + static_cast<size_t>(b) * kBlockBytes;
        // The scale (the low half of the dword at the block's start), widened.
        const __m512i d = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), valid, row_offsets, block, 1);
        _mm512_storeu_ps(scales + b * kRows, _mm512_cvtph_ps(_mm512_cvtepi32_epi16(d)));
        // Dword k of each row's quants into lane n of panel row k.
        for (int k = 0; k < 8; ++k)
            _mm512_storeu_si512(panel + b * kPanelBlockBytes + k * 64,
                                _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), valid, row_offsets,
                                                            block + 2 + 4 * k, 1));
    }
}

// The scales of 16 activation rows (`stride` bytes apart) for every block, as floats.
void activation_tile_scales(const uint8_t* rows, size_t stride, int64_t blocks, float* scales) {
    const __m512i row_offsets = offsets_of_rows(stride);
    for (int64_t b = 0; b < blocks; ++b) {
        const __m512i d = _mm512_i32gather_epi32(row_offsets, rows + b * kBlockBytes, 1);
        _mm512_storeu_ps(scales + b * kBatchRows, _mm512_cvtph_ps(_mm512_cvtepi32_epi16(d)));
    }
}

// acc[i] += float(sums[i]) * (weight scales * activation scale i).
inline void add_block(__m512 (&acc)[kBatchRows], const BlockSums& sums, const float* weight_scales,
                      const float* activation_scales) {
    const __m512 w = _mm512_loadu_ps(weight_scales);
#pragma GCC unroll 16
    for (int i = 0; i < kBatchRows; ++i) {
        const __m512 scale = _mm512_mul_ps(w, _mm512_set1_ps(activation_scales[i]));
        acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512(sums[i])), scale, acc[i]);
    }
}

// 16 activation rows (from `rows`, `stride` bytes apart) times one group's tiles B, block b's
// at b_tile(b).
template <class BTile>
void tile_times_group(const uint8_t* rows, size_t stride, BTile b_tile, const float* weight_scales,
                      const float* activation_scales, int64_t blocks, __m512 (&acc)[kBatchRows]) {
    for (__m512& a : acc)
        a = _mm512_setzero_ps();
    block_products(
        blocks,
        [&](int64_t b) {
            load_tile<2>(rows + b * kBlockBytes + 2, stride);
            load_tile<4>(b_tile(b), 64);
        },
        [&](const BlockSums& sums, int64_t b) {
            add_block(acc, sums, weight_scales + b * kRows, activation_scales + b * kBatchRows);
        });
}

// Every activation tile times every group of weight rows [row_begin, row_end): group g's block b
// has its tile B at b_tile(g, b) and its 16 scales at weight_scales + (g * blocks + b) * 16.
template <class BTile>
void multiply_groups(BTile b_tile, const float* weight_scales, int64_t blocks, int64_t row_begin,
                     int64_t row_end, const uint8_t* a, size_t activation_row_bytes, int64_t batch, float* y,
                     int64_t y_stride, Scratch& scratch) {
    const int64_t rows = row_end - row_begin;
    const int64_t groups = (rows + kRows - 1) / kRows;
    if (scratch.activation_scales.size() < static_cast<size_t>(blocks * kBatchRows))
        scratch.activation_scales.resize(static_cast<size_t>(blocks * kBatchRows));
    const TilesInUse tiles(int8_block_tiles());
    for (int64_t m0 = 0; m0 < batch; m0 += kBatchRows) {
        const int64_t batch_rows = std::min<int64_t>(kBatchRows, batch - m0);
        const uint8_t* tile_rows = a + static_cast<size_t>(m0) * activation_row_bytes;
        if (batch_rows < kBatchRows) { // the last, short tile: its rows and zero rows after them
            const size_t used = static_cast<size_t>(batch_rows) * activation_row_bytes;
            scratch.last_activations.assign(kBatchRows * activation_row_bytes, 0);
            std::memcpy(scratch.last_activations.data(), tile_rows, used);
            tile_rows = scratch.last_activations.data();
        }
        activation_tile_scales(tile_rows, activation_row_bytes, blocks, scratch.activation_scales.data());
        for (int64_t g = 0; g < groups; ++g) {
            __m512 acc[kBatchRows];
            tile_times_group(
                tile_rows, activation_row_bytes, [&](int64_t b) { return b_tile(g, b); },
                weight_scales + g * blocks * kRows, scratch.activation_scales.data(), blocks, acc);
            const int64_t first_row = row_begin + g * kRows;
            const int valid = static_cast<int>(std::min<int64_t>(kRows, row_end - first_row));
            const __mmask16 columns = static_cast<__mmask16>((1u << valid) - 1);
            for (int64_t i = 0; i < batch_rows; ++i)
                _mm512_mask_storeu_ps(y + (m0 + i) * y_stride + first_row, columns, acc[i]);
        }
    }
}

void gemm_q8_0_amx(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                   int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                   float* y, int64_t y_stride) {
    if (row_end <= row_begin) return;
    const int64_t blocks = n / QK8_0;
    const int64_t rows = row_end - row_begin;
    const int64_t groups = (rows + kRows - 1) / kRows;
    Scratch& scratch = thread_scratch();
    const size_t panel_bytes = static_cast<size_t>(groups * blocks) * kPanelBlockBytes;
    if (scratch.panels.size() < panel_bytes) scratch.panels.resize(panel_bytes);
    if (scratch.weight_scales.size() < static_cast<size_t>(groups * blocks * kRows))
        scratch.weight_scales.resize(static_cast<size_t>(groups * blocks * kRows));
    const auto* w = static_cast<const uint8_t*>(weights);
    for (int64_t g = 0; g < groups; ++g)
        make_panel(w, weight_row_bytes, row_begin + g * kRows,
                   static_cast<int>(std::min<int64_t>(kRows, rows - g * kRows)), blocks,
                   scratch.panels.data() + static_cast<size_t>(g * blocks) * kPanelBlockBytes,
                   scratch.weight_scales.data() + g * blocks * kRows);
    const uint8_t* panels = scratch.panels.data();
    multiply_groups(
        [&](int64_t g, int64_t b) { return panels + static_cast<size_t>(g * blocks + b) * kPanelBlockBytes; },
        scratch.weight_scales.data(), blocks, row_begin, row_end, static_cast<const uint8_t*>(activations),
        activation_row_bytes, batch, y, y_stride, scratch);
}

// The same over Q8_0 rows repacked in groups of 16 (interleaved_rows.h; row_begin and row_end
// whole groups): each block's quants in a group are already tile B, so only the scales are
// widened.
void gemm_q8_0_amx_interleaved16(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                                 const void* activations, size_t activation_row_bytes, int64_t batch,
                                 float* y, int64_t y_stride) {
    if (row_end <= row_begin) return;
    const int64_t blocks = n / QK8_0;
    const int64_t pairs = n / InterleavedQ8_0::kColumns;
    const int64_t groups = (row_end - row_begin) / kRows;
    const InterleavedQ8_0* first = static_cast<const InterleavedQ8_0*>(packed) + row_begin / kRows * pairs;
    Scratch& scratch = thread_scratch();
    if (scratch.weight_scales.size() < static_cast<size_t>(groups * blocks * kRows))
        scratch.weight_scales.resize(static_cast<size_t>(groups * blocks * kRows));
    for (int64_t g = 0; g < groups; ++g)
        for (int64_t b = 0; b < blocks; ++b)
            _mm512_storeu_ps(scratch.weight_scales.data() + (g * blocks + b) * kRows,
                             _mm512_cvtph_ps(_mm256_loadu_si256(
                                 reinterpret_cast<const __m256i*>(first[g * pairs + b / 2].d[b % 2]))));
    multiply_groups(
        [&](int64_t g, int64_t b) {
            return reinterpret_cast<const uint8_t*>(first[g * pairs + b / 2].qs[b % 2]);
        },
        scratch.weight_scales.data(), blocks, row_begin, row_end, static_cast<const uint8_t*>(activations),
        activation_row_bytes, batch, y, y_stride, scratch);
}

} // namespace

void add_q8_0_gemm_kernels(KernelTable& table) {
    const auto tiles = [](std::string_view name, GemmFn fn, RowLayout layout) {
        return matmul_kernel(name, cpu(Isa::Amx), fn, TensorType::Q8_0,
                             {.min_batch = kMinBatch, .layout = layout});
    };
    table.of(TensorType::Q8_0)
        .matmul.put_first(
            {tiles("gemm_q8_0_amx_interleaved16", gemm_q8_0_amx_interleaved16, RowLayout::Interleaved16),
             tiles("gemm_q8_0_amx", gemm_q8_0_amx, RowLayout::RowMajor)});
}

} // namespace hearth::kernels::amx
