// Matrix products: quantize the activations once, then split weight rows over the pool.
#include "kernels/matmul.h"

#include "kernels/decode_prefetch.h"
#include "kernels/dispatch_metrics.h"
#include "kernels/f32_batched_dot.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace hearth::kernels {
namespace {

constexpr int64_t kMinQuantizeElementsPerThread = 16384;

// Rows handed out per grab: small enough that the threads finish together (a thread that
// was descheduled simply takes fewer chunks), large enough that the shared counter is cold.
// Prefill's kernels decode groups of up to 16 rows (one per lane of a 512-bit register), so
// its chunks are whole groups: a chunk of 56 rows left its last group half empty.
int64_t rows_per_chunk(int64_t rows, int n_threads, int64_t batch, RowLayout layout, bool bf16_tiles) {
    // The BF16 tile gemm reads the whole batch of activations once per chunk, so its chunks are
    // larger: two per thread, in pairs of groups (its 2 x 2 blocks of tiles), up to 512 rows
    // (a panel of 512 x 1024 BF16s fits L2). Measured on Qwen2.5-0.5B Q8_0 pp512: 1.08x the
    // speed with the chunks above (2 threads).
    if (bf16_tiles) {
        const int64_t target = rows / (static_cast<int64_t>(n_threads) * 2);
        return std::clamp<int64_t>((target + 31) / 32 * 32, 32, 512);
    }
    if (batch > 1 || layout == RowLayout::Interleaved16) {
        const int64_t target = rows / (static_cast<int64_t>(n_threads) * 4);
        return std::clamp<int64_t>((target + 15) / 16 * 16, 16, 256);
    }
    const int64_t target = rows / (static_cast<int64_t>(n_threads) * 8);
    return std::clamp<int64_t>((target + 3) / 4 * 4, 4, 256);
}

// The kernels one matmul uses, from the active table (complete once resolved: a type its tier
// lacks came whole from the tier below, with its activation format).
struct Plan {
    const TypeKernels* kernels;
    Isa isa;
    TensorType activation_type; // the kernels': BF16 on tiles
    bool bf16_tiles;            // gemm_bf16_tiles multiplies this batch
    QuantizeRowFn quantize_activations;
    Isa quantize_isa; // the tier of the activation quantizer's code
};

// Whether a batch of this size goes to the type's BF16 tile gemm.
bool on_bf16_tiles(const TypeKernels& k, int64_t batch) {
    return k.gemm_bf16_tiles != nullptr && batch >= kBf16TileMinBatch;
}

// The format a type's kernels take a batch's activations in: BF16 rows on the tiles, else the
// type's activation type (F32: read as they are).
TensorType activation_type_for(const TypeKernels& k, int64_t batch) {
    return on_bf16_tiles(k, batch) ? TensorType::BF16 : k.activation_type;
}

Plan plan_for(TensorType type, int64_t batch) {
    const KernelTable& active = active_kernels();
    const auto raw = static_cast<uint32_t>(type);
    if (raw >= kTensorTypeSlots || active.of(type).vec_dot == nullptr)
        throw std::invalid_argument("matmul: no kernels for tensor type " + std::to_string(raw));
    const TypeKernels& kernels = active.of(type);
    Plan plan{&kernels, kernels.isa, activation_type_for(kernels, batch), on_bf16_tiles(kernels, batch),
              nullptr,  kernels.isa};
    if (plan.activation_type != TensorType::F32) {
        const TypeKernels& activation = active.of(plan.activation_type);
        plan.quantize_activations = activation.activation_quantizer();
        plan.quantize_isa = activation.activation_quantizer_isa;
    }
    return plan;
}

// Bytes of one activation row of `cols` in the format a type's kernels take for a batch (F32 is
// read directly, so none).
size_t activation_row_scratch(const TypeKernels& k, int64_t cols, int64_t batch) {
    const TensorType type = activation_type_for(k, batch);
    return k.vec_dot != nullptr && type != TensorType::F32 ? row_bytes(type, cols) : 0;
}

// Each matrix's activations start on a cache line: the AMX tiles load 64 bytes of 16 rows at a
// time, and rows that straddle two lines each cost two (measured: Llama-3.2-1B Q4_K_M pp512 at
// 430 t/s where the heap happened to hand out a scratch 16 bytes off a line, 530 on a line).
constexpr size_t kActivationAlignment = 64;

std::byte* align_up(std::byte* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p + ((kActivationAlignment - address % kActivationAlignment) % kActivationAlignment);
}

} // namespace

