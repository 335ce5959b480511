// Repacking of Q4_K, Q6_K and Q8_0 rows into groups of 16 interleaved rows, and back.
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"

#include <cstring>
#include <stdexcept>

namespace hearth::kernels {
namespace {

// A Q4_K super-block as plain numbers.
struct Q4KValues {
    uint8_t q[QK_K]; // 0..15, element order
    uint8_t scale[8], min[8];
    fp16_bits d, dmin;
};

// Q4_K packs 8 six-bit scales and 8 six-bit mins into 12 bytes: bytes 0-3 hold scales 0-3 and
// bytes 4-7 mins 0-3 in their low 6 bits, the top 2 bits of scales and mins 4-7 in their top
// 2 bits; bytes 8-11 hold the low 4 bits of scale (low nibble) and min (high nibble) 4-7.
void write_q4_K(const Q4KValues& v, BlockQ4_K& b) {
    b.d = v.d;
    b.dmin = v.dmin;
    for (int j = 0; j < 4; ++j) {
        b.scales[j] = static_cast<uint8_t>(v.scale[j] | ((v.scale[j + 4] >> 4) << 6));
        b.scales[j + 4] = static_cast<uint8_t>(v.min[j] | ((v.min[j + 4] >> 4) << 6));
        b.scales[j + 8] = static_cast<uint8_t>((v.scale[j + 4] & 0x0F) | ((v.min[j + 4] & 0x0F) << 4));
    }
    for (int p = 0; p < 4; ++p)
        for (int l = 0; l < 32; ++l)
            b.qs[32 * p + l] = static_cast<uint8_t>(v.q[64 * p + l] | (v.q[64 * p + 32 + l] << 4));
}

// Row r's super-block i in the group: 4 quants of each row per dword, as the structs say. The
// file's byte 32p + l already holds quant 64p + l in its low nibble and 64p + 32 + l in its high
// one, the pairing of the repacked bytes, so the quants move 4 bytes at a time unchanged.
void put_q4_K(const BlockQ4_K& block, int r, InterleavedQ4_K& out) {
    const uint8_t* scales = block.scales;
    out.d[r] = block.d;
    out.dmin[r] = block.dmin;
    for (int p = 0; p < 4; ++p) {
        // Sub-blocks 2p and 2p + 1: 0-3 sit in bytes 0-7's low 6 bits, 4-7 in bytes 8-11's
        // nibbles with their top 2 bits in the top bits of bytes 0-7.
        uint8_t s[2], m[2];
        for (int odd = 0; odd < 2; ++odd) {
            const int j = 2 * p + odd;
            if (j < 4) {
                s[odd] = scales[j] & 63;
                m[odd] = scales[j + 4] & 63;
            } else {
                s[odd] = static_cast<uint8_t>((scales[j + 4] & 0x0F) | ((scales[j - 4] >> 6) << 4));
                m[odd] = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
            }
        }
        out.scale_low[p][r] = static_cast<uint8_t>((s[0] & 0x0F) | ((s[1] & 0x0F) << 4));
        out.min_low[p][r] = static_cast<uint8_t>((m[0] & 0x0F) | ((m[1] & 0x0F) << 4));
        out.high[p][r] =
            static_cast<uint8_t>((s[0] >> 4) | ((s[1] >> 4) << 2) | ((m[0] >> 4) << 4) | ((m[1] >> 4) << 6));
        for (int c = 0; c < 8; ++c)
            std::memcpy(&out.qs[p][c][4 * r], block.qs + 32 * p + 4 * c, 4);
    }
}

void take_q4_K(const InterleavedQ4_K& in, int r, BlockQ4_K& block) {
    Q4KValues v;
    v.d = in.d[r];
    v.dmin = in.dmin[r];
    for (int j = 0; j < 8; ++j) {
        v.scale[j] = interleaved_scale(in, j, r);
        v.min[j] = interleaved_min(in, j, r);
    }
    for (int p = 0; p < 4; ++p) {
        for (int c = 0; c < 8; ++c)
            for (int k = 0; k < 4; ++k) {
                const uint8_t byte = in.qs[p][c][4 * r + k];
                v.q[64 * p + 4 * c + k] = byte & 0x0F;
                v.q[64 * p + 32 + 4 * c + k] = byte >> 4;
            }
    }
    write_q4_K(v, block);
}

// Q6_K's layout, the inverse of q6_K_quants (block_formats.h). Each loop runs over l, 32 bytes
// wide.
void write_q6_K(const uint8_t (&q)[QK_K], BlockQ6_K& b) {
    for (int half = 0; half < 2; ++half)
        for (int l = 0; l < 32; ++l) {
            const uint8_t* e = q + 128 * half + l; // e[32 k]: element 128 half + 32 k + l
            b.ql[64 * half + l] = static_cast<uint8_t>((e[0] & 0x0F) | ((e[64] & 0x0F) << 4));
            b.ql[64 * half + 32 + l] = static_cast<uint8_t>((e[32] & 0x0F) | ((e[96] & 0x0F) << 4));
            b.qh[32 * half + l] = static_cast<uint8_t>((e[0] >> 4) | ((e[32] >> 4) << 2) |
                                                       ((e[64] >> 4) << 4) | ((e[96] >> 4) << 6));
        }
}

// A whole group at once. Each row's bytes are first put in the repacked order with byte-wide
// loops: `low` pairs element e's low 4 bits with element e + 128's (the file pairs e with e + 64
// in each half), `high` gathers the top 2 bits of elements t, t + 64, t + 128 and t + 192 (the
// file gathers t + 32 k within a half); then the rows meet their chunks 4 bytes at a time.
void put_q6_K_group(const BlockQ6_K* const (&rows)[kInterleavedRows], InterleavedQ6_K& out) {
    for (int r = 0; r < kInterleavedRows; ++r) {
        const BlockQ6_K& b = *rows[r];
        alignas(64) uint8_t low[QK_K / 2], high[QK_K / 4];
        for (int e = 0; e < 64; ++e) {
            low[e] = static_cast<uint8_t>((b.ql[e] & 0x0F) | ((b.ql[64 + e] & 0x0F) << 4));
            low[64 + e] = static_cast<uint8_t>((b.ql[e] >> 4) | (b.ql[64 + e] & 0xF0));
        }
        for (int l = 0; l < 32; ++l) {
            const uint8_t first = b.qh[l], second = b.qh[32 + l];
            high[l] = static_cast<uint8_t>((first & 3) | (((first >> 4) & 3) << 2) | ((second & 3) << 4) |
                                           (((second >> 4) & 3) << 6));
            high[32 + l] = static_cast<uint8_t>(((first >> 2) & 3) | (((first >> 6) & 3) << 2) |
                                                (((second >> 2) & 3) << 4) | (((second >> 6) & 3) << 6));
        }
        for (int c = 0; c < 32; ++c)
            std::memcpy(out.ql(c) + 4 * r, low + 4 * c, 4);
        for (int u = 0; u < 16; ++u)
            std::memcpy(out.qh(u) + 4 * r, high + 4 * u, 4);
        out.d[r] = b.d;
        for (int j = 0; j < 16; ++j)
            out.scales[j][r] = b.scales[j];
    }
}

void take_q6_K_group(const InterleavedQ6_K& in, BlockQ6_K* const (&rows)[kInterleavedRows]) {
    alignas(64) uint8_t q[kInterleavedRows][QK_K];
    for (int c = 0; c < QK_K / 4; ++c) {
        const uint8_t* low = in.ql(c % 32);
        const uint8_t* high = in.qh(c % 16);
        const int low_shift = c < 32 ? 0 : 4, high_shift = 2 * (c / 16);
        alignas(64) uint8_t six[kInterleavedRows * 4];
        for (int b = 0; b < kInterleavedRows * 4; ++b)
            six[b] =
                static_cast<uint8_t>(((low[b] >> low_shift) & 0x0F) | (((high[b] >> high_shift) & 3) << 4));
        for (int r = 0; r < kInterleavedRows; ++r)
            std::memcpy(q[r] + 4 * c, six + 4 * r, 4);
    }
    for (int r = 0; r < kInterleavedRows; ++r) {
        write_q6_K(q[r], *rows[r]);
        rows[r]->d = in.d[r];
        for (int j = 0; j < 16; ++j)
            rows[r]->scales[j] = in.scales[j][r];
    }
}

void interleave_q6_K(const void* rows, int64_t n_rows, int64_t cols, void* out) {
    const int64_t blocks = cols / QK_K;
    const auto* src = static_cast<const BlockQ6_K*>(rows);
    auto* dst = static_cast<InterleavedQ6_K*>(out);
    for (int64_t g = 0; g < n_rows / kInterleavedRows; ++g)
        for (int64_t i = 0; i < blocks; ++i) {
            const BlockQ6_K* group[kInterleavedRows];
            for (int r = 0; r < kInterleavedRows; ++r)
                group[r] = src + (g * kInterleavedRows + r) * blocks + i;
            put_q6_K_group(group, dst[g * blocks + i]);
        }
}

// Whole groups are split at once; the rows of [row_begin, row_end) are copied out of them.
void unpack_q6_K(const void* packed, int64_t cols, int64_t row_begin, int64_t row_end, void* out) {
    const int64_t blocks = cols / QK_K;
    const auto* src = static_cast<const InterleavedQ6_K*>(packed);
    auto* dst = static_cast<BlockQ6_K*>(out);
    for (int64_t g = row_begin / kInterleavedRows; g * kInterleavedRows < row_end; ++g)
        for (int64_t i = 0; i < blocks; ++i) {
            BlockQ6_K group_rows[kInterleavedRows];
            BlockQ6_K* rows[kInterleavedRows];
            for (int r = 0; r < kInterleavedRows; ++r)
                rows[r] = &group_rows[r];
            take_q6_K_group(src[g * blocks + i], rows);
            for (int r = 0; r < kInterleavedRows; ++r) {
                const int64_t row = g * kInterleavedRows + r;
                if (row >= row_begin && row < row_end) dst[(row - row_begin) * blocks + i] = group_rows[r];
            }
        }
}

template <class Block, class Packed, class Put>
void interleave(const void* rows, int64_t n_rows, int64_t cols, void* out, Put put) {
    const int64_t blocks = cols / QK_K;
    const auto* src = static_cast<const Block*>(rows);
    auto* dst = static_cast<Packed*>(out);
    for (int64_t g = 0; g < n_rows / kInterleavedRows; ++g)
        for (int64_t i = 0; i < blocks; ++i) {
            Packed& packed = dst[g * blocks + i];
            for (int r = 0; r < kInterleavedRows; ++r)
                put(src[(g * kInterleavedRows + r) * blocks + i], r, packed);
        }
}

template <class Block, class Packed, class Take>
void unpack(const void* packed, int64_t cols, int64_t row_begin, int64_t row_end, void* out, Take take) {
    const int64_t blocks = cols / QK_K;
    const auto* src = static_cast<const Packed*>(packed);
    auto* dst = static_cast<Block*>(out);
    for (int64_t row = row_begin; row < row_end; ++row) {
        const int64_t g = row / kInterleavedRows;
        const int r = static_cast<int>(row % kInterleavedRows);
        for (int64_t i = 0; i < blocks; ++i)
            take(src[g * blocks + i], r, dst[(row - row_begin) * blocks + i]);
    }
}

// Q8_0: each row's pair of blocks is copied 4 quants at a time into its lane of each chunk.
void interleave_q8_0(const void* rows, int64_t n_rows, int64_t cols, void* out) {
    const int64_t pairs = cols / InterleavedQ8_0::kColumns;
    const auto* src = static_cast<const BlockQ8_0*>(rows);
    auto* dst = static_cast<InterleavedQ8_0*>(out);
    for (int64_t g = 0; g < n_rows / kInterleavedRows; ++g)
        for (int64_t i = 0; i < pairs; ++i) {
            InterleavedQ8_0& packed = dst[g * pairs + i];
            for (int r = 0; r < kInterleavedRows; ++r)
                for (int j = 0; j < 2; ++j) {
                    const BlockQ8_0& block = src[(g * kInterleavedRows + r) * 2 * pairs + 2 * i + j];
                    packed.d[j][r] = block.d;
                    for (int c = 0; c < QK8_0 / 4; ++c)
                        std::memcpy(&packed.qs[j][c][4 * r], block.qs + 4 * c, 4);
                }
        }
}

void unpack_q8_0(const void* packed, int64_t cols, int64_t row_begin, int64_t row_end, void* out) {
    const int64_t pairs = cols / InterleavedQ8_0::kColumns;
    const auto* src = static_cast<const InterleavedQ8_0*>(packed);
    auto* dst = static_cast<BlockQ8_0*>(out);
    for (int64_t row = row_begin; row < row_end; ++row) {
        const int64_t g = row / kInterleavedRows;
        const int r = static_cast<int>(row % kInterleavedRows);
        for (int64_t i = 0; i < pairs; ++i)
            for (int j = 0; j < 2; ++j) {
                const InterleavedQ8_0& in = src[g * pairs + i];
                BlockQ8_0& block = dst[(row - row_begin) * 2 * pairs + 2 * i + j];
                block.d = in.d[j][r];
                for (int c = 0; c < QK8_0 / 4; ++c)
                    std::memcpy(block.qs + 4 * c, &in.qs[j][c][4 * r], 4);
            }
    }
}

void require_interleaved(TensorType type) {
    if (type != TensorType::Q4_K && type != TensorType::Q6_K && type != TensorType::Q8_0)
        throw std::invalid_argument("interleaved rows: only Q4_K, Q6_K and Q8_0 are repacked");
}

// The columns of one repacked unit (a super-block, or Q8_0's pair of blocks) and its bytes.
int64_t unit_columns(TensorType type) {
    return type == TensorType::Q8_0 ? InterleavedQ8_0::kColumns : QK_K;
}
size_t unit_bytes(TensorType type) {
    switch (type) {
    case TensorType::Q4_K:
        return sizeof(InterleavedQ4_K);
    case TensorType::Q6_K:
        return sizeof(InterleavedQ6_K);
    default:
        return sizeof(InterleavedQ8_0);
    }
}

} // namespace

bool interleaves_rows16(TensorType type, int64_t rows, int64_t cols) {
    return (type == TensorType::Q4_K || type == TensorType::Q6_K || type == TensorType::Q8_0) && rows > 0 &&
           rows % kInterleavedRows == 0 && cols > 0 && cols % unit_columns(type) == 0;
}

RowLayout load_layout(const KernelTable& table, TensorType type, int64_t rows, int64_t cols) {
    return interleaves_rows16(type, rows, cols) && table.of(type).repacks_rows16 ? RowLayout::Interleaved16
                                                                                 : RowLayout::RowMajor;
}

size_t interleaved_group_bytes(TensorType type, int64_t cols) {
    require_interleaved(type);
    return unit_bytes(type) * static_cast<size_t>(cols / unit_columns(type));
}

size_t interleaved_rows16_bytes(TensorType type, int64_t rows, int64_t cols) {
    return interleaved_group_bytes(type, cols) * static_cast<size_t>(rows / kInterleavedRows);
}

void interleave_rows16(TensorType type, const void* rows, int64_t n_rows, int64_t cols, void* out) {
    if (!interleaves_rows16(type, n_rows, cols))
        throw std::invalid_argument(
            "interleave_rows16: not a matrix of whole groups of Q4_K, Q6_K or Q8_0 rows");
    if (type == TensorType::Q4_K)
        interleave<BlockQ4_K, InterleavedQ4_K>(rows, n_rows, cols, out, put_q4_K);
    else if (type == TensorType::Q6_K)
        interleave_q6_K(rows, n_rows, cols, out);
    else
        interleave_q8_0(rows, n_rows, cols, out);
}

void unpack_rows16(TensorType type, const void* packed, int64_t cols, int64_t row_begin, int64_t row_end,
                   void* out) {
    require_interleaved(type);
    if (type == TensorType::Q4_K)
        unpack<BlockQ4_K, InterleavedQ4_K>(packed, cols, row_begin, row_end, out, take_q4_K);
    else if (type == TensorType::Q6_K)
        unpack_q6_K(packed, cols, row_begin, row_end, out);
    else
        unpack_q8_0(packed, cols, row_begin, row_end, out);
}

} // namespace hearth::kernels
