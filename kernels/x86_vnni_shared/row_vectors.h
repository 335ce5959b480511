// Weight rows in the int32 lanes of one vector, one row per lane: what the VNNI tiles of every
// format are written against. Include only from kernels/x86_vnni_shared/ (the namespace is the tier's).
#pragma once
#include "kernels/x86_vnni_shared/vnni_kernels.h"
#include <cstring>

namespace hearth::kernels::HEARTH_VNNI_NS {

#ifdef HEARTH_AVX512
// vpternlogd's truth table for (a & c) | b: bit (a << 2 | b << 1 | c) of the immediate.
inline constexpr int kLowFromFirstOrSecond = 0xEC;
#endif

// Weight rows as 8 int32 lanes (ymm).
struct Rows8 {
    static constexpr int kRows = 8;
    using Int = __m256i;
    using Float = __m256;
    static Float zero() { return _mm256_setzero_ps(); }
    static Int load_int(const uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static Float load_float(const uint8_t* p) { return _mm256_load_ps(reinterpret_cast<const float*>(p)); }
    static Int broadcast_int(const uint8_t* p) { return _mm256_set1_epi32(load_i32(p)); }
    static Float broadcast_float(const uint8_t* p) {
        float v;
        std::memcpy(&v, p, sizeof v);
        return _mm256_set1_ps(v);
    }
    static Int zero_int() { return _mm256_setzero_si256(); }
    static Int dot(Int acc, Int u, Int s) { return dpbusd(acc, u, s); }
    // Signed weights made unsigned (w + 128, w xor 0x80) for vpdpbusd.
    static constexpr int32_t kQ8Offset = 128;
    static Int dot_q8(Int acc, Int w, Int s) {
        return dpbusd(acc, _mm256_xor_si256(w, _mm256_set1_epi8(static_cast<char>(0x80))), s);
    }
    // acc + the sums of the pairs of int16 products of a and b, per int32 lane.
    static Int dot_words(Int acc, Int a, Int b) {
#ifdef HEARTH_AVX512
        return _mm256_dpwssd_epi32(acc, a, b);
#else
        return _mm256_dpwssd_avx_epi32(acc, a, b);
#endif
    }
    static Int add(Int a, Int b) {
        return _mm256_add_epi32(a, b);
    }
    static Int mul_int(Int a, Int b) {
        return _mm256_mullo_epi32(a, b);
    }
    static Float fnmadd(Float a, Float b, Float c) {
        return _mm256_fnmadd_ps(a, b, c);
    }
    static Float to_float(Int v) {
        return _mm256_cvtepi32_ps(v);
    }
    static Float mul(Float a, Float b) {
        return _mm256_mul_ps(a, b);
    }
    static Float fmadd(Float a, Float b, Float c) {
        return _mm256_fmadd_ps(a, b, c);
    }
    // For the interleaved-rows decode (x86_avx2/interleaved16_gemv.h).
    static Int loadu_int(const uint8_t* p) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    }
    static Int nibble_low(Int v) {
        return _mm256_and_si256(v, _mm256_set1_epi8(0x0F));
    }
    static Int nibble_high(Int v) {
        return nibble_low(_mm256_srli_epi16(v, 4));
    }
    static Int widen_u8(const uint8_t* p) {
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static Int widen_u8_pairs(const uint8_t* p) {
        return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static Int widen_i8(const int8_t* p) {
        return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static Int set1_int(int32_t v) {
        return _mm256_set1_epi32(v);
    }
    static Int sub(Int a, Int b) {
        return _mm256_sub_epi32(a, b);
    }
    template <int N> static Int shift_left_words(Int v) {
        return _mm256_slli_epi16(v, N);
    }
    template <int N> static Int shift_right_words(Int v) {
        return _mm256_srli_epi16(v, N);
    }
    static Int six_bits(Int low, Int high) {
#ifdef HEARTH_AVX512
        return _mm256_ternarylogic_epi32(low, _mm256_and_si256(high, _mm256_set1_epi8(0x30)),
                                         _mm256_set1_epi8(0x0F), kLowFromFirstOrSecond);
#else
        return _mm256_or_si256(_mm256_and_si256(low, _mm256_set1_epi8(0x0F)),
                               _mm256_and_si256(high, _mm256_set1_epi8(0x30)));
#endif
    }
    static Float widen_f16(const uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static Float broadcast_float(float v) {
        return _mm256_set1_ps(v);
    }
    static void store(float* y, Float v) {
        _mm256_storeu_ps(y, v);
    }
    // The first `rows` lanes to y[0, rows): the others belong to rows outside the call's range.
    static void store(float* y, Float v, int rows) {
        if (rows == kRows) {
            _mm256_storeu_ps(y, v);
            return;
        }
#ifdef HEARTH_AVX512
        _mm256_mask_storeu_ps(y, static_cast<__mmask8>((1u << rows) - 1), v);
#else
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        _mm256_maskstore_ps(y, _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), lane), v);
#endif
    }
};

#ifdef HEARTH_AVX512
// Weight rows as 16 int32 lanes (zmm). On Zen 4 a zmm operation takes two 256-bit pipe slots,
// so 16 rows cost what two tiles of 8 do; on Zen 5 (and Intel) they cost one.
struct Rows16 {
    static constexpr int kRows = 16;
    using Int = __m512i;
    using Float = __m512;
    static Float zero() { return _mm512_setzero_ps(); }
    static Int load_int(const uint8_t* p) { return _mm512_load_si512(p); }
    static Float load_float(const uint8_t* p) { return _mm512_load_ps(p); }
    static Int broadcast_int(const uint8_t* p) { return _mm512_set1_epi32(load_i32(p)); }
    static Float broadcast_float(const uint8_t* p) {
        float v;
        std::memcpy(&v, p, sizeof v);
        return _mm512_set1_ps(v);
    }
    static Int zero_int() { return _mm512_setzero_si512(); }
    static Int dot(Int acc, Int u, Int s) { return _mm512_dpbusd_epi32(acc, u, s); }
    static constexpr int32_t kQ8Offset = 128;
    static Int dot_q8(Int acc, Int w, Int s) {
        return _mm512_dpbusd_epi32(acc, _mm512_xor_si512(w, _mm512_set1_epi8(static_cast<char>(0x80))), s);
    }
    static Int dot_words(Int acc, Int a, Int b) { return _mm512_dpwssd_epi32(acc, a, b); }
    static Int add(Int a, Int b) { return _mm512_add_epi32(a, b); }
    static Int mul_int(Int a, Int b) { return _mm512_mullo_epi32(a, b); }
    static Float fnmadd(Float a, Float b, Float c) { return _mm512_fnmadd_ps(a, b, c); }
    // The zero-masking form: GCC 12's _mm512_cvtepi32_ps warns of its own undefined operand.
    static Float to_float(Int v) { return _mm512_maskz_cvtepi32_ps(static_cast<__mmask16>(0xFFFF), v); }
    static Float mul(Float a, Float b) { return _mm512_mul_ps(a, b); }
    static Float fmadd(Float a, Float b, Float c) { return _mm512_fmadd_ps(a, b, c); }
    // For the interleaved-rows decode (x86_avx2/interleaved16_gemv.h). The widening
    // conversions take the zero-masking form: GCC 12 warns of the plain ones' undefined operand.
    static constexpr __mmask16 kAll16 = 0xFFFF;
    static Int loadu_int(const uint8_t* p) { return _mm512_loadu_si512(p); }
    static Int nibble_low(Int v) { return _mm512_and_si512(v, _mm512_set1_epi8(0x0F)); }
    static Int nibble_high(Int v) { return nibble_low(_mm512_srli_epi16(v, 4)); }
    static Int widen_u8(const uint8_t* p) {
        return _mm512_maskz_cvtepu8_epi32(kAll16, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static Int widen_u8_pairs(const uint8_t* p) {
        return _mm512_maskz_cvtepu8_epi16(~__mmask32{0},
                                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    static Float widen_f16(const uint16_t* p) {
        return _mm512_maskz_cvtph_ps(kAll16, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    static Int widen_i8(const int8_t* p) {
        return _mm512_maskz_cvtepi8_epi32(kAll16, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static Int set1_int(int32_t v) { return _mm512_set1_epi32(v); }
    static Int sub(Int a, Int b) { return _mm512_sub_epi32(a, b); }
    template <int N> static Int shift_left_words(Int v) { return _mm512_slli_epi16(v, N); }
    template <int N> static Int shift_right_words(Int v) { return _mm512_srli_epi16(v, N); }
    // One vpternlogd: the low nibble from `low`, bits 4-5 from `high` (masked first).
    static Int six_bits(Int low, Int high) {
        return _mm512_ternarylogic_epi32(low, _mm512_and_si512(high, _mm512_set1_epi8(0x30)),
                                         _mm512_set1_epi8(0x0F), kLowFromFirstOrSecond);
    }
    static Float broadcast_float(float v) { return _mm512_set1_ps(v); }
    static void store(float* y, Float v) { _mm512_storeu_ps(y, v); }
    static void store(float* y, Float v, int rows) {
        _mm512_mask_storeu_ps(y, static_cast<__mmask16>((1u << rows) - 1), v);
    }
};
#endif

} // namespace hearth::kernels::HEARTH_VNNI_NS
