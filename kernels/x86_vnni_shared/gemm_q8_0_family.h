// Shared by the VNNI tiers: compiled once by x86_avxvnni/gemm_q8_0_family_avxvnni.cpp and once by
// x86_avx512/gemm_q8_0_family_avx512.cpp, each of which names its tier's namespace (HEARTH_VNNI_NS).
// Prefill gemm of the 32-element formats (Q8_0, Q4_0, Q5_0, Q4_1, Q5_1) with vpdpbusd.
//
// A tile of weight rows (8 per ymm, 16 per zmm) is decoded once into a per-thread panel of
// signed quants q (Q4_0: nibble - 8, Q5_0: value - 16, Q4_1/Q5_1: 0..31), the rows interleaved
// 4 bytes at a time: dword lane r of a panel vector holds 4 consecutive quants of row r.
// vpdpbusd of a broadcast of 4 activation bytes with that vector puts each row's partial dot in
// its own lane, so the output needs no horizontal sums: a tile's float accumulator for one
// activation row is the outputs of its weight rows, stored as is.
//
// vpdpbusd wants one unsigned operand: the activations are biased to x + 128 (x xor 0x80) and
// each block's integer sum starts from -128 * sum(q), which the panel holds per (row, block).
// That keeps the per-call work on the activations to a copy (quants biased, scale widened, laid
// out tile by tile so that the kernel reads them through one pointer); the weights' sums are
// paid once per tile of rows, for the whole batch. Per block and (weight rows, activation row)
// pair: 8 vpdpbusd, then convert, scale by dx and add times the rows' scales (Q4_1 and Q5_1
// add m * dx * sum(x) too): exact integer dots, two float roundings and an FMA. The FMA and the
// multiply share the two pipes vpdpbusd uses on Zen 4, which bounds the tile below the int8 peak.
#pragma once
#include "kernels/decode_prefetch.h"
#include "kernels/interleaved_rows.h"
#include "kernels/x86_vnni_shared/q8_0_family.h"
#include "kernels/x86_vnni_shared/row_vectors.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace hearth::kernels::HEARTH_VNNI_NS {
namespace q8_0_family {
namespace {

// Activation rows per tile: the tile's integer sums and float accumulators (2 registers per
// activation row) and a few operands fill the register file, 32 with AVX-512, 16 without.
#ifdef HEARTH_AVX512
constexpr int kBatchTile = 12;
#else
constexpr int kBatchTile = 6;
#endif

// ---- The activations, prepared once per call.

// Per (activation row, block): 32 biased quants, the scale as a float and, with a minimum,
// dx * sum(x) for the block's m term.
constexpr size_t kPreparedQuantBytes = 32;
template <class Format>
constexpr size_t kPreparedBytes = kPreparedQuantBytes + sizeof(float) * (Format::kHasMin ? 2 : 1);

// The sum of 32 signed bytes, from their biased copy (x + 128 as unsigned bytes).
inline int32_t sum_from_biased(__m256i biased) {
    const __m256i sums = _mm256_sad_epu8(biased, _mm256_setzero_si256());
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
    return _mm_cvtsi128_si32(s) - 32 * 128;
}

// Activation rows [b0, b0 + width) are one tile; per block i it holds width x 32 biased quants,
// then width scales (then width dx * sum(x)), at tile + i * width * kPreparedBytes, the tile
// starting at b0 * blocks * kPreparedBytes.
template <class Format>
void prepare_activations(const char* a, size_t a_stride, int64_t batch, int64_t blocks, uint8_t* out) {
    constexpr size_t kEntry = kPreparedBytes<Format>;
    const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80));
    for (int64_t b0 = 0; b0 < batch; b0 += kBatchTile) {
        const int width = static_cast<int>(std::min<int64_t>(kBatchTile, batch - b0));
        uint8_t* tile = out + static_cast<size_t>(b0 * blocks) * kEntry;
        for (int64_t i = 0; i < blocks; ++i) {
            uint8_t* quants = tile + static_cast<size_t>(i * width) * kEntry;
            uint8_t* scales = quants + static_cast<size_t>(width) * kPreparedQuantBytes;
            uint8_t* sums = scales + static_cast<size_t>(width) * sizeof(float);
            for (int j = 0; j < width; ++j) {
                const BlockQ8_0& block = reinterpret_cast<const BlockQ8_0*>(a + (b0 + j) * a_stride)[i];
                const __m256i biased = _mm256_xor_si256(load_bytes(block.qs), bias);
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(quants + j * kPreparedQuantBytes), biased);
                const float dx = fp16_to_float(block.d);
                std::memcpy(scales + j * sizeof(float), &dx, sizeof dx);
                if constexpr (Format::kHasMin) {
                    const float scaled_sum = dx * static_cast<float>(sum_from_biased(biased));
                    std::memcpy(sums + j * sizeof(float), &scaled_sum, sizeof scaled_sum);
                }
            }
        }
    }
}

