// Microbenchmarks of the AVX2 kernels against the scalar reference (Google Benchmark).
// Matrix-vector (decode) reports weight bytes read per second; matrix-matrix (prefill)
// reports GFLOP/s (2 * rows * cols * batch). Shapes are Qwen2.5-0.5B's: hidden 896, FFN 4864.
// Build by hand: g++ -O2 -std=c++20 -I. tests/kernels/bench_avx2_kernels.cpp
//   build-avx2/lib/libhearth_kernels.a -lbenchmark -lpthread -o build-avx2/bench_avx2_kernels
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"
#include "kernels/thread_pool.h"
#include "kernels/x86_avx2/avx2_kernels.h"

#include <benchmark/benchmark.h>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <immintrin.h>
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
        reference_kernels().of(type).quantize(row.data(), m->weights.data() + r * m->row_bytes, cols);
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
    reference_kernels().of(activation_type).quantize(x.data(), out.data(), cols * batch);
    return out;
}

// 0 the scalar reference, 1 AVX2, 3 AVX-512 (the AVX2 tier's where this CPU lacks it).
const KernelTable& table_of(int isa) {
    if (isa == 3 && kernels_for(Isa::Avx512) != nullptr) return *kernels_for(Isa::Avx512);
    return isa == 0 ? reference_kernels() : *kernels_for(Isa::Avx2);
}

// One thread, every row dotted with one activation row: the decode inner loop.
// Mode 0: scalar vec_dot per row; 1: AVX2 vec_dot per row; 2: the AVX2 gemm kernel on a batch
// of one (what matmul runs in decode: several rows interleaved); 3: AVX-512 vec_dot per row.
void matvec(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    const int mode = int(state.range(0));
    const KernelTable& table = table_of(mode == 0 ? 0 : mode == 3 ? 3 : 1);
    const Matrix& m = matrix(type, rows, cols);
    const TypeKernels& k = table.of(type);
    if (!k.vec_dot) return state.SkipWithError("no vec_dot");
    if (mode == 2 && !k.gemm) return state.SkipWithError("no gemm");
    const std::vector<uint8_t> a = activations(k.activation_type, cols, 1);
    const size_t a_bytes = row_bytes(k.activation_type, cols);
    std::vector<float> y(rows);
    for (auto _ : state) {
        if (mode == 2) {
            k.gemm(cols, m.weights.data(), m.row_bytes, 0, rows, a.data(), a_bytes, 1, y.data(), rows);
        } else {
            for (int64_t r = 0; r < rows; ++r)
                y[r] = k.vec_dot(cols, m.weights.data() + r * m.row_bytes, a.data());
        }
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(m.weights.size()));
    state.SetLabel(mode == 0   ? "scalar vec_dot"
                   : mode == 1 ? "avx2 vec_dot"
                   : mode == 2 ? "avx2 gemm, batch 1"
                               : std::string(isa_name(table.isa)) + " vec_dot");
}

// One thread, decode over rows repacked in groups of 16 (interleaved_rows.h) against the same
// tier's row-by-row vec_dot. Args: isa (1 AVX2, 2 AVX-512), layout (0 vec_dot per file row,
// 1 the repacked kernel).
void matvec_repacked(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    const Isa isa = state.range(0) == 1 ? Isa::Avx2 : Isa::Avx512;
    const bool repacked = state.range(1) == 1;
    const KernelTable* table = kernels_for(isa);
    if (table == nullptr) return state.SkipWithError("this CPU lacks the tier");
    const TypeKernels& k = table->of(type);
    if (repacked && k.gemv_interleaved16 == nullptr) return state.SkipWithError("no repacked kernel");
    const Matrix& m = matrix(type, rows, cols);
    std::vector<uint8_t> packed(interleaved_rows16_bytes(type, rows, cols));
    interleave_rows16(type, m.weights.data(), rows, cols, packed.data());
    const std::vector<uint8_t> a = activations(k.activation_type, cols, 1);
    std::vector<float> y(rows);
    for (auto _ : state) {
        if (repacked) {
            k.gemv_interleaved16(cols, packed.data(), 0, rows / kInterleavedRows, a.data(), y.data());
        } else {
            for (int64_t r = 0; r < rows; ++r)
                y[r] = k.vec_dot(cols, m.weights.data() + r * m.row_bytes, a.data());
        }
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(m.weights.size()));
    state.SetLabel(std::string(isa_name(isa)) + (repacked ? " repacked" : " vec_dot"));
}

