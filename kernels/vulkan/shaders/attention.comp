#version 450
// Causal attention, flash style: one workgroup per (query position, query head). The keys are
// taken WORKGROUP at a time, one per thread: scores, their maximum and the block's weights
// exp(score - running maximum) with an online softmax in F32; each thread then accumulates
// the weighted values of its share of head_dim. Keys and values are F16, Q8_0 or Q4_0 rows.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 64;
const uint MAX_HEAD_DIM = 512u;
const uint MAX_DIMS_PER_THREAD = MAX_HEAD_DIM / 32u; // WORKGROUP is at least 32

layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Out { float out_rows[]; };

const uint TYPE_F16 = 1u, TYPE_Q4_0 = 2u, TYPE_Q8_0 = 8u;

layout(push_constant) uniform Push {
    uint q_offset, keys_offset, values_offset, out_offset; // elements, bytes, bytes, elements
    uint n, n_past, n_head, n_head_kv, head_dim, n_ctx;
    uint key_row_bytes, value_row_bytes, key_type, value_type;
    float scale, softcap;
    uint window;
} p;

shared float query[MAX_HEAD_DIM];
shared float weights[WORKGROUP];
shared float reduce[WORKGROUP];

// Byte helpers over the two caches (a function per buffer: GLSL has no buffer references here).
#define CACHE_READERS(NAME, BUF)                                                   \
    uint NAME##_u16(uint b) { return (BUF[b >> 2] >> ((b & 2u) << 3)) & 0xffffu; } \
    int NAME##_i8(uint b) { return bitfieldExtract(int(BUF[b >> 2]), int((b & 3u) << 3), 8); } \
    uint NAME##_u8(uint b) { return (BUF[b >> 2] >> ((b & 3u) << 3)) & 0xffu; }   \
    float NAME##_element(uint row, uint type, uint d) {                            \
        if (type == TYPE_F16) return half_to_float(NAME##_u16(row + 2u * d));      \
        uint block = d / 32u, j = d % 32u;                                         \
        if (type == TYPE_Q8_0) {                                                   \
            uint at = row + 34u * block;                                           \
            return half_to_float(NAME##_u16(at)) * float(NAME##_i8(at + 2u + j));  \
        }                                                                          \
        uint at = row + 18u * block;                                               \
        uint byte_value = NAME##_u8(at + 2u + (j % 16u));                          \
        uint nibble = j < 16u ? (byte_value & 0xfu) : (byte_value >> 4);           \
        return half_to_float(NAME##_u16(at)) * float(int(nibble) - 8);             \
    }
CACHE_READERS(key, keys)
CACHE_READERS(value, values)

float workgroup_reduce(float v, bool take_max) {
    uint tid = gl_LocalInvocationID.x;
    reduce[tid] = v;
    barrier();
    for (uint s = WORKGROUP / 2u; s > 0u; s >>= 1u) {
        if (tid < s) reduce[tid] = take_max ? max(reduce[tid], reduce[tid + s]) : reduce[tid] + reduce[tid + s];
        barrier();
    }
    float result = reduce[0];
    barrier();
    return result;
}

float key_dot(uint row) {
    float sum = 0.0;
    if (p.key_type == TYPE_F16) {
        for (uint d = 0u; d < p.head_dim; d += 2u) {
            vec2 k = unpackHalf2x16(keys[(row >> 2) + d / 2u]);
            sum += query[d] * k.x + query[d + 1u] * k.y;
        }
    } else {
        for (uint block = 0u; block < p.head_dim / 32u; ++block) {
            float block_sum = 0.0;
            uint d0 = 32u * block;
            if (p.key_type == TYPE_Q8_0) {
                uint at = row + 34u * block;
                for (uint j = 0u; j < 32u; ++j)
                    block_sum += query[d0 + j] * float(key_i8(at + 2u + j));
                sum += block_sum * half_to_float(key_u16(at));
            } else {
                uint at = row + 18u * block;
                for (uint j = 0u; j < 16u; ++j) {
                    uint b = key_u8(at + 2u + j);
                    block_sum += query[d0 + j] * float(int(b & 0xfu) - 8) + query[d0 + 16u + j] * float(int(b >> 4) - 8);
                }
                sum += block_sum * half_to_float(key_u16(at));
            }
        }
    }
    return sum;
}

void main() {
    uint group = linear_group();
    if (group >= p.n * p.n_head) return;
    uint tid = gl_LocalInvocationID.x;
    uint head = group % p.n_head, position = group / p.n_head;
    uint kv_head = head / (p.n_head / p.n_head_kv);
    uint q_base = p.q_offset + (position * p.n_head + head) * p.head_dim;
    for (uint d = tid; d < p.head_dim; d += WORKGROUP)
        query[d] = q[q_base + d];
    barrier();

    uint n_keys = p.n_past + position + 1u;
    uint first_key = p.window > 0u && n_keys > p.window ? n_keys - p.window : 0u;
    uint key_base = p.keys_offset + kv_head * p.n_ctx * p.key_row_bytes;
    uint value_base = p.values_offset + kv_head * p.n_ctx * p.value_row_bytes;

    float acc[MAX_DIMS_PER_THREAD];
    [[unroll]] for (uint i = 0u; i < MAX_DIMS_PER_THREAD; ++i)
        acc[i] = 0.0;
    float running_max = -1.0 / 0.0, running_sum = 0.0;

    for (uint j0 = first_key; j0 < n_keys; j0 += WORKGROUP) {
        uint j = j0 + tid;
        float score = -1.0 / 0.0;
        if (j < n_keys) {
            score = key_dot(key_base + j * p.key_row_bytes) * p.scale;
            if (p.softcap > 0.0) score = p.softcap * safe_tanh(score / p.softcap);
        }
        float block_max = workgroup_reduce(score, true);
        if (block_max == -1.0 / 0.0) continue; // every key of the block weighs nothing
        float new_max = max(running_max, block_max);
        float rescale = exp(running_max - new_max); // 0 the first time (exp(-inf))
        float weight = score == -1.0 / 0.0 ? 0.0 : exp(score - new_max);
        weights[tid] = weight;
        float block_sum = workgroup_reduce(weight, false); // its barriers publish weights[]
        running_sum = running_sum * rescale + block_sum;
        running_max = new_max;
        uint keys_here = min(WORKGROUP, n_keys - j0);
        [[unroll]] for (uint i = 0u; i < MAX_DIMS_PER_THREAD; ++i) {
            uint d = tid + i * WORKGROUP;
            if (d >= p.head_dim) break;
            float sum = acc[i] * rescale;
            for (uint t = 0u; t < keys_here; ++t) {
                float w = weights[t];
                if (w != 0.0) sum += w * value_element(value_base + (j0 + t) * p.value_row_bytes, p.value_type, d);
            }
            acc[i] = sum;
        }
        barrier(); // weights[] is rewritten by the next block
    }

    uint out_base = p.out_offset + (position * p.n_head + head) * p.head_dim;
    [[unroll]] for (uint i = 0u; i < MAX_DIMS_PER_THREAD; ++i) {
        uint d = tid + i * WORKGROUP;
        if (d >= p.head_dim) break;
        out_rows[out_base + d] = acc[i] / running_sum;
    }
}
