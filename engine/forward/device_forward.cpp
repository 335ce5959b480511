#include "engine/forward/device_forward.h"
#include "engine/error.h"
#include "engine/forward/device_plan.h"
#include <algorithm>
#if HEARTH_HAS_VULKAN
#include "engine/forward/vulkan/vulkan_forward.h"
#endif

namespace hearth::engine {

namespace {

std::string mib(uint64_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

// How many layers go to the device: options.n_gpu_layers, or as many as fit (-1).
int32_t planned_layers(const Model& model, const InferenceOptions& options, const GpuDeviceInfo& device) {
    const int32_t n_layer = model.hparams().n_layer;
    const DeviceMemoryPlan plan =
        plan_device_memory(model, std::max(1, options.n_batch), options.device_context, options.cache_types);
    const uint64_t available = usable_device_bytes(device.device_local_bytes, device.device_local_free_bytes);
    const int32_t fit = layers_that_fit(plan, available);
    const std::string where =
        "Vulkan device " + device.name + " (" + mib(device.device_local_bytes) +
        (device.device_local_free_bytes ? ", " + mib(*device.device_local_free_bytes) + " of it free" : "") +
        ")";
    if (options.n_gpu_layers < 0) {
        if (fit == 0)
            throw Error(where + " has too little memory for even one layer of " + model.path() + " (" +
                        mib(plan.bytes_for(1)) + " with its KV cache of " +
                        std::to_string(options.device_context) +
                        " positions): run on the CPU (--device cpu)");
        return fit;
    }
    const int32_t wanted = std::min(options.n_gpu_layers, n_layer);
    if (plan.bytes_for(wanted) > available)
        throw Error(where + ": " + std::to_string(wanted) + " layers of " + model.path() + " take " +
                    mib(plan.bytes_for(wanted)) + " with their KV cache of " +
                    std::to_string(options.device_context) + " positions, more than the " + mib(available) +
                    " available; at most " + std::to_string(fit) + " fit (-ngl " + std::to_string(fit) + ")");
    return wanted;
}

} // namespace

void add_timings(std::vector<DeviceOpTiming>& total, const std::vector<DeviceOpTiming>& more) {
    for (const DeviceOpTiming& t : more) {
        const auto same = std::find_if(total.begin(), total.end(), [&](const DeviceOpTiming& op) {
            return op.name == t.name && op.kernel == t.kernel;
        });
        if (same == total.end()) {
            total.push_back(t);
        } else {
            same->dispatches += t.dispatches;
            same->ns += t.ns;
        }
    }
}

std::unique_ptr<DeviceForward> DeviceForward::create(std::shared_ptr<const Model> model,
                                                     const InferenceOptions& options) {
    if (options.device.kind == ComputeDevice::Kind::Cpu) return nullptr;
    const GpuDeviceInfo device = chosen_gpu_device(options.device);
    const int32_t n_layers = planned_layers(*model, options, device);
    if (n_layers == 0) return nullptr;
#if HEARTH_HAS_VULKAN
    return std::make_unique<VulkanForward>(std::move(model), options, device, n_layers);
#else
    throw Error("this build of Hearth has no Vulkan backend");
#endif
}

} // namespace hearth::engine
