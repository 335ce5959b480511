#include "engine/model/machine_limits.h"
#include "engine/error.h"
#include "kernels/decode_prefetch.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"
#include "kernels/matmul.h"
#include "kernels/thread_pool.h"
#if defined(__x86_64__)
#include "kernels/x86_amx/amx_tiles.h"
#endif
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <span>
#include <thread>
#include <type_traits>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hearth::engine {
namespace {

using Clock = std::chrono::steady_clock;

// The stored list's format: 2 added the batches of 1 and 2 rows and the activation rates, so that
// a list of 1 is measured again rather than predicting without them; 3 times each kernel rate
// over calls long enough for the process clock (version 2's single calls read it short); 4 added
// a prompt product's overhead.
constexpr int kMachineLimitsVersion = 4;

#if defined(__x86_64__)
// A streaming read as decode does it: each line asked for ahead as the CPU's decode plan says
// (decode_prefetch.h), so that the limit is what the kernels' way of reading can reach.
__attribute__((target("avx2"))) uint64_t read_stream_avx2(const std::byte* data, size_t bytes) {
    const kernels::DecodePrefetch& prefetch = kernels::decode_prefetch();
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i + 128 <= bytes; i += 128) {
        kernels::prefetch_weight_lines(data + i + prefetch.row_bytes_ahead, 128, prefetch.into_l2);
        const auto* p = reinterpret_cast<const __m256i*>(data + i);
        a0 = _mm256_add_epi64(a0, _mm256_load_si256(p));
        a1 = _mm256_add_epi64(a1, _mm256_load_si256(p + 1));
        a2 = _mm256_add_epi64(a2, _mm256_load_si256(p + 2));
        a3 = _mm256_add_epi64(a3, _mm256_load_si256(p + 3));
    }
    const __m256i sum = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    alignas(32) uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

// 10 independent chains of 8-wide FMAs, each in its own register: enough to keep both FMA
// pipes of a Zen 3 core busy (latency 4, two per cycle). Returns the FLOPs done.
__attribute__((target("avx2,fma"))) double fma_loop(int64_t iterations, float* sink) {
    __m256 c0 = _mm256_set1_ps(0.0f), c1 = _mm256_set1_ps(0.1f), c2 = _mm256_set1_ps(0.2f),
           c3 = _mm256_set1_ps(0.3f), c4 = _mm256_set1_ps(0.4f), c5 = _mm256_set1_ps(0.5f),
           c6 = _mm256_set1_ps(0.6f), c7 = _mm256_set1_ps(0.7f), c8 = _mm256_set1_ps(0.8f),
           c9 = _mm256_set1_ps(0.9f);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int64_t it = 0; it < iterations; ++it) {
        c0 = _mm256_fmadd_ps(c0, a, b);
        c1 = _mm256_fmadd_ps(c1, a, b);
        c2 = _mm256_fmadd_ps(c2, a, b);
        c3 = _mm256_fmadd_ps(c3, a, b);
        c4 = _mm256_fmadd_ps(c4, a, b);
        c5 = _mm256_fmadd_ps(c5, a, b);
        c6 = _mm256_fmadd_ps(c6, a, b);
        c7 = _mm256_fmadd_ps(c7, a, b);
        c8 = _mm256_fmadd_ps(c8, a, b);
        c9 = _mm256_fmadd_ps(c9, a, b);
    }
    const __m256 total =
        _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                    _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7))),
                      _mm256_add_ps(c8, c9));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, total);
    *sink += lanes[0];
    return static_cast<double>(iterations) * 10 * 8 * 2;
}

