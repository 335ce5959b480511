#version 450
// Causal attention, flash style (or, for one image's positions, both ways within the batch). A workgroup takes a tile of query rows (HEADS query heads of
// one KV head, at POSITIONS consecutive positions) and walks the keys in blocks of KEY_BLOCK:
// each block of keys and values is widened to F32 in shared memory once and serves every row
// of the tile. Per block: the rows' scores against its keys, the rows' online softmax (running
// maximum and sum in F32), and the weighted values added to each row's accumulators in
// registers. The cache words of the next block are fetched before the current block is used,
// so their latency hides behind its arithmetic.
//
// Blocks start at multiples of KEY_BLOCK and a row adds nothing for the keys it does not see,
// so a row's result is the same whatever tile it is computed in. With splits (z of the
// dispatch), split s walks blocks [first_block + s * split_blocks, + split_blocks) only and
// writes its rows unnormalized, with their maximum and sum, for attention_reduce.comp.
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 128;
layout(constant_id = 1) const uint HEAD_DIM = 64;   // at most 512
layout(constant_id = 2) const uint KEY_BLOCK = 32;  // a power of two, at most 64 (divides WORKGROUP)
layout(constant_id = 3) const uint HEADS = 1;       // query heads of the tile
layout(constant_id = 4) const uint POSITIONS = 1;   // positions of the tile
layout(constant_id = 5) const uint KEY_TYPE = 1;    // F16, Q8_0 or Q4_0
layout(constant_id = 6) const uint VALUE_TYPE = 1;

const uint TYPE_F16 = 1u, TYPE_Q4_0 = 2u, TYPE_Q8_0 = 8u;
const uint ROWS = HEADS * POSITIONS;
const uint D4 = (HEAD_DIM + 3u) / 4u; // vec4 columns of a row
// Keys are read by threads of consecutive keys: one more column puts them in other banks.
const uint KEY_STRIDE = D4 + 1u;
const uint SCORE_STRIDE = KEY_BLOCK + 1u;
const uint GROUPS = (HEAD_DIM + 7u) / 8u; // 8-element groups of a cache row
// Scores: thread t takes key t % KEY_BLOCK of rows t / KEY_BLOCK + i * SCORE_LANES.
const uint SCORE_LANES = WORKGROUP / KEY_BLOCK;
const uint SCORES_PER_THREAD = (ROWS + SCORE_LANES - 1u) / SCORE_LANES;
// Values: thread t takes column t % D4 of rows t / D4 + i * VALUE_LANES.
const uint VALUE_LANES = WORKGROUP / D4;
const uint VALUE_ROWS_PER_THREAD = (ROWS + VALUE_LANES - 1u) / VALUE_LANES;
const uint FETCHES_PER_THREAD = (KEY_BLOCK * GROUPS + WORKGROUP - 1u) / WORKGROUP;
// Register arrays are declared at these sizes; the host keeps the counts above within them.
const uint MAX_SCORES = 16u, MAX_VALUE_ROWS = 8u, MAX_FETCHES = 4u;
const float NEG_INF = -1.0 / 0.0;

layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Out { float out_rows[]; };
layout(std430, binding = 4) writeonly buffer Partial { float partial[]; };

layout(push_constant) uniform Push {
    uint q_offset, keys_offset, values_offset, out_offset, partial_offset; // elements, bytes, bytes, elements, elements
    uint n, n_past, n_head, n_head_kv, n_ctx;
    uint key_row_bytes, value_row_bytes;
    float scale, softcap;
    uint window;
    uint head_chunks, position_tiles; // tiles across a KV head's query heads and across the positions
    uint first_block, split_blocks, splits;
    uint batch_sees_itself; // 1: every row also sees the batch's later keys (one image's positions)
} p;

shared vec4 query_tile[ROWS * D4]; // scaled queries
shared vec4 key_tile[KEY_BLOCK * KEY_STRIDE];
shared vec4 value_tile[KEY_BLOCK * D4];
shared float scores[ROWS * SCORE_STRIDE]; // then the block's softmax weights
shared float rescale[ROWS];               // exp(old maximum - new maximum) of each row
shared float row_sums[ROWS];

// Cache words at any even byte address (a function per buffer: GLSL passes no buffers).
#define CACHE_READERS(NAME, BUF)                                                               \
    uint NAME##_u32(uint b) {                                                                  \
        uint word = BUF[b >> 2];                                                               \
        if ((b & 2u) == 0u) return word;                                                       \
        return (word >> 16) | (BUF[(b >> 2) + 1u] << 16);                                      \
    }                                                                                          \
    uint NAME##_u16(uint b) { return (BUF[b >> 2] >> ((b & 2u) << 3)) & 0xffffu; }
