// The 32-element formats (Q8_0, Q4_0, Q5_0, Q4_1, Q5_1) against Q8_0 activations with
// vpdpbusd, which multiplies unsigned bytes by signed bytes. Every weight block is read as 32
// unsigned quants u (0..255) whose value is d * (u - offset) (Q8_0: u = q + 128, offset 128;
// Q4_0: 8; Q5_0: 16) or d * u + m (Q4_1, Q5_1). Decode keeps the activations signed:
// dot(u - offset, x) = dot(u, x) - offset * sum(x); prefill biases them instead
// (gemm_q8_0_family.h says why). Either way the integer dot of a block is exact.
// Included by gemm_q8_0_family.h, which both VNNI tiers compile.
#pragma once
#include "kernels/block_formats.h"
#include "kernels/x86_vnni_shared/vnni_kernels.h"
#include <cstring>

namespace hearth::kernels::HEARTH_VNNI_NS {

// The tier's candidates of the 32-element types (gemm_q8_0_family.h): one gemm for every batch
// and row count, and Q8_0 prefill over rows repacked in groups of 16.
void add_q8_0_family_kernels(KernelTable& table);

namespace q8_0_family {

inline __m256i load_bytes(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

// 16 bytes of packed nibbles -> 32 bytes 0..15, low nibbles first (the element order of the
// 4- and 5-bit blocks).
inline __m256i unpack_nibbles(const uint8_t* packed) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed));
    const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(bytes), _mm_srli_epi16(bytes, 4), 1);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0F));
}

// 0x10 in byte i where bit i of the 32 fifth bits is set.
inline __m256i fifth_bits(const uint8_t* qh) {
    uint32_t bits;
    std::memcpy(&bits, qh, sizeof bits);
#ifdef HEARTH_AVX512
    return _mm256_maskz_mov_epi8(bits, _mm256_set1_epi8(0x10));
#else
    // Byte i takes byte i/8 of the word, then keeps bit i%8.
    const __m256i spread =
        _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
                            _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0));
    const __m256i bit_of_byte = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit_of_byte), bit_of_byte);
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
#endif
}

// Each format: its block, how its unsigned quants are read, and what they mean (kOffset, or a
// minimum m when kHasMin).
struct Q8_0Format {
    using Block = BlockQ8_0;
    static constexpr bool kHasMin = false;
    static constexpr int kOffset = 128;
    static __m256i unsigned_quants(const Block& b) { // q + 128, as a byte: q xor 0x80
        return _mm256_xor_si256(load_bytes(b.qs), _mm256_set1_epi8(static_cast<char>(0x80)));
    }
};
struct Q4_0Format {
    using Block = BlockQ4_0;
    static constexpr bool kHasMin = false;
    static constexpr int kOffset = 8;
    static __m256i unsigned_quants(const Block& b) { return unpack_nibbles(b.qs); }
};
struct Q5_0Format {
    using Block = BlockQ5_0;
    static constexpr bool kHasMin = false;
    static constexpr int kOffset = 16;
    static __m256i unsigned_quants(const Block& b) {
        return _mm256_or_si256(unpack_nibbles(b.qs), fifth_bits(b.qh));
    }
};
struct Q4_1Format {
    using Block = BlockQ4_1;
    static constexpr bool kHasMin = true;
    static constexpr int kOffset = 0;
    static __m256i unsigned_quants(const Block& b) { return unpack_nibbles(b.qs); }
};
struct Q5_1Format {
    using Block = BlockQ5_1;
    static constexpr bool kHasMin = true;
    static constexpr int kOffset = 0;
    static __m256i unsigned_quants(const Block& b) {
        return _mm256_or_si256(unpack_nibbles(b.qs), fifth_bits(b.qh));
    }
};

} // namespace q8_0_family
} // namespace hearth::kernels::HEARTH_VNNI_NS
