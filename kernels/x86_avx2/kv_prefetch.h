#pragma once
// Asking for a KV head's cache rows ahead of their use, for the attention kernels
// (attention_avx2.cpp, ../x86_avx512/attention_avx512.cpp). In decode a layer's keys and values
// come from memory (the weights streamed past since the last token evicted them), and the
// hardware prefetchers, which follow each stream a few lines at a time, leave the kernels
// waiting on it; a few blocks ahead covers the latency.
#include "kernels/kernel_table.h"

#include <cstddef>
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels {

// Rows [first, end) of `rows` into L1.
inline void prefetch_kv_rows(const KvRows& rows, int64_t first, int64_t end) {
    const char* from = static_cast<const char*>(rows.data) + static_cast<size_t>(first) * rows.row_bytes;
    const char* to = static_cast<const char*>(rows.data) + static_cast<size_t>(end) * rows.row_bytes;
    for (const char* line = from; line < to; line += 64)
        _mm_prefetch(line, _MM_HINT_T0);
}

} // namespace hearth::kernels
