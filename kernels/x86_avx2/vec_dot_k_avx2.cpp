// Dot products of the K-quants (Q4_K, Q5_K, Q6_K) with Q8_K activations. Per super-block the
// integer sum, already weighted by the sub-block scales, is exact in int32; the super-block
// scale and the min (or offset) correction, taken from the activations' bsums, are applied in float.
#include "kernels/block_formats.h"
#include "kernels/x86_avx2/avx2_k_quants.h"
#include "kernels/x86_avx2/avx2_kernels.h"

namespace hearth::kernels::avx2 {

float vec_dot_q4_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ4_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    __m128 acc_min = _mm_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const K4Scales s = unpack_k4(w[i].scales);
        acc_min = _mm_fmadd_ps(_mm_set1_ps(fp16_to_float(w[i].dmin) * a[i].d),
                               _mm_cvtepi32_ps(min_dot_bsums(s.mins, a[i].bsums)), acc_min);
        const __m256i low4 = _mm256_set1_epi8(0x0F);
        __m256i sum = _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) { // 64 elements: low nibbles are sub-block 2j, high ones 2j+1
            const __m256i q = load256(w[i].qs + 32 * j);
            const __m256i q_low = _mm256_and_si256(q, low4);
            const __m256i q_high = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
            sum = _mm256_add_epi32(sum, scaled_dot(q_low, load256(a[i].qs + 64 * j), s.scales, 2 * j));
            sum = _mm256_add_epi32(sum,
                                   scaled_dot(q_high, load256(a[i].qs + 64 * j + 32), s.scales, 2 * j + 1));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w[i].d) * a[i].d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc) - hsum(acc_min);
}

float vec_dot_q5_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ5_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    __m128 acc_min = _mm_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const K4Scales s = unpack_k4(w[i].scales);
        acc_min = _mm_fmadd_ps(_mm_set1_ps(fp16_to_float(w[i].dmin) * a[i].d),
                               _mm_cvtepi32_ps(min_dot_bsums(s.mins, a[i].bsums)), acc_min);
        const __m256i low4 = _mm256_set1_epi8(0x0F);
        const __m256i bit0 = _mm256_set1_epi8(0x01), bit1 = _mm256_set1_epi8(0x02);
        // Bit 2j of qh[l] is the fifth bit of element 64j+l, bit 2j+1 that of element 64j+32+l.
        // The 16-bit shifts pull bits of the neighbouring byte only into bits 2 and above.
        __m256i high_bits = load256(w[i].qh);
        __m256i sum = _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            const __m256i q = load256(w[i].qs + 32 * j);
            const __m256i q_low = _mm256_or_si256(_mm256_and_si256(q, low4),
                                                  _mm256_slli_epi16(_mm256_and_si256(high_bits, bit0), 4));
            const __m256i q_high = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), low4),
                                                   _mm256_slli_epi16(_mm256_and_si256(high_bits, bit1), 3));
            high_bits = _mm256_srli_epi16(high_bits, 2);
            sum = _mm256_add_epi32(sum, scaled_dot(q_low, load256(a[i].qs + 64 * j), s.scales, 2 * j));
            sum = _mm256_add_epi32(sum,
                                   scaled_dot(q_high, load256(a[i].qs + 64 * j + 32), s.scales, 2 * j + 1));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w[i].d) * a[i].d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc) - hsum(acc_min);
}

float vec_dot_q6_K_q8_K(int64_t n, const void* weight_row, const void* activation_row) {
    const auto* w = static_cast<const BlockQ6_K*>(weight_row);
    const auto* a = static_cast<const BlockQ8_K*>(activation_row);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m256i scales = q6k_scales(w[i].scales);
        __m256i sum = _mm256_setzero_si256();
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6k_half(w[i].ql + 64 * half, w[i].qh + 32 * half, q);
            const __m256i half_scales = broadcast_lane(scales, half);
            for (int k = 0; k < 4; ++k)
                sum = _mm256_add_epi32(
                    sum, _mm256_madd_epi16(_mm256_maddubs_epi16(q[k], load256(a[i].qs + 128 * half + 32 * k)),
                                           _mm256_shuffle_epi8(half_scales, pick_words(2 * k, 2 * k + 1))));
        }
        // The quants are stored as q + 32: subtract 32 * scale * (sum of each 16 activations).
        sum = _mm256_sub_epi32(sum, _mm256_slli_epi32(_mm256_madd_epi16(scales, load256(a[i].bsums)), 5));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(fp16_to_float(w[i].d) * a[i].d), _mm256_cvtepi32_ps(sum), acc);
    }
    return hsum(acc);
}

} // namespace hearth::kernels::avx2