// ---- The weight panel.

// Per block: 8 groups of kRows x 4 quants, the kRows scales as floats, the kRows int32 terms
// -128 * sum(q) and, with a minimum, the kRows minima.
template <class V> constexpr size_t kPanelScales = 32 * V::kRows;
template <class V> constexpr size_t kPanelBiasTerms = 36 * V::kRows;
template <class V> constexpr size_t kPanelMinima = 40 * V::kRows;
template <class V, class Format> constexpr size_t kPanelBlockBytes = (Format::kHasMin ? 44 : 40) * V::kRows;

// v[r] = dwords 0..7 of row r -> v[g] = dword g of rows 0..7.
inline void transpose_dwords(__m256i (&v)[8]) {
    const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]); // r0d0 r1d0 r0d1 r1d1 | d4 d5
    const __m256i t1 = _mm256_unpackhi_epi32(v[0], v[1]); // r0d2 r1d2 r0d3 r1d3 | d6 d7
    const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]);
    const __m256i t3 = _mm256_unpackhi_epi32(v[2], v[3]);
    const __m256i t4 = _mm256_unpacklo_epi32(v[4], v[5]);
    const __m256i t5 = _mm256_unpackhi_epi32(v[4], v[5]);
    const __m256i t6 = _mm256_unpacklo_epi32(v[6], v[7]);
    const __m256i t7 = _mm256_unpackhi_epi32(v[6], v[7]);
    const __m256i s0 = _mm256_unpacklo_epi64(t0, t2); // rows 0-3 of d0 | d4
    const __m256i s1 = _mm256_unpackhi_epi64(t0, t2); // d1 | d5
    const __m256i s2 = _mm256_unpacklo_epi64(t1, t3); // d2 | d6
    const __m256i s3 = _mm256_unpackhi_epi64(t1, t3); // d3 | d7
    const __m256i s4 = _mm256_unpacklo_epi64(t4, t6); // rows 4-7
    const __m256i s5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i s6 = _mm256_unpacklo_epi64(t5, t7);
    const __m256i s7 = _mm256_unpackhi_epi64(t5, t7);
    v[0] = _mm256_permute2x128_si256(s0, s4, 0x20);
    v[1] = _mm256_permute2x128_si256(s1, s5, 0x20);
    v[2] = _mm256_permute2x128_si256(s2, s6, 0x20);
    v[3] = _mm256_permute2x128_si256(s3, s7, 0x20);
    v[4] = _mm256_permute2x128_si256(s0, s4, 0x31);
    v[5] = _mm256_permute2x128_si256(s1, s5, 0x31);
    v[6] = _mm256_permute2x128_si256(s2, s6, 0x31);
    v[7] = _mm256_permute2x128_si256(s3, s7, 0x31);
}

