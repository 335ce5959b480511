// F32 rows to BF16 with 512-bit vectors, bit for bit the reference's fp32_to_bf16 (round to
// nearest even, a NaN kept a quiet NaN, subnormals kept): the BF16 type's quantizer on the
// AVX-512 tiers, which converts the activations of the AMX tier's BF16 tile gemm once per matmul.
// Integer arithmetic rather than vcvtneps2bf16, which flushes subnormals to zero.
#include "kernels/x86_avx512/avx512_kernels.h"

#include <immintrin.h>

namespace hearth::kernels::avx512 {
namespace {

inline __m256i to_bf16(__m512 x) {
    const __m512i bits = _mm512_castps_si512(x);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    const __m512i rounded =
        _mm512_srli_epi32(_mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(rounded, nan, quiet));
}

} // namespace

void quantize_row_bf16(const float* src, void* dst, int64_t n) {
    auto* out = static_cast<uint16_t*>(dst);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), to_bf16(_mm512_loadu_ps(src + i)));
    if (i < n) {
        const __mmask16 rest = static_cast<__mmask16>((1u << (n - i)) - 1);
        _mm256_mask_storeu_epi16(out + i, rest, to_bf16(_mm512_maskz_loadu_ps(rest, src + i)));
    }
}

} // namespace hearth::kernels::avx512
