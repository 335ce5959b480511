// Blocked matrix-matrix kernels for prefill: F16 and BF16 weights with activations of their
// type, Q2_K to Q6_K weights with Q8_K activations,
// Q8_0, Q5_0, Q4_0, Q5_1 and Q4_1 weights with Q8_0 activations. The arithmetic per (row,
// activation) pair is that of the vec_dot kernels, except Q4_K's (its tile sums a super-block's
// terms in another order); the tiles share weight decoding and activation loads.
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_k_quants.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/float_rows.h"
#include "kernels/x86_avx2/gemm_tiles.h"
#include "kernels/x86_avx2/gemv_by_rows.h"
#include "kernels/x86_avx2/legacy_block_quants.h"

#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>
#include <vector>

namespace hearth::kernels::avx2 {
namespace {

template <class Block> inline const Block* row_of(const char* base, size_t stride, int index) {
    return reinterpret_cast<const Block*>(base + index * stride);
}

// Panels grow to the widest tile a thread has decoded and keep their memory: no allocation per
// token.
template <class... Vectors> void grow_panel(size_t needed, Vectors&... vectors) {
    ((vectors.size() < needed ? vectors.resize(needed) : void()), ...);
}

// Calls fill(block, at) for every block of `rows` weight rows, `at` = r * blocks + i being the
// block's index in the panel.
template <class Block, class Fill>
[[gnu::always_inline]] inline void for_each_panel_block(const char* w, size_t w_stride, int rows,
                                                        int64_t blocks, Fill fill) {
    for (int r = 0; r < rows; ++r) {
        const Block* row = row_of<Block>(w, w_stride, r);
        for (int64_t i = 0; i < blocks; ++i)
            fill(row[i], static_cast<size_t>(r * blocks + i));
    }
}

// A tile's float accumulators, zeroed (unrolled, as store_tile, so that they stay registers).
template <int RM, int RN> [[gnu::always_inline]] inline void zero_tile(__m256 (&acc)[RM][RN]) {
#pragma GCC unroll 8
    for (int r = 0; r < RM; ++r)
#pragma GCC unroll 8
        for (int b = 0; b < RN; ++b)
            acc[r][b] = _mm256_setzero_ps();
}

// Unrolled, so that the tiles' accumulators stay registers: a loop here made GCC keep a copy
// of every accumulator in memory, stored at each step of the tiles' loops.
template <int RM, int RN>
[[gnu::always_inline]] inline void store_tile(const __m256 (&acc)[RM][RN], float* y, int64_t y_stride) {
#pragma GCC unroll 8
    for (int r = 0; r < RM; ++r)
#pragma GCC unroll 8
        for (int b = 0; b < RN; ++b)
            y[b * y_stride + r] = hsum(acc[r][b]);
}

// Q4_K x Q8_K: per super-block, int32 sums per pair over the 8 sub-blocks, then the scale and
// the min correction in float.
template <int RM, int RN> struct Q4KTile {
    static void run(int64_t blocks, const char* w, size_t w_stride, const char* a, size_t a_stride, float* y,
                    int64_t y_stride) {
        __m256 acc[RM][RN];
        zero_tile(acc);
        const __m256i low4 = _mm256_set1_epi8(0x0F);
        for (int64_t i = 0; i < blocks; ++i) {
            const BlockQ4_K* wb[RM];
            const BlockQ8_K* ab[RN];
#pragma GCC unroll 8
            for (int r = 0; r < RM; ++r)
                wb[r] = row_of<BlockQ4_K>(w, w_stride, r) + i;
#pragma GCC unroll 8
            for (int b = 0; b < RN; ++b)
                ab[b] = row_of<BlockQ8_K>(a, a_stride, b) + i;
            __m256i scales[RM][8];
            __m128i mins[RM];
#pragma GCC unroll 8
            for (int r = 0; r < RM; ++r) {
                const K4Scales s = unpack_k4(wb[r]->scales);
#pragma GCC unroll 8
                for (int k = 0; k < 8; ++k)
                    scales[r][k] = _mm256_shuffle_epi8(s.scales, pick_word(k));
                mins[r] = s.mins;
            }
            __m256i sum[RM][RN];
#pragma GCC unroll 8
            for (auto& row : sum)
#pragma GCC unroll 8
                for (auto& v : row)
                    v = _mm256_setzero_si256();
#pragma GCC unroll 8
            for (int j = 0; j < 4; ++j) {
#pragma GCC unroll 8
                for (int r = 0; r < RM; ++r) {
                    const __m256i q = load256(wb[r]->qs + 32 * j);
                    const __m256i q_low = _mm256_and_si256(q, low4);
                    const __m256i q_high = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
#pragma GCC unroll 8
                    for (int b = 0; b < RN; ++b) {
                        const __m256i lo = _mm256_madd_epi16(
                            _mm256_maddubs_epi16(q_low, load256(ab[b]->qs + 64 * j)), scales[r][2 * j]);
                        const __m256i hi =
                            _mm256_madd_epi16(_mm256_maddubs_epi16(q_high, load256(ab[b]->qs + 64 * j + 32)),
                                              scales[r][2 * j + 1]);
                        sum[r][b] = _mm256_add_epi32(sum[r][b], _mm256_add_epi32(lo, hi));
                    }
                }
            }
#pragma GCC unroll 8
            for (int b = 0; b < RN; ++b) {
                const __m128i pair_sums = _mm_hadd_epi16(load128(ab[b]->bsums), load128(ab[b]->bsums + 8));
#pragma GCC unroll 8
                for (int r = 0; r < RM; ++r) {
                    const float d = fp16_to_float(wb[r]->d) * ab[b]->d;
                    const float dmin = fp16_to_float(wb[r]->dmin) * ab[b]->d;
                    const __m256 min_sum =
                        _mm256_cvtepi32_ps(_mm256_zextsi128_si256(_mm_madd_epi16(mins[r], pair_sums)));
                    acc[r][b] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sum[r][b]), acc[r][b]);
                    acc[r][b] = _mm256_fnmadd_ps(_mm256_set1_ps(dmin), min_sum, acc[r][b]);
                }
            }
        }
        store_tile<RM, RN>(acc, y, y_stride);
    }
};

