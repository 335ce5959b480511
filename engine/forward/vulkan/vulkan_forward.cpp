#include "engine/forward/vulkan/vulkan_forward.h"
#include "engine/forward/transformer_ops.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace hearth::engine {

namespace vk = kernels::vulkan;

// Buffers are made in the constructor, some only for some models: a slot may stay empty.
using Slot = std::optional<vk::Buffer>;

struct VulkanForward::Activations {
    Slot ids;      // (n_batch) int32, host-visible
    Slot image;    // (n_batch, n_embd) an image's input rows, host-visible; made at the first image
    Slot x;        // (n_batch, n_embd) the residual stream
    Slot xb;       // (n_batch, n_embd) the normed input of a sublayer
    Slot ffn;      // (n_batch, n_embd)
    Slot q, attn;  // (n_batch, q_width)
    Slot k, v;     // (n_batch, kv_width)
    Slot stacked;  // one row's q, k (and v) side by side: decode's stacked product of them
    Slot gate, up; // (n_batch, n_ff)
    // Mixture of experts: the router's logits, the chosen experts and their weights, and the
    // chosen experts' gate, up and down outputs.
    Slot router, expert_ids, expert_weights; // (n_batch, n_expert), (n_batch, k) x2
    Slot expert_gate, expert_up;             // (n_batch, k, n_ff_expert)
    Slot expert_down;                        // (n_batch, k, n_embd)
    Slot zeros;                              // (n_batch, n_embd) to clear ffn, when needed
    // What comes back, host-visible: the logits (rows of n_vocab, grown when every row's logits
    // are asked for), or the residual stream (n_batch, n_embd).
    Slot logits, residual;
    int32_t logits_rows = 0;
};

namespace {

// The dispatch metrics' timestamps on one pass in this interval at most (Recorder::timings).
constexpr std::chrono::milliseconds kTimedPassInterval{200};

vk::View at(Slot& buffer, size_t floats = 0) {
    return vk::View{&*buffer, floats * sizeof(float)};
}

size_t floats(int64_t rows, int64_t width) {
    return static_cast<size_t>(std::max<int64_t>(1, rows * width)) * sizeof(float);
}

} // namespace

VulkanForward::VulkanForward(std::shared_ptr<const Model> model, const InferenceOptions& options,
                             GpuDeviceInfo info, int32_t n_layers)
    : model_(std::move(model)), info_(std::move(info)), n_layers_(n_layers),
      n_batch_(std::max(1, options.n_batch)) {
    const HyperParams& hp = model_->hparams();
    on_vulkan_device(info_.name, "opening the device", [&] {
        vk::ContextOptions context_options;
        context_options.device_index = info_.index;
        context_options.validation = options.device_validation;
        device_ = std::make_shared<VulkanDevice>(context_options);
    });
    std::lock_guard lock(device_->mutex);
    vk::Context& context = device_->context;
    const bool output = n_layers_ == hp.n_layer;
    on_vulkan_device(info_.name, "uploading the weights", [&] {
        weights_ = std::make_unique<VulkanWeights>(context, *model_, n_layers_, output);
    });
    on_vulkan_device(info_.name, "allocating the activations", [&] {
        auto a = std::make_unique<Activations>();
        const int64_t b = n_batch_;
        const auto local = [&](size_t bytes) { return Slot(std::in_place, context, bytes); };
        const auto mapped = [&](size_t bytes) {
            return Slot(std::in_place, context, bytes, vk::Memory::HostVisible);
        };
        a->ids = mapped(floats(b, 1));
        a->x = local(floats(b, hp.n_embd));
        a->xb = local(floats(b, hp.n_embd));
        a->ffn = local(floats(b, hp.n_embd));
        a->q = local(floats(b, hp.q_width()));
        a->attn = local(floats(b, hp.q_width()));
        a->k = local(floats(b, hp.kv_width()));
        a->v = local(floats(b, hp.kv_width()));
        int64_t stacked_rows = 0;
        for (const VulkanLayerWeights& l : weights_->layers)
            stacked_rows = std::max(stacked_rows, l.w_stacked.rows);
        if (stacked_rows > 0) a->stacked = local(floats(1, stacked_rows));
        if (hp.traits.ffn == FfnKind::MixtureOfExperts) {
            const int64_t k = hp.n_expert_used;
            a->router = local(floats(b, hp.n_expert));
            a->expert_ids = local(floats(b, k));
            a->expert_weights = local(floats(b, k));
            a->expert_gate = local(floats(b * k, hp.n_ff_expert));
            a->expert_up = local(floats(b * k, hp.n_ff_expert));
            a->expert_down = local(floats(b * k, hp.n_embd));
            const bool ffn_alone = std::any_of(
                model_->weights().layers.begin(), model_->weights().layers.end(),
                [](const LayerWeights& l) { return !l.b_down.empty() || !l.post_ffn_norm.empty(); });
            if (ffn_alone) {
                a->zeros = local(floats(b, hp.n_embd));
                a->zeros->fill_zero();
            }
        } else {
            a->up = local(floats(b, hp.n_ff));
            if (hp.traits.ffn != FfnKind::Gelu) a->gate = local(floats(b, hp.n_ff));
        }
        if (output) {
            a->logits = mapped(floats(1, hp.n_vocab));
            a->logits_rows = 1;
        } else {
            a->residual = mapped(floats(b, hp.n_embd));
        }
        act_ = std::move(a);
        recorder_ = std::make_unique<vk::Recorder>(context);
        // Decode passes come by the hundred a second: the metrics panel gets one timed pass in
        // each of its refreshes.
        recorder_->set_timing_interval(kTimedPassInterval);
    });
}

