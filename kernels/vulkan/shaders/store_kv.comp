#version 450
// Rows of F32 keys and values into a layer's cache, (n_head_kv, n_ctx, head_row_bytes) each, as
// F16 (one thread per pair of halves) or Q8_0 / Q4_0 (one thread per block of 32): the keys'
// threads first, then the values', in one dispatch. Rounded as
// the CPU's reference quantizers round. Blocks of 18 or 34 bytes share words with their
// neighbours: the words a thread fills only in part are written with atomics.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 64;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) buffer Cache { uint cache[]; };
layout(std430, binding = 2) readonly buffer SrcV { float src_v[]; };
layout(std430, binding = 3) buffer CacheV { uint cache_v[]; };

const uint TYPE_F16 = 1u, TYPE_Q4_0 = 2u, TYPE_Q8_0 = 8u;

layout(push_constant) uniform Push {
    uint src_offset, cache_offset; // the keys': elements, bytes
    uint n, pos0, n_ctx, n_head_kv, head_dim, head_row_bytes;
    uint type;
    uint src_stride;
    uint v_src_offset, v_cache_offset, v_head_row_bytes, v_type; // the values'
} p;

bool of_values; // this thread's part: the values' (src_v, cache_v) or the keys'

void set_cache_word(uint w, uint bits) {
    if (of_values)
        cache_v[w] = bits;
    else
        cache[w] = bits;
}
// Bits `bits` under `mask` of word w, the other bytes left to the threads that own them.
void merge_cache_word(uint w, uint mask, uint bits) {
    if (of_values) {
        atomicAnd(cache_v[w], ~mask);
        atomicOr(cache_v[w], bits);
    } else {
        atomicAnd(cache[w], ~mask);
        atomicOr(cache[w], bits);
    }
}
float source(uint i) {
    return of_values ? src_v[i] : src[i];
}

// Writes bytes [at, at + count) from packed little-endian words.
void write_bytes(uint at, uint packed[9], uint count) {
    uint first_word = at >> 2, last_word = (at + count - 1u) >> 2;
    for (uint w = first_word; w <= last_word; ++w) {
        uint bits = 0u, mask = 0u;
        for (uint i = 0u; i < 4u; ++i) {
            uint byte_address = 4u * w + i;
            if (byte_address < at || byte_address >= at + count) continue;
            uint j = byte_address - at;
            uint value = (packed[j >> 2] >> ((j & 3u) * 8u)) & 0xffu;
            bits |= value << (i * 8u);
            mask |= 0xffu << (i * 8u);
        }
        if (mask == 0xffffffffu)
            set_cache_word(w, bits);
        else
            merge_cache_word(w, mask, bits);
    }
}

void put_byte(inout uint packed[9], uint j, uint value) {
    packed[j >> 2] |= (value & 0xffu) << ((j & 3u) * 8u);
}

// round(v) halves away from zero (std::lround), exactly.
float round_away(float v) {
    float whole = trunc(v);
    if (abs(v - whole) >= 0.5) whole += sign(v);
    return whole;
}

void main() {
    uint index = linear_group() * WORKGROUP + gl_LocalInvocationID.x;
    uint keys_per_head = p.type == TYPE_F16 ? p.head_dim / 2u : p.head_dim / 32u;
    uint key_threads = p.n * p.n_head_kv * keys_per_head;
    of_values = index >= key_threads;
    if (of_values) index -= key_threads;
    uint type = of_values ? p.v_type : p.type;
    uint per_head = type == TYPE_F16 ? p.head_dim / 2u : p.head_dim / 32u;
    if (index >= p.n * p.n_head_kv * per_head) return;
    uint unit = index % per_head;
    uint head = (index / per_head) % p.n_head_kv;
    uint row = index / (per_head * p.n_head_kv);
    uint src_base = (of_values ? p.v_src_offset : p.src_offset) + row * p.src_stride + head * p.head_dim;
    uint row_byte = (of_values ? p.v_cache_offset : p.cache_offset) +
                    (head * p.n_ctx + p.pos0 + row) * (of_values ? p.v_head_row_bytes : p.head_row_bytes);

    if (type == TYPE_F16) {
        uint lo = float_to_half_rn(source(src_base + 2u * unit));
        uint hi = float_to_half_rn(source(src_base + 2u * unit + 1u));
        set_cache_word((row_byte >> 2) + unit, lo | (hi << 16));
        return;
    }

    float values[32];
    for (uint j = 0u; j < 32u; ++j)
        values[j] = source(src_base + 32u * unit + j);
    uint packed[9];
    for (uint w = 0u; w < 9u; ++w)
        packed[w] = 0u;
    if (type == TYPE_Q8_0) {
        float amax = 0.0;
        for (uint j = 0u; j < 32u; ++j)
            amax = max(amax, abs(values[j]));
        float d = divide_rn(amax, 127.0);
        float inverse = d != 0.0 ? divide_rn(1.0, d) : 0.0;
        uint h = float_to_half_rn(d);
        put_byte(packed, 0u, h);
        put_byte(packed, 1u, h >> 8);
        for (uint j = 0u; j < 32u; ++j) {
            precise float scaled = values[j] * inverse;
            int q = int(clamp(round_away(scaled), -127.0, 127.0));
            put_byte(packed, 2u + j, uint(q));
        }
        write_bytes(row_byte + 34u * unit, packed, 34u);
    } else {
        // Q4_0: d = (the value of largest magnitude) / -8, levels floor(x / d + 8.5) in 0..15.
        float extreme = 0.0, magnitude = 0.0;
        for (uint j = 0u; j < 32u; ++j)
            if (abs(values[j]) > magnitude) {
                magnitude = abs(values[j]);
                extreme = values[j];
            }
        float d = divide_rn(extreme, -8.0);
        float inverse = d != 0.0 ? divide_rn(1.0, d) : 0.0;
        uint h = float_to_half_rn(d);
        put_byte(packed, 0u, h);
        put_byte(packed, 1u, h >> 8);
        for (uint j = 0u; j < 16u; ++j) {
            precise float lo_scaled = values[j] * inverse;
            precise float lo_shifted = lo_scaled + 8.5;
            precise float hi_scaled = values[j + 16u] * inverse;
            precise float hi_shifted = hi_scaled + 8.5;
            uint lo = uint(clamp(int(lo_shifted), 0, 15));
            uint hi = uint(clamp(int(hi_shifted), 0, 15));
            put_byte(packed, 2u + j, lo | (hi << 4));
        }
        write_bytes(row_byte + 18u * unit, packed, 18u);
    }
}
