#pragma once
// Weight matrices repacked at load into groups of 16 interleaved rows: Q4_K, whose row-by-row
// dot product spends more instructions unpacking a super-block than memory takes to deliver it
// (in cache, 2 threads, AVX-512: 58 GB/s interleaved against 36 row by row). Q6_K was tried
// the same way and left in the file's layout: merging its split 6-bit quants costs more
// instructions per vector than the row-by-row kernel (37 against 41 GB/s; 19 on AVX2). In a group every 4
// quants of a row sit in one dword, the 16 rows side by side, so one vpdpbusd against 4 activation bytes
// advances all 16 rows, each in its own int32 lane, with no horizontal sums. The repacking is lossless:
// unpack_rows16 gives back the file's bytes.
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

inline constexpr int kInterleavedRows = 16;

// One super-block (256 columns) of a group of 16 Q4_K rows.
struct InterleavedQ4_K {
    // [pair p][chunk c][row r * 4 + k]: the low nibble is row r's quant 64p + 4c + k (sub-block
    // 2p), the high nibble its quant 64p + 32 + 4c + k (sub-block 2p + 1).
    uint8_t qs[4][8][kInterleavedRows * 4];
    uint8_t scales[8][kInterleavedRows];  // [sub-block][row], six bits
    uint8_t mins[4][kInterleavedRows][2]; // [pair p][row][sub-block 2p + i], six bits
    fp16_bits d[kInterleavedRows], dmin[kInterleavedRows];
};
static_assert(sizeof(InterleavedQ4_K) == 2368);

// Whether a (rows x cols) matrix of this type is repacked: Q4_K, whole groups of rows.
bool interleaves_rows16(TensorType type, int64_t rows, int64_t cols);
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
