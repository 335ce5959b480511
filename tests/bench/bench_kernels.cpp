// Microbenchmarks of every tier's kernels (Google Benchmark): each runs the candidate a tier's
// table picks for the call (arg "isa": 0 scalar, 1 AVX2, 2 AVX-VNNI, 3 AVX-512, 4 AMX; a tier the
// CPU lacks is skipped), and the label names it. Matrix-vector (decode) reports weight bytes read
// per second; matrix-matrix (prefill) reports GFLOP/s (2 * rows * cols * batch). Shapes are
// Qwen2.5-0.5B's: hidden 896, FFN 4864.
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"
#include "kernels/thread_pool.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <immintrin.h>
#include <numeric>
#include <random>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace hearth::kernels;

namespace {

struct Matrix {
    TensorType type;
    int64_t rows, cols;
    std::vector<uint8_t> weights;
    size_t row_bytes;
};

// Random weights quantized by the reference quantizer (row by row; cached per shape).
const Matrix& matrix(TensorType type, int64_t rows, int64_t cols) {
    static std::vector<Matrix*> cache;
    for (Matrix* m : cache)
        if (m->type == type && m->rows == rows && m->cols == cols) return *m;
    auto* m = new Matrix{type, rows, cols, {}, row_bytes(type, cols)};
    m->weights.resize(m->row_bytes * rows);
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> row(cols);
    for (int64_t r = 0; r < rows; ++r) {
        for (float& v : row)
            v = dist(rng);
        reference_ops(type).quantize(row.data(), m->weights.data() + r * m->row_bytes, cols);
    }
    cache.push_back(m);
    return *m;
}

std::vector<uint8_t> activations(TensorType activation_type, int64_t cols, int64_t batch) {
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(cols * batch);
    for (float& v : x)
        v = dist(rng);
    if (activation_type == TensorType::F32) {
        std::vector<uint8_t> out(x.size() * sizeof(float));
        std::memcpy(out.data(), x.data(), out.size());
        return out;
    }
    std::vector<uint8_t> out(row_bytes(activation_type, cols) * batch);
    reference_ops(activation_type).quantize_activations(x.data(), out.data(), cols * batch);
    return out;
}

// The table of the tier the benchmark's first argument names, or null (the run then says why).
const KernelTable* table_of(benchmark::State& state) {
    const auto isa = static_cast<Isa>(state.range(0));
    const KernelTable* table = kernels_for(isa);
    if (table == nullptr) state.SkipWithError(isa_unavailable_reason(isa).c_str());
    return table;
}

// The rank-th candidate (0: the table's pick) that takes the call, or null.
template <class Fn>
const Candidate<Fn>* taking(const Candidates<Fn>& candidates, const CallShape& call, int rank = 0) {
    for (const Candidate<Fn>& c : candidates)
        if (c.takes(call) && rank-- == 0) return &c;
    return nullptr;
}

template <class Fn> std::string label_of(const Candidate<Fn>& c) {
    return std::string(backend_name(c.backend)) + " " + std::string(c.name);
}

// One thread, a batch of activation rows times a matrix (its rows repacked in groups of 16 where
// `repacked`), by the rank-th candidate of the tier that takes it.
void run_matmul(benchmark::State& state, const KernelTable& table, TensorType type, int64_t rows,
                int64_t cols, int64_t batch, bool repacked, int rank) {
    const Matrix& m = matrix(type, rows, cols);
    const CallShape call{.batch = batch,
                         .rows = rows,
                         .width = cols,
                         .layout = repacked ? RowLayout::Interleaved16 : RowLayout::RowMajor};
    const Candidate<GemmFn>* kernel = taking(table.of(type).matmul, call, rank);
    if (kernel == nullptr) return state.SkipWithError("no such kernel");
    const bool reads_repacked = kernel->guard.layout == RowLayout::Interleaved16;
    std::vector<uint8_t> packed(reads_repacked ? interleaved_rows16_bytes(type, rows, cols) : 0);
    if (reads_repacked) interleave_rows16(type, m.weights.data(), rows, cols, packed.data());
    const size_t a_bytes = kernel->activation_type == TensorType::F32
                               ? cols * sizeof(float)
                               : row_bytes(kernel->activation_type, cols);
    const std::vector<uint8_t> a = activations(kernel->activation_type, cols, batch);
    std::vector<float> y(rows * batch);
    for (auto _ : state) {
        kernel->fn(cols, reads_repacked ? packed.data() : m.weights.data(), m.row_bytes, 0, rows, a.data(),
                   a_bytes, batch, y.data(), rows);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    if (batch == 1) state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(m.weights.size()));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(rows) * double(cols) * double(batch) *
                                                       double(state.iterations()) * 1e-9,
                                                   benchmark::Counter::kIsRate);
    state.SetLabel(label_of(*kernel));
}

