#pragma once
// The vision tower's hyperparameters as an mmproj file states them (clip.vision.*).
#include <array>
#include <cstdint>
#include <string>

namespace hearth::vision {

struct VisionHyperParams {
    std::string projector_type; // clip.projector_type: which family's projector follows the tower
    int32_t image_size = 0;     // the square canvas the tower sees, in pixels
    int32_t patch_size = 0;
    int32_t n_embd = 0; // the tower's width
    int32_t n_ff = 0;
    int32_t n_layer = 0;
    int32_t n_head = 0;
    float eps = 1e-6f;                 // LayerNorm's, and the projector's RMSNorm's
    std::array<float, 3> image_mean{}; // per channel, of pixel / 255
    std::array<float, 3> image_std{};  //
    int32_t projection_dim = 0;        // the projector's output width: the text model's n_embd
    bool use_gelu = true;              // GELU (tanh form); false: GELU-quick, x * sigmoid(1.702 x)
    int32_t scale_factor = 0;          // clip.vision.projector.scale_factor; 0 when absent
    int32_t patches_per_side() const { return image_size / patch_size; }
    int32_t n_patches() const { return patches_per_side() * patches_per_side(); }
    int32_t head_dim() const { return n_embd / n_head; }
};

} // namespace hearth::vision
