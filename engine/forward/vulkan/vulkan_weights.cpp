#include "engine/forward/vulkan/vulkan_weights.h"
#include "engine/error.h"
#include "engine/forward/device_plan.h"
#include "engine/forward/transformer_ops.h"
#include "kernels/interleaved_rows.h"
#include "kernels/tensor_type.h"
#include <algorithm>
#include <cstring>
#include <string>

namespace hearth::engine {

namespace vk = kernels::vulkan;

namespace {
// Repacked matrices are unpacked and uploaded this many bytes at a time (whole groups of rows).
constexpr size_t kUploadPieceBytes = size_t{8} << 20;
// Each vector starts on this boundary in the packed buffer.
constexpr size_t kVectorAlignment = 64;
} // namespace

VulkanWeights::VulkanWeights(vk::Context& context, const Model& model, int32_t n_layers, bool with_output)
    : context_(context) {
    const HyperParams& hp = model.hparams();
    const ModelWeights& w = model.weights();
    token_embd = upload_matrix(w.token_embd, "token_embd");
    add_vector(w.position_embd, position_embd);
    if (hp.traits.positions == PositionKind::Rope) {
        owned_vectors_.push_back(rope_frequency_factors(hp, short_rope_factors(w)));
        add_vector(owned_vectors_.back(), rope_factors);
        if (!w.rope_factors_long.empty()) {
            owned_vectors_.push_back(rope_frequency_factors(hp, w.rope_factors_long));
            add_vector(owned_vectors_.back(), rope_factors_long);
        }
    }
    layers.reserve(static_cast<size_t>(n_layers)); // the queued vectors point into it
    for (int32_t i = 0; i < n_layers; ++i) {
        const LayerWeights& l = w.layers[static_cast<size_t>(i)];
        const std::string name = "blk." + std::to_string(i) + ".";
        VulkanLayerWeights& d = layers.emplace_back();
        add_vector(l.attn_norm, d.attn_norm);
        add_vector(l.attn_norm_b, d.attn_norm_b);
        upload_attention_inputs(l, name, d);
        add_vector(l.bq, d.bq);
        add_vector(l.bk, d.bk);
        add_vector(l.bv, d.bv);
        add_vector(l.q_norm, d.q_norm);
        add_vector(l.k_norm, d.k_norm);
        d.wo = upload_matrix(l.wo, name + "attn_output");
        add_vector(l.bo, d.bo);
        add_vector(l.post_attn_norm, d.post_attn_norm);
        add_vector(l.ffn_norm, d.ffn_norm);
        add_vector(l.ffn_norm_b, d.ffn_norm_b);
        upload_pair(l.w_gate, l.w_up, name + "ffn_gate", name + "ffn_up", d.w_gate, d.w_up);
        d.w_down = upload_matrix(l.w_down, name + "ffn_down");
        add_vector(l.b_up, d.b_up);
        add_vector(l.b_down, d.b_down);
        add_vector(l.post_ffn_norm, d.post_ffn_norm);
        d.router = upload_matrix(l.router, name + "ffn_gate_inp");
        upload_pair(l.gate_exps, l.up_exps, name + "ffn_gate_exps", name + "ffn_up_exps", d.gate_exps,
                    d.up_exps);
        d.down_exps = upload_matrix(l.down_exps, name + "ffn_down_exps");
    }
    if (with_output) {
        add_vector(w.output_norm, output_norm);
        add_vector(w.output_norm_b, output_norm_b);
        output = upload_matrix(w.output, "output");
    }
    upload_vectors();
}

void VulkanWeights::check_uploadable(const kernels::WeightMatrix& m, const std::string& name) const {
    if (!vk::vulkan_supports_weight_type(m.type))
        throw Error(name + ": the Vulkan backend does not run " +
                    std::string(kernels::type_traits(m.type).name) + " weights");
}

vk::DeviceMatrix VulkanWeights::upload_matrix(const kernels::WeightMatrix& m, const std::string& name) {
    if (!m.data) return {};
    if (const auto found = uploaded_.find(m.data); found != uploaded_.end()) return found->second;
    check_uploadable(m, name);
    vk::Buffer& buffer = buffers_.emplace_back(context_, matrix_bytes(m));
    upload_into(m, buffer, 0);
    return uploaded_.at(m.data);
}

void VulkanWeights::upload_pair(const kernels::WeightMatrix& gate, const kernels::WeightMatrix& up,
                                const std::string& gate_name, const std::string& up_name,
                                vk::DeviceMatrix& gate_target, vk::DeviceMatrix& up_target) {
    const bool pair = gate.data && up.data && gate.data != up.data && gate.type == up.type &&
                      gate.rows == up.rows && gate.cols == up.cols && !uploaded_.contains(gate.data) &&
                      !uploaded_.contains(up.data);
    if (!pair) {
        gate_target = upload_matrix(gate, gate_name);
        up_target = upload_matrix(up, up_name);
        return;
    }
    check_uploadable(gate, gate_name);
    const kernels::WeightMatrix* const parts[] = {&gate, &up};
    upload_together(parts, 256);
    gate_target = uploaded_.at(gate.data);
    up_target = uploaded_.at(up.data);
}

void VulkanWeights::upload_attention_inputs(const LayerWeights& l, const std::string& layer_name,
                                            VulkanLayerWeights& target) {
    const auto joins = [&](const kernels::WeightMatrix& m, const std::vector<float>& bias) {
        return m.data && m.data != l.wq.data && m.type == l.wq.type && m.cols == l.wq.cols &&
               !uploaded_.contains(m.data) && bias.empty() == l.bq.empty();
    };
    const bool with_k = l.wq.data && !uploaded_.contains(l.wq.data) && joins(l.wk, l.bk);
    const bool with_v = with_k && l.wv.data != l.wk.data && joins(l.wv, l.bv);
    if (!with_k) {
        target.wq = upload_matrix(l.wq, layer_name + "attn_q");
        target.wk = upload_matrix(l.wk, layer_name + "attn_k");
        target.wv = upload_matrix(l.wv, layer_name + "attn_v");
        return;
    }
    check_uploadable(l.wq, layer_name + "attn_q");
    std::vector<const kernels::WeightMatrix*> parts{&l.wq, &l.wk};
    if (with_v) parts.push_back(&l.wv);
    int64_t rows = 0;
    for (const kernels::WeightMatrix* m : parts)
        rows += m->rows;
    vk::Buffer& buffer = upload_together(parts, 1); // rows end to end: one matrix
    target.wq = uploaded_.at(l.wq.data);
    target.wk = uploaded_.at(l.wk.data);
    target.wv = with_v ? uploaded_.at(l.wv.data) : upload_matrix(l.wv, layer_name + "attn_v");
    target.w_stacked = vk::DeviceMatrix{l.wq.type, rows, l.wq.cols, vk::View{&buffer, 0}};
    target.stacked = static_cast<int>(parts.size());
    if (!l.bq.empty()) {
        std::vector<float>& bias = owned_vectors_.emplace_back(l.bq);
        bias.insert(bias.end(), l.bk.begin(), l.bk.end());
        if (with_v) bias.insert(bias.end(), l.bv.begin(), l.bv.end());
        add_vector(bias, target.b_stacked);
    }
}

vk::Buffer& VulkanWeights::upload_together(std::span<const kernels::WeightMatrix* const> parts,
                                           size_t alignment) {
    std::vector<size_t> offsets;
    size_t bytes = 0;
    for (const kernels::WeightMatrix* m : parts) {
        bytes = (bytes + alignment - 1) / alignment * alignment;
        offsets.push_back(bytes);
        bytes += matrix_bytes(*m);
    }
    vk::Buffer& buffer = buffers_.emplace_back(context_, bytes);
    for (size_t i = 0; i < parts.size(); ++i)
        upload_into(*parts[i], buffer, offsets[i]);
    return buffer;
}

void VulkanWeights::upload_into(const kernels::WeightMatrix& m, vk::Buffer& buffer, size_t offset) {
    const size_t row_bytes = kernels::row_bytes(m.type, m.cols);
    const size_t bytes = matrix_bytes(m);
    if (m.layout == kernels::RowLayout::RowMajor) {
        buffer.upload(m.data, bytes, offset);
    } else {
        // Back to the file's rows, a piece of whole 16-row groups at a time.
        const int64_t group = kernels::kInterleavedRows;
        const int64_t rows_per_piece =
            std::max<int64_t>(group, static_cast<int64_t>(kUploadPieceBytes / row_bytes) / group * group);
        std::vector<std::byte> rows(static_cast<size_t>(std::min(rows_per_piece, m.rows)) * row_bytes);
        for (int64_t begin = 0; begin < m.rows; begin += rows_per_piece) {
            const int64_t end = std::min(m.rows, begin + rows_per_piece);
            kernels::unpack_rows16(m.type, m.data, m.cols, begin, end, rows.data());
            buffer.upload(rows.data(), static_cast<size_t>(end - begin) * row_bytes,
                          offset + static_cast<size_t>(begin) * row_bytes);
        }
    }
    bytes_ += bytes;
    uploaded_.emplace(m.data, vk::DeviceMatrix{m.type, m.rows, m.cols, vk::View{&buffer, offset}});
}

void VulkanWeights::add_vector(const std::vector<float>& values, VulkanVector& target) {
    if (!values.empty()) pending_vectors_.emplace_back(&values, &target);
}

void VulkanWeights::upload_vectors() {
    size_t bytes = 0;
    std::vector<size_t> offsets;
    for (const auto& [values, target] : pending_vectors_) {
        offsets.push_back(bytes);
        bytes +=
            (values->size() * sizeof(float) + kVectorAlignment - 1) / kVectorAlignment * kVectorAlignment;
    }
    if (bytes == 0) return;
    std::vector<std::byte> packed(bytes);
    for (size_t i = 0; i < pending_vectors_.size(); ++i)
        std::memcpy(packed.data() + offsets[i], pending_vectors_[i].first->data(),
                    pending_vectors_[i].first->size() * sizeof(float));
    vk::Buffer& buffer = buffers_.emplace_back(context_, bytes);
    buffer.upload(packed.data(), bytes);
    for (size_t i = 0; i < pending_vectors_.size(); ++i)
        pending_vectors_[i].second->view = vk::View{&buffer, offsets[i]};
    bytes_ += bytes;
    pending_vectors_.clear();
}

} // namespace hearth::engine
