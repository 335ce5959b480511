// hearth-cli logits: the full logit vector at every position of a given token sequence, the
// sequence evaluated in one pass as a prompt. It is how the engine's accuracy is judged against
// exact math (../shared/testdata/reference) from outside the process.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include <charconv>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace hearth::cli {
namespace {

// "1 403 407" -> {1, 403, 407}; every word must be a whole decimal integer. Vocabulary bounds
// are checked once the model is loaded.
std::vector<int64_t> parse_token_ids(const std::string& text) {
    std::vector<int64_t> ids;
    std::istringstream words(text);
    std::string word;
    while (words >> word) {
        int64_t id = 0;
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), id);
        if (error == std::errc::result_out_of_range)
            throw ArgError("--tokens: token id " + word + " is outside the vocabulary");
        if (error != std::errc() || end != word.data() + word.size())
            throw ArgError("--tokens: '" + word + "' is not an integer token id");
        ids.push_back(id);
    }
    if (ids.empty()) throw ArgError("--tokens is empty: give at least one token id");
    return ids;
}

std::vector<int32_t> checked_against_vocabulary(const std::vector<int64_t>& ids, int32_t n_vocab,
                                                const std::string& model_path) {
    std::vector<int32_t> tokens;
    tokens.reserve(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= n_vocab)
            throw ArgError("--tokens: token id " + std::to_string(ids[i]) + " (position " +
                           std::to_string(i) + ") is outside the vocabulary of " + model_path + " (0.." +
                           std::to_string(n_vocab - 1) + ")");
        tokens.push_back(static_cast<int32_t>(ids[i]));
    }
    return tokens;
}

// One line of n_vocab values, "%.9g" (enough digits to give back every float exactly).
void print_row(const float* row, int32_t n_vocab, std::string& line) {
    line.clear();
    char number[32];
    for (int32_t v = 0; v < n_vocab; ++v) {
        const int length = std::snprintf(number, sizeof number, "%.9g", static_cast<double>(row[v]));
        if (v > 0) line += ' ';
        line.append(number, static_cast<size_t>(length));
    }
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
}

int run_logits(const std::vector<std::string>& argv) {
    Args args(argv, model_value_options({"--tokens", "--from"}), {});
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
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
        print_row(logits.data() + position * static_cast<size_t>(n_vocab), n_vocab, line);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

} // namespace

HEARTH_CLI_COMMAND("logits", run_logits,
                   "logits -m MODEL --tokens \"ID ID ...\" --from N [-t T] [--isa TIER] [--cache-type-k|-v "
                   "T] [--device cpu|vulkan|vulkan:N] [-ngl N]   the logits after "
                   "each token from position N on, one line each, evaluated in one pass");

} // namespace hearth::cli
