// hearth-cli predict -m MODEL: how fast the model will run here, predicted from its shape and
// types and this machine's measured limits (engine/model/speed_prediction.h), without loading it.
// Three lines: "decode <tok/s>", "prefill <tok/s>" (a 512-token prompt), "memory <MiB>" (weights
// and the KV cache of the context). The limits are measured on the first run for this CPU, tier
// and thread count, in a few seconds, and kept in $XDG_CACHE_HOME/hearth/machine-limits.json;
// --remeasure measures again.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/machine_limits.h"
#include "engine/model/memory_check.h"
#include "engine/model/model.h"
#include "engine/model/speed_prediction.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace hearth::cli {
namespace {

constexpr int32_t kPromptTokens = 512;
constexpr int32_t kDefaultContext = 4096; // InferenceOptions::device_context, the catalog's estimate

std::string limits_cache_path() {
    const char* cache = std::getenv("XDG_CACHE_HOME");
    if (cache && *cache) return std::string(cache) + "/hearth/machine-limits.json";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : ".") + "/.cache/hearth/machine-limits.json";
}

int run_predict(const std::vector<std::string>& argv) {
    Args args(argv, model_value_options({"-c", "--ctx-size"}), {"--remeasure"});
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
    const std::string path = args.required("-m", "--model");
    const engine::InferenceOptions options = inference_options(args); // applies --isa
    const int32_t n_ctx = args.get_int("-c", args.get_int("--ctx-size", kDefaultContext));
    if (n_ctx < 1) throw ArgError("option -c expects a context of at least one token");
    const int threads = options.n_threads > 0
                            ? options.n_threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    const auto file = gguf::GgufFile::open(path);
    const engine::ModelInfo info = engine::Model::read_info(*file);
    const engine::ModelCost cost = engine::model_cost(*file);
    const engine::MachineLimits limits =
        engine::cached_machine_limits(limits_cache_path(), threads, args.has("--remeasure"));
    engine::PredictionOptions prediction;
    prediction.prompt_tokens = kPromptTokens;
    prediction.context_tokens = kPromptTokens; // decode right after such a prompt
    prediction.prompt_batch = options.n_batch;
    const engine::SpeedPrediction speed = engine::predict_speed(cost, limits, prediction);
    const engine::MemoryNeed need =
        engine::memory_need(info, n_ctx, options.cache_types.keys, options.cache_types.values);
    std::printf("decode %.1f\n", speed.decode_tokens_per_second);
    std::printf("prefill %.1f\n", speed.prefill_tokens_per_second);
    std::printf("memory %lld\n", static_cast<long long>((need.total() + (1 << 20) - 1) >> 20));
    return kExitOk;
}

} // namespace

HEARTH_CLI_COMMAND("predict", run_predict,
                   "predict -m MODEL [-t THREADS] [--isa TIER] [-c CONTEXT] [-b BATCH] [--cache-type-k T] "
                   "[--cache-type-v T] [--remeasure]: predicted decode and prefill (512-token prompt) tok/s, "
                   "and memory in MiB");

} // namespace hearth::cli
