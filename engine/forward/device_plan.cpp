#include "engine/forward/device_plan.h"
#include "kernels/tensor_type.h"
#include <algorithm>
#include <string>
#include <string_view>

namespace hearth::engine {

uint64_t matrix_bytes(const kernels::WeightMatrix& m) {
    if (!m.data) return 0;
    return static_cast<uint64_t>(kernels::row_bytes(m.type, m.cols)) * static_cast<uint64_t>(m.rows);
}

namespace {

uint64_t vector_bytes(const std::vector<float>& v) {
    return v.size() * sizeof(float);
}

uint64_t layer_weight_bytes(const LayerWeights& l) {
    uint64_t bytes = 0;
    // A fused matrix's parts (wq/wk/wv, w_gate/w_up) and the experts' views are counted once,
    // as the parts or as the 3-D tensors.
    for (const kernels::WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down,
                                           &l.router, &l.gate_exps, &l.up_exps, &l.down_exps})
        bytes += matrix_bytes(*m);
    for (const std::vector<float>* v :
         {&l.attn_norm, &l.attn_norm_b, &l.bq, &l.bk, &l.bv, &l.q_norm, &l.k_norm, &l.bo, &l.post_attn_norm,
          &l.ffn_norm, &l.ffn_norm_b, &l.b_up, &l.b_down, &l.post_ffn_norm})
        bytes += vector_bytes(*v);
    return bytes;
}

// One layer's keys and values for n_ctx positions, as the cache will hold them (a type the head
// size cannot take is refused by new_cache).
uint64_t kv_bytes_per_layer(const ModelInfo& info, int32_t n_ctx, KvCacheTypes types) {
    return static_cast<uint64_t>(info.kv_bytes_per_token_as(types.keys, types.values)) /
           static_cast<uint64_t>(std::max(1, info.n_layer)) * static_cast<uint64_t>(std::max(0, n_ctx));
}

// x, xb, ffn, q, attn, k, v, gate, up (and the experts' copies of gate, up and down) of a batch,
// and the residual stream and logits read back.
uint64_t scratch_bytes(const HyperParams& hp, int32_t n_batch) {
    const uint64_t rows = static_cast<uint64_t>(std::max(1, n_batch));
    const uint64_t k = static_cast<uint64_t>(std::max(1, hp.n_expert_used));
    uint64_t floats = rows * (4ull * hp.n_embd + 2ull * hp.q_width() + 2ull * hp.kv_width() + 2ull * hp.n_ff);
    if (hp.n_expert > 0) floats += rows * (hp.n_expert + 2 * k + k * (2ull * hp.n_ff_expert + hp.n_embd));
    floats += static_cast<uint64_t>(hp.n_vocab);
    return floats * sizeof(float);
}

// The layer a tensor named "blk.N.<...>" belongs to; -1 for any other name.
int32_t layer_of(const std::string& name) {
    constexpr std::string_view prefix = "blk.";
    if (!name.starts_with(prefix)) return -1;
    int32_t layer = 0;
    size_t i = prefix.size();
    if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
    for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i)
        layer = std::min(layer * 10 + (name[i] - '0'), 1 << 20);
    return i < name.size() && name[i] == '.' ? layer : -1;
}

} // namespace

uint64_t DeviceMemoryPlan::bytes_for(int32_t n_layers) const {
    if (n_layers <= 0) return 0;
    const auto n = static_cast<size_t>(std::min<int64_t>(n_layers, static_cast<int64_t>(layer_bytes.size())));
    uint64_t bytes = input_bytes + scratch_bytes + n * kv_bytes_per_layer;
    for (size_t i = 0; i < n; ++i)
        bytes += layer_bytes[i];
    if (n == layer_bytes.size()) bytes += output_bytes;
    return bytes;
}

DeviceMemoryPlan plan_device_memory(const Model& model, int32_t n_batch, int32_t n_ctx, KvCacheTypes types) {
    const HyperParams& hp = model.hparams();
    const ModelWeights& w = model.weights();
    DeviceMemoryPlan plan;
    plan.input_bytes = matrix_bytes(w.token_embd) + vector_bytes(w.position_embd) +
                       vector_bytes(w.rope_freq_factors) + vector_bytes(w.rope_factors_long) +
                       vector_bytes(w.rope_factors_short);
    plan.output_bytes = vector_bytes(w.output_norm) + vector_bytes(w.output_norm_b) +
                        (w.output.data == w.token_embd.data ? 0 : matrix_bytes(w.output));
    for (const LayerWeights& l : w.layers)
        plan.layer_bytes.push_back(layer_weight_bytes(l));
    plan.kv_bytes_per_layer = kv_bytes_per_layer(model.info(), n_ctx, types);
    plan.scratch_bytes = scratch_bytes(hp, n_batch);
    return plan;
}

DeviceMemoryPlan plan_device_memory(const gguf::GgufFile& file, int32_t n_batch, int32_t n_ctx,
                                    KvCacheTypes types) {
    HyperParams hp = read_hyperparams(file);
    const ModelInfo info = Model::read_info(file);
    DeviceMemoryPlan plan;
    plan.layer_bytes.assign(static_cast<size_t>(std::max(0, hp.n_layer)), 0);
    for (const gguf::TensorInfo& t : file.tensors()) {
        const int32_t layer = layer_of(t.name);
        if (layer >= 0) {
            if (layer < hp.n_layer) plan.layer_bytes[static_cast<size_t>(layer)] += t.bytes;
        } else if (t.name.starts_with("token_embd.") || t.name.starts_with("position_embd.") ||
                   t.name.starts_with("rope_")) {
            plan.input_bytes += t.bytes;
            if (t.name == "token_embd.weight" && t.shape.size() == 2)
                hp.n_vocab = static_cast<int32_t>(t.shape[1]);
        } else if (t.name.starts_with("output")) {
            plan.output_bytes += t.bytes; // output_norm.*, output.weight (absent when tied)
        }
    }
    plan.kv_bytes_per_layer = kv_bytes_per_layer(info, n_ctx, types);
    plan.scratch_bytes = scratch_bytes(hp, n_batch);
    return plan;
}

uint64_t usable_device_bytes(uint64_t device_local_bytes, std::optional<uint64_t> free_bytes) {
    const uint64_t heap_share = device_local_bytes - device_local_bytes / 10;
    return free_bytes ? std::min(heap_share, *free_bytes) : heap_share;
}

int32_t layers_that_fit(const DeviceMemoryPlan& plan, uint64_t available) {
    int32_t n = 0;
    while (n < static_cast<int32_t>(plan.layer_bytes.size()) && plan.bytes_for(n + 1) <= available)
        ++n;
    return n;
}

} // namespace hearth::engine
