#pragma once
// Gemma 3's projector (clip.projector_type "gemma3"): the canvas is the image letterboxed into
// image_size x image_size; the SigLIP tower's patch grid is average-pooled in k x k blocks
// (clip.vision.projector.scale_factor, 4 by default) into row-major tokens, each RMS-normed
// times mm.soft_emb_norm.weight (stored with Gemma's +1 already added) and multiplied by
// mm.input_projection.weight as x @ W (the file stores it (n_embd, projection_dim), not as an
// (out, in) linear; it is transposed once at load).
#include "engine/vision/mmproj_file.h"
#include "engine/vision/siglip_tower.h"
#include "engine/vision/vision_projector.h"
#include "kernels/thread_pool.h"
#include <memory>

namespace hearth::vision {

class Gemma3Projector final : public VisionProjector {
public:
    Gemma3Projector(MmprojFile file, int32_t n_threads);
    const std::string& path() const override { return path_; }
    const std::string& family() const override { return family_; }
    int32_t n_image_tokens() const override { return tokens_per_side_ * tokens_per_side_; }
    int32_t n_embd() const override { return file_.hparams().projection_dim; }
    RgbImage canvas(const RgbImage& image) const override;
    void encode(const RgbImage& canvas, float* out) override;
    std::string_view image_start_text() const override { return "<start_of_image>"; }
    std::string_view image_end_text() const override { return "<end_of_image>"; }

private:
    MmprojFile file_;
    std::string path_;
    std::string family_ = "gemma3";
    int32_t pool_kernel_ = 4;
    int32_t tokens_per_side_ = 0;
    SiglipTower tower_;
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
