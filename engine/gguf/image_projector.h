#pragma once
// Image projector files (llama.cpp's "mmproj"): GGUF files whose general.architecture is "clip".
// One holds the vision tower that lets a language model see images, and is no model of its own:
// the model picker leaves such files out, and loading one as a model says what it is.
#include "engine/gguf/gguf_file.h"
#include <string_view>

namespace hearth::gguf {

inline constexpr std::string_view kImageProjectorArchitecture = "clip";

inline bool is_image_projector(const GgufFile& file) {
    const auto architecture = file.get_string("general.architecture");
    return architecture && *architecture == kImageProjectorArchitecture;
}

} // namespace hearth::gguf
