// Matrix products: quantize the activations once, then split weight rows over the pool.
#include "kernels/matmul.h"

#include "kernels/dispatch_metrics.h"
#include "kernels/kernel_table.h"
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

namespace hearth::kernels {
namespace {

constexpr int64_t kMinQuantizeElementsPerThread = 16384;

// Rows handed out per grab: small enough that the threads finish together (a thread that
// was descheduled simply takes fewer chunks), large enough that the shared counter is cold.
int64_t rows_per_chunk(int64_t rows, int n_threads) {
    const int64_t target = rows / (static_cast<int64_t>(n_threads) * 8);
    return std::clamp<int64_t>((target + 3) / 4 * 4, 4, 256);
}

// The kernels one matmul uses. The active table may leave entries empty (an ISA that has not
// implemented a type yet): then the whole entry of that type comes from the reference table,
// so that the activation type always matches the dot product. The activation quantizer is
// taken from the chosen table when it has one, else from the reference: the block layouts are
// identical, so any quantizer of the activation type feeds any dot product of that type.
struct Plan {
    const TypeKernels* kernels;
    Isa isa;
    QuantizeRowFn quantize_activations;
    Isa quantize_isa; // the table the activation quantizer came from
};

Plan plan_for(TensorType type) {
    const KernelTable& active = active_kernels();
    const KernelTable& reference = reference_kernels();
    const auto raw = static_cast<uint32_t>(type);
    if (raw >= std::size(reference.by_type) || reference.of(type).vec_dot == nullptr)
        throw std::invalid_argument("matmul: no kernels for tensor type " + std::to_string(raw));
    Plan plan{&active.of(type), active.isa, nullptr, active.isa};
    if (plan.kernels->vec_dot == nullptr) plan = {&reference.of(type), reference.isa, nullptr, reference.isa};
    const TensorType activation = plan.kernels->activation_type;
    if (activation != TensorType::F32) {
        plan.quantize_activations = active.of(activation).quantize;
        if (plan.quantize_activations == nullptr) {
            plan.quantize_activations = reference.of(activation).quantize;
            plan.quantize_isa = reference.isa;
        }
    }
    return plan;
}

} // namespace

size_t matmul_scratch_bytes(TensorType weight_type, int64_t cols, int64_t batch) {
    // Enough for the activation type of either table, whichever matmul ends up using.
    size_t row = 0;
    for (const KernelTable* table : {&reference_kernels(), &active_kernels()}) {
        const TypeKernels& k = table->of(weight_type);
        if (k.vec_dot != nullptr && k.activation_type != TensorType::F32) // F32 is read directly
            row = std::max(row, row_bytes(k.activation_type, cols));
    }
    return row * static_cast<size_t>(std::max<int64_t>(batch, 0));
}

void matmul(const WeightMatrix& w, const float* x, int64_t batch, float* y, ThreadPool& pool,
            std::vector<std::byte>& scratch) {
    if (batch <= 0 || w.rows <= 0) return;
    const Plan plan = plan_for(w.type);
    const TypeKernels& k = *plan.kernels;
    namespace metrics = dispatch_metrics;
    metrics::ScopedTimer timer(batch == 1 ? metrics::Op::MatVec : metrics::Op::MatMat, w.type, plan.isa);

    const size_t weight_row_bytes = row_bytes(w.type, w.cols);
    const auto* weights = static_cast<const std::byte*>(w.data);

    // 1. The activations in the dot product's type, quantized once for all rows.
    const void* activations = x;
    size_t activation_row_bytes = static_cast<size_t>(w.cols) * sizeof(float);
    if (k.activation_type != TensorType::F32) {
        activation_row_bytes = row_bytes(k.activation_type, w.cols);
        const size_t needed = activation_row_bytes * static_cast<size_t>(batch);
        if (scratch.size() < needed) scratch.resize(needed); // normally sized once at load time
        metrics::ScopedTimer quantize_timer(metrics::Op::QuantizeActivations, k.activation_type,
                                            plan.quantize_isa);
        // Rows are whole blocks, so the batch is one contiguous run of blocks: split it by blocks.
        const int64_t block = type_traits(k.activation_type).block_elements;
        const int64_t blocks = batch * w.cols / block;
        const size_t block_bytes = type_traits(k.activation_type).block_bytes;
        const QuantizeRowFn quantize = plan.quantize_activations;
        std::byte* out = scratch.data();
        // A pool run costs a few microseconds: only worth it for a prefill-sized batch.
        const int64_t parallel_threshold = 2 * kMinQuantizeElementsPerThread;
        if (pool.size() == 1 || batch * w.cols < parallel_threshold) {
            quantize(x, out, blocks * block);
        } else {
            pool.run([&](int index, int count) {
                const Range r = split_range(blocks, index, count);
                if (r.end > r.begin)
                    quantize(x + r.begin * block, out + static_cast<size_t>(r.begin) * block_bytes,
                             (r.end - r.begin) * block);
            });
        }
        activations = scratch.data();
    }
    const auto* activation_bytes = static_cast<const std::byte*>(activations);

    // 2. Weight rows in chunks taken from a shared counter until none are left.
    const int64_t chunk = rows_per_chunk(w.rows, pool.size());
    std::atomic<int64_t> next_row{0};
    const int64_t n = w.cols, rows = w.rows;
    pool.run([&](int, int) {
        for (;;) {
            const int64_t begin = next_row.fetch_add(chunk, std::memory_order_relaxed);
            if (begin >= rows) return;
            const int64_t end = std::min(rows, begin + chunk);
            if (batch > 1 && k.gemm != nullptr) {
                k.gemm(n, weights, weight_row_bytes, begin, end, activations, activation_row_bytes, batch, y,
                       rows);
                continue;
            }
            for (int64_t r = begin; r < end; ++r) {
                const std::byte* weight_row = weights + static_cast<size_t>(r) * weight_row_bytes;
                for (int64_t b = 0; b < batch; ++b)
                    y[b * rows + r] = k.vec_dot(
                        n, weight_row, activation_bytes + static_cast<size_t>(b) * activation_row_bytes);
            }
        }
    });
}

} // namespace hearth::kernels
