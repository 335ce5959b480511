// Shared by the VNNI tiers: compiled once by x86_avxvnni/gemm_k_quants_avxvnni.cpp and once by
// x86_avx512/gemm_k_quants_avx512.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// Prefill gemm for the K-quants with vpdpbusd: Q2_K to Q6_K weights times Q8_K activations.
//
// A group of weight rows (16 on AVX-512, 8 on AVX-VNNI) is decoded once into a per-thread
// panel that every pass over the activation rows then reads. The quants are kept unsigned, the
// rows interleaved: per sub-block and 4 quants, one vector holds each row's 4 bytes in its own
// dword. vpdpbusd against 4
// activation bytes broadcast then sums each row in its own lane, exactly, with no horizontal
// reduction. Per sub-block the int32 sums are multiplied by the rows' integer scales and
// summed over the super-block, still exact; the offsets (the mins of Q2_K, Q4_K and Q5_K, the
// -4 of Q3_K and the -32 of Q6_K) come from
// the activations' 16-element sums, and the super-block's two float scales apply once.
// The tier's table gives these kernels batches of kMinBatch rows or more (kRepackedPanelsMinBatch
// over repacked rows); smaller ones go to kernels that stream the rows (the AVX2 tier's, or the
// tier's kernel of a few rows over repacked rows).
#pragma once
#include "kernels/block_formats.h"
#include "kernels/interleaved_rows.h"
#include "kernels/x86_avx2/dword_transpose.h"
#include "kernels/x86_avx2/k_quant_chunks.h"
#include "kernels/x86_avx2/low_bit_k_scales.h"
#include "kernels/x86_avx2/row_groups.h"
#include "kernels/x86_vnni_shared/row_vectors.h"
#include "kernels/x86_vnni_shared/vnni_kernels.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

namespace hearth::kernels::HEARTH_VNNI_NS {
namespace {

// The vector a group of weight rows fills, one row per lane: 16 rows in a zmm on AVX-512 (on
// Zen 4 a zmm vpdpbusd costs two 256-bit slots, but it needs half the instructions, broadcasts
// and independent accumulator chains), 8 in a ymm on AVX-VNNI.
#ifdef HEARTH_AVX512
using V = Rows16;
#else
using V = Rows8;
#endif
constexpr int kRows = V::kRows;
constexpr size_t kVecBytes = sizeof(V::Int);

template <class T> const uint8_t* as_bytes(const T* p) {
    return reinterpret_cast<const uint8_t*>(p);
}
inline const uint8_t* activation_bytes(const BlockQ8_K& a, int offset) {
    return reinterpret_cast<const uint8_t*>(a.qs + offset);
}

// Activation rows per pass over a panel: each needs its own accumulators (AVX-512 has 32
// vector registers, AVX-VNNI 16).
#ifdef HEARTH_AVX512
constexpr int kBatchTile = 8;
#else
constexpr int kBatchTile = 4;
#endif
// Below this many activation rows, decoding a panel costs more than it saves.
constexpr int64_t kMinBatch = 16;
// Repacked rows have a kernel for small batches that decodes each group once per few activation
// rows in registers (x86_avx2/interleaved16_gemv.h): panels pay from this many rows. Zen 5,
// Llama 3.2 1B Q4_K_M, 2 threads, prefill t/s rows kernel / panels: AVX-512 pp16 336/83, pp64
// 395/204, pp512 369/337 (no crossover, so prefill's batches of up to 512 keep to the rows);
// AVX-VNNI pp16 125/65, pp64 133/135, pp128 132/165.
#ifdef HEARTH_AVX512
constexpr int64_t kRepackedPanelsMinBatch = 1024;
#else
constexpr int64_t kRepackedPanelsMinBatch = 64;
#endif
// Decoded weights kept at once per thread (a few groups), well inside a 1 MB L2.
constexpr size_t kPanelSetBytes = 384 * 1024;

// One super-block of a panel's 8 rows: the rows' integer scales per sub-block, the pairs of
// integers its offset term multiplies with the activations' sums, and the float scales.
template <int SubBlocks, int OffsetPairs> struct alignas(kVecBytes) PanelHeader {
    int32_t scales[SubBlocks][kRows];         // sub-block j: row r's scale in lane r
    int32_t offset_pairs[OffsetPairs][kRows]; // pair p: row r's two int16 offset factors
    float d[kRows];                           // scale of the scaled sums
    float offset_d[kRows];                    // scale of the offset term, which is subtracted
};

// 4 quants of each of the group's rows.
struct alignas(kVecBytes) RowQuads {
    uint8_t bytes[4 * kRows];
};

// Two int16 factors in one dword, as V::dot_words multiplies them with two activation sums.
inline int32_t int16_pair(int low, int high) {
    return static_cast<int32_t>(static_cast<uint16_t>(low) |
                                (static_cast<uint32_t>(static_cast<uint16_t>(high)) << 16));
}

// Q4_K: 8 sub-blocks of 32, unsigned 4-bit quants, 6-bit scales and mins:
//   row . a = d * sum_j scale_j * (q_j . a_j) - dmin * sum_j min_j * sum(a_j).
// The offset pairs are the mins of sub-blocks (2p, 2p + 1), against the activations'
// 32-element sums.
struct Q4KFormat {
    using Block = BlockQ4_K;
    static constexpr int kSubBlocks = 8, kOffsetPairs = 4;
    using Header = PanelHeader<kSubBlocks, kOffsetPairs>;

