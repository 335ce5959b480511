#version 450
// y = W x for a few activation columns (decode, small batches). A workgroup takes ROWS rows of
// W and COLUMNS columns of x; its threads stride over the rows' units (dot_units.glsl), so the
// threads of a subgroup read consecutive units, a contiguous span of each row. Per unit a
// thread reads the rows' words once, and each piece of x once for all the rows. The sums are
// reduced with subgroupAdd, then across the subgroups in shared memory (SUBGROUPS; without it
// the device lacks subgroup arithmetic and the workgroup reduces in shared memory alone).
// With EXPERTS, column z is the pair (token b, choice j) = (z / k, z % k) and the rows are
// those of expert ids[z] (COLUMNS is 1). With ACCUMULATE the sums are added to y (y += W x:
// the residual stream) instead of stored; with BIAS each row's bias is added to its sums.
// With GLU (a gated FFN's gate and up products in one dispatch) the first half of the ROWS are
// rows of the gate, the second half the same rows of the up matrix, glu_offset bytes further
// in the same binding, and each output is act(gate sum) * up sum: the sums are those of two
// plain products, the activation the elementwise shader's.
#include "common.glsl"
#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 32; // a power of two, at most 128
layout(constant_id = 1) const uint ROWS = 2;       // at most 8 (rows x columns at most WORKGROUP)
layout(constant_id = 2) const uint COLUMNS = 1;    // at most 8
layout(constant_id = 3) const bool X_VEC4 = false; // x read as vec4 (offset and stride multiples of 4)
layout(constant_id = 4) const uint SUBGROUP_MIN = 8; // the device's smallest subgroup
layout(constant_id = 5) const bool WORD_ALIGNED = false; // every weight word read is 4-byte aligned
layout(constant_id = 6) const bool ACCUMULATE = false;   // y += W x
// Every block starts 16-byte aligned (Q4_K, Q5_K): a unit's words are read as uvec4s.
layout(constant_id = 7) const bool VEC16_ALIGNED = false;
layout(constant_id = 8) const bool BIAS = false;         // y = W x + bias
layout(constant_id = 9) const uint GLU = 0u; // 0: none; 1: y = silu(G x) * (U x); 2: gelu_tanh
#define WEIGHTS_WORD_ALIGNED WORD_ALIGNED
#define WEIGHTS_VEC16_ALIGNED VEC16_ALIGNED
const uint MAX_ROWS = 8u, MAX_COLUMNS = 8u;