// One thread, a batch of activation rows: gemm when the table has one, else vec_dot per pair.
void matmat(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    // 0 reference vec_dot, 1 avx2 vec_dot per pair, 2 avx2 gemm, 3 avx2 gemm for row counts that
    // are multiples of 8 (llama.cpp's interleaved order: what matmul runs for such matrices)
    const int mode = int(state.range(0));
    const int64_t batch = state.range(1);
    const TypeKernels& k = table_of(mode == 0 ? 0 : 1).of(type);
    const Matrix& m = matrix(type, rows, cols);
    const size_t a_bytes = row_bytes(k.activation_type, cols);
    const std::vector<uint8_t> a = activations(k.activation_type, cols, batch);
    std::vector<float> y(rows * batch);
    const GemmFn gemm = mode == 3 ? k.gemm_rows_multiple_of_8 : k.gemm;
    if (mode >= 2 && !gemm) return state.SkipWithError("no such gemm");
    for (auto _ : state) {
        if (mode >= 2) {
            gemm(cols, m.weights.data(), m.row_bytes, 0, rows, a.data(), a_bytes, batch, y.data(), rows);
        } else {
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t b = 0; b < batch; ++b)
                    y[b * rows + r] =
                        k.vec_dot(cols, m.weights.data() + r * m.row_bytes, a.data() + b * a_bytes);
        }
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(rows) * double(cols) * double(batch) *
                                                       double(state.iterations()) * 1e-9,
                                                   benchmark::Counter::kIsRate);
    state.SetLabel(mode == 0   ? "scalar vec_dot"
                   : mode == 1 ? "avx2 vec_dot"
                   : mode == 2 ? "avx2 gemm"
                               : "avx2 gemm, rows in 8s (interleaved)");
}