// Decodes weight rows [0, rows) (rows <= V::kRows) into the panel; the lanes of missing rows
// get zero quants and scales.
template <class V, class Format>
void decode_panel(const char* w, size_t w_stride, int rows, int64_t blocks, uint8_t* panel) {
    using Block = typename Format::Block;
    constexpr size_t kBlockBytes = kPanelBlockBytes<V, Format>;
    for (int row_group = 0; row_group < V::kRows / 8; ++row_group) {
        const int present = std::clamp(rows - 8 * row_group, 0, 8);
        const Block* row[8] = {};
        for (int r = 0; r < present; ++r)
            row[r] = reinterpret_cast<const Block*>(w + (8 * row_group + r) * w_stride);
        for (int64_t i = 0; i < blocks; ++i) {
            __m256i q[8];
            alignas(16) uint16_t scales[8] = {}, minima[8] = {};
#pragma GCC unroll 8
            for (int r = 0; r < 8; ++r) {
                if (r < present) {
                    q[r] = _mm256_sub_epi8(Format::unsigned_quants(row[r][i]),
                                           _mm256_set1_epi8(static_cast<char>(Format::kOffset)));
                    scales[r] = row[r][i].d;
                    if constexpr (Format::kHasMin) minima[r] = row[r][i].m;
                } else {
                    q[r] = _mm256_setzero_si256();
                }
            }
            transpose_dwords(q);
            uint8_t* out = panel + static_cast<size_t>(i) * kBlockBytes + 32 * row_group;
            __m256i bias_sum = _mm256_setzero_si256(); // 128 * sum(q) of each row
#pragma GCC unroll 8
            for (int g = 0; g < 8; ++g) {
                _mm256_store_si256(reinterpret_cast<__m256i*>(out + g * 4 * V::kRows), q[g]);
                bias_sum = dpbusd(bias_sum, _mm256_set1_epi8(static_cast<char>(0x80)), q[g]);
            }
            const auto widen = [](const uint16_t* halves) {
                return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(halves)));
            };
            _mm256_store_ps(reinterpret_cast<float*>(out + kPanelScales<V>), widen(scales));
            _mm256_store_si256(reinterpret_cast<__m256i*>(out + kPanelBiasTerms<V>),
                               _mm256_sub_epi32(_mm256_setzero_si256(), bias_sum));
            if constexpr (Format::kHasMin)
                _mm256_store_ps(reinterpret_cast<float*>(out + kPanelMinima<V>), widen(minima));
        }
    }
}

// ---- The register tile: V::kRows weight rows x B activation rows.

template <class V, class Format, int B> struct Tile {
    // `x` is the activation tile's prepared blocks; y[b * y_stride + r] for r < rows, b < B.
    static void run(const uint8_t* panel, int64_t blocks, const uint8_t* x, float* y, int64_t y_stride,
                    int rows) {
        constexpr size_t kScales = B * kPreparedQuantBytes, kSums = kScales + B * sizeof(float);
        typename V::Float acc[B];
#pragma GCC unroll 16
        for (int b = 0; b < B; ++b)
            acc[b] = V::zero();
        for (int64_t i = 0; i < blocks; ++i) {
            typename V::Int sum[B];
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                sum[b] = V::load_int(panel + kPanelBiasTerms<V>);
#pragma GCC unroll 8
            for (int g = 0; g < 8; ++g) {
                const typename V::Int q = V::load_int(panel + g * 4 * V::kRows);
#pragma GCC unroll 16
                for (int b = 0; b < B; ++b)
                    sum[b] = V::dot(sum[b], V::broadcast_int(x + b * kPreparedQuantBytes + 4 * g), q);
            }
            const typename V::Float scale = V::load_float(panel + kPanelScales<V>);
#pragma GCC unroll 16
            for (int b = 0; b < B; ++b)
                acc[b] = V::fmadd(V::mul(V::to_float(sum[b]), V::broadcast_float(x + kScales + 4 * b)), scale,
                                  acc[b]);
            if constexpr (Format::kHasMin) {
                const typename V::Float minimum = V::load_float(panel + kPanelMinima<V>);
#pragma GCC unroll 16
                for (int b = 0; b < B; ++b)
                    acc[b] = V::fmadd(minimum, V::broadcast_float(x + kSums + 4 * b), acc[b]);
            }
            panel += kPanelBlockBytes<V, Format>;
            x += B * kPreparedBytes<Format>;
        }
#pragma GCC unroll 16
        for (int b = 0; b < B; ++b)
            V::store(y + b * y_stride, acc[b], rows);
    }
};