    // Q4_K's 6-bit scale and min of sub-block j (the format packs 8 of each into 12 bytes).
    static void scale_min(const uint8_t* packed, int j, int& scale, int& min) {
        if (j < 4) {
            scale = packed[j] & 63;
            min = packed[j + 4] & 63;
        } else {
            scale = (packed[j + 4] & 0x0F) | ((packed[j - 4] >> 6) << 4);
            min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
        }
    }
    // Q4_K's header, or Q5_K's: the same fields.
    template <class SameHeaderBlock> static void header_row(const SameHeaderBlock& b, int r, Header& h) {
        h.d[r] = fp16_to_float(b.d);
        h.offset_d[r] = fp16_to_float(b.dmin);
        int mins[kSubBlocks];
        for (int j = 0; j < kSubBlocks; ++j)
            scale_min(b.scales, j, h.scales[j][r], mins[j]);
        for (int p = 0; p < kOffsetPairs; ++p)
            h.offset_pairs[p][r] = int16_pair(mins[2 * p], mins[2 * p + 1]);
    }
    static void quants(const Block& b, uint8_t (&q)[QK_K]) { q4_K_quants(b, q); }
    // dword p: the sums of the activations' sub-blocks 2p and 2p + 1 (int16 each).
    static void offset_sums(const BlockQ8_K& a, int32_t (&sums)[kOffsetPairs]) {
        const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.bsums));
        const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.bsums + 8));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(sums), _mm_hadd_epi16(low, high));
    }
};

inline __m256i load_bytes(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void store_chunk(uint8_t* q, int c, __m256i quants) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + 32 * c), quants);
}

// The formats of 16 sub-blocks of 16 (Q2_K, Q3_K, Q6_K): their offset factors meet Q8_K's own
// 16-element sums, pair p being those of sub-blocks 2p and 2p + 1.
struct SixteenSubBlocks {
    static constexpr int kSubBlocks = 16, kOffsetPairs = 8;
    using Header = PanelHeader<kSubBlocks, kOffsetPairs>;

    template <class Int>
    static void set_row(Header& h, int r, float d, float offset_d, const Int* scales, const Int* offsets) {
        h.d[r] = d;
        h.offset_d[r] = offset_d;
        for (int k = 0; k < kSubBlocks; ++k)
            h.scales[k][r] = scales[k];
        for (int p = 0; p < kOffsetPairs; ++p)
            h.offset_pairs[p][r] = int16_pair(offsets[2 * p], offsets[2 * p + 1]);
    }
    static void offset_sums(const BlockQ8_K& a, int32_t (&sums)[kOffsetPairs]) {
        std::memcpy(sums, a.bsums, sizeof sums);
    }
};