// The K-quant panel tiles at super-block i: the RN activation blocks and the RM decoded weight
// blocks (panel rows r * n_blocks + i).
template <int RN>
[[gnu::always_inline]] inline void activation_blocks_at(const char* a, size_t a_stride, int64_t i,
                                                        const BlockQ8_K* (&out)[RN]) {
#pragma GCC unroll 8
    for (int b = 0; b < RN; ++b)
        out[b] = row_of<BlockQ8_K>(a, a_stride, b) + i;
}
template <int RM, class Decoded>
[[gnu::always_inline]] inline void weight_blocks_at(const std::vector<Decoded>& blocks, int64_t n_blocks,
                                                    int64_t i, const Decoded* (&out)[RM]) {
#pragma GCC unroll 8
    for (int r = 0; r < RM; ++r)
        out[r] = &blocks[static_cast<size_t>(r * n_blocks + i)];
}

// Adds the 8 chunks' scaled dots of a super-block (madd(maddubs(quants, x), chunk scale), the
// quants unsigned bytes, the scale a madd operand per chunk) to each pair's integer sums.
template <int RM, int RN, class Decoded>
[[gnu::always_inline]] inline void add_chunk_dots(const Decoded* const (&w)[RM],
                                                  const BlockQ8_K* const (&a)[RN], __m256i (&sum)[RM][RN]) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
#pragma GCC unroll 8
        for (int r = 0; r < RM; ++r) {
            const __m256i q = _mm256_load_si256(&w[r]->quants[k]);
            const __m256i scale = _mm256_load_si256(&w[r]->chunk_scales[k]);
#pragma GCC unroll 8
            for (int b = 0; b < RN; ++b)
                sum[r][b] = _mm256_add_epi32(
                    sum[r][b], _mm256_madd_epi16(_mm256_maddubs_epi16(q, load256(a[b]->qs + 32 * k)), scale));
        }
}

// The K-quant panels: per (row, super-block) a decoded block, filled by the decode_super_block
// overload of the weight type.
template <class Decoded> struct SuperBlockPanel {
    std::vector<Decoded> blocks; // (row, super-block)
    int64_t n_blocks = 0;
};

template <class Block, class Decoded>
void decode_super_block_rows(const char* w, size_t w_stride, int rows, int64_t blocks,
                             SuperBlockPanel<Decoded>& panel) {
    grow_panel(static_cast<size_t>(rows * blocks), panel.blocks);
    panel.n_blocks = blocks;
    for_each_panel_block<Block>(w, w_stride, rows, blocks, [&](const Block& block, size_t at) {
        decode_super_block(block, panel.blocks[at]);
    });
}

