// hearth-cli logits: the full logit vector at every position of a given token sequence, the
// sequence evaluated in one pass as a prompt. It is how the engine's accuracy is judged against
// exact math (../shared/testdata/reference) from outside the process. With --mmproj, the
// sequence is a prompt with an image in it (engine/vision/image_prompt.h) and the logits are
// those after its last position and after each token given with --append.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "app/cli/print_floats.h"
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/image_prompt.h"
#include "engine/vision/vision_projector.h"
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace hearth::cli {
namespace {

// "1 403 407" -> {1, 403, 407}; every word must be a whole decimal integer. Vocabulary bounds
// are checked once the model is loaded.
std::vector<int64_t> parse_token_ids(const std::string& text, const char* option = "--tokens") {
    std::vector<int64_t> ids;
    std::istringstream words(text);
    std::string word;
    while (words >> word) {
        int64_t id = 0;
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), id);
        if (error == std::errc::result_out_of_range)
            throw ArgError(std::string(option) + ": token id " + word + " is outside the vocabulary");
        if (error != std::errc() || end != word.data() + word.size())
            throw ArgError(std::string(option) + ": '" + word + "' is not an integer token id");
        ids.push_back(id);
    }
    if (ids.empty()) throw ArgError(std::string(option) + " is empty: give at least one token id");
    return ids;
}

std::vector<int32_t> checked_against_vocabulary(const std::vector<int64_t>& ids, int32_t n_vocab,
                                                const std::string& model_path,
                                                const char* option = "--tokens") {
    std::vector<int32_t> tokens;
    tokens.reserve(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= n_vocab)
            throw ArgError(std::string(option) + ": token id " + std::to_string(ids[i]) + " (position " +
                           std::to_string(i) + ") is outside the vocabulary of " + model_path + " (0.." +
                           std::to_string(n_vocab - 1) + ")");
        tokens.push_back(static_cast<int32_t>(ids[i]));
    }
    return tokens;
}

// The image form: the prompt with its image, then the --append tokens.
int run_image_logits(const Args& args) {
    const std::string path = args.required("-m", "--model");
    const std::string mmproj = args.required("--mmproj");
    const std::string image_path = args.required("--image");
    const std::string text = args.required("--prompt");
    if (args.has("--tokens") || args.has("--from"))
        throw ArgError("--tokens and --from do not go with --mmproj: give --prompt and --append");
    const std::vector<int64_t> appended_ids =
        args.has("--append") ? parse_token_ids(*args.value("--append"), "--append") : std::vector<int64_t>{};

    engine::InferenceOptions options = inference_options(args);
    auto model = engine::Model::load(path);
    const int32_t n_vocab = model->hparams().n_vocab;
    const std::vector<int32_t> appended = checked_against_vocabulary(appended_ids, n_vocab, path, "--append");
    auto projector = vision::load_vision_projector(mmproj, {.n_threads = options.n_threads,
                                                            .device = options.device,
                                                            .text_n_embd = model->hparams().n_embd,
                                                            .text_model_path = path});
    const vision::ImagePrompt prompt = vision::layout_image_prompt(model->tokenizer(), text, *projector);
    // The image is one batch; without -b, the text goes in batches as large.
    if (!args.has("-b") && !args.has("--batch"))
        options.n_batch =
            std::max({options.n_batch, prompt.n_image_positions,
                      static_cast<int32_t>(std::max(prompt.before.size(), prompt.after.size()))});
    std::vector<float> embeddings(static_cast<size_t>(projector->n_image_tokens()) * projector->n_embd());
    projector->encode(projector->canvas(vision::decode_image_file(image_path)), embeddings.data());

    engine::Inference inference(model, options);
    report_device("logits", inference);
    report_tower_device("logits", *projector);
    auto cache = inference.new_cache(prompt.n_positions() + static_cast<int32_t>(appended.size()));
    const std::span<const float> last = vision::eval_image_prompt(inference, *cache, prompt, embeddings);
    std::string line;
    print_float_row(last.data(), n_vocab, line);
    if (!appended.empty()) {
        std::vector<float> logits;
        inference.eval(*cache, appended, &logits);
        for (size_t i = 0; i < appended.size(); ++i)
            print_float_row(logits.data() + i * static_cast<size_t>(n_vocab), n_vocab, line);
    }
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

int run_logits(const std::vector<std::string>& argv) {
    Args args(argv,
              model_value_options({"--tokens", "--from", "--mmproj", "--image", "--prompt", "--append"}), {});
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
    if (args.has("--mmproj")) return run_image_logits(args);
    const std::string path = args.required("-m", "--model");
    const std::vector<int64_t> ids = parse_token_ids(args.required("--tokens"));
    if (!args.has("--from")) throw ArgError("missing required option --from");
    const int from = args.get_int("--from", 0);
    if (from < 0 || static_cast<size_t>(from) >= ids.size())
        throw ArgError("--from " + std::to_string(from) + " is not a position of the " +
                       std::to_string(ids.size()) + " tokens (0.." + std::to_string(ids.size() - 1) + ")");

    engine::InferenceOptions options = inference_options(args);
    // One forward pass over the whole sequence unless -b asks for smaller batches.
    if (!args.has("-b") && !args.has("--batch")) options.n_batch = static_cast<int32_t>(ids.size());

    auto model = engine::Model::load(path);
    const std::vector<int32_t> tokens = checked_against_vocabulary(ids, model->hparams().n_vocab, path);
    engine::Inference inference(model, options);
    report_device("logits", inference);
    auto cache = inference.new_cache(static_cast<int32_t>(tokens.size()));
    std::vector<float> logits;
    inference.eval(*cache, tokens, &logits);
    report_validation_errors("logits", inference);

    const int32_t n_vocab = inference.n_vocab();
    std::string line;
    for (size_t position = static_cast<size_t>(from); position < tokens.size(); ++position)
        print_float_row(logits.data() + position * static_cast<size_t>(n_vocab), n_vocab, line);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

} // namespace

HEARTH_CLI_COMMAND(
    "logits", run_logits,
    "logits -m MODEL --tokens \"ID ID ...\" --from N [-t T] [--isa TIER] [--cache-type-k|-v "
    "T] [--device cpu|vulkan|vulkan:N] [-ngl N]   the logits after "
    "each token from position N on, one line each, evaluated in one pass; or logits -m MODEL "
    "--mmproj MMPROJ --image IMG --prompt \"TEXT with <__media__>\" [--append \"ID ...\"] [-t T] "
    "[--isa TIER]   the logits after the prompt with its image, then after each appended token");

} // namespace hearth::cli