// Q6_K: 6-bit quants stored unsigned (q - 32 is the value), int8 scales:
//   row . a = d * sum_k scale_k * (q_k . a_k) - 32 d * sum_k scale_k * sum(a_k).
struct Q6KFormat : SixteenSubBlocks {
    using Block = BlockQ6_K;
    static void header_row(const Block& b, int r, Header& h) {
        const float d = fp16_to_float(b.d);
        set_row(h, r, d, 32 * d, b.scales, b.scales);
    }
    static void quants(const Block& b, uint8_t (&q)[QK_K]) { q6_K_quants(b, q); }
};

// Q2_K: unsigned 2-bit quants, 4-bit scales and mins:
//   row . a = d * sum_k scale_k * (q_k . a_k) - dmin * sum_k min_k * sum(a_k).
struct Q2KFormat : SixteenSubBlocks {
    using Block = BlockQ2_K;
    static void header_row(const Block& b, int r, Header& h) {
        const Q2KScales unpacked = q2k_scales(b.scales);
        alignas(32) int16_t scales[kSubBlocks], mins[kSubBlocks];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scales), unpacked.scales);
        _mm256_store_si256(reinterpret_cast<__m256i*>(mins), unpacked.mins);
        set_row(h, r, fp16_to_float(b.d), fp16_to_float(b.dmin), scales, mins);
    }
    static void quants(const Block& b, uint8_t (&q)[QK_K]) {
        const __m256i halves[2] = {load_bytes(b.qs), load_bytes(b.qs + 32)};
        for (int c = 0; c < 8; ++c)
            store_chunk(q, c, two_bit_chunk(halves[c / 4], c));
    }
};

// Q3_K: 3-bit quants stored as 0..7 (q - 4 is the value), signed six-bit scales:
//   row . a = d * sum_k scale_k * (q_k . a_k) - 4 d * sum_k scale_k * sum(a_k).
struct Q3KFormat : SixteenSubBlocks {
    using Block = BlockQ3_K;
    static void header_row(const Block& b, int r, Header& h) {
        alignas(32) int16_t scales[kSubBlocks];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scales), q3k_scales(b.scales));
        const float d = fp16_to_float(b.d);
        set_row(h, r, d, 4 * d, scales, scales);
    }
    static void quants(const Block& b, uint8_t (&q)[QK_K]) {
        const __m256i halves[2] = {load_bytes(b.qs), load_bytes(b.qs + 32)};
        const __m256i high_bits = load_bytes(b.hmask);
        for (int c = 0; c < 8; ++c)
            store_chunk(q, c, q3k_chunk(halves[c / 4], high_bits, c));
    }
};

// Q5_K: Q4_K's sub-blocks, scales and mins, with 5-bit quants (0..31).
struct Q5KFormat : Q4KFormat {
    using Block = BlockQ5_K;
    static void quants(const Block& b, uint8_t (&q)[QK_K]) {
        const __m256i high_bits = load_bytes(b.qh);
        for (int j = 0; j < 4; ++j) {
            const QuantPair pair = q5k_quant_pair(b.qs, high_bits, j);
            store_chunk(q, 2 * j, pair.low);
            store_chunk(q, 2 * j + 1, pair.high);
        }
    }
};

template <class Format> struct Panel {
    std::vector<RowQuads> quants; // (block, sub-block, chunk c): rows' quants 4c..4c+3 of it
    std::vector<typename Format::Header> headers;
};

