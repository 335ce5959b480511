#pragma once
// What this machine can do at most, measured with the kernels' own ways of working: the streaming
// read bandwidth decode lives on, the peaks of the active tier's instructions, the rate of the
// active tier's matmul per weight type at a prefill's batch, the rate of its SwiGLU and GELU
// kernels, and the cost of one job on the thread pool. Rates are work over the CPU time of the threads that
// did it, so that a machine busy with other work while it is measured still gives its idle limits.
// hearth-bench shows its results against them; the speed prediction (speed_prediction.h) is made from them.
// Measured in a few seconds, stored as JSON with the CPU's name so that a measurement is not taken for
// another machine's.
#include "kernels/tensor_type.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::engine {

// The matmul rate of one weight type: 2 x rows x cols x batch operations per second.
struct GemmRate {
    kernels::TensorType type = kernels::TensorType::F32;
    int64_t batch = 0; // activation rows per call
    double gflops = 0;
};

// The batches the gemm rates are measured at: a prompt's batches (the engine's default is 64 rows,
// hearth-bench's 512), and the few rows an expert of a mixture sees of one: one row runs decode's
// kernel, two or more the prefill kernels, which may cost a repacked matrix's unpacking per call.
inline constexpr int64_t kGemmRateBatches[] = {1, 2, 4, 16, 64, 512};

struct MachineLimits {
    std::string cpu_name; // /proc/cpuinfo's "model name"
    std::string isa;      // the kernel tier measured ("avx2", "amx", ...)
    int threads = 0;
    double bandwidth_gbps = 0; // streaming read, the median of several passes
    double peak_gflops = 0;    // FP32 FMA
    double int8_peak_gops = 0; // the active tier's int8 dot product (0: the scalar tier)
    std::string int8_instruction;
    double tile_int8_peak_gops = 0;   // the AMX tier's TDPBSSD (0: other tiers)
    double tile_bf16_peak_gflops = 0; // the AMX tier's TDPBF16PS (0: other tiers)
    double pool_job_microseconds = 0; // one ThreadPool::for_each over every thread, start to end
    // What a product costs beyond its arithmetic at the measured rate (its rows' quantization,
    // setup, uneven ends), from a small Q8_0 product: of a prompt pass's 64 rows, and of decode's
    // one (0: not measured).
    double product_overhead_microseconds = 0;
    double decode_product_overhead_microseconds = 0;
    // The active tier's SwiGLU (gate = silu(gate) * up) and GELU kernels over an FFN's rows, in
    // G values per second over every thread (0: not measured).
    double swiglu_gvalues = 0;
    double gelu_gvalues = 0;
    std::vector<GemmRate> gemm_rates; // the active tier's matmul, per weight type and batch

    // The rate of `type`'s matmul at `batch` rows, between the measured batches on a log scale;
    // 0 when the type was not measured.
    double gemm_gflops(kernels::TensorType type, int64_t batch) const;
    // Whether this measurement was taken on this CPU, with this tier and thread count.
    bool matches(std::string_view cpu, std::string_view tier, int thread_count) const;
};

struct LimitsToMeasure {
    bool gemm_rates = true;                   // the matmul rate of every weight type
    size_t bandwidth_bytes = size_t(1) << 30; // far beyond the caches, so every pass reads DRAM
    // Checked between measurements: once set, the measurement ends with an error (an app that
    // quits does not wait seconds for it).
    const std::atomic<bool>* cancelled = nullptr;
};

// Measures with `threads` threads on the active kernel tier; throws hearth::Error when the
// bandwidth buffer cannot be allocated, and when `what.cancelled` is set.
MachineLimits measure_machine_limits(int threads, const LimitsToMeasure& what = {});

// The CPU's name as /proc/cpuinfo gives it; "unknown CPU" when it cannot be read.
std::string cpu_model_name();

// A list of measurements as JSON (one per CPU, tier and thread count), and back; parsing throws
// hearth::Error naming `source` and the problem.
std::string machine_limits_to_json(const std::vector<MachineLimits>& measurements);
std::vector<MachineLimits> machine_limits_from_json(std::string_view json, const std::string& source);

// The measurement for this CPU, the active tier and `threads` from the JSON file at `path`, or, when
// it has none (or `remeasure`), a new one, written back to the file beside the others (through a
// temporary file renamed over it). A file that cannot be read is measured over; one that cannot
// be written leaves the measurement unstored, as does a cancelled one (which throws).
MachineLimits cached_machine_limits(const std::string& path, int threads, bool remeasure,
                                    const std::atomic<bool>* cancelled = nullptr);

} // namespace hearth::engine