// The K-quant panel tiles' walk over the super-blocks: per super-block, each pair's integer sum
// starts from start(weight block, activation block) (the offset or min terms that meet the
// bsums), takes the 8 chunks' dots, then goes to finish(r, b, weight block, activation block,
// sum), which folds it into the pair's float accumulators.
template <int RM, int RN, class Decoded, class Start, class Finish>
[[gnu::always_inline]] inline void for_each_super_block(const SuperBlockPanel<Decoded>& panel, const char* a,
                                                        size_t a_stride, Start start, Finish finish) {
    for (int64_t i = 0; i < panel.n_blocks; ++i) {
        const BlockQ8_K* ab[RN];
        activation_blocks_at(a, a_stride, i, ab);
        const Decoded* wb[RM];
        weight_blocks_at(panel.blocks, panel.n_blocks, i, wb);
        __m256i sum[RM][RN];
#pragma GCC unroll 8
        for (int r = 0; r < RM; ++r)
#pragma GCC unroll 8
            for (int b = 0; b < RN; ++b)
                sum[r][b] = start(*wb[r], *ab[b]);
        add_chunk_dots(wb, ab, sum);
#pragma GCC unroll 8
        for (int r = 0; r < RM; ++r)
#pragma GCC unroll 8
            for (int b = 0; b < RN; ++b)
                finish(r, b, *wb[r], *ab[b], sum[r][b]);
    }
}

// Q6_K x Q8_K: quants 0..63 with two scales per 32; the +32 offset is removed per super-block
// with the activations' bsums. A tile of weight rows is decoded once into a panel (per
// super-block: the quants as bytes, the scale vector of each 32, the 16 scales as int16, d)
// that every activation tile reads: the unpacking was a fifth of the work per tile.
struct alignas(32) Q6KDecoded {
    __m256i quants[8];       // elements 32k..32k+31, 0..63
    __m256i chunk_scales[8]; // the int16 scale of each element pair of chunk k
    __m256i all_scales;      // the 16 scales as int16 (for the bsums correction)
    float d;
};
using Q6KPanel = SuperBlockPanel<Q6KDecoded>;

void decode_super_block(const BlockQ6_K& block, Q6KDecoded& out) {
    out.all_scales = q6k_scales(block.scales);
    out.d = fp16_to_float(block.d);
    for (int half = 0; half < 2; ++half) {
        unpack_q6k_half(block.ql + 64 * half, block.qh + 32 * half, out.quants + 4 * half);
        const __m256i half_scales = broadcast_lane(out.all_scales, half);
        for (int k = 0; k < 4; ++k)
            out.chunk_scales[4 * half + k] = _mm256_shuffle_epi8(half_scales, pick_words(2 * k, 2 * k + 1));
    }
}

template <int RM, int RN> struct Q6KPanelTile {
    static void run(const Q6KPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
        // The float accumulators change once per super-block: they live in memory, the
        // registers hold the integer sums.
        alignas(32) float acc[RM][RN][8] = {};
        for_each_super_block<RM, RN>(
            panel, a, a_stride,
            [](const Q6KDecoded& w, const BlockQ8_K& x) { // -32 * (scales . bsums)
                return _mm256_sub_epi32(
                    _mm256_setzero_si256(),
                    _mm256_slli_epi32(_mm256_madd_epi16(w.all_scales, load256(x.bsums)), 5));
            },
            [&](int r, int b, const Q6KDecoded& w, const BlockQ8_K& x, __m256i sum) {
                _mm256_store_ps(acc[r][b], _mm256_fmadd_ps(_mm256_set1_ps(w.d * x.d), _mm256_cvtepi32_ps(sum),
                                                           _mm256_load_ps(acc[r][b])));
            });
        for (int r = 0; r < RM; ++r)
            for (int b = 0; b < RN; ++b)
                y[b * y_stride + r] = hsum(_mm256_load_ps(acc[r][b]));
    }
};

// F16 and BF16 weights with activations of the same type, in vec_dot_f16/bf16_f16/bf16's order
// (ggml_vec_dot_f16's): per pair, four accumulators over blocks of 32, reduce_like_ggml, the
// tail's exact products added in double. A tile of weight rows is widened once into a panel of
// floats; each activation block is widened once for all the tile's rows.
struct FloatPanel {
    std::vector<float> values; // (row, column)
    int64_t cols = 0;
};

