// Dot products of the K-quants (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K) with Q8_K activations. Per super-block the
// integer sum, already weighted by the sub-block scales, is exact in int32; the super-block
// scale and the min (or offset) correction, taken from the activations' bsums, are applied in float.
//
// Decode runs these row by row, so they are written for throughput per super-block: every loop
// is unrolled with constant shuffle masks (GCC otherwise rebuilt the masks and spilled the
// quants on each pass), the scales are unpacked in vector registers, and the Q4_K/Q5_K scale
// operands are broadcast from a small stack array. The float operations and their order, and
// the int32 value of every lane before it is converted, are exactly those of the first version:
// results are bit-identical.
#include "kernels/block_formats.h"
#include "kernels/gemm_by_rows.h"
#include "kernels/x86_avx2/avx2_k_quants.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/decoded_k_quant.h"

namespace hearth::kernels::avx2 {
namespace {

// [d * a.d, dmin * a.d, 0, 0] from the block's leading fp16 pair: the same products as the
// scalar fp16_to_float(d) * a.d, one conversion and one multiply for both.
inline __m128 k4_super_scales(const void* block, const float* activation_scale) {
    return _mm_mul_ps(
        _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(load_u32(static_cast<const uint8_t*>(block))))),
        _mm_broadcast_ss(activation_scale));
}

// Hides from GCC what `values` holds, so that it broadcasts each element straight from memory
// (a load) instead of forwarding the stored vector into a shift and a broadcast (two shuffles).
template <typename T> inline void keep_in_memory(T& values) {
    asm("" : "+m"(values));
}

// The float part shared by Q4_K and Q5_K, after the integer sums of one super-block:
// `min_terms` holds lane k = mins[2k] * pair_sums[2k] + mins[2k+1] * pair_sums[2k+1].
struct K4Accumulators {
    __m256 acc = _mm256_setzero_ps();
    __m128 acc_min = _mm_setzero_ps();
    void add(__m128 super_scales, __m128 min_terms, __m256i sum) {
        acc_min = _mm_fmadd_ps(_mm_shuffle_ps(super_scales, super_scales, _MM_SHUFFLE(1, 1, 1, 1)), min_terms,
                               acc_min);
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(super_scales), _mm256_cvtepi32_ps(sum), acc);
    }
    float result() const { return hsum(acc) - hsum(acc_min); }
};

// Q4_K/Q5_K scale operands, stored by k4_scale_pairs: scale j (j < 4) at low[j], scale j
// (j >= 4) at high[j]; one super-block's are low = high = its 8 dwords.
struct K4ScaleOperands {
    const int32_t* low;
    const int32_t* high;
    __m256i operand(int j) const { return _mm256_set1_epi32((j < 4 ? low : high)[j]); }
};

// Sub-block 2j (low nibbles, activations 64j..64j+31) and 2j+1 (high nibbles, the next 32),
// each weighted by its scale.
inline __m256i k4_pair_dot(__m256i q_low, __m256i q_high, const int8_t* x, K4ScaleOperands scales, int j) {
    const __m256i low =
        _mm256_madd_epi16(_mm256_maddubs_epi16(q_low, load256(x + 64 * j)), scales.operand(2 * j));
    const __m256i high =
        _mm256_madd_epi16(_mm256_maddubs_epi16(q_high, load256(x + 64 * j + 32)), scales.operand(2 * j + 1));
    return _mm256_add_epi32(low, high);
}

// The integer sum of one Q4_K super-block, lane k holding elements 4k..4k+3 of every 32.
inline __m256i q4k_block_sum(const uint8_t* qs, const int8_t* x, K4ScaleOperands scales) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) { // 64 elements: low nibbles are sub-block 2j, high ones 2j+1
        const __m256i q = load256(qs + 32 * j);
        const __m256i q_low = _mm256_and_si256(q, low4);
        const __m256i q_high = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
        sum = _mm256_add_epi32(sum, k4_pair_dot(q_low, q_high, x, scales, j));
    }
    return sum;
}

} // namespace