VulkanForward::~VulkanForward() {
    if (!device_) return;
    std::lock_guard lock(device_->mutex);
    recorder_.reset();
    act_.reset();
    weights_.reset();
}

void VulkanForward::attach(KvCache& cache) {
    part_of(cache);
}

VulkanKvPart& VulkanForward::part_of(KvCache& cache) {
    auto* part = dynamic_cast<VulkanKvPart*>(cache.device_part());
    if (part && part->device() == device_.get() && part->n_layers() == n_layers_) return *part;
    // Another device's part, or none: this device's, with the rows the host holds sent up
    // before the next pass (KvCache::attach_device).
    auto made = std::make_unique<VulkanKvPart>(device_, cache, n_layers_);
    part = made.get();
    cache.attach_device(std::move(made));
    return *part;
}

void VulkanForward::forward(KvCache& cache, const int32_t* tokens, int32_t n, bool all_logits,
                            float* logits_out, float* residual_out) {
    run(cache, Input{.tokens = tokens}, n, all_logits, logits_out, residual_out);
}

void VulkanForward::forward_image(KvCache& cache, const float* embeddings, int32_t n, float* logits_out,
                                  float* residual_out) {
    run(cache, Input{.embeddings = embeddings}, n, false, logits_out, residual_out);
}

void VulkanForward::run(KvCache& cache, Input input, int32_t n, bool all_logits, float* logits_out,
                        float* residual_out) {
    const HyperParams& hp = model_->hparams();
    if (n <= 0 || n > n_batch_) throw Error("device forward pass: a batch of " + std::to_string(n) + " rows");
    const bool image = input.embeddings != nullptr;
    std::lock_guard lock(device_->mutex);
    const int32_t n_past = cache.size();
    const int32_t out_rows = whole_model() ? (all_logits ? n : 1) : 0;
    try {
        VulkanKvPart& part = part_of(cache);
        cache.sync_device();
        on_vulkan_device(info_.name, "running the forward pass", [&] {
            Activations& a = *act_;
            if (out_rows > a.logits_rows) { // every row's logits: grown once, kept
                a.logits.emplace(device_->context, floats(out_rows, hp.n_vocab), vk::Memory::HostVisible);
                a.logits_rows = out_rows;
            }
            if (image) {
                if (!a.image)
                    a.image.emplace(device_->context, floats(n_batch_, hp.n_embd), vk::Memory::HostVisible);
                a.image->upload(input.embeddings, static_cast<size_t>(n) * hp.n_embd * sizeof(float));
            } else {
                a.ids->upload(input.tokens, static_cast<size_t>(n) * sizeof(int32_t));
            }
            record(part, cache.capacity(), n_past, n, all_logits, image);
            recorder_->submit_and_wait();
            if (whole_model()) {
                if (logits_out)
                    a.logits->download(logits_out,
                                       static_cast<size_t>(out_rows) * hp.n_vocab * sizeof(float));
            } else {
                a.residual->download(residual_out, static_cast<size_t>(n) * hp.n_embd * sizeof(float));
            }
        });
        cache.note_device_wrote();
    } catch (...) {
        // A lost device took the cache's rows with it: the cache forgets its tokens, so that the
        // conversation is computed again wherever it goes on.
        if (device_->context.lost()) cache.drop_device();
        throw;
    }

    DeviceTraffic pass;
    pass.to_device = static_cast<uint64_t>(n) * (image ? sizeof(float) * hp.n_embd : sizeof(int32_t));
    pass.from_device = static_cast<uint64_t>(whole_model() ? (logits_out ? out_rows : 0) * int64_t{hp.n_vocab}
                                                           : int64_t{n} * hp.n_embd) *
                       sizeof(float);
    pass.tokens = n;
    std::lock_guard figures(figures_mutex_);
    if (recorder_->last_pass_timed()) { // else the figures stay those of the last timed pass
        timings_.clear();
        for (const vk::OpTiming& t : recorder_->timings())
            timings_.push_back(DeviceOpTiming{t.name, t.kernel, t.dispatches, t.ns});
        add_timings(total_timings_, timings_);
    }
    last_traffic_ = pass;
    total_traffic_.to_device += pass.to_device;
    total_traffic_.from_device += pass.from_device;
    total_traffic_.tokens += pass.tokens;
}

