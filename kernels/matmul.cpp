// Matrix products: pick each matrix's kernel, quantize the activations once, then split weight
// rows over the pool.
#include "kernels/matmul.h"

#include "kernels/dispatch_metrics.h"
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
int64_t rows_per_chunk(int64_t rows, int n_threads, int64_t batch, RowLayout layout,
                       bool whole_batch_per_chunk) {
    // A kernel that reads the whole batch of activations once per chunk gets larger chunks: two
    // per thread, in pairs of groups (the BF16 tile gemm's 2 x 2 blocks of tiles), up to 512
    // rows (a panel of 512 x 1024 BF16s fits L2).
    if (whole_batch_per_chunk) {
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

// The kernels one matmul runs: the first matmul candidate that takes it, and the quantizer of
// its activations (none for F32 activations, read as they are). A call as_decode runs a kernel
// of the type's matmul_as_decode that gives decode's kernel's bits, else decode's kernel: over
// the whole batch where its rows come out as single rows do, else one activation row at a time
// over each chunk of weight rows (which stays in cache between them).
struct Plan {
    const Candidate<GemmFn>* kernel;
    const Candidate<QuantizeRowFn>* quantizer;
    bool row_by_row = false;
};

CallShape shape_of(const WeightMatrix& w, int64_t batch) {
    return {.batch = batch, .rows = w.rows, .width = w.cols, .layout = w.layout};
}

Plan plan_for(const KernelTable& table, const WeightMatrix& w, int64_t batch, bool as_decode) {
    const auto raw = static_cast<uint32_t>(w.type);
    const Candidate<GemmFn>* kernel =
        raw < kTensorTypeSlots ? table.of(w.type).matmul.pick(shape_of(w, as_decode ? 1 : batch)) : nullptr;
    if (kernel == nullptr)
        throw std::invalid_argument("matmul: no kernels for tensor type " + std::to_string(raw));
    Plan plan{kernel, nullptr};
    if (as_decode && batch > 1) {
        const Candidate<GemmFn>* exact = nullptr;
        for (const Candidate<GemmFn>& c : table.of(w.type).matmul_as_decode)
            if (c.rows_as_decode_of == kernel->name && c.backend == kernel->backend &&
                c.takes(shape_of(w, batch))) {
                exact = &c;
                break;
            }
        if (exact != nullptr)
            plan.kernel = exact;
        else
            plan.row_by_row = !(kernel->rows_as_single && kernel->takes(shape_of(w, batch)));
    }
    if (plan.kernel->activation_type != TensorType::F32) {
        plan.quantizer = table.of(plan.kernel->activation_type).quantize_activations.pick({});
        if (plan.quantizer == nullptr)
            throw std::logic_error("matmul: no quantizer for the activations of tensor type " +
                                   std::to_string(raw));
    }
    return plan;
}

// Bytes of one activation row of `cols` in a candidate's format (F32 is read directly, so none).
size_t activation_row_scratch(const Candidate<GemmFn>& kernel, int64_t cols) {
    return kernel.activation_type != TensorType::F32 ? row_bytes(kernel.activation_type, cols) : 0;
}

// Each matrix's activations start on a cache line: the AMX tiles load 64 bytes of 16 rows at a
// time, and rows that straddle two lines each cost two.
constexpr size_t kActivationAlignment = 64;

std::byte* align_up(std::byte* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p + ((kActivationAlignment - address % kActivationAlignment) % kActivationAlignment);
}

} // namespace

size_t matmul_scratch_bytes(TensorType weight_type, int64_t cols, int64_t batch) {
    // Enough for the activations of any candidate of any tier that could take this batch, so that
    // a later force_isa (or another layout) fits too.
    size_t row = 0;
    if (static_cast<uint32_t>(weight_type) < kTensorTypeSlots)
        for (Isa isa : kIsaTiers)
            if (const KernelTable* table = kernels_for(isa))
                for (const Candidates<GemmFn>* list :
                     {&table->of(weight_type).matmul, &table->of(weight_type).matmul_as_decode})
                    for (const Candidate<GemmFn>& kernel : *list)
                        if (batch >= kernel.guard.min_batch && batch <= kernel.guard.max_batch)
                            row = std::max(row, activation_row_scratch(kernel, cols));
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

// What one product of a set needs while its rows run.
struct Job {
    const WeightMatrix* w;
    float* y;
    Plan plan;
    const float* x;
    int64_t batch;
    const std::byte* activations;
    size_t activation_row_bytes;
    bool quantizes;      // writes its activations (an earlier job on its input has none to share)
    int64_t chunk;       // rows per grab
    int64_t first_chunk; // index of its first chunk in the set's sequence
};

// Rows [begin, end) of the job's matrix times its batch (or each of its rows in turn).
void multiply_chunk(const Job& job, int64_t begin, int64_t end) {
    const WeightMatrix& w = *job.w;
    const Candidate<GemmFn>& kernel = *job.plan.kernel;
    const size_t weight_row_bytes = row_bytes(w.type, w.cols);
    const int64_t calls = job.plan.row_by_row ? job.batch : 1;
    const int64_t batch = job.plan.row_by_row ? 1 : job.batch;
    const auto run = [&](const void* weights, int64_t first, int64_t last, float* y) {
        for (int64_t b = 0; b < calls; ++b)
            kernel.fn(w.cols, weights, weight_row_bytes, first, last,
                      job.activations + static_cast<size_t>(b) * job.activation_row_bytes,
                      job.activation_row_bytes, batch, y + b * w.rows, w.rows);
    };
    if (kernel.guard.layout == RowLayout::Interleaved16) { // reads the repacked groups as they are
        run(w.data, begin, end, job.y);
        return;
    }
    const std::byte* rows =
        static_cast<const std::byte*>(w.data) + static_cast<size_t>(begin) * weight_row_bytes;
    if (w.layout == RowLayout::Interleaved16) {
        // A kernel of row-major rows: the chunk's rows back in the file's layout (a copy per
        // thread, reused). For a prefill batch the copy costs little beside the products. Sized
        // generously the first time (1 MB), so that which thread first meets the widest chunk
        // does not decide whether a later token allocates.
        thread_local std::vector<std::byte> unpacked;
        const size_t bytes = weight_row_bytes * static_cast<size_t>(end - begin);
        if (unpacked.size() < bytes) unpacked.resize(std::max(bytes, size_t{1} << 20));
        unpack_rows16(w.type, w.data, w.cols, begin, end, unpacked.data());
        rows = unpacked.data();
    }
    run(rows, 0, end - begin, job.y + begin);
}

} // namespace

void matmul(const WeightMatrix& w, const float* x, int64_t batch, float* y, ThreadPool& pool,
            std::vector<std::byte>& scratch, bool as_decode) {
    const MatmulOutput output{&w, y};
    matmul_group(std::span<const MatmulOutput>(&output, 1), x, batch, pool, scratch, as_decode);
}

namespace {

// Runs a set of products whose jobs are planned (w, y, plan, x, batch): quantizes each distinct
// input once per quantizer into `scratch`, then shares the rows of every matrix out in one pool
// job. A job whose input and quantizer are those of an earlier one reuses its activations.
void run_jobs(std::span<Job> jobs, ThreadPool& pool, std::vector<std::byte>& scratch) {
    namespace metrics = dispatch_metrics;
    const auto start =
        metrics::enabled() ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const auto same_input = [&](size_t i) -> const Job* {
        for (size_t j = i; j-- > 0;)
            if (jobs[j].x == jobs[i].x && jobs[j].plan.quantizer != nullptr &&
                jobs[j].plan.quantizer->fn == jobs[i].plan.quantizer->fn &&
                jobs[j].plan.kernel->activation_type == jobs[i].plan.kernel->activation_type)
                return &jobs[j];
        return nullptr;
    };

    // 1. Room for every input's activations, sized first: growing it later would move earlier
    // results.
    size_t scratch_needed = 0;
    for (const Job& job : jobs) {
        const size_t row = activation_row_scratch(*job.plan.kernel, job.w->cols);
        if (row > 0) scratch_needed += row * static_cast<size_t>(job.batch) + kActivationAlignment;
    }
    if (scratch.size() < scratch_needed) scratch.resize(scratch_needed); // normally sized at load
    std::byte* next_activations = scratch.data(); // the next input's rows start at or after this
    int64_t chunks = 0, to_quantize = 0;
    // Many products (a mixture's experts): a thread takes whole matrices, reading each as one
    // stream, and the set still shares out evenly.
    const bool whole_matrices = jobs.size() >= static_cast<size_t>(8 * pool.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
        Job& job = jobs[i];
        const WeightMatrix& w = *job.w;
        const TensorType activation = job.plan.kernel->activation_type;
        // F32 activations are read as they are.
        job.activations = reinterpret_cast<const std::byte*>(job.x);
        job.activation_row_bytes = static_cast<size_t>(w.cols) * sizeof(float);
        job.quantizes = false;
        if (activation != TensorType::F32) {
            job.activation_row_bytes = row_bytes(activation, w.cols);
            if (const Job* same = same_input(i)) {
                job.activations = same->activations;
            } else {
                std::byte* rows = align_up(next_activations);
                job.activations = rows;
                next_activations = rows + job.activation_row_bytes * static_cast<size_t>(job.batch);
                job.quantizes = true;
                ++to_quantize;
            }
        }
        job.chunk = w.rows > 0 ? (whole_matrices ? w.rows
                                                 : rows_per_chunk(w.rows, pool.size(), job.batch, w.layout,
                                                                  job.plan.kernel->whole_batch_per_chunk))
                               : 1;
        job.first_chunk = chunks;
        chunks += w.rows > 0 ? (w.rows + job.chunk - 1) / job.chunk : 0;
    }

    // 2. The activations: one input split over the pool by blocks, several one per pool index.
    const auto quantize = [&](const Job& job, bool over_the_pool) {
        metrics::ScopedTimer quantize_timer(metrics::Op::QuantizeActivations,
                                            job.plan.kernel->activation_type, job.plan.quantizer->id);
        auto* out = const_cast<std::byte*>(job.activations);
        if (over_the_pool)
            quantize_rows(job.plan.quantizer->fn, job.plan.kernel->activation_type, job.x, job.batch,
                          job.w->cols, out, pool);
        else // rows are whole blocks: the batch is one run of them
            job.plan.quantizer->fn(job.x, out, job.batch * job.w->cols);
    };
    if (to_quantize == 1 || pool.size() == 1) {
        for (const Job& job : jobs)
            if (job.quantizes) quantize(job, true);
    } else if (to_quantize > 1) {
        pool.for_each(static_cast<int64_t>(jobs.size()), [&](int64_t i) {
            if (jobs[static_cast<size_t>(i)].quantizes) quantize(jobs[static_cast<size_t>(i)], false);
        });
    }

    // 3. Chunks of weight rows of all matrices, shared out by the pool.
    pool.for_each(chunks, [&](int64_t c) {
        const auto after = std::upper_bound(jobs.begin(), jobs.end(), c, [](int64_t chunk, const Job& job) {
            return chunk < job.first_chunk;
        });
        const Job& job = *(after - 1);
        const int64_t begin = (c - job.first_chunk) * job.chunk;
        multiply_chunk(job, begin, std::min(job.w->rows, begin + job.chunk));
    });

    // 4. Metrics: one call per matrix; the set's time (quantization included) is shared out by
    // weight bytes.
    if (!metrics::enabled()) return;
    const auto ns = static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
            .count());
    double total_bytes = 0;
    for (const Job& job : jobs)
        total_bytes += static_cast<double>(row_bytes(job.w->type, job.w->cols) * job.w->rows);
    for (const Job& job : jobs) {
        const double bytes = static_cast<double>(row_bytes(job.w->type, job.w->cols) * job.w->rows);
        const double share = total_bytes > 0 ? bytes / total_bytes : 1.0 / static_cast<double>(jobs.size());
        metrics::record(job.batch == 1 ? metrics::Op::MatVec : metrics::Op::MatMat, job.w->type,
                        job.plan.kernel->id, static_cast<uint64_t>(ns * share));
    }
}

Job plan_job(const KernelTable& active, const WeightMatrix& w, float* y, const float* x, int64_t batch,
             bool as_decode) {
    if (w.layout == RowLayout::Interleaved16 && !interleaves_rows16(w.type, w.rows, w.cols))
        throw std::invalid_argument("matmul: interleaved rows of a type or shape that has none");
    return {&w, y, plan_for(active, w, batch, as_decode), x, batch, nullptr, 0, false, 1, 0};
}

} // namespace

