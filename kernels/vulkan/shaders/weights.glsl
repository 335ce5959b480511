// Weights in their GGUF block layout, read from a uint buffer `weights` (declared by the
// includer) at byte addresses: dequant16(row_byte, k0, cols, v) widens elements
// k0 .. k0 + 15 of the row that starts at byte row_byte (k0 a multiple of 16).
// WEIGHT_TYPE is the GGUF type id the shader is compiled for.
#define TYPE_F32 0
#define TYPE_F16 1
#define TYPE_Q4_0 2
#define TYPE_Q4_1 3
#define TYPE_Q5_0 6
#define TYPE_Q5_1 7
#define TYPE_Q8_0 8
#define TYPE_Q2_K 10
#define TYPE_Q3_K 11
#define TYPE_Q4_K 12
#define TYPE_Q5_K 13
#define TYPE_Q6_K 14
#define TYPE_BF16 30

#if WEIGHT_TYPE == TYPE_F32 || WEIGHT_TYPE == TYPE_F16 || WEIGHT_TYPE == TYPE_BF16
#define FLOAT_WEIGHTS 1
#endif

uint w_byte(uint b) {
    return (weights[b >> 2] >> ((b & 3u) << 3)) & 0xffu;
}
// Two bytes at an even address.
uint w_u16(uint b) {
    return (weights[b >> 2] >> ((b & 2u) << 3)) & 0xffffu;
}
// Four bytes at any even address, little-endian. Both words are read whatever the alignment
// (no divergence between threads of blocks at different alignments): the recorder binds
// weights with a word to spare after their last byte. An includer whose words are all read
// at 4-byte aligned addresses (it knows from the type, row size and offset) defines
// WEIGHTS_WORD_ALIGNED to a true (specialization) constant: one word is read.
#ifndef WEIGHTS_WORD_ALIGNED
#define WEIGHTS_WORD_ALIGNED false
#endif
uint w_u32(uint b) {
    if (WEIGHTS_WORD_ALIGNED) return weights[b >> 2];
    uint shift = (b & 3u) << 3;
    uint lo = weights[b >> 2];
    uint hi = weights[(b >> 2) + 1u];
    return shift == 0u ? lo : (lo >> shift) | (hi << (32u - shift));
}
float w_half(uint b) {
    return unpackHalf2x16(w_u16(b)).x;
}
// Byte i (0..3) of a word, as unsigned and as signed.
uint byte_of(uint word, uint i) {
    return (word >> (i * 8u)) & 0xffu;
}
int sbyte_of(uint word, uint i) {
    return bitfieldExtract(int(word), int(i * 8u), 8);
}

#if WEIGHT_TYPE == TYPE_F32
const uint BLOCK_ELEMENTS = 1u, BLOCK_BYTES = 4u;
#elif WEIGHT_TYPE == TYPE_F16 || WEIGHT_TYPE == TYPE_BF16
const uint BLOCK_ELEMENTS = 1u, BLOCK_BYTES = 2u;
#elif WEIGHT_TYPE == TYPE_Q4_0
const uint BLOCK_ELEMENTS = 32u, BLOCK_BYTES = 18u;
#elif WEIGHT_TYPE == TYPE_Q4_1
const uint BLOCK_ELEMENTS = 32u, BLOCK_BYTES = 20u;
#elif WEIGHT_TYPE == TYPE_Q5_0
const uint BLOCK_ELEMENTS = 32u, BLOCK_BYTES = 22u;
#elif WEIGHT_TYPE == TYPE_Q5_1
const uint BLOCK_ELEMENTS = 32u, BLOCK_BYTES = 24u;
#elif WEIGHT_TYPE == TYPE_Q8_0
const uint BLOCK_ELEMENTS = 32u, BLOCK_BYTES = 34u;
#elif WEIGHT_TYPE == TYPE_Q2_K
const uint BLOCK_ELEMENTS = 256u, BLOCK_BYTES = 84u;
#elif WEIGHT_TYPE == TYPE_Q3_K
const uint BLOCK_ELEMENTS = 256u, BLOCK_BYTES = 110u;
#elif WEIGHT_TYPE == TYPE_Q4_K
const uint BLOCK_ELEMENTS = 256u, BLOCK_BYTES = 144u;
#elif WEIGHT_TYPE == TYPE_Q5_K
const uint BLOCK_ELEMENTS = 256u, BLOCK_BYTES = 176u;
#elif WEIGHT_TYPE == TYPE_Q6_K
const uint BLOCK_ELEMENTS = 256u, BLOCK_BYTES = 210u;
#else
#error unknown WEIGHT_TYPE
#endif

