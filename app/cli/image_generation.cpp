#include "app/cli/image_generation.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "engine/error.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/image_prompt.h"
#include "engine/vision/vision_projector.h"
#include <algorithm>
#include <chrono>
#include <cstdio>

namespace hearth::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int generate_with_image(const Args& args, const engine::SamplingParams& sampling, int n_predict,
                        bool print_ids) {
    const std::string path = args.required("-m", "--model");
    const std::string mmproj = args.required("--mmproj");
    const std::string image_path = args.required("--image");
    std::string text = args.required("-p", "--prompt");
    if (text.find(vision::kImageMarker) == std::string::npos) text = std::string(vision::kImageMarker) + text;
    if (args.has("--lookup") || args.has("--draft") || args.has("--grammar") || args.has("--json-schema"))
        throw ArgError("speculation and grammars are not available with an image");

    engine::InferenceOptions options = inference_options(args);
    auto model = engine::Model::load(path);
    auto projector = vision::load_vision_projector(mmproj, {.n_threads = options.n_threads,
                                                            .device = options.device,
                                                            .text_n_embd = model->hparams().n_embd,
                                                            .text_model_path = path});
    const vision::ImagePrompt prompt = vision::layout_image_prompt(model->tokenizer(), text, *projector);
    options.n_batch = std::max(options.n_batch, prompt.n_image_positions);
    const int n_ctx =
        args.get_int("-c", args.get_int("--ctx-size", prompt.n_positions() + std::max(n_predict, 0)));
    if (prompt.n_positions() >= n_ctx)
        throw Error("the prompt has " + std::to_string(prompt.n_positions()) +
                    " positions, more than the context of " + std::to_string(n_ctx));

    report_tower_device("generate", *projector);
    const auto encode_start = std::chrono::steady_clock::now();
    std::vector<float> embeddings(static_cast<size_t>(projector->n_image_tokens()) * projector->n_embd());
    projector->encode(projector->canvas(vision::decode_image_file(image_path)), embeddings.data());
    const double encode_seconds = seconds_since(encode_start);

    engine::Inference inference(model, options);
    report_device("generate", inference);
    auto cache = inference.new_cache(n_ctx);
    const auto prefill_start = std::chrono::steady_clock::now();
    std::span<const float> logits = vision::eval_image_prompt(inference, *cache, prompt, embeddings);
    const double prefill_seconds = seconds_since(prefill_start);

    const tokenizer::Tokenizer& tokenizer = model->tokenizer();
    engine::Sampler sampler(sampling, inference.n_vocab());
    tokenizer::IncrementalDecoder decoder(tokenizer);
    std::vector<int32_t> history = prompt.before;
    history.insert(history.end(), prompt.after.begin(), prompt.after.end());
    const int most = std::min(n_predict, n_ctx - prompt.n_positions());
    history.reserve(history.size() + static_cast<size_t>(std::max(most, 0)));
    const auto decode_start = std::chrono::steady_clock::now();
    int generated = 0;
    while (generated < most) {
        const int32_t token = sampler.sample(logits, history);
        if (tokenizer.is_end_of_generation(token) || token == tokenizer.eos_id()) break;
        history.push_back(token);
        ++generated;
        if (print_ids) {
            std::printf(generated == 1 ? "%d" : " %d", token);
        } else {
            const std::string piece = decoder.push(token);
            std::fwrite(piece.data(), 1, piece.size(), stdout);
        }
        std::fflush(stdout);
        if (generated < most) logits = inference.eval(*cache, std::span(&token, 1));
    }
    if (print_ids) {
        std::printf("\n");
    } else {
        const std::string rest = decoder.flush();
        std::fwrite(rest.data(), 1, rest.size(), stdout);
    }
    std::fflush(stdout);
    const double decode_seconds = seconds_since(decode_start);
    std::fprintf(
        stderr,
        "hearth-cli generate: image of %d positions encoded in %.1f ms, prompt %d positions in %.1f ms, "
        "generated %d tokens in %.1f ms (%.2f tok/s)\n",
        prompt.n_image_positions, encode_seconds * 1000, prompt.n_positions(), prefill_seconds * 1000,
        generated, decode_seconds * 1000, decode_seconds > 0 ? generated / decode_seconds : 0.0);
    return kExitOk;
}

} // namespace hearth::cli