// The int8 dot products the quantized kernels are built from, in 10 independent chains: what
// one instruction-set tier can multiply at most. Each returns the ops done (2 per multiply-add).
// AVX2: vpmaddubsw, then vpmaddwd to int32 and an add, per 32 byte products.
__attribute__((target("avx2,fma"))) double int8_loop_avx2(int64_t iterations, int32_t* sink) {
    __m256i acc[10];
    for (int k = 0; k < 10; ++k)
        acc[k] = _mm256_set1_epi32(k);
    const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2), ones = _mm256_set1_epi16(1);
    for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k) {
            __m256i operand = u;
            __asm__ volatile("" : "+x"(operand)); // opaque: every product is computed, none hoisted
            acc[k] = _mm256_add_epi32(acc[k], _mm256_madd_epi16(_mm256_maddubs_epi16(operand, s), ones));
        }
    for (int k = 0; k < 10; ++k)
        *sink ^= _mm256_extract_epi32(acc[k], 0); // xor: sums of the chains may overflow
    return static_cast<double>(iterations) * 10 * 32 * 2;
}
// AVX-VNNI: vpdpbusd on ymm, 32 byte products each.
__attribute__((target("avx2,avxvnni"))) double int8_loop_avxvnni(int64_t iterations, int32_t* sink) {
    __m256i acc[10];
    for (int k = 0; k < 10; ++k)
        acc[k] = _mm256_set1_epi32(k);
    const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2);
    for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k)
            acc[k] = _mm256_dpbusd_avx_epi32(acc[k], u, s);
    for (int k = 0; k < 10; ++k)
        *sink ^= _mm256_extract_epi32(acc[k], 0); // xor: sums of the chains may overflow
    return static_cast<double>(iterations) * 10 * 32 * 2;
}
// AVX-512 VNNI: vpdpbusd on zmm, 64 byte products each (the K-quant kernels' width).
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) double int8_loop_avx512(int64_t iterations,
                                                                                        int32_t* sink) {
    __m512i acc[10];
    for (int k = 0; k < 10; ++k)
        acc[k] = _mm512_set1_epi32(k);
    const __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-2);
    for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k)
            acc[k] = _mm512_dpbusd_epi32(acc[k], u, s);
    alignas(64) int32_t lanes[16];
    for (int k = 0; k < 10; ++k) {
        _mm512_store_si512(lanes, acc[k]);
        *sink ^= lanes[0]; // xor: sums of the chains may overflow
    }
    return static_cast<double>(iterations) * 10 * 64 * 2;
}

// The AMX tier's tile products back to back on 4 independent sums (16 x 16 each, from two
// 16 x 64-byte operand tiles): TDPBSSD (Sum int32, the int8 gemms: 16 x 16 x 64 multiply-adds
// an instruction) or TDPBF16PS (Sum float, the BF16 tile gemm and attention: 16 x 16 x 32). The
// tile state was granted to the process when the tier was found (cpu_features).
template <class Sum> double tile_loop_amx(int64_t iterations, Sum* sink) {
    namespace amx = kernels::amx;
    constexpr bool kInt8 = std::is_same_v<Sum, int32_t>;
    const amx::TilesInUse tiles(amx::full_tiles());
    amx::zero_tile<0>(), amx::zero_tile<1>(), amx::zero_tile<2>(), amx::zero_tile<3>();
    amx::zero_tile<4>(), amx::zero_tile<5>(), amx::zero_tile<6>(), amx::zero_tile<7>();
    for (int64_t it = 0; it < iterations; ++it) {
        if constexpr (kInt8) {
            amx::dot_int8_tiles<0, 4, 6>(), amx::dot_int8_tiles<1, 4, 7>();
            amx::dot_int8_tiles<2, 5, 6>(), amx::dot_int8_tiles<3, 5, 7>();
        } else {
            amx::dot_bf16_tiles<0, 4, 6>(), amx::dot_bf16_tiles<1, 4, 7>();
            amx::dot_bf16_tiles<2, 5, 6>(), amx::dot_bf16_tiles<3, 5, 7>();
        }
    }
    alignas(64) Sum sums[16][16];
    amx::store_tile<0>(sums, 64);
    if constexpr (kInt8)
        *sink ^= sums[0][0]; // xor: an int32 sum may overflow
    else
        *sink += sums[0][0];
    return static_cast<double>(iterations) * 4 * 16 * 16 * (kInt8 ? 64 : 32) * 2;
}
#endif

uint64_t read_stream_scalar(const std::byte* data, size_t bytes) {
    uint64_t sum = 0;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t word;
        std::memcpy(&word, data + i, 8);
        sum += word;
    }
    return sum;
}

