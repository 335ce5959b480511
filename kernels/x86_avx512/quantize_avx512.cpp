// The Q8_0 activation quantizer with 512-bit vectors: the reference's choice among eight scales
// (quantize_row_q8_0_activations_ref), bit for bit the AVX2 tier's. Each block tries eight scales,
// each a chain of dependent steps, which one block at a time leaves the vector units idle. Here
// 16 blocks go at once, lane l for block l, each lane doing
// the reference's operations for its block in its order; the last blocks (fewer than 16) take
// the AVX2 tier's code.
#include "kernels/block_formats.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"
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

// The scales of 16 blocks, lane l for block l: each lane's operations are the reference's for its
// block, in its order (a candidate's squared errors into 8 partial sums by element j % 8,
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
    __m512 best_error = _mm512_setzero_ps(), best_inverse = _mm512_setzero_ps();
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
        best_inverse = _mm512_mask_mov_ps(best_inverse, better, inverse);
        best_bits = _mm256_mask_mov_epi16(best_bits, better, bits);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(scale_bits), best_bits);
    _mm512_storeu_ps(inverses, best_inverse);
}

void quantize_row_q8_0_activations(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<BlockQ8_0*>(dst);
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
    if (b < blocks) avx2::quantize_row_q8_0_activations(src + b * QK8_0, out + b, (blocks - b) * QK8_0);
}

} // namespace

void add_quantizer_kernels(KernelTable& table) {
    constexpr Backend kAvx512 = cpu(Isa::Avx512);
    // The activations of every 32-element format.
    table.of(TensorType::Q8_0)
        .quantize_activations.put_first({{.name = "quantize_row_q8_0_activations",
                                          .backend = kAvx512,
                                          .fn = quantize_row_q8_0_activations}});
    // BF16 rows: the AMX tier's tile gemms take their activations so.
    const Candidate<QuantizeRowFn> bf16{
        .name = "quantize_row_bf16", .backend = kAvx512, .fn = quantize_row_bf16};
    table.of(TensorType::BF16).quantize.put_first({bf16});
    table.of(TensorType::BF16).quantize_activations.put_first({bf16});
}

} // namespace hearth::kernels::avx512