// The model's norm before a sublayer: RMSNorm, or LayerNorm with its bias.
void VulkanForward::record_norm(vk::View in, const VulkanVector& weight, const VulkanVector& bias,
                                int32_t rows, vk::View out) {
    const HyperParams& hp = model_->hparams();
    if (hp.traits.norm == NormKind::LayerNorm)
        recorder_->layer_norm(in, weight.view, bias.view, rows, hp.n_embd, hp.rms_eps, out);
    else
        recorder_->rms_norm(in, weight.view, rows, hp.n_embd, hp.rms_eps, out);
}

// out = W x, plus the bias where the model has one (in the product's own dispatch).
void VulkanForward::record_projection(const vk::DeviceMatrix& w, const VulkanVector& bias, vk::View x,
                                      int32_t rows, vk::View out) {
    if (bias.present())
        recorder_->matmul_bias(w, x, rows, out, bias.view);
    else
        recorder_->matmul(w, x, rows, out);
}

// Inference::forward_batch's steps, in its order (inference.cpp).
void VulkanForward::record(const VulkanKvPart& part, int32_t n_ctx, int32_t n_past, int32_t n,
                           bool all_logits, bool image) {
    const HyperParams& hp = model_->hparams();
    const VulkanWeights& w = *weights_;
    Activations& a = *act_;
    vk::Recorder& r = *recorder_;
    const int32_t dim = hp.n_embd;
    const int64_t values = int64_t{n} * dim;
    r.begin();

    if (image) {
        // An image's rows as they are: the projector's output is never scaled.
        r.copy(at(a.image), at(a.x), static_cast<size_t>(values) * sizeof(float));
    } else {
        r.get_rows(w.token_embd, at(a.ids), n, at(a.x));
        if (hp.traits.scale_embeddings) r.scale(at(a.x), values, std::sqrt(float(dim)));
    }
    if (hp.traits.positions == PositionKind::Learned) {
        const vk::View& positions = w.position_embd.view;
        r.add(at(a.x), vk::View{positions.buffer, positions.offset + sizeof(float) * size_t(n_past) * dim},
              values);
    }
    const vk::View factors =
        uses_long_rope_factors(hp, model_->weights(), n_ctx) ? w.rope_factors_long.view : w.rope_factors.view;
    for (int32_t layer = 0; layer < n_layers_; ++layer)
        record_layer(part, layer, n_past, n, factors, image);

    if (!whole_model()) {
        r.copy(at(a.x), at(a.residual), static_cast<size_t>(values) * sizeof(float));
        return;
    }
    // Final norm and logits: for every row when asked, else for the last token only.
    const int32_t first = all_logits ? 0 : n - 1;
    const int32_t rows = n - first;
    record_norm(at(a.x, static_cast<size_t>(first) * dim), w.output_norm, w.output_norm_b, rows, at(a.xb));
    r.matmul(w.output, at(a.xb), rows, at(a.logits));
    if (hp.final_softcap > 0) r.soft_cap(at(a.logits), int64_t{rows} * hp.n_vocab, hp.final_softcap);
}