layout(std430, binding = 0) readonly buffer Weights { uint weights[]; };
layout(std430, binding = 0) readonly buffer Weights4 { uvec4 weights4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 2) buffer Y { float y[]; };
layout(std430, binding = 3) readonly buffer Ids { int ids[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };

layout(push_constant) uniform Push {
    uint w_offset; // bytes, to row 0
    uint x_offset, y_offset, ids_offset; // elements; with BIAS ids_offset is the bias's
    uint rows, cols, row_bytes;
    uint batch;
    uint x_stride, y_stride;
    uint k;               // experts: choices per token
    uint rows_per_expert; // experts: rows of each expert
    uint row_groups;      // workgroups along the rows
    uint glu_offset;      // GLU: bytes from the gate's row 0 to the up matrix's
} p;

#include "weights.glsl"
#include "dot_units.glsl"

#ifdef SUBGROUPS
shared float partial[(WORKGROUP / SUBGROUP_MIN) * ROWS * COLUMNS];
#else
shared float partial[WORKGROUP * ROWS * COLUMNS];
#endif

float acc[MAX_ROWS][MAX_COLUMNS];

// Output row `row` of this dispatch, at y[at], from its sums (with GLU, the gate's and the
// up matrix's; without, `sum` alone).
void store_y(uint at, uint row, float sum, float up_sum) {
    if (GLU == 1u) {
        y[at] = silu(sum) * up_sum;
        return;
    }
    if (GLU == 2u) {
        y[at] = gelu_tanh(sum) * up_sum;
        return;
    }
    if (BIAS) sum += bias[p.ids_offset + row];
    y[at] = ACCUMULATE ? y[at] + sum : sum;
}
uint x_base[MAX_COLUMNS];

vec4 x_piece(uint c, uint column) {
    uint at = x_base[c] + column;
    if (X_VEC4) return x4[at >> 2];
    return vec4(x[at], x[at + 1u], x[at + 2u], x[at + 3u]);
}

void main() {
    uint group = linear_group();
    if (group >= p.row_groups) return;
    uint tid = gl_LocalInvocationID.x;
    // Output rows of this workgroup: with GLU each is two of the ROWS (gate, then up).
    const uint OUT_ROWS = GLU != 0u ? ROWS / 2u : ROWS;
    uint row0 = group * OUT_ROWS;
    uint column0 = gl_WorkGroupID.z * COLUMNS;
    uint w_base = p.w_offset;
    uint y_base = p.y_offset + column0 * p.y_stride;
#ifdef EXPERTS
    uint pair = gl_WorkGroupID.z;
    w_base += uint(ids[p.ids_offset + pair]) * p.rows_per_expert * p.row_bytes;
    x_base[0] = p.x_offset + (pair / p.k) * p.x_stride;
    y_base = p.y_offset + pair * p.y_stride;
#else
    // Columns past the batch read the last one, rows past the matrix its last row: their
    // sums are computed and not written.
    [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
        x_base[c] = p.x_offset + min(column0 + c, p.batch - 1u) * p.x_stride;
#endif
    uint row_byte[MAX_ROWS];
    [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r) {
        if (GLU != 0u)
            row_byte[r] = w_base + (r >= OUT_ROWS ? p.glu_offset : 0u) +
                          min(row0 + r % OUT_ROWS, p.rows - 1u) * p.row_bytes;
        else
            row_byte[r] = w_base + min(row0 + r, p.rows - 1u) * p.row_bytes;
    }

    [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
        [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
            acc[r][c] = 0.0;

    uint units = p.cols / UNIT;
    for (uint u = tid; u < units; u += WORKGROUP) {
        [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
            if (r < ROWS) load_unit(r, row_byte[r], u);
        [[unroll]] for (uint s = 0u; s < SEGMENTS; ++s) {
            float qx[MAX_ROWS][MAX_COLUMNS];
            float sum_x[MAX_COLUMNS];
            [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c) {
                sum_x[c] = 0.0;
                [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
                    qx[r][c] = 0.0;
            }
            [[unroll]] for (uint i = 0u; i < PIECES; ++i) {
                uint column = piece_column(u, s, i);
                vec4 xv[MAX_COLUMNS];
                [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c) {
                    if (c < COLUMNS) {
                        xv[c] = x_piece(c, column);
                        if (HAS_OFFSET) sum_x[c] += (xv[c].x + xv[c].y) + (xv[c].z + xv[c].w);
                    }
                }
                [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r) {
                    if (r < ROWS) {
                        vec4 q = piece(r, s, i);
                        [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
                            if (c < COLUMNS) qx[r][c] += dot(q, xv[c]);
                    }
                }
            }
            [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
                [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
                    if (r < ROWS && c < COLUMNS) {
                        float sum = segment_scale[r][s] * qx[r][c];
                        if (HAS_OFFSET) sum += segment_offset[r][s] * sum_x[c];
                        acc[r][c] += sum;
                    }
        }
    }
#if defined(FLOAT_WEIGHTS)
    // The last elements of a row whose width is not a multiple of the unit.
    for (uint k = units * UNIT + tid; k < p.cols; k += WORKGROUP) {
        [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r) {
            if (r >= ROWS) break;
#if WEIGHT_TYPE == TYPE_F32
            float w = uintBitsToFloat(weights[(row_byte[r] >> 2) + k]);
#elif WEIGHT_TYPE == TYPE_F16
            float w = w_half(row_byte[r] + 2u * k);
#else
            float w = uintBitsToFloat(w_u16(row_byte[r] + 2u * k) << 16);
#endif
            [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
                if (c < COLUMNS) acc[r][c] += w * x[x_base[c] + k];
        }
    }
#endif

    const uint SUMS = ROWS * COLUMNS;
#ifdef SUBGROUPS
    // Each subgroup's sums, then the subgroups' (one subgroup: no shared memory, no barrier).
    [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
        [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
            if (r < ROWS && c < COLUMNS) acc[r][c] = subgroupAdd(acc[r][c]);
    if (gl_NumSubgroups == 1u) {
        if (subgroupElect()) {
            [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
                [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
                    if (r < OUT_ROWS && c < COLUMNS && row0 + r < p.rows && column0 + c < p.batch)
                        store_y(y_base + c * p.y_stride + row0 + r, row0 + r, acc[r][c],
                                GLU != 0u ? acc[(r + OUT_ROWS) % MAX_ROWS][c] : 0.0);
        }
        return;
    }
    if (subgroupElect()) {
        [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
            [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
                if (r < ROWS && c < COLUMNS) partial[gl_SubgroupID * SUMS + r * COLUMNS + c] = acc[r][c];
    }
    barrier();
    const uint UP = OUT_ROWS * COLUMNS; // with GLU: from a gate sum to its up sum
    if (tid < OUT_ROWS * COLUMNS) {
        float total = 0.0, up_total = 0.0;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
            total += partial[s * SUMS + tid];
            if (GLU != 0u) up_total += partial[s * SUMS + UP + tid];
        }
        uint r = tid / COLUMNS, c = tid % COLUMNS;
        if (row0 + r < p.rows && column0 + c < p.batch)
            store_y(y_base + c * p.y_stride + row0 + r, row0 + r, total, up_total);
    }
#else
    [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r)
        [[unroll]] for (uint c = 0u; c < MAX_COLUMNS; ++c)
            if (r < ROWS && c < COLUMNS) partial[(r * COLUMNS + c) * WORKGROUP + tid] = acc[r][c];
    barrier();
    for (uint s = WORKGROUP / 2u; s > 0u; s >>= 1u) {
        if (tid < s)
            for (uint i = 0u; i < SUMS; ++i)
                partial[i * WORKGROUP + tid] += partial[i * WORKGROUP + tid + s];
        barrier();
    }
    const uint UP = OUT_ROWS * COLUMNS;
    if (tid < OUT_ROWS * COLUMNS) {
        uint r = tid / COLUMNS, c = tid % COLUMNS;
        if (row0 + r < p.rows && column0 + c < p.batch)
            store_y(y_base + c * p.y_stride + row0 + r, row0 + r, partial[tid * WORKGROUP],
                    GLU != 0u ? partial[(tid + UP) * WORKGROUP] : 0.0);
    }
#endif
}
