#pragma once
// One call of the attention kernels (kernel_table.h's AttendFn) as the SIMD tiers
// take it: the query rows of a tile (n_positions positions of n_heads heads, row r = position
// r / n_heads, head r % n_heads) and the keys and values they attend to. Internal linkage: each
// tier's file compiles it with its own flags.
#include "kernels/kernel_table.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {
namespace {

struct Tile {
    const float* q;
    float* out;
    size_t head_stride, position_stride;
    int64_t n_heads, n_positions;
    KvRows keys, values;
    int64_t n_keys; // seen by position 0; position p sees n_keys + p
    int64_t head_dim;
    float scale;
    AttentionLimits limits; // zeros for the plain kernels

    int64_t rows() const { return n_heads * n_positions; }
    size_t offset(int64_t r) const {
        return static_cast<size_t>(r / n_heads) * position_stride +
               static_cast<size_t>(r % n_heads) * head_stride;
    }
    int64_t keys_seen(int64_t r) const { return n_keys + r / n_heads; }
    int64_t first_key(int64_t r) const { // the first key in the row's window
        return limits.window > 0 ? std::max<int64_t>(0, keys_seen(r) - limits.window) : 0;
    }
};

} // namespace
} // namespace hearth::kernels
