// hearth-bench: whole-model throughput, measured like llama-bench.
//   pp<P>: prefill of P random tokens (in batches of -b), tokens/s.
//   tg<N>: N single-token decode steps, tokens/s.
// With -d DEPTH the context first holds DEPTH tokens (filled once, untimed; every repetition
// starts again from exactly those DEPTH tokens; each depth keeps a context of its own). The
// repetitions go round all the tests, one of each in turn, so that a drift of a shared machine
// over the run reaches every test and depth alike, and the ratio of a test at depth to the same
// test at depth 0 is not the drift's. In the same run the machine's streaming memory
// read bandwidth and FMA peak are measured with the same threads, so each result is also shown
// as a fraction of its physical limit: decode reads every weight once per token, prefill
// needs 2 FLOP per multiplied weight per token.
// With --lookup N or --draft MODEL (and --draft-max K), each tg<N> also runs as a greedy chat
// reply of up to N tokens to a fixed prompt, plainly and with speculative decoding, and reports
// both rates, the speed-up, the acceptance rate and the tokens each verify pass gave.
// With --mmproj MMPROJ (also without -m), the time an image projector takes to encode one picture
// (image_encode_bench.h).
#include "app/cli/generation_flags.h"
#include "engine/error.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/inference.h"
#include "engine/model/machine_limits.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "engine/session/draft_model.h"
#include "kernels/decode_prefetch.h"
#include "kernels/dispatch_metrics.h"
#include "kernels/isa_select.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_type.h"
#include "kernels/thread_pool.h"
#include "tests/bench/image_encode_bench.h"
#if defined(__x86_64__)
#include "kernels/x86_amx/amx_tiles.h"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using namespace hearth;
using Clock = std::chrono::steady_clock;

struct Options {
    std::vector<std::string> models;
    std::vector<int> threads{2};
    std::vector<int> prompt{512};
    std::vector<int> gen{128};
    std::vector<int> depth{0};
    int batch = 512;
    int repetitions = 5;
    std::string output = "md";
    std::string isa;      // empty: the best the CPU has
    bool profile = false; // print the dispatch metrics of each test on stderr
    bool metrics = true;  // --no-metrics turns the dispatch metrics off (to measure what they cost)
    engine::KvCacheTypes cache_types;       // --cache-type-k / --cache-type-v
    engine::ComputeDevice device;           // --device: the CPU, or a Vulkan device
    int n_gpu_layers = -1;                  // -ngl: the layers the device runs (-1: all that fit)
    engine::SpeculationOptions speculation; // --lookup / --draft / --draft-max (generation_flags.h)
    std::vector<std::string> mmproj;        // --mmproj: image projectors whose encoding is timed
};

[[noreturn]] void usage(const char* message) {
    if (message) std::fprintf(stderr, "hearth-bench: %s\n", message);
    std::fprintf(
        stderr,
        "usage: hearth-bench -m MODEL [-m MODEL...] [-t THREADS] [-p N_PROMPT] [-n N_GEN] [-d DEPTH]\n"
        "                    [-b BATCH] [-r REPETITIONS] [-o md|json|csv] [--isa "
        "scalar|avx2|avxvnni|avx512|amx] "
        "[--profile]\n"
        "                    [--no-metrics] [--cache-type-k f16|q8_0|q4_0] [--cache-type-v f16|q8_0|q4_0]\n"
        "                    [--device cpu|vulkan|vulkan:N] [-ngl N] [--lookup N | --draft MODEL] "
        "[--draft-max K]\n"
        "                    [--mmproj MMPROJ...]\n"
        "  -t, -p, -n and -d take comma-separated lists; -p 0 or -n 0 skips that test.\n"
        "  --mmproj times an image projector's encoding of one picture (-r runs, the first -t, --device),\n"
        "  with or without -m.\n"
        "  --profile prints, per test, the time each kernel operation took (dispatch metrics; on a\n"
        "  device, the GPU time of each operation in the test's last forward pass).\n"
        "  --device runs the first -ngl layers (-1: all that fit) on a Vulkan device (hearth-cli devices).\n"
        "  --no-metrics turns the dispatch metrics off (they are on in the app and by default).\n"
        "  --lookup N (prompt lookup of 1-4 tokens) or --draft MODEL (a draft model), --draft-max K (1-16):\n"
        "  each tg test also runs as a greedy reply to a fixed prompt, plain and speculative: tokens/s of\n"
        "  both, the speed-up, the acceptance rate and the tokens per verify pass.\n");
    std::exit(message ? 2 : 0);
}