float vec_dot_q4_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ4_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    const int64_t blocks = n / QK_K;
    K4Accumulators accumulators;
    int64_t i = 0;
    // Two super-blocks at a time, one per 128-bit lane, for the scale and min work; the float
    // steps still run block by block, in order.
    for (; i + 1 < blocks; i += 2) {
        const __m256i scale_bytes =
            unpack_k4_scale_lanes(_mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(w[i + 1].scales),
                                                      reinterpret_cast<const __m128i*>(w[i].scales)));
        // Dwords 0-3: scales 0-3 of block i, 4-7: of block i+1; 8-15 the same for scales 4-7.
        alignas(32) int32_t scale_pairs[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scale_pairs), k4_scale_pairs_low(scale_bytes));
        _mm256_store_si256(reinterpret_cast<__m256i*>(scale_pairs + 8), k4_scale_pairs_high(scale_bytes));
        keep_in_memory(scale_pairs);
        const __m256i pair_sums =
            _mm256_hadd_epi16(_mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(a[i + 1].bsums),
                                                  reinterpret_cast<const __m128i*>(a[i].bsums)),
                              _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(a[i + 1].bsums + 8),
                                                  reinterpret_cast<const __m128i*>(a[i].bsums + 8)));
        const __m256 min_terms = _mm256_cvtepi32_ps(_mm256_madd_epi16(k4_mins_lanes(scale_bytes), pair_sums));
        accumulators.add(k4_super_scales(&w[i], &a[i].d), _mm256_castps256_ps128(min_terms),
                         q4k_block_sum(w[i].qs, a[i].qs, {scale_pairs, scale_pairs + 4}));
        accumulators.add(k4_super_scales(&w[i + 1], &a[i + 1].d), _mm256_extractf128_ps(min_terms, 1),
                         q4k_block_sum(w[i + 1].qs, a[i + 1].qs, {scale_pairs + 4, scale_pairs + 8}));
    }
    if (i < blocks) {
        const __m256i scale_bytes = unpack_k4_scale_bytes(w[i].scales);
        alignas(32) int32_t scale_pairs[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scale_pairs), k4_scale_pairs(scale_bytes));
        keep_in_memory(scale_pairs);
        const __m128 min_terms = _mm_cvtepi32_ps(min_dot_bsums(k4_mins(scale_bytes), a[i].bsums));
        accumulators.add(k4_super_scales(&w[i], &a[i].d), min_terms,
                         q4k_block_sum(w[i].qs, a[i].qs, {scale_pairs, scale_pairs}));
    }
    return accumulators.result();
}

float vec_dot_q5_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ5_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    K4Accumulators accumulators;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m256i scale_bytes = unpack_k4_scale_bytes(w[i].scales);
        alignas(32) int32_t scale_pairs[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scale_pairs), k4_scale_pairs(scale_bytes));
        keep_in_memory(scale_pairs);
        const __m256i high_bits = load256(w[i].qh);
        __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const QuantPair q = q5k_quant_pair(w[i].qs, high_bits, j);
            sum = _mm256_add_epi32(sum, k4_pair_dot(q.low, q.high, a[i].qs, {scale_pairs, scale_pairs}, j));
        }
        accumulators.add(k4_super_scales(&w[i], &a[i].d),
                         _mm_cvtepi32_ps(min_dot_bsums(k4_mins(scale_bytes), a[i].bsums)), sum);
    }
    return accumulators.result();
}

float vec_dot_q6_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ6_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m256i scales = q6k_scales(w[i].scales);
        __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6k_half_lean(w[i].ql + 64 * half, w[i].qh + 32 * half, q);
            const __m256i half_scales = broadcast_lane(scales, half);
            const int8_t* x = a[i].qs + 128 * half;
            // Two chains of sums so that the adds do not wait on each other.
            const __m256i s01 =
                _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(q[0], load256(x)),
                                                   _mm256_shuffle_epi8(half_scales, q6k_scale_pick(0))),
                                 _mm256_madd_epi16(_mm256_maddubs_epi16(q[1], load256(x + 32)),
                                                   _mm256_shuffle_epi8(half_scales, q6k_scale_pick(1))));
            const __m256i s23 =
                _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(q[2], load256(x + 64)),
                                                   _mm256_shuffle_epi8(half_scales, q6k_scale_pick(2))),
                                 _mm256_madd_epi16(_mm256_maddubs_epi16(q[3], load256(x + 96)),
                                                   _mm256_shuffle_epi8(half_scales, q6k_scale_pick(3))));
            sum = _mm256_add_epi32(sum, _mm256_add_epi32(s01, s23));
        }
        // The quants are stored as q + 32: subtract 32 * scale * (sum of each 16 activations).
        sum = _mm256_sub_epi32(sum, _mm256_slli_epi32(_mm256_madd_epi16(scales, load256(a[i].bsums)), 5));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w[i].d) * a[i].d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc);
}

