#include "kernels/vulkan/vulkan_context.h"

namespace hearth::kernels::vulkan {

struct ContextState {};
struct BufferState {};

Context::Context(ContextOptions) {
    throw Error("vulkan::Context: not implemented yet");
}
Context::~Context() = default;
const DeviceInfo& Context::device() const {
    throw Error("vulkan::Context::device: not implemented yet");
}
uint64_t Context::validation_errors() const {
    return 0;
}
std::string Context::last_validation_message() const {
    return {};
}
bool Context::validation_enabled() const {
    return false;
}
bool Context::lost() const {
    return false;
}
void Context::save_pipeline_cache() const {}

Buffer::Buffer(Context&, size_t, Memory) {
    throw Error("vulkan::Buffer: not implemented yet");
}
Buffer::~Buffer() = default;
Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;
size_t Buffer::size() const {
    return 0;
}
Memory Buffer::memory() const {
    return Memory::DeviceLocal;
}
void Buffer::upload(const void*, size_t, size_t) {
    throw Error("vulkan::Buffer::upload: not implemented yet");
}
void Buffer::download(void*, size_t, size_t) const {
    throw Error("vulkan::Buffer::download: not implemented yet");
}
void Buffer::fill_zero() {
    throw Error("vulkan::Buffer::fill_zero: not implemented yet");
}

} // namespace hearth::kernels::vulkan
