#include "engine/forward/compute_device.h"
#include "engine/error.h"
#include <algorithm>
#include <cctype>
#include <charconv>
#if HEARTH_HAS_VULKAN
#include "kernels/vulkan/vulkan_devices.h"
#endif

namespace hearth::engine {

std::optional<ComputeDevice> compute_device_from_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "cpu") return ComputeDevice{};
    if (lower == "vulkan") return ComputeDevice{ComputeDevice::Kind::Vulkan, -1};
    constexpr std::string_view prefix = "vulkan:";
    if (!lower.starts_with(prefix) || lower.size() == prefix.size()) return std::nullopt;
    int32_t index = -1;
    const char* first = lower.data() + prefix.size();
    const char* last = lower.data() + lower.size();
    const auto [end, error] = std::from_chars(first, last, index);
    if (error != std::errc() || end != last || index < 0) return std::nullopt;
    return ComputeDevice{ComputeDevice::Kind::Vulkan, index};
}

std::string compute_device_name(const ComputeDevice& device) {
    if (device.kind == ComputeDevice::Kind::Cpu) return "cpu";
    return device.index < 0 ? "vulkan" : "vulkan:" + std::to_string(device.index);
}

#if HEARTH_HAS_VULKAN
bool vulkan_built() {
    return true;
}

std::vector<GpuDeviceInfo> gpu_devices() {
    std::vector<GpuDeviceInfo> devices;
    for (const kernels::vulkan::DeviceInfo& d : kernels::vulkan::list_devices()) {
        GpuDeviceInfo info;
        info.index = d.index;
        info.name = d.name;
        info.vendor = d.vendor;
        info.driver_name = d.driver_name;
        info.driver_info = d.driver_info;
        info.type = d.type;
        // VK_MAKE_API_VERSION: variant 3 bits, major 7, minor 10, patch 12.
        info.api_version = std::to_string((d.api_version >> 22) & 0x7F) + "." +
                           std::to_string((d.api_version >> 12) & 0x3FF) + "." +
                           std::to_string(d.api_version & 0xFFF);
        info.device_local_bytes = d.device_local_bytes;
        info.device_local_free_bytes = d.device_local_free_bytes;
        info.subgroup_size = d.subgroup_size;
        info.storage_16bit = d.storage_16bit;
        info.shader_float16 = d.shader_float16;
        info.shader_int8 = d.shader_int8;
        info.integer_dot_product = d.integer_dot_product;
        info.cooperative_matrix = d.cooperative_matrix;
        info.unusable_reason = d.unusable_reason;
        devices.push_back(std::move(info));
    }
    return devices;
}

int32_t best_gpu_device(const std::vector<GpuDeviceInfo>& devices) {
    std::vector<kernels::vulkan::DeviceInfo> infos;
    for (const GpuDeviceInfo& d : devices) {
        kernels::vulkan::DeviceInfo info;
        info.index = d.index;
        info.type = d.type;
        info.device_local_bytes = d.device_local_bytes;
        info.unusable_reason = d.unusable_reason;
        infos.push_back(std::move(info));
    }
    return kernels::vulkan::best_device(infos);
}
#else
bool vulkan_built() {
    return false;
}

std::vector<GpuDeviceInfo> gpu_devices() {
    return {};
}

int32_t best_gpu_device(const std::vector<GpuDeviceInfo>&) {
    return -1;
}
#endif

GpuDeviceInfo chosen_gpu_device(const ComputeDevice& choice) {
    if (!vulkan_built())
        throw Error("this build of Hearth has no Vulkan backend: run on the CPU (--device cpu)");
    const std::vector<GpuDeviceInfo> devices = gpu_devices();
    if (devices.empty())
        throw Error("no Vulkan device found (no Vulkan driver, or no device it supports): run on the CPU "
                    "(--device cpu)");
    const int32_t index = choice.index < 0 ? best_gpu_device(devices) : choice.index;
    const auto found = std::find_if(devices.begin(), devices.end(),
                                    [&](const GpuDeviceInfo& d) { return d.index == index; });
    if (found == devices.end()) {
        if (choice.index < 0)
            throw Error("none of the " + std::to_string(devices.size()) +
                        " Vulkan devices can run the engine: " + devices.front().unusable_reason);
        std::string names;
        for (const GpuDeviceInfo& d : devices)
            names +=
                (names.empty() ? "" : ", ") + ("vulkan:" + std::to_string(d.index)) + " (" + d.name + ")";
        throw Error("no Vulkan device vulkan:" + std::to_string(choice.index) + "; this machine has " +
                    names);
    }
    if (!found->unusable_reason.empty())
        throw Error("Vulkan device vulkan:" + std::to_string(index) + " (" + found->name +
                    ") cannot run the engine: " + found->unusable_reason);
    return *found;
}

} // namespace hearth::engine