std::vector<int> int_list(const std::string& text, const char* flag) {
    std::vector<int> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        char* end = nullptr;
        const long value = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || value < 0 || value > 1'000'000)
            usage((std::string(flag) + " expects non-negative integers, got '" + text + "'").c_str());
        values.push_back(static_cast<int>(value));
    }
    if (values.empty()) usage((std::string(flag) + " needs a value").c_str());
    return values;
}

Options parse(int argc, char** argv) {
    Options o;
    // The speculation flags are hearth-cli's (app/cli/generation_flags.h), read by its parser.
    const std::set<std::string> speculation_flags = cli::speculation_value_options();
    std::vector<std::string> speculation_args;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "-h" || flag == "--help") usage(nullptr);
        if (flag == "--profile") {
            o.profile = true;
            continue;
        }
        if (flag == "--no-metrics") {
            o.metrics = false;
            continue;
        }
        if (i + 1 >= argc) usage(("missing value after " + flag).c_str());
        const std::string value = argv[++i];
        if (speculation_flags.count(flag)) {
            speculation_args.insert(speculation_args.end(), {flag, value});
            continue;
        }
        if (flag == "-m" || flag == "--model")
            o.models.push_back(value);
        else if (flag == "--mmproj")
            o.mmproj.push_back(value);
        else if (flag == "-t" || flag == "--threads")
            o.threads = int_list(value, "-t");
        else if (flag == "-p" || flag == "--n-prompt")
            o.prompt = int_list(value, "-p");
        else if (flag == "-n" || flag == "--n-gen")
            o.gen = int_list(value, "-n");
        else if (flag == "-d" || flag == "--n-depth")
            o.depth = int_list(value, "-d");
        else if (flag == "-b" || flag == "--batch-size")
            o.batch = std::max(1, int_list(value, "-b").front());
        else if (flag == "-r" || flag == "--repetitions")
            o.repetitions = std::max(1, int_list(value, "-r").front());
        else if (flag == "-o" || flag == "--output")
            o.output = value;
        else if (flag == "--isa")
            o.isa = value;
        else if (flag == "--device") {
            const std::optional<engine::ComputeDevice> device = engine::compute_device_from_name(value);
            if (!device) usage(("--device expects cpu, vulkan or vulkan:N, got '" + value + "'").c_str());
            o.device = *device;
        } else if (flag == "-ngl" || flag == "--n-gpu-layers") {
            char* end = nullptr;
            const long layers = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || layers < -1 || layers > 1'000'000)
                usage(("-ngl expects a number of layers or -1, got '" + value + "'").c_str());
            o.n_gpu_layers = static_cast<int>(layers);
        } else if (flag == "--cache-type-k" || flag == "--cache-type-v") {
            const std::optional<kernels::TensorType> type = engine::kv_cache_type_from_name(value);
            if (!type) usage((flag + " expects f16, q8_0 or q4_0, got '" + value + "'").c_str());
            (flag == "--cache-type-k" ? o.cache_types.keys : o.cache_types.values) = *type;
        } else
            usage(("unknown option " + flag).c_str());
    }
    try {
        cli::apply_speculation_flags(cli::Args(speculation_args, speculation_flags, {}), o.speculation);
    } catch (const cli::ArgError& e) {
        usage(e.what());
    }
    if (o.models.empty() && o.mmproj.empty()) usage("-m MODEL (or --mmproj MMPROJ) is required");
    if (o.output != "md" && o.output != "json" && o.output != "csv") usage("-o expects md, json or csv");
    if (o.profile && !o.metrics)
        usage("--profile reads the dispatch metrics: it cannot go with --no-metrics");
    if (!o.isa.empty() && !kernels::isa_from_name(o.isa))
        usage("--isa expects scalar, avx2, avxvnni, avx512 or amx");
    if (!o.isa.empty() && !kernels::kernels_for(*kernels::isa_from_name(o.isa)))
        usage(("--isa " + o.isa + ": " + kernels::isa_unavailable_reason(*kernels::isa_from_name(o.isa)))
                  .c_str());
    for (int t : o.threads)
        if (t < 1) usage("-t expects at least one thread");
    return o;
}

// ---- Machine limits: engine/model/machine_limits.h -----------------------------------

using engine::MachineLimits;

// ---- The model ------------------------------------------------------------------------

struct ModelFacts {
    std::string name, type;
    int64_t file_bytes = 0;
    int64_t params = 0;                       // every tensor element
    int64_t matmul_params = 0;                // weights multiplied per token (layers and output)
    int64_t int8_matmul_params = 0;           // of which quantized: their kernels multiply int8 activations
    int64_t tile_matmul_params = 0;           // of which the AMX tier's int8 tiles multiply in prefill
    int64_t bf16_tile_matmul_params = 0;      // of which its BF16 tiles multiply in prefill batches of
                                              // kBf16TileMinBatch rows or more
    int64_t int8_only_tile_matmul_params = 0; // on int8 tiles without BF16 tiles (none today)
    int64_t decode_read_bytes = 0;            // weight bytes one decode step streams
};

