#include "engine/vision/image_prompt.h"
#include "engine/error.h"

namespace hearth::vision {
namespace {

void append_piece(const tokenizer::Tokenizer& tokenizer, std::string_view text, std::vector<int32_t>& out) {
    if (text.empty()) return;
    const std::vector<int32_t> ids = tokenizer.encode(text, false, true);
    out.insert(out.end(), ids.begin(), ids.end());
}

} // namespace

ImagePrompt layout_image_prompt(const tokenizer::Tokenizer& tokenizer, std::string_view text,
                                const VisionProjector& projector) {
    const size_t marker = text.find(kImageMarker);
    if (marker == std::string_view::npos)
        throw Error("the prompt has no image marker " + std::string(kImageMarker) + " to put the image at");
    if (text.find(kImageMarker, marker + 1) != std::string_view::npos)
        throw Error("the prompt has the image marker " + std::string(kImageMarker) +
                    " more than once; it takes one image");
    ImagePrompt prompt;
    if (tokenizer.add_bos_by_default() && tokenizer.bos_id() >= 0)
        prompt.before.push_back(tokenizer.bos_id());
    append_piece(tokenizer, text.substr(0, marker), prompt.before);
    append_piece(tokenizer, projector.image_start_text(), prompt.before);
    prompt.n_image_positions = projector.n_image_tokens();
    append_piece(tokenizer, projector.image_end_text(), prompt.after);
    append_piece(tokenizer, text.substr(marker + kImageMarker.size()), prompt.after);
    return prompt;
}

std::span<const float> eval_image_prompt(engine::Inference& inference, engine::KvCache& cache,
                                         const ImagePrompt& prompt, std::span<const float> image_embeddings) {
    if (!prompt.before.empty()) inference.eval(cache, prompt.before);
    std::span<const float> logits = inference.eval_image(cache, image_embeddings, prompt.n_image_positions);
    if (!prompt.after.empty()) logits = inference.eval(cache, prompt.after);
    return logits;
}

} // namespace hearth::vision
