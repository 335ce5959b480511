// Recording the ops: each is one or a few dispatches of an embedded shader into the recorder's
// command buffers, with its buffers bound at the device's alignment and the rest of each offset
// passed in push constants, a barrier before it when it depends on a command recorded since the
// last barrier, and on timed passes a timestamp after it. The buffers go to the device a batch
// at a time while the rest of the pass is recorded.
#include "kernels/vulkan/vulkan_ops.h"
#include "kernels/dispatch_metrics.h"
#include "kernels/vulkan/vulkan_kernel_table.h"
#include "kernels/vulkan/vulkan_state.h"
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <thread>

namespace hearth::kernels::vulkan {
namespace {

constexpr uint32_t kSetsPerPool = 256;
constexpr uint32_t kInitialQueries = 1024;
constexpr uint32_t kMaxGroupsPerDimension = 65535;

std::string type_suffix(TensorType type) {
    switch (type) {
    case TensorType::F32:
        return "f32";
    case TensorType::F16:
        return "f16";
    case TensorType::BF16:
        return "bf16";
    case TensorType::Q4_0:
        return "q4_0";
    case TensorType::Q4_1:
        return "q4_1";
    case TensorType::Q5_0:
        return "q5_0";
    case TensorType::Q5_1:
        return "q5_1";
    case TensorType::Q8_0:
        return "q8_0";
    case TensorType::Q2_K:
        return "q2_K";
    case TensorType::Q3_K:
        return "q3_K";
    case TensorType::Q4_K:
        return "q4_K";
    case TensorType::Q5_K:
        return "q5_K";
    case TensorType::Q6_K:
        return "q6_K";
    default:
        return {};
    }
}

[[noreturn]] void fail(const char* op, const std::string& problem) {
    throw Error(std::string("Vulkan ") + op + ": " + problem);
}

uint32_t u32(int64_t value, const char* op, const char* what) {
    if (value < 0 || value > int64_t{UINT32_MAX})
        fail(op, std::string(what) + " = " + std::to_string(value) + " is out of range");
    return static_cast<uint32_t>(value);
}

uint32_t groups_of(int64_t items, int64_t per_group) {
    return static_cast<uint32_t>((items + per_group - 1) / per_group);
}

// Workgroups a dispatch wants to keep the device busy: kGpuWorkgroups on a GPU; a CPU device
// (lavapipe) runs one at a time per core and gains nothing from more, smaller ones.
int64_t workgroups_to_fill(const ContextState& c) {
    if (c.info.type == "cpu") return std::max<int64_t>(2, std::thread::hardware_concurrency());
    return kGpuWorkgroups;
}

// Push-constant words in the order a shader's block declares them.
struct Push {
    std::vector<uint32_t> words;
    Push& u(uint32_t v) {
        words.push_back(v);
        return *this;
    }
    Push& f(float v) {
        words.push_back(std::bit_cast<uint32_t>(v));
        return *this;
    }
};

// The shader of a typed candidate: its name, then the weight type.
std::string typed_shader(const Candidate<ShaderPlan>& candidate, TensorType type) {
    return std::string(candidate.name) + "_" + type_suffix(type);
}

// What a timestamp after a command is counted as: its op and the candidate that ran it.
struct TimedOp {
    std::string op;
    KernelId kernel = kUnnamedKernel;
};

} // namespace

bool vulkan_supports_weight_type(TensorType type) {
    return static_cast<uint32_t>(type) < kTensorTypeSlots && !vulkan_kernels().of(type).matmul.empty();
}

// A buffer span as a shader sees it: bound from an aligned offset, with the rest of the offset
// (`skew` bytes) added by the shader.
struct Binding {
    VkDescriptorBufferInfo info{};
    uint32_t skew = 0;
    bool written = false; // the shader writes it (the recorder orders the dispatches that touch it)
    uint32_t words() const { return skew / 4; }
    Binding writes() const {
        Binding b = *this;
        b.written = true;
        return b;
    }
};

// Bytes of a buffer a command reads or writes, for the barriers between commands.
struct Access {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize begin = 0, end = 0;
    bool write = false;
    bool conflicts(const Access& other) const {
        return buffer == other.buffer && begin < other.end && other.begin < end && (write || other.write);
    }
};

// Device memory a recorder hands out to its own ops (attention's splits), reused every pass.
struct ScratchBlock {
    std::unique_ptr<BufferState> buffer;
    size_t used = 0;
};

struct RecorderState {
    std::shared_ptr<ContextState> owner; // the device outlives the recorder
    ContextState& c;
    VkCommandPool pool = VK_NULL_HANDLE;
    // A pass is recorded into buffers[0], [1], ...: each goes to the device once it holds
    // dispatches_per_submit commands, the last with the fence (which waits for all of them).
    std::vector<VkCommandBuffer> buffers;
    size_t buffer_index = 0;
    uint32_t commands_in_buffer = 0;
    VkCommandBuffer commands = VK_NULL_HANDLE; // buffers[buffer_index]
    // Batches of this pass submitted without the fence: a pass given up after one was sent
    // waits for the queue before its buffers are reused.
    bool unfenced_submits = false;
    bool timing = false; // the pass begun last takes a timestamp after each command
    std::chrono::milliseconds timing_interval{0};
    std::optional<std::chrono::steady_clock::time_point> last_timed_begin;
    VkFence fence = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> descriptor_pools;
    size_t pool_index = 0;
    uint32_t sets_in_pool = 0;
    VkQueryPool queries = VK_NULL_HANDLE;
    uint32_t query_capacity = 0;
    uint32_t queries_wanted = kInitialQueries;
    std::vector<TimedOp> timed_ops; // of each timestamp after the first
    uint32_t dispatch_count = 0;
    bool recording = false, pending = false;
    std::vector<OpTiming> last_timings;
    // What the commands recorded since the last barrier touch: a command that conflicts with
    // any of them (reads what one writes, or writes what one reads or writes) gets a barrier
    // first; the others run without one.
    std::vector<Access> unordered;
    std::vector<ScratchBlock> scratch;

    explicit RecorderState(std::shared_ptr<ContextState> context) : owner(std::move(context)), c(*owner) {}
    ~RecorderState();

