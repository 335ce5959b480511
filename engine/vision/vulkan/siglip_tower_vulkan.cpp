#include "engine/vision/vulkan/siglip_tower_vulkan.h"
#include "engine/error.h"
#include "engine/forward/vulkan/vulkan_device.h"
#include "engine/vision/siglip_tower.h"
#include "kernels/tensor_type.h"
#include "kernels/thread_pool.h"
#include <cmath>
#include <cstring>
#include <utility>

namespace hearth::vision {

namespace vk = kernels::vulkan;

namespace {
// Each vector starts on this boundary in the packed buffer of vectors.
constexpr size_t kVectorAlignment = 64;
} // namespace

VulkanSiglipTower::VulkanSiglipTower(const MmprojFile& file, engine::GpuDeviceInfo info, bool validation)
    : hp_(file.hparams()), info_(std::move(info)) {
    if (!hp_.use_gelu) file.gguf().fail("the vision tower's GELU-quick activation runs on the CPU only");
    engine::on_vulkan_device(info_.name, "opening the device for the vision tower", [&] {
        vk::ContextOptions options;
        options.device_index = info_.index;
        options.validation = validation;
        context_ = std::make_unique<vk::Context>(options);
    });
    engine::on_vulkan_device(info_.name, "uploading the vision tower", [&] { upload_weights(file); });
    engine::on_vulkan_device(info_.name, "allocating the vision tower's activations", [&] {
        const size_t n = static_cast<size_t>(hp_.n_patches()), d = static_cast<size_t>(hp_.n_embd);
        const size_t patch_len = 3 * static_cast<size_t>(hp_.patch_size) * hp_.patch_size;
        const auto make = [&](size_t floats, vk::Memory memory = vk::Memory::DeviceLocal) {
            return View{&buffers_.emplace_back(*context_, floats * sizeof(float), memory), 0};
        };
        patches_ = make(n * patch_len, vk::Memory::HostVisible);
        x_ = make(n * d);
        xb_ = make(n * d);
        q_ = make(n * d);
        k_ = make(n * d);
        v_ = make(n * d);
        attn_ = make(n * d);
        up_ = make(n * static_cast<size_t>(hp_.n_ff));
        result_ = make(n * d, vk::Memory::HostVisible);
        const int64_t hd = hp_.head_dim();
        const size_t cache_bytes = n * d * sizeof(uint16_t);
        kv_ = vk::DeviceKvLayer{View{&buffers_.emplace_back(*context_, cache_bytes), 0},
                                View{&buffers_.emplace_back(*context_, cache_bytes), 0},
                                kernels::TensorType::F16,
                                kernels::TensorType::F16,
                                static_cast<int64_t>(n),
                                hp_.n_head,
                                hd};
        recorder_ = std::make_unique<vk::Recorder>(*context_);
    });
    host_patches_.resize(static_cast<size_t>(hp_.n_patches()) * 3 * hp_.patch_size * hp_.patch_size);
}

VulkanSiglipTower::~VulkanSiglipTower() {
    recorder_.reset();
    buffers_.clear();
}

void VulkanSiglipTower::upload_weights(const MmprojFile& file) {
    const int64_t d = hp_.n_embd, f = hp_.n_ff, p = hp_.patch_size, n = hp_.n_patches();
    const int64_t patch_len = 3 * p * p;
    const auto matrix = [&](const kernels::WeightMatrix& m, const std::string& name) {
        if (!vk::vulkan_supports_weight_type(m.type))
            file.gguf().fail("tensor " + name + ": the Vulkan backend does not run type " +
                             std::string(kernels::type_traits(m.type).name));
        const size_t bytes = static_cast<size_t>(m.rows) * kernels::row_bytes(m.type, m.cols);
        vk::Buffer& buffer = buffers_.emplace_back(*context_, bytes);
        buffer.upload(m.data, bytes);
        return Matrix{m.type, m.rows, m.cols, View{&buffer, 0}};
    };
    // Vectors, packed into one buffer: their offsets first, their bytes after.
    std::vector<std::pair<std::vector<float>, View*>> vectors;
    const auto vector = [&](std::vector<float> values, View& target) {
        vectors.emplace_back(std::move(values), &target);
    };

    const std::vector<float> patch_w = file.floats("v.patch_embd.weight", {p, p, 3, d});
    patch_w_ = matrix(kernels::WeightMatrix{kernels::TensorType::F32, d, patch_len, patch_w.data()},
                      "v.patch_embd.weight");
    vector(file.floats("v.patch_embd.bias", {d}), patch_b_);
    vector(file.floats("v.position_embd.weight", {d, n}), position_embd_);
    blocks_.resize(static_cast<size_t>(hp_.n_layer));
    for (int32_t i = 0; i < hp_.n_layer; ++i) {
        const std::string prefix = "v.blk." + std::to_string(i) + ".";
        Block& b = blocks_[static_cast<size_t>(i)];
        vector(file.floats(prefix + "ln1.weight", {d}), b.ln1_w);
        vector(file.floats(prefix + "ln1.bias", {d}), b.ln1_b);
        vector(file.floats(prefix + "ln2.weight", {d}), b.ln2_w);
        vector(file.floats(prefix + "ln2.bias", {d}), b.ln2_b);
        b.wq = matrix(file.matrix(prefix + "attn_q.weight", d, d), prefix + "attn_q.weight");
        b.wk = matrix(file.matrix(prefix + "attn_k.weight", d, d), prefix + "attn_k.weight");
        b.wv = matrix(file.matrix(prefix + "attn_v.weight", d, d), prefix + "attn_v.weight");
        b.wo = matrix(file.matrix(prefix + "attn_out.weight", d, d), prefix + "attn_out.weight");
        vector(file.floats(prefix + "attn_q.bias", {d}), b.bq);
        vector(file.floats(prefix + "attn_k.bias", {d}), b.bk);
        vector(file.floats(prefix + "attn_v.bias", {d}), b.bv);
        vector(file.floats(prefix + "attn_out.bias", {d}), b.bo);
        b.w_up = matrix(file.matrix(prefix + "ffn_up.weight", f, d), prefix + "ffn_up.weight");
        b.w_down = matrix(file.matrix(prefix + "ffn_down.weight", d, f), prefix + "ffn_down.weight");
        vector(file.floats(prefix + "ffn_up.bias", {f}), b.b_up);
        vector(file.floats(prefix + "ffn_down.bias", {d}), b.b_down);
    }
    vector(file.floats("v.post_ln.weight", {d}), post_ln_w_);
    vector(file.floats("v.post_ln.bias", {d}), post_ln_b_);

    size_t total = 0;
    std::vector<size_t> offsets;
    for (const auto& [values, target] : vectors) {
        offsets.push_back(total);
        total += (values.size() * sizeof(float) + kVectorAlignment - 1) / kVectorAlignment * kVectorAlignment;
    }
    std::vector<std::byte> packed(total);
    vk::Buffer& buffer = buffers_.emplace_back(*context_, total);
    for (size_t i = 0; i < vectors.size(); ++i) {
        const auto& [values, target] = vectors[i];
        std::memcpy(packed.data() + offsets[i], values.data(), values.size() * sizeof(float));
        *target = View{&buffer, offsets[i]};
    }
    buffer.upload(packed.data(), packed.size());
}

void VulkanSiglipTower::forward(const float* pixels, float* out, kernels::ThreadPool& pool) {
    const size_t n = static_cast<size_t>(hp_.n_patches()), d = static_cast<size_t>(hp_.n_embd);
    image_patches(hp_, pixels, host_patches_.data(), pool);
    engine::on_vulkan_device(info_.name, "running the vision tower", [&] {
        patches_.buffer->upload(host_patches_.data(), host_patches_.size() * sizeof(float));
        record();
        recorder_->submit_and_wait();
        result_.buffer->download(out, n * d * sizeof(float));
    });
    uint64_t ns = 0;
    for (const vk::OpTiming& t : recorder_->timings())
        ns += t.ns;
    last_gpu_ns_ = ns;
}

// SiglipTower::forward's steps (siglip_tower.cpp), in its order.
void VulkanSiglipTower::record() {
    const int64_t n = hp_.n_patches(), d = hp_.n_embd, f = hp_.n_ff;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hp_.head_dim()));
    vk::Recorder& r = *recorder_;
    r.begin();
    r.matmul(patch_w_, patches_, n, x_);
    r.add_bias(x_, patch_b_, n, d);
    r.add(x_, position_embd_, n * d);
    for (const Block& b : blocks_) {
        // Attention over every patch: both ways within the batch of all patches.
        r.layer_norm(x_, b.ln1_w, b.ln1_b, n, d, hp_.eps, xb_);
        r.matmul(b.wq, xb_, n, q_);
        r.matmul(b.wk, xb_, n, k_);
        r.matmul(b.wv, xb_, n, v_);
        r.add_bias(q_, b.bq, n, d);
        r.add_bias(k_, b.bk, n, d);
        r.add_bias(v_, b.bv, n, d);
        r.store_kv(k_, v_, n, 0, kv_);
        r.attention(q_, n, 0, hp_.n_head, kv_, scale, {}, true, attn_);
        r.matmul(b.wo, attn_, n, xb_);
        r.add_bias(xb_, b.bo, n, d);
        r.add(x_, xb_, n * d);
        // The GELU MLP.
        r.layer_norm(x_, b.ln2_w, b.ln2_b, n, d, hp_.eps, xb_);
        r.matmul(b.w_up, xb_, n, up_);
        r.add_bias(up_, b.b_up, n, f);
        r.gelu(up_, n * f);
        r.matmul(b.w_down, up_, n, xb_);
        r.add_bias(xb_, b.b_down, n, d);
        r.add(x_, xb_, n * d);
    }
    r.layer_norm(x_, post_ln_w_, post_ln_b_, n, d, hp_.eps, x_);
    r.copy(x_, result_, static_cast<size_t>(n * d) * sizeof(float));
}

} // namespace hearth::vision
