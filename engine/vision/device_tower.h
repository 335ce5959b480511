#pragma once
// A vision tower on a GPU: the SigLIP tower's forward pass (siglip_tower.h) on a Vulkan device
// (kernels/vulkan), for a projector whose text model runs there too. The pixels go up once and
// the patch rows come back once; the tower's weights stay in device memory, in their file's
// types. The projector's own steps (pooling, norm, projection: a few hundred rows) stay on the CPU.
#include "engine/forward/compute_device.h"
#include "engine/vision/mmproj_file.h"
#include "kernels/thread_pool.h"
#include <memory>
#include <string>

namespace hearth::vision {

class DeviceTower {
public:
    virtual ~DeviceTower() = default;
    virtual const engine::GpuDeviceInfo& device() const = 0;
    // pixels: (3, image_size, image_size), normalized; out: (n_patches, n_embd), as
    // SiglipTower::forward (the pool cuts the patches on the host). Throws engine::DeviceError
    // when the device fails.
    virtual void forward(const float* pixels, float* out, kernels::ThreadPool& pool) = 0;
    // GPU nanoseconds of the last forward pass.
    virtual uint64_t last_gpu_ns() const = 0;
    // Errors the Vulkan validation layer reported so far (0 when it is off), and the last one.
    virtual uint64_t validation_errors() const = 0;
    virtual std::string last_validation_message() const = 0;
};

struct DeviceTowerOptions {
    engine::ComputeDevice device;
    bool validation = false; // the Vulkan validation layer (tests)
};

// Uploads the tower of `file` to the device. Throws hearth::Error naming the reason when the
// build has no Vulkan backend, there is no such device, it lacks memory, or the tower has what
// the device path does not run (a weight type, quick GELU).
std::unique_ptr<DeviceTower> make_device_tower(const MmprojFile& file, const DeviceTowerOptions& options);

} // namespace hearth::vision