#if WEIGHT_TYPE == TYPE_Q4_K || WEIGHT_TYPE == TYPE_Q5_K
// Scale j and min j (0..7) of the 12 packed six-bit scale bytes at byte s.
void scale_min_k4(uint s, uint j, out float scale, out float minimum) {
    if (j < 4u) {
        scale = float(w_byte(s + j) & 63u);
        minimum = float(w_byte(s + j + 4u) & 63u);
    } else {
        uint hi = w_byte(s + j + 4u);
        scale = float((hi & 0xfu) | ((w_byte(s + j - 4u) >> 6) << 4));
        minimum = float((hi >> 4) | ((w_byte(s + j) >> 6) << 4));
    }
}
#endif

void dequant16(uint row_byte, uint k0, uint cols, out float v[16]) {
#if defined(FLOAT_WEIGHTS)
    [[unroll]] for (uint i = 0u; i < 16u; ++i) {
        uint k = k0 + i;
        if (k >= cols) {
            v[i] = 0.0;
            continue;
        }
#if WEIGHT_TYPE == TYPE_F32
        v[i] = uintBitsToFloat(weights[(row_byte >> 2) + k]);
#elif WEIGHT_TYPE == TYPE_F16
        v[i] = w_half(row_byte + 2u * k);
#else
        v[i] = uintBitsToFloat(w_u16(row_byte + 2u * k) << 16);
#endif
    }
#else
    uint block = row_byte + (k0 / BLOCK_ELEMENTS) * BLOCK_BYTES;
    uint g = (k0 % BLOCK_ELEMENTS) / 16u; // which 16 elements of the block
#if WEIGHT_TYPE == TYPE_Q4_0 || WEIGHT_TYPE == TYPE_Q4_1
#if WEIGHT_TYPE == TYPE_Q4_0
    float d = w_half(block);
    float m = -8.0 * d;
    uint qs = block + 2u;
#else
    float d = w_half(block);
    float m = w_half(block + 2u);
    uint qs = block + 4u;
#endif
    uint shift = g * 4u;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(qs + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            v[4u * w + i] = float((byte_of(word, i) >> shift) & 0xfu) * d + m;
    }
#elif WEIGHT_TYPE == TYPE_Q5_0 || WEIGHT_TYPE == TYPE_Q5_1
#if WEIGHT_TYPE == TYPE_Q5_0
    float d = w_half(block);
    float m = -16.0 * d;
    uint qh = w_u32(block + 2u);
    uint qs = block + 6u;
#else
    float d = w_half(block);
    float m = w_half(block + 2u);
    uint qh = w_u32(block + 4u);
    uint qs = block + 8u;
#endif
    uint shift = g * 4u;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(qs + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            uint j = 16u * g + 4u * w + i;
            uint q = ((byte_of(word, i) >> shift) & 0xfu) | (((qh >> j) & 1u) << 4);
            v[4u * w + i] = float(q) * d + m;
        }
    }
#elif WEIGHT_TYPE == TYPE_Q8_0
    float d = w_half(block);
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(block + 2u + 16u * g + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            v[4u * w + i] = float(sbyte_of(word, i)) * d;
    }
