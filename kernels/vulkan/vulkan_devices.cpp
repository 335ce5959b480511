// Listing the Vulkan devices with a short-lived instance of its own.
#include "kernels/vulkan/vulkan_devices.h"
#include "kernels/vulkan/vulkan_device_query.h"
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vulkan/vulkan.h>

namespace hearth::kernels::vulkan {
namespace {

std::string vendor_name(uint32_t id) {
    switch (id) {
    case 0x1002:
        return "AMD";
    case 0x10de:
        return "NVIDIA";
    case 0x8086:
        return "Intel";
    case 0x13b5:
        return "ARM";
    case 0x5143:
        return "Qualcomm";
    case 0x1010:
        return "Imagination";
    case 0x106b:
        return "Apple";
    case 0x10005:
        return "Mesa";
    default: {
        char hex[16];
        std::snprintf(hex, sizeof(hex), "0x%04x", id);
        return hex;
    }
    }
}

std::string type_name(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "cpu";
    default:
        return "other";
    }
}

int type_rank(const std::string& type) {
    if (type == "discrete") return 4;
    if (type == "integrated") return 3;
    if (type == "virtual") return 2;
    if (type == "cpu") return 1;
    return 0;
}

} // namespace

bool has_extension(VkPhysicalDevice device, const char* name) {
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) != VK_SUCCESS) return false;
    std::vector<VkExtensionProperties> extensions(count);
    if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()) != VK_SUCCESS)
        return false;
    return std::any_of(extensions.begin(), extensions.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

const char* result_name(VkResult result) {
    switch (result) {
    case VK_SUCCESS:
        return "VK_SUCCESS";
    case VK_NOT_READY:
        return "VK_NOT_READY";
    case VK_TIMEOUT:
        return "VK_TIMEOUT";
    case VK_INCOMPLETE:
        return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
        return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
        return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
        return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
        return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
        return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
        return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
        return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
        return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
        return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
        return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
        return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL:
        return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY:
        return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_UNKNOWN:
        return "VK_ERROR_UNKNOWN";
    default:
        return "VkResult error";
    }
}

int compute_queue_family(VkPhysicalDevice device) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
    // A compute family without graphics first: on discrete GPUs it is the asynchronous one.
    for (uint32_t i = 0; i < count; ++i)
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
            !(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && families[i].timestampValidBits > 0)
            return static_cast<int>(i);
    for (uint32_t i = 0; i < count; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return static_cast<int>(i);
    return -1;
}

DeviceInfo query_device(VkPhysicalDevice device, int index) {
    DeviceInfo info;
    info.index = index;
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(device, &properties);
    info.name = properties.deviceName;
    info.vendor = vendor_name(properties.vendorID);
    info.type = type_name(properties.deviceType);
    info.api_version = properties.apiVersion;

    // The heaps, with their budgets where the device has VK_EXT_memory_budget (a query of the
    // physical device: the extension need not be enabled).
    auto budget = vk_struct<VkPhysicalDeviceMemoryBudgetPropertiesEXT>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT);
    const bool has_budget = properties.apiVersion >= VK_API_VERSION_1_1 &&
                            has_extension(device, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    auto memory2 = vk_struct<VkPhysicalDeviceMemoryProperties2>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, has_budget ? &budget : nullptr);
    if (properties.apiVersion >= VK_API_VERSION_1_1)
        vkGetPhysicalDeviceMemoryProperties2(device, &memory2);
    else
        vkGetPhysicalDeviceMemoryProperties(device, &memory2.memoryProperties);
    const VkPhysicalDeviceMemoryProperties& memory = memory2.memoryProperties;
    for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
        if ((memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            memory.memoryHeaps[i].size > info.device_local_bytes) {
            info.device_local_bytes = memory.memoryHeaps[i].size;
            if (has_budget)
                info.device_local_free_bytes = budget.heapBudget[i] > budget.heapUsage[i]
                                                   ? budget.heapBudget[i] - budget.heapUsage[i]
                                                   : 0;
        }

    const bool v12 = properties.apiVersion >= VK_API_VERSION_1_2;
    const bool v13 = properties.apiVersion >= VK_API_VERSION_1_3;
    if (properties.apiVersion >= VK_API_VERSION_1_1) {
        auto driver =
            vk_struct<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
        auto subgroup = vk_struct<VkPhysicalDeviceSubgroupProperties>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
        subgroup.pNext = v12 ? &driver : nullptr;
        auto properties2 =
            vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup);
        vkGetPhysicalDeviceProperties2(device, &properties2);
        info.subgroup_size = subgroup.subgroupSize;
        if (v12) {
            info.driver_name = driver.driverName;
            info.driver_info = driver.driverInfo;
        }

        auto features12 = vk_struct<VkPhysicalDeviceVulkan12Features>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
        auto features13 = vk_struct<VkPhysicalDeviceVulkan13Features>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
        auto features11 = vk_struct<VkPhysicalDeviceVulkan11Features>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
        if (v12) {
            features11.pNext = &features12;
            if (v13) features12.pNext = &features13;
        }
        auto features = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                                             v12 ? static_cast<void*>(&features11) : nullptr);
        vkGetPhysicalDeviceFeatures2(device, &features);
        if (v12) {
            info.storage_16bit = features11.storageBuffer16BitAccess;
            info.shader_float16 = features12.shaderFloat16;
            info.shader_int8 = features12.shaderInt8;
        }
        info.integer_dot_product = (v13 && features13.shaderIntegerDotProduct) ||
                                   has_extension(device, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
    }
    info.cooperative_matrix = has_extension(device, "VK_KHR_cooperative_matrix") ||
                              has_extension(device, "VK_NV_cooperative_matrix");
    if (info.driver_name.empty()) info.driver_name = info.vendor;

    if (!v12)
        info.unusable_reason = "Vulkan " + std::to_string(VK_API_VERSION_MAJOR(properties.apiVersion)) + "." +
                               std::to_string(VK_API_VERSION_MINOR(properties.apiVersion)) +
                               " (the backend needs 1.2)";
    else if (compute_queue_family(device) < 0)
        info.unusable_reason = "no compute queue";
    else if (properties.limits.maxComputeWorkGroupInvocations < 256 ||
             properties.limits.maxComputeSharedMemorySize < 16384)
        info.unusable_reason = "compute workgroups below 256 invocations or 16 KiB of shared memory";
    return info;
}

