#pragma once
// Small helpers shared by the AVX2 kernels (and the AVX-512 tier's, through decoded_k_quant.h).
// Include only from files compiled with -mavx2 -mfma -mf16c (or more) and reached only after a
// CPUID check.
#include <cstdint>
#include <cstring>
#include <immintrin.h>

namespace hearth::kernels::avx2 {

inline float fp16_to_float(uint16_t bits) {
    return _cvtsh_ss(bits);
}
inline uint16_t float_to_fp16(float value) {
    return static_cast<uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

inline float hsum(__m128 v) {
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}
inline float hsum(__m256 v) {
    return hsum(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}

inline uint32_t load_u32(const uint8_t* bytes) {
    uint32_t word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

// The fp16 at `half` as a float, read with a 32-bit load (the caller guarantees 4 readable
// bytes): a plain vmovd instead of a 16-bit insert into a register.
inline float fp16_at(const void* half) {
    uint32_t word;
    std::memcpy(&word, half, sizeof word);
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(word))));
}

// 16 bytes of packed nibbles -> 32 bytes 0..15: the low nibbles first, then the high
// nibbles (the element order of Q4_0, Q4_1, Q5_0 and Q5_1 blocks).
inline __m256i unpack_nibbles_16(const uint8_t* packed) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(bytes, 4), bytes);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0F));
}

// Bit i of `bits` -> byte i: 0xFF where the bit is set, 0 elsewhere.
inline __m256i bits_to_bytes(uint32_t bits) {
    // Byte i takes byte i/8 of the word, then keeps only bit i%8.
    const __m256i spread =
        _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
                            _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0));
    const __m256i bit_of_byte = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
    return _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit_of_byte), bit_of_byte);
}

// Returns v, held in a register at this point: GCC may not rebuild it elsewhere. Without it,
// GCC 12 turns each use of a vector loaded once back into a memory operand (attention: one load
// per FMA), and regroups unrolled chains of acc = acc + product into trees of products computed
// first, which outgrow the 16 ymm registers and spill (the repacked Q4_K rows: 914 stack
// accesses, 233 with each step's sum kept; 8192 x 2048, Zen 4, 2 threads: 1 row 200 -> 150 us,
// 4 rows 565 -> 420 us).
template <class Vector> [[gnu::always_inline]] inline Vector keep_in_register(Vector v) {
    asm("" : "+x"(v));
    return v;
}

// 8 int32 partial sums of u*s over 32 byte pairs: u unsigned (0..255), s signed.
// Pairs of products must fit int16 (true for our quant ranges).
inline __m256i dot_u8_i8(__m256i u, __m256i s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}
// The same for two signed vectors: the sign of w moves onto s so that |w| is unsigned.
// (w = -128 works; s must not be -128 where w < 0.)
inline __m256i dot_i8_i8(__m256i w, __m256i s) {
    return dot_u8_i8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(s, w));
}

// A shuffle mask that picks 16-bit word `word` of each 128-bit lane into all its words.
inline __m256i pick_word(int word) {
    return _mm256_set1_epi16(static_cast<short>(((2 * word + 1) << 8) | (2 * word)));
}
// Picks word `low_word` into the low lane and word `high_word` into the high lane.
inline __m256i pick_words(int low_word, int high_word) {
    return _mm256_set_m128i(_mm256_castsi256_si128(pick_word(high_word)),
                            _mm256_castsi256_si128(pick_word(low_word)));
}

// The 6-bit scales and mins of a Q4_K/Q5_K super-block, unpacked as bytes:
// words 0-1 hold the 8 scales, words 2-3 the 8 mins.
inline void unpack_k4_scales(const uint8_t* packed, uint32_t out[4]) {
    const uint32_t w0 = load_u32(packed), w1 = load_u32(packed + 4), w2 = load_u32(packed + 8);
    out[0] = w0 & 0x3f3f3f3f;
    out[1] = (w2 & 0x0f0f0f0f) | ((w0 & 0xc0c0c0c0) >> 2);
    out[2] = w1 & 0x3f3f3f3f;
    out[3] = ((w2 >> 4) & 0x0f0f0f0f) | ((w1 & 0xc0c0c0c0) >> 2);
}

} // namespace hearth::kernels::avx2