// One thread, every row dotted with one activation row: the decode inner loop. Args: isa.
void matvec(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    if (const KernelTable* table = table_of(state)) run_matmul(state, *table, type, rows, cols, 1, false, 0);
}

// One thread, decode over the file's rows (layout 0) or rows repacked in groups of 16
// (interleaved_rows.h; layout 1). Args: isa, layout.
void matvec_repacked(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    if (const KernelTable* table = table_of(state))
        run_matmul(state, *table, type, rows, cols, 1, state.range(1) == 1, 0);
}

// One thread, a verify pass's few activation rows over rows repacked in groups of 16, by the
// kernel a verify pass takes (decode's own). Args: isa, batch.
void verify_repacked(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    if (const KernelTable* table = table_of(state))
        run_matmul(state, *table, type, rows, cols, state.range(1), true, 0);
}

// One thread, a batch of activation rows over the file's rows. Args: isa, batch.
void matmat(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    if (const KernelTable* table = table_of(state))
        run_matmul(state, *table, type, rows, cols, state.range(1), false, 0);
}

// One thread, a tier's prefill kernel over a chunk of rows as matmul hands it out (112 rows of
// Qwen2.5-0.5B's 896 on 2 threads) and a batch of prompt rows, the rows laid out as the engine
// loads them (Q4_K, Q6_K and Q8_0 repacked where they can be). Args: isa, batch, rank (0 the
// table's pick, 1 the candidate after it that takes the call: the AMX tier's int8 tiles where
// its BF16 tiles take the batch).
void gemm_tier(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    if (const KernelTable* table = table_of(state))
        run_matmul(state, *table, type, rows, cols, state.range(1), interleaves_rows16(type, rows, cols),
                   static_cast<int>(state.range(2)));
}

// The whole matmul (activation quantization included) on a pool of 2 threads, active kernels.
void matmul_pool(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    const int64_t batch = state.range(0);
    static ThreadPool pool(2);
    const Matrix& m = matrix(type, rows, cols);
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(cols * batch), y(rows * batch);
    for (float& v : x)
        v = dist(rng);
    std::vector<std::byte> scratch(matmul_scratch_bytes(type, cols, batch));
    const WeightMatrix w{type, rows, cols, m.weights.data()};
    for (auto _ : state) {
        matmul(w, x.data(), batch, y.data(), pool, scratch);
        benchmark::DoNotOptimize(y.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(m.weights.size()));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(rows) * double(cols) * double(batch) *
                                                       double(state.iterations()) * 1e-9,
                                                   benchmark::Counter::kIsRate);
    state.SetLabel(std::string(isa_name(active_kernels().isa)));
}

// `n` activations of normal values, the same every call (seed 3).
std::vector<float> normal_activations(int64_t n) {
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x)
        v = dist(rng);
    return x;
}

// The whole matmul on the pool's 2 threads over a matrix in huge pages, as the engine holds it
// (its rows repacked in groups of 16 where `repacked`), `batch` activation rows of normal values
// (each multiplied as decode multiplies it where `as_decode`), by the active kernels. Counters:
// the weights' bytes read per second, and GFLOP/s (2 * rows * cols * batch).
void run_pool_in_memory(benchmark::State& state, TensorType type, int64_t rows, int64_t cols, int64_t batch,
                        bool repacked, bool as_decode) {
    static ThreadPool pool(2);
    const Matrix& m = matrix(type, rows, cols);
    const size_t bytes = interleaved_rows16_bytes(type, rows, cols);
    void* huge = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (huge == MAP_FAILED) return state.SkipWithError("mmap failed");
    ::madvise(huge, bytes, MADV_HUGEPAGE);
    if (repacked)
        interleave_rows16(type, m.weights.data(), rows, cols, huge);
    else
        std::memcpy(huge, m.weights.data(), bytes);
    const std::vector<float> x = normal_activations(cols * batch);
    std::vector<float> y(rows * batch);
    std::vector<std::byte> scratch(matmul_scratch_bytes(type, cols, batch));
    const WeightMatrix w{type, rows, cols, huge, repacked ? RowLayout::Interleaved16 : RowLayout::RowMajor};
    for (auto _ : state) {
        matmul(w, x.data(), batch, y.data(), pool, scratch, as_decode);
        benchmark::DoNotOptimize(y.data());
    }
    ::munmap(huge, bytes);
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(rows) * double(cols) * double(batch) *
                                                       double(state.iterations()) * 1e-9,
                                                   benchmark::Counter::kIsRate);
    state.SetLabel(std::string(isa_name(active_kernels().isa)) + (repacked ? " repacked" : " row-major"));
}