template <bool kBf16>
void widen_half_rows(const char* w, size_t w_stride, int rows, int64_t cols, FloatPanel& panel) {
    grow_panel(static_cast<size_t>(rows * cols), panel.values);
    panel.cols = cols;
    for (int r = 0; r < rows; ++r) {
        const auto* row = reinterpret_cast<const uint16_t*>(w + r * w_stride);
        float* out = panel.values.data() + r * cols;
        int64_t i = 0;
        for (; i + 8 <= cols; i += 8)
            _mm256_storeu_ps(out + i, load8(row + i, kBf16));
        for (; i < cols; ++i)
            out[i] = load1(row + i, kBf16);
    }
}

template <bool kBf16> struct HalfPanelTile {
    template <int RM, int RN> struct Tile {
        static void run(const FloatPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
            const int64_t n = panel.cols;
            for (int b = 0; b < RN; ++b) {
                const auto* x = reinterpret_cast<const uint16_t*>(a + b * a_stride);
                const float* w[RM];
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r)
                    w[r] = panel.values.data() + r * n;
                __m256 acc[RM][4];
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k)
                        acc[r][k] = _mm256_setzero_ps();
                int64_t i = 0;
                for (; i + 32 <= n; i += 32)
#pragma GCC unroll 4
                    for (int k = 0; k < 4; ++k) {
                        const __m256 xv = load8(x + i + 8 * k, kBf16);
#pragma GCC unroll 4
                        for (int r = 0; r < RM; ++r)
                            acc[r][k] = _mm256_fmadd_ps(_mm256_loadu_ps(w[r] + i + 8 * k), xv, acc[r][k]);
                    }
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r) {
                    double sum = 0;
                    if (i > 0) sum = reduce_like_ggml(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
                    for (int64_t j = i; j < n; ++j)
                        sum += w[r][j] * load1(x + j, kBf16);
                    y[b * y_stride + r] = static_cast<float>(sum);
                }
            }
        }
    };
};

// Q2_K and Q3_K x Q8_K: 2- and 3-bit quants with a scale per 16, as vec_dot_q2_K/q3_K_q8_K take
// them: per super-block the scaled integer sums in int32, converted and scaled lane by lane into
// float accumulators summed once per row, the same operations in the same order as vec_dot.
// A tile of weight rows is decoded once into a panel (per super-block: the quants as bytes, each
// chunk's scale operand, the int16 factors that meet the bsums, d and dmin).
struct alignas(32) LowBitDecoded {
    __m256i quants[8];       // chunk c: elements 32c..32c+31 (Q2_K 0..3, Q3_K 0..7)
    __m256i chunk_scales[8]; // chunk_scales()
    __m256i bsum_factors;    // Q3_K: the scales (4 * scale * bsum comes off the dot); Q2_K: the mins
    float d, dmin;
};
using LowBitPanel = SuperBlockPanel<LowBitDecoded>;

void decode_super_block(const BlockQ2_K& block, LowBitDecoded& out) {
    const __m256i halves[2] = {load256(block.qs), load256(block.qs + 32)};
    const Q2KScales scales = q2k_scales(block.scales);
    for (int c = 0; c < 8; ++c) {
        out.quants[c] = two_bit_chunk(halves[c / 4], c);
        out.chunk_scales[c] = chunk_scales(scales.scales, c);
    }
    out.bsum_factors = scales.mins;
    out.d = fp16_to_float(block.d);
    out.dmin = fp16_to_float(block.dmin);
}
void decode_super_block(const BlockQ3_K& block, LowBitDecoded& out) {
    const __m256i halves[2] = {load256(block.qs), load256(block.qs + 32)};
    const __m256i high_bits = load256(block.hmask);
    const __m256i scales = q3k_scales(block.scales);
    for (int c = 0; c < 8; ++c) {
        out.quants[c] = q3k_chunk(halves[c / 4], high_bits, c);
        out.chunk_scales[c] = chunk_scales(scales, c);
    }
    out.bsum_factors = scales;
    out.d = fp16_to_float(block.d);
    out.dmin = 0.0f;
}

