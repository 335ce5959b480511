#pragma once
// Decode streams every weight once from memory, and the hardware prefetcher alone keeps too few
// misses in flight to do it at the memory's speed, so the decode kernels ask for the lines some
// way ahead of those they read. Where the lines should go (L1 or L2) and how far ahead differ
// from one CPU to another; the plan is chosen once per process from the CPU's vendor
// (decode_prefetch.cpp).
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

struct DecodePrefetch {
    bool into_l2 = false;          // prefetcht1 (L2) rather than prefetcht0 (L1)
    size_t row_bytes_ahead = 2048; // row-major rows: a row's lines this far ahead, per row
    // Longer row-major rows are left to the hardware prefetcher, which follows one long stream
    // better than a whole row's lines asked for at once as the row starts.
    size_t longest_prefetched_row = SIZE_MAX;
    size_t group_bytes_ahead = 0; // rows repacked in groups of 16: per super-block (0: its own lines)
    // Longer repacked super-blocks (all 16 rows) are left to the hardware prefetcher, likewise.
    size_t longest_prefetched_block = SIZE_MAX;
};

// This CPU's plan.
const DecodePrefetch& decode_prefetch();

// Asks for the lines of [p, p + bytes), into L1 or L2. Always inlined: GCC takes a function whose
// only effects are prefetches for one without side effects, and drops the calls to it (and to
// any wrapper of it), which left the repacked-row decode kernels with no prefetch at all.
[[gnu::always_inline]] inline void prefetch_weight_lines(const void* p, size_t bytes, bool into_l2) {
    const auto* bytes_at = static_cast<const char*>(p);
    for (size_t offset = 0; offset < bytes; offset += 64) {
        if (into_l2)
            __builtin_prefetch(bytes_at + offset, 0, 2);
        else
            __builtin_prefetch(bytes_at + offset, 0, 3);
    }
}

// A row-major row's lines, the plan's distance ahead of it, if the plan prefetches such rows.
[[gnu::always_inline]] inline void prefetch_row_ahead(const char* row, size_t row_bytes,
                                                      const DecodePrefetch& plan) {
    if (row_bytes <= plan.longest_prefetched_row)
        prefetch_weight_lines(row + plan.row_bytes_ahead, row_bytes, plan.into_l2);
}

} // namespace hearth::kernels
