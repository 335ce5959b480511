#version 450
// y = W x for a few activation columns (decode, small batches): each workgroup takes ROWS rows
// of W and COLUMNS columns of x; its threads stride over the row in 16-element groups,
// dequantize each group once and dot it with every column, then sum across the workgroup.
// With EXPERTS, column z is the pair (token b, choice j) = (z / k, z % k) and the rows are
// those of expert ids[z] (COLUMNS is 1).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 64;
layout(constant_id = 1) const uint ROWS = 2;    // at most 4
layout(constant_id = 2) const uint COLUMNS = 1; // at most 8

layout(std430, binding = 0) readonly buffer Weights { uint weights[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
layout(std430, binding = 3) readonly buffer Ids { int ids[]; };

layout(push_constant) uniform Push {
    uint w_offset; // bytes, to row 0
    uint x_offset, y_offset, ids_offset; // elements
    uint rows, cols, row_bytes;
    uint batch;
    uint x_stride, y_stride;
    uint k;               // experts: choices per token
    uint rows_per_expert; // experts: rows of each expert
    uint row_groups;      // workgroups along the rows
} p;

#include "weights.glsl"

shared float partial[ROWS * COLUMNS * WORKGROUP];

void main() {
    uint group = linear_group();
    if (group >= p.row_groups) return;
    uint tid = gl_LocalInvocationID.x;
    uint row0 = group * ROWS;
    uint column0 = gl_WorkGroupID.z * COLUMNS;
    uint w_base = p.w_offset;
    uint x_base = p.x_offset + column0 * p.x_stride;
    uint y_base = p.y_offset + column0 * p.y_stride;
#ifdef EXPERTS
    uint pair = gl_WorkGroupID.z;
    uint expert = uint(ids[p.ids_offset + pair]);
    w_base += expert * p.rows_per_expert * p.row_bytes;
    x_base = p.x_offset + (pair / p.k) * p.x_stride;
    y_base = p.y_offset + pair * p.y_stride;
#endif

    float acc[4][8];
    [[unroll]] for (uint r = 0u; r < 4u; ++r)
        [[unroll]] for (uint c = 0u; c < 8u; ++c)
            acc[r][c] = 0.0;

    for (uint k0 = tid * 16u; k0 < p.cols; k0 += WORKGROUP * 16u) {
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            uint row = row0 + r;
            if (row >= p.rows) break;
            float v[16];
            dequant16(w_base + row * p.row_bytes, k0, p.cols, v);
            [[unroll]] for (uint c = 0u; c < COLUMNS; ++c) {
                if (column0 + c >= p.batch) break;
                uint xi = x_base + c * p.x_stride + k0;
                float sum = 0.0;
#if defined(FLOAT_WEIGHTS)
                uint n = min(16u, p.cols - k0);
                for (uint i = 0u; i < n; ++i)
                    sum += v[i] * x[xi + i];
#else
                [[unroll]] for (uint i = 0u; i < 16u; ++i)
                    sum += v[i] * x[xi + i];
#endif
                acc[r][c] += sum;
            }
        }
    }

    [[unroll]] for (uint r = 0u; r < ROWS; ++r)
        [[unroll]] for (uint c = 0u; c < COLUMNS; ++c)
            partial[(r * COLUMNS + c) * WORKGROUP + tid] = acc[r][c];
    barrier();
    for (uint s = WORKGROUP / 2u; s > 0u; s >>= 1u) {
        if (tid < s)
            for (uint i = 0u; i < ROWS * COLUMNS; ++i)
                partial[i * WORKGROUP + tid] += partial[i * WORKGROUP + tid + s];
        barrier();
    }
    if (tid < ROWS * COLUMNS) {
        uint r = tid / COLUMNS, c = tid % COLUMNS;
        if (row0 + r < p.rows && column0 + c < p.batch) y[y_base + c * p.y_stride + row0 + r] = partial[tid * WORKGROUP];
    }
}
