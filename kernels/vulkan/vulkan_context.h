#pragma once
// One Vulkan device opened for compute: instance, device, queue, command pool, and the compute
// pipelines (built on first use, kept in a pipeline cache on disk). Buffers of device memory.
// A Context and the Buffers and Recorders made from it are used from one thread at a time; they
// may be destroyed in any order (the device lives until the last of them goes).
#include "kernels/vulkan/vulkan_devices.h"
#include "kernels/vulkan/vulkan_error.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace hearth::kernels::vulkan {

struct ContextOptions {
    int device_index = -1; // -1: best_device(list_devices())
    // VK_LAYER_KHRONOS_validation with a messenger counting its errors; also on when the
    // environment has HEARTH_VULKAN_VALIDATION=1. Throws Error when the layer is not installed.
    bool validation = false;
    // Where the pipeline cache is read from and written back to ("": none). Its folder is created.
    std::string pipeline_cache_path;
    // How long submit_and_wait and transfers wait for the device before throwing Error.
    uint32_t timeout_ms = 120000;
    // The most bytes one shader binding spans (0: the device's maxStorageBufferRange). Larger
    // matrices are bound in chunks of rows; tests set it low to run that path on small data.
    uint64_t max_binding_bytes = 0;
    // Whether shaders reduce with subgroup arithmetic where the device has it (false: their
    // shared-memory reductions, as on devices without it; tests set it to run that path).
    bool subgroup_operations = true;
    // A pass's commands go to the device in batches of this many (0: all at once, when the pass
    // is recorded), so that the device runs the first while the host records the rest. Also
    // set by the environment's HEARTH_VULKAN_DISPATCHES_PER_SUBMIT.
    uint32_t dispatches_per_submit = 64;
    // Rows of W per workgroup of the mat-vec shader for one column (decode): 0 lets the planner
    // choose; 1, 2, 4 or 8 (to measure them). Also set by HEARTH_VULKAN_MATVEC_ROWS.
    uint32_t matvec_rows = 0;
    // Threads per workgroup of the mat-vec shader: 0 lets the planner choose (32 to 128); else a
    // power of two up to 128. Also HEARTH_VULKAN_MATVEC_WORKGROUP. Tests set the device's subgroup
    // size, so that lavapipe runs the one-subgroup reduction a GPU's 32-wide subgroups take.
    uint32_t matvec_workgroup = 0;
};

struct ContextState; // the Vulkan objects, private to the backend

class Context {
public:
    explicit Context(ContextOptions options = {}); // throws Error with a clear message
    ~Context();                                    // writes the pipeline cache back
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const DeviceInfo& device() const;
    uint64_t validation_errors() const;          // validation-layer errors seen so far (tests assert 0)
    std::string last_validation_message() const; // the last of them, for the test's failure message
    bool validation_enabled() const;
    bool lost() const; // VK_ERROR_DEVICE_LOST seen: every later call throws DeviceLost
    // The DeviceFeature bits (candidates.h) the shaders use on this context: what the device has
    // and the options allow.
    uint32_t features() const;
    // Writes the pipeline cache to pipeline_cache_path now (the destructor does too).
    void save_pipeline_cache() const;

    ContextState& state() const { return *state_; }
    std::shared_ptr<ContextState> shared_state() const { return state_; }

private:
    // Shared with the Buffers and Recorders made from it: the device lives until the last of
    // them is gone, whatever the order they are destroyed in.
    std::shared_ptr<ContextState> state_;
};

enum class Memory {
    DeviceLocal, // the device's own memory: weights, activations, KV cache (filled through staging)
    HostVisible, // mapped memory the host reads and writes directly (small inputs and outputs)
};

struct BufferState;

// A buffer of device memory; move-only. Upload and download are synchronous: they wait for the
// device, and must not overlap a Recorder's submit of work that uses the same bytes.
class Buffer {
public:
    Buffer() = default;
    Buffer(Context& context, size_t bytes, Memory memory = Memory::DeviceLocal);
    ~Buffer();
    Buffer(Buffer&&) noexcept;
    Buffer& operator=(Buffer&&) noexcept;

    size_t size() const;
    Memory memory() const;
    bool valid() const { return state_ != nullptr; }
    void upload(const void* src, size_t bytes,
                size_t offset = 0); // through a staging buffer when device-local
    void download(void* dst, size_t bytes, size_t offset = 0) const;
    void fill_zero(); // every byte 0

    BufferState& state() const { return *state_; }

private:
    std::unique_ptr<BufferState> state_;
};

} // namespace hearth::kernels::vulkan