ModelFacts facts_of(const engine::Model& model) {
    ModelFacts f;
    const engine::ModelInfo& info = model.info();
    f.name = info.name + " (" + info.architecture + ")";
    f.type = info.file_type.empty() ? info.quantization : info.file_type;
    f.file_bytes = info.file_bytes;
    f.params = info.parameters;
    const engine::ModelWeights& w = model.weights();
    auto add = [&](const kernels::WeightMatrix& m) {
        f.matmul_params += m.rows * m.cols;
        const kernels::KernelTable& active = kernels::active_kernels();
        const kernels::Candidates<kernels::GemmFn>& candidates = active.of(m.type).matmul;
        const auto* decode =
            candidates.pick({.batch = 1, .rows = m.rows, .width = m.cols, .layout = m.layout});
        if (decode != nullptr && decode->activation_type != kernels::TensorType::F32 &&
            m.type != kernels::TensorType::F16 && m.type != kernels::TensorType::BF16)
            f.int8_matmul_params += m.rows * m.cols;
        // The AMX tier's candidates that take this matrix in prefill: its int8 tile gemms (Q8_0)
        // and its BF16 tile gemms.
        bool bf16_tiles = false, int8_tiles = false;
        for (const auto& c : candidates) {
            if (c.backend != kernels::cpu(kernels::Isa::Amx) ||
                (c.guard.layout != kernels::RowLayout::RowMajor && c.guard.layout != m.layout))
                continue;
            (c.activation_type == kernels::TensorType::BF16 ? bf16_tiles : int8_tiles) = true;
        }
        if (bf16_tiles) f.bf16_tile_matmul_params += m.rows * m.cols;
        if (int8_tiles) {
            f.tile_matmul_params += m.rows * m.cols;
            if (!bf16_tiles) f.int8_only_tile_matmul_params += m.rows * m.cols;
        }
        f.decode_read_bytes += static_cast<int64_t>(kernels::row_bytes(m.type, m.cols)) * m.rows;
    };
    for (const auto& l : w.layers) {
        for (const auto* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            add(*m);
        // A mixture of experts multiplies the router and, per token, only the chosen experts:
        // the average expert, as many times as the model chooses.
        if (!l.experts.empty()) {
            add(l.router);
            const int used = model.hparams().n_expert_used;
            for (const auto* m : {&l.experts[0].w_gate, &l.experts[0].w_up, &l.experts[0].w_down})
                for (int j = 0; j < used; ++j)
                    add(*m);
        }
    }
    add(w.output);
    return f;
}

// ---- Tests ----------------------------------------------------------------------------

// CPU time of the whole process (every thread). On a machine shared with other work,
// tokens / (cpu seconds / threads) estimates what an idle machine would give.
double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct TestResult {
    std::string test; // "pp512", "tg128"
    int depth = 0;
    int n_prompt = 0, n_gen = 0;
    int threads = 0;
    std::vector<double> samples_ts;
    double mean = 0, stddev = 0;
    double cpu_share = 0;    // process CPU time / (wall time x threads), 1 on an idle machine
    double cpu_bound_ts = 0; // tokens / (CPU seconds / threads): the idle-machine estimate
    double fraction = 0;     // of the bandwidth (tg) or FMA peak (pp) limit
    double limit_ts = 0;     // the tokens/s that limit allows
    int tokens() const { return n_prompt > 0 ? n_prompt : n_gen; } // a repetition's
};

// "pp512", or "pp512 @ d2048" at a depth.
std::string label_of(const TestResult& r) {
    return r.test + (r.depth > 0 ? " @ d" + std::to_string(r.depth) : "");
}

// The GPU time of each operation in the last forward pass on the device (none on the CPU).
void print_device_profile(const engine::Inference& inference) {
    const engine::DeviceForward* device = inference.device_forward();
    if (!device) return;
    const engine::DeviceTraffic traffic = device->last_traffic();
    std::fprintf(stderr, "device profile of the last forward pass (%lld tokens, %llu bytes crossed):\n",
                 static_cast<long long>(traffic.tokens), static_cast<unsigned long long>(traffic.bytes()));
    for (const engine::DeviceOpTiming& t : device->timings())
        std::fprintf(stderr, "  %-16s %-26s %6llu dispatches %10.3f ms\n", t.name.c_str(),
                     std::string(kernels::kernel_name(t.kernel).name).c_str(),
                     static_cast<unsigned long long>(t.dispatches), static_cast<double>(t.ns) / 1e6);
}

// Where a test's time went, from the engine's dispatch metrics, per (operation, type, kernel).
void print_profile(const std::string& test, double wall_seconds) {
    namespace m = kernels::dispatch_metrics;
    m::Snapshot snap = m::snapshot();
    std::sort(snap.entries.begin(), snap.entries.end(),
              [](const m::Snapshot::Entry& a, const m::Snapshot::Entry& b) {
                  return std::tuple(a.op, static_cast<uint32_t>(a.type), a.kernel) <
                         std::tuple(b.op, static_cast<uint32_t>(b.type), b.kernel);
              });
    std::fprintf(stderr, "profile of %s (%.3f s of wall time):\n", test.c_str(), wall_seconds);
    for (const m::Snapshot::Entry& e : snap.entries) {
        const auto traits = kernels::type_traits(static_cast<uint32_t>(e.type));
        const kernels::KernelName kernel = kernels::kernel_name(e.kernel);
        std::fprintf(stderr, "  %-20s %-6s %-7s %-36s %8llu calls %9.3f s %5.1f%%\n",
                     std::string(m::op_name(e.op)).c_str(), traits ? std::string(traits->name).c_str() : "?",
                     std::string(kernels::backend_name(kernel.backend)).c_str(),
                     std::string(kernel.name).c_str(), static_cast<unsigned long long>(e.cell.calls),
                     static_cast<double>(e.cell.total_ns) / 1e9,
                     100.0 * static_cast<double>(e.cell.total_ns) / 1e9 / wall_seconds);
    }
}

void summarize(TestResult& r) {
    const double n = static_cast<double>(r.samples_ts.size());
    double sum = 0;
    for (double v : r.samples_ts)
        sum += v;
    r.mean = sum / n;
    double sq = 0;
    for (double v : r.samples_ts)
        sq += (v - r.mean) * (v - r.mean);
    r.stddev = r.samples_ts.size() > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
}

class Runner {
public:
    Runner(std::shared_ptr<const engine::Model> model, int threads, int batch, int n_ctx, const Options& o)
        : inference_(model, inference_options(threads, batch, n_ctx, o)), n_ctx_(n_ctx), rng_(1234),
          vocab_(model->hparams().n_vocab) {
        set_depth(0);
    }

    static engine::InferenceOptions inference_options(int threads, int batch, int n_ctx, const Options& o) {
        engine::InferenceOptions options{threads, batch, o.cache_types};
        options.device = o.device;
        options.n_gpu_layers = o.n_gpu_layers;
        options.device_context = n_ctx;
        return options;
    }

    // Makes the context of `depth` current, at exactly `depth` tokens. Each depth has a context
    // of its own, filled once (the tokens already there are kept and every repetition cuts back
    // to them), so that tests at different depths can take turns without filling again.
    void set_depth(int depth) {
        std::unique_ptr<engine::KvCache>& cache = caches_[depth];
        if (!cache) cache = inference_.new_cache(n_ctx_);
        cache_ = cache.get();
        if (cache_->size() < depth) inference_.eval(*cache_, random_tokens(depth - cache_->size()));
        cache_->truncate(depth);
    }

    double prompt_seconds(int n_prompt) {
        const std::vector<int32_t> tokens = random_tokens(n_prompt);
        const auto start = Clock::now();
        inference_.eval(*cache_, tokens);
        return std::chrono::duration<double>(Clock::now() - start).count();
    }

    double generation_seconds(int n_gen) {
        int32_t token = random_tokens(1).front();
        const auto start = Clock::now();
        for (int i = 0; i < n_gen; ++i) {
            std::span<const float> logits = inference_.eval(*cache_, std::span<const int32_t>(&token, 1));
            token = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        }
        return std::chrono::duration<double>(Clock::now() - start).count();
    }

    // A greedy chat reply of up to n_gen tokens to kSpeculationPrompt, in a session of its own
    // (its prompt reused from the last time), with `speculation` or plainly: its figures.
    engine::TurnStats reply_stats(int n_gen, const engine::SpeculationOptions& speculation) {
        const int32_t n_ctx = std::min(inference_.position_limit(), 1024 + n_gen); // the prompt is shorter
        if (!session_ || session_->cache().capacity() < n_ctx)
            session_ = std::make_unique<engine::ChatSession>(inference_, n_ctx);
        engine::GenerationOptions options;
        options.sampling.temperature = 0; // greedy: the speculative reply is the plain one
        options.max_tokens = n_gen;
        options.end_at_full_context = true;
        options.template_override = engine::kRawPromptTemplate;
        options.speculation = speculation;
        const engine::ChatTurn turn{chat::Role::User, kSpeculationPrompt};
        return session_->reply(std::span<const engine::ChatTurn>(&turn, 1), options, {});
    }

    const engine::KvCache& cache() const { return *cache_; }
    const engine::Inference& inference() const { return inference_; }

    // Text that repeats itself, as edited code and quoted replies do: what prompt lookup finds.
    static constexpr const char* kSpeculationPrompt =
        "def area(width, height):\n    return width * height\n\n"
        "def perimeter(width, height):\n    return 2 * (width + height)\n\n"
        "def volume(width, height, depth):\n    return width * height * depth\n\n"
        "Once upon a time there was a little girl. Once upon a time there was a little boy. "
        "Rewrite the functions above with type hints:\n\ndef area(";

private:
    std::vector<int32_t> random_tokens(int n) {
        std::uniform_int_distribution<int32_t> pick(0, vocab_ - 1);
        std::vector<int32_t> tokens(static_cast<size_t>(n));
        for (int32_t& t : tokens)
            t = pick(rng_);
        return tokens;
    }
    engine::Inference inference_;
    int n_ctx_;
    std::map<int, std::unique_ptr<engine::KvCache>> caches_; // by depth
    engine::KvCache* cache_ = nullptr;                       // the current depth's
    std::mt19937 rng_;
    int32_t vocab_;
    std::unique_ptr<engine::ChatSession> session_; // reply_stats'; refers to inference_
};

// ---- Output ---------------------------------------------------------------------------

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else
            out += c;
    }
    return out + "\"";
}