void VulkanForward::record_layer(const VulkanKvPart& part, int32_t layer, int32_t n_past, int32_t n,
                                 vk::View rope_factors, bool batch_sees_itself) {
    const HyperParams& hp = model_->hparams();
    const VulkanLayerWeights& l = weights_->layers[static_cast<size_t>(layer)];
    Activations& a = *act_;
    vk::Recorder& r = *recorder_;
    const int32_t dim = hp.n_embd;
    const vk::DeviceKvLayer& kv = part.layer(layer);

    // Attention: norm -> Q, K, V -> (biases, Q/K norm) -> RoPE -> cache -> attend -> output
    // projection -> (bias, post-norm) -> residual.
    record_norm(at(a.x), l.attn_norm, l.attn_norm_b, n, at(a.xb));
    vk::View q = at(a.q), k = at(a.k), v = at(a.v);
    if (n == 1 && l.stacked > 0) {
        // One token: Q and K (and V) in one product, side by side in one row.
        record_projection(l.w_stacked, l.b_stacked, at(a.xb), 1, at(a.stacked));
        q = at(a.stacked);
        k = at(a.stacked, static_cast<size_t>(l.wq.rows));
        if (l.stacked == 3)
            v = at(a.stacked, static_cast<size_t>(l.wq.rows + l.wk.rows));
        else
            record_projection(l.wv, l.bv, at(a.xb), n, v);
    } else {
        record_projection(l.wq, l.bq, at(a.xb), n, q);
        record_projection(l.wk, l.bk, at(a.xb), n, k);
        record_projection(l.wv, l.bv, at(a.xb), n, v);
    }
    if (l.q_norm.present()) {
        if (n == 1 && l.stacked > 0) { // side by side: one dispatch
            r.rms_norm_heads(q, hp.n_head, l.q_norm.view, hp.n_head_kv, l.k_norm.view, hp.head_dim,
                             hp.rms_eps);
        } else {
            r.rms_norm(q, l.q_norm.view, int64_t{n} * hp.n_head, hp.head_dim, hp.rms_eps, q);
            r.rms_norm(k, l.k_norm.view, int64_t{n} * hp.n_head_kv, hp.head_dim, hp.rms_eps, k);
        }
    }
    if (hp.traits.positions == PositionKind::Rope) {
        // A local layer turns by its own rotation only where it differs (Phi-3's are all local).
        const RopeConfig rope =
            hp.layer_is_local(layer) && local_rope_differs(hp) ? local_rope(hp) : global_rope(hp);
        r.rope_pair(q, hp.n_head, k, hp.n_head_kv, n, hp.head_dim, hp.rope_dim, hp.rope_neox, n_past,
                    rope.freq_base, rope.freq_scale, rope.attn_factor, rope_factors);
    }
    r.store_kv(k, v, n, n_past, kv);
    const LayerAttention how = layer_attention(hp, layer);
    r.attention(q, n, n_past, hp.n_head, kv, how.scale, how.limits, batch_sees_itself, at(a.attn));
    if (!l.bo.present() && !l.post_attn_norm.present()) {
        r.matmul_add(l.wo, at(a.attn), n, at(a.x)); // straight into the residual stream
    } else {
        record_projection(l.wo, l.bo, at(a.attn), n, at(a.xb));
        if (l.post_attn_norm.present())
            r.rms_norm_add(at(a.xb), l.post_attn_norm.view, n, dim, hp.rms_eps, at(a.x));
        else
            r.add(at(a.x), at(a.xb), int64_t{n} * dim);
    }

    // Feed-forward: norm -> the FFN -> (post-norm) -> residual.
    record_norm(at(a.x), l.ffn_norm, l.ffn_norm_b, n, at(a.xb));
    record_ffn(l, n);
}