// Decodes a group of 8 rows (rows[r] = row r's first block) into the panel.
template <class Format>
void decode_group(int64_t blocks, const typename Format::Block* const (&rows)[kRows], Panel<Format>& panel) {
    if (panel.headers.size() < static_cast<size_t>(blocks)) { // once per thread and width
        panel.headers.resize(static_cast<size_t>(blocks));
        panel.quants.resize(static_cast<size_t>(blocks) * QK_K / 4);
    }
    for (int64_t i = 0; i < blocks; ++i) {
        auto& header = panel.headers[static_cast<size_t>(i)];
        alignas(32) uint8_t q[kRows][QK_K];
        for (int r = 0; r < kRows; ++r) {
            Format::header_row(rows[r][i], r, header);
            Format::quants(rows[r][i], q[r]);
        }
        // Each row's quants 4 at a time (one dword), 8 dwords and 8 rows per transpose, so that
        // row r lands in lane r of its chunk's vector.
        RowQuads* out = panel.quants.data() + static_cast<size_t>(i) * QK_K / 4;
        for (int part = 0; part < QK_K / 32; ++part)
            for (int eight = 0; eight < kRows / 8; ++eight) {
                __m256i by_row[8], by_chunk[8];
                for (int r = 0; r < 8; ++r)
                    by_row[r] =
                        _mm256_load_si256(reinterpret_cast<const __m256i*>(q[8 * eight + r] + 32 * part));
                transpose_8x8_dwords(by_row, by_chunk);
                for (int c = 0; c < 8; ++c)
                    _mm256_store_si256(reinterpret_cast<__m256i*>(out[8 * part + c].bytes + 32 * eight),
                                       by_chunk[c]);
            }
    }
}

// Decodes rows [first, first + kRows) of a Q4_K matrix repacked in groups of 16
// (interleaved_rows.h) into the panel: the layout already has 4 quants of each row per dword,
// rows side by side, so a panel vector is one half of a nibble vector (AVX-VNNI's 8 rows) or
// all of it (AVX-512's 16).
void decode_interleaved_group(int64_t blocks, const InterleavedQ4_K* group, int first_in_group,
                              Panel<Q4KFormat>& panel) {
    if (panel.headers.size() < static_cast<size_t>(blocks)) {
        panel.headers.resize(static_cast<size_t>(blocks));
        panel.quants.resize(static_cast<size_t>(blocks) * QK_K / 4);
    }
    for (int64_t i = 0; i < blocks; ++i) {
        const InterleavedQ4_K& b = group[i];
        auto& header = panel.headers[static_cast<size_t>(i)];
        for (int r = 0; r < kRows; ++r) {
            const int row = first_in_group + r;
            header.d[r] = fp16_to_float(b.d[row]);
            header.offset_d[r] = fp16_to_float(b.dmin[row]);
            for (int j = 0; j < 8; ++j)
                header.scales[j][r] = interleaved_scale(b, j, row);
            for (int p = 0; p < 4; ++p)
                header.offset_pairs[p][r] =
                    int16_pair(interleaved_min(b, 2 * p, row), interleaved_min(b, 2 * p + 1, row));
        }
        RowQuads* out = panel.quants.data() + static_cast<size_t>(i) * QK_K / 4;
        for (int p = 0; p < 4; ++p)
            for (int c = 0; c < 8; ++c) {
                const uint8_t* q = b.qs[p][c] + 4 * first_in_group;
                uint8_t* low = out[8 * (2 * p) + c].bytes;
                uint8_t* high = out[8 * (2 * p + 1) + c].bytes;
                for (int k = 0; k < 4 * kRows; ++k) {
                    low[k] = q[k] & 0x0F;
                    high[k] = q[k] >> 4;
                }
            }
    }
}

