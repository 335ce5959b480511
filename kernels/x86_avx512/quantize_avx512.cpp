// The Q8_0 activation quantizer with 512-bit vectors: the reference's choice among eight scales
// (quantize_row_q8_0_activations_ref), bit for bit the AVX2 tier's. In prefill over Q8_0 weights
// on the AMX tier it took 17% of the time with 256-bit vectors: each block tries eight scales.
// Here two candidates share a vector (candidate c in lanes 0-7, c + 1 in lanes 8-15), each lane
// summing the same elements in the same order as the AVX2 tier's lane, and the eight sums are
// reduced by the same tree of horizontal adds.
#include "kernels/block_formats.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx512/avx512_kernels.h"

#include <immintrin.h>

namespace hearth::kernels::avx512 {
namespace {

inline __m512 abs16(__m512 v) {
    return _mm512_abs_ps(v);
}

// Clamps to [-127, 127] as std::clamp does (a NaN stays a NaN: max and min return their second
// operand when either is one).
inline __m512 clamp127(__m512 v) {
    return _mm512_min_ps(_mm512_set1_ps(127.0f), _mm512_max_ps(_mm512_set1_ps(-127.0f), v));
}

// The squared errors of the block's 32 values (v[k]: values 8k..8k+7 in both halves) quantized
// with candidates 2p (lanes 0-7) and 2p + 1 (lanes 8-15), per lane, in the reference's order.
template <bool Clamp> inline __m512 squared_errors(const __m512 v[4], __m512 d, __m512 inverse) {
    __m512 sums = _mm512_setzero_ps();
    for (int k = 0; k < 4; ++k) {
        const __m512 scaled = Clamp ? clamp127(_mm512_mul_ps(v[k], inverse)) : _mm512_mul_ps(v[k], inverse);
        const __m512 q = _mm512_roundscale_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512 e = _mm512_fnmadd_ps(q, d, v[k]); // q * d is exact: as x - q * d
        sums = k == 0 ? _mm512_mul_ps(e, e) : _mm512_add_ps(sums, _mm512_mul_ps(e, e));
    }
    return sums;
}

// The eight candidates' errors, lane c = candidate c: the AVX2 tier's tree (pairs, quarters,
// halves of each candidate's eight partial sums).
inline __m256 reduce_errors(const __m512 pairs[4]) {
    __m256 sums[8];
    for (int p = 0; p < 4; ++p) {
        sums[2 * p] = _mm512_castps512_ps256(pairs[p]);
        sums[2 * p + 1] = _mm512_extractf32x8_ps(pairs[p], 1);
    }
    const __m256 s0123 = _mm256_hadd_ps(_mm256_hadd_ps(sums[0], sums[1]), _mm256_hadd_ps(sums[2], sums[3]));
    const __m256 s4567 = _mm256_hadd_ps(_mm256_hadd_ps(sums[4], sums[5]), _mm256_hadd_ps(sums[6], sums[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(s0123, s4567, 0x20),
                         _mm256_permute2f128_ps(s0123, s4567, 0x31));
}

// Both halves of a vector: one scalar per half.
inline __m512 halves(float low, float high) {
    return _mm512_insertf32x8(_mm512_set1_ps(low), _mm256_set1_ps(high), 1);
}

// The same for 16 blocks at once, lane l for block l: each lane's operations are the reference's
// for its block, in its order (a candidate's squared errors into 8 partial sums by element j % 8,
// j = 0..31, then pairs, quarters, halves; the first smallest kept), so the choice is the same;
// with no horizontal operation or branch, the 16 blocks' work overlaps where one block's is a
// chain of dependent steps. Returns each block's scale's fp16 bits and inverse.
void choose_scales16(const float* x, uint16_t* scale_bits, float* inverses) {
    const __m512i offsets = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(QK8_0));
    __m512 v[QK8_0];
    __m512 amax = _mm512_setzero_ps();
    for (int j = 0; j < QK8_0; ++j) {
        v[j] = _mm512_i32gather_ps(offsets, x + j, 4);
        amax = _mm512_max_ps(abs16(v[j]), amax);
    }
    __m512 best_error = _mm512_setzero_ps(), best_d = _mm512_setzero_ps(), best_inverse = _mm512_setzero_ps();
    __m256i best_bits = _mm256_setzero_si256();
    for (int c = 0; c < 8; ++c) {
        const __m256i bits = _mm512_cvtps_ph(_mm512_div_ps(amax, _mm512_set1_ps(static_cast<float>(127 - c))),
                                             _MM_FROUND_TO_NEAREST_INT);
        const __m512 d = _mm512_cvtph_ps(bits);
        const __mmask16 nonzero = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_NEQ_UQ);
        const __m512 inverse = _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(1.0f), d);
        const bool in_range =
            _mm512_cmp_ps_mask(_mm512_mul_ps(amax, inverse), _mm512_set1_ps(127.5f), _CMP_LT_OQ) == 0xFFFF;
        __m512 sums[8];
        for (int j = 0; j < QK8_0; ++j) {
            const __m512 product = _mm512_mul_ps(v[j], inverse);
            const __m512 scaled = in_range ? product : clamp127(product);
            const __m512 q = _mm512_roundscale_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            const __m512 e = _mm512_fnmadd_ps(q, d, v[j]);
            sums[j % 8] = j < 8 ? _mm512_mul_ps(e, e) : _mm512_add_ps(sums[j % 8], _mm512_mul_ps(e, e));
        }
        const __m512 error =
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(sums[0], sums[1]), _mm512_add_ps(sums[2], sums[3])),
                          _mm512_add_ps(_mm512_add_ps(sums[4], sums[5]), _mm512_add_ps(sums[6], sums[7])));
        const __mmask16 better =
            c == 0 ? __mmask16(0xFFFF) : _mm512_cmp_ps_mask(error, best_error, _CMP_LT_OQ);
        best_error = _mm512_mask_mov_ps(best_error, better, error);
        best_d = _mm512_mask_mov_ps(best_d, better, d);
        best_inverse = _mm512_mask_mov_ps(best_inverse, better, inverse);
        best_bits = _mm256_mask_mov_epi16(best_bits, better, bits);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(scale_bits), best_bits);
    _mm512_storeu_ps(inverses, best_inverse);
}

