#version 450
// out[i] = row ids[i] of a table, widened to F32: one thread per 16 elements. The table may be
// bound in chunks of rows [row_begin, row_begin + rows): a thread whose id falls outside the
// chunk writes nothing (another dispatch has it).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WORKGROUP = 64;

layout(std430, binding = 0) readonly buffer Weights { uint weights[]; };
layout(std430, binding = 1) readonly buffer Ids { int ids[]; };
layout(std430, binding = 2) writeonly buffer Out { float out_rows[]; };

layout(push_constant) uniform Push {
    uint w_offset, ids_offset, out_offset;
    uint n, cols, row_bytes;
    uint row_begin, rows;
    uint groups_per_row;
} p;

#include "weights.glsl"

void main() {
    uint index = linear_group() * WORKGROUP + gl_LocalInvocationID.x;
    uint i = index / p.groups_per_row, g = index % p.groups_per_row;
    if (i >= p.n) return;
    uint id = uint(ids[p.ids_offset + i]);
    if (id < p.row_begin || id - p.row_begin >= p.rows) return;
    float v[16];
    uint k0 = 16u * g;
    dequant16(p.w_offset + (id - p.row_begin) * p.row_bytes, k0, p.cols, v);
    uint base = p.out_offset + i * p.cols + k0;
    [[unroll]] for (uint e = 0u; e < 16u; ++e)
        if (k0 + e < p.cols) out_rows[base + e] = v[e];
}
