#include "engine/forward/device_plan.h"
#include "kernels/tensor_type.h"
#include <algorithm>

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
    // As the cache will hold them (a type the head size cannot take is refused by new_cache).
    plan.kv_bytes_per_layer =
        static_cast<uint64_t>(model.info().kv_bytes_per_token_as(types.keys, types.values)) /
        static_cast<uint64_t>(std::max(1, hp.n_layer)) * static_cast<uint64_t>(std::max(0, n_ctx));
    // x, xb, ffn, q, attn, k, v, gate, up (and the experts' copies of gate, up and down), and
    // the residual stream and logits read back.
    const uint64_t rows = static_cast<uint64_t>(std::max(1, n_batch));
    const uint64_t k = static_cast<uint64_t>(std::max(1, hp.n_expert_used));
    uint64_t floats = rows * (4ull * hp.n_embd + 2ull * hp.q_width() + 2ull * hp.kv_width() + 2ull * hp.n_ff);
    if (hp.n_expert > 0) floats += rows * (hp.n_expert + 2 * k + k * (2ull * hp.n_ff_expert + hp.n_embd));
    floats += static_cast<uint64_t>(hp.n_vocab);
    plan.scratch_bytes = floats * sizeof(float);
    return plan;
}

int32_t layers_that_fit(const DeviceMemoryPlan& plan, uint64_t available) {
    int32_t n = 0;
    while (n < static_cast<int32_t>(plan.layer_bytes.size()) && plan.bytes_for(n + 1) <= available)
        ++n;
    return n;
}

} // namespace hearth::engine
