// Prefill for the K-quants (Q2_K to Q6_K) with Q8_K activations. The arithmetic per (row,
// activation) pair is that of the vec_dot kernels, except Q4_K's (its tile sums a super-block's
// terms in another order).
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"
#include "kernels/x86_avx2/avx2_k_quants.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/gemm_tiles.h"

#include <type_traits>
#include <vector>

namespace hearth::kernels::avx2 {
namespace {

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

// The Q4_K tile (matrices whose rows are not a multiple of 8; the others take the kernel in groups
// of 8 rows): 2 x 4, with its loops unrolled, the fastest of the shapes that fit the registers.
constexpr int kKQuantRows = 2, kKQuantCols = 4;
// Q6_K over its panel: the integer sums of 3 x 4 pairs in registers, the float sums in memory.
constexpr int kQ6KRows = 3, kQ6KCols = 4;
// Q5_K over its panel, the same way; Q2_K and Q3_K too.
constexpr int kQ5KRows = 3, kQ5KCols = 4;
constexpr int kLowBitRows = 3, kLowBitCols = 4;

void prefill_q4_k(const GemmCall& call) {
    TileGrid<kKQuantRows, kKQuantCols, Q4KTile>::run(call.n / QK_K, call);
}
template <class Block> void prefill_low_bit(const GemmCall& call) {
    panel_gemm<kLowBitRows, kLowBitCols, LowBitPanelTile<Block>::template Tile, LowBitPanel>(
        decode_super_block_rows<Block, LowBitDecoded>, call.n / QK_K, call);
}
void prefill_q5_k(const GemmCall& call) {
    panel_gemm<kQ5KRows, kQ5KCols, Q5KPanelTile, Q5KPanel>(decode_super_block_rows<BlockQ5_K, Q5KDecoded>,
                                                           call.n / QK_K, call);
}
void prefill_q6_k(const GemmCall& call) {
    panel_gemm<kQ6KRows, kQ6KCols, Q6KPanelTile, Q6KPanel>(decode_super_block_rows<BlockQ6_K, Q6KDecoded>,
                                                           call.n / QK_K, call);
}

} // namespace

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn gemm_for_k_quant(TensorType type) {
    using T = TensorType;
    switch (type) {
    case T::Q2_K:
        return gemm_entry<vec_dot_q2_K_q8_K, prefill_low_bit<BlockQ2_K>>;
    case T::Q3_K:
        return gemm_entry<vec_dot_q3_K_q8_K, prefill_low_bit<BlockQ3_K>>;
    case T::Q4_K:
        return gemm_entry<vec_dot_q4_K_q8_K, prefill_q4_k>;
    case T::Q5_K:
        return gemm_entry<vec_dot_q5_K_q8_K, prefill_q5_k>;
    case T::Q6_K:
        return gemm_entry<vec_dot_q6_K_q8_K, prefill_q6_k>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::avx2