template <class Block> struct LowBitPanelTile {
    template <int RM, int RN> struct Tile {
        static void run(const LowBitPanel& panel, const char* a, size_t a_stride, float* y,
                        int64_t y_stride) {
            constexpr bool kOffsetInDot = std::is_same_v<Block, BlockQ3_K>;
            // The float accumulators change once per super-block: they live in memory, the
            // registers hold the integer sums.
            alignas(32) float acc[RM][RN][8] = {};
            for_each_super_block<RM, RN>(
                panel, a, a_stride,
                [](const LowBitDecoded& w, const BlockQ8_K& x) {
                    return kOffsetInDot ? q3k_offset_terms(w.bsum_factors, x.bsums) : _mm256_setzero_si256();
                },
                [&](int r, int b, const LowBitDecoded& w, const BlockQ8_K& x, __m256i sum) {
                    __m256 lanes = _mm256_fmadd_ps(_mm256_set1_ps(w.d * x.d), _mm256_cvtepi32_ps(sum),
                                                   _mm256_load_ps(acc[r][b]));
                    if constexpr (!kOffsetInDot)
                        lanes = _mm256_fnmadd_ps(
                            _mm256_set1_ps(w.dmin * x.d),
                            _mm256_cvtepi32_ps(_mm256_madd_epi16(w.bsum_factors, load256(x.bsums))), lanes);
                    _mm256_store_ps(acc[r][b], lanes);
                });
            for (int r = 0; r < RM; ++r)
                for (int b = 0; b < RN; ++b)
                    y[b * y_stride + r] = hsum(_mm256_load_ps(acc[r][b]));
        }
    };
};

// Q5_K x Q8_K: 5-bit quants with a scale and a min per 32, as vec_dot_q5_K_q8_K takes them: per
// super-block the scaled integer sums in int32 (exact, in any order), then d * dx times them and
// dmin * dx times the mins' dot with the bsums, into two float accumulators. A tile of weight
// rows is decoded once into a panel (per super-block: the quants as bytes, the scales as madd
// operands, the mins as int16, d and dmin) that every activation tile reads.
struct alignas(32) Q5KDecoded {
    __m256i quants[8];       // sub-block k: elements 32k..32k+31, 0..31
    __m256i chunk_scales[8]; // sub-block k's scale in every word (from k4_scale_pairs)
    __m128i mins;            // the 8 mins as int16
    float d, dmin;
};
using Q5KPanel = SuperBlockPanel<Q5KDecoded>;

void decode_super_block(const BlockQ5_K& block, Q5KDecoded& out) {
    const __m256i scale_bytes = unpack_k4_scale_bytes(block.scales);
    alignas(32) int32_t scale_pairs[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(scale_pairs), k4_scale_pairs(scale_bytes));
    for (int k = 0; k < 8; ++k)
        out.chunk_scales[k] = _mm256_set1_epi32(scale_pairs[k]);
    out.mins = k4_mins(scale_bytes);
    out.d = fp16_to_float(block.d);
    out.dmin = fp16_to_float(block.dmin);
    const __m256i high_bits = load256(block.qh);
    for (int j = 0; j < 4; ++j) {
        const QuantPair q = q5k_quant_pair(block.qs, high_bits, j);
        out.quants[2 * j] = q.low;
        out.quants[2 * j + 1] = q.high;
    }
}

template <int RM, int RN> struct Q5KPanelTile {
    static void run(const Q5KPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
        // The float accumulators change once per super-block: they live in memory, the
        // registers hold the integer sums.
        alignas(32) float acc[RM][RN][8] = {};
        alignas(16) float acc_min[RM][RN][4] = {};
        for_each_super_block<RM, RN>(
            panel, a, a_stride, [](const Q5KDecoded&, const BlockQ8_K&) { return _mm256_setzero_si256(); },
            [&](int r, int b, const Q5KDecoded& w, const BlockQ8_K& x, __m256i sum) {
                // d * dx and dmin * dx round as k4_super_scales' products.
                _mm256_store_ps(acc[r][b], _mm256_fmadd_ps(_mm256_set1_ps(w.d * x.d), _mm256_cvtepi32_ps(sum),
                                                           _mm256_load_ps(acc[r][b])));
                const __m128 min_terms = _mm_cvtepi32_ps(min_dot_bsums(w.mins, x.bsums));
                _mm_store_ps(acc_min[r][b],
                             _mm_fmadd_ps(_mm_set1_ps(w.dmin * x.d), min_terms, _mm_load_ps(acc_min[r][b])));
            });
        for (int r = 0; r < RM; ++r)
            for (int b = 0; b < RN; ++b)
                y[b * y_stride + r] = hsum(_mm256_load_ps(acc[r][b])) - hsum(_mm_load_ps(acc_min[r][b]));
    }
};

// The 32-element signed formats in prefill: a tile of weight rows is decoded once into a panel
// (per block: the int8 quants, their magnitudes for maddubs, the scale as a float) that every
// activation tile then reads. Decoding per tile instead, as before, cost Q5_0 a third of its
// speed (82 against 120 GOP/s on one Zen 5 core at 896 columns); the arithmetic per (row,
// activation) pair is unchanged: that of the vec_dot kernels, block by block.
struct alignas(32) Bytes32 {
    uint8_t bytes[32];
};
struct SignedPanel {
    std::vector<Bytes32> quants, magnitudes; // (row, block)
    std::vector<float> scales;               // (row, block)
    int64_t blocks = 0;
};