bool have_avx2_fma() {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

// fn(index, threads) on `threads` threads at once (this one is index 0): each measurement
// needs every thread running, which the pool's shared-out jobs do not promise.
template <class F> void on_threads(int threads, F&& fn) {
    std::vector<std::thread> others;
    for (int i = 1; i < threads; ++i)
        others.emplace_back([&fn, i, threads] { fn(i, threads); });
    fn(0, threads);
    for (std::thread& t : others)
        t.join();
}

// CPU time of the calling thread, and of the whole process. The limits are work over the CPU time
// of the threads that did it: what the machine does when nothing else runs, however busy it is
// while it is measured.
double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The median of a few timings' rates (an odd count): on a shared host the best catches a moment
// when the other machines were idle, the median what a model sees over seconds.
double median_of(std::span<double> rates) {
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
}

void add_to(std::atomic<double>& total, double value) {
    double seen = total.load();
    while (!total.compare_exchange_weak(seen, seen + value)) {
    }
}

// The best of 3 passes of `iterations` of a compute loop (returning the operations it did) on
// every thread at once: the sum of the threads' rates, in G operations per CPU second.
template <class Local>
double compute_peak(int threads, double (*loop)(int64_t, Local*), int64_t iterations,
                    std::atomic<uint64_t>& sink) {
    double best = 0;
    for (int pass = 0; pass < 3; ++pass) {
        std::atomic<double> rate{0};
        on_threads(threads, [&](int, int) {
            Local local = 0;
            const double start = thread_cpu_seconds();
            const double done = loop(iterations, &local);
            add_to(rate, done / std::max(1e-9, thread_cpu_seconds() - start) / 1e9);
            sink.fetch_add(static_cast<uint64_t>(local), std::memory_order_relaxed);
        });
        best = std::max(best, rate.load());
    }
    return best;
}

void measure_bandwidth_and_peaks(int threads, size_t bytes, MachineLimits& limits) {
    auto* buffer = static_cast<std::byte*>(std::aligned_alloc(4096, bytes));
    if (!buffer)
        throw Error("machine limits: cannot allocate " + std::to_string(bytes >> 20) +
                    " MiB to measure the read bandwidth");
    on_threads(threads, [&](int index, int count) { // first touch from the threads that read it
        const kernels::Range r = kernels::split_range(static_cast<int64_t>(bytes / 4096), index, count);
        std::memset(buffer + r.begin * 4096, index + 1, static_cast<size_t>(r.end - r.begin) * 4096);
    });
    const bool simd = have_avx2_fma();
    std::atomic<uint64_t> sink{0};
    // The median of the passes (median_of: the best read 66 GB/s on a shared host where decode then
    // read at 60% of it; on a machine of one's own they agree).
    double pass_rates[5] = {};
    for (double& pass_rate : pass_rates) {
        std::atomic<double> rate{0};
        on_threads(threads, [&](int index, int count) {
            const kernels::Range r = kernels::split_range(static_cast<int64_t>(bytes / 4096), index, count);
            const std::byte* part = buffer + r.begin * 4096;
            const size_t part_bytes = static_cast<size_t>(r.end - r.begin) * 4096;
            const double start = thread_cpu_seconds();
#if defined(__x86_64__)
            const uint64_t s =
                simd ? read_stream_avx2(part, part_bytes) : read_stream_scalar(part, part_bytes);
#else
            const uint64_t s = read_stream_scalar(part, part_bytes);
#endif
            add_to(rate,
                   static_cast<double>(part_bytes) / std::max(1e-9, thread_cpu_seconds() - start) / 1e9);
            sink.fetch_add(s, std::memory_order_relaxed);
        });
        pass_rate = rate.load();
    }
    limits.bandwidth_gbps = median_of(pass_rates);
    std::free(buffer);
#if defined(__x86_64__)
    if (simd) limits.peak_gflops = compute_peak(threads, fma_loop, 20'000'000, sink);
#endif
#if defined(__x86_64__)
    // The int8 dot product of the tier the kernels run.
    using Int8Loop = double (*)(int64_t, int32_t*);
    Int8Loop int8_loop = nullptr;
    switch (kernels::active_kernels().isa) {
    case kernels::Isa::Avx2:
        int8_loop = int8_loop_avx2;
        limits.int8_instruction = "vpmaddubsw+vpmaddwd ymm";
        break;
    case kernels::Isa::AvxVnni:
        int8_loop = int8_loop_avxvnni;
        limits.int8_instruction = "vpdpbusd ymm";
        break;
    case kernels::Isa::Avx512:
    case kernels::Isa::Amx: // vpdpbusd for the types AMX leaves to the AVX-512 kernels, and decode
        int8_loop = int8_loop_avx512;
        limits.int8_instruction = "vpdpbusd zmm";
        break;
    case kernels::Isa::Scalar:
        break;
    }
    if (int8_loop != nullptr) limits.int8_peak_gops = compute_peak(threads, int8_loop, 10'000'000, sink);
    if (kernels::active_kernels().isa == kernels::Isa::Amx) {
        limits.tile_int8_peak_gops = compute_peak(threads, tile_loop_amx<int32_t>, 2'000'000, sink);
        limits.tile_bf16_peak_gflops = compute_peak(threads, tile_loop_amx<float>, 2'000'000, sink);
    }
#endif
    if (sink.load() == 42) std::fputc(' ', stderr); // keep the reads alive
}
// The weight types models store their matrices in.
constexpr kernels::TensorType kWeightTypes[] = {
    kernels::TensorType::F32,  kernels::TensorType::F16,  kernels::TensorType::BF16,
    kernels::TensorType::Q4_0, kernels::TensorType::Q4_1, kernels::TensorType::Q5_0,
    kernels::TensorType::Q5_1, kernels::TensorType::Q8_0, kernels::TensorType::Q2_K,
    kernels::TensorType::Q3_K, kernels::TensorType::Q4_K, kernels::TensorType::Q5_K,
    kernels::TensorType::Q6_K};

// Matrices of a model's width, with at least kRateMatrixBytes of weights: more than a core's L2
// holds, as a model's projections are, so that a prompt's batch re-reads them from the outer
// caches as it does in a model. kRateDistinctRows rows are quantized and repeated to fill them.
constexpr int64_t kRateCols = 4096;
constexpr size_t kRateMatrixBytes = size_t(8) << 20;
constexpr int64_t kRateDistinctRows = 256;
// CPU seconds per thread that one timing of a kernel rate lasts at least.
constexpr double kRateCpuSeconds = 0.02;

struct AlignedFree {
    void operator()(void* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<std::byte, AlignedFree>;
AlignedBytes aligned_bytes(size_t bytes) {
    auto* p = static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
    if (!p) throw Error("machine limits: cannot allocate " + std::to_string(bytes) + " bytes for a matmul");
    return AlignedBytes(p);
}

// A `type` matrix as a model's is after its load (in groups of 16 rows where the engine repacks
// them): `distinct` rows of N(0, 0.02) weights, quantized, repeated to `rows`. Its bytes live in
// `storage`; `bytes` is their count.
kernels::WeightMatrix model_like_matrix(kernels::TensorType type, int64_t rows, int64_t cols,
                                        int64_t distinct, uint32_t seed, AlignedBytes& storage,
                                        size_t& bytes) {
    const kernels::QuantizeRowFn quantize = kernels::active_kernels().of(type).quantize.fn();
    std::mt19937 random(seed);
    std::normal_distribution<float> weight(0.0f, 0.02f);
    const size_t row_bytes = kernels::row_bytes(type, cols);
    AlignedBytes file = aligned_bytes(row_bytes * static_cast<size_t>(rows));
    std::vector<float> row(static_cast<size_t>(cols));
    for (int64_t r = 0; r < distinct; ++r) {
        for (float& v : row)
            v = weight(random);
        quantize(row.data(), file.get() + r * row_bytes, cols);
    }
    for (int64_t r = distinct; r < rows; ++r)
        std::memcpy(file.get() + r * row_bytes, file.get() + (r % distinct) * row_bytes, row_bytes);
    bytes = row_bytes * static_cast<size_t>(rows);
    if (kernels::load_layout(kernels::active_kernels(), type, rows, cols) == kernels::RowLayout::RowMajor) {
        storage = std::move(file);
        return {type, rows, cols, storage.get(), kernels::RowLayout::RowMajor};
    }
    bytes = kernels::interleaved_rows16_bytes(type, rows, cols);
    storage = aligned_bytes(bytes);
    kernels::interleave_rows16(type, file.get(), rows, cols, storage.get());
    return {type, rows, cols, storage.get(), kernels::RowLayout::Interleaved16};
}

// The median of 3 timings (in CPU seconds per thread) of the active tier's matmul of a `type` matrix, laid
// out as a model's is after its load, at each batch of kGemmRateBatches; nothing when the tier cannot run it.
void measure_gemm_rates(kernels::TensorType type, kernels::ThreadPool& pool, std::vector<GemmRate>& rates) {
    const kernels::KernelTable& table = kernels::active_kernels();
    const kernels::QuantizeRowFn quantize = table.of(type).quantize.fn();
    if (!table.multiplies(type) || quantize == nullptr) return;
    const size_t row_bytes = kernels::row_bytes(type, kRateCols);
    const int64_t rows = std::max<int64_t>(
        kRateDistinctRows, static_cast<int64_t>((kRateMatrixBytes / row_bytes + 15) / 16 * 16));
    AlignedBytes storage;
    size_t bytes = 0;
    const kernels::WeightMatrix m =
        model_like_matrix(type, rows, kRateCols, kRateDistinctRows, 12345, storage, bytes);
    std::mt19937 random(54321);
    const int64_t max_batch = *std::max_element(std::begin(kGemmRateBatches), std::end(kGemmRateBatches));
    std::vector<float> x(static_cast<size_t>(max_batch * kRateCols)),
        y(static_cast<size_t>(max_batch * rows));
    std::normal_distribution<float> activation(0.0f, 1.0f);
    for (float& v : x)
        v = activation(random);
    std::vector<std::byte> scratch(kernels::matmul_scratch_bytes(type, kRateCols, max_batch));
    for (int64_t batch : kGemmRateBatches) {
        kernels::matmul(m, x.data(), batch, y.data(), pool, scratch); // warm: caches, pool
        double pass_rates[3] = {};                                    // their median, as for the bandwidth
        for (double& pass_rate : pass_rates) {
            // Calls until the threads have spent kRateCpuSeconds each: the process clock counts a
            // pool thread's time only as the scheduler updates it, so that one call of a few
            // milliseconds read as little as 40% of its time (Q4_K at 64 rows: 2087 GFLOP/s,
            // timed alone at 811).
            const double start = process_cpu_seconds();
            int64_t calls = 0;
            double seconds = 0;
            do {
                kernels::matmul(m, x.data(), batch, y.data(), pool, scratch);
                ++calls;
                seconds = (process_cpu_seconds() - start) / pool.size();
            } while (seconds < kRateCpuSeconds);
            pass_rate = 2.0 * static_cast<double>(rows) * kRateCols * static_cast<double>(batch) *
                        static_cast<double>(calls) / seconds / 1e9;
        }
        rates.push_back({type, batch, median_of(pass_rates)});
    }
}

// A product of a small matrix (128 x 1024 Q8_0) over `batch` rows against the longer of its
// arithmetic at the Q8_0 rate measured on a large one and its read at the measured bandwidth:
// the fixed cost of each product. A prompt pass's products run warm (Qwen2.5-0.5B, Zen 5, 2
// threads: Q5_0 products of 128, 896 and 4864 rows over 64 took 48, 119 and 509 us, a line
// through 31 us at none); decode's run `cold`, each matrix read from memory once, as a token
// reads a model's, through copies spanning more than a cache holds.
double measure_product_overhead_microseconds(kernels::ThreadPool& pool, int64_t batch, double gflops,
                                             bool cold, double bandwidth_gbps) {
    const kernels::TensorType type = kernels::TensorType::Q8_0;
    const kernels::KernelTable& table = kernels::active_kernels();
    const kernels::QuantizeRowFn quantize = table.of(type).quantize.fn();
    if (!table.multiplies(type) || quantize == nullptr || !(gflops > 0) || !(bandwidth_gbps > 0)) return 0;
    constexpr int64_t rows = 128, cols = 1024;
    constexpr size_t kColdBytes = size_t(256) << 20;
    AlignedBytes one;
    size_t matrix_bytes = 0;
    const kernels::WeightMatrix first = model_like_matrix(type, rows, cols, rows, 321, one, matrix_bytes);
    // Cold: copies of it, one after another, each read once a round.
    const size_t copies = cold ? kColdBytes / matrix_bytes : 1;
    AlignedBytes all = cold ? aligned_bytes(matrix_bytes * copies) : nullptr;
    for (size_t c = 0; cold && c < copies; ++c)
        std::memcpy(all.get() + c * matrix_bytes, first.data, matrix_bytes);
    const auto matrix = [&](size_t c) {
        kernels::WeightMatrix m = first;
        if (cold) m.data = all.get() + c * matrix_bytes;
        return m;
    };
    std::mt19937 random(321);
    std::normal_distribution<float> value(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(batch * cols)), y(static_cast<size_t>(batch * rows));
    for (float& v : x)
        v = value(random);
    std::vector<std::byte> scratch(kernels::matmul_scratch_bytes(type, cols, batch));
    kernels::matmul(matrix(0), x.data(), batch, y.data(), pool, scratch); // warm the pool
    double microseconds[3] = {};
    for (double& us : microseconds) {
        const size_t calls = cold ? copies : 200;
        const auto start = Clock::now();
        for (size_t i = 0; i < calls; ++i)
            kernels::matmul(matrix(i % copies), x.data(), batch, y.data(), pool, scratch);
        us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
             static_cast<double>(calls);
    }
    const double arithmetic_us = 2.0 * rows * cols * static_cast<double>(batch) / (gflops * 1e9) * 1e6;
    const double read_us = cold ? static_cast<double>(matrix_bytes) / (bandwidth_gbps * 1e9) * 1e6 : 0.0;
    return std::max(0.0, median_of(microseconds) - std::max(arithmetic_us, read_us));
}

// The active tier's SwiGLU and GELU kernels on every thread at once, each over rows of gate values
// as wide as an FFN's, the best of 3 rounds: G values per CPU second, summed over the threads.
// Each pass works on the last one's results, which shrink towards 0 but stay normal floats.
void measure_activation_rates(int threads, MachineLimits& limits) {
    const kernels::KernelTable& table = kernels::active_kernels();
    const kernels::SwigluFn swiglu = table.swiglu.fn();
    const kernels::GeluFn gelu = table.gelu.fn();
    constexpr int64_t kRow = 8192;
    constexpr int64_t kRows = 8; // 256 KiB of gate values per thread, and as many of up
    constexpr int kPasses = 8;
    const auto rate_of = [&](bool gated_silu) {
        double best = 0;
        for (int round = 0; round < 3; ++round) {
            std::atomic<double> rate{0};
            on_threads(threads, [&](int, int) {
                std::vector<float> gate(static_cast<size_t>(kRow * kRows)), up(gate.size(), 1.0f);
                for (size_t i = 0; i < gate.size(); ++i)
                    gate[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 12.0f; // -4 to 4
                const double start = thread_cpu_seconds();
                for (int pass = 0; pass < kPasses; ++pass)
                    for (int64_t r = 0; r < kRows; ++r) {
                        float* row = gate.data() + r * kRow;
                        if (gated_silu)
                            swiglu(row, up.data() + r * kRow, kRow);
                        else
                            gelu(row, kRow);
                    }
                add_to(rate, static_cast<double>(kPasses * kRows * kRow) /
                                 std::max(1e-9, thread_cpu_seconds() - start) / 1e9);
            });
            best = std::max(best, rate.load());
        }
        return best;
    };
    limits.swiglu_gvalues = rate_of(true);
    limits.gelu_gvalues = rate_of(false);
}

// One job on every thread of the pool, start to end, averaged over many: what each step of a
// layer costs beyond its arithmetic.
double measure_pool_job_microseconds(kernels::ThreadPool& pool) {
    std::atomic<int64_t> sink{0};
    const int jobs = 2000;
    for (int i = 0; i < 100; ++i) // wake the workers
        pool.for_each(pool.size(), [&](int64_t index) { sink.fetch_add(index, std::memory_order_relaxed); });
    const auto start = Clock::now();
    for (int i = 0; i < jobs; ++i)
        pool.for_each(pool.size(), [&](int64_t index) { sink.fetch_add(index, std::memory_order_relaxed); });
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / jobs;
}

} // namespace

double MachineLimits::gemm_gflops(kernels::TensorType type, int64_t batch) const {
    const GemmRate* below = nullptr; // the largest measured batch <= batch
    const GemmRate* above = nullptr; // the smallest measured batch >= batch
    for (const GemmRate& r : gemm_rates) {
        if (r.type != type || r.gflops <= 0) continue;
        if (r.batch <= batch && (!below || r.batch > below->batch)) below = &r;
        if (r.batch >= batch && (!above || r.batch < above->batch)) above = &r;
    }
    if (!below && !above) return 0;
    if (!below) return above->gflops;
    if (!above || above->batch == below->batch) return below->gflops;
    const double t = std::log(static_cast<double>(batch) / static_cast<double>(below->batch)) /
                     std::log(static_cast<double>(above->batch) / static_cast<double>(below->batch));
    return below->gflops + t * (above->gflops - below->gflops);
}

bool MachineLimits::matches(std::string_view cpu, std::string_view tier, int thread_count) const {
    return cpu_name == cpu && isa == tier && threads == thread_count;
}

MachineLimits measure_machine_limits(int threads, const LimitsToMeasure& what) {
    const auto stop_if_cancelled = [&] {
        if (what.cancelled && what.cancelled->load(std::memory_order_relaxed))
            throw Error("the measurement of this computer's limits was cancelled");
    };
    MachineLimits limits;
    limits.cpu_name = cpu_model_name();
    limits.isa = std::string(kernels::isa_name(kernels::active_kernels().isa));
    limits.threads = std::max(1, threads);
    stop_if_cancelled();
    measure_bandwidth_and_peaks(limits.threads, what.bandwidth_bytes, limits);
    stop_if_cancelled();
    kernels::ThreadPool pool(limits.threads);
    limits.pool_job_microseconds = measure_pool_job_microseconds(pool);
    stop_if_cancelled();
    measure_activation_rates(limits.threads, limits);
    if (what.gemm_rates) {
        for (kernels::TensorType type : kWeightTypes) {
            stop_if_cancelled();
            measure_gemm_rates(type, pool, limits.gemm_rates);
        }
        stop_if_cancelled();
        const auto q8_0 = [&](int64_t batch) { return limits.gemm_gflops(kernels::TensorType::Q8_0, batch); };
        limits.product_overhead_microseconds =
            measure_product_overhead_microseconds(pool, 64, q8_0(64), false, limits.bandwidth_gbps);
        stop_if_cancelled();
        limits.decode_product_overhead_microseconds =
            measure_product_overhead_microseconds(pool, 1, q8_0(1), true, limits.bandwidth_gbps);
    }
    return limits;
}

MachineLimits cached_machine_limits(const std::string& path, int threads, bool remeasure,
                                    const std::atomic<bool>* cancelled) {
    const std::string cpu = cpu_model_name();
    const std::string isa(kernels::isa_name(kernels::active_kernels().isa));
    std::vector<MachineLimits> stored;
    if (std::ifstream in(path, std::ios::binary); in) {
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        try {
            stored = machine_limits_from_json(text, path);
        } catch (const Error&) {
            stored.clear(); // damaged: measured again and written over
        }
    }
    const auto same = [&](const MachineLimits& m) { return m.matches(cpu, isa, threads); };
    if (!remeasure)
        if (auto it = std::find_if(stored.begin(), stored.end(), same); it != stored.end()) return *it;
    MachineLimits limits = measure_machine_limits(threads, {.cancelled = cancelled});
    std::erase_if(stored, same);
    stored.push_back(limits);
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
    const std::string temporary = path + "." + std::to_string(::getpid()) + ".tmp"; // one per writer
    if (std::ofstream out(temporary, std::ios::binary | std::ios::trunc); out) {
        out << machine_limits_to_json(stored);
        out.close();
        if (out) std::filesystem::rename(temporary, path, ignored);
    }
    return limits;
}

std::string cpu_model_name() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (!line.starts_with("model name")) continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) break;
        std::string name = line.substr(colon + 1);
        const size_t first = name.find_first_not_of(" \t");
        return first == std::string::npos ? "unknown CPU" : name.substr(first);
    }
    return "unknown CPU";
}

