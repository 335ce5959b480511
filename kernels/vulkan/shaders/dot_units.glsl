// The mat-vec shader's view of a weight row: UNIT-element units, each read by one thread as a
// few contiguous words (threads of a subgroup take consecutive units, so together they read
// a contiguous span). A unit is SEGMENTS segments of PIECES vec4 pieces; a segment's weights
// are scale * q + offset with one scale and offset, so its dot product with x is
// scale * dot(q, x) + offset * sum(x), and q is widened from the words without its scale.
//
// Per type (WEIGHT_TYPE, after weights.glsl):
//   load_unit(r, row_byte, u)  reads row r's unit u into raw[r] and its segments' scales
//   piece(r, s, i)             q of piece i of segment s of the unit last loaded, from raw[r]
//   piece_column(u, s, i)      the row's element of the piece's first value
// The includer declares MAX_ROWS and `weights4`, a uvec4 view of the weights, and defines
// WEIGHTS_VEC16_ALIGNED (a specialization constant): where true, Q4_K and Q5_K blocks (sizes
// multiples of 16 bytes) start 16-byte aligned and their words are read in 16-byte loads.

#if WEIGHT_TYPE == TYPE_F32
const uint UNIT = 8u, SEGMENTS = 1u, PIECES = 2u, RAW_WORDS = 8u;
#elif WEIGHT_TYPE == TYPE_F16 || WEIGHT_TYPE == TYPE_BF16
const uint UNIT = 8u, SEGMENTS = 1u, PIECES = 2u, RAW_WORDS = 4u;
#elif WEIGHT_TYPE == TYPE_Q4_0 || WEIGHT_TYPE == TYPE_Q4_1
const uint UNIT = 32u, SEGMENTS = 1u, PIECES = 8u, RAW_WORDS = 4u;
#elif WEIGHT_TYPE == TYPE_Q5_0 || WEIGHT_TYPE == TYPE_Q5_1
const uint UNIT = 32u, SEGMENTS = 1u, PIECES = 8u, RAW_WORDS = 5u;
#elif WEIGHT_TYPE == TYPE_Q8_0
const uint UNIT = 32u, SEGMENTS = 1u, PIECES = 8u, RAW_WORDS = 8u;
#elif WEIGHT_TYPE == TYPE_Q2_K
const uint UNIT = 64u, SEGMENTS = 4u, PIECES = 4u, RAW_WORDS = 4u;
#elif WEIGHT_TYPE == TYPE_Q3_K
const uint UNIT = 64u, SEGMENTS = 4u, PIECES = 4u, RAW_WORDS = 8u;
#elif WEIGHT_TYPE == TYPE_Q4_K
const uint UNIT = 64u, SEGMENTS = 2u, PIECES = 8u, RAW_WORDS = 8u;
#elif WEIGHT_TYPE == TYPE_Q5_K
const uint UNIT = 64u, SEGMENTS = 2u, PIECES = 8u, RAW_WORDS = 16u;
#elif WEIGHT_TYPE == TYPE_Q6_K
const uint UNIT = 64u, SEGMENTS = 4u, PIECES = 4u, RAW_WORDS = 16u;
#endif

// Types whose segments have an offset (the others: sum(x) is not needed).
#if WEIGHT_TYPE == TYPE_F32 || WEIGHT_TYPE == TYPE_F16 || WEIGHT_TYPE == TYPE_BF16 || WEIGHT_TYPE == TYPE_Q8_0
const bool HAS_OFFSET = false;
#else
const bool HAS_OFFSET = true;
#endif

uint raw[MAX_ROWS][RAW_WORDS];
uint unit_part; // K-quants: which unit of its super-block (0..3) was loaded
float segment_scale[MAX_ROWS][SEGMENTS];
float segment_offset[MAX_ROWS][SEGMENTS];