template <class Block>
void decode_signed_rows(const char* w, size_t w_stride, int rows, int64_t blocks, SignedPanel& panel) {
    grow_panel(static_cast<size_t>(rows * blocks), panel.quants, panel.magnitudes, panel.scales);
    panel.blocks = blocks;
    for_each_panel_block<Block>(w, w_stride, rows, blocks, [&](const Block& block, size_t at) {
        const __m256i q = signed_quants(block);
        _mm256_store_si256(reinterpret_cast<__m256i*>(&panel.quants[at]), q);
        _mm256_store_si256(reinterpret_cast<__m256i*>(&panel.magnitudes[at]), _mm256_sign_epi8(q, q));
        panel.scales[at] = fp16_at(&block.d);
    });
}

// GCC at -O2 keeps the small r/b loops as loops and the accumulators in memory; the pragmas
// unroll them so that the tile lives in registers.
template <int RM, int RN> struct SignedPanelTile {
    static void run(const SignedPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
        const int64_t blocks = panel.blocks;
        __m256 acc[RM][RN];
        zero_tile(acc);
        const __m256i ones = _mm256_set1_epi16(1);
        for (int64_t i = 0; i < blocks; ++i) {
            const BlockQ8_0* ab[RN];
            __m256 da[RN];
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b) {
                ab[b] = row_of<BlockQ8_0>(a, a_stride, b) + i;
                da[b] = _mm256_set1_ps(fp16_at(&ab[b]->d));
            }
#pragma GCC unroll 4
            for (int r = 0; r < RM; ++r) {
                const size_t at = static_cast<size_t>(r * blocks + i);
                const __m256i q = _mm256_load_si256(reinterpret_cast<const __m256i*>(&panel.quants[at]));
                const __m256i q_abs =
                    _mm256_load_si256(reinterpret_cast<const __m256i*>(&panel.magnitudes[at]));
                const __m256 dw = _mm256_broadcast_ss(&panel.scales[at]);
#pragma GCC unroll 4
                for (int b = 0; b < RN; ++b) {
                    const __m256i x = _mm256_sign_epi8(load256(ab[b]->qs), q);
                    const __m256i dot = _mm256_madd_epi16(_mm256_maddubs_epi16(q_abs, x), ones);
                    // dw * da rounds exactly as the scalar product of the vec_dot kernels.
                    acc[r][b] = _mm256_fmadd_ps(_mm256_mul_ps(dw, da[b]), _mm256_cvtepi32_ps(dot), acc[r][b]);
                }
            }
        }
        store_tile<RM, RN>(acc, y, y_stride);
    }
};

// The 32-element formats with a minimum (Q4_1, Q5_1): per block, d*dx * dot(q, x) and then
// m*dx * sum(x) into the pair's accumulator, as vec_dot_q4_1/q5_1_q8_0 fold them. The panel
// holds each block's unsigned quants and its d and m as floats; sum(x) is taken once per
// activation block for all the tile's rows.
struct MinPanel {
    std::vector<Bytes32> quants; // (row, block)
    std::vector<float> scales, minima;
    int64_t blocks = 0;
};

template <class Block>
void decode_min_rows(const char* w, size_t w_stride, int rows, int64_t blocks, MinPanel& panel) {
    grow_panel(static_cast<size_t>(rows * blocks), panel.quants, panel.scales, panel.minima);
    panel.blocks = blocks;
    for_each_panel_block<Block>(w, w_stride, rows, blocks, [&](const Block& block, size_t at) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(&panel.quants[at]), unsigned_quants(block));
        panel.scales[at] = fp16_at(&block.d);
        panel.minima[at] = fp16_at(&block.m);
    });
}