void VulkanForward::record_ffn(const VulkanLayerWeights& l, int32_t n) {
    const HyperParams& hp = model_->hparams();
    Activations& a = *act_;
    vk::Recorder& r = *recorder_;
    const int32_t dim = hp.n_embd;
    const int64_t values = int64_t{n} * dim;
    // Without a bias or norm after it, the down projection adds into the residual stream itself;
    // its bias, where it has one, is added in its own dispatch.
    const bool down_into_stream = !l.b_down.present() && !l.post_ffn_norm.present();
    const auto down = [&](Slot& in) {
        if (down_into_stream)
            r.matmul_add(l.w_down, at(in), n, at(a.x));
        else
            record_projection(l.w_down, l.b_down, at(in), n, at(a.ffn));
    };
    switch (hp.traits.ffn) {
    case FfnKind::Swiglu:
    case FfnKind::GeluGated:
        // Gate and up in one dispatch where they allow it (decode), with the activation.
        r.matmul_glu(l.w_gate, l.w_up, at(a.xb), n,
                     hp.traits.ffn == FfnKind::Swiglu ? vk::Recorder::Glu::Silu : vk::Recorder::Glu::GeluTanh,
                     at(a.gate), at(a.up));
        down(a.gate);
        if (down_into_stream) return;
        break;
    case FfnKind::Gelu:
        record_projection(l.w_up, l.b_up, at(a.xb), n, at(a.up));
        r.gelu(at(a.up), int64_t{n} * hp.n_ff);
        down(a.up);
        if (down_into_stream) return;
        break;
    case FfnKind::MixtureOfExperts: {
        // The router's softmax, its top k renormalized; each chosen expert's SwiGLU; their
        // outputs summed with those weights (mixture_of_experts.h).
        const int64_t k = hp.n_expert_used;
        r.matmul(l.router, at(a.xb), n, at(a.router));
        r.topk_softmax(at(a.router), n, hp.n_expert, k, true, at(a.expert_ids), at(a.expert_weights));
        r.matmul_experts_glu(l.gate_exps, l.up_exps, hp.n_ff_expert, at(a.xb), n, at(a.expert_ids), k,
                             vk::Recorder::Glu::Silu, at(a.expert_gate), at(a.expert_up));
        // Each (token, expert) row on its own: n * k rows of one expert each.
        r.matmul_experts(l.down_exps, dim, at(a.expert_gate), n * k, at(a.expert_ids), 1, at(a.expert_down));
        if (!l.b_down.present() && !l.post_ffn_norm.present()) {
            // Straight into the residual stream: x + sum, as x + (0 + sum).
            r.weighted_sum_experts(at(a.expert_down), at(a.expert_weights), n, k, dim, at(a.x));
            return;
        }
        r.copy(at(a.zeros), at(a.ffn), static_cast<size_t>(values) * sizeof(float));
        r.weighted_sum_experts(at(a.expert_down), at(a.expert_weights), n, k, dim, at(a.ffn));
        if (l.b_down.present()) r.add_bias(at(a.ffn), l.b_down.view, n, dim);
        break;
    }
    }
    if (l.post_ffn_norm.present())
        r.rms_norm_add(at(a.ffn), l.post_ffn_norm.view, n, dim, hp.rms_eps, at(a.x));
    else
        r.add(at(a.x), at(a.ffn), values);
}

std::vector<DeviceOpTiming> VulkanForward::timings() const {
    std::lock_guard lock(figures_mutex_);
    return timings_;
}

std::vector<DeviceOpTiming> VulkanForward::total_timings() const {
    std::lock_guard lock(figures_mutex_);
    return total_timings_;
}

DeviceTraffic VulkanForward::last_traffic() const {
    std::lock_guard lock(figures_mutex_);
    return last_traffic_;
}

DeviceTraffic VulkanForward::total_traffic() const {
    std::lock_guard lock(figures_mutex_);
    return total_traffic_;
}

uint64_t VulkanForward::bytes_per_decoded_token() const {
    const HyperParams& hp = model_->hparams();
    return sizeof(int32_t) + sizeof(float) * static_cast<uint64_t>(whole_model() ? hp.n_vocab : hp.n_embd);
}

uint64_t VulkanForward::validation_errors() const {
    return device_->context.validation_errors();
}

std::string VulkanForward::last_validation_message() const {
    return device_->context.last_validation_message();
}

} // namespace hearth::engine