// out[b * y_stride + r] for RN activation rows (a[b] = row b's first block) over one group.
template <class Format, int RN>
void panel_times_activations(int64_t blocks, const Panel<Format>& panel, const BlockQ8_K* const (&a)[RN],
                             float* out, int64_t y_stride, int valid_rows) {
    constexpr int kSubBlocks = Format::kSubBlocks, kOffsetPairs = Format::kOffsetPairs;
    constexpr int kChunks = QK_K / kSubBlocks / 4; // 4-quant chunks per sub-block
    V::Float acc[RN];
    for (int b = 0; b < RN; ++b)
        acc[b] = V::zero();
    for (int64_t i = 0; i < blocks; ++i) {
        const auto& h = panel.headers[static_cast<size_t>(i)];
        const RowQuads* quants = panel.quants.data() + static_cast<size_t>(i) * QK_K / 4;
        V::Int scaled[RN];
        for (int b = 0; b < RN; ++b)
            scaled[b] = V::zero_int();
        for (int j = 0; j < kSubBlocks; ++j) {
            V::Int dot[RN];
            for (int b = 0; b < RN; ++b)
                dot[b] = V::zero_int();
#pragma GCC unroll 8
            for (int c = 0; c < kChunks; ++c) {
                const V::Int w = V::load_int(quants[j * kChunks + c].bytes);
#pragma GCC unroll 8
                for (int b = 0; b < RN; ++b)
                    dot[b] =
                        V::dot(dot[b], w, V::broadcast_int(activation_bytes(a[b][i], 4 * (j * kChunks + c))));
            }
            const V::Int scale = V::load_int(as_bytes(h.scales[j]));
            for (int b = 0; b < RN; ++b)
                scaled[b] = V::add(scaled[b], V::mul_int(dot[b], scale));
        }
        const V::Float d = V::load_float(as_bytes(h.d)), offset_d = V::load_float(as_bytes(h.offset_d));
        for (int b = 0; b < RN; ++b) {
            int32_t sums[kOffsetPairs];
            Format::offset_sums(a[b][i], sums);
            V::Int offset = V::zero_int();
#pragma GCC unroll 8
            for (int p = 0; p < kOffsetPairs; ++p)
                offset = V::dot_words(offset, V::load_int(as_bytes(h.offset_pairs[p])),
                                      V::broadcast_int(as_bytes(&sums[p])));
            const V::Float da = V::broadcast_float(as_bytes(&a[b][i].d));
            acc[b] = V::fmadd(V::to_float(scaled[b]), V::mul(d, da), acc[b]);
            acc[b] = V::fnmadd(V::to_float(offset), V::mul(offset_d, da), acc[b]);
        }
    }
    for (int b = 0; b < RN; ++b)
        V::store(out + b * y_stride, acc[b], valid_rows);
}

template <class Format, int RN>
void pass(int64_t blocks, const Panel<Format>& panel, const char* a, size_t a_stride, float* y,
          int64_t y_stride, int valid_rows) {
    const BlockQ8_K* rows[RN];
    for (int b = 0; b < RN; ++b)
        rows[b] = reinterpret_cast<const BlockQ8_K*>(a + b * a_stride);
    panel_times_activations<Format, RN>(blocks, panel, rows, y, y_stride, valid_rows);
}

template <class Format>
using PassFn = void (*)(int64_t, const Panel<Format>&, const char*, size_t, float*, int64_t, int);
// passes[k]: a pass over k + 1 activation rows (the last pass of a batch may be short).
template <class Format, int... RN>
constexpr std::array<PassFn<Format>, sizeof...(RN)> make_passes(std::integer_sequence<int, RN...>) {
    return {pass<Format, RN + 1>...};
}