struct Context {
    ModelFacts model;
    std::string isa;
    MachineLimits limits;
    std::string device; // "CPU", or the Vulkan device and its layers
};

void print_json(const Context& c, const TestResult& r) {
    std::string samples;
    for (double v : r.samples_ts)
        samples += (samples.empty() ? "" : ",") + std::to_string(v);
    std::printf(
        "{\"test\":%s,\"depth\":%d,\"tokens_per_second\":%.3f,\"stddev\":%.3f,\"samples_ts\":[%s],"
        "\"n_prompt\":%d,\"n_gen\":%d,\"n_threads\":%d,\"isa\":%s,\"model\":%s,\"model_type\":%s,"
        "\"model_size\":%lld,\"model_n_params\":%lld,\"matmul_params\":%lld,\"decode_read_bytes\":%lld,"
        "\"bandwidth_gbps\":%.2f,\"fma_peak_gflops\":%.2f,\"limit_tokens_per_second\":%.2f,"
        "\"fraction_of_limit\":%.4f,\"cpu_share\":%.3f,\"cpu_time_tokens_per_second\":%.3f,"
        "\"int8_peak_gops\":%.2f,\"int8_matmul_params\":%lld,\"device\":%s}\n",
        json_string(r.test).c_str(), r.depth, r.mean, r.stddev, samples.c_str(), r.n_prompt, r.n_gen,
        r.threads, json_string(c.isa).c_str(), json_string(c.model.name).c_str(),
        json_string(c.model.type).c_str(), static_cast<long long>(c.model.file_bytes),
        static_cast<long long>(c.model.params), static_cast<long long>(c.model.matmul_params),
        static_cast<long long>(c.model.decode_read_bytes), c.limits.bandwidth_gbps, c.limits.peak_gflops,
        r.limit_ts, r.fraction, r.cpu_share, r.cpu_bound_ts, c.limits.int8_peak_gops,
        static_cast<long long>(c.model.int8_matmul_params), json_string(c.device).c_str());
}

