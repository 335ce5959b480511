// Decode and small batches over Q2_K and Q3_K rows with Q8_K activations on AVX-512: two
// 32-element chunks per zmm, so a super-block takes half the instructions of the AVX2 kernel,
// which leaves these formats bound by arithmetic below the memory's speed. Q2_K goes further: its
// scale-times-quant products fit a byte, so a vpshufb table of them per super-block feeds
// vpdpbusd directly, with no int16 pair sums (Q3_K keeps those). A small batch decodes each
// super-block once for several activation rows.
//
// The integer sums are exact. Folding the zmm's two halves gives the AVX2 kernel's 8 int32 lanes
// (lane i: bytes 4i..4i+3 of every chunk), and the float steps are the AVX2 kernel's, in its
// order: both tiers give the same bits, decode and small batches alike.
#include "kernels/block_formats.h"
#include "kernels/gemm_by_rows.h"
#include "kernels/x86_avx2/decoded_k_quant.h"
#include "kernels/x86_avx2/low_bit_k_scales.h"
#include "kernels/x86_avx512/avx512_kernels.h"

#include <immintrin.h>

namespace hearth::kernels::avx512 {
namespace {

// 32 bytes in both halves of a zmm.
inline __m512i duplicate(const uint8_t* bytes) {
    return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes)));
}

// Chunks c and c + 1 (c even) of a Q2_K/Q3_K half (its 32 bytes duplicated): the 2-bit quants
// of chunk c sit at bits 2 (c % 4) of the bytes, those of chunk c + 1 two bits higher. Shifted
// down to bits 0-1, higher bits left as they are.
inline __m512i shifted_pair(__m512i half, int c) {
    const __m512i shifts = _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(2 * (c % 4))),
                                              _mm256_set1_epi16(static_cast<short>(2 * (c % 4) + 2)), 1);
    return _mm512_srlv_epi16(half, shifts);
}
// The same quants alone (0..3).
inline __m512i two_bit_pair(__m512i half, int c) {
    return _mm512_and_si512(shifted_pair(half, c), _mm512_set1_epi8(3));
}

// Q3_K's high bits of chunks c and c + 1 (bit c of hmask[l] for element 32c + l) added as 4.
inline __m512i add_high_bits(__m512i quants, __m512i high_bits, int c) {
    const __m512i bit = _mm512_inserti64x4(_mm512_set1_epi8(static_cast<char>(1 << c)),
                                           _mm256_set1_epi8(static_cast<char>(1 << (c + 1))), 1);
    const __mmask64 set = _mm512_test_epi8_mask(high_bits, bit);
    return _mm512_mask_add_epi8(quants, set, quants, _mm512_set1_epi8(4));
}

// The madd operand of chunks c and c + 1 from the 16 scales as int16 (words 0-15 of `scales`):
// one scale per 16 elements, so scale 2c + k / 8 on word k.
inline __m512i pair_scales(__m512i scales, int c) {
    alignas(64) int16_t index[32];
    for (int k = 0; k < 32; ++k)
        index[k] = static_cast<int16_t>(2 * c + k / 8);
    return _mm512_permutexvar_epi16(_mm512_load_si512(index), scales);
}

// Q2_K's products of scale and quant, s_g * q for the super-block's 16 groups g of 16 elements and
// q = 0..3, as one vpshufb table: lane k, byte 4t + q holds s_(4t + k) * q (at most 45, so an
// unsigned byte). Pair c's zmm holds groups 2c + k in its lanes k, so t = c / 2 there.
inline __m512i q2k_scaled_quant_table(const uint8_t* packed_scales) {
    const __m512i scales = _mm512_and_si512(
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(packed_scales))),
        _mm512_set1_epi8(0x0f));
    // Each word of lane k: scale 4t + k in its low byte and 0 in its high byte, for t = word / 2.
    const __m512i spread = _mm512_shuffle_epi8(
        scales, _mm512_set_epi32(0x800f800f, 0x800b800b, 0x80078007, 0x80038003, 0x800e800e, 0x800a800a,
                                 0x80068006, 0x80028002, 0x800d800d, 0x80098009, 0x80058005, 0x80018001,
                                 0x800c800c, 0x80088008, 0x80048004, 0x80008000));
    // Times 0x0100 (bytes q = 0, 1) or 0x0302 (q = 2, 3): bytes [0, s, 2s, 3s], no carries (3s <= 45).
    return _mm512_mullo_epi16(spread, _mm512_set1_epi32(0x03020100));
}

inline __m256i fold_halves(__m512i v) {
    return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}

