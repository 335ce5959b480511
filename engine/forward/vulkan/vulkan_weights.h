#pragma once
// The weights of a model's first layers in device memory, uploaded once: every matrix in its
// file's block layout (a matrix the CPU repacked into groups of 16 rows is unpacked back first,
// kernels/interleaved_rows.h), never widened to F32; the norms, biases and factors (F32 in the
// file and on the host) packed into one buffer.
#include "engine/model/model.h"
#include "kernels/vulkan/vulkan_context.h"
#include "kernels/vulkan/vulkan_ops.h"
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace hearth::engine {

// A vector that a model may lack (an empty one is not present).
struct VulkanVector {
    kernels::vulkan::View view;
    bool present() const { return view.buffer != nullptr; }
};

struct VulkanLayerWeights {
    VulkanVector attn_norm, attn_norm_b;
    kernels::vulkan::DeviceMatrix wq, wk, wv;
    VulkanVector bq, bk, bv, q_norm, k_norm;
    // wq and wk, and wv where it has their type, as one matrix of their rows stacked (stacked:
    // 2 or 3; 0: none), with their biases stacked alike: decode computes them in one product.
    kernels::vulkan::DeviceMatrix w_stacked;
    VulkanVector b_stacked;
    int stacked = 0;
    kernels::vulkan::DeviceMatrix wo;
    VulkanVector bo, post_attn_norm, ffn_norm, ffn_norm_b;
    kernels::vulkan::DeviceMatrix w_gate, w_up, w_down; // no gate for a plain GELU FFN
    VulkanVector b_up, b_down, post_ffn_norm;
    // Mixture of experts: the router and the 3-D tensors as (n_expert * rows, cols) matrices.
    kernels::vulkan::DeviceMatrix router, gate_exps, up_exps, down_exps;
};

class VulkanWeights {
public:
    // Uploads the token embedding table (and learned positions, RoPE factors), layers
    // [0, n_layers), and with `output` the final norm and the output matrix. Throws
    // hearth::Error for a weight type the backend does not run.
    VulkanWeights(kernels::vulkan::Context& context, const Model& model, int32_t n_layers, bool output);
    VulkanWeights(const VulkanWeights&) = delete;
    VulkanWeights& operator=(const VulkanWeights&) = delete;

    kernels::vulkan::DeviceMatrix token_embd, output;
    VulkanVector position_embd, output_norm, output_norm_b;
    VulkanVector rope_factors, rope_factors_long; // (rope_dim / 2) as Inference's
    std::vector<VulkanLayerWeights> layers;
    uint64_t bytes() const { return bytes_; }

private:
    kernels::vulkan::DeviceMatrix upload_matrix(const kernels::WeightMatrix& m, const std::string& name);
    // A gated FFN's gate and up matrices (or expert tensors) in one buffer, the up matrix after
    // the gate's on a 256-byte boundary, so that one dispatch reads both (Recorder::matmul_glu,
    // matmul_experts_glu); each on its own where they differ in type or shape, or one is
    // uploaded already (a tied table).
    void upload_pair(const kernels::WeightMatrix& gate, const kernels::WeightMatrix& up,
                     const std::string& gate_name, const std::string& up_name,
                     kernels::vulkan::DeviceMatrix& gate_target, kernels::vulkan::DeviceMatrix& up_target);
    // A layer's Q, K and V matrices: Q and K (and V where it has their type) in one buffer,
    // their rows stacked into one matrix (VulkanLayerWeights::w_stacked), where they share a
    // type and width and either all or none of them have a bias.
    void upload_attention_inputs(const LayerWeights& l, const std::string& layer_name,
                                 VulkanLayerWeights& target);
    void check_uploadable(const kernels::WeightMatrix& m, const std::string& name) const;
    void upload_into(const kernels::WeightMatrix& m, kernels::vulkan::Buffer& buffer, size_t offset);
    // Matrices into one new buffer, one after another, each starting on a multiple of `alignment`.
    kernels::vulkan::Buffer& upload_together(std::span<const kernels::WeightMatrix* const> parts,
                                             size_t alignment);
    // Queues a vector (empty: none) for upload_vectors.
    void add_vector(const std::vector<float>& values, VulkanVector& target);
    void upload_vectors();

    kernels::vulkan::Context& context_;
    std::deque<kernels::vulkan::Buffer> buffers_;                   // a deque: views keep pointing at them
    std::map<const void*, kernels::vulkan::DeviceMatrix> uploaded_; // by host data: tied tables once
    // Vectors waiting for upload_vectors, which packs them into one buffer.
    std::vector<std::pair<const std::vector<float>*, VulkanVector*>> pending_vectors_;
    std::deque<std::vector<float>> owned_vectors_; // vectors made here (RoPE factors, stacked biases)
    uint64_t bytes_ = 0;
};

} // namespace hearth::engine