// Decode on the pool's 2 threads, the file's row-major layout (arg 0) against rows repacked in
// groups of 16 (arg 1) in huge pages, as the engine holds them: from DRAM, both layouts read
// the same bytes.
void matmul_pool_repacked(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    run_pool_in_memory(state, type, rows, cols, 1, state.range(0) == 1, false);
}

// A verify pass's products on the pool's 2 threads: a few activation rows (arg 0) over rows
// repacked in groups of 16, in memory, each row multiplied as decode multiplies it (HEARTH_ISA
// picks the tier).
void verify_pool(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    run_pool_in_memory(state, type, rows, cols, state.range(0), true, true);
}

// A batch (arg 0) against rows repacked in groups of 16, as prefill and verify passes run them:
// Llama 3.2 1B's matrices, and the one the speed prediction times (machine_limits.cpp).
void matmul_pool_batch_repacked(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    run_pool_in_memory(state, type, rows, cols, state.range(0), true, false);
}

// A mixture's experts: the products of many distinct expert-sized matrices in turn (repacked, as
// the model's are), together larger than the caches, so each call reads its weights from memory
// as a token's experts do. Arg: the batch (a prefill pass gives each expert a few rows). The
// counters give a call's time and the rate its weights were read at.
void matmul_pool_cold_experts(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    const int64_t batch = state.range(0);
    constexpr int kExperts = 128; // Qwen3-30B-A3B's; ~113 MB of Q4_K at 768 x 2048
    static ThreadPool pool(2);
    const Matrix& m = matrix(type, rows, cols);
    const size_t bytes = interleaved_rows16_bytes(type, rows, cols);
    std::vector<std::byte> packed(bytes * kExperts);
    for (int e = 0; e < kExperts; ++e)
        interleave_rows16(type, m.weights.data(), rows, cols, packed.data() + bytes * static_cast<size_t>(e));
    const std::vector<float> x = normal_activations(cols * batch);
    std::vector<float> y(static_cast<size_t>(rows * batch));
    std::vector<std::byte> scratch(matmul_scratch_bytes(type, cols, batch));
    int e = 0;
    for (auto _ : state) {
        const WeightMatrix w{type, rows, cols, packed.data() + bytes * static_cast<size_t>(e),
                             RowLayout::Interleaved16};
        matmul(w, x.data(), batch, y.data(), pool, scratch);
        benchmark::DoNotOptimize(y.data());
        e = (e + 1) % kExperts;
    }
    state.counters["GB/s"] =
        benchmark::Counter(double(bytes) * double(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
    state.SetLabel(std::string(isa_name(active_kernels().isa)));
}

// A prefill pass over a mixture's experts as the engine runs it: one set of products (matmul_products)
// of every expert's gate and up matrices, each over its own `batch` rows, the experts' weights
// (128, ~226 MB of Q4_K at 768 x 2048, twice) larger than the caches. Arg: rows per expert. The
// counters give one product's time and the rate the set's weights were read at.
void matmul_pool_cold_expert_set(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    // Arg 0: the rows a prefill pass of 64 tokens gives each expert, each token choosing 8 of 128.
    constexpr int kExperts = 128, kMatrices = 2 * kExperts;
    std::vector<int64_t> rows_of(kExperts, state.range(0));
    if (state.range(0) == 0) {
        std::mt19937 random(9);
        std::vector<int> experts(kExperts);
        for (int token = 0; token < 64; ++token) {
            std::iota(experts.begin(), experts.end(), 0);
            std::shuffle(experts.begin(), experts.end(), random);
            for (int j = 0; j < 8; ++j)
                ++rows_of[static_cast<size_t>(experts[static_cast<size_t>(j)])];
        }
    }
    const int64_t batch = *std::max_element(rows_of.begin(), rows_of.end()); // rows an expert has room for
    static ThreadPool pool(2);
    const Matrix& m = matrix(type, rows, cols);
    const size_t bytes = interleaved_rows16_bytes(type, rows, cols);
    std::vector<std::byte> packed(bytes * kMatrices);
    std::vector<WeightMatrix> weights;
    for (int e = 0; e < kMatrices; ++e) {
        std::byte* at = packed.data() + bytes * static_cast<size_t>(e);
        interleave_rows16(type, m.weights.data(), rows, cols, at);
        weights.push_back({type, rows, cols, at, RowLayout::Interleaved16});
    }
    const std::vector<float> x = normal_activations(cols * batch * kExperts);
    std::vector<float> y(static_cast<size_t>(rows * batch * kMatrices));
    std::vector<MatmulProduct> products;
    for (int e = 0; e < kMatrices; ++e)
        if (rows_of[static_cast<size_t>(e / 2)] > 0)
            products.push_back({&weights[static_cast<size_t>(e)], x.data() + (e / 2) * cols * batch,
                                rows_of[static_cast<size_t>(e / 2)], y.data() + e * rows * batch});
    std::vector<std::byte> scratch(matmul_scratch_bytes(type, cols, batch) * kExperts);
    for (auto _ : state) {
        matmul_products(products, pool, scratch);
        benchmark::DoNotOptimize(y.data());
    }
    const double calls = double(state.iterations()) * static_cast<double>(products.size());
    state.counters["us/product"] =
        benchmark::Counter(calls * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["GB/s"] = benchmark::Counter(double(bytes) * calls * 1e-9, benchmark::Counter::kIsRate);
    state.SetLabel(std::string(isa_name(active_kernels().isa)));
}

// One row of Qwen2.5-0.5B's FFN width of normal values through a tier's row quantizer (weights, KV
// cache rows) or, with `activations`, its activation quantizer. Args: isa.
void quantize(benchmark::State& state, TensorType type, bool activations) {
    const KernelTable* table = table_of(state);
    if (table == nullptr) return;
    const TypeCandidates& k = table->of(type);
    const Candidate<QuantizeRowFn>* q = taking(activations ? k.quantize_activations : k.quantize, {});
    const int64_t n = 4864;
    std::mt19937 rng(5);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(n);
    for (float& v : x)
        v = dist(rng);
    std::vector<uint8_t> out(row_bytes(type, n));
    for (auto _ : state) {
        q->fn(x.data(), out.data(), n);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * n * int64_t(sizeof(float)));
    state.SetLabel(label_of(*q));
}

// The attention of one GQA group over n_keys F16 keys and values, one head's positions in a run
// as the KV cache holds them: ns per (key, query row), by the candidate the tier's table picks.
// `positions` consecutive query positions go to one kernel call (a prefill tile; decode has 1).
// `copies` > 1 cycles through that many caches (24 MB at 48 x 2048 keys: from L3 on most CPUs);
// `copies` 0 through as many as fill twice the L3 (sysconf), so that the keys come from DRAM,
// as in decode, where the weights streamed since the layer's last token evicted them.
void attention(benchmark::State& state) {
    const KernelTable* table = table_of(state);
    if (table == nullptr) return;
    const int64_t head_dim = state.range(1), group = state.range(2), n_keys = state.range(3);
    const int64_t positions = state.range(5);
    const Candidate<AttendFn>* attend = taking(table->attention, {.batch = positions, .width = head_dim});
    if (attend == nullptr) return state.SkipWithError("no such kernel");
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> q(static_cast<size_t>(positions * group * head_dim)), out(q.size());
    for (float& v : q)
        v = dist(rng);
    const size_t halves = static_cast<size_t>((n_keys + positions) * head_dim);
    const int64_t copy_bytes = static_cast<int64_t>(2 * halves * sizeof(uint16_t));
    const int64_t copies = state.range(4) > 0
                               ? state.range(4)
                               : std::max<int64_t>(48, 2 * sysconf(_SC_LEVEL3_CACHE_SIZE) / copy_bytes);
    // One random cache, repeated: the copies differ only in where they are.
    std::vector<std::vector<uint16_t>> keys(static_cast<size_t>(copies)), values(keys.size());
    keys[0].resize(halves);
    values[0].resize(halves);
    for (size_t i = 0; i < halves; ++i) {
        keys[0][i] = fp32_to_fp16(dist(rng));
        values[0][i] = fp32_to_fp16(dist(rng));
    }
    for (size_t c = 1; c < keys.size(); ++c) {
        keys[c] = keys[0];
        values[c] = values[0];
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    const size_t row_bytes = static_cast<size_t>(head_dim) * sizeof(uint16_t);
    size_t next = 0;
    for (auto _ : state) {
        attend->fn(q.data(), out.data(), static_cast<size_t>(head_dim), static_cast<size_t>(group * head_dim),
                   group, positions, {keys[next].data(), TensorType::F16, row_bytes},
                   {values[next].data(), TensorType::F16, row_bytes}, n_keys, head_dim, scale, {});
        benchmark::DoNotOptimize(out.data());
        next = (next + 1) % keys.size();
    }
    state.counters["time/pair"] =
        benchmark::Counter(double(n_keys * group * positions) * double(state.iterations()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    std::string label = label_of(*attend);
    if (copies > 1) label += ", " + std::to_string(copies * copy_bytes >> 20) + " MiB of caches";
    state.SetLabel(label);
}

// The instructions that bound the kernels, 12 independent chains each, in instructions per
// nanosecond; the clock is measured by a chain of dependent scalar adds (one per cycle), so
// "per_cycle" = per_ns / clock. On Zen 4 the integer multiplies (maddubs, madd) and the FMAs
// issue twice per cycle; the F16 round trip is the attention's bound.
enum class Instruction { ScalarAdd, Maddubs, Madd, Fma, F16RoundTrip };

// 12 chains of one instruction on vectors V (12 registers: more would spill).
template <Instruction OP, class V> [[gnu::target("avx2,fma,f16c")]] V step(V v) {
    if constexpr (OP == Instruction::Maddubs)
        return _mm256_maddubs_epi16(v, _mm256_set1_epi8(3));
    else if constexpr (OP == Instruction::Madd)
        return _mm256_madd_epi16(v, _mm256_set1_epi16(3));
    else if constexpr (OP == Instruction::Fma)
        return _mm256_fmadd_ps(v, _mm256_set1_ps(0.5f), _mm256_set1_ps(0.5f));
    else
        return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

// The float instructions' chains (the rest are integer).
constexpr bool on_floats(Instruction op) {
    return op == Instruction::Fma || op == Instruction::F16RoundTrip;
}

// Chain i's first vector: every byte i + 1. Set, not written through memory: an array whose
// address is taken stays on the stack, and its chains then measured the stores and loads
// between steps (vpmaddubsw at 0.91 per cycle on Zen 4, where it issues two).
template <Instruction OP> [[gnu::target("avx2,fma,f16c")]] auto chain_start(int i) {
    const __m256i bytes = _mm256_set1_epi8(static_cast<char>(i + 1));
    if constexpr (on_floats(OP))
        return _mm256_castsi256_ps(bytes);
    else
        return bytes;
}

template <Instruction OP, class V> [[gnu::target("avx2,fma,f16c")]] int64_t run_chains(int64_t steps) {
    V v[12];
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
        v[i] = chain_start<OP>(i);
    for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i)
            v[i] = step<OP>(v[i]);
        asm volatile("" : "+x"(v[0]), "+x"(v[1]), "+x"(v[2]), "+x"(v[3]), "+x"(v[4]), "+x"(v[5]));
        asm volatile("" : "+x"(v[6]), "+x"(v[7]), "+x"(v[8]), "+x"(v[9]), "+x"(v[10]), "+x"(v[11]));
    }
    if constexpr (on_floats(OP))
        return _mm256_extract_epi32(_mm256_castps_si256(v[0]), 0);
    else
        return _mm256_extract_epi32(v[0], 0);
}

// 12 dependent adds per step: one per cycle.
int64_t run_scalar_adds(int64_t steps) {
    int64_t x = 0;
    for (int64_t s = 0; s < steps; ++s)
        asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                     "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                     : "+r"(x));
    return x;
}

void instruction_throughput(benchmark::State& state) {
    if (!kernels_for(Isa::Avx2)) return state.SkipWithError("no AVX2/FMA/F16C");
    const auto op = static_cast<Instruction>(state.range(0));
    constexpr int64_t kSteps = 1 << 20;
    for (auto _ : state)
        benchmark::DoNotOptimize(
            op == Instruction::ScalarAdd ? run_scalar_adds(kSteps)
            : op == Instruction::Maddubs ? run_chains<Instruction::Maddubs, __m256i>(kSteps)
            : op == Instruction::Madd    ? run_chains<Instruction::Madd, __m256i>(kSteps)
            : op == Instruction::Fma     ? run_chains<Instruction::Fma, __m256>(kSteps)
                                         : run_chains<Instruction::F16RoundTrip, __m256>(kSteps));
    const double done = double(state.iterations()) * kSteps * 12;
    state.counters["per_ns"] = benchmark::Counter(done * 1e-9, benchmark::Counter::kIsRate);
    static const char* const kNames[] = {"scalar add chain (= clock GHz)", "vpmaddubsw ymm", "vpmaddwd ymm",
                                         "vfmadd231ps ymm", "vcvtps2ph + vcvtph2ps ymm"};
    state.SetLabel(kNames[state.range(0)]);
}

// Matrix-vector shapes: the FFN down projection (Q4_K / Q6_K, 4864 columns), the 896-column
// projections (Q5_0 / Q8_0 in Qwen2.5-0.5B's Q4_K_M and Q8_0 files), and one 40 MB Q4_K matrix
// that streams from DRAM rather than L3.
BENCHMARK_CAPTURE(matvec, q4_K_896x4864, TensorType::Q4_K, 896, 4864)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q6_K_896x4864, TensorType::Q6_K, 896, 4864)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q5_K_896x4864, TensorType::Q5_K, 896, 4864)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q3_K_896x4864, TensorType::Q3_K, 896, 4864)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q2_K_896x4864, TensorType::Q2_K, 896, 4864)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q8_0_896x896, TensorType::Q8_0, 896, 896)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q8_0_4864x896, TensorType::Q8_0, 4864, 896)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q5_0_4864x896, TensorType::Q5_0, 4864, 896)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q4_0_4864x896, TensorType::Q4_0, 4864, 896)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, f16_896x896, TensorType::F16, 896, 896)->DenseRange(0, 4);
BENCHMARK_CAPTURE(matvec, q4_K_16384x4864_dram, TensorType::Q4_K, 16384, 4864)->Arg(1);

