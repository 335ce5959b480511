#pragma once
// Gemma 3's projector (clip.projector_type "gemma3"): the canvas is the image letterboxed into
// image_size x image_size; the SigLIP tower's patch grid is average-pooled in k x k blocks
// (clip.vision.projector.scale_factor, 4 by default) into row-major tokens, each RMS-normed
// times mm.soft_emb_norm.weight (stored with Gemma's +1 already added) and multiplied by
// mm.input_projection.weight as x @ W (the file stores it (n_embd, projection_dim), not as an
// (out, in) linear; it is transposed once at load).
#include "engine/vision/device_tower.h"
#include "engine/vision/mmproj_file.h"
#include "engine/vision/siglip_tower.h"
#include "engine/vision/vision_projector.h"
#include "kernels/thread_pool.h"
#include <memory>
#include <optional>

namespace hearth::vision {

class Gemma3Projector final : public VisionProjector {
public:
    // The tower on options.device when it takes it, else on the CPU (tower_device_problem).
    Gemma3Projector(MmprojFile file, int32_t n_threads, const DeviceTowerOptions& device = {});
    const std::string& path() const override { return path_; }
    const std::string& family() const override { return family_; }
    int32_t n_image_tokens() const override { return tokens_per_side_ * tokens_per_side_; }
    int32_t n_embd() const override { return file_.hparams().projection_dim; }
    RgbImage canvas(const RgbImage& image) const override;
    void encode(const RgbImage& canvas, float* out) override;
    std::string_view image_start_text() const override { return "<start_of_image>"; }
    std::string_view image_end_text() const override { return "<end_of_image>"; }
    std::string tower_device() const override { return device_tower_ ? device_tower_->device().name : "cpu"; }
    const std::string& tower_device_problem() const override { return device_problem_; }

private:
    MmprojFile file_;
    std::string path_;
    std::string family_ = "gemma3";
    int32_t pool_kernel_ = 4;
    int32_t tokens_per_side_ = 0;
    std::optional<SiglipTower> tower_;          // on the CPU: made at its first use
    std::unique_ptr<DeviceTower> device_tower_; // on a GPU, when one takes it
    std::string device_problem_;
    std::vector<float> soft_emb_norm_;        // (n_embd)
    std::vector<std::byte> projection_bytes_; // (projection_dim, n_embd) in the file's type, transposed
    kernels::WeightMatrix projection_;        // over projection_bytes_
    std::unique_ptr<kernels::ThreadPool> pool_;
    // Scratch.
    std::vector<float> pixels_;  // (3, image_size, image_size)
    std::vector<float> patches_; // (n_patches, n_embd) the tower's output
    std::vector<float> pooled_;  // (n_image_tokens, n_embd)
    std::vector<std::byte> matmul_scratch_;
};

} // namespace hearth::vision