template <int RM, int RN> struct MinPanelTile {
    static void run(const MinPanel& panel, const char* a, size_t a_stride, float* y, int64_t y_stride) {
        const int64_t blocks = panel.blocks;
        __m256 acc[RM][RN];
        zero_tile(acc);
        for (int64_t i = 0; i < blocks; ++i) {
#pragma GCC unroll 4
            for (int b = 0; b < RN; ++b) {
                const BlockQ8_0& activation = row_of<BlockQ8_0>(a, a_stride, b)[i];
                const __m256i x = load256(activation.qs);
                const __m256 dx = _mm256_set1_ps(fp16_at(&activation.d));
                const __m256 sum = _mm256_cvtepi32_ps(dot_u8_i8(_mm256_set1_epi8(1), x));
#pragma GCC unroll 4
                for (int r = 0; r < RM; ++r) {
                    const size_t at = static_cast<size_t>(r * blocks + i);
                    const __m256i q = _mm256_load_si256(reinterpret_cast<const __m256i*>(&panel.quants[at]));
                    const __m256 dot = _mm256_cvtepi32_ps(dot_u8_i8(q, x));
                    // d * dx and m * dx round as the vec_dot kernels' scalar products.
                    acc[r][b] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_broadcast_ss(&panel.scales[at]), dx),
                                                dot, acc[r][b]);
                    acc[r][b] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_broadcast_ss(&panel.minima[at]), dx),
                                                sum, acc[r][b]);
                }
            }
        }
        store_tile<RM, RN>(acc, y, y_stride);
    }
};

// Tile of the 32-element signed formats: its accumulators, a panel block, scales and one
// activation block must fit the 16 ymm registers, or GCC spills the accumulators. 3x4 and 4x3
// measured best (120 GOP/s for Q5_0 with the panel), 2x6 slower (86).
constexpr int kSignedRows = 3, kSignedCols = 4;
// The formats with a minimum: 3x3 measured best (76 GFLOP/s for Q5_1 on one core), of 3x4, 4x3,
// 4x2, 2x4, 2x5 and 2x6 (67 to 75).
constexpr int kMinRows = 3, kMinCols = 3;
// The Q4_K tile (matrices whose rows are not a multiple of 8; the others take the interleaved
// panel): 2 x 4 measured best of 4x3, 3x3, 2x4, 4x2, 3x2, 2x2, 2x6, 1x8, 3x4 and 2x5 (84
// GFLOP/s on one core), once its loops were unrolled.
constexpr int kKQuantRows = 2, kKQuantCols = 4;
// Q6_K over its panel: the integer sums of 3 x 4 pairs in registers, the float sums in memory.
constexpr int kQ6KRows = 3, kQ6KCols = 4;
// Q5_K over its panel, the same way; Q2_K and Q3_K too.
constexpr int kQ5KRows = 3, kQ5KCols = 4;
constexpr int kLowBitRows = 3, kLowBitCols = 4;
// F16 and BF16: 3 rows x 4 accumulators fill 12 registers; each activation row goes alone.
constexpr int kHalfRows = 3;

// Rows outer: each tile of RM weight rows is decoded once into a panel (decode(w, stride,
// rows, blocks, panel)), then every activation row streams past it, RN at a time.
template <int RM, int RN, template <int, int> class Tile, class Panel, class Decode>
void panel_gemm(Decode decode, int64_t blocks, const void* weights, size_t weight_row_bytes,
                int64_t row_begin, int64_t row_end, const void* activations, size_t activation_row_bytes,
                int64_t batch, float* y, int64_t y_stride) {
    static constexpr auto tiles = []<size_t... I>(std::index_sequence<I...>) {
        using Fn = void (*)(const Panel&, const char*, size_t, float*, int64_t);
        return std::array<Fn, RM * RN>{&Tile<int(I / RN) + 1, int(I % RN) + 1>::run...};
    }
    (std::make_index_sequence<RM * RN>{});
    thread_local Panel panel;
    const char* w = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    for (int64_t r = row_begin; r < row_end; r += RM) {
        const int rm = static_cast<int>(std::min<int64_t>(RM, row_end - r));
        decode(w + r * weight_row_bytes, weight_row_bytes, rm, blocks, panel);
        for (int64_t b = 0; b < batch; b += RN) {
            const int64_t rn = std::min<int64_t>(RN, batch - b);
            tiles[static_cast<size_t>((rm - 1) * RN + (rn - 1))](
                panel, a + b * activation_row_bytes, activation_row_bytes, y + b * y_stride + r, y_stride);
        }
    }
}