// Llama-3.2-1B's FFN up matrix (8192 x 2048), in the last-level cache.
BENCHMARK_CAPTURE(matvec_repacked, q4_K_8192x2048, TensorType::Q4_K, 8192, 2048)
    ->ArgsProduct({{1, 3}, {0, 1}});
BENCHMARK_CAPTURE(matvec_repacked, q6_K_8192x2048, TensorType::Q6_K, 8192, 2048)
    ->ArgsProduct({{1, 3}, {0, 1}});

// Llama-3.2-1B's attention output matrix (2048 x 2048), in the last-level cache.
BENCHMARK_CAPTURE(verify_repacked, q4_K_2048x2048, TensorType::Q4_K, 2048, 2048)
    ->ArgsProduct({{1, 2, 3}, {1, 2, 3, 4, 5, 6, 8}});
BENCHMARK_CAPTURE(verify_repacked, q6_K_2048x2048, TensorType::Q6_K, 2048, 2048)
    ->ArgsProduct({{1, 2, 3}, {1, 2, 3, 4, 5, 6, 8}});

// A verify pass's or a short message's rows over F16 rows (2048 x 2048, in the last-level cache).
BENCHMARK_CAPTURE(matmat, f16_2048x2048, TensorType::F16, 2048, 2048)
    ->ArgsProduct({{1, 3}, {1, 2, 4, 8, 16, 17}});

