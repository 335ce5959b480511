#pragma once
// A cache's first layers in Vulkan device memory (KvCacheDevicePart): per layer one buffer of
// keys and one of values, each laid out as the host cache's layer, (n_head_kv, n_ctx,
// head_row_bytes) in the cache's types, so that rows cross as they are, a run of positions per
// KV head.
#include "engine/forward/kv_cache.h"
#include "engine/forward/vulkan/vulkan_device.h"
#include "kernels/vulkan/vulkan_ops.h"
#include <cstdint>
#include <memory>
#include <vector>

namespace hearth::engine {

class VulkanKvPart final : public KvCacheDevicePart {
public:
    // Allocates layers [0, n_layers) of `cache`'s shape.
    VulkanKvPart(std::shared_ptr<VulkanDevice> device, const KvCache& cache, int32_t n_layers);

    int32_t n_layers() const override { return static_cast<int32_t>(layers_.size()); }
    void download(KvCache& cache, int32_t n_positions) override;
    void upload(const KvCache& cache, int32_t n_positions) override;

    const kernels::vulkan::DeviceKvLayer& layer(int32_t i) const { return layers_[static_cast<size_t>(i)]; }
    // The device it lives on (kept open by it, so no other device is ever at that address).
    const VulkanDevice* device() const { return device_.get(); }
    int32_t n_ctx() const { return n_ctx_; }
    // Bytes of device memory held.
    uint64_t bytes() const { return bytes_; }

private:
    // Every (layer, part, KV head) run of positions [0, n_positions): its host address and its
    // device view, with the run's bytes.
    template <class Fn> void for_each_run(const KvCache& cache, int32_t n_positions, Fn&& fn);

    std::shared_ptr<VulkanDevice> device_;
    std::vector<kernels::vulkan::Buffer> buffers_; // (n_layers, keys and values)
    std::vector<kernels::vulkan::DeviceKvLayer> layers_;
    int32_t n_ctx_;
    uint64_t bytes_ = 0;
};

} // namespace hearth::engine
