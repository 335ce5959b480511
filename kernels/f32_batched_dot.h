#pragma once
// F32 weights times a batch of two or more activation rows: llama.cpp hands these to
// llamafile's tinyBLAS (when the row length is a multiple of 8), which sums each dot product
// in one 8-lane fused multiply-add accumulator and adds the lanes at the end. The tables' F32
// candidates for such batches use these dot products so that prefill rounds as llama.cpp's does;
// a batch of one keeps ggml_vec_dot_f32's order. n must be a multiple of 8.
#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

float vec_dot_f32_f32_batched_ref(int64_t n, const void* weights, const void* activations);

namespace avx2 {
// A GemmFn of such dot products, tiles of them at once (gemm_f32_batched_avx2.cpp).
void gemm_f32_f32_batched(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                          int64_t row_end, const void* activations, size_t activation_row_bytes,
                          int64_t batch, float* y, int64_t y_stride);
} // namespace avx2

} // namespace hearth::kernels