std::string machine_limits_to_json(const std::vector<MachineLimits>& measurements) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const MachineLimits& m : measurements) {
        nlohmann::ordered_json rates = nlohmann::ordered_json::array();
        for (const GemmRate& r : m.gemm_rates)
            rates.push_back({{"type", std::string(kernels::type_traits(r.type).name)},
                             {"batch", r.batch},
                             {"gflops", r.gflops}});
        list.push_back({{"cpu", m.cpu_name},
                        {"isa", m.isa},
                        {"threads", m.threads},
                        {"bandwidth_gbps", m.bandwidth_gbps},
                        {"fma_peak_gflops", m.peak_gflops},
                        {"int8_peak_gops", m.int8_peak_gops},
                        {"int8_instruction", m.int8_instruction},
                        {"tile_int8_peak_gops", m.tile_int8_peak_gops},
                        {"tile_bf16_peak_gflops", m.tile_bf16_peak_gflops},
                        {"pool_job_microseconds", m.pool_job_microseconds},
                        {"product_overhead_microseconds", m.product_overhead_microseconds},
                        {"decode_product_overhead_microseconds", m.decode_product_overhead_microseconds},
                        {"swiglu_gvalues", m.swiglu_gvalues},
                        {"gelu_gvalues", m.gelu_gvalues},
                        {"gemm_rates", rates}});
    }
    return nlohmann::ordered_json{{"version", kMachineLimitsVersion}, {"measurements", list}}.dump(2) + "\n";
}