namespace {

// Q2_K and Q3_K: the super-block's scaled integer sums exactly, in 8 int32 lanes (each far
// below 2^24, so converting them is exact); the float scales apply per lane and the lanes are
// summed once per row. (Summing each super-block to a scalar first, as the reference does,
// took half the time of a row in horizontal sums and a serial float chain.)
// A small batch decodes each super-block once (its quants as bytes, each chunk's scale operand)
// for every activation row it meets (gemm_by_decoded_blocks, gemm_by_rows.h), with the same
// operations per row as the dot products below, so the same bits. Decode keeps the dot products,
// which decode chunk by chunk as they multiply: through the decoded super-block (16 ymm, beyond
// the registers) decode ran at 32.8 t/s against 35.5 (Llama 3.2 1B Q2_K, Zen 4, 2 threads).
// sum + the eight chunks' products of a decoded super-block with an activation block, each
// chunk's int16 pair sums widened by its scale operand (the dot products' integers).
inline __m256i scaled_chunk_sums(const __m256i (&quants)[8], const __m256i (&scale)[8], const BlockQ8_K& a,
                                 __m256i sum) {
#pragma GCC unroll 8
    for (int c = 0; c < 8; ++c)
        sum = _mm256_add_epi32(
            sum, _mm256_madd_epi16(_mm256_maddubs_epi16(quants[c], load256(a.qs + 32 * c)), scale[c]));
    return sum;
}

struct Q2KDecoded : DecodedKQuant<BlockQ2_K> {
    __m256i quants[8]; // chunk c: elements 32c..32c+31, 0..3
    __m256i scale[8];  // chunk c's scale operand
    __m256i mins;      // the 16 mins as int16
    const BlockQ2_K& block;
    explicit Q2KDecoded(const BlockQ2_K& w) : block(w) {
        const __m256i halves[2] = {load256(w.qs), load256(w.qs + 32)};
        const Q2KScales scales = q2k_scales(w.scales);
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c) {
            quants[c] = two_bit_chunk(halves[c / 4], c);
            scale[c] = chunk_scales(scales.scales, c);
        }
        mins = scales.mins;
    }
    __m256 accumulate(const BlockQ8_K& a, __m256 acc) const {
        const __m256i dot = scaled_chunk_sums(quants, scale, a, _mm256_setzero_si256());
        const __m256i scaled_mins = _mm256_madd_epi16(mins, load256(a.bsums));
        const __m128 super_scales = k4_super_scales(&block.d, &a.d); // [d * a.d, dmin * a.d]
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(super_scales), _mm256_cvtepi32_ps(dot), acc);
        return _mm256_fnmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(super_scales)),
                                _mm256_cvtepi32_ps(scaled_mins), acc);
    }
};

struct Q3KDecoded : DecodedKQuant<BlockQ3_K> {
    __m256i quants[8]; // chunk c: elements 32c..32c+31, 0..7 (q3k_chunk)
    __m256i scale[8];  // chunk c's scale operand
    __m256i scales;    // the 16 scales as int16, for the offset term
    float d;
    explicit Q3KDecoded(const BlockQ3_K& w) : scales(q3k_scales(w.scales)), d(fp16_to_float(w.d)) {
        const __m256i halves[2] = {load256(w.qs), load256(w.qs + 32)};
        const __m256i high_bits = load256(w.hmask);
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c) {
            quants[c] = q3k_chunk(halves[c / 4], high_bits, c);
            scale[c] = chunk_scales(scales, c);
        }
    }
    __m256 accumulate(const BlockQ8_K& a, __m256 acc) const {
        const __m256i dot = scaled_chunk_sums(quants, scale, a, q3k_offset_terms(scales, a.bsums));
        return _mm256_fmadd_ps(_mm256_set1_ps(d * a.d), _mm256_cvtepi32_ps(dot), acc);
    }
};

// Q5_K: its quants (the fifth bit joined), its scale operands and mins, decoded once; the
// integer sums and K4Accumulators' float steps as vec_dot_q5_K_q8_K's.
struct Q5KDecoded : DecodedKQuant<BlockQ5_K> {
    static K4Accumulators zero() { return {}; } // two accumulators: K4Accumulators'
    static float sum(const K4Accumulators& acc) { return acc.result(); }

    __m256i quants[8]; // sub-block 2j: q5k_quant_pair(j).low, 2j + 1: .high
    alignas(32) int32_t scale_pairs[8];
    __m128i mins;
    const BlockQ5_K& block;
    explicit Q5KDecoded(const BlockQ5_K& w) : block(w) {
        const __m256i scale_bytes = unpack_k4_scale_bytes(w.scales);
        _mm256_store_si256(reinterpret_cast<__m256i*>(scale_pairs), k4_scale_pairs(scale_bytes));
        mins = k4_mins(scale_bytes);
        const __m256i high_bits = load256(w.qh);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const QuantPair q = q5k_quant_pair(w.qs, high_bits, j);
            quants[2 * j] = q.low;
            quants[2 * j + 1] = q.high;
        }
    }
    K4Accumulators accumulate(const BlockQ8_K& a, K4Accumulators acc) const {
        __m256i dot = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j)
            dot = _mm256_add_epi32(
                dot, k4_pair_dot(quants[2 * j], quants[2 * j + 1], a.qs, {scale_pairs, scale_pairs}, j));
        acc.add(k4_super_scales(&block, &a.d), _mm_cvtepi32_ps(min_dot_bsums(mins, a.bsums)), dot);
        return acc;
    }
};