    // `bytes` of a view; `spare` more bytes after them may be read (weights: the shaders read a
    // word past a row's last byte; every buffer has those bytes allocated).
    Binding bind(View view, size_t bytes, const char* op, const char* what, size_t spare = 0) const;
    Binding bind_range(const BufferState& b, size_t offset, size_t bytes, const char* op, const char* what,
                       size_t spare = 0) const;
    // `bytes` of the recorder's scratch memory, free until the next begin().
    Binding scratch_binding(size_t bytes, const char* op);
    VkDescriptorSet allocate_set();
    void ensure_query_pool();
    // A barrier before a command with these accesses when it depends on the unordered ones.
    void order(const Access* accesses, size_t count);
    void barrier();
    void after_command(const char* op, KernelId kernel = kUnnamedKernel);
    // Ends the current buffer and submits it (with `signal`, or none), then begins the next.
    void submit_buffer(VkFence signal, const char* what);
    void begin_buffer();
    void wait_for_unfenced();
    // One dispatch of a shader; `kernel`: the candidate it runs for, in the timings.
    void dispatch(const char* op, const std::string& shader, const std::vector<uint32_t>& constants,
                  std::initializer_list<Binding> bindings, const Push& push, uint32_t groups,
                  uint32_t groups_z = 1, KernelId kernel = kUnnamedKernel);
    void require_recording(const char* op) const {
        if (!recording) fail(op, "call Recorder::begin() first");
    }
};

RecorderState::~RecorderState() {
    if (!c.device) return;
    if (pending) vkWaitForFences(c.device, 1, &fence, VK_TRUE, uint64_t{c.options.timeout_ms} * 1000000u);
    if (unfenced_submits) vkQueueWaitIdle(c.queue);
    for (VkDescriptorPool p : descriptor_pools)
        vkDestroyDescriptorPool(c.device, p, nullptr);
    if (queries) vkDestroyQueryPool(c.device, queries, nullptr);
    if (fence) vkDestroyFence(c.device, fence, nullptr);
    if (pool) vkDestroyCommandPool(c.device, pool, nullptr);
}

Binding RecorderState::bind(View view, size_t bytes, const char* op, const char* what, size_t spare) const {
    if (!view.buffer || !view.buffer->valid()) fail(op, std::string(what) + ": no buffer");
    const BufferState& b = view.buffer->state();
    if (b.context != &c) fail(op, std::string(what) + ": the buffer belongs to another Context");
    return bind_range(b, view.offset, bytes, op, what, spare);
}

Binding RecorderState::bind_range(const BufferState& b, size_t offset, size_t bytes, const char* op,
                                  const char* what, size_t spare) const {
    if (offset > b.size || bytes > b.size - offset)
        fail(op, std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " +
                     std::to_string(offset) + " pass the end of its buffer of " + std::to_string(b.size) +
                     " bytes");
    const size_t alignment = std::max<size_t>(c.properties.limits.minStorageBufferOffsetAlignment, 4);
    const size_t aligned = offset / alignment * alignment;
    const size_t skew = offset - aligned;
    size_t range = (skew + std::max<size_t>(bytes, 1) + spare + 3) / 4 * 4;
    range = std::min(range, b.allocated - aligned);
    if (range > c.binding_limit())
        fail(op, std::string(what) + " spans " + std::to_string(range) +
                     " bytes, more than one binding holds (" + std::to_string(c.binding_limit()) +
                     ", maxStorageBufferRange)");
    Binding binding;
    binding.info = {b.buffer, aligned, std::max<size_t>(range, 4)};
    binding.skew = static_cast<uint32_t>(skew);
    return binding;
}

Binding RecorderState::scratch_binding(size_t bytes, const char* op) {
    const size_t alignment = std::max<size_t>(c.properties.limits.minStorageBufferOffsetAlignment, 16);
    bytes = (bytes + alignment - 1) / alignment * alignment;
    for (ScratchBlock& block : scratch)
        if (block.buffer->size - block.used >= bytes) {
            const Binding b = bind_range(*block.buffer, block.used, bytes, op, "scratch");
            block.used += bytes;
            return b;
        }
    constexpr size_t kScratchBlockBytes = size_t{4} << 20;
    scratch.push_back({create_buffer(c, std::max(bytes, kScratchBlockBytes), Memory::DeviceLocal), bytes});
    return bind_range(*scratch.back().buffer, 0, bytes, op, "scratch");
}

VkDescriptorSet RecorderState::allocate_set() {
    if (sets_in_pool == kSetsPerPool) {
        ++pool_index;
        sets_in_pool = 0;
    }
    if (pool_index == descriptor_pools.size()) {
        const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kBindings};
        auto info = vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
        info.maxSets = kSetsPerPool;
        info.poolSizeCount = 1;
        info.pPoolSizes = &size;
        VkDescriptorPool created = VK_NULL_HANDLE;
        c.check(vkCreateDescriptorPool(c.device, &info, nullptr, &created), "creating a descriptor pool");
        descriptor_pools.push_back(created);
    }
    auto info = vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    info.descriptorPool = descriptor_pools[pool_index];
    info.descriptorSetCount = 1;
    info.pSetLayouts = &c.set_layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    c.check(vkAllocateDescriptorSets(c.device, &info, &set), "allocating a descriptor set");
    ++sets_in_pool;
    return set;
}

void RecorderState::ensure_query_pool() {
    if (!c.timestamps || (queries && query_capacity >= queries_wanted)) return;
    if (queries) vkDestroyQueryPool(c.device, queries, nullptr);
    queries = VK_NULL_HANDLE;
    auto info = vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = queries_wanted;
    c.check(vkCreateQueryPool(c.device, &info, nullptr, &queries), "creating the timestamp query pool");
    query_capacity = queries_wanted;
}

void RecorderState::barrier() {
    auto barrier = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(commands, stages, stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    unordered.clear();
}

void RecorderState::order(const Access* accesses, size_t count) {
    bool depends = false;
    for (size_t i = 0; i < count && !depends; ++i)
        for (const Access& before : unordered)
            if (accesses[i].conflicts(before)) {
                depends = true;
                break;
            }
    if (depends) barrier();
    unordered.insert(unordered.end(), accesses, accesses + count);
}

void RecorderState::begin_buffer() {
    if (buffer_index == buffers.size()) {
        auto allocate =
            vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        allocate.commandPool = pool;
        allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        allocate.commandBufferCount = 1;
        VkCommandBuffer made = VK_NULL_HANDLE;
        c.check(vkAllocateCommandBuffers(c.device, &allocate, &made), "allocating a command buffer");
        buffers.push_back(made);
    }
    commands = buffers[buffer_index];
    commands_in_buffer = 0;
    auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    c.check(vkBeginCommandBuffer(commands, &begin), "beginning a command buffer");
}

void RecorderState::submit_buffer(VkFence signal, const char* what) {
    c.check(vkEndCommandBuffer(commands), "ending a command buffer");
    auto submit = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    c.check(vkQueueSubmit(c.queue, 1, &submit, signal), what);
    if (signal == VK_NULL_HANDLE) unfenced_submits = true;
}

void RecorderState::wait_for_unfenced() {
    if (!unfenced_submits) return;
    c.check(vkQueueWaitIdle(c.queue), "waiting for a forward pass that was given up");
    unfenced_submits = false;
}

void RecorderState::after_command(const char* op, KernelId kernel) {
    ++dispatch_count;
    ++commands_in_buffer;
    if (timing) {
        // Timestamp 0 is taken at begin(); a pass with more ops than the pool holds times the
        // first ones and grows the pool for the next pass.
        const uint32_t index = static_cast<uint32_t>(timed_ops.size()) + 1;
        if (index < query_capacity) {
            vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, index);
            timed_ops.push_back({op, kernel});
        } else {
            queries_wanted = std::max(queries_wanted, 2 * query_capacity);
        }
    }
    // The batch goes to the device; the next buffer starts with a barrier, which orders its
    // commands after everything submitted before it on the queue.
    const uint32_t every = c.options.dispatches_per_submit;
    if (every > 0 && commands_in_buffer >= every) {
        submit_buffer(VK_NULL_HANDLE, "submitting part of the forward pass");
        ++buffer_index;
        begin_buffer();
        barrier();
    }
}

void RecorderState::dispatch(const char* op, const std::string& shader,
                             const std::vector<uint32_t>& constants, std::initializer_list<Binding> bindings,
                             const Push& push, uint32_t groups, uint32_t groups_z, KernelId kernel) {
    require_recording(op);
    if (groups == 0 || groups_z == 0) return;
    if (push.words.size() * 4 > kPushConstantBytes) fail(op, "too many push constants");
    const VkPipeline pipeline = c.pipeline(shader, constants);
    const VkDescriptorSet set = allocate_set();
    VkDescriptorBufferInfo infos[kBindings];
    VkWriteDescriptorSet writes[kBindings];
    const BufferState& placeholder = *c.placeholder;
    Access accesses[kBindings];
    uint32_t i = 0;
    for (const Binding& b : bindings) {
        accesses[i] = {b.info.buffer, b.info.offset, b.info.offset + b.info.range, b.written};
        infos[i++] = b.info;
    }
    order(accesses, bindings.size());
    for (; i < kBindings; ++i)
        infos[i] = {placeholder.buffer, 0, VK_WHOLE_SIZE};
    for (uint32_t j = 0; j < kBindings; ++j) {
        writes[j] = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        writes[j].dstSet = set;
        writes[j].dstBinding = j;
        writes[j].descriptorCount = 1;
        writes[j].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[j].pBufferInfo = &infos[j];
    }
    vkUpdateDescriptorSets(c.device, kBindings, writes, 0, nullptr);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, c.pipeline_layout, 0, 1, &set, 0,
                            nullptr);
    vkCmdPushConstants(commands, c.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push.words.size() * 4), push.words.data());
    // Linear group counts above one dimension's limit are folded into y (shaders: linear_group()).
    const uint32_t x = std::min(groups, kMaxGroupsPerDimension);
    const uint32_t y = (groups + x - 1) / x;
    if (y > kMaxGroupsPerDimension || groups_z > kMaxGroupsPerDimension)
        fail(op, "too many workgroups (" + std::to_string(groups) + " x " + std::to_string(groups_z) + ")");
    vkCmdDispatch(commands, x, y, groups_z);
    after_command(op, kernel);
}

Recorder::Recorder(Context& context) : state_(std::make_unique<RecorderState>(context.shared_state())) {
    RecorderState& s = *state_;
    ContextState& c = s.c;
    c.throw_if_lost();
    auto pool_info = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool_info.queueFamilyIndex = c.queue_family;
    c.check(vkCreateCommandPool(c.device, &pool_info, nullptr, &s.pool),
            "creating the recorder's command pool");
    auto fence_info = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    c.check(vkCreateFence(c.device, &fence_info, nullptr, &s.fence), "creating the recorder's fence");
}