// What one weight super-block gives every activation row, decoded once: a batch's rows (a
// prompt's few tokens, a verify pass's drafted ones) then cost a few multiply-adds each.
//
// Q2_K: per pair of chunks one shift, one ternary-logic op making the table index (the quant,
// plus 4t) and one vpshufb give the bytes s * q that meet the activations in one vpdpbusd, exact
// in int32; the mins meet the activations' 16-element sums.
struct Q2KDecoded : DecodedKQuant<BlockQ2_K> {
    __m512i scaled_quants[4]; // chunks c and c + 1 of pair c / 2
    __m256i mins;             // the 16 mins as int16
    __m128 d_dmin;            // [d, dmin]
    explicit Q2KDecoded(const BlockQ2_K& w) {
        const __m512i table = q2k_scaled_quant_table(w.scales);
        const __m512i halves[2] = {duplicate(w.qs), duplicate(w.qs + 32)};
#pragma GCC unroll 4
        for (int c = 0; c < 8; c += 2) {
            // (shifted & 3) | 4t in one op: 0xEA is A & B | C.
            const __m512i index =
                _mm512_ternarylogic_epi32(shifted_pair(halves[c / 4], c), _mm512_set1_epi8(3),
                                          _mm512_set1_epi8(static_cast<char>(2 * c)), 0xEA);
            scaled_quants[c / 2] = _mm512_shuffle_epi8(table, index);
        }
        mins = q2k_scales(w.scales).mins;
        // d and dmin are adjacent halves.
        d_dmin = _mm_cvtph_ps(
            _mm_cvtsi32_si128(static_cast<int>(read_u32(reinterpret_cast<const uint8_t*>(&w.d)))));
    }
    // acc + this super-block's dot product with `a`, in the AVX2 kernel's lanes and float steps.
    __m256 accumulate(const BlockQ8_K& a, __m256 acc) const {
        __m512i sum = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int c = 0; c < 8; c += 2)
            sum = _mm512_dpbusd_epi32(sum, scaled_quants[c / 2], _mm512_loadu_si512(a.qs + 32 * c));
        const __m256i dot = fold_halves(sum);
        const __m256i scaled_mins =
            _mm256_madd_epi16(mins, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.bsums)));
        const __m128 super_scales = _mm_mul_ps(d_dmin, _mm_broadcast_ss(&a.d)); // [d * a.d, dmin * a.d]
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(super_scales), _mm256_cvtepi32_ps(dot), acc);
        return _mm256_fnmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(super_scales)),
                                _mm256_cvtepi32_ps(scaled_mins), acc);
    }
};

// Q3_K: the quants with their high bits, and the scales each pair's int16 sums take (its
// six-bit scales times three-bit quants do not fit a byte, so no table as Q2_K's).
struct Q3KDecoded : DecodedKQuant<BlockQ3_K> {
    __m512i quants[4];     // chunks c and c + 1 of pair c / 2, 0..7
    __m512i pair_scale[4]; // their scales, one per 16 elements, as int16
    __m256i scales;        // the 16 scales as int16, for the offset term
    float d;
    explicit Q3KDecoded(const BlockQ3_K& w) : scales(q3k_scales(w.scales)), d(_cvtsh_ss(w.d)) {
        const __m512i halves[2] = {duplicate(w.qs), duplicate(w.qs + 32)};
        const __m512i wide_scales = _mm512_castsi256_si512(scales);
        const __m512i high_bits = duplicate(w.hmask);
#pragma GCC unroll 4
        for (int c = 0; c < 8; c += 2) {
            quants[c / 2] = add_high_bits(two_bit_pair(halves[c / 4], c), high_bits, c);
            pair_scale[c / 2] = pair_scales(wide_scales, c);
        }
    }
    __m256 accumulate(const BlockQ8_K& a, __m256 acc) const {
        __m512i sum = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int c = 0; c < 8; c += 2) {
            const __m512i products = _mm512_maddubs_epi16(quants[c / 2], _mm512_loadu_si512(a.qs + 32 * c));
            sum = _mm512_dpwssd_epi32(sum, products, pair_scale[c / 2]);
        }
        const __m256i dot = _mm256_add_epi32(q3k_offset_terms(scales, a.bsums), fold_halves(sum));
        return _mm256_fmadd_ps(_mm256_set1_ps(d * a.d), _mm256_cvtepi32_ps(dot), acc);
    }
};

// Activation rows per pass over a weight row: 8 accumulators beside a super-block's decoded
// weights (Q3_K: 8 zmm) stay in the 32 registers.
constexpr int kRowsPerPass = 8;

} // namespace

// Decode (batch 1) runs the rows one by one, each super-block decoded as above and each row's
// lines asked for ahead of it as the AVX2 tier does (gemm_by_rows.h); batches of up to 32 decode
// each super-block once for up to kRowsPerPass activation rows, larger ones go to the panels
// (gemm_k_quants.h). Zen 4, Llama 3.2 1B Q2_K, 2 threads, prefill t/s these / panels: pp16 131/94,
// pp32 142/136, pp48 141/154, pp64 145/168.
void add_low_bit_k_quant_kernels(KernelTable& table) {
    constexpr int64_t kPanelsFrom = 33;
    const auto kernel = [](std::string_view name, GemmFn fn) {
        // Each super-block decoded the same way for one row or several: a verify pass's rows
        // together, each its decode's bits.
        return with_rows_as_single(
            matmul_kernel(name, cpu(Isa::Avx512), fn, TensorType::Q8_K, {.max_batch = kPanelsFrom - 1}));
    };
    table.of(TensorType::Q2_K)
        .matmul.put_first({kernel("gemm_q2_K_q8_K_rows", gemm_by_decoded_blocks<Q2KDecoded, kRowsPerPass>)});
    table.of(TensorType::Q3_K)
        .matmul.put_first({kernel("gemm_q3_K_q8_K_rows", gemm_by_decoded_blocks<Q3KDecoded, kRowsPerPass>)});
}

} // namespace hearth::kernels::avx512
