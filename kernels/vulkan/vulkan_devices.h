#pragma once
// The Vulkan devices of this machine and what each can do, for choosing one (`vulkan:N`).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth::kernels::vulkan {

struct DeviceInfo {
    int index = -1; // as `vulkan:N`: the order of vkEnumeratePhysicalDevices
    std::string name, vendor, driver_name, driver_info;
    std::string type;                // "discrete", "integrated", "virtual", "cpu", "other"
    uint32_t api_version = 0;        // VK_MAKE_API_VERSION of the device
    uint64_t device_local_bytes = 0; // largest DEVICE_LOCAL heap
    // What this process may still allocate of that heap when listed: its budget minus its usage
    // (VK_EXT_memory_budget, which counts other programs' use); none without the extension.
    std::optional<uint64_t> device_local_free_bytes;
    uint32_t subgroup_size = 0;
    bool storage_16bit = false;       // storageBuffer16BitAccess
    bool shader_float16 = false;      // shaderFloat16
    bool shader_int8 = false;         // shaderInt8
    bool integer_dot_product = false; // shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product / 1.3)
    bool cooperative_matrix = false;  // VK_KHR_cooperative_matrix or VK_NV_cooperative_matrix
    // Why the backend cannot run on it (empty: it can): below Vulkan 1.2, no compute queue.
    std::string unusable_reason;
};

// Every device the Vulkan loader reports. Empty when there is no loader, no driver or no device;
// never throws.
std::vector<DeviceInfo> list_devices();
// The index of the best usable device: discrete > integrated > virtual > cpu > other, then the
// largest device-local heap; -1 if none.
int best_device(const std::vector<DeviceInfo>& devices);
// One line per device for logs and --list-devices: "vulkan:0 llvmpipe (LLVM 15, 256 bits) (cpu, ...)".
std::string describe(const DeviceInfo& device);

} // namespace hearth::kernels::vulkan