// One thread, a tier's prefill gemm over a chunk of rows as matmul hands it out (112 rows of
// Qwen2.5-0.5B's 896 on 2 threads) and a batch of prompt rows: tier 3 AVX-512, 4 AMX.
void gemm_tier(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    const Isa isa = state.range(0) >= 4 ? Isa::Amx : Isa::Avx512;
    const bool bf16_tiles = state.range(0) == 5; // else the table's int8 kernels
    const int64_t batch = state.range(1);
    const KernelTable* table = kernels_for(isa);
    if (table == nullptr) return state.SkipWithError(isa_unavailable_reason(isa).c_str());
    const TypeKernels& k = table->of(type);
    const Matrix& m = matrix(type, rows, cols);
    const TensorType activation_type = bf16_tiles ? TensorType::BF16 : k.activation_type;
    const size_t a_bytes = row_bytes(activation_type, cols);
    const std::vector<uint8_t> a = activations(activation_type, cols, batch);
    std::vector<float> y(rows * batch);
    // Q4_K and Q6_K run repacked in groups of 16 rows, as the engine loads them (the BF16 tiles
    // take the file's rows).
    const bool repacked = !bf16_tiles && interleaves_rows16(type, rows, cols);
    std::vector<uint8_t> packed(repacked ? interleaved_rows16_bytes(type, rows, cols) : 0);
    if (repacked) interleave_rows16(type, m.weights.data(), rows, cols, packed.data());
    for (auto _ : state) {
        if (bf16_tiles)
            k.gemm_bf16_tiles(cols, m.weights.data(), m.row_bytes, 0, rows, a.data(), a_bytes, batch,
                              y.data(), rows);
        else if (repacked)
            k.gemm_interleaved16(cols, packed.data(), m.row_bytes, 0, rows, a.data(), a_bytes, batch,
                                 y.data(), rows);
        else
            k.gemm(cols, m.weights.data(), m.row_bytes, 0, rows, a.data(), a_bytes, batch, y.data(), rows);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["GOP/s"] = benchmark::Counter(2.0 * double(rows) * double(cols) * double(batch) *
                                                     double(state.iterations()) * 1e-9,
                                                 benchmark::Counter::kIsRate);
    state.SetLabel(std::string(isa_name(isa)) + (bf16_tiles ? " bf16 tiles" : ""));
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

// Decode on the pool's 2 threads, the file's row-major layout (arg 0) against rows repacked in
// groups of 16 (arg 1) in huge pages, as the engine holds them: from DRAM, both layouts read
// the same bytes.
void matmul_pool_repacked(benchmark::State& state, TensorType type, int64_t rows, int64_t cols) {
    const bool repacked = state.range(0) == 1;
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
    std::vector<float> x(cols, 0.25f), y(rows);
    std::vector<std::byte> scratch(matmul_scratch_bytes(type, cols, 1));
    const WeightMatrix w{type, rows, cols, huge, repacked ? RowLayout::Interleaved16 : RowLayout::RowMajor};
    for (auto _ : state) {
        matmul(w, x.data(), 1, y.data(), pool, scratch);
        benchmark::DoNotOptimize(y.data());
    }
    ::munmap(huge, bytes);
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
    state.SetLabel(std::string(isa_name(active_kernels().isa)) + (repacked ? " repacked" : " row-major"));
}

// One row of Qwen2.5-0.5B's FFN width through a tier's activation quantizer (0 scalar, 1 AVX2, 3
// AVX-512), normal values.
void quantize_activations(benchmark::State& state, TensorType activation_type) {
    const QuantizeRowFn q = table_of(int(state.range(0))).of(activation_type).activation_quantizer();
    const int64_t n = 4864;
    std::mt19937 rng(5);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(n);
    for (float& v : x)
        v = dist(rng);
    std::vector<uint8_t> out(row_bytes(activation_type, n));
    for (auto _ : state) {
        q(x.data(), out.data(), n);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * n * int64_t(sizeof(float)));
}

void quantize(benchmark::State& state, TensorType activation_type) {
    const QuantizeRowFn q = table_of(int(state.range(0))).of(activation_type).quantize;
    const int64_t n = 4864;
    std::vector<float> x(n, 0.5f);
    std::vector<uint8_t> out(row_bytes(activation_type, n));
    for (auto _ : state) {
        q(x.data(), out.data(), n);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * n * int64_t(sizeof(float)));
}

// The attention of one GQA group over n_keys F16 keys and values, one head's positions in a run
// as the KV cache holds them: ns per (key, query row). `positions` consecutive query positions
// go to one kernel call (a prefill tile; decode has 1). Mode 0: the scalar reference; 1: AVX2;
// 2: AVX-512; 3: AMX (each where the CPU has it; AMX runs one position with AVX-512).
// `copies` > 1 cycles through that many caches (24 MB at 48 x 2048 keys: from L3 on most CPUs);
// `copies` 0 through as many as fill twice the L3 (sysconf), so that the keys come from DRAM,
// as in decode, where the weights streamed since the layer's last token evicted them.
void attention(benchmark::State& state) {
    const int isa = int(state.range(0));
    const int64_t head_dim = state.range(1), group = state.range(2), n_keys = state.range(3);
    const int64_t positions = state.range(5);
    const KernelTable* avx512 = kernels_for(Isa::Avx512);
    const KernelTable* amx = kernels_for(Isa::Amx);
    if (isa == 2 && !avx512) return state.SkipWithError("this CPU has no AVX-512");
    if (isa == 3 && !amx) return state.SkipWithError("this CPU has no AMX");
    const AttendGroupF16Fn attend = isa == 3   ? amx->attend_group_f16
                                    : isa == 2 ? avx512->attend_group_f16
                                    : isa == 1 ? avx2::attend_group_f16
                                               : attend_group_f16_ref;
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
    size_t next = 0;
    for (auto _ : state) {
        attend(q.data(), out.data(), static_cast<size_t>(head_dim), static_cast<size_t>(group * head_dim),
               group, positions, keys[next].data(), values[next].data(), static_cast<size_t>(head_dim),
               n_keys, head_dim, scale);
        benchmark::DoNotOptimize(out.data());
        next = (next + 1) % keys.size();
    }
    state.counters["time/pair"] =
        benchmark::Counter(double(n_keys * group * positions) * double(state.iterations()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    std::string label = isa == 3 ? "amx" : isa == 2 ? "avx512" : isa == 1 ? "avx2" : "scalar";
    if (copies > 1) label += ", " + std::to_string(copies * copy_bytes >> 20) + " MiB of caches";
    state.SetLabel(label);
}

// The instructions that bound the kernels, 12 independent chains each, in instructions per
// nanosecond; the clock is measured by a chain of dependent scalar adds (one per cycle), so
// "per_cycle" = per_ns / clock. On Zen 5 the integer multiplies (maddubs, madd) issue once per
// cycle, the bound of every int8 kernel; the F16 round trip is the attention's.
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

template <Instruction OP, class V> [[gnu::target("avx2,fma,f16c")]] int64_t run_chains(int64_t steps) {
    V v[12];
    for (int i = 0; i < 12; ++i)
        std::memset(&v[i], i + 1, sizeof v[i]);
    for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i)
            v[i] = step<OP>(v[i]);
        asm volatile("" : "+x"(v[0]), "+x"(v[1]), "+x"(v[2]), "+x"(v[3]), "+x"(v[4]), "+x"(v[5]));
        asm volatile("" : "+x"(v[6]), "+x"(v[7]), "+x"(v[8]), "+x"(v[9]), "+x"(v[10]), "+x"(v[11]));
    }
    int32_t lane;
    std::memcpy(&lane, &v[0], sizeof lane);
    return lane;
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
BENCHMARK_CAPTURE(matvec, q4_K_896x4864, TensorType::Q4_K, 896, 4864)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q6_K_896x4864, TensorType::Q6_K, 896, 4864)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q5_K_896x4864, TensorType::Q5_K, 896, 4864)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q3_K_896x4864, TensorType::Q3_K, 896, 4864)->Arg(0)->Arg(1)->Arg(3);
BENCHMARK_CAPTURE(matvec, q2_K_896x4864, TensorType::Q2_K, 896, 4864)->Arg(0)->Arg(1)->Arg(3);
BENCHMARK_CAPTURE(matvec, q8_0_896x896, TensorType::Q8_0, 896, 896)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q8_0_4864x896, TensorType::Q8_0, 4864, 896)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q5_0_4864x896, TensorType::Q5_0, 4864, 896)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q4_0_4864x896, TensorType::Q4_0, 4864, 896)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, f16_896x896, TensorType::F16, 896, 896)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK_CAPTURE(matvec, q4_K_16384x4864_dram, TensorType::Q4_K, 16384, 4864)->Arg(1);

