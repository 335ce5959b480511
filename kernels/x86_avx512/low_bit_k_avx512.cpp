// Decode over Q2_K and Q3_K rows with Q8_K activations on AVX-512: two 32-element chunks per
// zmm, so a super-block takes half the instructions of the AVX2 kernel, which leaves these
// formats bound by arithmetic below the memory's speed. Q2_K goes further: its
// scale-times-quant products fit a byte, so a vpshufb table of them per super-block feeds
// vpdpbusd directly, with no int16 pair sums (Q3_K keeps those).
//
// The integer sums are exact. Folding the zmm's two halves gives the AVX2 kernel's 8 int32 lanes
// (lane i: bytes 4i..4i+3 of every chunk), and the float steps are the AVX2 kernel's, in its
// order: both tiers give the same bits, so small prefill batches, which keep the AVX2 tier's gemm
// tiles, agree with decode to the bit.
#include "kernels/block_formats.h"
#include "kernels/gemm_by_rows.h"
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

// The Q3_K super-block's weighted integer sum of 8 chunks, as the AVX2 kernel's 8 int32 lanes.
// (Q3_K's signed six-bit scales times its three-bit quants do not fit a byte, so the scales apply
// to int16 pair sums here, not through a table as Q2_K's do.)
inline __m256i q3k_chunk_sums(const uint8_t* qs, const uint8_t* hmask, __m256i scales, const int8_t* x) {
    const __m512i halves[2] = {duplicate(qs), duplicate(qs + 32)};
    const __m512i wide_scales = _mm512_castsi256_si512(scales);
    const __m512i high_bits = duplicate(hmask);
    __m512i sum = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int c = 0; c < 8; c += 2) {
        const __m512i quants = add_high_bits(two_bit_pair(halves[c / 4], c), high_bits, c);
        const __m512i products = _mm512_maddubs_epi16(quants, _mm512_loadu_si512(x + 32 * c));
        sum = _mm512_dpwssd_epi32(sum, products, pair_scales(wide_scales, c));
    }
    return _mm256_add_epi32(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
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

// The Q2_K super-block's weighted integer sum of 8 chunks, as the AVX2 kernel's 8 int32 lanes:
// per pair of chunks one shift, one ternary-logic op making the table index (the quant, plus 4t),
// one vpshufb giving s * q and one vpdpbusd against the activations, exact in int32.
inline __m256i q2k_chunk_sums(const uint8_t* qs, __m512i table, const int8_t* x) {
    const __m512i halves[2] = {duplicate(qs), duplicate(qs + 32)};
    __m512i sum = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int c = 0; c < 8; c += 2) {
        // (shifted & 3) | 4t in one op: 0xEA is A & B | C.
        const __m512i index = _mm512_ternarylogic_epi32(shifted_pair(halves[c / 4], c), _mm512_set1_epi8(3),
                                                        _mm512_set1_epi8(static_cast<char>(2 * c)), 0xEA);
        sum = _mm512_dpbusd_epi32(sum, _mm512_shuffle_epi8(table, index), _mm512_loadu_si512(x + 32 * c));
    }
    return _mm256_add_epi32(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
}

// The AVX2 tier's horizontal sum, step for step.
inline float sum_lanes(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

float vec_dot_q2_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ2_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const Q2KScales scales = q2k_scales(w[i].scales);
        const __m256i dot = q2k_chunk_sums(w[i].qs, q2k_scaled_quant_table(w[i].scales), a[i].qs);
        const __m256i scaled_mins =
            _mm256_madd_epi16(scales.mins, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[i].bsums)));
        // [d * a.d, dmin * a.d]: d and dmin are adjacent halves.
        const __m128 super_scales = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(
                                                   read_u32(reinterpret_cast<const uint8_t*>(&w[i].d))))),
                                               _mm_broadcast_ss(&a[i].d));
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(super_scales), _mm256_cvtepi32_ps(dot), acc);
        acc = _mm256_fnmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(super_scales)),
                               _mm256_cvtepi32_ps(scaled_mins), acc);
    }
    return sum_lanes(acc);
}

float vec_dot_q3_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ3_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m256i scales = q3k_scales(w[i].scales);
        const __m256i dot = _mm256_add_epi32(q3k_offset_terms(scales, a[i].bsums),
                                             q3k_chunk_sums(w[i].qs, w[i].hmask, scales, a[i].qs));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(w[i].d) * a[i].d), _mm256_cvtepi32_ps(dot), acc);
    }
    return sum_lanes(acc);
}

} // namespace

// Decode (batch 1) runs the rows through the dot products above, each row's lines asked for
// ahead of it as the AVX2 tier does (gemm_by_rows.h); batches stay with the tier's other kernels.
void add_low_bit_k_quant_kernels(KernelTable& table) {
    const auto decode = [](std::string_view name, GemmFn fn) {
        return matmul_kernel(name, cpu(Isa::Avx512), fn, TensorType::Q8_K, {.max_batch = 1});
    };
    table.of(TensorType::Q2_K)
        .matmul.put_first({decode("vec_dot_q2_K_q8_K", gemm_by_dot<vec_dot_q2_K_q8_K>)});
    table.of(TensorType::Q3_K)
        .matmul.put_first({decode("vec_dot_q3_K_q8_K", gemm_by_dot<vec_dot_q3_K_q8_K>)});
}

} // namespace hearth::kernels::avx512
