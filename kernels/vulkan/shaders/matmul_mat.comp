#version 450
// y = W X for batches (prefill): 256 threads as 16 x 16 compute a tile of TILE_ROWS rows of W
// by TILE_COLUMNS columns of X, each thread TILE_ROWS / 16 x TILE_COLUMNS / 16 outputs. Each
// step dequantizes 32 columns of the tile's rows into shared memory once and loads 32 values of
// each column of X beside them.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const uint TILE_ROWS = 64;    // a multiple of 16, at most 128
layout(constant_id = 1) const uint TILE_COLUMNS = 64; // a multiple of 16, at most 128
const uint STEP = 32u;
const uint MAX_PER_THREAD = 8u;

layout(std430, binding = 0) readonly buffer Weights { uint weights[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Push {
    uint w_offset;
    uint x_offset, y_offset;
    uint rows, cols, row_bytes;
    uint batch;
    uint x_stride, y_stride;
    uint row_groups;
} p;

#include "weights.glsl"

shared float w_tile[STEP * TILE_ROWS];    // [k][row]
shared float x_tile[STEP * TILE_COLUMNS]; // [k][column]

void main() {
    uint group = linear_group();
    if (group >= p.row_groups) return;
    uint tid = gl_LocalInvocationID.x;
    uint tx = tid % 16u, ty = tid / 16u;
    uint row0 = group * TILE_ROWS;
    uint column0 = gl_WorkGroupID.z * TILE_COLUMNS;
    const uint per_row = TILE_ROWS / 16u, per_column = TILE_COLUMNS / 16u;

    float acc[MAX_PER_THREAD][MAX_PER_THREAD];
    [[unroll]] for (uint i = 0u; i < MAX_PER_THREAD; ++i)
        [[unroll]] for (uint j = 0u; j < MAX_PER_THREAD; ++j)
            acc[i][j] = 0.0;

    for (uint k0 = 0u; k0 < p.cols; k0 += STEP) {
        // Weights: TILE_ROWS rows x 2 groups of 16.
        for (uint task = tid; task < TILE_ROWS * 2u; task += 256u) {
            uint r = task / 2u, half_step = task % 2u;
            uint row = row0 + r;
            uint k = k0 + 16u * half_step;
            float v[16];
            if (row < p.rows && k < p.cols) {
                dequant16(p.w_offset + row * p.row_bytes, k, p.cols, v);
            } else {
                [[unroll]] for (uint i = 0u; i < 16u; ++i)
                    v[i] = 0.0;
            }
            [[unroll]] for (uint i = 0u; i < 16u; ++i)
                w_tile[(16u * half_step + i) * TILE_ROWS + r] = v[i];
        }
        // Activations: TILE_COLUMNS columns x STEP values.
        for (uint task = tid; task < TILE_COLUMNS * STEP; task += 256u) {
            uint c = task / STEP, kk = task % STEP;
            uint column = column0 + c, k = k0 + kk;
            x_tile[kk * TILE_COLUMNS + c] =
                column < p.batch && k < p.cols ? x[p.x_offset + column * p.x_stride + k] : 0.0;
        }
        barrier();
        for (uint kk = 0u; kk < STEP; ++kk) {
            float a[MAX_PER_THREAD], b[MAX_PER_THREAD];
            [[unroll]] for (uint i = 0u; i < per_row; ++i)
                a[i] = w_tile[kk * TILE_ROWS + ty + 16u * i];
            [[unroll]] for (uint j = 0u; j < per_column; ++j)
                b[j] = x_tile[kk * TILE_COLUMNS + tx + 16u * j];
            [[unroll]] for (uint i = 0u; i < per_row; ++i)
                [[unroll]] for (uint j = 0u; j < per_column; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        barrier();
    }

    [[unroll]] for (uint i = 0u; i < per_row; ++i) {
        uint row = row0 + ty + 16u * i;
        [[unroll]] for (uint j = 0u; j < per_column; ++j) {
            uint column = column0 + tx + 16u * j;
            if (row < p.rows && column < p.batch) y[p.y_offset + column * p.y_stride + row] = acc[i][j];
        }
    }
}
