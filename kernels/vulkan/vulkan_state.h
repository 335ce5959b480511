#pragma once
// The Vulkan objects behind Context and Buffer, shared by the files of the backend (never
// included by its users).
#include "kernels/candidates.h"
#include "kernels/vulkan/vulkan_context.h"
#include "kernels/vulkan/vulkan_device_query.h"
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include <vulkan/vulkan.h>

namespace hearth::kernels::vulkan {

// Storage-buffer bindings of every pipeline (one layout for all) and its push-constant bytes.
inline constexpr uint32_t kBindings = 6;
inline constexpr uint32_t kPushConstantBytes = 128;

struct ContextState {
    ContextOptions options;
    DeviceInfo info;
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memory{};
    VkDevice device = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    bool timestamps = false; // the queue family has timestamp bits
    // Subgroup arithmetic in compute shaders (and ContextOptions::subgroup_operations), and the
    // smallest subgroup the device may run them with.
    bool subgroup_arithmetic = false;
    uint32_t subgroup_min = 1;
    // The DeviceFeature bits the candidates' guards test.
    uint32_t features() const { return subgroup_arithmetic ? uint32_t{kSubgroupArithmetic} : 0u; }
    bool validation = false;
    std::atomic<uint64_t> validation_errors{0};
    mutable std::mutex message_mutex;
    std::string last_validation_message;
    bool lost = false;

    // Transfers between the host and device-local buffers: one command buffer, one fence, and a
    // host-visible staging buffer grown on demand.
    VkCommandPool transfer_pool = VK_NULL_HANDLE;
    VkCommandBuffer transfer_commands = VK_NULL_HANDLE;
    VkFence transfer_fence = VK_NULL_HANDLE;
    std::unique_ptr<struct BufferState> staging;
    // Bound to the bindings a shader does not use.
    std::unique_ptr<struct BufferState> placeholder;
    // The staging buffer, at least `bytes` long.
    BufferState& staging_for(size_t bytes);

    // Pipelines: one descriptor set layout and pipeline layout for all, modules and pipelines
    // made on first use.
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    std::map<std::string, VkShaderModule, std::less<>> modules;
    std::map<std::pair<std::string, std::vector<uint32_t>>, VkPipeline> pipelines;

    // The most bytes one binding may span (ContextOptions::max_binding_bytes, the device's limit).
    size_t binding_limit() const {
        const size_t device_limit = properties.limits.maxStorageBufferRange;
        return options.max_binding_bytes ? std::min<size_t>(options.max_binding_bytes, device_limit)
                                         : device_limit;
    }
    // Throws the exception that fits a failed call (DeviceLost marks the context lost).
    void check(VkResult result, const char* what);
    void throw_if_lost() const;
    // Waits for a fence within options.timeout_ms (throws Error when it takes longer).
    void wait(VkFence fence, const char* what);
    // The compute pipeline of a shader with its specialization constants (ids 0, 1, ... in order).
    VkPipeline pipeline(const std::string& shader, const std::vector<uint32_t>& constants);
    // Memory type index for a buffer's requirements.
    uint32_t memory_type(uint32_t type_bits, Memory kind) const;
    void create_pipeline_objects();
    void load_pipeline_cache();
    void destroy();
    ~ContextState() { destroy(); }
};

struct BufferState {
    ContextState* context = nullptr;
    std::shared_ptr<ContextState> owner; // keeps the device of a user's Buffer alive
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    size_t size = 0;      // as asked for
    size_t allocated = 0; // of the VkBuffer: size + 4 rounded up to 16: a shader may read a word past the end
    Memory kind = Memory::DeviceLocal;
    void* mapped = nullptr; // host-visible buffers stay mapped
    ~BufferState();
};
// A buffer with its own memory, bound (and mapped when host-visible).
std::unique_ptr<BufferState> create_buffer(ContextState& context, size_t bytes, Memory memory);

} // namespace hearth::kernels::vulkan
