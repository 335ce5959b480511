// Prefill gemm of Q4_K weights, repacked in groups of 16 rows (interleaved_rows.h), on AMX-INT8
// tiles, for batches of kMinBatch activation rows or more; the table gives smaller batches to the
// AVX-512 tier's vpdpbusd kernels.
//
// A Q4_K weight is d * scale(j) * q - dmin * min(j) in sub-block j (32 elements) of a
// super-block, with Q8_K activations x (one float scale per 256, sums of each 16): a row's dot
// over a super-block is dx * (d * sum_j scale(j) * dot_j(q, x) - dmin * sum_j min(j) * sum_j(x)).
// The tiles give dot_j for 16 activation rows x 16 weight rows, one sub-block per TDPBSSD (the
// quants 0..15 are signed bytes as well as unsigned). Each is stored and taken into the
// super-block's F32 sums times the scales, and the super-block ends times d * dx, less the mins'
// term.
//
// The repacked layout is already tile B's (4 quants of a row per dword, the 16 rows side by
// side); a group's nibbles are split into bytes once per call.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/x86_amx/amx_kernels.h"
#include "kernels/x86_amx/amx_tiles.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <immintrin.h>
#include <vector>

namespace hearth::kernels::amx {
namespace {

constexpr int kRows = kInterleavedRows; // weight rows per group: a C tile's 16 int32 columns
constexpr int kBatchRows = 16;          // activation rows per C tile
constexpr int kSubBlocks = QK_K / 32;
constexpr int64_t kMinBatch = 8;
constexpr size_t kTileBBytes = 8 * 64; // one sub-block of a group in tile B's layout

// One super-block of a group, ready for the tiles and the vector units.
struct GroupBlock {
    uint8_t quants[kSubBlocks][kTileBBytes]; // tile B of each sub-block: bytes 0..15
    float scales[kSubBlocks][kRows];         // the six-bit scales, exact as floats
    float mins[kSubBlocks][kRows];           // dmin * min(j)
    float d[kRows];
};

// Per activation row and super-block: dx, and dx * sum_j(x) for each sub-block, laid out by
// tiles of 16 rows so that a super-block's values for a tile lie together.
struct ActivationBlock {
    float dx[kBatchRows];
    float scaled_sums[kSubBlocks][kBatchRows];
};

struct Scratch {
    std::vector<GroupBlock> group;
    std::vector<ActivationBlock> activations; // [tile][super-block]
    std::vector<uint8_t> last_rows;           // the last activation tile, zero-padded to 16 rows
};

void prepare_group(const InterleavedQ4_K* blocks, int64_t super_blocks, GroupBlock* out) {
    const __m512i low = _mm512_set1_epi8(0x0F);
    for (int64_t s = 0; s < super_blocks; ++s) {
        const InterleavedQ4_K& b = blocks[s];
        GroupBlock& g = out[s];
        for (int p = 0; p < 4; ++p)
            for (int c = 0; c < 8; ++c) {
                const __m512i q = _mm512_loadu_si512(b.qs[p][c]);
                _mm512_storeu_si512(g.quants[2 * p] + 64 * c, _mm512_and_si512(q, low));
                _mm512_storeu_si512(g.quants[2 * p + 1] + 64 * c,
                                    _mm512_and_si512(_mm512_srli_epi16(q, 4), low));
            }
        for (int r = 0; r < kRows; ++r) {
            const float dmin = fp16_to_fp32(b.dmin[r]);
            g.d[r] = fp16_to_fp32(b.d[r]);
            for (int j = 0; j < kSubBlocks; ++j) {
                g.scales[j][r] = static_cast<float>(interleaved_scale(b, j, r));
                g.mins[j][r] = dmin * static_cast<float>(interleaved_min(b, j, r));
            }
        }
    }
}

void prepare_activations(const uint8_t* rows, size_t stride, int count, int64_t super_blocks,
                         ActivationBlock* out) {
    for (int64_t s = 0; s < super_blocks; ++s) {
        ActivationBlock& a = out[s];
        for (int i = 0; i < kBatchRows; ++i) {
            if (i >= count) {
                a.dx[i] = 0;
                for (int j = 0; j < kSubBlocks; ++j)
                    a.scaled_sums[j][i] = 0;
                continue;
            }
            const uint8_t* block = rows + i * stride + s * sizeof(BlockQ8_K);
            float dx;
            int16_t sums[QK_K / 16];
            std::memcpy(&dx, block + offsetof(BlockQ8_K, d), sizeof dx);
            std::memcpy(sums, block + offsetof(BlockQ8_K, bsums), sizeof sums);
            a.dx[i] = dx;
            for (int j = 0; j < kSubBlocks; ++j)
                a.scaled_sums[j][i] = dx * static_cast<float>(sums[2 * j] + sums[2 * j + 1]);
        }
    }
}

// sums[i] += dot_j(row i) * scale(j), lane by weight row. Each product is exact in F32 (below
// 63 x 32 x 15 x 128 < 2^22), as is their sum until it passes 2^24; a convert and an FMA take
// fewer cycles than vpmulld (2 uops on Intel) and an add.
inline void add_sub_block(__m512 (&sums)[kBatchRows], const BlockSums& dots, const float* scales) {
    const __m512 scale = _mm512_loadu_ps(scales);
#pragma GCC unroll 16
    for (int i = 0; i < kBatchRows; ++i)
        sums[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512(dots[i])), scale, sums[i]);
}

// 16 activation rows (`rows`, `stride` bytes apart) times a group, into out[i][16] (F32).
void tile_times_group(const uint8_t* rows, size_t stride, const GroupBlock* group,
                      const ActivationBlock* acts, int64_t super_blocks, float (*out)[16]) {
    for (int i = 0; i < kBatchRows; ++i)
        _mm512_store_ps(out[i], _mm512_setzero_ps());
    for (int64_t s = 0; s < super_blocks; ++s) {
        const GroupBlock& g = group[s];
        const uint8_t* activations = rows + s * sizeof(BlockQ8_K) + offsetof(BlockQ8_K, qs);
        __m512 sums[kBatchRows];
        for (__m512& v : sums)
            v = _mm512_setzero_ps();
        block_products(
            kSubBlocks,
            [&](int64_t j) {
                load_tile<2>(activations + 32 * j, stride);
                load_tile<4>(g.quants[j], 64);
            },
            [&](const BlockSums& dots, int64_t j) { add_sub_block(sums, dots, g.scales[j]); });
        const ActivationBlock& a = acts[s];
        const __m512 d = _mm512_loadu_ps(g.d);
        for (int i = 0; i < kBatchRows; ++i) {
            __m512 y =
                _mm512_fmadd_ps(sums[i], _mm512_mul_ps(d, _mm512_set1_ps(a.dx[i])), _mm512_load_ps(out[i]));
            for (int j = 0; j < kSubBlocks; ++j)
                y = _mm512_fnmadd_ps(_mm512_loadu_ps(g.mins[j]), _mm512_set1_ps(a.scaled_sums[j][i]), y);
            _mm512_store_ps(out[i], y);
        }
    }
}

void gemm_q4_K_amx_interleaved16(int64_t n, const void* weights, size_t, int64_t row_begin, int64_t row_end,
                                 const void* activations, size_t activation_row_bytes, int64_t batch,
                                 float* y, int64_t y_stride) {
    if (row_end <= row_begin) return;
    const int64_t super_blocks = n / QK_K;
    const int64_t tiles = (batch + kBatchRows - 1) / kBatchRows;
    // Grown on a thread's first prefill, then reused (decode never comes here).
    thread_local Scratch scratch;
    if (scratch.group.size() < static_cast<size_t>(super_blocks)) scratch.group.resize(super_blocks);
    if (scratch.activations.size() < static_cast<size_t>(tiles * super_blocks))
        scratch.activations.resize(static_cast<size_t>(tiles * super_blocks));
    const auto* a = static_cast<const uint8_t*>(activations);
    for (int64_t t = 0; t < tiles; ++t)
        prepare_activations(a + static_cast<size_t>(t * kBatchRows) * activation_row_bytes,
                            activation_row_bytes,
                            static_cast<int>(std::min<int64_t>(kBatchRows, batch - t * kBatchRows)),
                            super_blocks, scratch.activations.data() + t * super_blocks);
    const int64_t last_rows = batch - (tiles - 1) * kBatchRows;
    if (last_rows < kBatchRows) {
        scratch.last_rows.assign(kBatchRows * activation_row_bytes, 0);
        std::memcpy(scratch.last_rows.data(),
                    a + static_cast<size_t>((tiles - 1) * kBatchRows) * activation_row_bytes,
                    static_cast<size_t>(last_rows) * activation_row_bytes);
    }

    const auto* packed = static_cast<const InterleavedQ4_K*>(weights);
    const TilesInUse tiles_in_use(int8_block_tiles());
    for (int64_t g = row_begin / kRows; g < row_end / kRows; ++g) {
        prepare_group(packed + g * super_blocks, super_blocks, scratch.group.data());
        for (int64_t t = 0; t < tiles; ++t) {
            const bool last = t == tiles - 1 && last_rows < kBatchRows;
            const uint8_t* rows = last ? scratch.last_rows.data()
                                       : a + static_cast<size_t>(t * kBatchRows) * activation_row_bytes;
            alignas(64) float out[kBatchRows][16];
            tile_times_group(rows, activation_row_bytes, scratch.group.data(),
                             scratch.activations.data() + t * super_blocks, super_blocks, out);
            const int64_t count = last ? last_rows : kBatchRows;
            for (int64_t i = 0; i < count; ++i)
                _mm512_storeu_ps(y + (t * kBatchRows + i) * y_stride + g * kRows, _mm512_load_ps(out[i]));
        }
    }
}

} // namespace

void add_q4_k_gemm_kernels(KernelTable& table) {
    table.of(TensorType::Q4_K)
        .matmul.put_first(
            {matmul_kernel("gemm_q4_K_amx_interleaved16", cpu(Isa::Amx), gemm_q4_K_amx_interleaved16,
                           TensorType::Q8_K, {.min_batch = kMinBatch, .layout = RowLayout::Interleaved16})});
}

} // namespace hearth::kernels::amx