BENCHMARK_CAPTURE(matmat, q4_K_896x4864, TensorType::Q4_K, 896, 4864)
    ->ArgsProduct({{0, 1, 2, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q6_K_896x4864, TensorType::Q6_K, 896, 4864)
    ->ArgsProduct({{1, 2, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, f16_896x896, TensorType::F16, 896, 896)
    ->ArgsProduct({{1}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q3_K_896x4864, TensorType::Q3_K, 896, 4864)
    ->ArgsProduct({{1, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q2_K_896x4864, TensorType::Q2_K, 896, 4864)
    ->ArgsProduct({{1, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q5_K_896x4864, TensorType::Q5_K, 896, 4864)
    ->ArgsProduct({{1, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q8_0_896x896, TensorType::Q8_0, 896, 896)
    ->ArgsProduct({{0, 1, 2, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q5_0_4864x896, TensorType::Q5_0, 4864, 896)
    ->ArgsProduct({{1, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q5_1_4864x896, TensorType::Q5_1, 4864, 896)
    ->ArgsProduct({{1, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q4_1_4864x896, TensorType::Q4_1, 4864, 896)
    ->ArgsProduct({{1, 3}, {32}})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(gemm_tier, q8_0_112x896, TensorType::Q8_0, 112, 896)
    ->ArgsProduct({{3, 4}, {16, 64, 128, 256, 512}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q4_K_128x2048, TensorType::Q4_K, 128, 2048)
    ->ArgsProduct({{3, 4}, {64, 128, 256, 512}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q6_K_128x2048, TensorType::Q6_K, 128, 2048)
    ->ArgsProduct({{3, 4}, {64, 128, 256, 512}, {0}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q4_K_256x8192, TensorType::Q4_K, 256, 8192)
    ->ArgsProduct({{3, 4}, {512}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q8_0_112x4864, TensorType::Q8_0, 112, 4864)
    ->ArgsProduct({{3, 4}, {512}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(matmul_pool, q4_K_896x4864, TensorType::Q4_K, 896, 4864)->Arg(1)->Arg(64)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q8_0_896x896, TensorType::Q8_0, 896, 896)
    ->Arg(1)
    ->Arg(64)
    ->Arg(512)
    ->UseRealTime();
// Qwen2.5-0.5B's gate (4864 x 896) and down (896 x 4864) matrices over a prompt of 512.
BENCHMARK_CAPTURE(matmul_pool, q8_0_4864x896, TensorType::Q8_0, 4864, 896)->Arg(512)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q8_0_896x4864, TensorType::Q8_0, 896, 4864)->Arg(512)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q5_0_4864x896, TensorType::Q5_0, 4864, 896)->Arg(1)->Arg(64)->UseRealTime();
// Its Q5_0 q and k (synth's Q4_K_M gives Q5_0 to rows of 896): a prompt pass's small products.
BENCHMARK_CAPTURE(matmul_pool, q5_0_896x896, TensorType::Q5_0, 896, 896)->Arg(64)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q5_0_128x896, TensorType::Q5_0, 128, 896)->Arg(64)->UseRealTime();
// Qwen2.5-0.5B's F16 matrices (q, gate, down) over a batch of 64 and of 256.
BENCHMARK_CAPTURE(matmul_pool, f16_896x896, TensorType::F16, 896, 896)->Arg(64)->Arg(256)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, f16_4864x896, TensorType::F16, 4864, 896)->Arg(64)->Arg(256)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, f16_896x4864, TensorType::F16, 896, 4864)->Arg(64)->Arg(256)->UseRealTime();
// Gemma 3's vision tower (SigLIP, width 1152, FFN 4304, F16 weights) over an image's 4096 patches
// and fewer: the attention projections and the MLP's two matrices.
BENCHMARK_CAPTURE(matmul_pool, f16_1152x1152, TensorType::F16, 1152, 1152)
    ->Arg(256)
    ->Arg(4096)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, f16_4304x1152, TensorType::F16, 4304, 1152)
    ->Arg(256)
    ->Arg(4096)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, f16_1152x4304, TensorType::F16, 1152, 4304)
    ->Arg(256)
    ->Arg(4096)
    ->UseRealTime();
// Qwen2.5-0.5B's output matrix (Q8_0, 145 MB) and 40 MB of Q5_0 rows: decode from DRAM.
BENCHMARK_CAPTURE(matmul_pool, q8_0_151936x896_dram, TensorType::Q8_0, 151936, 896)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q5_0_65536x896_dram, TensorType::Q5_0, 65536, 896)->Arg(1)->UseRealTime();
// Llama-3.2-1B-like rows (2048 columns) of the low-bit K-quants, 44-56 MB: decode from DRAM.
BENCHMARK_CAPTURE(matmul_pool, q2_K_65536x2048_dram, TensorType::Q2_K, 65536, 2048)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q3_K_65536x2048_dram, TensorType::Q3_K, 65536, 2048)->Arg(1)->UseRealTime();

// Qwen3-30B-A3B's experts, one row (decode) and four (a prompt's pass): gate and up, then the
// down projections, rows of 3 super-blocks (Q4_K_M keeps some in Q6_K).
void expert_rows(benchmark::internal::Benchmark* b) {
    b->Arg(1)->Arg(4)->UseRealTime();
}
BENCHMARK_CAPTURE(matmul_pool_cold_experts, q4_K_768x2048, TensorType::Q4_K, 768, 2048)->Apply(expert_rows);
BENCHMARK_CAPTURE(matmul_pool_cold_experts, q4_K_2048x768, TensorType::Q4_K, 2048, 768)->Apply(expert_rows);
BENCHMARK_CAPTURE(matmul_pool_cold_experts, q6_K_2048x768, TensorType::Q6_K, 2048, 768)->Apply(expert_rows);
BENCHMARK_CAPTURE(matmul_pool_cold_expert_set, q4_K_768x2048, TensorType::Q4_K, 768, 2048)
    ->Arg(0)
    ->Arg(1)
    ->Arg(4)
    ->Arg(5)
    ->Arg(8)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_cold_expert_set, q4_K_2048x768, TensorType::Q4_K, 2048, 768)
    ->Arg(0)
    ->Arg(4)
    ->UseRealTime();
// 128 MB of Llama-3.2-1B-like rows (cols 2048), alternating layouts: from DRAM.
BENCHMARK_CAPTURE(matmul_pool_batch_repacked, q4_K_2048x2048, TensorType::Q4_K, 2048, 2048)
    ->Arg(4)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_batch_repacked, q4_K_8192x2048, TensorType::Q4_K, 8192, 2048)
    ->Arg(1)
    ->Arg(2)
    ->Arg(3)
    ->Arg(4)
    ->Arg(5)
    ->Arg(8)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_batch_repacked, q6_K_8192x2048, TensorType::Q6_K, 8192, 2048)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_batch_repacked, q8_0_8192x2048, TensorType::Q8_0, 8192, 2048)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_batch_repacked, q4_K_2048x8192, TensorType::Q4_K, 2048, 8192)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_batch_repacked, q4_K_3648x4096, TensorType::Q4_K, 3648, 4096)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_repacked, q4_K_65536x2048_dram, TensorType::Q4_K, 65536, 2048)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime();
// The FFN down projection's shape (rows of 8192 columns), 110 MB.
BENCHMARK_CAPTURE(matmul_pool_repacked, q6_K_16384x8192_dram, TensorType::Q6_K, 16384, 8192)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_repacked, q6_K_32768x4096_dram, TensorType::Q6_K, 32768, 4096)
    ->Arg(0)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_repacked, q6_K_65536x2048_dram, TensorType::Q6_K, 65536, 2048)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime();

// Verify passes of 1-8 rows over 75 MB of Q4_K, 110 MB of Q6_K (batches alternating),
// Llama 3.2 1B's output matrix (215 MB of Q6_K) and Qwen2.5-0.5B's (145 MB of Q8_0).
BENCHMARK_CAPTURE(verify_pool, q8_0_151936x896_dram, TensorType::Q8_0, 151936, 896)
    ->ArgsProduct({{1, 4, 1, 4}})
    ->UseRealTime();
BENCHMARK_CAPTURE(verify_pool, q4_K_65536x2048_dram, TensorType::Q4_K, 65536, 2048)
    ->ArgsProduct({{1, 2, 4, 1, 2, 4, 8}})
    ->UseRealTime();
BENCHMARK_CAPTURE(verify_pool, q6_K_16384x8192_dram, TensorType::Q6_K, 16384, 8192)
    ->ArgsProduct({{1, 2, 4, 1, 2, 4, 8}})
    ->UseRealTime();
BENCHMARK_CAPTURE(verify_pool, q6_K_128256x2048_dram, TensorType::Q6_K, 128256, 2048)
    ->ArgsProduct({{1, 2, 3, 4}})
    ->UseRealTime();

// Qwen2.5-0.5B's output matrix (145 MB), Q8_0, alternating layouts.
BENCHMARK_CAPTURE(matmul_pool_repacked, q8_0_151936x896_dram, TensorType::Q8_0, 151936, 896)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime();

// Qwen2.5-0.5B (head 64, 7 query heads per KV head) and Llama-3.2-1B (head 64, 4) at a depth
// of 2048, in cache and from memory, one position (decode) and a prefill tile; Llama 3 8B's
// head of 128.
BENCHMARK(attention)
    ->ArgNames({"isa", "head", "group", "keys", "copies", "positions"})
    ->Args({0, 64, 7, 2048, 1, 1})
    ->ArgsProduct({{1, 3, 4}, {64}, {7}, {2048}, {1}, {1, 4, 9}})
    ->ArgsProduct({{3, 4}, {64}, {7}, {2048}, {1}, {18, 36, 73}})
    ->ArgsProduct({{1, 3}, {64}, {7}, {2048}, {48, 0}, {1}})
    ->ArgsProduct({{1, 3, 4}, {64}, {4}, {2048}, {1}, {1, 8, 16}})
    ->ArgsProduct({{1, 3, 4}, {128}, {4}, {2048}, {1}, {1, 4}})
    ->ArgsProduct({{3, 4}, {128}, {4}, {2048}, {1}, {16, 64}});

BENCHMARK(instruction_throughput)->DenseRange(0, 4);

BENCHMARK_CAPTURE(quantize, q8_0_activations, TensorType::Q8_0, true)->Arg(0)->Arg(1)->Arg(3);
BENCHMARK_CAPTURE(quantize, bf16_activations, TensorType::BF16, true)->Arg(0)->Arg(3);
BENCHMARK_CAPTURE(quantize, q8_0, TensorType::Q8_0, false)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(quantize, q8_K, TensorType::Q8_K, false)->Arg(0)->Arg(1);

} // namespace

BENCHMARK_MAIN();