// Llama-3.2-1B's FFN up matrix (8192 x 2048), in the last-level cache.
BENCHMARK_CAPTURE(matvec_repacked, q4_K_8192x2048, TensorType::Q4_K, 8192, 2048)
    ->ArgsProduct({{1, 2}, {0, 1}});
BENCHMARK_CAPTURE(matvec_repacked, q6_K_8192x2048, TensorType::Q6_K, 8192, 2048)
    ->ArgsProduct({{1, 2}, {0, 1}});

BENCHMARK_CAPTURE(matmat, q4_K_896x4864, TensorType::Q4_K, 896, 4864)
    ->ArgsProduct({{0, 1, 2, 3}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q6_K_896x4864, TensorType::Q6_K, 896, 4864)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, f16_896x896, TensorType::F16, 896, 896)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q3_K_896x4864, TensorType::Q3_K, 896, 4864)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q2_K_896x4864, TensorType::Q2_K, 896, 4864)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q5_K_896x4864, TensorType::Q5_K, 896, 4864)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q8_0_896x896, TensorType::Q8_0, 896, 896)
    ->ArgsProduct({{0, 1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q5_0_4864x896, TensorType::Q5_0, 4864, 896)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q5_1_4864x896, TensorType::Q5_1, 4864, 896)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmat, q4_1_4864x896, TensorType::Q4_1, 4864, 896)
    ->ArgsProduct({{1, 2}, {32}})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(gemm_tier, q8_0_112x896, TensorType::Q8_0, 112, 896)
    ->ArgsProduct({{3, 4, 5}, {16, 64, 128, 256, 512}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q4_K_128x2048, TensorType::Q4_K, 128, 2048)
    ->ArgsProduct({{3, 4, 5}, {64, 128, 256, 512}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q6_K_128x2048, TensorType::Q6_K, 128, 2048)
    ->ArgsProduct({{3, 5}, {64, 128, 256, 512}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q4_K_256x8192, TensorType::Q4_K, 256, 8192)
    ->ArgsProduct({{3, 4, 5}, {512}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm_tier, q8_0_112x4864, TensorType::Q8_0, 112, 4864)
    ->ArgsProduct({{3, 4, 5}, {512}})
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
// Qwen2.5-0.5B's output matrix (Q8_0, 145 MB) and 40 MB of Q5_0 rows: decode from DRAM.
BENCHMARK_CAPTURE(matmul_pool, q8_0_151936x896_dram, TensorType::Q8_0, 151936, 896)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q5_0_65536x896_dram, TensorType::Q5_0, 65536, 896)->Arg(1)->UseRealTime();
// Llama-3.2-1B-like rows (2048 columns) of the low-bit K-quants, 44-56 MB: decode from DRAM.
BENCHMARK_CAPTURE(matmul_pool, q2_K_65536x2048_dram, TensorType::Q2_K, 65536, 2048)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool, q3_K_65536x2048_dram, TensorType::Q3_K, 65536, 2048)->Arg(1)->UseRealTime();

// 128 MB of Llama-3.2-1B-like rows (cols 2048), alternating layouts: from DRAM.
BENCHMARK_CAPTURE(matmul_pool_repacked, q4_K_65536x2048_dram, TensorType::Q4_K, 65536, 2048)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(matmul_pool_repacked, q6_K_65536x2048_dram, TensorType::Q6_K, 65536, 2048)
    ->Arg(0)
    ->Arg(1)
    ->Arg(0)
    ->Arg(1)
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
    ->ArgsProduct({{1, 2, 3}, {64}, {7}, {2048}, {1}, {1, 4, 9}})
    ->ArgsProduct({{2, 3}, {64}, {7}, {2048}, {1}, {18, 36, 73}})
    ->ArgsProduct({{1, 2}, {64}, {7}, {2048}, {48, 0}, {1}})
    ->ArgsProduct({{1, 2, 3}, {64}, {4}, {2048}, {1}, {1, 8, 16}})
    ->ArgsProduct({{1, 2, 3}, {128}, {4}, {2048}, {1}, {1, 4}})
    ->ArgsProduct({{2, 3}, {128}, {4}, {2048}, {1}, {16, 64}});

BENCHMARK(instruction_throughput)->DenseRange(0, 4);

BENCHMARK_CAPTURE(quantize_activations, q8_0, TensorType::Q8_0)->Arg(0)->Arg(1)->Arg(3);
BENCHMARK_CAPTURE(quantize, q8_0, TensorType::Q8_0)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(quantize, q8_K, TensorType::Q8_K)->Arg(0)->Arg(1);

} // namespace

BENCHMARK_MAIN();
