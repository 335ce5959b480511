#include "engine/forward/vulkan/vulkan_kv_cache.h"
#include <string>

namespace hearth::engine {

namespace vk = kernels::vulkan;
using Part = KvCache::Part;

VulkanKvPart::VulkanKvPart(std::shared_ptr<VulkanDevice> device, const KvCache& cache, int32_t n_layers)
    : device_(std::move(device)), n_ctx_(cache.capacity()) {
    std::lock_guard lock(device_->mutex);
    const std::string& name = device_->context.device().name;
    const size_t positions = static_cast<size_t>(cache.n_head_kv()) * static_cast<size_t>(n_ctx_);
    const size_t key_bytes = positions * cache.head_row_bytes(Part::Keys);
    const size_t value_bytes = positions * cache.head_row_bytes(Part::Values);
    on_vulkan_device(name, "allocating the KV cache", [&] {
        buffers_.reserve(2 * static_cast<size_t>(n_layers)); // views point into it: never reallocated
        for (int32_t i = 0; i < n_layers; ++i) {
            vk::Buffer& keys = buffers_.emplace_back(device_->context, key_bytes);
            vk::Buffer& values = buffers_.emplace_back(device_->context, value_bytes);
            layers_.push_back(vk::DeviceKvLayer{vk::View{&keys, 0}, vk::View{&values, 0},
                                                cache.type(Part::Keys), cache.type(Part::Values), n_ctx_,
                                                cache.n_head_kv(), cache.head_dim()});
            bytes_ += key_bytes + value_bytes;
        }
    });
}

template <class Fn> void VulkanKvPart::for_each_run(const KvCache& cache, int32_t n_positions, Fn&& fn) {
    for (int32_t layer = 0; layer < n_layers(); ++layer)
        for (const Part part : {Part::Keys, Part::Values}) {
            const size_t row = cache.head_row_bytes(part);
            const vk::DeviceKvLayer& d = layers_[static_cast<size_t>(layer)];
            const vk::View& base = part == Part::Keys ? d.keys : d.values;
            for (int32_t h = 0; h < cache.n_head_kv(); ++h)
                fn(cache.data(part, layer, h),
                   vk::View{base.buffer,
                            base.offset + static_cast<size_t>(h) * static_cast<size_t>(n_ctx_) * row},
                   static_cast<size_t>(n_positions) * row);
        }
}

// Both directions go through one host-visible buffer holding every run, with one submit of
// copies: a saved state or a context shift moves the whole cache at once.
void VulkanKvPart::download(KvCache& cache, int32_t n_positions) {
    if (n_positions <= 0) return;
    std::lock_guard lock(device_->mutex);
    on_vulkan_device(device_->context.device().name, "reading the KV cache", [&] {
        size_t total = 0;
        for_each_run(cache, n_positions, [&](const void*, vk::View, size_t bytes) { total += bytes; });
        vk::Buffer staging(device_->context, total, vk::Memory::HostVisible);
        vk::Recorder recorder(device_->context);
        recorder.begin();
        size_t offset = 0;
        for_each_run(cache, n_positions, [&](const void*, vk::View run, size_t bytes) {
            recorder.copy(run, vk::View{&staging, offset}, bytes);
            offset += bytes;
        });
        recorder.submit_and_wait();
        offset = 0;
        for_each_run(cache, n_positions, [&](const void* host, vk::View, size_t bytes) {
            // The host storage is the cache's own (KvCache::sync_host).
            staging.download(const_cast<void*>(host), bytes, offset);
            offset += bytes;
        });
    });
}

void VulkanKvPart::upload(const KvCache& cache, int32_t n_positions) {
    if (n_positions <= 0) return;
    std::lock_guard lock(device_->mutex);
    on_vulkan_device(device_->context.device().name, "writing the KV cache", [&] {
        size_t total = 0;
        for_each_run(cache, n_positions, [&](const void*, vk::View, size_t bytes) { total += bytes; });
        vk::Buffer staging(device_->context, total, vk::Memory::HostVisible);
        size_t offset = 0;
        for_each_run(cache, n_positions, [&](const void* host, vk::View, size_t bytes) {
            staging.upload(host, bytes, offset);
            offset += bytes;
        });
        vk::Recorder recorder(device_->context);
        recorder.begin();
        offset = 0;
        for_each_run(cache, n_positions, [&](const void*, vk::View run, size_t bytes) {
            recorder.copy(vk::View{&staging, offset}, run, bytes);
            offset += bytes;
        });
        recorder.submit_and_wait();
    });
}

} // namespace hearth::engine