// Per-thread scratch, grown to the largest call and kept: no allocation per token.
struct alignas(64) CacheLine {
    uint8_t bytes[64];
};
// Activation rows per pass of decode's kernel over the weight rows (one in decode, a verify
// pass's few in a batch).
#ifdef HEARTH_AVX512
constexpr int kDecodeRowsPerPass = 8;
#else
constexpr int kDecodeRowsPerPass = 4;
#endif

struct Scratch {
    std::vector<uint8_t> activations;
    std::vector<CacheLine> panel;
    // The decode kernel's per-block terms of each activation row of a pass, for wide rows.
    std::array<std::vector<float>, kDecodeRowsPerPass> decode_terms;
};
Scratch& thread_scratch() {
    thread_local Scratch scratch;
    return scratch;
}

// Q8_0 rows repacked in groups of 16 (interleaved_rows.h) into the panel: the groups already
// hold 4 quants of each row side by side, so the panel's vectors are copies of theirs, and the
// panel is bit for bit decode_panel's of the same rows. `first_row` (0 or 8) picks the half of
// the group an 8-row panel takes.
template <class V>
void decode_interleaved_panel(const InterleavedQ8_0* group, int first_row, int64_t blocks, uint8_t* panel) {
    constexpr size_t kBlockBytes = kPanelBlockBytes<V, Q8_0Format>;
    for (int64_t i = 0; i < blocks; ++i) {
        const InterleavedQ8_0& pair = group[i / 2];
        const int j = static_cast<int>(i % 2);
        for (int row_group = 0; row_group < V::kRows / 8; ++row_group) {
            const int row = first_row + 8 * row_group;
            uint8_t* out = panel + static_cast<size_t>(i) * kBlockBytes + 32 * row_group;
            __m256i bias_sum = _mm256_setzero_si256();
#pragma GCC unroll 8
            for (int g = 0; g < 8; ++g) {
                const __m256i q = load_bytes(&pair.qs[j][g][4 * row]);
                _mm256_store_si256(reinterpret_cast<__m256i*>(out + g * 4 * V::kRows), q);
                bias_sum = dpbusd(bias_sum, _mm256_set1_epi8(static_cast<char>(0x80)), q);
            }
            _mm256_store_ps(
                reinterpret_cast<float*>(out + kPanelScales<V>),
                _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&pair.d[j][row]))));
            _mm256_store_si256(reinterpret_cast<__m256i*>(out + kPanelBiasTerms<V>),
                               _mm256_sub_epi32(_mm256_setzero_si256(), bias_sum));
        }
    }
}

// `rows` weight rows (rows <= V::kRows), decoded into the panel by decode(panel), against
// every activation row.
template <class V, class Format, class Decode>
void run_rows(Decode&& decode, int rows, int64_t blocks, const uint8_t* prepared, int64_t batch, float* y,
              int64_t y_stride) {
    using TileFn = void (*)(const uint8_t*, int64_t, const uint8_t*, float*, int64_t, int);
    static constexpr auto tiles = []<size_t... I>(std::index_sequence<I...>) {
        return std::array<TileFn, kBatchTile>{&Tile<V, Format, int(I) + 1>::run...};
    }
    (std::make_index_sequence<kBatchTile>{});
    std::vector<CacheLine>& panel_lines = thread_scratch().panel;
    const size_t lines = (static_cast<size_t>(blocks) * kPanelBlockBytes<V, Format> + 63) / 64;
    if (panel_lines.size() < lines) panel_lines.resize(lines);
    uint8_t* panel = panel_lines.data()->bytes;
    decode(panel);
    for (int64_t b0 = 0; b0 < batch; b0 += kBatchTile) {
        const int width = static_cast<int>(std::min<int64_t>(kBatchTile, batch - b0));
        tiles[static_cast<size_t>(width - 1)](
            panel, blocks, prepared + static_cast<size_t>(b0 * blocks) * kPreparedBytes<Format>,
            y + b0 * y_stride, y_stride, rows);
    }
}

