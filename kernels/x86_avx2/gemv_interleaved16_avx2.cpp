// Decode and small batches over Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows, on
// AVX2: two ymm of 8 rows per group, the int8 dot product as vpmaddubsw + vpmaddwd (the kernels:
// interleaved16_gemv.h).
// vpmaddubsw saturates its int16 pair sums, which these quants never reach: at most
// 2 x 63 x 128 = 16128 for Q6_K's six bits.
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/interleaved16_gemv.h"

#include <immintrin.h>

namespace hearth::kernels::avx2 {
namespace {

struct Rows8Avx2Lanes {
    static constexpr int kRows = 8;
    using Int = __m256i;
    using Float = __m256;
    static Float zero() { return _mm256_setzero_ps(); }
    static Int zero_int() { return _mm256_setzero_si256(); }
    static Int loadu_int(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static Int broadcast_int(const uint8_t* p) {
        int32_t v;
        __builtin_memcpy(&v, p, sizeof v);
        return _mm256_set1_epi32(v);
    }
    static Int dot(Int acc, Int u, Int s) {
        return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
    }
    static Int dot_words(Int acc, Int a, Int b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
    // Signed weights: the sign of w moves onto s, so that |w| (0..128) is the unsigned operand;
    // the activations' quants are never -128, so no pair of products overflows.
    static constexpr int32_t kQ8Offset = 0;
    static Int dot_q8(Int acc, Int w, Int s) {
        return keep_in_register(_mm256_add_epi32(acc, dot_i8_i8(w, s)));
    }
    static Int add(Int a, Int b) { return _mm256_add_epi32(a, b); }
    static Int mul_int(Int a, Int b) { return _mm256_mullo_epi32(a, b); }
    static Int nibble_low(Int v) { return _mm256_and_si256(v, _mm256_set1_epi8(0x0F)); }
    static Int nibble_high(Int v) { return nibble_low(_mm256_srli_epi16(v, 4)); }
    static Int widen_u8(const uint8_t* p) {
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static Int widen_u8_pairs(const uint8_t* p) {
        return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static Float widen_f16(const uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static Int widen_i8(const int8_t* p) {
        return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static Int set1_int(int32_t v) { return _mm256_set1_epi32(v); }
    static Int sub(Int a, Int b) { return _mm256_sub_epi32(a, b); }
    template <int N> static Int shift_left_words(Int v) { return _mm256_slli_epi16(v, N); }
    template <int N> static Int shift_right_words(Int v) { return _mm256_srli_epi16(v, N); }
    static Int six_bits(Int low, Int high) {
        return _mm256_or_si256(_mm256_and_si256(low, _mm256_set1_epi8(0x0F)),
                               _mm256_and_si256(high, _mm256_set1_epi8(0x30)));
    }
    static Float to_float(Int v) { return _mm256_cvtepi32_ps(v); }
    static Float broadcast_float(float v) { return _mm256_set1_ps(v); }
    static Float mul(Float a, Float b) { return _mm256_mul_ps(a, b); }
    static Float fmadd(Float a, Float b, Float c) { return _mm256_fmadd_ps(a, b, c); }
    static Float fnmadd(Float a, Float b, Float c) { return _mm256_fnmadd_ps(a, b, c); }
    static void store(float* y, Float v) { _mm256_storeu_ps(y, v); }
};
// Sub-block sums stay in int16 words until their scale widens them (kSumsInWords).
using Rows8Avx2 = YmmWordSums<Rows8Avx2Lanes>;

} // namespace

void gemm_q4_K_q8_K_interleaved16_rows(int64_t n, const void* packed, size_t row_bytes, int64_t row_begin,
                                       int64_t row_end, const void* activations, size_t activation_row_bytes,
                                       int64_t batch, float* y, int64_t y_stride) {
    gemm_q4_K_interleaved16_rows<Rows8Avx2>(n, packed, row_bytes, row_begin, row_end, activations,
                                            activation_row_bytes, batch, y, y_stride);
}

void gemm_q6_K_q8_K_interleaved16_rows(int64_t n, const void* packed, size_t row_bytes, int64_t row_begin,
                                       int64_t row_end, const void* activations, size_t activation_row_bytes,
                                       int64_t batch, float* y, int64_t y_stride) {
    gemm_q6_K_interleaved16_rows<Rows8Avx2>(n, packed, row_bytes, row_begin, row_end, activations,
                                            activation_row_bytes, batch, y, y_stride);
}

void gemm_q8_0_q8_0_interleaved16_rows(int64_t n, const void* packed, size_t row_bytes, int64_t row_begin,
                                       int64_t row_end, const void* activations, size_t activation_row_bytes,
                                       int64_t batch, float* y, int64_t y_stride) {
    gemm_q8_0_interleaved16_rows<Rows8Avx2>(n, packed, row_bytes, row_begin, row_end, activations,
                                            activation_row_bytes, batch, y, y_stride);
}

} // namespace hearth::kernels::avx2