size_t matmul_scratch_bytes(TensorType weight_type, int64_t cols, int64_t batch) {
    // Enough for the activation type of any tier's table, so that a later force_isa fits too.
    size_t row = 0;
    for (Isa isa : kIsaTiers)
        if (const KernelTable* table = kernels_for(isa))
            row = std::max(row, activation_row_scratch(table->of(weight_type), cols, batch));
    // Room to start the rows on a cache line: the group's sum of these covers each of its
    // matrices' activations.
    return row * static_cast<size_t>(std::max<int64_t>(batch, 0)) + (row > 0 ? kActivationAlignment : 0);
}

namespace {

// Quantizes `batch` rows of `cols` floats into `out` with the pool when the batch is large.
void quantize_rows(QuantizeRowFn quantize, TensorType activation_type, const float* x, int64_t batch,
                   int64_t cols, std::byte* out, ThreadPool& pool) {
    // Rows are whole blocks, so the batch is one contiguous run of blocks: split it by blocks.
    const int64_t block = type_traits(activation_type).block_elements;
    const int64_t blocks = batch * cols / block;
    const size_t block_bytes = type_traits(activation_type).block_bytes;
    // A pool run costs a few microseconds: only worth it for a prefill-sized batch.
    const int64_t parallel_threshold = 2 * kMinQuantizeElementsPerThread;
    if (pool.size() == 1 || batch * cols < parallel_threshold) {
        quantize(x, out, blocks * block);
        return;
    }
    // A few parts per thread, so that one the OS has not run yet leaves little to the others.
    pool.for_each_part(blocks, 4 * pool.size(), [&](int64_t begin, int64_t end) {
        quantize(x + begin * block, out + static_cast<size_t>(begin) * block_bytes, (end - begin) * block);
    });
}

// F32 weights times a batch of 2+ rows sum in llamafile tinyBLAS's order, as llama.cpp's do
// (f32_batched_dot.h); null for every other product.
VecDotFn batched_f32_dot(const WeightMatrix& w, int64_t batch, Isa isa) {
    if (w.type != TensorType::F32 || batch < 2 || w.cols % 8 != 0) return nullptr;
#if HEARTH_X86_KERNELS
    if (isa != Isa::Scalar) return avx2::vec_dot_f32_f32_batched;
#endif
    (void)isa;
    return vec_dot_f32_f32_batched_ref;
}

// What one matrix of a group needs while its rows run.
struct Job {
    const WeightMatrix* w;
    float* y;
    Plan plan;
    VecDotFn batched_f32; // set: used instead of the table's kernels
    const std::byte* activations;
    size_t activation_row_bytes;
    int64_t chunk;       // rows per grab
    int64_t first_chunk; // index of its first chunk in the group's sequence
};

// Row-major weight rows [0, n_rows) from `weights` (a chunk of the job's matrix) times the
// batch: y[b * rows + r] for the matrix's row count `rows`.
void multiply_rows(const Job& job, const std::byte* weights, int64_t n_rows, int64_t batch, float* y) {
    const WeightMatrix& w = *job.w;
    const TypeKernels& k = *job.plan.kernels;
    const size_t weight_row_bytes = row_bytes(w.type, w.cols);
    auto activation = [&](int64_t b) {
        return job.activations + static_cast<size_t>(b) * job.activation_row_bytes;
    };
    if (job.plan.bf16_tiles) {
        k.gemm_bf16_tiles(w.cols, weights, weight_row_bytes, 0, n_rows, job.activations,
                          job.activation_row_bytes, batch, y, w.rows);
        return;
    }
    if (job.batched_f32 != nullptr) {
        for (int64_t r = 0; r < n_rows; ++r)
            for (int64_t b = 0; b < batch; ++b)
                y[b * w.rows + r] = job.batched_f32(
                    w.cols, weights + static_cast<size_t>(r) * weight_row_bytes, activation(b));
        return;
    }
    if (batch == 1 && k.gemm == nullptr) { // decode without a gemm: one row at a time
        const DecodePrefetch& prefetch = decode_prefetch();
        for (int64_t r = 0; r < n_rows; ++r) {
            const std::byte* weight_row = weights + static_cast<size_t>(r) * weight_row_bytes;
            // Without it the hardware prefetcher alone reached half the read bandwidth.
            prefetch_weight_lines(weight_row + prefetch.row_bytes_ahead, weight_row_bytes, prefetch.into_l2);
            y[r] = k.vec_dot(w.cols, weight_row, job.activations);
        }
        return;
    }
    // The gemm kernels serve decode too (batch 1): they prefetch as they stream. The 8-row
    // interleaved kernels are for prefill only: reducing 8 rows together costs more than it
    // saves at batch 1 (Q4_K decode: 18 GB/s against 26 row by row, 2 threads).
    if (k.gemm != nullptr) {
        (batch > 1 && w.rows % 8 == 0 && n_rows % 8 == 0 && k.gemm_rows_multiple_of_8
             ? k.gemm_rows_multiple_of_8
             : k.gemm)(w.cols, weights, weight_row_bytes, 0, n_rows, job.activations,
                       job.activation_row_bytes, batch, y, w.rows);
        return;
    }
    for (int64_t r = 0; r < n_rows; ++r)
        for (int64_t b = 0; b < batch; ++b)
            y[b * w.rows + r] =
                k.vec_dot(w.cols, weights + static_cast<size_t>(r) * weight_row_bytes, activation(b));
}

} // namespace