std::vector<MachineLimits> machine_limits_from_json(std::string_view json, const std::string& source) {
    std::vector<MachineLimits> result;
    try {
        const nlohmann::json document = nlohmann::json::parse(json);
        if (document.value("version", 0) != kMachineLimitsVersion)
            throw Error(source + ": not a version " + std::to_string(kMachineLimitsVersion) +
                        " list of machine limits");
        for (const nlohmann::json& m : document.at("measurements")) {
            MachineLimits limits;
            limits.cpu_name = m.at("cpu").get<std::string>();
            limits.isa = m.at("isa").get<std::string>();
            limits.threads = m.at("threads").get<int>();
            limits.bandwidth_gbps = m.at("bandwidth_gbps").get<double>();
            limits.peak_gflops = m.at("fma_peak_gflops").get<double>();
            limits.int8_peak_gops = m.value("int8_peak_gops", 0.0);
            limits.int8_instruction = m.value("int8_instruction", std::string());
            limits.tile_int8_peak_gops = m.value("tile_int8_peak_gops", 0.0);
            limits.tile_bf16_peak_gflops = m.value("tile_bf16_peak_gflops", 0.0);
            limits.pool_job_microseconds = m.at("pool_job_microseconds").get<double>();
            limits.product_overhead_microseconds = m.value("product_overhead_microseconds", 0.0);
            limits.decode_product_overhead_microseconds =
                m.value("decode_product_overhead_microseconds", 0.0);
            limits.swiglu_gvalues = m.value("swiglu_gvalues", 0.0);
            limits.gelu_gvalues = m.value("gelu_gvalues", 0.0);
            for (const nlohmann::json& r : m.at("gemm_rates")) {
                const std::string type_name = r.at("type").get<std::string>();
                const std::optional<kernels::TensorType> type = kernels::type_from_name(type_name);
                if (!type) throw Error(source + ": unknown weight type '" + type_name + "' in gemm_rates");
                limits.gemm_rates.push_back(
                    {*type, r.at("batch").get<int64_t>(), r.at("gflops").get<double>()});
            }
            if (limits.threads < 1 || !(limits.bandwidth_gbps > 0))
                throw Error(source + ": a measurement without threads or bandwidth");
            result.push_back(std::move(limits));
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(source + ": not a list of machine limits (" + e.what() + ")");
    }
    return result;
}

} // namespace hearth::engine