// The four bytes of a word as unsigned values.
uvec4 bytes_of(uint word) {
    return (uvec4(word) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;
}

#if WEIGHT_TYPE == TYPE_Q4_K || WEIGHT_TYPE == TYPE_Q5_K
// Six-bit scale and min j (0..7) of the 12 scale bytes, given as three words.
void scale_min_k4_words(uint s0, uint s1, uint s2, uint j, out float scale, out float minimum) {
    uint s[3] = uint[3](s0, s1, s2);
    uint b_j = (s[j / 4u] >> (8u * (j % 4u))) & 0xffu;
    uint b_j4 = (s[(j + 4u) / 4u] >> (8u * (j % 4u))) & 0xffu;
    if (j < 4u) {
        scale = float(b_j & 63u);
        minimum = float(b_j4 & 63u);
    } else {
        uint b_jm4 = (s[(j - 4u) / 4u] >> (8u * (j % 4u))) & 0xffu;
        scale = float((b_j4 & 0xfu) | ((b_jm4 >> 6) << 4));
        minimum = float((b_j4 >> 4) | ((b_j >> 6) << 4));
    }
}
#endif

void load_unit(uint r, uint row_byte, uint u) {
#if WEIGHT_TYPE == TYPE_F32
    uint word = (row_byte >> 2) + 8u * u;
    [[unroll]] for (uint k = 0u; k < 8u; ++k)
        raw[r][k] = weights[word + k];
    segment_scale[r][0] = 1.0;
#elif WEIGHT_TYPE == TYPE_F16 || WEIGHT_TYPE == TYPE_BF16
    [[unroll]] for (uint k = 0u; k < 4u; ++k)
        raw[r][k] = w_u32(row_byte + 16u * u + 4u * k);
    segment_scale[r][0] = 1.0;
#elif WEIGHT_TYPE == TYPE_Q4_0 || WEIGHT_TYPE == TYPE_Q4_1 || WEIGHT_TYPE == TYPE_Q5_0 || WEIGHT_TYPE == TYPE_Q5_1
    uint block = row_byte + BLOCK_BYTES * u;
#if WEIGHT_TYPE == TYPE_Q4_0
    float d = w_half(block);
    segment_offset[r][0] = -8.0 * d;
    uint qs = block + 2u;
#elif WEIGHT_TYPE == TYPE_Q4_1
    float d = w_half(block);
    segment_offset[r][0] = w_half(block + 2u);
    uint qs = block + 4u;
#elif WEIGHT_TYPE == TYPE_Q5_0
    float d = w_half(block);
    segment_offset[r][0] = -16.0 * d;
    raw[r][4] = w_u32(block + 2u);
    uint qs = block + 6u;
#else
    float d = w_half(block);
    segment_offset[r][0] = w_half(block + 2u);
    raw[r][4] = w_u32(block + 4u);
    uint qs = block + 8u;
#endif
    segment_scale[r][0] = d;
    [[unroll]] for (uint k = 0u; k < 4u; ++k)
        raw[r][k] = w_u32(qs + 4u * k);
#elif WEIGHT_TYPE == TYPE_Q8_0
    uint block = row_byte + 34u * u;
    segment_scale[r][0] = w_half(block);
    [[unroll]] for (uint k = 0u; k < 8u; ++k)
        raw[r][k] = w_u32(block + 2u + 4u * k);
#elif WEIGHT_TYPE == TYPE_Q2_K
    // Unit (n, h) of its super-block: elements 128n + 32j + 16h + l, bits 2j of
    // qs[32n + 16h + l] (l < 16), scale byte 8n + 2j + h.
    uint block = row_byte + 84u * (u / 4u);
    unit_part = u % 4u;
    uint n = unit_part / 2u, h = unit_part % 2u;
    [[unroll]] for (uint k = 0u; k < 4u; ++k)
        raw[r][k] = w_u32(block + 16u + 32u * n + 16u * h + 4u * k);
    uint scales_lo = w_u32(block + 8u * n), scales_hi = w_u32(block + 8u * n + 4u);
    uint dm = w_u32(block + 80u);
    float d = unpackHalf2x16(dm).x, dmin = unpackHalf2x16(dm).y;
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        uint byte_index = 2u * j + h; // of the eight at 8n
        uint sc = ((byte_index < 4u ? scales_lo : scales_hi) >> (8u * (byte_index % 4u))) & 0xffu;
        segment_scale[r][j] = d * float(sc & 0xfu);
        segment_offset[r][j] = -dmin * float(sc >> 4);
    }
#elif WEIGHT_TYPE == TYPE_Q3_K
    // As Q2_K, with a third bit from hmask[16h + l] (bit 4n + j): q = (q2 | bit << 2) - 4.
    uint block = row_byte + 110u * (u / 4u);
    unit_part = u % 4u;
    uint n = unit_part / 2u, h = unit_part % 2u;
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        raw[r][k] = w_u32(block + 32u + 32u * n + 16u * h + 4u * k);
        raw[r][4u + k] = w_u32(block + 16u * h + 4u * k);
    }
    uint s0 = w_u32(block + 96u), s1 = w_u32(block + 100u), s2 = w_u32(block + 104u);
    float d = w_half(block + 108u);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        // Scale g = 8n + 2j + h: low four bits in byte g % 8 (high nibble when g >= 8), high
        // two bits in byte 8 + g % 4 at bit 2 (g / 4).
        uint g = 8u * n + 2u * j + h;
        uint low_byte = ((g % 8u) < 4u ? s0 : s1) >> (8u * (g % 4u));
        uint low = (g < 8u ? low_byte : low_byte >> 4) & 0xfu;
        uint high = (s2 >> (8u * (g % 4u) + 2u * (g / 4u))) & 3u;
        float scale = d * float(int(low | (high << 4)) - 32);
        segment_scale[r][j] = scale;
        segment_offset[r][j] = -4.0 * scale;
    }