std::vector<DeviceInfo> list_devices() {
    std::vector<DeviceInfo> devices;
    try {
        auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        app.pApplicationName = "hearth";
        app.apiVersion = VK_API_VERSION_1_2;
        auto create = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        create.pApplicationInfo = &app;
        VkInstance instance = VK_NULL_HANDLE;
        if (vkCreateInstance(&create, nullptr, &instance) != VK_SUCCESS) return devices;
        uint32_t count = 0;
        if (vkEnumeratePhysicalDevices(instance, &count, nullptr) == VK_SUCCESS && count > 0) {
            std::vector<VkPhysicalDevice> physical(count);
            if (vkEnumeratePhysicalDevices(instance, &count, physical.data()) >= VK_SUCCESS)
                for (uint32_t i = 0; i < count; ++i)
                    devices.push_back(query_device(physical[i], static_cast<int>(i)));
        }
        vkDestroyInstance(instance, nullptr);
    } catch (const std::exception&) {
        devices.clear();
    }
    return devices;
}

int best_device(const std::vector<DeviceInfo>& devices) {
    int best = -1;
    for (size_t i = 0; i < devices.size(); ++i) {
        const DeviceInfo& d = devices[i];
        if (!d.unusable_reason.empty()) continue;
        if (best < 0) {
            best = static_cast<int>(i);
            continue;
        }
        const DeviceInfo& b = devices[static_cast<size_t>(best)];
        if (type_rank(d.type) > type_rank(b.type) ||
            (type_rank(d.type) == type_rank(b.type) && d.device_local_bytes > b.device_local_bytes))
            best = static_cast<int>(i);
    }
    return best < 0 ? -1 : devices[static_cast<size_t>(best)].index;
}

std::string describe(const DeviceInfo& d) {
    std::string line =
        "vulkan:" + std::to_string(d.index) + " " + d.name + " (" + d.type + ", " + d.vendor + ", " +
        d.driver_name + (d.driver_info.empty() ? "" : " " + d.driver_info) + ", " +
        std::to_string(d.device_local_bytes >> 20) + " MiB" +
        (d.device_local_free_bytes ? " (" + std::to_string(*d.device_local_free_bytes >> 20) + " free)"
                                   : "") +
        ", subgroup " + std::to_string(d.subgroup_size);
    if (d.storage_16bit) line += ", 16-bit storage";
    if (d.shader_float16) line += ", fp16";
    if (d.shader_int8) line += ", int8";
    if (d.integer_dot_product) line += ", int dot";
    if (d.cooperative_matrix) line += ", coopmat";
    line += ")";
    if (!d.unusable_reason.empty()) line += " unusable: " + d.unusable_reason;
    return line;
}

} // namespace hearth::kernels::vulkan