// Rows [row_begin, row_end) times the batch; decode(r, valid_rows, panel) fills a panel with
// rows [r, r + valid_rows) from wherever the weights are.
template <class Format, class DecodeGroup>
void gemm_panels(int64_t n, int64_t row_begin, int64_t row_end, const void* activations,
                 size_t activation_row_bytes, int64_t batch, float* y, int64_t y_stride, DecodeGroup decode) {
    static constexpr auto passes = make_passes<Format>(std::make_integer_sequence<int, kBatchTile>{});
    const char* a = static_cast<const char*>(activations);
    const int64_t blocks = n / QK_K;
    // Several groups are decoded before the activations stream past them, so that each tile of
    // activation rows is read from memory once per panel set rather than once per group; the
    // set is sized to stay in L2 beside the tile.
    const size_t group_bytes = static_cast<size_t>(blocks) * (QK_K * kRows + sizeof(typename Format::Header));
    const int64_t groups_per_set = std::max<int64_t>(1, static_cast<int64_t>(kPanelSetBytes / group_bytes));
    thread_local std::vector<Panel<Format>> panels;
    if (panels.size() < static_cast<size_t>(groups_per_set))
        panels.resize(static_cast<size_t>(groups_per_set));
    for (int64_t set_begin = row_begin; set_begin < row_end; set_begin += groups_per_set * kRows) {
        const int64_t set_end = std::min(row_end, set_begin + groups_per_set * kRows);
        for (int64_t r = set_begin, g = 0; r < set_end; r += kRows, ++g)
            decode(r, static_cast<int>(std::min<int64_t>(kRows, set_end - r)),
                   panels[static_cast<size_t>(g)]);
        for (int64_t b = 0; b < batch; b += kBatchTile) {
            const int tile = static_cast<int>(std::min<int64_t>(kBatchTile, batch - b));
            for (int64_t r = set_begin, g = 0; r < set_end; r += kRows, ++g)
                passes[tile - 1](blocks, panels[static_cast<size_t>(g)], a + b * activation_row_bytes,
                                 activation_row_bytes, y + b * y_stride + r, y_stride,
                                 static_cast<int>(std::min<int64_t>(kRows, set_end - r)));
        }
    }
}

template <class Format>
void gemm(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
          const void* activations, size_t activation_row_bytes, int64_t batch, float* y, int64_t y_stride) {
    const char* w = static_cast<const char*>(weights);
    const int64_t blocks = n / QK_K;
    gemm_panels<Format>(n, row_begin, row_end, activations, activation_row_bytes, batch, y, y_stride,
                        [&](int64_t r, int valid_rows, Panel<Format>& panel) {
                            const typename Format::Block* rows[kRows];
                            group_rows(w, weight_row_bytes, r, valid_rows, rows);
                            decode_group(blocks, rows, panel);
                        });
}

// Decodes rows [first, first + kRows) of a Q6_K matrix repacked in groups of 16 into the
// panel: chunk e (4 quants of each row) is the low or high nibble of ql(e % 32) with bits
// 2 (e / 16) of qh(e % 16) on top (interleaved_rows.h).
void decode_interleaved_group(int64_t blocks, const InterleavedQ6_K* group, int first_in_group,
                              Panel<Q6KFormat>& panel) {
    if (panel.headers.size() < static_cast<size_t>(blocks)) {
        panel.headers.resize(static_cast<size_t>(blocks));
        panel.quants.resize(static_cast<size_t>(blocks) * QK_K / 4);
    }
    for (int64_t i = 0; i < blocks; ++i) {
        const InterleavedQ6_K& b = group[i];
        auto& header = panel.headers[static_cast<size_t>(i)];
        for (int r = 0; r < kRows; ++r) {
            const int row = first_in_group + r;
            header.d[r] = fp16_to_float(b.d[row]);
            header.offset_d[r] = 32 * header.d[r];
            for (int j = 0; j < Q6KFormat::kSubBlocks; ++j)
                header.scales[j][r] = b.scales[j][row];
            for (int p = 0; p < Q6KFormat::kOffsetPairs; ++p)
                header.offset_pairs[p][r] = int16_pair(b.scales[2 * p][row], b.scales[2 * p + 1][row]);
        }
        RowQuads* out = panel.quants.data() + static_cast<size_t>(i) * QK_K / 4;
        const __m256i nibble = _mm256_set1_epi8(0x0F), two_bits = _mm256_set1_epi8(0x03);
        for (int e = 0; e < QK_K / 4; ++e) {
            const __m128i low_shift = _mm_cvtsi32_si128(e < 32 ? 0 : 4);
            const __m128i high_shift = _mm_cvtsi32_si128(2 * (e / 16));
            for (int half = 0; half < 4 * kRows; half += 32) { // 8 rows per 256-bit step
                const __m256i low = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(b.ql(e % 32) + 4 * first_in_group + half));
                const __m256i high = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(b.qh(e % 16) + 4 * first_in_group + half));
                const __m256i top = _mm256_and_si256(_mm256_srl_epi16(high, high_shift), two_bits);
                const __m256i q = _mm256_or_si256(_mm256_and_si256(_mm256_srl_epi16(low, low_shift), nibble),
                                                  _mm256_slli_epi16(top, 4));
                _mm256_store_si256(reinterpret_cast<__m256i*>(out[e].bytes + half), q);
            }
        }
    }
}