#elif WEIGHT_TYPE == TYPE_Q4_K || WEIGHT_TYPE == TYPE_Q5_K
    // Unit p of its super-block: elements 64p + 32h + l, nibble h of qs[32p + l], scale and
    // min 2p + h (Q5_K: fifth bit 2p + h of qh[l]).
    uint block = row_byte + BLOCK_BYTES * (u / 4u);
    unit_part = u % 4u;
    uint part = unit_part;
#if WEIGHT_TYPE == TYPE_Q4_K
    uint qs = block + 16u + 32u * part;
#else
    uint qs = block + 48u + 32u * part;
#endif
    uint dm, s0, s1, s2;
    if (WEIGHTS_VEC16_ALIGNED) {
        uvec4 head = weights4[block >> 4];
        dm = head.x;
        s0 = head.y;
        s1 = head.z;
        s2 = head.w;
        [[unroll]] for (uint k = 0u; k < 2u; ++k) {
            uvec4 q = weights4[(qs >> 4) + k];
            raw[r][4u * k] = q.x;
            raw[r][4u * k + 1u] = q.y;
            raw[r][4u * k + 2u] = q.z;
            raw[r][4u * k + 3u] = q.w;
#if WEIGHT_TYPE == TYPE_Q5_K
            uvec4 h = weights4[((block + 16u) >> 4) + k];
            raw[r][8u + 4u * k] = h.x;
            raw[r][8u + 4u * k + 1u] = h.y;
            raw[r][8u + 4u * k + 2u] = h.z;
            raw[r][8u + 4u * k + 3u] = h.w;
#endif
        }
    } else {
#if WEIGHT_TYPE == TYPE_Q5_K
        [[unroll]] for (uint k = 0u; k < 8u; ++k)
            raw[r][8u + k] = w_u32(block + 16u + 4u * k);
#endif
        [[unroll]] for (uint k = 0u; k < 8u; ++k)
            raw[r][k] = w_u32(qs + 4u * k);
        dm = w_u32(block);
        s0 = w_u32(block + 4u);
        s1 = w_u32(block + 8u);
        s2 = w_u32(block + 12u);
    }
    float d = unpackHalf2x16(dm).x, dmin = unpackHalf2x16(dm).y;
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
        float sc, mn;
        scale_min_k4_words(s0, s1, s2, 2u * part + h, sc, mn);
        segment_scale[r][h] = d * sc;
        segment_offset[r][h] = -dmin * mn;
    }
#elif WEIGHT_TYPE == TYPE_Q6_K
    // Unit (h, k1) of its super-block: elements 128h + 32k + l for k = k1, k1 + 2: low nibble
    // (k >= 2: high) of ql[64h + 32k1 + l], top bits 2k of qh[32h + l], scale 8h + 2k + l / 16.
    uint block = row_byte + 210u * (u / 4u);
    unit_part = u % 4u;
    uint h = unit_part / 2u, k1 = unit_part % 2u;
    [[unroll]] for (uint k = 0u; k < 8u; ++k) {
        raw[r][k] = w_u32(block + 64u * h + 32u * k1 + 4u * k);
        raw[r][8u + k] = w_u32(block + 128u + 32u * h + 4u * k);
    }
    uint scales = w_u32(block + 192u + 8u * h + 2u * k1);     // scales 8h + 2k1 + 0, 1
    uint scales2 = w_u32(block + 192u + 8u * h + 2u * k1 + 4u); // 8h + 2(k1 + 2) + 0, 1
    float d = w_half(block + 208u);
    [[unroll]] for (uint s = 0u; s < 4u; ++s) {
        uint word = s < 2u ? scales : scales2;
        float scale = d * float(bitfieldExtract(int(word), int(8u * (s % 2u)), 8));
        segment_scale[r][s] = scale;
        segment_offset[r][s] = -32.0 * scale;
    }
#endif
}

