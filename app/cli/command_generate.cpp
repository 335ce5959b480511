// hearth-cli generate: a prompt in, a stream of sampled text (or token ids) out: the engine
// runtime's model and a chat session, continuing the prompt as written.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/generation_flags.h"
#include "app/cli/image_generation.h"
#include "app/cli/model_options.h"
#include "engine/error.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/session/chat_session.h"
#include <algorithm>
#include <cstdio>

namespace hearth::cli {
namespace {

int run_generate(const std::vector<std::string>& argv) {
    std::set<std::string> value_options = generation_value_options();
    value_options.merge(std::set<std::string>{"-p", "--prompt", "-n", "--n-predict", "-c", "--ctx-size",
                                              "--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty",
                                              "--repeat-last-n", "--seed", "--mmproj", "--image"});
    Args args(argv, model_value_options(std::move(value_options)), {"--ids", "--no-bos"});
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
    if (args.has("--mmproj") || args.has("--image"))
        return generate_with_image(args, sampling, n_predict, print_ids);

    // The prompt as written, one user message under a template that adds nothing: the chat
    // session's reply is the continuation, as the API's /v1/completions runs it.
    engine::GenerationOptions options;
    options.sampling = sampling;
    options.template_override = engine::kRawPromptTemplate;
    options.add_bos = !args.has("--no-bos");
    apply_generation_flags(args, options);
    const engine::ChatTurn prompt_turn{chat::Role::User, prompt};

    engine::EngineRuntime runtime;
    runtime.configure(runtime_config(args, 4096));
    runtime.load(path);
    report_device("generate", runtime.inference());
    const int n_ctx = runtime.context_length();
    engine::ChatSession session(runtime.inference(), n_ctx, runtime.metrics().get());
    const size_t n_prompt = session.prompt_tokens({&prompt_turn, 1}, options).size();
    if (n_prompt == 0) throw Error("the prompt tokenizes to nothing and the model adds no BOS token");
    if (static_cast<int>(n_prompt) >= n_ctx)
        throw Error("the prompt has " + std::to_string(n_prompt) + " tokens, more than the context of " +
                    std::to_string(n_ctx));
    // The continuation ends where the context is full rather than shifting it: the last token
    // drawn needs no room of its own. The session keeps room for a reply of up to a quarter of
    // the context, so a prompt longer than the rest stops a token before the last instead.
    const int room = n_ctx - static_cast<int>(n_prompt) + 1;
    const int context_bound = room <= n_ctx / 4 ? room - 1 : room;
    options.max_tokens = std::min(n_predict, context_bound);

    bool first = true;
    const auto print_id = [&](int32_t token) {
        std::printf(first ? "%d" : " %d", token);
        std::fflush(stdout);
        first = false;
    };
    const auto print_text = [](std::string_view piece) {
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
    };
    const engine::TurnStats stats =
        print_ids ? session.reply({&prompt_turn, 1}, options, nullptr, nullptr, print_id)
                  : session.reply({&prompt_turn, 1}, options, print_text);
    if (stats.stop_reason == engine::StopReason::Length && room <= n_predict &&
        stats.generated_tokens == context_bound)
        std::fprintf(stderr, "\nhearth-cli generate: stopped at the context length %d\n", n_ctx);
    if (print_ids) std::printf("\n");
    std::fflush(stdout);
    report_validation_errors("generate", runtime.inference());
    // Timings on stderr, as llama.cpp prints them; generation counts from the first sample to
    // the last token, sampling and output included (what the app's tokens/s counts too).
    std::fprintf(stderr,
                 "hearth-cli generate: prompt %d tokens in %.1f ms (%.2f tok/s), generated %d tokens in "
                 "%.1f ms (%.2f tok/s)\n",
                 stats.prompt_tokens, stats.prefill_seconds * 1000, stats.prefill_tokens_per_second(),
                 stats.generated_tokens, stats.decode_seconds * 1000, stats.decode_tokens_per_second());
    if (!stats.speculation_error.empty())
        std::fprintf(stderr, "hearth-cli generate: no speculative decoding: %s\n",
                     stats.speculation_error.c_str());
    else if (options.speculation.drafter != engine::SpeculationOptions::Drafter::Off)
        std::fprintf(stderr,
                     "hearth-cli generate: speculative decoding: %d of %d drafted tokens accepted in %d "
                     "verify passes\n",
                     stats.accepted_tokens, stats.drafted_tokens, stats.verify_passes);
    return kExitOk;
}

} // namespace
HEARTH_CLI_COMMAND(
    "generate", run_generate,
    "generate -m MODEL -p PROMPT -n N [--temp T --top-k K --top-p P --min-p M --repeat-penalty R "
    "--seed S] [--ids] [-c CTX] [-t THREADS] [--isa scalar|avx2|avxvnni|avx512|amx] "
    "[--cache-type-k|-v f16|q8_0|q4_0] [--device cpu|vulkan|vulkan:N] [-ngl N] [--lookup N | --draft MODEL] "
    "[--draft-max K] [--grammar FILE | --json-schema FILE] [--mmproj MMPROJ --image IMG (the prompt's "
    "<__media__> marks where the image goes; the image runs on the CPU)]");
} // namespace hearth::cli