// Q4_K or Q6_K repacked in groups of 16 rows (interleaved_rows.h): rows are whole groups here.
template <class Format, class Packed>
void gemm_interleaved16(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                        const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                        int64_t y_stride) {
    const auto* groups = static_cast<const Packed*>(packed);
    const int64_t blocks = n / QK_K;
    gemm_panels<Format>(n, row_begin, row_end, activations, activation_row_bytes, batch, y, y_stride,
                        [&](int64_t r, int, Panel<Format>& panel) {
                            decode_interleaved_group(blocks, groups + (r / kInterleavedRows) * blocks,
                                                     static_cast<int>(r % kInterleavedRows), panel);
                        });
}

Candidate<GemmFn> panels(std::string_view name, GemmFn fn, RowLayout layout) {
    return matmul_kernel(
        name, kVnniBackend, fn, TensorType::Q8_K,
        {.min_batch = layout == RowLayout::Interleaved16 ? kRepackedPanelsMinBatch : kMinBatch,
         .layout = layout});
}

// Q4_K and Q6_K, whose rows may be repacked: below kRepackedPanelsMinBatch, repacked rows go
// through the tier's decode kernel over them (add_interleaved16_kernels, which comes first),
// which decodes each group once per few activation rows.
void add_repacked(KernelTable& table, TensorType type, Candidate<GemmFn> row_major,
                  Candidate<GemmFn> repacked) {
    Candidates<GemmFn>& list = table.of(type).matmul;
    Candidate<GemmFn> few_rows =
        *list.pick({.batch = 1, .rows = kInterleavedRows, .layout = RowLayout::Interleaved16});
    few_rows.guard.max_batch = kRepackedPanelsMinBatch - 1;
    list.put_first({few_rows, repacked, row_major});
}

} // namespace

void add_k_quant_kernels(KernelTable& table) {
    constexpr RowLayout kRows = RowLayout::RowMajor, kRepacked = RowLayout::Interleaved16;
    table.of(TensorType::Q2_K).matmul.put_first({panels("gemm_q2_K_q8_K_panels", gemm<Q2KFormat>, kRows)});
    table.of(TensorType::Q3_K).matmul.put_first({panels("gemm_q3_K_q8_K_panels", gemm<Q3KFormat>, kRows)});
    table.of(TensorType::Q5_K).matmul.put_first({panels("gemm_q5_K_q8_K_panels", gemm<Q5KFormat>, kRows)});
    // Every Q4_K matrix in the file's order: not the AVX2 tier's order of llama.cpp's repacked
    // rows for matrices of 8k rows, below kMinBatch either.
    table.of(TensorType::Q4_K).matmul.remove("gemm_q4_K_q8_K_groups_of_8");
    add_repacked(table, TensorType::Q4_K, panels("gemm_q4_K_q8_K_panels", gemm<Q4KFormat>, kRows),
                 panels("gemm_q4_K_q8_K_interleaved16_panels", gemm_interleaved16<Q4KFormat, InterleavedQ4_K>,
                        kRepacked));
    add_repacked(table, TensorType::Q6_K, panels("gemm_q6_K_q8_K_panels", gemm<Q6KFormat>, kRows),
                 panels("gemm_q6_K_q8_K_interleaved16_panels", gemm_interleaved16<Q6KFormat, InterleavedQ6_K>,
                        kRepacked));
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