#elif WEIGHT_TYPE == TYPE_Q2_K
    // Element 128n + 32j + 16h + l: bits 2j of qs[32n + 16h + l], scale byte g = 8n + 2j + h.
    uint n = g / 8u, j = (g % 8u) / 2u, h = g % 2u;
    uint sc = w_byte(block + g);
    float d = w_half(block + 80u) * float(sc & 0xfu);
    float m = w_half(block + 82u) * float(sc >> 4);
    uint qs = block + 16u + 32u * n + 16u * h;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(qs + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            v[4u * w + i] = d * float((byte_of(word, i) >> (2u * j)) & 3u) - m;
    }
#elif WEIGHT_TYPE == TYPE_Q3_K
    // As Q2_K, with a third bit from hmask[16h + l] (bit 4n + j): value q - 4 when it is clear.
    uint n = g / 8u, j = (g % 8u) / 2u, h = g % 2u;
    uint s = block + 96u;
    uint low = g < 8u ? (w_byte(s + g) & 0xfu) : (w_byte(s + g - 8u) >> 4);
    uint high = (w_byte(s + 8u + (g % 4u)) >> (2u * (g / 4u))) & 3u;
    float d = w_half(block + 108u) * float(int(low | (high << 4)) - 32);
    uint qs = block + 32u + 32u * n + 16u * h;
    uint hm = block + 16u * h;
    uint hbit = 4u * n + j;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(qs + 4u * w);
        uint hword = w_u32(hm + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            int q = int((byte_of(word, i) >> (2u * j)) & 3u) - (((byte_of(hword, i) >> hbit) & 1u) != 0u ? 0 : 4);
            v[4u * w + i] = d * float(q);
        }
    }
#elif WEIGHT_TYPE == TYPE_Q4_K
    // Element 64p + 32h + l: nibble h of qs[32p + l], scale and min 2p + h.
    uint p = g / 4u, h = (g % 4u) / 2u, l0 = 16u * (g % 2u);
    float sc, mn;
    scale_min_k4(block + 4u, 2u * p + h, sc, mn);
    float d = w_half(block) * sc;
    float m = w_half(block + 2u) * mn;
    uint qs = block + 16u + 32u * p + l0;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(qs + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            v[4u * w + i] = d * float((byte_of(word, i) >> (4u * h)) & 0xfu) - m;
    }
#elif WEIGHT_TYPE == TYPE_Q5_K
    // As Q4_K, with a fifth bit: bit 2p + h of qh[l].
    uint p = g / 4u, h = (g % 4u) / 2u, l0 = 16u * (g % 2u);
    float sc, mn;
    scale_min_k4(block + 4u, 2u * p + h, sc, mn);
    float d = w_half(block) * sc;
    float m = w_half(block + 2u) * mn;
    uint qs = block + 48u + 32u * p + l0;
    uint qh = block + 16u + l0;
    uint hbit = 2u * p + h;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(qs + 4u * w);
        uint hword = w_u32(qh + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            uint q = ((byte_of(word, i) >> (4u * h)) & 0xfu) | (((byte_of(hword, i) >> hbit) & 1u) << 4);
            v[4u * w + i] = d * float(q) - m;
        }
    }
#elif WEIGHT_TYPE == TYPE_Q6_K
    // Element 128h + 32k + l (l = l0 + i): low nibble of ql[64h + 32(k & 1) + l] (high nibble
    // for k >= 2), top bits 2k of qh[32h + l]; scale g.
    uint h = g / 8u, k = (g % 8u) / 2u, l0 = 16u * (g % 2u);
    float d = w_half(block + 208u) * float(bitfieldExtract(int(w_byte(block + 192u + g)), 0, 8));
    uint ql = block + 64u * h + 32u * (k & 1u) + l0;
    uint qh = block + 128u + 32u * h + l0;
    uint nibble_shift = k >= 2u ? 4u : 0u;
    [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        uint word = w_u32(ql + 4u * w);
        uint hword = w_u32(qh + 4u * w);
        [[unroll]] for (uint i = 0u; i < 4u; ++i) {
            int q = int(((byte_of(word, i) >> nibble_shift) & 0xfu) | (((byte_of(hword, i) >> (2u * k)) & 3u) << 4));
            v[4u * w + i] = d * float(q - 32);
        }
    }
#endif
#endif
}