// Row-major weight rows [0, rows) (rows <= V::kRows) against every activation row.
template <class V, class Format>
void run_rows(const char* w, size_t w_stride, int rows, int64_t blocks, const uint8_t* prepared,
              int64_t batch, float* y, int64_t y_stride) {
    run_rows<V, Format>([&](uint8_t* panel) { decode_panel<V, Format>(w, w_stride, rows, blocks, panel); },
                        rows, blocks, prepared, batch, y, y_stride);
}

// ---- Decode (batch 1): one weight row at a time, as one sequential stream.
//
// Per group of 8 blocks: the 8 blocks' integer dots (vpdpbusd of the unsigned quants with the
// activations, 8 int32 lanes each), reduced together to one vector of 8 block totals, less
// offset * sum(x) per block; then one conversion, one multiply by the 8 activation scales and
// one FMA with the 8 weight scales. Doing the scales 8 blocks at a time, rather than block by
// block as vec_dot does, halves the work per block: Q5_0 and Q4_0 decode was bound by it.

// Per block of the activation row, prepared once per call: dx, offset * sum(x) (an int32) and,
// with a minimum, dx * sum(x); each array padded with zeros to whole groups of 8.
struct DecodeTerms {
    const float* scales;
    const int32_t* offset_sums;
    const float* scaled_sums;
};

// Rows up to this many blocks (32768 columns) keep their decode terms on the stack, so that a
// kernel thread's first decode of a wider matrix allocates nothing either; wider rows use the
// thread's scratch.
constexpr int64_t kStackDecodeBlocks = 1024;

template <class Format>
DecodeTerms prepare_decode_terms(const BlockQ8_0* a, int64_t blocks, float* stack_storage,
                                 std::vector<float>& heap_storage) {
    const size_t padded = static_cast<size_t>((blocks + 7) / 8 * 8);
    float* scales = stack_storage;
    if (blocks > kStackDecodeBlocks) {
        if (heap_storage.size() < 3 * padded) heap_storage.resize(3 * padded);
        scales = heap_storage.data();
    }
    auto* offset_sums = reinterpret_cast<int32_t*>(scales + padded); // float and int32 share size
    float* scaled_sums = scales + 2 * padded;
    static_assert(sizeof(float) == sizeof(int32_t));
    for (size_t i = 0; i < padded; ++i) {
        if (i < static_cast<size_t>(blocks)) {
            const int32_t sum = sum_from_biased(
                _mm256_xor_si256(load_bytes(a[i].qs), _mm256_set1_epi8(static_cast<char>(0x80))));
            scales[i] = fp16_to_float(a[i].d);
            offset_sums[i] = Format::kOffset * sum;
            scaled_sums[i] = scales[i] * static_cast<float>(sum);
        } else {
            scales[i] = 0.0f;
            offset_sums[i] = 0;
            scaled_sums[i] = 0.0f;
        }
    }
    return {scales, offset_sums, scaled_sums};
}

// Lane k of the result: the sum of v[k]'s 8 lanes.
inline __m256i lane_sums(const __m256i (&v)[8]) {
    const __m256i v01 = _mm256_hadd_epi32(v[0], v[1]), v23 = _mm256_hadd_epi32(v[2], v[3]);
    const __m256i v45 = _mm256_hadd_epi32(v[4], v[5]), v67 = _mm256_hadd_epi32(v[6], v[7]);
    const __m256i v0123 = _mm256_hadd_epi32(v01, v23), v4567 = _mm256_hadd_epi32(v45, v67);
    // v0123 holds v0..v3's low halves' sums in its low 128 bits, their high halves' above.
    return _mm256_add_epi32(_mm256_permute2x128_si256(v0123, v4567, 0x20),
                            _mm256_permute2x128_si256(v0123, v4567, 0x31));
}