void quantize_row_q8_0_activations(const float* src, void* dst, int64_t n) {
    static_assert(kQ8_0ActivationScales == 8, "two candidates per vector, four vectors");
    auto* out = static_cast<BlockQ8_0*>(dst);
    const __m256 divisors = _mm256_setr_ps(127.0f, 126.0f, 125.0f, 124.0f, 123.0f, 122.0f, 121.0f, 120.0f);
    const int64_t blocks = n / QK8_0;
    int64_t b = 0;
    for (; b + 16 <= blocks; b += 16) {
        alignas(32) uint16_t bits[16];
        alignas(64) float inverses[16];
        choose_scales16(src + b * QK8_0, bits, inverses);
        for (int l = 0; l < 16; ++l) {
            const float* x = src + (b + l) * QK8_0;
            out[b + l].d = bits[l];
            const __m512 ib = _mm512_set1_ps(inverses[l]);
            _mm_storeu_si128(
                reinterpret_cast<__m128i*>(out[b + l].qs),
                _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(clamp127(_mm512_mul_ps(_mm512_loadu_ps(x), ib)))));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b + l].qs + 16),
                             _mm512_cvtsepi32_epi8(
                                 _mm512_cvtps_epi32(clamp127(_mm512_mul_ps(_mm512_loadu_ps(x + 16), ib)))));
        }
    }
    for (; b < blocks; ++b) { // the last blocks, one at a time
        const float* x = src + b * QK8_0;
        const __m512 low = _mm512_loadu_ps(x), high = _mm512_loadu_ps(x + 16);
        // The maximum of |x| (order does not matter; a NaN leaves it unchanged, as in std::max).
        const float amax =
            _mm512_reduce_max_ps(_mm512_max_ps(abs16(high), _mm512_max_ps(abs16(low), _mm512_setzero_ps())));
        const __m128i scales =
            _mm256_cvtps_ph(_mm256_div_ps(_mm256_set1_ps(amax), divisors), _MM_FROUND_TO_NEAREST_INT);
        const __m256 d = _mm256_cvtph_ps(scales);
        const __m256 nonzero = _mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_NEQ_UQ);
        const __m256 inverse = _mm256_and_ps(nonzero, _mm256_div_ps(_mm256_set1_ps(1.0f), d));
        alignas(32) float ds[8], inverses[8];
        alignas(16) uint16_t halves_bits[8];
        _mm256_store_ps(ds, d);
        _mm256_store_ps(inverses, inverse);
        _mm_store_si128(reinterpret_cast<__m128i*>(halves_bits), scales);
        const bool in_range = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(_mm256_set1_ps(amax), inverse),
                                                               _mm256_set1_ps(127.5f), _CMP_LT_OQ)) == 0xff;
        __m512 v[4];
        for (int k = 0; k < 4; ++k)
            v[k] = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + 8 * k));
        __m512 pairs[4];
        for (int p = 0; p < 4; ++p) {
            const __m512 dp = halves(ds[2 * p], ds[2 * p + 1]),
                         ip = halves(inverses[2 * p], inverses[2 * p + 1]);
            pairs[p] = in_range ? squared_errors<false>(v, dp, ip) : squared_errors<true>(v, dp, ip);
        }
        alignas(32) float errors[8];
        _mm256_store_ps(errors, reduce_errors(pairs));
        int best = 0;
        for (int c = 1; c < 8; ++c)
            if (errors[c] < errors[best]) best = c;
        out[b].d = halves_bits[best];
        const __m512 ib = _mm512_set1_ps(inverses[best]);
        // Rounded half to even (the default rounding), within [-127, 127] or a NaN's -128 as the
        // AVX2 tier's saturating packs give.
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b].qs),
                         _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(clamp127(_mm512_mul_ps(low, ib)))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b].qs + 16),
                         _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(clamp127(_mm512_mul_ps(high, ib)))));
    }
}

} // namespace

void add_quantizer_kernels(KernelTable& table) {
    // The 32-element formats' dot products all take their activations through Q8_0's entry.
    table.of(TensorType::Q8_0).quantize_activations = quantize_row_q8_0_activations;
}

} // namespace hearth::kernels::avx512
