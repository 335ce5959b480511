#pragma once
// The SigLIP tower (siglip_tower.h) on a Vulkan device: SiglipTower::forward's steps, in its
// order, recorded into one command buffer per image. Matrices stay in their file's type;
// attention's keys and values are F16 (the attention shader's cache rows, as the CPU tower's for
// an F16 file), every product and sum F32.
#include "engine/vision/device_tower.h"
#include "engine/vision/vision_hparams.h"
#include "kernels/vulkan/vulkan_ops.h"
#include <deque>
#include <memory>
#include <optional>
#include <vector>

namespace hearth::vision {

class VulkanSiglipTower final : public DeviceTower {
public:
    VulkanSiglipTower(const MmprojFile& file, engine::GpuDeviceInfo info, bool validation);
    ~VulkanSiglipTower() override;

    const engine::GpuDeviceInfo& device() const override { return info_; }
    void forward(const float* pixels, float* out, kernels::ThreadPool& pool) override;
    uint64_t last_gpu_ns() const override { return last_gpu_ns_; }
    uint64_t validation_errors() const override { return context_->validation_errors(); }
    std::string last_validation_message() const override { return context_->last_validation_message(); }

private:
    using View = kernels::vulkan::View;
    using Matrix = kernels::vulkan::DeviceMatrix;
    struct Block {
        View ln1_w, ln1_b, ln2_w, ln2_b, bq, bk, bv, bo, b_up, b_down;
        Matrix wq, wk, wv, wo, w_up, w_down;
    };
    void upload_weights(const MmprojFile& file);
    void record();

    VisionHyperParams hp_;
    engine::GpuDeviceInfo info_;
    std::unique_ptr<kernels::vulkan::Context> context_;
    std::deque<kernels::vulkan::Buffer> buffers_; // weights and activations; a deque keeps views valid
    Matrix patch_w_;
    View patch_b_, position_embd_, post_ln_w_, post_ln_b_;
    std::vector<Block> blocks_;
    // Activations: (n_patches, width) F32 each; the patches up and the result down are
    // host-visible.
    View patches_, x_, xb_, q_, k_, v_, attn_, up_, result_;
    kernels::vulkan::DeviceKvLayer kv_; // the keys and values of one block, F16
    std::unique_ptr<kernels::vulkan::Recorder> recorder_;
    std::vector<float> host_patches_;
    uint64_t last_gpu_ns_ = 0;
};

} // namespace hearth::vision
