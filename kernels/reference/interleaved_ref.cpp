// The scalar tier's decode over rows repacked in groups of 16 (interleaved_rows.h): each row back
// in the file's layout, then the reference dot product, so the results are bit for bit those of
// the row-major rows. The rows are unpacked on the stack (a whole group when it fits), so that
// decode allocates nothing: matmul's own fallback keeps a buffer per thread, which a worker
// meeting its first repacked chunk mid-conversation had to allocate.
#include "kernels/interleaved_rows.h"
#include "kernels/reference/reference_kernels.h"

#include <vector>

namespace hearth::kernels {
namespace {

constexpr size_t kStackBytes = size_t{64} << 10;

template <TensorType kType, VecDotFn kVecDot>
void gemv_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                            const void* activation, float* y) {
    const size_t row = row_bytes(kType, n);
    alignas(64) std::byte stack[kStackBytes];
    std::byte* rows = stack;
    if (row > kStackBytes) { // a row wider than any model's so far: the thread's own buffer
        thread_local std::vector<std::byte> wide;
        if (wide.size() < row) wide.resize(row);
        rows = wide.data();
    }
    const int64_t at_once = row * kInterleavedRows <= kStackBytes ? kInterleavedRows : 1;
    for (int64_t first = group_begin * kInterleavedRows; first < group_end * kInterleavedRows;
         first += at_once) {
        unpack_rows16(kType, packed, n, first, first + at_once, rows);
        for (int64_t r = 0; r < at_once; ++r)
            y[first + r] = kVecDot(n, rows + static_cast<size_t>(r) * row, activation);
    }
}

} // namespace

void gemv_q4_K_q8_K_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                      const void* activation, float* y) {
    gemv_interleaved16_ref<TensorType::Q4_K, vec_dot_q4_K_q8_K_ref>(n, packed, group_begin, group_end,
                                                                    activation, y);
}
void gemv_q6_K_q8_K_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                      const void* activation, float* y) {
    gemv_interleaved16_ref<TensorType::Q6_K, vec_dot_q6_K_q8_K_ref>(n, packed, group_begin, group_end,
                                                                    activation, y);
}
void gemv_q8_0_q8_0_interleaved16_ref(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                                      const void* activation, float* y) {
    gemv_interleaved16_ref<TensorType::Q8_0, vec_dot_q8_0_q8_0_ref>(n, packed, group_begin, group_end,
                                                                    activation, y);
}

} // namespace hearth::kernels
