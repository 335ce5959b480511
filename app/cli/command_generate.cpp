// hearth-cli generate: a prompt in, a stream of sampled text (or token ids) out.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/sampling/sampler.h"
#include <algorithm>
#include <chrono>
#include <cstdio>

namespace hearth::cli {
namespace {

int run_generate(const std::vector<std::string>& argv) {
    Args args(
        argv,
        model_value_options({"-p", "--prompt", "-n", "--n-predict", "-c", "--ctx-size", "--temp", "--top-k",
                             "--top-p", "--min-p", "--repeat-penalty", "--repeat-last-n", "--seed"}),
        {"--ids", "--no-bos"});
    const std::string path = args.required("-m", "--model");
    const std::string prompt = args.required("-p", "--prompt");
    const int n_predict = args.get_int("-n", args.get_int("--n-predict", 128));

    engine::SamplingParams sampling;
    sampling.temperature = static_cast<float>(args.get_double("--temp", sampling.temperature));
    sampling.top_k = args.get_int("--top-k", sampling.top_k);
    sampling.top_p = static_cast<float>(args.get_double("--top-p", sampling.top_p));
    sampling.min_p = static_cast<float>(args.get_double("--min-p", sampling.min_p));
    sampling.repeat_penalty =
        static_cast<float>(args.get_double("--repeat-penalty", sampling.repeat_penalty));
    sampling.repeat_last_n = args.get_int("--repeat-last-n", sampling.repeat_last_n);
    if (auto seed = args.value("--seed")) sampling.seed = std::stoull(*seed);
    const bool print_ids = args.has("--ids");

    const engine::InferenceOptions options = inference_options(args);
    auto model = engine::Model::load(path);
    const auto& tokenizer = model->tokenizer();
    std::vector<int32_t> tokens =
        tokenizer.encode(prompt, !args.has("--no-bos") && tokenizer.add_bos_by_default(), true);
    if (tokens.empty()) throw Error("the prompt tokenizes to nothing and the model adds no BOS token");

    const int32_t n_ctx =
        std::min<int32_t>(model->hparams().n_ctx_train, args.get_int("-c", args.get_int("--ctx-size", 4096)));
    if (static_cast<int32_t>(tokens.size()) >= n_ctx)
        throw Error("the prompt has " + std::to_string(tokens.size()) + " tokens, more than the context of " +
                    std::to_string(n_ctx));
    engine::Inference inference(model, options);
    report_device("generate", inference);
    auto cache = inference.new_cache(n_ctx);
    engine::Sampler sampler(sampling, inference.n_vocab());
    tokenizer::IncrementalDecoder decoder(tokenizer);

    using Clock = std::chrono::steady_clock;
    const auto prompt_start = Clock::now();
    const size_t n_prompt = tokens.size();
    std::span<const float> logits = inference.eval(*cache, tokens);
    const auto decode_start = Clock::now();
    int generated = 0;
    bool first = true;
    for (int i = 0; i < n_predict; ++i) {
        // Damaged weights can overflow at some token only: nothing is drawn from NaN.
        if (!engine::all_finite(logits))
            throw Error("the model computed NaN or infinite values after " + std::to_string(generated) +
                        " generated tokens: its weights are damaged");
        const int32_t next = sampler.sample(logits, tokens);
        if (tokenizer.is_end_of_generation(next)) break;
        tokens.push_back(next);
        ++generated;
        if (print_ids) {
            std::printf(first ? "%d" : " %d", next);
        } else {
            const std::string piece = decoder.push(next);
            std::fwrite(piece.data(), 1, piece.size(), stdout);
        }
        std::fflush(stdout);
        first = false;
        if (cache->size() >= cache->capacity()) {
            std::fprintf(stderr, "\nhearth-cli generate: stopped at the context length %d\n", n_ctx);
            break;
        }
        logits = inference.eval(*cache, std::span<const int32_t>(&tokens.back(), 1));
    }
    if (print_ids)
        std::printf("\n");
    else {
        const std::string rest = decoder.flush();
        std::fwrite(rest.data(), 1, rest.size(), stdout);
    }
    std::fflush(stdout);
    report_validation_errors("generate", inference);
    // Timings on stderr, as llama.cpp prints them; generation counts from the first sample to
    // the last token, sampling and output included (what the app's tokens/s counts too).
    const auto seconds = [](Clock::time_point from, Clock::time_point to) {
        return std::chrono::duration<double>(to - from).count();
    };
    const double prompt_s = seconds(prompt_start, decode_start),
                 decode_s = seconds(decode_start, Clock::now());
    std::fprintf(stderr,
                 "hearth-cli generate: prompt %zu tokens in %.1f ms (%.2f tok/s), generated %d tokens in "
                 "%.1f ms (%.2f tok/s)\n",
                 n_prompt, prompt_s * 1000, n_prompt / prompt_s, generated, decode_s * 1000,
                 decode_s > 0 ? generated / decode_s : 0.0);
    return kExitOk;
}

} // namespace
HEARTH_CLI_COMMAND(
    "generate", run_generate,
    "generate -m MODEL -p PROMPT -n N [--temp T --top-k K --top-p P --min-p M --repeat-penalty R "
    "--seed S] [--ids] [-c CTX] [-t THREADS] [--isa scalar|avx2|avxvnni|avx512|amx] "
    "[--cache-type-k|-v f16|q8_0|q4_0] [--device cpu|vulkan|vulkan:N] [-ngl N]");
} // namespace hearth::cli