// 8 fp16 fields, one per block, widened.
template <class Block> inline __m256 widen_halves(const Block* blocks, int count, uint16_t Block::*field) {
    __m128i halves = _mm_setzero_si128();
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
        if (k < count) halves = _mm_insert_epi16(halves, blocks[k].*field, k);
    return _mm256_cvtph_ps(halves);
}

// Blocks [i, i + count) of one weight row (count <= 8) into acc[m] for M activation rows, the
// weight blocks unpacked once for all M: each row's sums are the same operations whatever M.
template <class Format, int M>
[[gnu::always_inline]] inline void
add_block_group(const typename Format::Block* w, const BlockQ8_0* const (&a)[M],
                const DecodeTerms (&terms)[M], int64_t i, int count, __m256 (&acc)[M]) {
    __m256i quants[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
        quants[k] = k < count ? Format::unsigned_quants(w[i + k]) : _mm256_setzero_si256();
    const __m256 weight_scales = widen_halves(w + i, count, &Format::Block::d);
    __m256 weight_mins = _mm256_setzero_ps();
    if constexpr (Format::kHasMin) weight_mins = widen_halves(w + i, count, &Format::Block::m);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
        __m256i dots[8];
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
            dots[k] = k < count ? dpbusd(_mm256_setzero_si256(), quants[k], load_bytes(a[m][i + k].qs))
                                : _mm256_setzero_si256();
        const __m256i totals = _mm256_sub_epi32(
            lane_sums(dots), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(terms[m].offset_sums + i)));
        const __m256 scales = _mm256_mul_ps(_mm256_loadu_ps(terms[m].scales + i), weight_scales);
        acc[m] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(totals), scales, acc[m]);
        if constexpr (Format::kHasMin)
            acc[m] = _mm256_fmadd_ps(weight_mins, _mm256_loadu_ps(terms[m].scaled_sums + i), acc[m]);
    }
}

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// Rows [row_begin, row_end) against M activation rows (a[m], their decode terms terms[m]), into
// y[m][r]: decode for M = 1, a verify pass's rows M at a time, each row the same operations.
template <class Format, int M>
void rows_times_activations(int64_t blocks, const char* weights, size_t weight_row_bytes, int64_t row_begin,
                            int64_t row_end, const BlockQ8_0* const (&a)[M], const DecodeTerms (&terms)[M],
                            float* const (&y)[M]) {
    using Block = typename Format::Block;
    const int tail = static_cast<int>(blocks % 8);
    const DecodePrefetch& prefetch = decode_prefetch();
    for (int64_t r = row_begin; r < row_end; ++r) {
        const char* row = weights + r * weight_row_bytes;
        prefetch_row_ahead(row, weight_row_bytes, prefetch);
        const auto* w = reinterpret_cast<const Block*>(row);
        __m256 acc[M];
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m)
            acc[m] = _mm256_setzero_ps();
        int64_t i = 0;
        for (; i + 8 <= blocks; i += 8)
            add_block_group<Format, M>(w, a, terms, i, 8, acc);
        if (tail != 0) add_block_group<Format, M>(w, a, terms, i, tail, acc);
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m)
            y[m][r] = hsum(acc[m]);
    }
}

template <class Format, int M>
void rows_as_decode_pass(int64_t blocks, const char* weights, size_t weight_row_bytes, int64_t row_begin,
                         int64_t row_end, const char* activations, size_t activation_row_bytes, float* y,
                         int64_t y_stride) {
    const BlockQ8_0* a[M];
    DecodeTerms terms[M];
    float* out[M];
    alignas(32) float stack_terms[M][3 * kStackDecodeBlocks];
    for (int m = 0; m < M; ++m) {
        a[m] = reinterpret_cast<const BlockQ8_0*>(activations + m * activation_row_bytes);
        terms[m] = prepare_decode_terms<Format>(a[m], blocks, stack_terms[m],
                                                thread_scratch().decode_terms[static_cast<size_t>(m)]);
        out[m] = y + m * y_stride;
    }
    rows_times_activations<Format, M>(blocks, weights, weight_row_bytes, row_begin, row_end, a, terms, out);
}

