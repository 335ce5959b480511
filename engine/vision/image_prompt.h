#pragma once
// A prompt with an image in it: the text holds the marker "<__media__>" once, and becomes
// BOS (when the vocabulary adds one), the tokens of the text before the marker, of the family's
// image-start text, the image's positions, of its image-end text, and of the text after. Each
// text piece is tokenized on its own (a SentencePiece vocabulary gives each its space prefix;
// an empty piece gives nothing), with special tokens parsed.
#include "engine/forward/inference.h"
#include "engine/forward/kv_cache.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/vision/vision_projector.h"
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace hearth::vision {

inline constexpr std::string_view kImageMarker = "<__media__>";

struct ImagePrompt {
    std::vector<int32_t> before; // BOS, the text before the marker, the image-start text
    int32_t n_image_positions = 0;
    std::vector<int32_t> after; // the image-end text, the text after the marker
    int32_t first_image_position() const { return static_cast<int32_t>(before.size()); }
    int32_t n_positions() const {
        return static_cast<int32_t>(before.size() + after.size()) + n_image_positions;
    }
};

// Throws hearth::Error when the marker is not in the text exactly once.
ImagePrompt layout_image_prompt(const tokenizer::Tokenizer& tokenizer, std::string_view text,
                                const VisionProjector& projector);

// Appends the prompt to the cache (the text before, the image as one batch, the text after) and
// returns the logits after its last position. image_embeddings: (n_image_positions, n_embd).
std::span<const float> eval_image_prompt(engine::Inference& inference, engine::KvCache& cache,
                                         const ImagePrompt& prompt, std::span<const float> image_embeddings);

} // namespace hearth::vision
