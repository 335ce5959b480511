#pragma once
// Writes a multimodal projector (mmproj) with random weights and the exact layout of a real one,
// for timing image encoding without a download: Gemma 3's SigLIP tower and projector
// ("gemma3": 896 x 896 pixels in 14-pixel patches, 27 blocks of width 1152, FFN 4304, 16 heads,
// 4 x 4 pooling to 256 image positions, projected to the text model's width, 2560 for 4B).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth::gguf {

struct MmprojShape {
    std::string name;
    int32_t image_size = 0, patch_size = 0;
    int32_t n_embd = 0, n_ff = 0, n_layer = 0, n_head = 0;
    int32_t projection_dim = 0;
};

const std::vector<MmprojShape>& known_mmproj_shapes();
std::optional<MmprojShape> find_mmproj_shape(const std::string& name);

struct MmprojSynthOptions {
    MmprojShape shape;
    bool f16 = true; // the block matrices and the projection F16 (llama.cpp's converter's f16), else F32
    uint64_t seed = 1;
    float weight_std = 0.02f;
};

// Throws hearth::Error("<path>: ...") when the file cannot be written. Returns its size in bytes.
size_t synthesize_mmproj(const MmprojSynthOptions& options, const std::string& path);

} // namespace hearth::gguf
