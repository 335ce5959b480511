#version 450
// y = W X for batches (prefill): 256 threads compute a tile of TILE_ROWS rows of W by
// TILE_COLUMNS columns of X, each thread TILE_ROWS / 16 rows x TILE_COLUMNS / 16 columns held
// in registers. The k dimension is walked in steps of 32: each step's weights are widened to
// F32 once (16 values per thread) and the step's activations loaded once, both into shared
// memory as rows of 32 (padded, so threads reading different rows hit different banks); the
// next step's values are read into registers while the current step is multiplied. With
// ACCUMULATE the products are added to y (y += W X: the residual stream) instead of stored;
// with BIAS each row's bias is added to its products.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const uint TILE_ROWS = 128;   // 32, 64 or 128
layout(constant_id = 1) const uint TILE_COLUMNS = 64; // a multiple of 16, at most 64
layout(constant_id = 2) const bool X_VEC4 = false;    // x read as vec4 (offset and stride multiples of 4)
layout(constant_id = 3) const bool WORD_ALIGNED = false; // every weight word read is 4-byte aligned
layout(constant_id = 4) const bool ACCUMULATE = false;   // y += W X
layout(constant_id = 5) const bool BIAS = false;         // y = W X + bias
#define WEIGHTS_WORD_ALIGNED WORD_ALIGNED
const uint STEP = 32u;
const uint STRIDE = STEP / 4u + 1u; // vec4s of a shared tile row
const uint PER_ROW = TILE_ROWS / 16u, PER_COLUMN = TILE_COLUMNS / 16u;
const uint MAX_PER_ROW = 8u, MAX_PER_COLUMN = 4u;
// Activation loads: TILE_COLUMNS columns x 8 vec4 of a step, over 256 threads.
const uint X_LOADS = (TILE_COLUMNS * (STEP / 4u) + 255u) / 256u;

layout(std430, binding = 0) readonly buffer Weights { uint weights[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 2) buffer Y { float y[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };

layout(push_constant) uniform Push {
    uint w_offset;
    uint x_offset, y_offset;
    uint rows, cols, row_bytes;
    uint batch;
    uint x_stride, y_stride;
    uint row_groups;
    uint bias_offset; // elements
} p;

#include "weights.glsl"

shared vec4 w_tile[TILE_ROWS * STRIDE]; // [row][k / 4]
shared vec4 x_tile[TILE_COLUMNS * STRIDE]; // [column][k / 4]

// This thread's share of a step: 16 weights of one row, and X_LOADS vec4 of activations.
float w_next[16];
vec4 x_next[2];

void fetch(uint row0, uint column0, uint k0) {
    uint tid = gl_LocalInvocationID.x;
    if (tid < TILE_ROWS * 2u) {
        uint r = tid / 2u, half_step = tid % 2u;
        uint row = row0 + r, k = k0 + 16u * half_step;
        if (row < p.rows && k < p.cols) {
            dequant16(p.w_offset + row * p.row_bytes, k, p.cols, w_next);
        } else {
            [[unroll]] for (uint i = 0u; i < 16u; ++i)
                w_next[i] = 0.0;
        }
    }
    [[unroll]] for (uint l = 0u; l < 2u; ++l) {
        uint task = tid + 256u * l;
        if (l >= X_LOADS || task >= TILE_COLUMNS * (STEP / 4u)) continue;
        uint c = task / (STEP / 4u), k = k0 + 4u * (task % (STEP / 4u));
        uint column = column0 + c;
        vec4 v = vec4(0.0);
        if (column < p.batch) {
            uint at = p.x_offset + column * p.x_stride + k;
            if (X_VEC4) {
                if (k < p.cols) v = x4[at >> 2];
            } else {
                [[unroll]] for (uint e = 0u; e < 4u; ++e)
                    if (k + e < p.cols) v[e] = x[at + e];
            }
        }
        x_next[l] = v;
    }
}

void store() {
    uint tid = gl_LocalInvocationID.x;
    if (tid < TILE_ROWS * 2u) {
        uint r = tid / 2u, half_step = tid % 2u;
        [[unroll]] for (uint q = 0u; q < 4u; ++q)
            w_tile[r * STRIDE + 4u * half_step + q] =
                vec4(w_next[4u * q], w_next[4u * q + 1u], w_next[4u * q + 2u], w_next[4u * q + 3u]);
    }
    [[unroll]] for (uint l = 0u; l < 2u; ++l) {
        uint task = tid + 256u * l;
        if (l >= X_LOADS || task >= TILE_COLUMNS * (STEP / 4u)) continue;
        x_tile[(task / (STEP / 4u)) * STRIDE + task % (STEP / 4u)] = x_next[l];
    }
}

void main() {
    uint group = linear_group();
    if (group >= p.row_groups) return;
    uint tid = gl_LocalInvocationID.x;
    // Threads of consecutive ids take consecutive rows: their writes of y are contiguous.
    uint tx = tid % 16u, ty = tid / 16u;
    uint row0 = group * TILE_ROWS;
    uint column0 = gl_WorkGroupID.z * TILE_COLUMNS;

    float acc[MAX_PER_ROW][MAX_PER_COLUMN];
    [[unroll]] for (uint i = 0u; i < MAX_PER_ROW; ++i)
        [[unroll]] for (uint j = 0u; j < MAX_PER_COLUMN; ++j)
            acc[i][j] = 0.0;

    fetch(row0, column0, 0u);
    for (uint k0 = 0u; k0 < p.cols; k0 += STEP) {
        store();
        barrier();
        if (k0 + STEP < p.cols) fetch(row0, column0, k0 + STEP);
        [[unroll]] for (uint k4 = 0u; k4 < STEP / 4u; ++k4) {
            vec4 a[MAX_PER_ROW], b[MAX_PER_COLUMN];
            [[unroll]] for (uint i = 0u; i < MAX_PER_ROW; ++i)
                if (i < PER_ROW) a[i] = w_tile[(tx + 16u * i) * STRIDE + k4];
            [[unroll]] for (uint j = 0u; j < MAX_PER_COLUMN; ++j)
                if (j < PER_COLUMN) b[j] = x_tile[(ty + 16u * j) * STRIDE + k4];
            [[unroll]] for (uint i = 0u; i < MAX_PER_ROW; ++i)
                [[unroll]] for (uint j = 0u; j < MAX_PER_COLUMN; ++j)
                    if (i < PER_ROW && j < PER_COLUMN) acc[i][j] += dot(a[i], b[j]);
        }
        barrier();
    }

    [[unroll]] for (uint i = 0u; i < MAX_PER_ROW; ++i) {
        uint row = row0 + tx + 16u * i;
        [[unroll]] for (uint j = 0u; j < MAX_PER_COLUMN; ++j) {
            uint column = column0 + ty + 16u * j;
            if (i < PER_ROW && j < PER_COLUMN && row < p.rows && column < p.batch) {
                uint at = p.y_offset + column * p.y_stride + row;
                float v = acc[i][j];
                if (BIAS) v += bias[p.bias_offset + row];
                y[at] = ACCUMULATE ? y[at] + v : v;
            }
        }
    }
}
