#pragma once
// The exceptions of the Vulkan backend: every failure is one of these, with a message that says
// what was being done and what the driver answered.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hearth::kernels::vulkan {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// VK_ERROR_DEVICE_LOST: the device (or its driver) gave up; the Context is unusable from then on.
struct DeviceLost : Error {
    using Error::Error;
};
// VK_ERROR_OUT_OF_DEVICE_MEMORY (or host memory, for the driver's own allocations).
struct OutOfDeviceMemory : Error {
    using Error::Error;
};

} // namespace hearth::kernels::vulkan
