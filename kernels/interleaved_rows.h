#pragma once
// Weight matrices repacked at load into groups of 16 interleaved rows: Q4_K, Q6_K and Q8_0, whose
// row-by-row dot products spend more instructions unpacking and reducing a block than memory
// takes to deliver it. In a group every 4 quants of a row sit in one dword, the 16 rows side by side, so
// one vpdpbusd against 4 activation bytes advances all 16 rows, each in its own int32 lane,
// with no horizontal sums. Each repacked super-block has exactly the file's bytes for its 16
// rows, and the repacking is lossless: unpack_rows16 gives back the file's bytes.
#include "kernels/block_formats.h"
#include "kernels/row_layout.h"
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

inline constexpr int kInterleavedRows = 16;
// Changes whenever a repacked layout below does: copies kept on disk carry it
// (engine/model/repacked_cache.h).
inline constexpr uint32_t kInterleavedLayoutVersion = 1;

// One super-block (256 columns) of a group of 16 Q4_K rows: the file's 2304 bytes for 16 rows,
// so the repacked matrix is no larger than the file's. The six-bit scales and mins of each
// sub-block pair are split into 4-bit and 2-bit parts so that byte-wise shifts and masks give
// all 16 rows' values at once (unpack_q4_K_scales in interleaved16_gemv.h).
struct InterleavedQ4_K {
    static constexpr int64_t kColumns = QK_K;
    // [pair p][chunk c][row r * 4 + k]: the low nibble is row r's quant 64p + 4c + k (sub-block
    // 2p), the high nibble its quant 64p + 32 + 4c + k (sub-block 2p + 1).
    uint8_t qs[4][8][kInterleavedRows * 4];
    // [pair p][row]: the low 4 bits of the scale (min) of sub-block 2p in the low nibble, of
    // sub-block 2p + 1 in the high nibble.
    uint8_t scale_low[4][kInterleavedRows];
    uint8_t min_low[4][kInterleavedRows];
    // [pair p][row]: the top 2 bits of scale 2p (bits 0-1), scale 2p + 1 (2-3), min 2p (4-5)
    // and min 2p + 1 (6-7).
    uint8_t high[4][kInterleavedRows];
    fp16_bits d[kInterleavedRows], dmin[kInterleavedRows];
};
static_assert(sizeof(InterleavedQ4_K) == 2304);

// Row r's six-bit scale and min of sub-block j (0..7) in a repacked super-block.
inline uint8_t interleaved_scale(const InterleavedQ4_K& b, int j, int r) {
    const int p = j / 2, odd = j % 2;
    return static_cast<uint8_t>(((b.scale_low[p][r] >> (4 * odd)) & 0x0F) |
                                (((b.high[p][r] >> (2 * odd)) & 3) << 4));
}
inline uint8_t interleaved_min(const InterleavedQ4_K& b, int j, int r) {
    const int p = j / 2, odd = j % 2;
    return static_cast<uint8_t>(((b.min_low[p][r] >> (4 * odd)) & 0x0F) |
                                (((b.high[p][r] >> (4 + 2 * odd)) & 3) << 4));
}

// One super-block (256 columns) of a group of 16 Q6_K rows: the file's 3360 bytes for 16 rows.
// Element e of a row (0..255) is in chunk e / 4 (4 quants of the row per dword, the 16 rows
// side by side), and its six bits are split so that 64-byte vectors serve 16 rows at once:
// chunk c < 32 keeps its low 4 bits in the low nibbles of ql(c), chunk 32 + c in the high
// nibbles of ql(c); chunk u + 16 k (u < 16, k < 4) keeps its top 2 bits in bits 2k, 2k + 1 of
// qh(u). So step u, ql(u), ql(u + 16) and qh(u), holds chunks u, u + 16, u + 32 and u + 48
// whole, and its three vectors lie side by side: the decode reads one sequential stream.
struct InterleavedQ6_K {
    static constexpr int64_t kColumns = QK_K;
    uint8_t steps[16][3][kInterleavedRows * 4]; // [u]: ql(u), ql(u + 16), qh(u); [row r * 4 + k]
    int8_t scales[16][kInterleavedRows];        // [sub-block j][row]
    fp16_bits d[kInterleavedRows];

    uint8_t* ql(int c) { return steps[c % 16][c / 16]; }
    const uint8_t* ql(int c) const { return steps[c % 16][c / 16]; }
    uint8_t* qh(int u) { return steps[u][2]; }
    const uint8_t* qh(int u) const { return steps[u][2]; }
};
static_assert(sizeof(InterleavedQ6_K) == 3360);

// Two Q8_0 blocks (64 columns) of a group of 16 rows: the file's 16 x 2 x 34 bytes. A pair, not
// one block, so that every vector of quants starts on a cache line (16 scales are 32 bytes).
// The quants are the file's signed bytes.
struct InterleavedQ8_0 {
    static constexpr int64_t kColumns = 2 * QK8_0;
    fp16_bits d[2][kInterleavedRows];              // [block j][row]
    int8_t qs[2][QK8_0 / 4][kInterleavedRows * 4]; // [block j][chunk c][row r * 4 + k]: quant 4c + k
};
static_assert(sizeof(InterleavedQ8_0) == 2 * kInterleavedRows * sizeof(BlockQ8_0));

// Whether a (rows x cols) matrix of this type is repacked: Q4_K and Q6_K in whole super-blocks,
// Q8_0 in whole pairs of blocks (64 columns), and whole groups of rows.
bool interleaves_rows16(TensorType type, int64_t rows, int64_t cols);
// The layout a model's (rows x cols) matrix of this type takes at load under a kernel table:
// repacked where it can be and the table repacks the type (TypeCandidates::repacks_rows16).
struct KernelTable;
RowLayout load_layout(const KernelTable& table, TensorType type, int64_t rows, int64_t cols);
// Bytes of the repacked matrix.
size_t interleaved_rows16_bytes(TensorType type, int64_t rows, int64_t cols);
// Bytes of one group of 16 repacked rows (its super-blocks one after another).
size_t interleaved_group_bytes(TensorType type, int64_t cols);
// Repacks rows [0, rows) of a row-major matrix into `out` (interleaved_rows16_bytes).
void interleave_rows16(TensorType type, const void* rows, int64_t n_rows, int64_t cols, void* out);
// Writes rows [row_begin, row_end) of a repacked matrix, row-major as in the file, to `out`.
void unpack_rows16(TensorType type, const void* packed, int64_t cols, int64_t row_begin, int64_t row_end,
                   void* out);

} // namespace hearth::kernels
