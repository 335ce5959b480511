#pragma once
// The plain attention entries of kernel_table.h for a tier whose AttendGroupLimitedFn takes
// every call: without limits, and over F16 rows given as a pointer and a stride. Instances
// over a kernel of internal linkage are internal too, so each tier's file compiles its own.
#include "kernels/kernel_table.h"

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

template <AttendGroupLimitedFn kAttend>
void attend_group_without_limits(const float* q, float* out, size_t head_stride, size_t position_stride,
                                 int64_t n_heads, int64_t n_positions, KvRows keys, KvRows values,
                                 int64_t n_keys, int64_t head_dim, float scale) {
    kAttend(q, out, head_stride, position_stride, n_heads, n_positions, keys, values, n_keys, head_dim, scale,
            {});
}

template <AttendGroupLimitedFn kAttend>
void attend_group_over_f16(const float* q, float* out, size_t head_stride, size_t position_stride,
                           int64_t n_heads, int64_t n_positions, const uint16_t* keys, const uint16_t* values,
                           size_t kv_stride, int64_t n_keys, int64_t head_dim, float scale) {
    const KvRows key_rows{keys, TensorType::F16, kv_stride * sizeof(uint16_t)};
    const KvRows value_rows{values, TensorType::F16, kv_stride * sizeof(uint16_t)};
    kAttend(q, out, head_stride, position_stride, n_heads, n_positions, key_rows, value_rows, n_keys,
            head_dim, scale, {});
}

} // namespace hearth::kernels