Recorder::~Recorder() = default;

void Recorder::begin() {
    RecorderState& s = *state_;
    ContextState& c = s.c;
    c.throw_if_lost();
    if (s.pending) {
        c.wait(s.fence, "the previous submit");
        s.pending = false;
    }
    s.wait_for_unfenced();
    s.recording = false;
    c.check(vkResetCommandPool(c.device, s.pool, 0), "resetting the command buffers");
    for (VkDescriptorPool p : s.descriptor_pools)
        c.check(vkResetDescriptorPool(c.device, p, 0), "resetting a descriptor pool");
    s.pool_index = 0;
    s.sets_in_pool = 0;
    // Per-command timestamps while the dispatch metrics are on, once per interval.
    const auto now = std::chrono::steady_clock::now();
    s.timing = c.timestamps && dispatch_metrics::enabled() &&
               (!s.last_timed_begin || now - *s.last_timed_begin >= s.timing_interval);
    if (s.timing) {
        s.last_timed_begin = now;
        s.ensure_query_pool();
    }
    s.buffer_index = 0;
    s.begin_buffer();
    s.timed_ops.clear();
    s.dispatch_count = 0;
    if (s.timing) {
        vkCmdResetQueryPool(s.commands, s.queries, 0, s.query_capacity);
        vkCmdWriteTimestamp(s.commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s.queries, 0);
    }
    // What earlier submits wrote is seen by this one's commands.
    s.barrier();
    for (ScratchBlock& block : s.scratch)
        block.used = 0;
    s.recording = true;
}

