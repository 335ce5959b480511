#include "engine/vision/device_tower.h"
#include "engine/error.h"
#if HEARTH_HAS_VULKAN
#include "engine/vision/vulkan/siglip_tower_vulkan.h"
#endif

namespace hearth::vision {

std::unique_ptr<DeviceTower> make_device_tower(const MmprojFile& file, const DeviceTowerOptions& options) {
    if (options.device.kind != engine::ComputeDevice::Kind::Vulkan)
        throw Error("the vision tower's device is the CPU");
#if HEARTH_HAS_VULKAN
    return std::make_unique<VulkanSiglipTower>(file, engine::chosen_gpu_device(options.device),
                                               options.validation);
#else
    (void)file;
    throw Error("this build of Hearth has no Vulkan backend: the vision tower runs on the CPU");
#endif
}

} // namespace hearth::vision