// Decode (batch 1) runs the rows one by one through the type's dot product; prefill its tiles.
template <TensorType kType, VecDotFn kRowDot>
void gemm_by_type(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin, int64_t row_end,
                  const void* activations, size_t activation_row_bytes, int64_t batch, float* y,
                  int64_t y_stride) {
    using T = TensorType;
    if (batch == 1)
        return gemv_by_rows(kRowDot, n, weights, weight_row_bytes, row_begin, row_end, activations, y);
    const int64_t blocks = n / type_traits(kType).block_elements;
    const auto panels = [&]<int RM, int RN, template <int, int> class Tile, class Panel>(auto decode) {
        panel_gemm<RM, RN, Tile, Panel>(decode, blocks, weights, weight_row_bytes, row_begin, row_end,
                                        activations, activation_row_bytes, batch, y, y_stride);
    };
    if constexpr (kType == T::F16 || kType == T::BF16) {
        constexpr bool kBf16 = kType == T::BF16;
        panels.template operator()<kHalfRows, 1, HalfPanelTile<kBf16>::template Tile, FloatPanel>(
            widen_half_rows<kBf16>);
    } else if constexpr (kType == T::Q8_0) {
        panels.template operator()<kSignedRows, kSignedCols, SignedPanelTile, SignedPanel>(
            decode_signed_rows<BlockQ8_0>);
    } else if constexpr (kType == T::Q5_0) {
        panels.template operator()<kSignedRows, kSignedCols, SignedPanelTile, SignedPanel>(
            decode_signed_rows<BlockQ5_0>);
    } else if constexpr (kType == T::Q4_0) {
        panels.template operator()<kSignedRows, kSignedCols, SignedPanelTile, SignedPanel>(
            decode_signed_rows<BlockQ4_0>);
    } else if constexpr (kType == T::Q5_1) {
        panels.template operator()<kMinRows, kMinCols, MinPanelTile, MinPanel>(decode_min_rows<BlockQ5_1>);
    } else if constexpr (kType == T::Q4_1) {
        panels.template operator()<kMinRows, kMinCols, MinPanelTile, MinPanel>(decode_min_rows<BlockQ4_1>);
    } else if constexpr (kType == T::Q2_K) {
        panels.template operator()<kLowBitRows, kLowBitCols, LowBitPanelTile<BlockQ2_K>::template Tile,
                                   LowBitPanel>(decode_super_block_rows<BlockQ2_K, LowBitDecoded>);
    } else if constexpr (kType == T::Q3_K) {
        panels.template operator()<kLowBitRows, kLowBitCols, LowBitPanelTile<BlockQ3_K>::template Tile,
                                   LowBitPanel>(decode_super_block_rows<BlockQ3_K, LowBitDecoded>);
    } else if constexpr (kType == T::Q4_K) {
        TileGrid<kKQuantRows, kKQuantCols, Q4KTile>::run(blocks, weights, weight_row_bytes, row_begin,
                                                         row_end, activations, activation_row_bytes, batch, y,
                                                         y_stride);
    } else if constexpr (kType == T::Q5_K) {
        panels.template operator()<kQ5KRows, kQ5KCols, Q5KPanelTile, Q5KPanel>(
            decode_super_block_rows<BlockQ5_K, Q5KDecoded>);
    } else {
        static_assert(kType == T::Q6_K);
        panels.template operator()<kQ6KRows, kQ6KCols, Q6KPanelTile, Q6KPanel>(
            decode_super_block_rows<BlockQ6_K, Q6KDecoded>);
    }
}

} // namespace

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn gemm_for(TensorType type) {
    using T = TensorType;
    switch (type) {
    case T::F16:
        return gemm_by_type<T::F16, vec_dot_f16_f16>;
    case T::BF16:
        return gemm_by_type<T::BF16, vec_dot_bf16_bf16>;
    case T::Q4_0:
        return gemm_by_type<T::Q4_0, vec_dot_q4_0_q8_0>;
    case T::Q4_1:
        return gemm_by_type<T::Q4_1, vec_dot_q4_1_q8_0>;
    case T::Q5_0:
        return gemm_by_type<T::Q5_0, vec_dot_q5_0_q8_0>;
    case T::Q5_1:
        return gemm_by_type<T::Q5_1, vec_dot_q5_1_q8_0>;
    case T::Q8_0:
        return gemm_by_type<T::Q8_0, vec_dot_q8_0_q8_0>;
    case T::Q2_K:
        return gemm_by_type<T::Q2_K, vec_dot_q2_K_q8_K>;
    case T::Q3_K:
        return gemm_by_type<T::Q3_K, vec_dot_q3_K_q8_K>;
    case T::Q4_K:
        return gemm_by_type<T::Q4_K, vec_dot_q4_K_q8_K>;
    case T::Q5_K:
        return gemm_by_type<T::Q5_K, vec_dot_q5_K_q8_K>;
    case T::Q6_K:
        return gemm_by_type<T::Q6_K, vec_dot_q6_K_q8_K>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::avx2