void Recorder::submit_and_wait() {
    RecorderState& s = *state_;
    ContextState& c = s.c;
    s.require_recording("submit_and_wait");
    c.throw_if_lost();
    s.recording = false;
    // The host reads what the shaders and copies wrote.
    auto barrier = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(s.commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    c.check(vkResetFences(c.device, 1, &s.fence), "resetting the fence");
    s.submit_buffer(s.fence, "submitting the forward pass");
    s.pending = true;
    c.wait(s.fence, "the forward pass"); // the fence's wait covers the batches before it
    s.pending = false;
    s.unfenced_submits = false;

    if (!s.timing) return;
    s.last_timings.clear();
    if (!s.timed_ops.empty()) {
        const uint32_t count = static_cast<uint32_t>(s.timed_ops.size()) + 1;
        std::vector<uint64_t> stamps(count);
        c.check(vkGetQueryPoolResults(c.device, s.queries, 0, count, count * sizeof(uint64_t), stamps.data(),
                                      sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                "reading the timestamps");
        const double period = c.properties.limits.timestampPeriod;
        std::map<std::pair<std::string, KernelId>, size_t> slot;
        for (uint32_t i = 1; i < count; ++i) {
            const TimedOp& op = s.timed_ops[i - 1];
            auto [it, inserted] = slot.emplace(std::pair(op.op, op.kernel), s.last_timings.size());
            if (inserted) s.last_timings.push_back({op.op, op.kernel, 0, 0});
            OpTiming& t = s.last_timings[it->second];
            ++t.dispatches;
            const uint64_t ticks = stamps[i] >= stamps[i - 1] ? stamps[i] - stamps[i - 1] : 0;
            t.ns += static_cast<uint64_t>(static_cast<double>(ticks) * period);
        }
    }
}

std::vector<OpTiming> Recorder::timings() const {
    return state_->last_timings;
}
void Recorder::set_timing_interval(std::chrono::milliseconds interval) {
    state_->timing_interval = interval;
}
bool Recorder::last_pass_timed() const {
    return state_->timing;
}
uint32_t Recorder::dispatches() const {
    return state_->dispatch_count;
}

void Recorder::matmul(const DeviceMatrix& w, View x, int64_t batch, View y) {
    matmul_rows(w, 0, w.rows, x, batch, y, w.rows, Epilogue{});
}

void Recorder::matmul_add(const DeviceMatrix& w, View x, int64_t batch, View y) {
    matmul_rows(w, 0, w.rows, x, batch, y, w.rows, Epilogue{.accumulate = true, .bias = {}});
}

void Recorder::matmul_bias(const DeviceMatrix& w, View x, int64_t batch, View y, View bias) {
    if (!bias.buffer) fail("matmul", "matmul_bias without a bias");
    matmul_rows(w, 0, w.rows, x, batch, y, w.rows, Epilogue{.accumulate = false, .bias = bias});
}

void Recorder::matmul_rows(const DeviceMatrix& w, int64_t row_begin, int64_t n_rows, View x, int64_t batch,
                           View y, int64_t y_stride) {
    matmul_rows(w, row_begin, n_rows, x, batch, y, y_stride, Epilogue{});
}

namespace {

void check_matrix(const DeviceMatrix& w, const char* op) {
    if (!vulkan_supports_weight_type(w.type))
        fail(op, "weights of type " + std::string(type_traits(w.type).name) + " are not supported");
    const TypeTraits traits = type_traits(w.type);
    if (w.rows <= 0 || w.cols <= 0 || w.cols % traits.block_elements != 0)
        fail(op, "a " + std::to_string(w.rows) + " x " + std::to_string(w.cols) + " " +
                     std::string(traits.name) + " matrix (columns must be a positive multiple of " +
                     std::to_string(traits.block_elements) + ")");
}

// Rows of a matrix one binding can hold on this device, whole rows from an aligned start.
int64_t rows_per_binding(const ContextState& c, size_t row_bytes) {
    const size_t usable =
        c.binding_limit() - std::max<size_t>(c.properties.limits.minStorageBufferOffsetAlignment, 4) - 4;
    return std::max<int64_t>(1, static_cast<int64_t>(usable / row_bytes));
}

View advance(View v, size_t bytes) {
    return {v.buffer, v.offset + bytes};
}

} // namespace

namespace {

// Elements of the unit one thread of the mat-vec shader reads at a time (dot_units.glsl).
int64_t matvec_unit(TensorType type) {
    switch (type) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
        return 8;
    case TensorType::Q2_K:
    case TensorType::Q3_K:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
        return 64;
    default:
        return 32;
    }
}

// The mat-vec shader's workgroup for a matrix: threads for about two units each of a row
// (whole subgroups, 32 to 128), and rows per workgroup.
struct MatVecPlan {
    uint32_t workgroup = 32, rows = 2;
};

MatVecPlan plan_matvec(const ContextState& c, TensorType type, int64_t rows, int64_t cols, int64_t columns) {
    MatVecPlan plan;
    const int64_t units = (cols + matvec_unit(type) - 1) / matvec_unit(type);
    const uint32_t smallest = std::max<uint32_t>(32, std::min<uint32_t>(c.info.subgroup_size, 128));
    plan.workgroup = smallest;
    while (plan.workgroup < 128 && int64_t{plan.workgroup} * 4 <= units)
        plan.workgroup *= 2;
    // Never below a subgroup: the shader's reduction keeps a sum per subgroup.
    if (c.options.matvec_workgroup > 0) plan.workgroup = std::max(c.options.matvec_workgroup, c.subgroup_min);
    // More rows per workgroup share each piece of x among more rows, while tall matrices keep
    // enough workgroups; with several columns each row's words already serve them all, and
    // rows x columns sums stay within a thread's registers.
    if (columns == 1)
        plan.rows = c.options.matvec_rows > 0 ? c.options.matvec_rows : rows >= 4096 ? 4 : 2;
    else
        plan.rows = columns <= 4 ? 2 : 1;
    return plan;
}

// The mat-mat shader's tile: 128 rows x 64 columns where the matrix gives enough tiles to fill
// the device, smaller where it does not; columns to the batch's multiple of 16.
struct MatMatPlan {
    uint32_t tile_rows = 128, tile_columns = 64;
};

MatMatPlan plan_matmat(const ContextState& c, int64_t rows, int64_t batch) {
    MatMatPlan plan;
    const int64_t wanted = workgroups_to_fill(c);
    plan.tile_columns = batch >= 64 ? 64 : static_cast<uint32_t>((batch + 15) / 16 * 16);
    const auto tiles = [&] {
        return groups_of(rows, plan.tile_rows) * int64_t{groups_of(batch, plan.tile_columns)};
    };
    while (plan.tile_rows > 32 && tiles() < wanted)
        plan.tile_rows /= 2;
    if (tiles() < wanted && plan.tile_columns > 32) plan.tile_columns = 32;
    return plan;
}

// Whether every word the matmul shaders read of these weights is 4-byte aligned: rows start at
// aligned bytes and the type's blocks keep their words aligned (F16 and BF16 rows are read in
// 16-byte units).
bool word_aligned(TensorType type, const Binding& weights, size_t row_bytes) {
    const bool blocks_aligned =
        type_traits(type).block_bytes % 4 == 0 || type == TensorType::F16 || type == TensorType::BF16;
    return weights.skew % 4 == 0 && row_bytes % 4 == 0 && blocks_aligned;
}

// Whether the mat-vec shader may read these weights' blocks in 16-byte loads: Q4_K and Q5_K
// blocks (144 and 176 bytes) with every row, and the binding, at a multiple of 16 bytes.
bool vec16_aligned(TensorType type, const Binding& weights, size_t row_bytes) {
    const bool type_fits = type == TensorType::Q4_K || type == TensorType::Q5_K;
    return type_fits && weights.info.offset % 16 == 0 && weights.skew % 16 == 0 && row_bytes % 16 == 0;
}

} // namespace

void Recorder::matmul_rows(const DeviceMatrix& w, int64_t row_begin, int64_t n_rows, View x, int64_t batch,
                           View y, int64_t y_stride, const Epilogue& epilogue) {
    const char* op = "matmul";
    const bool accumulate = epilogue.accumulate, with_bias = epilogue.bias.buffer != nullptr;
    RecorderState& s = *state_;
    check_matrix(w, op);
    if (row_begin < 0 || n_rows <= 0 || row_begin + n_rows > w.rows)
        fail(op, "rows [" + std::to_string(row_begin) + ", " + std::to_string(row_begin + n_rows) +
                     ") of a matrix of " + std::to_string(w.rows));
    if (batch <= 0) fail(op, "batch " + std::to_string(batch));
    if (y_stride < n_rows) fail(op, "y_stride " + std::to_string(y_stride) + " below the rows written");
    const size_t row_bytes = kernels::row_bytes(w.type, w.cols);
    const uint32_t cols = u32(w.cols, op, "cols");
    const Binding xb = s.bind(x, static_cast<size_t>(batch * w.cols) * 4, op, "x");
    const Candidate<ShaderPlan>* candidate =
        vulkan_kernels().of(w.type).matmul.pick({.batch = batch,
                                                 .rows = n_rows,
                                                 .width = w.cols,
                                                 .device = Device::Vulkan,
                                                 .features = s.c.features()});
    if (!candidate) fail(op, "no shader takes a batch of " + std::to_string(batch));
    const std::string shader = typed_shader(*candidate, w.type);
    const int64_t chunk = rows_per_binding(s.c, row_bytes);
    for (int64_t r0 = 0; r0 < n_rows; r0 += chunk) {
        const int64_t rows = std::min(chunk, n_rows - r0);
        const Binding wb = s.bind(advance(w.data, static_cast<size_t>(row_begin + r0) * row_bytes),
                                  static_cast<size_t>(rows) * row_bytes, op, "weights", 4);
        const Binding yb = s.bind(advance(y, static_cast<size_t>(r0) * 4),
                                  static_cast<size_t>((batch - 1) * y_stride + rows) * 4, op, "y");
        // The bias's rows of this chunk (bound only where there is one).
        const Binding bb = with_bias ? s.bind(advance(epilogue.bias, static_cast<size_t>(r0) * 4),
                                              static_cast<size_t>(rows) * 4, op, "bias")
                                     : Binding{};
        if (candidate->fn == ShaderPlan::MatVec) {
            const MatVecPlan plan = plan_matvec(s.c, w.type, rows, w.cols, batch);
            const uint32_t row_groups = groups_of(rows, plan.rows);
            Push push;
            push.u(wb.skew).u(xb.words()).u(yb.words()).u(bb.words()).u(u32(rows, op, "rows")).u(cols);
            push.u(u32(static_cast<int64_t>(row_bytes), op, "row bytes")).u(static_cast<uint32_t>(batch));
            push.u(cols).u(u32(y_stride, op, "y_stride")).u(1).u(0).u(row_groups).u(0);
            const bool x_vec4 = xb.words() % 4 == 0 && w.cols % 4 == 0;
            s.dispatch(op, shader,
                       {plan.workgroup, plan.rows, static_cast<uint32_t>(batch), x_vec4, s.c.subgroup_min,
                        word_aligned(w.type, wb, row_bytes), accumulate, vec16_aligned(w.type, wb, row_bytes),
                        with_bias},
                       with_bias ? std::initializer_list<Binding>{wb, xb, yb.writes(), bb}
                                 : std::initializer_list<Binding>{wb, xb, yb.writes()},
                       push, row_groups, 1, candidate->id);
        } else if (candidate->fn == ShaderPlan::TiledMatMat) {
            const MatMatPlan plan = plan_matmat(s.c, rows, batch);
            const uint32_t row_groups = groups_of(rows, plan.tile_rows);
            Push push;
            push.u(wb.skew).u(xb.words()).u(yb.words()).u(u32(rows, op, "rows")).u(cols);
            push.u(static_cast<uint32_t>(row_bytes)).u(u32(batch, op, "batch")).u(cols);
            push.u(u32(y_stride, op, "y_stride")).u(row_groups).u(bb.words());
            const bool x_vec4 = xb.words() % 4 == 0 && w.cols % 4 == 0;
            s.dispatch(op, shader,
                       {plan.tile_rows, plan.tile_columns, x_vec4, word_aligned(w.type, wb, row_bytes),
                        accumulate, with_bias},
                       with_bias ? std::initializer_list<Binding>{wb, xb, yb.writes(), bb}
                                 : std::initializer_list<Binding>{wb, xb, yb.writes()},
                       push, row_groups, groups_of(batch, plan.tile_columns), candidate->id);
        } else {
            fail(op, "candidate " + std::string(candidate->name) + " is no matmul shader");
        }
    }
}

namespace {

// A gated FFN's gate and up matrices (or expert tensors) as one fused product reads them: the
// same type and shape, U after G in one buffer at a distance that keeps G's 16-byte alignment,
// both within one binding. The distance in bytes, or none where they must run apart.
std::optional<uint32_t> glu_distance(const ContextState& c, const DeviceMatrix& gate, const DeviceMatrix& up,
                                     const char* op) {
    if (up.type != gate.type || up.rows != gate.rows || up.cols != gate.cols)
        fail(op, "a gate and an up matrix of different types or shapes");
    const size_t bytes = static_cast<size_t>(gate.rows) * kernels::row_bytes(gate.type, gate.cols);
    if (up.data.buffer != gate.data.buffer || up.data.offset < gate.data.offset + bytes) return std::nullopt;
    const size_t distance = up.data.offset - gate.data.offset;
    const size_t spare = std::max<size_t>(c.properties.limits.minStorageBufferOffsetAlignment, 4) + 8;
    if (distance % 16 != 0 || distance > UINT32_MAX || distance + bytes + spare > c.binding_limit())
        return std::nullopt;
    return static_cast<uint32_t>(distance);
}

// The mat-vec shader's GLU constant for an activation.
uint32_t glu_constant(Recorder::Glu glu) {
    return glu == Recorder::Glu::Silu ? 1u : 2u;
}

} // namespace

void Recorder::matmul_glu(const DeviceMatrix& gate, const DeviceMatrix& up, View x, int64_t batch, Glu glu,
                          View gate_out, View up_out) {
    const char* op = "matmul";
    RecorderState& s = *state_;
    check_matrix(gate, op);
    check_matrix(up, op);
    if (batch <= 0) fail(op, "batch " + std::to_string(batch));
    const std::optional<uint32_t> distance = glu_distance(s.c, gate, up, op);
    const Candidate<ShaderPlan>* candidate =
        vulkan_kernels().of(gate.type).matmul.pick({.batch = batch,
                                                    .rows = gate.rows,
                                                    .width = gate.cols,
                                                    .device = Device::Vulkan,
                                                    .features = s.c.features()});
    if (!candidate || candidate->fn != ShaderPlan::MatVec || !distance) {
        matmul(gate, x, batch, gate_out);
        matmul(up, x, batch, up_out);
        apply_glu(glu, gate_out, up_out, batch, gate.rows);
        return;
    }
    const size_t row_bytes = kernels::row_bytes(gate.type, gate.cols);
    const uint32_t cols = u32(gate.cols, op, "cols");
    const uint32_t rows = u32(gate.rows, op, "rows");
    const Binding wb =
        s.bind(gate.data, *distance + static_cast<size_t>(gate.rows) * row_bytes, op, "weights", 4);
    const Binding xb = s.bind(x, static_cast<size_t>(batch * gate.cols) * 4, op, "x");
    const Binding yb = s.bind(gate_out, static_cast<size_t>(batch * gate.rows) * 4, op, "y");
    // The plain product's rows per workgroup, half of them the gate's, half the up matrix's:
    // the registers a thread holds stay those of the product alone.
    const MatVecPlan plan = plan_matvec(s.c, gate.type, gate.rows, gate.cols, batch);
    const uint32_t pairs = std::max<uint32_t>(1, plan.rows / 2);
    const uint32_t row_groups = groups_of(gate.rows, pairs);
    Push push;
    push.u(wb.skew).u(xb.words()).u(yb.words()).u(0).u(rows).u(cols);
    push.u(u32(static_cast<int64_t>(row_bytes), op, "row bytes")).u(static_cast<uint32_t>(batch));
    push.u(cols).u(rows).u(1).u(0).u(row_groups).u(*distance);
    const bool x_vec4 = xb.words() % 4 == 0 && gate.cols % 4 == 0;
    s.dispatch(op, typed_shader(*candidate, gate.type),
               {plan.workgroup, 2 * pairs, static_cast<uint32_t>(batch), x_vec4, s.c.subgroup_min,
                word_aligned(gate.type, wb, row_bytes), false, vec16_aligned(gate.type, wb, row_bytes), false,
                glu_constant(glu)},
               {wb, xb, yb.writes()}, push, row_groups, 1, candidate->id);
}

void Recorder::apply_glu(Glu glu, View gate, View up, int64_t rows, int64_t dim) {
    if (glu == Glu::Silu)
        swiglu(gate, up, rows, dim);
    else
        geglu(gate, up, rows, dim);
}

namespace {

// The expert mat-vec dispatch: with glu (1 silu, 2 gelu_tanh) the up matrix lies glu_offset bytes
// after w's first row in the same buffer, and y gets act(gate) * up.
void record_expert_products(RecorderState& s, const DeviceMatrix& w, int64_t rows_per_expert, View x,
                            int64_t n, View ids, int64_t k, View y, uint32_t glu, size_t glu_offset) {
    const char* op = "matmul_experts";
    const size_t row_bytes = kernels::row_bytes(w.type, w.cols);
    const size_t bound = glu_offset + static_cast<size_t>(w.rows) * row_bytes;
    const Binding wb = s.bind(w.data, bound, op, "weights", 4);
    const Binding xb = s.bind(x, static_cast<size_t>(n * w.cols) * 4, op, "x");
    const Binding ib = s.bind(ids, static_cast<size_t>(n * k) * 4, op, "ids");
    const Binding yb = s.bind(y, static_cast<size_t>(n * k * rows_per_expert) * 4, op, "y");
    const Candidate<ShaderPlan>* candidate =
        vulkan_kernels().of(w.type).matmul_experts.pick({.batch = n * k,
                                                         .rows = rows_per_expert,
                                                         .width = w.cols,
                                                         .device = Device::Vulkan,
                                                         .features = s.c.features()});
    if (!candidate || candidate->fn != ShaderPlan::ExpertMatVec)
        fail(op, "no expert mat-vec shader takes " + std::to_string(n * k) + " rows of experts");
    const MatVecPlan plan = plan_matvec(s.c, w.type, rows_per_expert, w.cols, 1);
    // With glu, half the plan's rows are the gate's and half the up matrix's (matmul_glu).
    const uint32_t out_rows = glu != 0 ? std::max<uint32_t>(1, plan.rows / 2) : plan.rows;
    const uint32_t row_groups = groups_of(rows_per_expert, out_rows);
    const uint32_t cols = u32(w.cols, op, "cols");
    Push push;
    push.u(wb.skew).u(xb.words()).u(yb.words()).u(ib.words()).u(u32(rows_per_expert, op, "rows_per_expert"));
    push.u(cols).u(u32(static_cast<int64_t>(row_bytes), op, "row bytes")).u(u32(n * k, op, "n * k")).u(cols);
    push.u(static_cast<uint32_t>(rows_per_expert))
        .u(static_cast<uint32_t>(k))
        .u(static_cast<uint32_t>(rows_per_expert));
    push.u(row_groups).u(u32(static_cast<int64_t>(glu_offset), op, "the up matrix's offset"));
    const bool x_vec4 = xb.words() % 4 == 0 && w.cols % 4 == 0;
    s.dispatch(op, typed_shader(*candidate, w.type),
               {plan.workgroup, glu != 0 ? 2 * out_rows : out_rows, 1, x_vec4, s.c.subgroup_min,
                word_aligned(w.type, wb, row_bytes), false, vec16_aligned(w.type, wb, row_bytes), false, glu},
               {wb, xb, yb.writes(), ib}, push, row_groups, u32(n * k, op, "n * k"), candidate->id);
}

void check_experts(const DeviceMatrix& w, int64_t rows_per_expert, int64_t n, int64_t k) {
    const char* op = "matmul_experts";
    check_matrix(w, op);
    if (rows_per_expert <= 0 || w.rows % rows_per_expert != 0)
        fail(op, "rows_per_expert " + std::to_string(rows_per_expert) + " does not divide " +
                     std::to_string(w.rows));
    if (n <= 0 || k <= 0) fail(op, "n " + std::to_string(n) + ", k " + std::to_string(k));
}

} // namespace

void Recorder::matmul_experts(const DeviceMatrix& w, int64_t rows_per_expert, View x, int64_t n, View ids,
                              int64_t k, View y) {
    check_experts(w, rows_per_expert, n, k);
    record_expert_products(*state_, w, rows_per_expert, x, n, ids, k, y, 0, 0);
}

void Recorder::matmul_experts_glu(const DeviceMatrix& gate, const DeviceMatrix& up, int64_t rows_per_expert,
                                  View x, int64_t n, View ids, int64_t k, Glu glu, View gate_out,
                                  View up_out) {
    check_experts(gate, rows_per_expert, n, k);
    check_experts(up, rows_per_expert, n, k);
    RecorderState& s = *state_;
    const std::optional<uint32_t> distance = glu_distance(s.c, gate, up, "matmul_experts");
    if (!distance) {
        matmul_experts(gate, rows_per_expert, x, n, ids, k, gate_out);
        matmul_experts(up, rows_per_expert, x, n, ids, k, up_out);
        apply_glu(glu, gate_out, up_out, n * k, rows_per_expert);
        return;
    }
    record_expert_products(s, gate, rows_per_expert, x, n, ids, k, gate_out, glu_constant(glu), *distance);
}

void Recorder::get_rows(const DeviceMatrix& table, View ids, int64_t n, View out) {
    const char* op = "get_rows";
    RecorderState& s = *state_;
    check_matrix(table, op);
    if (n <= 0) fail(op, "n " + std::to_string(n));
    const size_t row_bytes = kernels::row_bytes(table.type, table.cols);
    const Binding ib = s.bind(ids, static_cast<size_t>(n) * 4, op, "ids");
    const Binding ob = s.bind(out, static_cast<size_t>(n * table.cols) * 4, op, "out");
    const uint32_t groups_per_row = groups_of(table.cols, 16);
    const int64_t chunk = rows_per_binding(s.c, row_bytes);
    // A table larger than one binding is read in chunks of rows, each dispatch writing the rows
    // whose ids fall in its chunk.
    for (int64_t r0 = 0; r0 < table.rows; r0 += chunk) {
        const int64_t rows = std::min(chunk, table.rows - r0);
        const Binding wb = s.bind(advance(table.data, static_cast<size_t>(r0) * row_bytes),
                                  static_cast<size_t>(rows) * row_bytes, op, "table", 4);
        Push push;
        push.u(wb.skew).u(ib.words()).u(ob.words()).u(u32(n, op, "n")).u(u32(table.cols, op, "cols"));
        push.u(static_cast<uint32_t>(row_bytes)).u(static_cast<uint32_t>(r0)).u(static_cast<uint32_t>(rows));
        push.u(groups_per_row);
        s.dispatch(op, "get_rows_" + type_suffix(table.type), {64}, {wb, ib, ob.writes()}, push,
                   groups_of(n * groups_per_row, 64));
    }
}

namespace {

void norm(RecorderState& s, const char* op, uint32_t mode, View x, View weight, View bias, int64_t rows,
          int64_t dim, float eps, View out, bool accumulate = false) {
    if (rows <= 0 || dim <= 0) fail(op, "rows " + std::to_string(rows) + ", dim " + std::to_string(dim));
    const size_t bytes = static_cast<size_t>(rows * dim) * 4;
    const Binding xb = s.bind(x, bytes, op, "x");
    const Binding ob = s.bind(out, bytes, op, "out");
    const bool has_weight = weight.buffer != nullptr, has_bias = bias.buffer != nullptr;
    const Binding wb = has_weight ? s.bind(weight, static_cast<size_t>(dim) * 4, op, "weight") : xb;
    const Binding bb = has_bias ? s.bind(bias, static_cast<size_t>(dim) * 4, op, "bias") : xb;
    Push push;
    push.u(xb.words())
        .u(wb.words())
        .u(bb.words())
        .u(ob.words())
        .u(u32(rows, op, "rows"))
        .u(u32(dim, op, "dim"));
    push.u(mode).u(has_weight).u(has_bias).f(eps).u(accumulate);
    push.u(u32(rows, op, "rows")).u(wb.words()); // no second weight
    s.dispatch(op, "norm", {256}, {xb, wb, bb, ob.writes()}, push, static_cast<uint32_t>(rows));
}

enum ElementwiseOp : uint32_t { kAdd = 0, kAddBias, kScale, kSoftCap, kSwiglu, kGeglu, kGelu };

void elementwise(RecorderState& s, const char* op, ElementwiseOp code, View x, std::optional<View> y,
                 size_t y_floats, int64_t count, int64_t dim, float value) {
    if (count <= 0) fail(op, "count " + std::to_string(count));
    const Binding xb = s.bind(x, static_cast<size_t>(count) * 4, op, "x");
    const Binding yb = y ? s.bind(*y, y_floats * 4, op, "y") : xb;
    Push push;
    push.u(xb.words())
        .u(yb.words())
        .u(u32(count, op, "count"))
        .u(static_cast<uint32_t>(dim))
        .u(code)
        .f(value)
        .u(1);
    s.dispatch(op, "elementwise", {256}, {xb.writes(), yb}, push, groups_of(count, 256));
}

} // namespace

void Recorder::rms_norm(View x, View weight, int64_t rows, int64_t dim, float eps, View out) {
    norm(*state_, "rms_norm", 0, x, weight, {}, rows, dim, eps, out);
}

void Recorder::rms_norm_add(View x, View weight, int64_t rows, int64_t dim, float eps, View out) {
    norm(*state_, "rms_norm", 0, x, weight, {}, rows, dim, eps, out, true);
}

void Recorder::rms_norm_heads(View x, int64_t first_rows, View first_weight, int64_t second_rows,
                              View second_weight, int64_t dim, float eps) {
    const char* op = "rms_norm";
    RecorderState& s = *state_;
    if (first_rows <= 0 || second_rows <= 0 || dim <= 0 || !first_weight.buffer || !second_weight.buffer)
        fail(op, "rows " + std::to_string(first_rows) + " and " + std::to_string(second_rows) + ", dim " +
                     std::to_string(dim));
    const size_t first_bytes = static_cast<size_t>(first_rows * dim) * 4;
    if (first_weight.buffer != second_weight.buffer) { // two weights one binding cannot reach
        rms_norm(x, first_weight, first_rows, dim, eps, x);
        const View second{x.buffer, x.offset + first_bytes};
        rms_norm(second, second_weight, second_rows, dim, eps, second);
        return;
    }
    const int64_t rows = first_rows + second_rows;
    const Binding xb = s.bind(x, static_cast<size_t>(rows * dim) * 4, op, "x");
    const size_t low = std::min(first_weight.offset, second_weight.offset);
    const size_t high = std::max(first_weight.offset, second_weight.offset);
    const Binding wb =
        s.bind(View{first_weight.buffer, low}, high - low + static_cast<size_t>(dim) * 4, op, "weights");
    const uint32_t first_at = wb.words() + static_cast<uint32_t>((first_weight.offset - low) / 4);
    const uint32_t second_at = wb.words() + static_cast<uint32_t>((second_weight.offset - low) / 4);
    if ((first_weight.offset - low) % 4 != 0 || (second_weight.offset - low) % 4 != 0)
        fail(op, "weights not 4-byte aligned");
    Push push;
    push.u(xb.words())
        .u(first_at)
        .u(xb.words())
        .u(xb.words())
        .u(u32(rows, op, "rows"))
        .u(u32(dim, op, "dim"));
    push.u(0).u(1).u(0).f(eps).u(0);
    push.u(u32(first_rows, op, "rows")).u(second_at);
    s.dispatch(op, "norm", {256}, {xb, wb, xb, xb.writes()}, push, static_cast<uint32_t>(rows));
}

void Recorder::layer_norm(View x, View weight, View bias, int64_t rows, int64_t dim, float eps, View out) {
    norm(*state_, "layer_norm", 1, x, weight, bias, rows, dim, eps, out);
}

void Recorder::add(View x, View y, int64_t count) {
    elementwise(*state_, "add", kAdd, x, y, static_cast<size_t>(count), count, 1, 0);
}

void Recorder::add_bias(View x, View bias, int64_t rows, int64_t dim) {
    if (dim <= 0) fail("add_bias", "dim " + std::to_string(dim));
    elementwise(*state_, "add_bias", kAddBias, x, bias, static_cast<size_t>(dim), rows * dim, dim, 0);
}

void Recorder::scale(View x, int64_t count, float factor) {
    elementwise(*state_, "scale", kScale, x, std::nullopt, 0, count, 1, factor);
}

void Recorder::soft_cap(View x, int64_t count, float cap) {
    if (!(cap > 0)) fail("soft_cap", "cap " + std::to_string(cap) + " (must be positive)");
    elementwise(*state_, "soft_cap", kSoftCap, x, std::nullopt, 0, count, 1, cap);
}

void Recorder::swiglu(View gate, View up, int64_t rows, int64_t dim) {
    elementwise(*state_, "swiglu", kSwiglu, gate, up, static_cast<size_t>(rows * dim), rows * dim, dim, 0);
}

void Recorder::geglu(View gate, View up, int64_t rows, int64_t dim) {
    elementwise(*state_, "geglu", kGeglu, gate, up, static_cast<size_t>(rows * dim), rows * dim, dim, 0);
}

void Recorder::gelu(View x, int64_t count) {
    elementwise(*state_, "gelu", kGelu, x, std::nullopt, 0, count, 1, 0);
}

void Recorder::rope(View x, int64_t n, int64_t n_heads, int64_t head_dim, int64_t rope_dim, bool neox,
                    int64_t pos0, float base, float freq_scale, float attn_factor,
                    std::optional<View> factors) {
    rope_pair(x, n_heads, std::nullopt, 0, n, head_dim, rope_dim, neox, pos0, base, freq_scale, attn_factor,
              factors);
}

void Recorder::rope_pair(View q, int64_t n_heads_q, std::optional<View> k, int64_t n_heads_k, int64_t n,
                         int64_t head_dim, int64_t rope_dim, bool neox, int64_t pos0, float base,
                         float freq_scale, float attn_factor, std::optional<View> factors) {
    const char* op = "rope";
    RecorderState& s = *state_;
    if (!k) n_heads_k = 0;
    if (n <= 0 || n_heads_q <= 0 || (k && n_heads_k <= 0) || rope_dim <= 0 || rope_dim % 2 != 0 ||
        rope_dim > head_dim)
        fail(op, "n " + std::to_string(n) + ", heads " + std::to_string(n_heads_q) + " and " +
                     std::to_string(n_heads_k) + ", head_dim " + std::to_string(head_dim) + ", rope_dim " +
                     std::to_string(rope_dim) + " (rope_dim must be even and at most head_dim)");
    if (pos0 < 0 || !(base > 0)) fail(op, "pos0 " + std::to_string(pos0) + ", base " + std::to_string(base));
    const Binding xb = s.bind(q, static_cast<size_t>(n * n_heads_q * head_dim) * 4, op, "x");
    const Binding yb = k ? s.bind(*k, static_cast<size_t>(n * n_heads_k * head_dim) * 4, op, "y") : xb;
    const Binding fb = factors ? s.bind(*factors, static_cast<size_t>(rope_dim / 2) * 4, op, "factors") : xb;
    Push push;
    push.u(xb.words())
        .u(fb.words())
        .u(u32(n, op, "n"))
        .u(u32(n_heads_q, op, "n_heads"))
        .u(u32(head_dim, op, "head_dim"));
    push.u(static_cast<uint32_t>(rope_dim)).u(neox).u(factors.has_value()).u(static_cast<uint32_t>(pos0));
    push.f(std::log2(base)).f(freq_scale).f(attn_factor);
    push.u(yb.words()).u(u32(n_heads_k, op, "n_heads_k"));
    u32(pos0 + n, op, "the last position");
    const int64_t threads = n * (n_heads_q + n_heads_k) * (rope_dim / 2);
    if (k)
        s.dispatch(op, "rope", {256}, {xb.writes(), fb, yb.writes()}, push, groups_of(threads, 256));
    else
        s.dispatch(op, "rope", {256}, {xb.writes(), fb}, push, groups_of(threads, 256));
}

namespace {

size_t kv_head_row_bytes(TensorType type, int64_t head_dim) {
    return kernels::row_bytes(type, head_dim);
}

void check_kv_layer(const DeviceKvLayer& layer, const char* op) {
    for (TensorType type : {layer.key_type, layer.value_type}) {
        if (!is_kv_cache_type(type))
            fail(op, "KV cache type " + std::string(type_traits(type).name) + " (F16, Q8_0 or Q4_0 only)");
        if (type == TensorType::F16 && layer.head_dim % 2 != 0)
            fail(op, "an F16 cache needs an even head_dim, not " + std::to_string(layer.head_dim));
        if (type != TensorType::F16 && layer.head_dim % 32 != 0)
            fail(op,
                 "a quantized cache needs head_dim a multiple of 32, not " + std::to_string(layer.head_dim));
    }
    if (layer.n_ctx <= 0 || layer.n_head_kv <= 0 || layer.head_dim <= 0)
        fail(op, "KV layer of n_ctx " + std::to_string(layer.n_ctx) + ", " + std::to_string(layer.n_head_kv) +
                     " heads of " + std::to_string(layer.head_dim));
    if (layer.keys.offset % 4 != 0 || layer.values.offset % 4 != 0)
        fail(op, "KV cache offsets must be 4-byte aligned");
}

size_t kv_part_bytes(const DeviceKvLayer& layer, TensorType type) {
    return static_cast<size_t>(layer.n_head_kv * layer.n_ctx) * kv_head_row_bytes(type, layer.head_dim);
}

} // namespace

namespace {

constexpr uint32_t kAttentionWorkgroup = 128;

// How attention.comp covers a call: tiles of `heads` query heads (of one KV head) by
// `positions` positions, keys in blocks of `key_block` (`blocks` of them from `first_block`),
// and the blocks split `splits` ways (attention_split_keys).
struct AttentionPlan {
    uint32_t key_block = 32, heads = 1, positions = 1;
    uint32_t head_chunks = 1, position_tiles = 1;
    uint32_t first_block = 0, blocks = 1, split_blocks = 1, splits = 1;
    int64_t tiles() const { return int64_t{head_chunks} * position_tiles; } // per KV head
};

AttentionPlan plan_attention_tiles(const ContextState& c, int64_t n, int64_t n_past, int64_t n_head,
                                   const DeviceKvLayer& layer, AttentionLimits limits) {
    // The shader's shared memory, within what every device of the backend has and what keeps
    // several workgroups on a compute unit.
    const int64_t budget = std::min<int64_t>(c.properties.limits.maxComputeSharedMemorySize, 32768);
    const int64_t d4 = (layer.head_dim + 3) / 4;
    const int64_t threads = kAttentionWorkgroup;
    AttentionPlan plan;
    // Keys and values of a block: about half the budget.
    plan.key_block = 64;
    while (plan.key_block > 1 && plan.key_block * (2 * d4 + 1) * 16 > budget * 55 / 100)
        plan.key_block /= 2;
    const int64_t block_bytes = int64_t{plan.key_block} * (2 * d4 + 1) * 16;
    // Rows of a tile: the rest (queries, scores, two floats), within the shader's register
    // arrays (16 scores and 8 value rows per thread) and 64.
    int64_t rows = (budget - block_bytes) / (d4 * 16 + (plan.key_block + 1) * 4 + 8);
    rows =
        std::min({rows, int64_t{64}, threads / plan.key_block * 16, std::max<int64_t>(1, threads / d4) * 8});
    rows = std::max<int64_t>(rows, 1);
    const int64_t group_heads = n_head / layer.n_head_kv;
    plan.heads = static_cast<uint32_t>(std::min(group_heads, rows));
    plan.positions = static_cast<uint32_t>(std::clamp<int64_t>(rows / plan.heads, 1, n));
    plan.head_chunks = static_cast<uint32_t>((group_heads + plan.heads - 1) / plan.heads);
    plan.position_tiles = static_cast<uint32_t>((n + plan.positions - 1) / plan.positions);

    // The blocks any row sees: from the first row's window to the last row's key.
    const int64_t first_seen = n_past + 1;
    const int64_t first_key =
        limits.window > 0 && first_seen > limits.window ? first_seen - limits.window : 0;
    plan.first_block = static_cast<uint32_t>(first_key / plan.key_block);
    plan.blocks =
        static_cast<uint32_t>((n_past + n + plan.key_block - 1) / plan.key_block - plan.first_block);
    plan.split_blocks = plan.blocks;
    return plan;
}

// Splits of at least kMinKeysPerSplit keys until there are workgroups enough to fill a GPU (on
// every device: a CPU device loses little to them, and runs the same plan the GPUs do), 64 at
// most. The candidate's guard leaves room for two at least.
void split_keys(AttentionPlan& plan, int64_t n_head_kv) {
    const int64_t tiles = plan.tiles() * n_head_kv;
    const int64_t min_split_blocks = std::max<int64_t>(1, kMinKeysPerSplit / plan.key_block);
    int64_t splits =
        std::min<int64_t>({(kGpuWorkgroups + tiles - 1) / tiles, plan.blocks / min_split_blocks, 64});
    if (splits < 2) fail("attention", "attention_split_keys picked for a call with nothing to split");
    plan.split_blocks = static_cast<uint32_t>((plan.blocks + splits - 1) / splits);
    plan.splits = static_cast<uint32_t>((plan.blocks + plan.split_blocks - 1) / plan.split_blocks);
}

} // namespace

void Recorder::store_kv(View k, View v, int64_t n, int64_t pos0, const DeviceKvLayer& layer) {
    const char* op = "store_kv";
    RecorderState& s = *state_;
    check_kv_layer(layer, op);
    if (n <= 0 || pos0 < 0 || pos0 + n > layer.n_ctx)
        fail(op, "positions [" + std::to_string(pos0) + ", " + std::to_string(pos0 + n) +
                     ") outside a cache of " + std::to_string(layer.n_ctx));
    const int64_t width = layer.n_head_kv * layer.head_dim;
    const size_t rows_bytes = static_cast<size_t>(n * width) * 4;
    const Binding kb = s.bind(k, rows_bytes, op, "keys");
    const Binding vb = s.bind(v, rows_bytes, op, "values");
    const Binding kc = s.bind(layer.keys, kv_part_bytes(layer, layer.key_type), op, "key cache");
    const Binding vc = s.bind(layer.values, kv_part_bytes(layer, layer.value_type), op, "value cache");
    const auto threads_of = [&](TensorType type) {
        return n * layer.n_head_kv * (type == TensorType::F16 ? layer.head_dim / 2 : layer.head_dim / 32);
    };
    // Keys and values in one dispatch: the keys' threads, then the values'.
    Push push;
    push.u(kb.words()).u(kc.skew).u(static_cast<uint32_t>(n)).u(static_cast<uint32_t>(pos0));
    push.u(static_cast<uint32_t>(layer.n_ctx)).u(static_cast<uint32_t>(layer.n_head_kv));
    push.u(static_cast<uint32_t>(layer.head_dim))
        .u(static_cast<uint32_t>(kv_head_row_bytes(layer.key_type, layer.head_dim)));
    push.u(static_cast<uint32_t>(layer.key_type)).u(static_cast<uint32_t>(width));
    push.u(vb.words())
        .u(vc.skew)
        .u(static_cast<uint32_t>(kv_head_row_bytes(layer.value_type, layer.head_dim)));
    push.u(static_cast<uint32_t>(layer.value_type));
    s.dispatch(op, "store_kv", {64}, {kb, kc.writes(), vb, vc.writes()}, push,
               groups_of(threads_of(layer.key_type) + threads_of(layer.value_type), 64));
}

void Recorder::attention(View q, int64_t n, int64_t n_past, int64_t n_head, const DeviceKvLayer& layer,
                         float scale, AttentionLimits limits, bool batch_sees_itself, View out) {
    const char* op = "attention";
    RecorderState& s = *state_;
    check_kv_layer(layer, op);
    if (layer.head_dim > kMaxAttentionHeadDim)
        fail(op,
             "head_dim " + std::to_string(layer.head_dim) + " above " + std::to_string(kMaxAttentionHeadDim));
    if (n_head <= 0 || n_head % layer.n_head_kv != 0)
        fail(op,
             std::to_string(n_head) + " query heads for " + std::to_string(layer.n_head_kv) + " KV heads");
    if (n <= 0 || n_past < 0 || n_past + n > layer.n_ctx)
        fail(op, "positions [" + std::to_string(n_past) + ", " + std::to_string(n_past + n) +
                     ") outside a cache of " + std::to_string(layer.n_ctx));
    if (limits.window < 0) fail(op, "window " + std::to_string(limits.window));
    const size_t q_bytes = static_cast<size_t>(n * n_head * layer.head_dim) * 4;
    const Binding qb = s.bind(q, q_bytes, op, "q");
    const Binding ob = s.bind(out, q_bytes, op, "out");
    const Binding kb = s.bind(layer.keys, kv_part_bytes(layer, layer.key_type), op, "keys");
    const Binding vb = s.bind(layer.values, kv_part_bytes(layer, layer.value_type), op, "values");
    AttentionPlan plan = plan_attention_tiles(s.c, n, n_past, n_head, layer, limits);
    const Candidate<ShaderPlan>* candidate = vulkan_kernels().attention.pick(
        {.batch = n,
         .width = layer.head_dim,
         .f16_cache = layer.key_type == TensorType::F16 && layer.value_type == TensorType::F16,
         .device = Device::Vulkan,
         .features = s.c.features(),
         .keys = int64_t{plan.blocks} * plan.key_block,
         .workgroups = plan.tiles() * layer.n_head_kv});
    if (!candidate) fail(op, "no shader takes head_dim " + std::to_string(layer.head_dim));
    if (candidate->fn == ShaderPlan::AttentionSplitKeys)
        split_keys(plan, layer.n_head_kv);
    else if (candidate->fn != ShaderPlan::AttentionTiles)
        fail(op, "candidate " + std::string(candidate->name) + " is no attention shader");
    const uint32_t rows_total = u32(n * n_head, op, "n * n_head");
    const Binding pb = plan.splits > 1 ? s.scratch_binding(size_t{plan.splits} * rows_total *
                                                               (static_cast<size_t>(layer.head_dim) + 2) * 4,
                                                           op)
                                       : ob;
    Push push;
    push.u(qb.words()).u(kb.skew).u(vb.skew).u(ob.words()).u(pb.words());
    push.u(static_cast<uint32_t>(n)).u(static_cast<uint32_t>(n_past)).u(static_cast<uint32_t>(n_head));
    push.u(static_cast<uint32_t>(layer.n_head_kv)).u(static_cast<uint32_t>(layer.n_ctx));
    push.u(static_cast<uint32_t>(kv_head_row_bytes(layer.key_type, layer.head_dim)));
    push.u(static_cast<uint32_t>(kv_head_row_bytes(layer.value_type, layer.head_dim)));
    push.f(scale).f(limits.softcap).u(u32(limits.window, op, "window"));
    push.u(plan.head_chunks).u(plan.position_tiles).u(plan.first_block).u(plan.split_blocks).u(plan.splits);
    push.u(batch_sees_itself ? 1u : 0u);
    const uint32_t groups =
        u32(int64_t{plan.head_chunks} * plan.position_tiles * layer.n_head_kv, op, "tiles");
    s.dispatch(op, "attention",
               {kAttentionWorkgroup, static_cast<uint32_t>(layer.head_dim), plan.key_block, plan.heads,
                plan.positions, static_cast<uint32_t>(layer.key_type),
                static_cast<uint32_t>(layer.value_type)},
               {qb, kb, vb, ob.writes(), pb.writes()}, push, groups, plan.splits, candidate->id);
    if (candidate->fn != ShaderPlan::AttentionSplitKeys) return;
    Push reduce;
    reduce.u(pb.words()).u(ob.words()).u(rows_total).u(static_cast<uint32_t>(layer.head_dim)).u(plan.splits);
    s.dispatch(op, "attention_reduce", {256}, {pb, ob.writes()}, reduce,
               groups_of(int64_t{rows_total} * layer.head_dim, 256), 1, candidate->id);
}

void Recorder::topk_softmax(View logits, int64_t n, int64_t n_expert, int64_t k, bool renormalize, View ids,
                            View weights) {
    const char* op = "topk_softmax";
    RecorderState& s = *state_;
    if (n <= 0 || n_expert <= 0 || n_expert > 1024 || k <= 0 || k > n_expert || k > 64)
        fail(op, "n " + std::to_string(n) + ", " + std::to_string(n_expert) + " experts, k " +
                     std::to_string(k) + " (at most 1024 experts and 64 chosen)");
    const Binding lb = s.bind(logits, static_cast<size_t>(n * n_expert) * 4, op, "logits");
    const Binding ib = s.bind(ids, static_cast<size_t>(n * k) * 4, op, "ids");
    const Binding wb = s.bind(weights, static_cast<size_t>(n * k) * 4, op, "weights");
    Push push;
    push.u(lb.words()).u(ib.words()).u(wb.words()).u(u32(n, op, "n")).u(static_cast<uint32_t>(n_expert));
    push.u(static_cast<uint32_t>(k)).u(renormalize);
    s.dispatch(op, "topk_softmax", {64}, {lb, ib.writes(), wb.writes()}, push, groups_of(n, 64));
}

void Recorder::weighted_sum_experts(View x, View weights, int64_t n, int64_t k, int64_t dim, View y) {
    const char* op = "weighted_sum_experts";
    RecorderState& s = *state_;
    if (n <= 0 || k <= 0 || dim <= 0)
        fail(op, "n " + std::to_string(n) + ", k " + std::to_string(k) + ", dim " + std::to_string(dim));
    const Binding xb = s.bind(x, static_cast<size_t>(n * k * dim) * 4, op, "x");
    const Binding wb = s.bind(weights, static_cast<size_t>(n * k) * 4, op, "weights");
    const Binding yb = s.bind(y, static_cast<size_t>(n * dim) * 4, op, "y");
    Push push;
    push.u(xb.words()).u(wb.words()).u(yb.words()).u(u32(n, op, "n")).u(static_cast<uint32_t>(k));
    push.u(u32(dim, op, "dim"));
    s.dispatch(op, "weighted_sum", {256}, {xb, wb, yb.writes()}, push, groups_of(n * dim, 256));
}

void Recorder::copy(View src, View dst, size_t bytes) {
    const char* op = "copy";
    RecorderState& s = *state_;
    s.require_recording(op);
    if (bytes == 0) return;
    for (const View& v : {src, dst}) {
        if (!v.buffer || !v.buffer->valid()) fail(op, "no buffer");
        if (v.offset > v.buffer->size() || bytes > v.buffer->size() - v.offset)
            fail(op, std::to_string(bytes) + " bytes at offset " + std::to_string(v.offset) +
                         " pass the end of a buffer of " + std::to_string(v.buffer->size()) + " bytes");
    }
    const Access accesses[] = {{src.buffer->state().buffer, src.offset, src.offset + bytes, false},
                               {dst.buffer->state().buffer, dst.offset, dst.offset + bytes, true}};
    s.order(accesses, 2);
    const VkBufferCopy region{src.offset, dst.offset, bytes};
    vkCmdCopyBuffer(s.commands, src.buffer->state().buffer, dst.buffer->state().buffer, 1, &region);
    s.after_command(op);
}

} // namespace hearth::kernels::vulkan