// Decode (batch 1), and a verify pass's batch, each row bit for bit its decode: the weight rows'
// blocks unpacked once per kDecodeRowsPerPass activation rows rather than once per row.
template <class Format>
void gemm_rows_as_decode(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                         int64_t row_end, const void* activations, size_t activation_row_bytes, int64_t batch,
                         float* y, int64_t y_stride) {
    static constexpr auto passes = []<int... I>(std::integer_sequence<int, I...>) {
        return std::array{&rows_as_decode_pass<Format, I + 1>...};
    }
    (std::make_integer_sequence<int, kDecodeRowsPerPass>{});
    const int64_t blocks = n / QK8_0;
    const char* w = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    for (int64_t first = 0; first < batch; first += kDecodeRowsPerPass) {
        const int64_t rows = std::min<int64_t>(kDecodeRowsPerPass, batch - first);
        passes[static_cast<size_t>(rows - 1)](blocks, w, weight_row_bytes, row_begin, row_end,
                                              a + first * activation_row_bytes, activation_row_bytes,
                                              y + first * y_stride, y_stride);
    }
}

// The batch's activations prepared in the calling thread's scratch (prepare_activations).
template <class Format>
const uint8_t* prepared_activations(const void* activations, size_t activation_row_bytes, int64_t batch,
                                    int64_t blocks) {
    std::vector<uint8_t>& prepared = thread_scratch().activations;
    const size_t prepared_bytes = static_cast<size_t>(batch * blocks) * kPreparedBytes<Format>;
    if (prepared.size() < prepared_bytes) prepared.resize(prepared_bytes);
    prepare_activations<Format>(static_cast<const char*>(activations), activation_row_bytes, batch, blocks,
                                prepared.data());
    return prepared.data();
}

template <class Format>
void gemm(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
          const void* activations, size_t activation_row_bytes, int64_t batch, float* y, int64_t y_stride) {
    const char* w = static_cast<const char*>(weights);
    // Decoding a panel costs about three decode passes over the rows (Qwen2.5-0.5B's Q5_0 on
    // Zen 5: 6 ms a row, 18 ms for 2 or 3 rows), so a batch of 2 (a verify pass of one drafted
    // token) runs as decode does, each weight block unpacked once for both rows.
    if (batch <= 2)
        return gemm_rows_as_decode<Format>(n, weights, weight_row_bytes, row_begin, row_end, activations,
                                           activation_row_bytes, batch, y, y_stride);
    const int64_t blocks = n / QK8_0;
    const uint8_t* prepared = prepared_activations<Format>(activations, activation_row_bytes, batch, blocks);
    for (int64_t r = row_begin; r < row_end;) {
        const int64_t left = row_end - r;
#ifdef HEARTH_AVX512
        if (left > 8) {
            const int rows = static_cast<int>(std::min<int64_t>(16, left));
            run_rows<Rows16, Format>(w + r * weight_row_bytes, weight_row_bytes, rows, blocks, prepared,
                                     batch, y + r, y_stride);
            r += rows;
            continue;
        }
#endif
        const int rows = static_cast<int>(std::min<int64_t>(8, left));
        run_rows<Rows8, Format>(w + r * weight_row_bytes, weight_row_bytes, rows, blocks, prepared, batch,
                                y + r, y_stride);
        r += rows;
    }
}