// Q6_K: its quants (six unsigned bits), each chunk's scale operand and the 16 scales for the
// offset term, decoded once; the integer sums and the one float step per block as
// vec_dot_q6_K_q8_K's.
struct Q6KDecoded : DecodedKQuant<BlockQ6_K> {
    __m256i quants[8]; // chunk c: elements 32c..32c+31
    __m256i scale[8];  // chunk c's scale operand
    __m256i scales;    // the 16 scales as int16
    float d;
    explicit Q6KDecoded(const BlockQ6_K& w) : scales(q6k_scales(w.scales)), d(fp16_to_float(w.d)) {
        unpack_q6k_half_lean(w.ql, w.qh, quants);
        unpack_q6k_half_lean(w.ql + 64, w.qh + 32, quants + 4);
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c)
            scale[c] = chunk_scales(scales, c);
    }
    __m256 accumulate(const BlockQ8_K& a, __m256 acc) const {
        const __m256i offsets = _mm256_slli_epi32(_mm256_madd_epi16(scales, load256(a.bsums)), 5);
        const __m256i sum =
            _mm256_sub_epi32(scaled_chunk_sums(quants, scale, a, _mm256_setzero_si256()), offsets);
        return _mm256_fmadd_ps(_mm256_set1_ps(d * a.d), _mm256_cvtepi32_ps(sum), acc);
    }
};

// Activation rows per pass over a weight row in a small batch.
constexpr int kLowBitRowsPerPass = 4;

} // namespace

float vec_dot_q2_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ2_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m256i halves[2] = {load256(w[i].qs), load256(w[i].qs + 32)};
        const Q2KScales scales = q2k_scales(w[i].scales);
        __m256i dot = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c) {
            const __m256i products =
                _mm256_maddubs_epi16(two_bit_chunk(halves[c / 4], c), load256(a[i].qs + 32 * c));
            dot = _mm256_add_epi32(dot, _mm256_madd_epi16(products, chunk_scales(scales.scales, c)));
        }
        const __m256i scaled_mins = _mm256_madd_epi16(scales.mins, load256(a[i].bsums));
        const __m128 super_scales = k4_super_scales(&w[i].d, &a[i].d); // [d * a.d, dmin * a.d]
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(super_scales), _mm256_cvtepi32_ps(dot), acc);
        acc = _mm256_fnmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(super_scales)),
                               _mm256_cvtepi32_ps(scaled_mins), acc);
    }
    return hsum(acc);
}

float vec_dot_q3_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ3_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m256i halves[2] = {load256(w[i].qs), load256(w[i].qs + 32)};
        const __m256i high_bits = load256(w[i].hmask);
        const __m256i scales = q3k_scales(w[i].scales);
        __m256i dot = q3k_offset_terms(scales, a[i].bsums);
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c) {
            const __m256i products =
                _mm256_maddubs_epi16(q3k_chunk(halves[c / 4], high_bits, c), load256(a[i].qs + 32 * c));
            dot = _mm256_add_epi32(dot, _mm256_madd_epi16(products, chunk_scales(scales, c)));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w[i].d) * a[i].d), _mm256_cvtepi32_ps(dot), acc);
    }
    return hsum(acc);
}

// Without AVX, like build_table, its caller.
__attribute__((target("no-avx"))) GemmFn small_batch_gemm_for(TensorType type) {
    switch (type) {
    case TensorType::Q2_K:
        return gemm_by_decoded_blocks<Q2KDecoded, kLowBitRowsPerPass>;
    case TensorType::Q3_K:
        return gemm_by_decoded_blocks<Q3KDecoded, kLowBitRowsPerPass>;
    case TensorType::Q5_K:
        return gemm_by_decoded_blocks<Q5KDecoded, kLowBitRowsPerPass>;
    case TensorType::Q6_K:
        return gemm_by_decoded_blocks<Q6KDecoded, kLowBitRowsPerPass>;
    default:
        return nullptr;
    }
}

} // namespace hearth::kernels::avx2
