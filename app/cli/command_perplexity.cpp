// hearth-cli perplexity: llama.cpp's protocol. The text is tokenized whole with BOS,
// cut into non-overlapping chunks of CTX tokens whose first token becomes BOS; each
// chunk runs from an empty cache and the predictions of its second half are scored.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace hearth::cli {
namespace {

int run_perplexity(const std::vector<std::string>& argv) {
    Args args(argv, model_value_options({"-f", "--file", "-c", "--ctx-size"}), {});
    const std::string path = args.required("-m", "--model");
    const std::string text_path = args.required("-f", "--file");
    const int n_ctx = args.get_int("-c", args.get_int("--ctx-size", 512));
    if (n_ctx < 4) throw ArgError("-c must be at least 4");

    std::ifstream in(text_path, std::ios::binary);
    if (!in) throw Error(text_path + ": cannot open the text file");
    std::ostringstream text;
    text << in.rdbuf();

    auto model = engine::Model::load(path);
    const auto& tokenizer = model->tokenizer();
    std::vector<int32_t> tokens = tokenizer.encode(text.str(), true, false);
    const size_t n_chunks = tokens.size() / static_cast<size_t>(n_ctx);
    if (n_chunks == 0)
        throw Error(text_path + ": " + std::to_string(tokens.size()) + " tokens, fewer than one chunk of " +
                    std::to_string(n_ctx));

    engine::InferenceOptions options = inference_options(args);
    engine::Inference inference(model, options);
    report_device("perplexity", inference);
    auto cache = inference.new_cache(n_ctx);
    const int32_t n_vocab = inference.n_vocab();
    const int first_scored = n_ctx / 2;
    std::vector<float> logits;
    double nll = 0;
    size_t scored = 0;
    for (size_t c = 0; c < n_chunks; ++c) {
        std::vector<int32_t> chunk(tokens.begin() + static_cast<std::ptrdiff_t>(c * n_ctx),
                                   tokens.begin() + static_cast<std::ptrdiff_t>((c + 1) * n_ctx));
        if (tokenizer.bos_id() >= 0) chunk[0] = tokenizer.bos_id();
        cache->truncate(0);
        inference.eval(*cache, chunk, &logits);
        for (int i = first_scored; i < n_ctx - 1; ++i) {
            const float* row = logits.data() + static_cast<size_t>(i) * n_vocab;
            float max_logit = row[0];
            for (int32_t v = 1; v < n_vocab; ++v)
                max_logit = std::max(max_logit, row[v]);
            double sum = 0;
            for (int32_t v = 0; v < n_vocab; ++v)
                sum += std::exp(static_cast<double>(row[v]) - max_logit);
            const int32_t target = tokens[c * n_ctx + static_cast<size_t>(i) + 1];
            nll += -(row[target] - max_logit - std::log(sum));
            ++scored;
        }
        std::fprintf(stderr, "[%zu] %.4f\n", c + 1, std::exp(nll / static_cast<double>(scored)));
    }
    report_validation_errors("perplexity", inference);
    std::printf("PPL = %.4f\n", std::exp(nll / static_cast<double>(scored)));
    return kExitOk;
}

} // namespace
HEARTH_CLI_COMMAND("perplexity", run_perplexity,
                   "perplexity -m MODEL -f FILE -c CTX [-t THREADS] [--isa scalar|avx2|avxvnni|avx512|amx] "
                   "[--cache-type-k|-v f16|q8_0|q4_0] [--device cpu|vulkan|vulkan:N] [-ngl N]");
} // namespace hearth::cli
