// bench_vulkan_ops: milliseconds per op of the Vulkan backend on the shapes of Qwen2.5-0.5B and
// Llama-3.2-1B: mat-vec (decode) and mat-mat (prefill) of their weight matrices, and attention
// of a prefill tile and of one decoded token over a long cache. Each op is recorded alone, run
// a few times, and reported as the GPU time of its dispatches (timestamps) and the wall time of
// the submit, the best of the runs. A benchmark, not a test: nothing is asserted.
//
//   bench_vulkan_ops [--device N] [--runs N] [--batch N] [--types q4_0,q8_0,...] [FILTER]
//
// FILTER keeps the cases whose name contains it ("matvec", "matmat", "attention", "4864", ...).
#include "kernels/kernel_table.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/tensor_type.h"
#include "kernels/vulkan/vulkan_context.h"
#include "kernels/vulkan/vulkan_devices.h"
#include "kernels/vulkan/vulkan_ops.h"
#include "tests/support/normal_data.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace hearth::kernels;
using namespace hearth::kernels::vulkan;
using hearth::test::normal_data;

namespace {

struct Options {
    int device = -1;
    int runs = 3;
    int64_t batch = 64;
    std::vector<TensorType> types = {TensorType::Q4_0, TensorType::Q8_0, TensorType::Q4_K, TensorType::F16};
    std::string filter;
};

struct Result {
    double gpu_ms = INFINITY, wall_ms = INFINITY;
};

// Records an op with `record` and runs it: a warm-up (pipelines are built on first use), then
// the best of `runs`.
Result measure(Context& context, int runs, const std::function<void(Recorder&)>& record) {
    Recorder recorder(context);
    Result best;
    for (int run = 0; run <= runs; ++run) {
        recorder.begin();
        record(recorder);
        const auto start = std::chrono::steady_clock::now();
        recorder.submit_and_wait();
        const double wall =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (run == 0) continue;
        uint64_t ns = 0;
        for (const OpTiming& t : recorder.timings())
            ns += t.ns;
        best.gpu_ms = std::min(best.gpu_ms, ns / 1e6);
        best.wall_ms = std::min(best.wall_ms, wall);
    }
    return best;
}

void report(const std::string& name, const Result& r, double bytes, double flops) {
    std::printf("%-44s gpu %9.3f ms  wall %9.3f ms  %8.2f GB/s  %8.2f GFLOP/s\n", name.c_str(), r.gpu_ms,
                r.wall_ms, bytes / (r.gpu_ms * 1e6), flops / (r.gpu_ms * 1e6));
    std::fflush(stdout);
}

// A rows x cols matrix of `type`: 16 rows quantized from normal data, repeated.
std::vector<uint8_t> make_weights(TensorType type, int64_t rows, int64_t cols) {
    const size_t row = row_bytes(type, cols);
    const int64_t distinct = std::min<int64_t>(rows, 16);
    const std::vector<float> source = normal_data(distinct * cols, 7, 0.0f);
    std::vector<uint8_t> bytes(row * static_cast<size_t>(rows));
    for (int64_t r = 0; r < distinct; ++r)
        reference_kernels().of(type).quantize.fn()(source.data() + r * cols, bytes.data() + r * row, cols);
    for (int64_t r = distinct; r < rows; ++r)
        std::memcpy(bytes.data() + r * row, bytes.data() + (r % distinct) * row, row);
    return bytes;
}

void bench_matmul(Context& context, const Options& o, int64_t rows, int64_t cols, int64_t batch) {
    for (TensorType type : o.types) {
        const TypeTraits traits = type_traits(type);
        if (cols % traits.block_elements != 0) continue;
        const std::string name = std::string(batch == 1 ? "matvec " : "matmat ") + std::to_string(rows) +
                                 "x" + std::to_string(cols) +
                                 (batch == 1 ? "" : " b" + std::to_string(batch)) + " " +
                                 std::string(traits.name);
        if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
        const std::vector<uint8_t> weights = make_weights(type, rows, cols);
        const std::vector<float> x = normal_data(batch * cols, 3, 0.0f);
        Buffer wb(context, weights.size()), xb(context, x.size() * 4), yb(context, batch * rows * 4);
        wb.upload(weights.data(), weights.size());
        xb.upload(x.data(), x.size() * 4);
        const DeviceMatrix w{type, rows, cols, {&wb, 0}};
        const Result r = measure(context, o.runs, [&](Recorder& rec) {
            rec.matmul(w, {&xb, 0}, batch, {&yb, 0});
        });
        report(name, r, static_cast<double>(weights.size() + x.size() * 4 + batch * rows * 4),
               2.0 * rows * cols * batch);
    }
}

void bench_attention(Context& context, const Options& o, int64_t n, int64_t n_keys, int64_t n_head,
                     int64_t n_head_kv, int64_t head_dim, TensorType cache_type) {
    const std::string name = "attention " + std::to_string(n) + "x" + std::to_string(n_keys) + " heads " +
                             std::to_string(n_head) + "/" + std::to_string(n_head_kv) + " d" +
                             std::to_string(head_dim) + " " + std::string(type_traits(cache_type).name);
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos) return;
    const int64_t n_ctx = n_keys, width = n_head_kv * head_dim;
    const std::vector<float> kv = normal_data(n_keys * width, 5, 0.0f);
    const std::vector<float> q = normal_data(n * n_head * head_dim, 6, 0.0f);
    const size_t part = static_cast<size_t>(n_head_kv * n_ctx) * row_bytes(cache_type, head_dim);
    Buffer keys(context, part), values(context, part), kb(context, kv.size() * 4), qb(context, q.size() * 4),
        ob(context, q.size() * 4);
    kb.upload(kv.data(), kv.size() * 4);
    qb.upload(q.data(), q.size() * 4);
    const DeviceKvLayer layer{{&keys, 0}, {&values, 0}, cache_type, cache_type, n_ctx, n_head_kv, head_dim};
    {
        Recorder fill(context);
        fill.begin();
        fill.store_kv({&kb, 0}, {&kb, 0}, n_keys, 0, layer);
        fill.submit_and_wait();
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    const Result r = measure(context, o.runs, [&](Recorder& rec) {
        rec.attention({&qb, 0}, n, n_keys - n, n_head, layer, scale, {}, false, {&ob, 0});
    });
    report(name, r, 2.0 * static_cast<double>(part) + 2.0 * q.size() * 4,
           4.0 * static_cast<double>(n * n_head * head_dim) * (n_keys - n / 2.0));
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--device" && has_value) {
            o.device = std::atoi(argv[++i]);
        } else if (arg == "--runs" && has_value) {
            o.runs = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--batch" && has_value) {
            o.batch = std::max(2, std::atoi(argv[++i]));
        } else if (arg == "--types" && has_value) {
            o.types.clear();
            std::string list = argv[++i];
            for (size_t start = 0; start <= list.size();) {
                const size_t end = std::min(list.find(',', start), list.size());
                const auto type = type_from_name(list.substr(start, end - start));
                if (!type || !vulkan_supports_weight_type(*type)) {
                    std::fprintf(stderr, "bench_vulkan_ops: unknown weight type '%s'\n",
                                 list.substr(start, end - start).c_str());
                    return false;
                }
                o.types.push_back(*type);
                start = end + 1;
            }
        } else if (!arg.empty() && arg[0] != '-' && o.filter.empty()) {
            o.filter = arg;
        } else {
            std::fprintf(stderr, "usage: bench_vulkan_ops [--device N] [--runs N] [--batch N] "
                                 "[--types q4_0,q8_0,...] [FILTER]\n");
            return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) return 2;
    try {
        ContextOptions options;
        options.device_index = o.device;
        Context context(options);
        std::printf("device: %s\n", describe(context.device()).c_str());
        // Qwen2.5-0.5B (hidden 896, FFN 4864) and Llama-3.2-1B (hidden 2048, FFN 8192).
        const int64_t shapes[][2] = {{896, 896}, {4864, 896}, {896, 4864}, {2048, 2048}, {8192, 2048}};
        for (const auto& s : shapes)
            bench_matmul(context, o, s[0], s[1], 1);
        for (const auto& s : shapes)
            bench_matmul(context, o, s[0], s[1], o.batch);
        // Qwen2.5-0.5B's attention: 14 heads on 2 KV heads of 64.
        for (TensorType cache : {TensorType::F16, TensorType::Q8_0}) {
            bench_attention(context, o, 64, 2048, 14, 2, 64, cache);
            bench_attention(context, o, 1, 2048, 14, 2, 64, cache);
        }
        // Llama-3.2-1B's: 32 heads on 8 KV heads of 64.
        bench_attention(context, o, 1, 2048, 32, 8, 64, TensorType::F16);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_vulkan_ops: %s\n", e.what());
        return 1;
    }
    return 0;
}