void print_csv_header() {
    std::printf(
        "model,model_type,model_size,model_n_params,n_threads,isa,test,depth,tokens_per_second,stddev,"
        "bandwidth_gbps,fma_peak_gflops,limit_tokens_per_second,fraction_of_limit,cpu_share,cpu_time_tokens_"
        "per_second,int8_peak_gops,device\n");
}

void print_csv(const Context& c, const TestResult& r) {
    std::printf("%s,%s,%lld,%lld,%d,%s,%s,%d,%.3f,%.3f,%.2f,%.2f,%.2f,%.4f,%.3f,%.3f,%.2f,%s\n",
                json_string(c.model.name).c_str(), c.model.type.c_str(),
                static_cast<long long>(c.model.file_bytes), static_cast<long long>(c.model.params), r.threads,
                c.isa.c_str(), r.test.c_str(), r.depth, r.mean, r.stddev, c.limits.bandwidth_gbps,
                c.limits.peak_gflops, r.limit_ts, r.fraction, r.cpu_share, r.cpu_bound_ts,
                c.limits.int8_peak_gops, json_string(c.device).c_str());
}

void print_md_header(const Context& c, int threads, const engine::KvCache& cache,
                     const engine::Inference& inference) {
    std::printf("\nmodel: %s, %s, %.2f MiB, %.3f B params (%.3f B multiplied), decode reads %.1f MiB/token\n",
                c.model.name.c_str(), c.model.type.c_str(),
                static_cast<double>(c.model.file_bytes) / (1 << 20),
                static_cast<double>(c.model.params) / 1e9, static_cast<double>(c.model.matmul_params) / 1e9,
                static_cast<double>(c.model.decode_read_bytes) / (1 << 20));
    std::printf(
        "machine (%d threads): memory read %.1f GB/s, FP32 FMA peak %.1f GFLOP/s, int8 peak %.1f GOP/s "
        "(%s); ISA path %s\n",
        threads, c.limits.bandwidth_gbps, c.limits.peak_gflops, c.limits.int8_peak_gops,
        c.limits.int8_instruction.empty() ? "none" : c.limits.int8_instruction.c_str(), c.isa.c_str());
    if (c.limits.tile_int8_peak_gops > 0)
        std::printf("AMX int8 peak %.1f GOP/s (tdpbssd), BF16 peak %.1f GFLOP/s (tdpbf16ps): the prefill "
                    "limits of the types on tiles (BF16 from %lld prompt rows per batch)\n",
                    c.limits.tile_int8_peak_gops, c.limits.tile_bf16_peak_gflops,
                    static_cast<long long>(kernels::kBf16TileMinBatch));
    // The cache's real size, by the types it holds.
    std::printf("KV cache: keys %s, values %s, %.2f MiB for %d positions (%.1f KiB per token)\n\n",
                std::string(kernels::type_traits(cache.type(engine::KvCache::Part::Keys)).name).c_str(),
                std::string(kernels::type_traits(cache.type(engine::KvCache::Part::Values)).name).c_str(),
                static_cast<double>(cache.bytes()) / (1 << 20), cache.capacity(),
                static_cast<double>(cache.bytes()) / cache.capacity() / 1024);
    if (const engine::DeviceForward* device = inference.device_forward()) {
        const engine::GpuDeviceInfo& d = device->device();
        std::printf("device: %s (%s, %s %s, %.0f MiB); weights on it %.2f MiB; per decoded token %llu bytes "
                    "cross between host and device\n\n",
                    c.device.c_str(), d.type.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
                    static_cast<double>(d.device_local_bytes) / (1 << 20),
                    static_cast<double>(device->weight_bytes()) / (1 << 20),
                    static_cast<unsigned long long>(device->bytes_per_decoded_token()));
    }
    std::printf(
        "| model | type | threads | isa | test | t/s | limit t/s | of limit | cpu share | t/s per cpu |\n");
    std::printf("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
}

void print_md(const Context& c, const TestResult& r) {
    const std::string test = label_of(r);
    std::printf("| %s | %s | %d | %s | %s | %.2f ± %.2f | %.1f | %.1f%% | %.0f%% | %.2f |\n",
                c.model.name.c_str(), c.model.type.c_str(), r.threads, c.isa.c_str(), test.c_str(), r.mean,
                r.stddev, r.limit_ts, 100.0 * r.fraction, 100.0 * r.cpu_share, r.cpu_bound_ts);
    std::fflush(stdout);
}

// ---- Speculative decoding --------------------------------------------------------------

// One tg test's greedy replies, plain and speculative, over the repetitions.
struct SpeculationResult {
    int n_gen = 0;
    std::vector<double> plain_ts, speculative_ts;
    int64_t verify_passes = 0, drafted = 0, accepted = 0; // speculative, summed
};

double mean_of(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v)
        sum += x;
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

void print_speculation(const Options& o, const Context& c, int threads, const SpeculationResult& r) {
    const double plain = mean_of(r.plain_ts), speculative = mean_of(r.speculative_ts);
    const double acceptance =
        r.drafted > 0 ? static_cast<double>(r.accepted) / static_cast<double>(r.drafted) : 0;
    const double per_pass = r.verify_passes > 0 ? static_cast<double>(r.accepted + r.verify_passes) /
                                                      static_cast<double>(r.verify_passes)
                                                : 0;
    const double speedup = plain > 0 ? speculative / plain : 0;
    // The first speculative reply pays for the draft model's first reading of the prompt; the
    // later ones are a conversation's following replies (the draft's cache and record kept).
    const double first_speedup =
        r.plain_ts.empty() || r.plain_ts[0] <= 0 ? 0 : r.speculative_ts[0] / r.plain_ts[0];
    const std::string drafter = cli::describe_speculation(o.speculation);
    if (o.output == "json") {
        std::printf("{\"test\":%s,\"speculation\":%s,\"n_gen\":%d,\"n_threads\":%d,\"model\":%s,"
                    "\"plain_tokens_per_second\":%.3f,\"tokens_per_second\":%.3f,\"speedup\":%.4f,"
                    "\"verify_passes\":%lld,\"drafted\":%lld,\"accepted\":%lld,\"acceptance_rate\":%.4f,"
                    "\"tokens_per_verify_pass\":%.4f,\"first_reply_speedup\":%.4f}\n",
                    json_string("tg" + std::to_string(r.n_gen) + "+spec").c_str(),
                    json_string(drafter).c_str(), r.n_gen, threads, json_string(c.model.name).c_str(), plain,
                    speculative, speedup, static_cast<long long>(r.verify_passes),
                    static_cast<long long>(r.drafted), static_cast<long long>(r.accepted), acceptance,
                    per_pass, first_speedup);
        std::fflush(stdout);
        return;
    }
    // md (and csv, whose columns are the tests': these lines go to stderr there)
    std::FILE* out = o.output == "csv" ? stderr : stdout;
    std::fprintf(out,
                 "tg%d speculative (%s; greedy reply to a fixed prompt): %.2f t/s against %.2f t/s plain, "
                 "speed-up %.2fx; acceptance %.1f%% (%lld of %lld drafted), %.2f tokens per verify pass; "
                 "first reply %.2fx\n",
                 r.n_gen, drafter.c_str(), speculative, plain, speedup, 100.0 * acceptance,
                 static_cast<long long>(r.accepted), static_cast<long long>(r.drafted), per_pass,
                 first_speedup);
    std::fflush(out);
}

SpeculationResult measure_speculation(const Options& o, const engine::SpeculationOptions& speculation,
                                      Runner& runner, int n_gen) {
    SpeculationResult r;
    r.n_gen = n_gen;
    runner.reply_stats(n_gen, {}); // warm-up: the prompt's prefill, the session's buffers
    for (int rep = 0; rep < o.repetitions; ++rep) {
        const engine::TurnStats plain = runner.reply_stats(n_gen, {});
        const engine::TurnStats speculative = runner.reply_stats(n_gen, speculation);
        if (!speculative.speculation_error.empty()) throw Error(speculative.speculation_error);
        r.plain_ts.push_back(plain.decode_tokens_per_second());
        r.speculative_ts.push_back(speculative.decode_tokens_per_second());
        r.verify_passes += speculative.verify_passes;
        r.drafted += speculative.drafted_tokens;
        r.accepted += speculative.accepted_tokens;
    }
    return r;
}

int run(const Options& o) {
    if (!o.isa.empty()) kernels::force_isa(*kernels::isa_from_name(o.isa));
    const std::string isa(kernels::isa_name(kernels::active_kernels().isa));

    if (o.output == "csv") print_csv_header();
    for (const std::string& path : o.models) {
        auto model = engine::Model::load(path);
        Context c{facts_of(*model), isa, {}, "CPU"};
        // A draft model is loaded and checked against this model before any test runs: one that
        // cannot draft is an error naming both files.
        engine::SpeculationOptions speculation = o.speculation;
        if (speculation.drafter == engine::SpeculationOptions::Drafter::DraftModel) {
            try {
                speculation.draft_model = engine::Model::load(speculation.draft_model_path);
            } catch (const Error& e) {
                throw Error("the draft model cannot be loaded: " + std::string(e.what()));
            }
            engine::check_draft_model(*speculation.draft_model, *model);
        }
        const int max_depth = *std::max_element(o.depth.begin(), o.depth.end());
        const int max_test = std::max(*std::max_element(o.prompt.begin(), o.prompt.end()),
                                      *std::max_element(o.gen.begin(), o.gen.end()));
        const int n_ctx = max_depth + std::max(max_test, 64) + 1; // room for the warm-up too
        for (int threads : o.threads) {
            c.limits = engine::measure_machine_limits(threads, {.gemm_rates = false});
            Runner runner(model, threads, o.batch, n_ctx, o);
            c.device = runner.inference().device_summary();
            if (o.output == "md") print_md_header(c, threads, runner.cache(), runner.inference());
            // Warm-up: page in the weights and let the threads and caches settle.
            runner.set_depth(0);
            runner.prompt_seconds(std::min(o.batch, 32));
            runner.set_depth(0);
            runner.generation_seconds(2);

            auto emit = [&](TestResult& r) {
                summarize(r);
                if (r.test.rfind("tg", 0) == 0) {
                    r.limit_ts =
                        c.limits.bandwidth_gbps * 1e9 / static_cast<double>(c.model.decode_read_bytes);
                } else {
                    // Each weight is one multiply-add per token: those on AMX tiles at TDPBF16PS's
                    // peak (batches of kBf16TileMinBatch rows or more) or TDPBSSD's, other int8
                    // ones at the tier's int8 peak, the rest at the FMA peak.
                    const bool tiles = c.limits.tile_int8_peak_gops > 0;
                    const bool bf16_tiles =
                        tiles && std::min(r.n_prompt, o.batch) >= kernels::kBf16TileMinBatch;
                    const double bf16_tile_ops =
                        bf16_tiles ? 2.0 * static_cast<double>(c.model.bf16_tile_matmul_params) : 0;
                    // On int8 tiles: a batch too short for BF16 tiles, or a type without them.
                    const double int8_tile_ops =
                        !tiles ? 0
                               : 2.0 * static_cast<double>(bf16_tiles ? c.model.int8_only_tile_matmul_params
                                                                      : c.model.tile_matmul_params);
                    const double int8_ops =
                        2.0 * static_cast<double>(c.model.int8_matmul_params) - int8_tile_ops - bf16_tile_ops;
                    const double float_ops =
                        2.0 * static_cast<double>(c.model.matmul_params - c.model.int8_matmul_params);
                    const double seconds_per_token =
                        (bf16_tiles ? bf16_tile_ops / (c.limits.tile_bf16_peak_gflops * 1e9) : 0) +
                        (tiles ? int8_tile_ops / (c.limits.tile_int8_peak_gops * 1e9) : 0) +
                        (c.limits.int8_peak_gops > 0 ? int8_ops / (c.limits.int8_peak_gops * 1e9)
                                                     : int8_ops / (c.limits.peak_gflops * 1e9)) +
                        float_ops / (c.limits.peak_gflops * 1e9);
                    r.limit_ts = seconds_per_token > 0 ? 1.0 / seconds_per_token : 0;
                }
                r.fraction = r.limit_ts > 0 ? r.mean / r.limit_ts : 0;
                if (o.output == "json")
                    print_json(c, r);
                else if (o.output == "csv")
                    print_csv(c, r);
                else
                    print_md(c, r);
                std::fflush(stdout);
            };
            // The tests in the order they are printed: by depth, prefill before decode.
            std::vector<TestResult> tests;
            const auto add_test = [&](const char* kind, int depth, int n_prompt, int n_gen) {
                TestResult r;
                r.depth = depth;
                r.n_prompt = n_prompt;
                r.n_gen = n_gen;
                r.threads = threads;
                r.test = kind + std::to_string(r.tokens());
                if (r.tokens() > 0) tests.push_back(std::move(r));
            };
            for (int depth : o.depth) {
                for (int p : o.prompt)
                    add_test("pp", depth, p, 0);
                for (int n : o.gen)
                    add_test("tg", depth, 0, n);
            }
            std::vector<double> wall(tests.size()), cpu(tests.size());
            for (int rep = 0; rep < o.repetitions; ++rep)
                for (size_t i = 0; i < tests.size(); ++i) {
                    TestResult& r = tests[i];
                    runner.set_depth(r.depth);
                    kernels::dispatch_metrics::reset();
                    const double cpu_start = process_cpu_seconds();
                    const double seconds = r.n_prompt > 0 ? runner.prompt_seconds(r.n_prompt)
                                                          : runner.generation_seconds(r.n_gen);
                    cpu[i] += process_cpu_seconds() - cpu_start;
                    wall[i] += seconds;
                    r.samples_ts.push_back(r.tokens() / seconds);
                    if (o.profile && rep == o.repetitions - 1) {
                        print_profile(label_of(r), seconds);
                        print_device_profile(runner.inference());
                    }
                }
            for (size_t i = 0; i < tests.size(); ++i) {
                TestResult& r = tests[i];
                r.cpu_share = cpu[i] / (wall[i] * threads);
                r.cpu_bound_ts = r.tokens() * o.repetitions / (cpu[i] / threads);
                emit(r);
            }
            if (o.speculation.drafter != engine::SpeculationOptions::Drafter::Off) {
                if (o.output == "md") std::printf("\n");
                for (int n : o.gen)
                    if (n > 0)
                        print_speculation(o, c, threads, measure_speculation(o, speculation, runner, n));
            }
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse(argc, argv);
        hearth::kernels::dispatch_metrics::set_enabled(options.metrics);
        const int status = options.models.empty() ? 0 : run(options);
        if (status != 0) return status;
        if (!options.isa.empty()) hearth::kernels::force_isa(*hearth::kernels::isa_from_name(options.isa));
        for (const std::string& mmproj : options.mmproj)
            hearth::bench::bench_image_encode(mmproj, options.threads.front(), options.device,
                                              options.repetitions);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hearth-bench: %s\n", e.what());
        return 1;
    }
}
