#pragma once
// Where the forward pass runs: the CPU, or a Vulkan device (kernels/vulkan), and the Vulkan
// devices this machine has.
#include "engine/error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::engine {

struct ComputeDevice {
    enum class Kind : uint8_t { Cpu, Vulkan };
    Kind kind = Kind::Cpu;
    int32_t index = -1; // Vulkan: the device's index in gpu_devices(); -1: the best one
    bool operator==(const ComputeDevice&) const = default;
};

// "cpu", "vulkan" (the best device) or "vulkan:N" (any case); nullopt for anything else.
std::optional<ComputeDevice> compute_device_from_name(std::string_view name);
// The name compute_device_from_name reads back: "cpu", "vulkan", "vulkan:1".
std::string compute_device_name(const ComputeDevice& device);

// A failure of the device a forward pass runs on while it runs (the device lost, out of its
// memory, a call it refused): the caller may go on on the CPU.
class DeviceError : public Error {
public:
    using Error::Error;
};

// A Vulkan device and what it can do.
struct GpuDeviceInfo {
    int32_t index = -1; // as in "vulkan:N"
    std::string name, vendor, driver_name, driver_info;
    std::string type;                // "discrete", "integrated", "virtual", "cpu" or "other"
    std::string api_version;         // "1.3.230"
    uint64_t device_local_bytes = 0; // its largest device-local memory heap
    // What the engine may still allocate of that heap when listed (the driver's budget minus
    // what this process uses); none where the driver does not say (no VK_EXT_memory_budget).
    std::optional<uint64_t> device_local_free_bytes;
    uint32_t subgroup_size = 0;
    bool storage_16bit = false, shader_float16 = false, shader_int8 = false;
    bool integer_dot_product = false, cooperative_matrix = false;
    std::string unusable_reason; // why the engine cannot run on it; empty when it can
};

// Whether this build has the Vulkan backend.
bool vulkan_built();
// The Vulkan devices of this machine; empty when there are none, when no Vulkan driver is
// installed, or when the build has no Vulkan backend. Never throws.
std::vector<GpuDeviceInfo> gpu_devices();
// The index of the device "vulkan" picks (discrete, then integrated, virtual, CPU); -1 if none.
int32_t best_gpu_device(const std::vector<GpuDeviceInfo>& devices);
// The Vulkan device `choice` names, checked: it exists and the engine can run on it. Throws
// hearth::Error saying why not (no backend in this build, no device, no such index, unusable).
GpuDeviceInfo chosen_gpu_device(const ComputeDevice& choice);

} // namespace hearth::engine
