// Opening a device for compute, its memory, and transfers through staging buffers.
#include "kernels/vulkan/vulkan_context.h"
#include "kernels/vulkan/vulkan_state.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

namespace hearth::kernels::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
// Transfers to and from device-local buffers go through staging chunks of at most this size.
constexpr size_t kStagingChunk = size_t{64} << 20;

bool env_validation() {
    const char* value = std::getenv("HEARTH_VULKAN_VALIDATION");
    return value && std::string_view(value) == "1";
}

// The environment variable `name`, where set to a number.
std::optional<uint32_t> env_number(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    char* end = nullptr;
    const unsigned long n = std::strtoul(value, &end, 10);
    if (*end != '\0' || n > 1000000) return std::nullopt;
    return static_cast<uint32_t>(n);
}

bool layer_available(const char* name) {
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
    std::vector<VkLayerProperties> layers(count);
    if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
    return std::any_of(layers.begin(), layers.end(),
                       [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                     void* user) {
    if (!(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) return VK_FALSE;
    auto* state = static_cast<ContextState*>(user);
    state->validation_errors.fetch_add(1);
    const char* message = data && data->pMessage ? data->pMessage : "(no message)";
    {
        std::lock_guard lock(state->message_mutex);
        state->last_validation_message = message;
    }
    std::fprintf(stderr, "Vulkan validation error: %s\n", message);
    return VK_FALSE;
}

std::string mib(uint64_t bytes) {
    return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

// "device-local heaps of 2048 MiB" for the messages of memory errors.
std::string mib_of_heaps(const VkPhysicalDeviceMemoryProperties& memory) {
    std::string heaps;
    for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
        if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            heaps += (heaps.empty() ? "" : ", ") + mib(memory.memoryHeaps[i].size);
    return "device-local heaps of " + (heaps.empty() ? std::string("0 MiB") : heaps);
}

} // namespace

void ContextState::throw_if_lost() const {
    if (lost) throw DeviceLost("Vulkan device " + info.name + " was lost earlier (VK_ERROR_DEVICE_LOST)");
}

void ContextState::check(VkResult result, const char* what) {
    if (result == VK_SUCCESS) return;
    const std::string message =
        std::string("Vulkan: ") + what + " failed on " + info.name + ": " + result_name(result);
    if (result == VK_ERROR_DEVICE_LOST) {
        lost = true;
        throw DeviceLost(message + " (the device or its driver stopped; restart the engine on the CPU)");
    }
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw OutOfDeviceMemory(message + " (out of memory: " + mib_of_heaps(memory) + ")");
    throw Error(message);
}

void ContextState::wait(VkFence fence, const char* what) {
    const uint64_t timeout_ns = uint64_t{options.timeout_ms} * 1000000u;
    const VkResult result = vkWaitForFences(device, 1, &fence, VK_TRUE, timeout_ns);
    if (result == VK_TIMEOUT)
        throw Error(std::string("Vulkan: ") + what + " did not finish within " +
                    std::to_string(options.timeout_ms) + " ms on " + info.name);
    check(result, what);
}

uint32_t ContextState::memory_type(uint32_t type_bits, Memory kind) const {
    // Device-local: the first DEVICE_LOCAL type (drivers list the best first). Host-visible:
    // coherent, preferably cached (downloads read it).
    const auto find = [&](VkMemoryPropertyFlags wanted) -> int {
        for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
            if ((type_bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted)
                return static_cast<int>(i);
        return -1;
    };
    int type = -1;
    if (kind == Memory::DeviceLocal) {
        type = find(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    } else {
        type = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (type < 0) type = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    }
    if (type < 0)
        throw Error("Vulkan: " + info.name + " has no " +
                    (kind == Memory::DeviceLocal ? "device-local" : "host-visible coherent") +
                    " memory type");
    return static_cast<uint32_t>(type);
}

void ContextState::destroy() {
    if (device) {
        vkDeviceWaitIdle(device);
        staging.reset();
        placeholder.reset();
        for (auto& [key, pipeline] : pipelines)
            vkDestroyPipeline(device, pipeline, nullptr);
        for (auto& [name, module] : modules)
            vkDestroyShaderModule(device, module, nullptr);
        if (pipeline_cache) vkDestroyPipelineCache(device, pipeline_cache, nullptr);
        if (pipeline_layout) vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
        if (set_layout) vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
        if (transfer_fence) vkDestroyFence(device, transfer_fence, nullptr);
        if (transfer_pool) vkDestroyCommandPool(device, transfer_pool, nullptr);
        vkDestroyDevice(device, nullptr);
        device = VK_NULL_HANDLE;
    }
    if (messenger) {
        auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy_messenger) destroy_messenger(instance, messenger, nullptr);
        messenger = VK_NULL_HANDLE;
    }
    if (instance) {
        vkDestroyInstance(instance, nullptr);
        instance = VK_NULL_HANDLE;
    }
}

Context::Context(ContextOptions options) : state_(std::make_shared<ContextState>()) {
    ContextState& s = *state_;
    s.options = std::move(options);
    s.validation = s.options.validation || env_validation();
    if (const auto every = env_number("HEARTH_VULKAN_DISPATCHES_PER_SUBMIT"))
        s.options.dispatches_per_submit = *every;
    if (const auto rows = env_number("HEARTH_VULKAN_MATVEC_ROWS")) s.options.matvec_rows = *rows;
    if (s.options.matvec_rows > 8 || (s.options.matvec_rows & (s.options.matvec_rows - 1)) != 0)
        throw Error("Vulkan: matvec_rows " + std::to_string(s.options.matvec_rows) + " (0, 1, 2, 4 or 8)");
    if (const auto threads = env_number("HEARTH_VULKAN_MATVEC_WORKGROUP"))
        s.options.matvec_workgroup = *threads;
    if (s.options.matvec_workgroup > 128 ||
        (s.options.matvec_workgroup & (s.options.matvec_workgroup - 1)) != 0)
        throw Error("Vulkan: matvec_workgroup " + std::to_string(s.options.matvec_workgroup) +
                    " (0, or a power of two up to 128)");
    try {
        if (s.validation && !layer_available(kValidationLayer))
            throw Error(std::string("Vulkan validation was asked for (ContextOptions::validation or "
                                    "HEARTH_VULKAN_VALIDATION=1) but ") +
                        kValidationLayer + " is not installed: install the package vulkan-validationlayers");

        auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        app.pApplicationName = "hearth";
        app.pEngineName = "hearth";
        app.apiVersion = VK_API_VERSION_1_2;
        auto messenger_info = vk_struct<VkDebugUtilsMessengerCreateInfoEXT>(
            VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
        messenger_info.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
        messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        messenger_info.pfnUserCallback = on_validation_message;
        messenger_info.pUserData = &s;
        const char* layers[] = {kValidationLayer};
        const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                                    VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
        // Synchronization validation too: the recorder leaves out the barriers between commands
        // that do not depend on each other, and the layer reports any hazard that leaves.
        const VkValidationFeatureEnableEXT enabled_features[] = {
            VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
        auto features = vk_struct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enabled_features;
        auto create = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        create.pApplicationInfo = &app;
        if (s.validation) {
            create.enabledLayerCount = 1;
            create.ppEnabledLayerNames = layers;
            create.enabledExtensionCount = 2;
            create.ppEnabledExtensionNames = extensions;
            features.pNext = &messenger_info; // errors of vkCreateInstance itself
            create.pNext = &features;
        }
        const VkResult created = vkCreateInstance(&create, nullptr, &s.instance);
        if (created == VK_ERROR_INCOMPATIBLE_DRIVER || created == VK_ERROR_INITIALIZATION_FAILED)
            throw Error(std::string("Vulkan: no driver (") + result_name(created) +
                        "): install the GPU's Vulkan driver, or mesa-vulkan-drivers for lavapipe on the CPU");
        s.check(created, "creating the instance");
        if (s.validation) {
            auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(s.instance, "vkCreateDebugUtilsMessengerEXT"));
            if (!create_messenger)
                throw Error("Vulkan: VK_EXT_debug_utils has no vkCreateDebugUtilsMessengerEXT");
            s.check(create_messenger(s.instance, &messenger_info, nullptr, &s.messenger),
                    "creating the validation messenger");
        }

        uint32_t count = 0;
        s.check(vkEnumeratePhysicalDevices(s.instance, &count, nullptr), "listing the devices");
        std::vector<VkPhysicalDevice> physical(count);
        if (count)
            s.check(vkEnumeratePhysicalDevices(s.instance, &count, physical.data()), "listing the devices");
        if (count == 0) throw Error("Vulkan: no device (the loader found no driver with a device)");
        std::vector<DeviceInfo> infos;
        for (uint32_t i = 0; i < count; ++i)
            infos.push_back(query_device(physical[i], static_cast<int>(i)));
        int index = s.options.device_index;
        if (index < 0) {
            index = best_device(infos);
            if (index < 0) throw Error("Vulkan: no usable device: " + describe(infos.front()));
        }
        if (index >= static_cast<int>(count))
            throw Error("Vulkan: no device vulkan:" + std::to_string(index) + " (there " +
                        (count == 1 ? "is 1 device" : "are " + std::to_string(count) + " devices") +
                        ", vulkan:0 to vulkan:" + std::to_string(count - 1) + ")");
        s.info = infos[static_cast<size_t>(index)];
        if (!s.info.unusable_reason.empty())
            throw Error("Vulkan: device vulkan:" + std::to_string(index) + " (" + s.info.name +
                        ") cannot run the backend: " + s.info.unusable_reason);
        s.physical = physical[static_cast<size_t>(index)];
        vkGetPhysicalDeviceProperties(s.physical, &s.properties);
        vkGetPhysicalDeviceMemoryProperties(s.physical, &s.memory);

        s.queue_family = static_cast<uint32_t>(compute_queue_family(s.physical));
        uint32_t family_count = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &family_count, nullptr);
        std::vector<VkQueueFamilyProperties> families(family_count);
        vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &family_count, families.data());
        s.timestamps =
            families[s.queue_family].timestampValidBits > 0 && s.properties.limits.timestampPeriod > 0;

        {
            auto subgroup_size = vk_struct<VkPhysicalDeviceSubgroupSizeControlProperties>(
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES);
            auto subgroup = vk_struct<VkPhysicalDeviceSubgroupProperties>(
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
            const bool size_control = s.properties.apiVersion >= VK_API_VERSION_1_3 ||
                                      has_extension(s.physical, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
            if (size_control) subgroup.pNext = &subgroup_size;
            auto properties2 = vk_struct<VkPhysicalDeviceProperties2>(
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup);
            vkGetPhysicalDeviceProperties2(s.physical, &properties2);
            s.subgroup_arithmetic = s.options.subgroup_operations &&
                                    (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                    (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                    (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
            s.subgroup_min = std::max<uint32_t>(1, subgroup.subgroupSize);
            if (size_control && subgroup_size.minSubgroupSize > 0)
                s.subgroup_min = std::min(s.subgroup_min, subgroup_size.minSubgroupSize);
        }

        const float priority = 1.0f;
        auto queue_info = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
        queue_info.queueFamilyIndex = s.queue_family;
        queue_info.queueCount = 1;
        queue_info.pQueuePriorities = &priority;
        auto device_info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
        device_info.queueCreateInfoCount = 1;
        device_info.pQueueCreateInfos = &queue_info;
        s.check(vkCreateDevice(s.physical, &device_info, nullptr, &s.device), "creating the logical device");
        vkGetDeviceQueue(s.device, s.queue_family, 0, &s.queue);

        auto pool_info = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
        pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pool_info.queueFamilyIndex = s.queue_family;
        s.check(vkCreateCommandPool(s.device, &pool_info, nullptr, &s.transfer_pool),
                "creating a command pool");
        auto allocate =
            vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        allocate.commandPool = s.transfer_pool;
        allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        allocate.commandBufferCount = 1;
        s.check(vkAllocateCommandBuffers(s.device, &allocate, &s.transfer_commands),
                "allocating a command buffer");
        auto fence_info = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        s.check(vkCreateFence(s.device, &fence_info, nullptr, &s.transfer_fence), "creating a fence");

        s.create_pipeline_objects();
        s.placeholder = create_buffer(s, 256, Memory::DeviceLocal);
    } catch (...) {
        s.destroy();
        throw;
    }
}

Context::~Context() {
    try {
        save_pipeline_cache();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "Vulkan: the pipeline cache was not saved: %s\n", e.what());
    }
    state_.reset(); // the device goes when the last Buffer or Recorder of it does
}

const DeviceInfo& Context::device() const {
    return state_->info;
}
uint64_t Context::validation_errors() const {
    return state_->validation_errors.load();
}
std::string Context::last_validation_message() const {
    std::lock_guard lock(state_->message_mutex);
    return state_->last_validation_message;
}
bool Context::validation_enabled() const {
    return state_->validation;
}
bool Context::lost() const {
    return state_->lost;
}
uint32_t Context::features() const {
    return state_->features();
}

BufferState::~BufferState() {
    if (!context || !context->device) return;
    if (mapped) vkUnmapMemory(context->device, memory);
    if (buffer) vkDestroyBuffer(context->device, buffer, nullptr);
    if (memory) vkFreeMemory(context->device, memory, nullptr);
}

std::unique_ptr<BufferState> create_buffer(ContextState& c, size_t bytes, Memory memory) {
    c.throw_if_lost();
    auto state = std::make_unique<BufferState>();
    BufferState& b = *state;
    b.context = &c;
    b.size = bytes;
    b.kind = memory;
    const char* kind = memory == Memory::DeviceLocal ? "device-local" : "host-visible";
    auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    b.allocated = (bytes + 4 + 15) / 16 * 16; // never empty; a word past the end for the shaders
    info.size = b.allocated;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    const std::string what = "creating a buffer of " + mib(bytes) + " (" + kind + ")";
    c.check(vkCreateBuffer(c.device, &info, nullptr, &b.buffer), what.c_str());
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(c.device, b.buffer, &requirements);
    auto allocate = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = c.memory_type(requirements.memoryTypeBits, memory);
    const VkResult allocated = vkAllocateMemory(c.device, &allocate, nullptr, &b.memory);
    if (allocated == VK_ERROR_OUT_OF_DEVICE_MEMORY || allocated == VK_ERROR_OUT_OF_HOST_MEMORY) {
        const uint32_t heap = c.memory.memoryTypes[allocate.memoryTypeIndex].heapIndex;
        throw OutOfDeviceMemory("Vulkan: out of memory: allocating " + mib(bytes) + " of " + kind +
                                " memory on " + c.info.name + " (heap of " +
                                mib(c.memory.memoryHeaps[heap].size) + ", " + result_name(allocated) + ")");
    }
    c.check(allocated, what.c_str());
    c.check(vkBindBufferMemory(c.device, b.buffer, b.memory, 0), what.c_str());
    if (memory == Memory::HostVisible)
        c.check(vkMapMemory(c.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), what.c_str());
    return state;
}

BufferState& ContextState::staging_for(size_t bytes) {
    if (!staging || staging->size < bytes) {
        staging.reset();
        staging = create_buffer(*this, bytes, Memory::HostVisible);
    }
    return *staging;
}

Buffer::Buffer(Context& context, size_t bytes, Memory memory)
    : state_(create_buffer(context.state(), bytes, memory)) {
    state_->owner = context.shared_state();
}

Buffer::~Buffer() = default;
Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;
size_t Buffer::size() const {
    return state_ ? state_->size : 0;
}
Memory Buffer::memory() const {
    return state_ ? state_->kind : Memory::DeviceLocal;
}

namespace {

void check_range(const BufferState* b, size_t bytes, size_t offset, const char* what) {
    if (!b) throw Error(std::string("Vulkan: ") + what + " on an empty Buffer");
    if (offset > b->size || bytes > b->size - offset)
        throw Error(std::string("Vulkan: ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                    std::to_string(offset) + " outside a buffer of " + std::to_string(b->size) + " bytes");
}

// Records one copy into the transfer command buffer, submits it and waits.
void transfer(ContextState& c, VkBuffer from, size_t from_offset, VkBuffer to, size_t to_offset, size_t bytes,
              const char* what) {
    c.throw_if_lost();
    c.check(vkResetCommandBuffer(c.transfer_commands, 0), what);
    auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    c.check(vkBeginCommandBuffer(c.transfer_commands, &begin), what);
    const VkBufferCopy region{from_offset, to_offset, bytes};
    vkCmdCopyBuffer(c.transfer_commands, from, to, 1, &region);
    // The copy's writes become visible to later shaders and to the host.
    auto barrier = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(c.transfer_commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    c.check(vkEndCommandBuffer(c.transfer_commands), what);
    c.check(vkResetFences(c.device, 1, &c.transfer_fence), what);
    auto submit = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &c.transfer_commands;
    c.check(vkQueueSubmit(c.queue, 1, &submit, c.transfer_fence), what);
    c.wait(c.transfer_fence, what);
}

} // namespace

void Buffer::upload(const void* src, size_t bytes, size_t offset) {
    check_range(state_.get(), bytes, offset, "upload");
    BufferState& b = *state_;
    if (b.mapped) {
        std::memcpy(static_cast<char*>(b.mapped) + offset, src, bytes);
        return;
    }
    ContextState& c = *b.context;
    for (size_t done = 0; done < bytes;) {
        const size_t chunk = std::min(bytes - done, kStagingChunk);
        BufferState& staging = c.staging_for(chunk);
        std::memcpy(staging.mapped, static_cast<const char*>(src) + done, chunk);
        transfer(c, staging.buffer, 0, b.buffer, offset + done, chunk, "uploading to a device-local buffer");
        done += chunk;
    }
}

void Buffer::download(void* dst, size_t bytes, size_t offset) const {
    check_range(state_.get(), bytes, offset, "download");
    const BufferState& b = *state_;
    if (b.mapped) {
        std::memcpy(dst, static_cast<const char*>(b.mapped) + offset, bytes);
        return;
    }
    ContextState& c = *b.context;
    for (size_t done = 0; done < bytes;) {
        const size_t chunk = std::min(bytes - done, kStagingChunk);
        BufferState& staging = c.staging_for(chunk);
        transfer(c, b.buffer, offset + done, staging.buffer, 0, chunk, "downloading a device-local buffer");
        std::memcpy(static_cast<char*>(dst) + done, staging.mapped, chunk);
        done += chunk;
    }
}

void Buffer::fill_zero() {
    check_range(state_.get(), 0, 0, "fill_zero");
    BufferState& b = *state_;
    if (b.mapped) {
        std::memset(b.mapped, 0, b.size);
        return;
    }
    std::vector<char> zeros(std::min(b.size, kStagingChunk), 0);
    for (size_t done = 0; done < b.size; done += zeros.size())
        upload(zeros.data(), std::min(zeros.size(), b.size - done), done);
}

} // namespace hearth::kernels::vulkan
