// Quantizers into Q8_0 and Q8_K, bit-identical to the reference ones (same scale formula, same
// rounding), eight values per instruction: the Q8_0 weight quantizer, and the activation
// quantizers (Q8_K as llama.cpp's CPU backend has it, Q8_0 with the reference's choice of scale).
#include "kernels/block_formats.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"

namespace hearth::kernels::avx2 {
namespace {

// (No namespace-scope vector constants: their initializers would run on CPUs without AVX.)
inline __m256 sign_bit() {
    return _mm256_set1_ps(-0.0f);
}
inline __m256 abs8(__m256 v) {
    return _mm256_andnot_ps(sign_bit(), v);
}

inline float max_abs(const float* x, int count) {
    __m256 m = _mm256_setzero_ps();
    // Operand order as std::max(m, |x|): a NaN input leaves the maximum unchanged.
    for (int i = 0; i < count; i += 8)
        m = _mm256_max_ps(abs8(_mm256_loadu_ps(x + i)), m);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
}

// Rounds half away from zero, like std::round: truncate, then step away from zero when
// the (exact) remainder is at least one half.
inline __m256i round_away(__m256 v) {
    const __m256 truncated = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 carry = _mm256_cmp_ps(abs8(_mm256_sub_ps(v, truncated)), _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    const __m256 step =
        _mm256_and_ps(carry, _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(v, sign_bit())));
    return _mm256_cvttps_epi32(_mm256_add_ps(truncated, step));
}
// Rounds half to even, like nearest_int().
inline __m256i round_even(__m256 v) {
    return _mm256_cvtps_epi32(v);
}

// Clamps to [-127, 127] as std::clamp does (a NaN stays a NaN: max_ps and min_ps return their
// second operand when either is one).
inline __m256 clamp127(__m256 v) {
    return _mm256_min_ps(_mm256_set1_ps(127.0f), _mm256_max_ps(_mm256_set1_ps(-127.0f), v));
}

// 32 int32 (four vectors in order) -> 32 int8 in order, saturating.
inline __m256i pack32(__m256i a, __m256i b, __m256i c, __m256i d) {
    const __m256i ab = _mm256_packs_epi32(a, b); // lane-interleaved: a0 b0 | a1 b1
    const __m256i cd = _mm256_packs_epi32(c, d);
    const __m256i abcd = _mm256_packs_epi16(ab, cd); // a0 b0 c0 d0 | a1 b1 c1 d1
    return _mm256_permutevar8x32_epi32(abcd, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Quantizes 32 values with inverse scale `id`; Round is round_away or round_even.
template <__m256i (*Round)(__m256)> inline __m256i quantize32(const float* x, __m256 id) {
    return pack32(
        Round(_mm256_mul_ps(_mm256_loadu_ps(x), id)), Round(_mm256_mul_ps(_mm256_loadu_ps(x + 8), id)),
        Round(_mm256_mul_ps(_mm256_loadu_ps(x + 16), id)), Round(_mm256_mul_ps(_mm256_loadu_ps(x + 24), id)));
}

// The squared errors of 32 values (four vectors) quantized with each of eight scales d[c]
// (inverse[c]): x - round(x * inverse) * d squared and summed per lane in order, then the eight
// lanes of each scale by pairs, quarters and halves; lane c of the result is scale c's. Clamp:
// whether x * inverse may leave [-127.5, 127.5] (when it cannot, clamping changes nothing).
template <bool Clamp> inline __m256 squared_errors(const __m256 v[4], const float* d, const float* inverse) {
    __m256 sums[8];
    for (int c = 0; c < 8; ++c) {
        const __m256 dc = _mm256_set1_ps(d[c]), ic = _mm256_set1_ps(inverse[c]);
        for (int k = 0; k < 4; ++k) {
            const __m256 scaled = Clamp ? clamp127(_mm256_mul_ps(v[k], ic)) : _mm256_mul_ps(v[k], ic);
            const __m256 q = _mm256_round_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            const __m256 e = _mm256_fnmadd_ps(q, dc, v[k]); // q * d is exact: as x - q * d
            sums[c] = k == 0 ? _mm256_mul_ps(e, e) : _mm256_add_ps(sums[c], _mm256_mul_ps(e, e));
        }
    }
    const __m256 s0123 = _mm256_hadd_ps(_mm256_hadd_ps(sums[0], sums[1]), _mm256_hadd_ps(sums[2], sums[3]));
    const __m256 s4567 = _mm256_hadd_ps(_mm256_hadd_ps(sums[4], sums[5]), _mm256_hadd_ps(sums[6], sums[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(s0123, s4567, 0x20),
                         _mm256_permute2f128_ps(s0123, s4567, 0x31));
}

} // namespace

void quantize_row_q8_0(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<BlockQ8_0*>(dst);
    for (int64_t b = 0; b < n / QK8_0; ++b) {
        const float* x = src + b * QK8_0;
        const float d = max_abs(x, QK8_0) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        out[b].d = float_to_fp16(d);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs),
                            quantize32<round_away>(x, _mm256_set1_ps(id)));
    }
}

// The reference's choice of scale (quantize_row_q8_0_activations_ref): the eight candidates
// fp16(max / m), m = 127..120, one per lane; each candidate's squared errors summed per lane in
// the reference's order, the eight sums of the eight candidates reduced together by a tree of
// horizontal adds in the reference's order (pairs, quarters, halves), the first smallest kept.
void quantize_row_q8_0_activations(const float* src, void* dst, int64_t n) {
    static_assert(kQ8_0ActivationScales == 8, "one candidate scale per lane");
    auto* out = static_cast<BlockQ8_0*>(dst);
    const __m256 divisors = _mm256_setr_ps(127.0f, 126.0f, 125.0f, 124.0f, 123.0f, 122.0f, 121.0f, 120.0f);
    for (int64_t b = 0; b < n / QK8_0; ++b) {
        const float* x = src + b * QK8_0;
        const __m256 v[4] = {_mm256_loadu_ps(x), _mm256_loadu_ps(x + 8), _mm256_loadu_ps(x + 16),
                             _mm256_loadu_ps(x + 24)};
        const float amax = max_abs(x, QK8_0);
        const __m128i halves =
            _mm256_cvtps_ph(_mm256_div_ps(_mm256_set1_ps(amax), divisors), _MM_FROUND_TO_NEAREST_INT);
        const __m256 d = _mm256_cvtph_ps(halves);
        const __m256 nonzero = _mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_NEQ_UQ);
        const __m256 inverse = _mm256_and_ps(nonzero, _mm256_div_ps(_mm256_set1_ps(1.0f), d));
        alignas(32) float ds[8], inverses[8];
        alignas(16) uint16_t scales[8];
        _mm256_store_ps(ds, d);
        _mm256_store_ps(inverses, inverse);
        _mm_store_si128(reinterpret_cast<__m128i*>(scales), halves);
        // Whether no quant of any candidate reaches 127.5 (always, unless the scales are fp16
        // denormals), so that the clamp changes nothing and can be left out.
        const bool in_range = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(_mm256_set1_ps(amax), inverse),
                                                               _mm256_set1_ps(127.5f), _CMP_LT_OQ)) == 0xff;
        alignas(32) float errors[8];
        _mm256_store_ps(errors, in_range ? squared_errors<false>(v, ds, inverses)
                                         : squared_errors<true>(v, ds, inverses));
        int best = 0;
        for (int c = 1; c < 8; ++c)
            if (errors[c] < errors[best]) best = c;
        out[b].d = scales[best];
        const __m256 ib = _mm256_set1_ps(inverses[best]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs),
                            pack32(round_even(clamp127(_mm256_mul_ps(v[0], ib))),
                                   round_even(clamp127(_mm256_mul_ps(v[1], ib))),
                                   round_even(clamp127(_mm256_mul_ps(v[2], ib))),
                                   round_even(clamp127(_mm256_mul_ps(v[3], ib)))));
    }
}

