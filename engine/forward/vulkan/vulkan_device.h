#pragma once
// One opened Vulkan device, shared by the forward pass, its weights and every cache's device
// part (which may outlive the forward pass), and the lock that each use of it takes: the
// forward pass runs on the thread that calls eval, a saved state may read a cache's rows from
// another.
#include "engine/forward/compute_device.h"
#include "kernels/vulkan/vulkan_context.h"
#include <mutex>
#include <string>
#include <utility>

namespace hearth::engine {

struct VulkanDevice {
    explicit VulkanDevice(kernels::vulkan::ContextOptions options) : context(std::move(options)) {}
    kernels::vulkan::Context context;
    // Recursive: a forward pass brings a cache's rows over (KvCache::sync_device) under it.
    std::recursive_mutex mutex;
};

// Runs fn, turning the backend's failures into DeviceError naming the device and what was
// being done ("uploading the weights": "Vulkan device llvmpipe: uploading the weights: ...").
template <class Fn>
decltype(auto) on_vulkan_device(const std::string& device_name, const char* doing, Fn&& fn) {
    try {
        return fn();
    } catch (const kernels::vulkan::DeviceLost& e) {
        throw DeviceError("Vulkan device " + device_name + " was lost while " + doing + " (" + e.what() +
                          "); run on the CPU (--device cpu)");
    } catch (const kernels::vulkan::OutOfDeviceMemory& e) {
        throw DeviceError("Vulkan device " + device_name + ": out of device memory while " + doing + " (" +
                          e.what() + "); offload fewer layers (-ngl) or use a shorter context");
    } catch (const kernels::vulkan::Error& e) {
        throw DeviceError("Vulkan device " + device_name + ": " + doing + ": " + e.what());
    }
}

} // namespace hearth::engine
