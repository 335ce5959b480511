#pragma once
// Asking for a KV head's cache rows ahead of their use, for the attention kernels of the AVX2 and
// AVX-512 tiers (attention_avx2.cpp, ../x86_avx512/attention_avx512.cpp), each compiling it with
// its own flags. In decode a layer's keys and values
// come from memory (the weights streamed past since the last token evicted them), and the
// hardware prefetchers, which follow each stream a few lines at a time, leave the kernels
// waiting on it; a few blocks ahead covers the latency.
#include "kernels/kernel_table.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <immintrin.h>

namespace hearth::kernels {

// Rows [first, first + count) of a KV head's keys and values into L1, those before `end` (the
// keys the tile sees): none once first reaches it. Always inlined: GCC drops calls to a function
// whose only effects are prefetches (decode_prefetch.h).
[[gnu::always_inline]] inline void prefetch_kv_rows(const KvRows& keys, const KvRows& values, int64_t first,
                                                    int64_t count, int64_t end) {
    const int64_t last = std::min(first + count, end);
    for (const KvRows* rows : {&keys, &values}) {
        const char* base = static_cast<const char*>(rows->data);
        const char* to = base + static_cast<size_t>(std::max(first, last)) * rows->row_bytes;
        for (const char* line = base + static_cast<size_t>(first) * rows->row_bytes; line < to; line += 64)
            _mm_prefetch(line, _MM_HINT_T0);
    }
}

} // namespace hearth::kernels