void matmul_group(std::span<const MatmulOutput> outputs, const float* x, int64_t batch, ThreadPool& pool,
                  std::vector<std::byte>& scratch, bool as_decode) {
    // A mixture of experts groups the gate and up matrices of every chosen expert (16 for
    // Qwen3-30B-A3B's 8).
    constexpr size_t kMaxGroup = 32;
    if (outputs.size() > kMaxGroup) throw std::invalid_argument("matmul_group: more than 32 matrices");
    if (batch <= 0 || outputs.empty()) return;
    const KernelTable& active = active_kernels();
    Job jobs[kMaxGroup];
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i].w->cols != outputs[0].w->cols)
            throw std::invalid_argument("matmul_group: matrices of different widths");
        jobs[i] = plan_job(active, *outputs[i].w, outputs[i].y, x, batch, as_decode);
    }
    run_jobs(std::span<Job>(jobs, outputs.size()), pool, scratch);
}

void matmul_products(std::span<const MatmulProduct> products, ThreadPool& pool,
                     std::vector<std::byte>& scratch, bool as_decode) {
    // The set's plans, kept per thread: sized once for the largest set (a mixture's 2 x 128
    // experts), so that a batch allocates nothing after the first.
    thread_local std::vector<Job> jobs;
    jobs.clear();
    const KernelTable& active = active_kernels();
    for (const MatmulProduct& p : products)
        if (p.batch > 0 && p.w->rows > 0)
            jobs.push_back(plan_job(active, *p.w, p.y, p.x, p.batch, as_decode));
    if (!jobs.empty()) run_jobs(jobs, pool, scratch);
}

} // namespace hearth::kernels