void matmul(const WeightMatrix& w, const float* x, int64_t batch, float* y, ThreadPool& pool,
            std::vector<std::byte>& scratch) {
    const MatmulOutput output{&w, y};
    matmul_group(std::span<const MatmulOutput>(&output, 1), x, batch, pool, scratch);
}

void matmul_group(std::span<const MatmulOutput> outputs, const float* x, int64_t batch, ThreadPool& pool,
                  std::vector<std::byte>& scratch) {
    // A mixture of experts groups the gate and up matrices of every chosen expert (16 for
    // Qwen3-30B-A3B's 8).
    constexpr size_t kMaxGroup = 32;
    if (outputs.size() > kMaxGroup) throw std::invalid_argument("matmul_group: more than 32 matrices");
    if (batch <= 0 || outputs.empty()) return;
    namespace metrics = dispatch_metrics;
    const auto start =
        metrics::enabled() ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};

    // 1. The activations in each dot product's type, quantized once per distinct quantizer.
    // Scratch is sized for the whole group first: growing it later would move earlier results.
    // Only the active tier's formats count here (this runs for every token).
    const KernelTable& active = active_kernels();
    size_t scratch_needed = 0;
    for (const MatmulOutput& out : outputs) {
        if (out.w->cols != outputs[0].w->cols)
            throw std::invalid_argument("matmul_group: matrices of different widths");
        const size_t row = activation_row_scratch(active.of(out.w->type), out.w->cols, batch);
        if (row > 0) scratch_needed += row * static_cast<size_t>(batch) + kActivationAlignment;
    }
    if (scratch.size() < scratch_needed) scratch.resize(scratch_needed); // normally sized at load
    Job jobs[kMaxGroup];
    std::byte* next_activations = scratch.data(); // the next matrix's rows start at or after this
    int64_t chunks = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const WeightMatrix& w = *outputs[i].w;
        Job& job = jobs[i];
        const Plan plan = plan_for(w.type, batch);
        job = {&w,
               outputs[i].y,
               plan,
               batched_f32_dot(w, batch, plan.isa),
               reinterpret_cast<const std::byte*>(x),
               static_cast<size_t>(w.cols) * sizeof(float),
               1,
               chunks};
        const TensorType activation = job.plan.activation_type;
        if (activation != TensorType::F32) {
            job.activation_row_bytes = row_bytes(activation, w.cols);
            const Job* same = nullptr;
            for (size_t j = 0; j < i; ++j)
                if (jobs[j].plan.quantize_activations == job.plan.quantize_activations &&
                    jobs[j].plan.activation_type == activation)
                    same = &jobs[j];
            if (same) {
                job.activations = same->activations;
            } else {
                metrics::ScopedTimer quantize_timer(metrics::Op::QuantizeActivations, activation,
                                                    job.plan.quantize_isa);
                std::byte* rows = align_up(next_activations);
                quantize_rows(job.plan.quantize_activations, activation, x, batch, w.cols, rows, pool);
                job.activations = rows;
                next_activations = rows + job.activation_row_bytes * static_cast<size_t>(batch);
            }
        }
        if (w.layout == RowLayout::Interleaved16 && !interleaves_rows16(w.type, w.rows, w.cols))
            throw std::invalid_argument("matmul: interleaved rows of a type or shape that has none");
        job.chunk =
            w.rows > 0 ? rows_per_chunk(w.rows, pool.size(), batch, w.layout, job.plan.bf16_tiles) : 1;
        chunks += w.rows > 0 ? (w.rows + job.chunk - 1) / job.chunk : 0;
    }
    const size_t n_jobs = outputs.size();

    // 2. Chunks of weight rows of all matrices, shared out by the pool.
    pool.for_each(chunks, [&](int64_t c) {
        size_t j = 0;
        while (j + 1 < n_jobs && c >= jobs[j + 1].first_chunk)
            ++j;
        const Job& job = jobs[j];
        const WeightMatrix& w = *job.w;
        const TypeKernels& k = *job.plan.kernels;
        const int64_t begin = (c - job.first_chunk) * job.chunk;
        const int64_t end = std::min(w.rows, begin + job.chunk);
        if (w.layout == RowLayout::Interleaved16) {
            if (batch == 1 && k.gemv_interleaved16 != nullptr) {
                k.gemv_interleaved16(w.cols, w.data, begin / kInterleavedRows, end / kInterleavedRows,
                                     job.activations, job.y);
                return;
            }
            if (job.plan.bf16_tiles && k.gemm_bf16_tiles_interleaved16 != nullptr) {
                k.gemm_bf16_tiles_interleaved16(w.cols, w.data, row_bytes(w.type, w.cols), begin, end,
                                                job.activations, job.activation_row_bytes, batch, job.y,
                                                w.rows);
                return;
            }
            if (batch > 1 && k.gemm_interleaved16 != nullptr && !job.plan.bf16_tiles) {
                k.gemm_interleaved16(w.cols, w.data, row_bytes(w.type, w.cols), begin, end, job.activations,
                                     job.activation_row_bytes, batch, job.y, w.rows);
                return;
            }
            // BF16 tiles, or a tier without a kernel for the layout: the chunk's rows back in the
            // file's layout (a copy per thread, reused), then the row-major kernels. For a
            // prefill batch the copy costs little beside the products.
            // Sized generously the first time (1 MB), so that which thread first meets the widest
            // chunk does not decide whether a later token allocates.
            thread_local std::vector<std::byte> unpacked;
            const size_t bytes = row_bytes(w.type, w.cols) * static_cast<size_t>(end - begin);
            if (unpacked.size() < bytes) unpacked.resize(std::max(bytes, size_t{1} << 20));
            unpack_rows16(w.type, w.data, w.cols, begin, end, unpacked.data());
            multiply_rows(job, unpacked.data(), end - begin, batch, job.y + begin);
            return;
        }
        const auto* weights = static_cast<const std::byte*>(w.data);
        multiply_rows(job, weights + static_cast<size_t>(begin) * row_bytes(w.type, w.cols), end - begin,
                      batch, job.y + begin);
    });

    // 3. Metrics: one call per matrix; the group's time (quantization included) is shared out by
    // weight bytes.
    if (!metrics::enabled()) return;
    const auto ns = static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
            .count());
    double total_bytes = 0;
    for (size_t i = 0; i < n_jobs; ++i)
        total_bytes += static_cast<double>(row_bytes(jobs[i].w->type, jobs[i].w->cols) * jobs[i].w->rows);
    for (size_t i = 0; i < n_jobs; ++i) {
        const double bytes =
            static_cast<double>(row_bytes(jobs[i].w->type, jobs[i].w->cols) * jobs[i].w->rows);
        const double share = total_bytes > 0 ? bytes / total_bytes : 1.0 / static_cast<double>(n_jobs);
        metrics::record(batch == 1 ? metrics::Op::MatVec : metrics::Op::MatMat, jobs[i].w->type,
                        jobs[i].plan.isa, static_cast<uint64_t>(ns * share));
    }
}

} // namespace hearth::kernels