CACHE_READERS(key, keys)
CACHE_READERS(value, values)

// The raw words of one 8-element group of a cache row, fetched ahead of their use.
struct Fetched {
    uint w0, w1, w2, w3;
    float d; // the block's scale (quantized caches)
};

#define CACHE_FETCH(NAME, BUF, TYPE)                                                                \
    Fetched NAME##_fetch(uint row_byte, uint g, bool present) {                                \
        Fetched f = Fetched(0u, 0u, 0u, 0u, 0.0);                                              \
        if (!present) return f;                                                                \
        if (TYPE == TYPE_F16) {                                                                \
            uint word = (row_byte >> 2) + 4u * g; /* rows of an even head_dim: 4-byte aligned */ \
            f.w0 = BUF[word];                                                              \
            if (8u * g + 2u < HEAD_DIM) f.w1 = BUF[word + 1u];                             \
            if (8u * g + 4u < HEAD_DIM) f.w2 = BUF[word + 2u];                             \
            if (8u * g + 6u < HEAD_DIM) f.w3 = BUF[word + 3u];                             \
        } else if (TYPE == TYPE_Q8_0) {                                                        \
            uint at = row_byte + 34u * (g / 4u);                                               \
            f.d = unpackHalf2x16(NAME##_u16(at)).x;                                            \
            f.w0 = NAME##_u32(at + 2u + 8u * (g % 4u));                                        \
            f.w1 = NAME##_u32(at + 6u + 8u * (g % 4u));                                        \
        } else {                                                                               \
            uint at = row_byte + 18u * (g / 4u);                                               \
            f.d = unpackHalf2x16(NAME##_u16(at)).x;                                            \
            f.w0 = NAME##_u32(at + 2u + 4u * (g % 4u));                                        \
        }                                                                                      \
        return f;                                                                              \
    }
CACHE_FETCH(key, keys, KEY_TYPE)
CACHE_FETCH(value, values, VALUE_TYPE)

vec4 signed_bytes(uint word) {
    return vec4(bitfieldExtract(int(word), 0, 8), bitfieldExtract(int(word), 8, 8),
                bitfieldExtract(int(word), 16, 8), bitfieldExtract(int(word), 24, 8));
}

// Group g widened: the values of vec4 columns column_a and column_b of the row.
void widen(uint type, Fetched f, uint g, out vec4 a, out vec4 b, out uint column_a, out uint column_b) {
    if (type == TYPE_F16) {
        a = vec4(unpackHalf2x16(f.w0), unpackHalf2x16(f.w1));
        b = vec4(unpackHalf2x16(f.w2), unpackHalf2x16(f.w3));
        column_a = 2u * g;
        column_b = 2u * g + 1u;
    } else if (type == TYPE_Q8_0) {
        // Elements 8 (g % 4) .. + 7 of block g / 4.
        a = signed_bytes(f.w0) * f.d;
        b = signed_bytes(f.w1) * f.d;
        column_a = 2u * g;
        column_b = 2u * g + 1u;
    } else {
        // Bytes 4 (g % 4) .. + 3 of block g / 4: elements 4 (g % 4) + i (low nibbles) and
        // 16 + 4 (g % 4) + i (high nibbles).
        uvec4 bytes = (uvec4(f.w0) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu;
        a = (vec4(bytes & 0xfu) - 8.0) * f.d;
        b = (vec4(bytes >> 4) - 8.0) * f.d;
        column_a = 8u * (g / 4u) + g % 4u;
        column_b = column_a + 4u;
    }
}

uint keys_seen(uint position) {
    return p.batch_sees_itself != 0u ? p.n_past + p.n : p.n_past + position + 1u;
}
// The window counts back from the row's own position, whatever later keys it sees.
uint first_key(uint position) {
    uint own = p.n_past + position + 1u;
    return p.window > 0u && own > p.window ? own - p.window : 0u;
}

void main() {
    uint group = linear_group();
    if (group >= p.n_head_kv * p.head_chunks * p.position_tiles) return;
    uint tid = gl_LocalInvocationID.x;
    uint tile = group % p.position_tiles;
    uint chunk = (group / p.position_tiles) % p.head_chunks;
    uint kv_head = group / (p.position_tiles * p.head_chunks);
    uint split = gl_WorkGroupID.z;
    uint group_heads = p.n_head / p.n_head_kv;
    uint position0 = tile * POSITIONS;
    uint positions = min(POSITIONS, p.n - position0);
    uint heads = min(HEADS, group_heads - chunk * HEADS);

    // Row r of the tile: head r % HEADS of the chunk, position r / HEADS of the tile.
    for (uint i = tid; i < ROWS * D4 * 4u; i += WORKGROUP) {
        uint r = i / (D4 * 4u), d = i % (D4 * 4u);
        uint h = r % HEADS, t = r / HEADS;
        float value = 0.0;
        if (h < heads && t < positions && d < HEAD_DIM) {
            uint head = kv_head * group_heads + chunk * HEADS + h;
            value = q[p.q_offset + ((position0 + t) * p.n_head + head) * HEAD_DIM + d] * p.scale;
        }
        query_tile[r * D4 + d / 4u][d % 4u] = value;
    }

    // The tile's keys: from the first row's first to the last row's last, within the split.
    uint key_end = keys_seen(position0 + positions - 1u);
    uint block_begin = max(first_key(position0) / KEY_BLOCK, p.first_block + split * p.split_blocks);
    uint block_end = min((key_end + KEY_BLOCK - 1u) / KEY_BLOCK, p.first_block + (split + 1u) * p.split_blocks);
    uint key_base = p.keys_offset + kv_head * p.n_ctx * p.key_row_bytes;
    uint value_base = p.values_offset + kv_head * p.n_ctx * p.value_row_bytes;

    // This thread's running maximum and sum (of row tid), and accumulators (of value rows).
    float running_max = NEG_INF, running_sum = 0.0;
    vec4 acc[MAX_VALUE_ROWS];
    [[unroll]] for (uint i = 0u; i < MAX_VALUE_ROWS; ++i)
        acc[i] = vec4(0.0);
    uint score_key = tid % KEY_BLOCK, score_lane = tid / KEY_BLOCK;
    uint value_column = tid % D4, value_lane = tid / D4;

    Fetched fetched_keys[MAX_FETCHES], fetched_values[MAX_FETCHES];
    [[unroll]] for (uint i = 0u; i < MAX_FETCHES; ++i) {
        uint task = tid + i * WORKGROUP;
        uint key = block_begin * KEY_BLOCK + task / GROUPS;
        bool present = i < FETCHES_PER_THREAD && task < KEY_BLOCK * GROUPS && key < key_end;
        fetched_keys[i] = key_fetch(key_base + key * p.key_row_bytes, task % GROUPS, present);
        fetched_values[i] = value_fetch(value_base + key * p.value_row_bytes, task % GROUPS, present);
    }

    for (uint block = block_begin; block < block_end; ++block) {
        // The fetched block into shared memory (zeros past the tile's last key).
        [[unroll]] for (uint i = 0u; i < MAX_FETCHES; ++i) {
            uint task = tid + i * WORKGROUP;
            if (i < FETCHES_PER_THREAD && task < KEY_BLOCK * GROUPS) {
                uint j = task / GROUPS, g = task % GROUPS;
                vec4 a, b;
                uint column_a, column_b;
                widen(KEY_TYPE, fetched_keys[i], g, a, b, column_a, column_b);
                key_tile[j * KEY_STRIDE + column_a] = a;
                key_tile[j * KEY_STRIDE + column_b] = b; // the padding column when HEAD_DIM % 8 == 4
                widen(VALUE_TYPE, fetched_values[i], g, a, b, column_a, column_b);
                value_tile[j * D4 + column_a] = a;
                if (column_b < D4) value_tile[j * D4 + column_b] = b;
            }
        }
        barrier();
        // The next block's words, in flight while this one is used.
        if (block + 1u < block_end) {
            [[unroll]] for (uint i = 0u; i < MAX_FETCHES; ++i) {
                uint task = tid + i * WORKGROUP;
                uint key = (block + 1u) * KEY_BLOCK + task / GROUPS;
                bool present = i < FETCHES_PER_THREAD && task < KEY_BLOCK * GROUPS && key < key_end;
                fetched_keys[i] = key_fetch(key_base + key * p.key_row_bytes, task % GROUPS, present);
                fetched_values[i] = value_fetch(value_base + key * p.value_row_bytes, task % GROUPS, present);
            }
        }

        // Scores of this thread's rows against its key.
        uint key = block * KEY_BLOCK + score_key;
        float s[MAX_SCORES];
        [[unroll]] for (uint i = 0u; i < MAX_SCORES; ++i)
            s[i] = 0.0;
        for (uint c = 0u; c < D4; ++c) {
            vec4 k = key_tile[score_key * KEY_STRIDE + c];
            [[unroll]] for (uint i = 0u; i < MAX_SCORES; ++i) {
                uint r = score_lane + i * SCORE_LANES;
                if (i < SCORES_PER_THREAD && r < ROWS) s[i] += dot(query_tile[r * D4 + c], k);
            }
        }
        [[unroll]] for (uint i = 0u; i < MAX_SCORES; ++i) {
            uint r = score_lane + i * SCORE_LANES;
            if (i < SCORES_PER_THREAD && r < ROWS) {
                uint t = r / HEADS;
                float score = NEG_INF;
                if (r % HEADS < heads && t < positions && key >= first_key(position0 + t) &&
                    key < keys_seen(position0 + t)) {
                    score = s[i];
                    if (p.softcap > 0.0) score = p.softcap * safe_tanh(score / p.softcap);
                }
                scores[r * SCORE_STRIDE + score_key] = score;
            }
        }
        barrier();

        // Online softmax of each row over the block.
        if (tid < ROWS) {
            uint at = tid * SCORE_STRIDE;
            float block_max = NEG_INF;
            for (uint j = 0u; j < KEY_BLOCK; ++j)
                block_max = max(block_max, scores[at + j]);
            float new_max = max(running_max, block_max);
            float factor = 1.0, block_sum = 0.0;
            if (new_max != NEG_INF) {
                factor = running_max == NEG_INF ? 0.0 : exp(running_max - new_max);
                for (uint j = 0u; j < KEY_BLOCK; ++j) {
                    float score = scores[at + j];
                    float weight = score == NEG_INF ? 0.0 : exp(score - new_max);
                    scores[at + j] = weight;
                    block_sum += weight;
                }
                running_max = new_max;
            } else {
                // No key of the block is seen by this row.
                for (uint j = 0u; j < KEY_BLOCK; ++j)
                    scores[at + j] = 0.0;
            }
            running_sum = running_sum * factor + block_sum;
            rescale[tid] = factor;
        }
        barrier();

        // The weighted values into this thread's accumulators.
        if (value_lane < VALUE_LANES) {
            [[unroll]] for (uint i = 0u; i < MAX_VALUE_ROWS; ++i) {
                uint r = value_lane + i * VALUE_LANES;
                if (i < VALUE_ROWS_PER_THREAD && r < ROWS) acc[i] *= rescale[r];
            }
            for (uint j = 0u; j < KEY_BLOCK; ++j) {
                vec4 v = value_tile[j * D4 + value_column];
                [[unroll]] for (uint i = 0u; i < MAX_VALUE_ROWS; ++i) {
                    uint r = value_lane + i * VALUE_LANES;
                    if (i < VALUE_ROWS_PER_THREAD && r < ROWS) acc[i] += scores[r * SCORE_STRIDE + j] * v;
                }
            }
        }
        barrier();
    }

    if (tid < ROWS) row_sums[tid] = running_sum;
    uint rows_total = p.n * p.n_head;
    uint ml_base = p.partial_offset + p.splits * rows_total * HEAD_DIM;
    if (p.splits > 1u && tid < ROWS) {
        uint h = tid % HEADS, t = tid / HEADS;
        if (h < heads && t < positions) {
            uint row = (position0 + t) * p.n_head + kv_head * group_heads + chunk * HEADS + h;
            partial[ml_base + 2u * (split * rows_total + row)] = running_max;
            partial[ml_base + 2u * (split * rows_total + row) + 1u] = running_sum;
        }
    }
    barrier();
    if (value_lane >= VALUE_LANES) return;
    [[unroll]] for (uint i = 0u; i < MAX_VALUE_ROWS; ++i) {
        uint r = value_lane + i * VALUE_LANES;
        uint h = r % HEADS, t = r / HEADS;
        if (i < VALUE_ROWS_PER_THREAD && r < ROWS && h < heads && t < positions) {
            uint row = (position0 + t) * p.n_head + kv_head * group_heads + chunk * HEADS + h;
            vec4 result = p.splits > 1u ? acc[i] : acc[i] / row_sums[r];
            [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                uint d = 4u * value_column + e;
                if (d >= HEAD_DIM) break;
                if (p.splits > 1u)
                    partial[p.partial_offset + (split * rows_total + row) * HEAD_DIM + d] = result[e];
                else
                    out_rows[p.out_offset + row * HEAD_DIM + d] = result[e];
            }
        }
    }
}