void quantize_row_q8_K(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<BlockQ8_K*>(dst);
    for (int64_t b = 0; b < n / QK_K; ++b) {
        const float* x = src + b * QK_K;
        const float amax = max_abs(x, QK_K);
        BlockQ8_K& block = out[b];
        if (amax == 0.0f) {
            std::memset(&block, 0, sizeof block);
            continue;
        }
        // The scale is -127 / (the first value of largest magnitude), signed, as the reference's.
        float max = 0.0f;
        for (int i = 0; i < QK_K; i += 8) {
            const int hits = _mm256_movemask_ps(
                _mm256_cmp_ps(abs8(_mm256_loadu_ps(x + i)), _mm256_set1_ps(amax), _CMP_EQ_OQ));
            if (hits != 0) {
                max = x[i + __builtin_ctz(static_cast<unsigned>(hits))];
                break;
            }
        }
        const float id = -127.0f / max;
        block.d = 1.0f / id;
        const __m256i ones = _mm256_set1_epi8(1);
        for (int i = 0; i < QK_K; i += 32) {
            const __m256i q = quantize32<round_even>(x + i, _mm256_set1_ps(id));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(block.qs + i), q);
            // Sums of each 16 quants: pairwise products with 1, then a horizontal add of 8 pairs per 16.
            const __m256i pairs = _mm256_maddubs_epi16(ones, q);
            const __m256i quads = _mm256_hadd_epi16(pairs, pairs);  // per lane: 4 sums of 4, twice
            const __m256i eights = _mm256_hadd_epi16(quads, quads); // per lane: 2 sums of 8
            const __m256i sixteens = _mm256_hadd_epi16(eights, eights);
            block.bsums[i / 16] = static_cast<int16_t>(_mm256_extract_epi16(sixteens, 0));
            block.bsums[i / 16 + 1] = static_cast<int16_t>(_mm256_extract_epi16(sixteens, 8));
        }
    }
}

} // namespace hearth::kernels::avx2
