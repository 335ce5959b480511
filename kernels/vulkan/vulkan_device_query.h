#pragma once
// What the backend reads of a physical device: shared by list_devices and Context.
#include "kernels/vulkan/vulkan_devices.h"
#include <vulkan/vulkan.h>

namespace hearth::kernels::vulkan {

// The device's DeviceInfo (index as given); features of Vulkan 1.1 and above only where the
// device has that version.
DeviceInfo query_device(VkPhysicalDevice device, int index);
// Whether the device offers the extension.
bool has_extension(VkPhysicalDevice device, const char* name);
// The first queue family with compute, or -1.
int compute_queue_family(VkPhysicalDevice device);
// A Vulkan structure zeroed, with its type (and chain) set.
template <class T> T vk_struct(VkStructureType type, void* next = nullptr) {
    T s{};
    s.sType = type;
    s.pNext = next;
    return s;
}
// "VK_ERROR_DEVICE_LOST", ...
const char* result_name(VkResult result);

} // namespace hearth::kernels::vulkan