// GemmFn over Q8_0 rows repacked in groups of 16 (row_begin and row_end whole groups).
void gemm_q8_0_interleaved16(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                             const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                             int64_t y_stride) {
    const int64_t blocks = n / QK8_0;
    const int64_t pairs = n / InterleavedQ8_0::kColumns;
    const auto* groups = static_cast<const InterleavedQ8_0*>(packed);
    const uint8_t* prepared =
        prepared_activations<Q8_0Format>(activations, activation_row_bytes, batch, blocks);
    for (int64_t r = row_begin; r < row_end; r += kInterleavedRows) {
        const InterleavedQ8_0* group = groups + r / kInterleavedRows * pairs;
#ifdef HEARTH_AVX512
        run_rows<Rows16, Q8_0Format>(
            [&](uint8_t* panel) { decode_interleaved_panel<Rows16>(group, 0, blocks, panel); },
            kInterleavedRows, blocks, prepared, batch, y + r, y_stride);
#else
        for (int half = 0; half < 2; ++half)
            run_rows<Rows8, Q8_0Format>(
                [&](uint8_t* panel) { decode_interleaved_panel<Rows8>(group, 8 * half, blocks, panel); }, 8,
                blocks, prepared, batch, y + r + 8 * half, y_stride);
#endif
    }
}

} // namespace
} // namespace q8_0_family

void add_q8_0_family_kernels(KernelTable& table) {
    using namespace q8_0_family;
    const auto gemm_of = [](std::string_view name, GemmFn fn, Guard guard = {}) {
        return matmul_kernel(name, kVnniBackend, fn, TensorType::Q8_0, guard);
    };
    table.of(TensorType::Q8_0).matmul.put_first({gemm_of("gemm_q8_0_q8_0_dpbusd", gemm<Q8_0Format>)});
    table.of(TensorType::Q4_0).matmul.put_first({gemm_of("gemm_q4_0_q8_0_dpbusd", gemm<Q4_0Format>)});
    table.of(TensorType::Q5_0).matmul.put_first({gemm_of("gemm_q5_0_q8_0_dpbusd", gemm<Q5_0Format>)});
    table.of(TensorType::Q4_1).matmul.put_first({gemm_of("gemm_q4_1_q8_0_dpbusd", gemm<Q4_1Format>)});
    table.of(TensorType::Q5_1).matmul.put_first({gemm_of("gemm_q5_1_q8_0_dpbusd", gemm<Q5_1Format>)});
    // A verify pass over their row-major rows: the decode kernels' rows, unpacked once for several.
    const auto as_decode = [](TensorType type, std::string_view name, GemmFn fn, std::string_view decode) {
        return std::pair{type, rows_as_decode_kernel(name, kVnniBackend, fn, TensorType::Q8_0, decode)};
    };
    for (auto [type, kernel] : {as_decode(TensorType::Q8_0, "gemm_q8_0_q8_0_rows_as_decode",
                                          gemm_rows_as_decode<Q8_0Format>, "gemm_q8_0_q8_0_dpbusd"),
                                as_decode(TensorType::Q4_0, "gemm_q4_0_q8_0_rows_as_decode",
                                          gemm_rows_as_decode<Q4_0Format>, "gemm_q4_0_q8_0_dpbusd"),
                                as_decode(TensorType::Q5_0, "gemm_q5_0_q8_0_rows_as_decode",
                                          gemm_rows_as_decode<Q5_0Format>, "gemm_q5_0_q8_0_dpbusd"),
                                as_decode(TensorType::Q4_1, "gemm_q4_1_q8_0_rows_as_decode",
                                          gemm_rows_as_decode<Q4_1Format>, "gemm_q4_1_q8_0_dpbusd"),
                                as_decode(TensorType::Q5_1, "gemm_q5_1_q8_0_rows_as_decode",
                                          gemm_rows_as_decode<Q5_1Format>, "gemm_q5_1_q8_0_dpbusd")})
        table.of(type).matmul_as_decode.put_first({kernel});
    table.of(TensorType::Q8_0)
        .matmul.put_first(
            {gemm_of("gemm_q8_0_q8_0_interleaved16_dpbusd", gemm_q8_0_interleaved16,
                     {.min_batch = kRepackedQ8_0RowsMaxBatch + 1, .layout = RowLayout::Interleaved16})});
}

} // namespace hearth::kernels::HEARTH_VNNI_NS
