// Quantizers into Q8_0 and Q8_K, bit-identical to the reference ones (same scale formula, same
// rounding), eight values per instruction: the Q8_0 weight quantizer, and the activation
// quantizers as llama.cpp's CPU backend has them.
#include "kernels/block_formats.h"
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

void quantize_row_q8_0_activations(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<BlockQ8_0*>(dst);
    for (int64_t b = 0; b < n / QK8_0; ++b) {
        const float* x = src + b * QK8_0;
        const float amax = max_abs(x, QK8_0);
        out[b].d = float_to_fp16(amax / 127.0f);
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs),
                            quantize32<round_even>(x, _mm256_set1_ps(id)));
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
