#pragma once
// DeviceForward on a Vulkan device: Inference's forward pass, step for step, recorded into one
// command buffer per pass (kernels/vulkan/vulkan_ops.h).
#include "engine/forward/device_forward.h"
#include "engine/forward/vulkan/vulkan_device.h"
#include "engine/forward/vulkan/vulkan_kv_cache.h"
#include "engine/forward/vulkan/vulkan_weights.h"
#include "kernels/vulkan/vulkan_ops.h"
#include <memory>
#include <mutex>

namespace hearth::engine {

class VulkanForward final : public DeviceForward {
public:
    // Layers [0, n_layers) of the model on the device of `options` (already chosen and planned
    // by DeviceForward::create).
    VulkanForward(std::shared_ptr<const Model> model, const InferenceOptions& options, GpuDeviceInfo info,
                  int32_t n_layers);
    ~VulkanForward() override;

    const GpuDeviceInfo& device() const override { return info_; }
    int32_t n_layers() const override { return n_layers_; }
    bool whole_model() const override { return n_layers_ == model_->hparams().n_layer; }
    uint64_t weight_bytes() const override { return weights_->bytes(); }
    void attach(KvCache& cache) override;
    void forward(KvCache& cache, const int32_t* tokens, int32_t n, bool all_logits, float* logits_out,
                 float* residual_out) override;
    void forward_image(KvCache& cache, const float* embeddings, int32_t n, float* logits_out,
                       float* residual_out) override;
    std::vector<DeviceOpTiming> timings() const override;
    std::vector<DeviceOpTiming> total_timings() const override;
    DeviceTraffic last_traffic() const override;
    DeviceTraffic total_traffic() const override;
    uint64_t bytes_per_decoded_token() const override;
    uint64_t validation_errors() const override;
    std::string last_validation_message() const override;

private:
    // The cache's device part, made here if it has none or another device's.
    VulkanKvPart& part_of(KvCache& cache);
    // What a pass starts from: token ids, or an image's input rows.
    struct Input {
        const int32_t* tokens = nullptr;
        const float* embeddings = nullptr;
    };
    void run(KvCache& cache, Input input, int32_t n, bool all_logits, float* logits_out, float* residual_out);
    void record(const VulkanKvPart& part, int32_t n_ctx, int32_t n_past, int32_t n, bool all_logits,
                bool image);
    void record_layer(const VulkanKvPart& part, int32_t layer, int32_t n_past, int32_t n,
                      kernels::vulkan::View rope_factors, bool batch_sees_itself);
    void record_ffn(const VulkanLayerWeights& l, int32_t n);
    void record_norm(kernels::vulkan::View in, const VulkanVector& weight, const VulkanVector& bias,
                     int32_t rows, kernels::vulkan::View out);
    void record_projection(const kernels::vulkan::DeviceMatrix& w, const VulkanVector& bias,
                           kernels::vulkan::View x, int32_t rows, kernels::vulkan::View out);

    std::shared_ptr<const Model> model_;
    GpuDeviceInfo info_;
    int32_t n_layers_;
    int32_t n_batch_;
    std::shared_ptr<VulkanDevice> device_;
    std::unique_ptr<VulkanWeights> weights_;
    std::unique_ptr<kernels::vulkan::Recorder> recorder_;

    // Activations of one batch of up to n_batch rows, each (n_batch, width), in device memory;
    // the token ids and what comes back in host-visible memory.
    struct Activations;
    std::unique_ptr<Activations> act_;

    mutable std::mutex figures_mutex_; // the figures below may be read from another thread
    std::vector<DeviceOpTiming> timings_, total_timings_;
    DeviceTraffic last_traffic_, total_traffic_;
};

} // namespace hearth::engine
