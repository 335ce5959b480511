#include "kernels/vulkan/vulkan_ops.h"

namespace hearth::kernels::vulkan {

struct RecorderState {};
[[noreturn]] static void not_implemented(const char* op) {
    throw Error(std::string("vulkan::Recorder::") + op + ": not implemented yet");
}
bool vulkan_supports_weight_type(TensorType) {
    return false;
}
Recorder::Recorder(Context&) {
    not_implemented("Recorder");
}
Recorder::~Recorder() = default;
void Recorder::begin() {
    not_implemented("begin");
}
void Recorder::submit_and_wait() {
    not_implemented("submit_and_wait");
}
std::vector<OpTiming> Recorder::timings() const {
    return {};
}
uint32_t Recorder::dispatches() const {
    return 0;
}
void Recorder::matmul(const DeviceMatrix&, View, int64_t, View) {
    not_implemented("matmul");
}
void Recorder::matmul_rows(const DeviceMatrix&, int64_t, int64_t, View, int64_t, View, int64_t) {
    not_implemented("matmul_rows");
}
void Recorder::rms_norm(View, View, int64_t, int64_t, float, View) {
    not_implemented("rms_norm");
}
void Recorder::layer_norm(View, View, View, int64_t, int64_t, float, View) {
    not_implemented("layer_norm");
}
void Recorder::add(View, View, int64_t) {
    not_implemented("add");
}
void Recorder::add_bias(View, View, int64_t, int64_t) {
    not_implemented("add_bias");
}
void Recorder::scale(View, int64_t, float) {
    not_implemented("scale");
}
void Recorder::soft_cap(View, int64_t, float) {
    not_implemented("soft_cap");
}
void Recorder::swiglu(View, View, int64_t, int64_t) {
    not_implemented("swiglu");
}
void Recorder::geglu(View, View, int64_t, int64_t) {
    not_implemented("geglu");
}
void Recorder::gelu(View, int64_t) {
    not_implemented("gelu");
}
void Recorder::rope(View, int64_t, int64_t, int64_t, int64_t, bool, int64_t, float, float, float,
                    std::optional<View>) {
    not_implemented("rope");
}
void Recorder::get_rows(const DeviceMatrix&, View, int64_t, View) {
    not_implemented("get_rows");
}
void Recorder::store_kv(View, View, int64_t, int64_t, const DeviceKvLayer&) {
    not_implemented("store_kv");
}
void Recorder::attention(View, int64_t, int64_t, int64_t, const DeviceKvLayer&, float, AttentionLimits,
                         View) {
    not_implemented("attention");
}
void Recorder::topk_softmax(View, int64_t, int64_t, int64_t, bool, View, View) {
    not_implemented("topk_softmax");
}
void Recorder::matmul_experts(const DeviceMatrix&, int64_t, View, int64_t, View, int64_t, View) {
    not_implemented("matmul_experts");
}
void Recorder::weighted_sum_experts(View, View, int64_t, int64_t, int64_t, View) {
    not_implemented("weighted_sum_experts");
}
void Recorder::copy(View, View, size_t) {
    not_implemented("copy");
}

} // namespace hearth::kernels::vulkan
