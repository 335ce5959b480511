#pragma once
// Matrix products of quantized weights with float activations.
#include "kernels/row_layout.h"
#include "kernels/tensor_type.h"
#include "kernels/thread_pool.h"
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hearth::kernels {

// A weight matrix: `rows` rows of `cols` elements each.
struct WeightMatrix {
    TensorType type = TensorType::F32;
    int64_t rows = 0;
    int64_t cols = 0;
    const void* data = nullptr;
    RowLayout layout = RowLayout::RowMajor;
};

// Bytes of scratch matmul needs for `batch` activation rows of `cols` elements.
size_t matmul_scratch_bytes(TensorType weight_type, int64_t cols, int64_t batch);

// y[b * w.rows + r] = sum_c W[r][c] * x[b * w.cols + c], for b < batch, by the active table's
// first matmul candidate that takes the call. x is quantized once to the candidate's activation
// type into `scratch` (sized by matmul_scratch_bytes at load time), then rows are split over the
// pool. as_decode: every row of y bit for bit a batch of that row alone (a verify pass of drafted
// tokens, each scored as a decode step would be): decode's kernel runs the batch (Plan).
void matmul(const WeightMatrix& w, const float* x, int64_t batch, float* y, ThreadPool& pool,
            std::vector<std::byte>& scratch, bool as_decode = false);

// One product of a group that shares its input.
struct MatmulOutput {
    const WeightMatrix* w;
    float* y; // (batch, w->rows)
};
// Several matrices of the same width applied to the same activations (Q, K and V; gate and up):
// the activations are quantized once per activation type, and the rows of all matrices are
// shared out in one pool job, so the group costs one barrier instead of one per matrix.
// Scratch: the sum of matmul_scratch_bytes over the group.
void matmul_group(std::span<const MatmulOutput> outputs, const float* x, int64_t batch, ThreadPool& pool,
                  std::vector<std::byte>& scratch, bool as_decode = false);

// One product of a set whose members have inputs of their own.
struct MatmulProduct {
    const WeightMatrix* w;
    const float* x; // (batch, w->cols)
    int64_t batch;
    float* y; // (batch, w->rows)
};
// Products on inputs of their own (the experts of a mixture, each over the rows that chose it):
// each input quantized once per activation type (products on the same input share it), several
// at once over the pool, then the rows of every matrix shared out in one
// pool job, so that the set costs two barriers instead of two per product. Scratch: the sum of
// matmul_scratch_bytes over the set's inputs.
void matmul_products(std::span<const MatmulProduct> products, ThreadPool& pool,
                     std::vector<std::byte>& scratch, bool as_decode = false);

} // namespace hearth::kernels
