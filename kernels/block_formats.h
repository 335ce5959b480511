#pragma once
// Quantized block layouts, byte-compatible with GGUF files. Each block holds
// block_elements values; fp16 fields are raw IEEE half bits.
#include <cstdint>

namespace hearth::kernels {

using fp16_bits = uint16_t;
using bf16_bits = uint16_t;

inline constexpr int QK4_0 = 32, QK4_1 = 32, QK5_0 = 32, QK5_1 = 32, QK8_0 = 32, QK8_1 = 32;
inline constexpr int QK_K = 256;        // super-block size of the K-quants
inline constexpr int K_SCALE_SIZE = 12; // packed 6-bit scales/mins of Q4_K and Q5_K

struct BlockQ4_0 {
    fp16_bits d;
    uint8_t qs[QK4_0 / 2]; // element j in low nibble of qs[j], element j+16 in high nibble
};
struct BlockQ4_1 {
    fp16_bits d, m;
    uint8_t qs[QK4_1 / 2];
};
struct BlockQ5_0 {
    fp16_bits d;
    uint8_t qh[4]; // fifth bits, bit j for element j
    uint8_t qs[QK5_0 / 2];
};
struct BlockQ5_1 {
    fp16_bits d, m;
    uint8_t qh[4];
    uint8_t qs[QK5_1 / 2];
};
struct BlockQ8_0 {
    fp16_bits d;
    int8_t qs[QK8_0];
};
struct BlockQ8_1 {
    fp16_bits d, s; // s = d * sum(qs)
    int8_t qs[QK8_1];
};
struct BlockQ2_K {
    uint8_t scales[QK_K / 16]; // low 4 bits scale, high 4 bits min, per 16 elements
    uint8_t qs[QK_K / 4];
    fp16_bits d, dmin;
};
struct BlockQ3_K {
    uint8_t hmask[QK_K / 8];
    uint8_t qs[QK_K / 4];
    uint8_t scales[12]; // 16 six-bit scales
    fp16_bits d;
};
struct BlockQ4_K {
    fp16_bits d, dmin;
    uint8_t scales[K_SCALE_SIZE]; // 8 six-bit scales and 8 six-bit mins
    uint8_t qs[QK_K / 2];
};
struct BlockQ5_K {
    fp16_bits d, dmin;
    uint8_t scales[K_SCALE_SIZE];
    uint8_t qh[QK_K / 8];
    uint8_t qs[QK_K / 2];
};
struct BlockQ6_K {
    uint8_t ql[QK_K / 2];
    uint8_t qh[QK_K / 4];
    int8_t scales[QK_K / 16];
    fp16_bits d;
};
// Activations for the K-quant dot products.
struct BlockQ8_K {
    float d;
    int8_t qs[QK_K];
    int16_t bsums[QK_K / 16]; // sums of each 16 quants
};

// A K-quant super-block's 256 quants in element order, as stored (unsigned): Q4_K's 0..15
// (element 64p + l is the low nibble of qs[32p + l], element 64p + 32 + l its high nibble) and
// Q6_K's 0..63 (q - 32 is the value; element 128h + 32k + l takes its low 4 bits from
// ql[64h + l + 32 (k & 1)], the high nibble for k >= 2, and its top 2 bits from bits 2k of
// qh[32h + l]).
inline void q4_K_quants(const BlockQ4_K& b, uint8_t (&q)[QK_K]) {
    for (int p = 0; p < QK_K / 64; ++p)
        for (int l = 0; l < 32; ++l) {
            q[64 * p + l] = b.qs[32 * p + l] & 0x0F;
            q[64 * p + 32 + l] = b.qs[32 * p + l] >> 4;
        }
}
inline void q6_K_quants(const BlockQ6_K& b, uint8_t (&q)[QK_K]) {
    for (int half = 0; half < 2; ++half)
        for (int k = 0; k < 4; ++k)
            for (int l = 0; l < 32; ++l) {
                const uint8_t low = b.ql[64 * half + l + 32 * (k & 1)];
                q[128 * half + 32 * k + l] = static_cast<uint8_t>(
                    ((k < 2 ? low : low >> 4) & 0x0F) | (((b.qh[32 * half + l] >> (2 * k)) & 3) << 4));
            }
}

static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20 && sizeof(BlockQ5_0) == 22 &&
              sizeof(BlockQ5_1) == 24 && sizeof(BlockQ8_0) == 34 && sizeof(BlockQ8_1) == 36);
static_assert(sizeof(BlockQ2_K) == 84 && sizeof(BlockQ3_K) == 110 && sizeof(BlockQ4_K) == 144 &&
              sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210 && sizeof(BlockQ8_K) == 292);

} // namespace hearth::kernels