vec4 piece(uint r, uint s, uint i) {
#if WEIGHT_TYPE == TYPE_F32
    return vec4(uintBitsToFloat(raw[r][4u * i]), uintBitsToFloat(raw[r][4u * i + 1u]),
                uintBitsToFloat(raw[r][4u * i + 2u]), uintBitsToFloat(raw[r][4u * i + 3u]));
#elif WEIGHT_TYPE == TYPE_F16
    return vec4(unpackHalf2x16(raw[r][2u * i]), unpackHalf2x16(raw[r][2u * i + 1u]));
#elif WEIGHT_TYPE == TYPE_BF16
    uint a = raw[r][2u * i], b = raw[r][2u * i + 1u];
    return vec4(uintBitsToFloat(a << 16), uintBitsToFloat(a & 0xffff0000u), uintBitsToFloat(b << 16),
                uintBitsToFloat(b & 0xffff0000u));
#elif WEIGHT_TYPE == TYPE_Q4_0 || WEIGHT_TYPE == TYPE_Q4_1 || WEIGHT_TYPE == TYPE_Q5_0 || WEIGHT_TYPE == TYPE_Q5_1
    // Pieces 0..3: low nibbles of word i (elements 4i..); 4..7: high nibbles of word i - 4
    // (elements 16 + 4 (i - 4) = 4i..).
    uvec4 q = (bytes_of(raw[r][i % 4u]) >> (4u * (i / 4u))) & 0xfu;
#if WEIGHT_TYPE == TYPE_Q5_0 || WEIGHT_TYPE == TYPE_Q5_1
    q |= ((uvec4(raw[r][4]) >> (4u * i + uvec4(0u, 1u, 2u, 3u))) & 1u) << 4;
#endif
    return vec4(q);
#elif WEIGHT_TYPE == TYPE_Q8_0
    int word = int(raw[r][i]);
    return vec4(bitfieldExtract(word, 0, 8), bitfieldExtract(word, 8, 8), bitfieldExtract(word, 16, 8),
                bitfieldExtract(word, 24, 8));
#elif WEIGHT_TYPE == TYPE_Q2_K
    return vec4((bytes_of(raw[r][i]) >> (2u * s)) & 3u);
#elif WEIGHT_TYPE == TYPE_Q3_K
    uvec4 low = (bytes_of(raw[r][i]) >> (2u * s)) & 3u;
    uvec4 high = (bytes_of(raw[r][4u + i]) >> (4u * (unit_part / 2u) + s)) & 1u;
    return vec4(low | (high << 2));
#elif WEIGHT_TYPE == TYPE_Q4_K
    return vec4((bytes_of(raw[r][i]) >> (4u * s)) & 0xfu);
#elif WEIGHT_TYPE == TYPE_Q5_K
    uvec4 high = (bytes_of(raw[r][8u + i]) >> (2u * unit_part + s)) & 1u;
    return vec4(((bytes_of(raw[r][i]) >> (4u * s)) & 0xfu) | (high << 4));
#elif WEIGHT_TYPE == TYPE_Q6_K
    // Segment s: k = k1 + 2 (s / 2), elements l = 16 (s % 2) + 4i ..
    uint k = unit_part % 2u + 2u * (s / 2u);
    uint word = 4u * (s % 2u) + i;
    uvec4 low = (bytes_of(raw[r][word]) >> (4u * (s / 2u))) & 0xfu;
    uvec4 high = (bytes_of(raw[r][8u + word]) >> (2u * k)) & 3u;
    return vec4(low | (high << 4));
#endif
}

uint piece_column(uint u, uint s, uint i) {
#if WEIGHT_TYPE == TYPE_F32 || WEIGHT_TYPE == TYPE_F16 || WEIGHT_TYPE == TYPE_BF16
    return 8u * u + 4u * i;
#elif WEIGHT_TYPE == TYPE_Q2_K || WEIGHT_TYPE == TYPE_Q3_K
    // 128n + 32j + 16h + 4i with (n, h) the unit's place and j the segment.
    uint part = u % 4u;
    return 256u * (u / 4u) + 128u * (part / 2u) + 32u * s + 16u * (part % 2u) + 4u * i;
#elif WEIGHT_TYPE == TYPE_Q4_K || WEIGHT_TYPE == TYPE_Q5_K
    return 64u * u + 32u * s + 4u * i;
#elif WEIGHT_TYPE == TYPE_Q6_K
    // 128h + 32k + 16 (s % 2) + 4i with k = k1 + 2 (s / 2).
    uint part = u % 4u;
    return 256u * (u / 4u) + 128u * (part / 2u) + 32u * (part % 2u + 2u * (s / 2u)) + 16u * (s % 2u) + 4u * i;
#else
    return 32u * u + 4u * i;
#endif
}
