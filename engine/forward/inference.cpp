#include "engine/forward/inference.h"
#include "engine/error.h"
#include "engine/forward/device_forward.h"
#include "engine/forward/mixture_of_experts.h"
#include "engine/forward/thread_count.h"
#include "engine/forward/transformer_ops.h"
#include "kernels/kernel_table.h"
#include "kernels/thread_pool.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <thread>

namespace hearth::engine {

// Activations of one batch, each (n_batch, width); allocated once.
struct Inference::Scratch {
    std::vector<float> x;                 // (n_batch, n_embd) residual stream
    std::vector<float> xb;                // (n_batch, n_embd) normed input of a sublayer
    std::vector<float> q;                 // (n_batch, q_width)
    std::vector<float> k, v;              // (n_batch, kv_width)
    std::vector<float> attn;              // (n_batch, q_width) attention output
    std::vector<float> gate;              // (n_batch, n_ff)
    std::vector<float> up;                // (n_batch, n_ff)
    std::vector<float> ffn;               // (n_batch, n_embd)
    std::vector<float> logits;            // (1 or n_batch, n_vocab)
    std::vector<float> rope;              // (n_batch, rope_dim) cos/sin pairs of each token's position
    std::vector<float> rope_local;        // the same for the local layers, if they turn otherwise
    std::vector<float> rope_factors;      // (rope_dim / 2) divisor of each rotated pair's frequency
    std::vector<float> rope_factors_long; // LongRoPE's, for a context past n_ctx_orig; or empty
    ExpertScratch experts;                // mixture of experts, or empty
    std::vector<std::byte> matmul;
};

namespace {
// fn(first, count) over rows [0, rows): a prefill batch in parts of kRowsPerPart rows or more
// shared out by the pool (a row of a norm, a residual add or a RoPE is well under a
// microsecond, a pool job a few), decode's single row on the caller. Each row is computed as alone, so the
// results do not depend on the split. On one thread these steps were a visible share of a
// prefill once the matrix products ran on tiles.
constexpr int32_t kRowsPerPart = 16;

template <class F> void for_row_parts(int32_t rows, kernels::ThreadPool& pool, F&& fn) {
    const int parts = static_cast<int>(std::min<int64_t>(rows / kRowsPerPart, 4 * int64_t{pool.size()}));
    if (parts < 2) {
        fn(0, rows);
        return;
    }
    pool.for_each_part(rows, parts, [&](int64_t begin, int64_t end) {
        fn(static_cast<int32_t>(begin), static_cast<int32_t>(end - begin));
    });
}
} // namespace

Inference::Inference(std::shared_ptr<const Model> model, InferenceOptions options)
    : model_(std::move(model)), n_batch_(std::max(1, options.n_batch)), cache_types_(options.cache_types) {
    pool_ = std::make_shared<kernels::ThreadPool>(resolve_threads(options.n_threads));

    const HyperParams& hp = model_->hparams();
    const ModelWeights& w = model_->weights();
    auto s = std::make_unique<Scratch>();
    const size_t b = static_cast<size_t>(n_batch_);
    s->x.resize(b * hp.n_embd);
    s->xb.resize(b * hp.n_embd);
    s->q.resize(b * hp.q_width());
    s->k.resize(b * hp.kv_width());
    s->v.resize(b * hp.kv_width());
    s->attn.resize(b * hp.q_width());
    s->gate.resize(b * hp.n_ff);
    s->up.resize(b * hp.n_ff);
    s->ffn.resize(b * hp.n_embd);
    s->logits.resize(static_cast<size_t>(hp.n_vocab));
    s->rope.resize(b * hp.rope_dim);
    if (local_rope_differs(hp)) s->rope_local.resize(b * hp.rope_dim);
    s->rope_factors = rope_frequency_factors(hp, short_rope_factors(w));
    if (!w.rope_factors_long.empty()) s->rope_factors_long = rope_frequency_factors(hp, w.rope_factors_long);
    if (hp.traits.ffn == FfnKind::MixtureOfExperts) {
        s->experts = ExpertScratch(hp, n_batch_);
        expert_hits_ = std::make_shared<ExpertHits>(hp.n_layer, hp.n_expert);
    }

    size_t matmul_bytes = 0;
    auto need = [&](const kernels::WeightMatrix& m) {
        matmul_bytes = std::max(matmul_bytes, kernels::matmul_scratch_bytes(m.type, m.cols, n_batch_));
    };
    auto need_group = [&](std::initializer_list<const kernels::WeightMatrix*> group) {
        size_t bytes = 0;
        for (const auto* m : group)
            bytes += kernels::matmul_scratch_bytes(m->type, m->cols, n_batch_);
        matmul_bytes = std::max(matmul_bytes, bytes);
    };
    need(w.output);
    for (const auto& l : w.layers) {
        need_group({&l.wq, &l.wk, &l.wv});
        need_group({&l.w_gate, &l.w_up});
        for (const auto* m : {&l.wo, &l.w_down, &l.w_up, &l.router})
            need(*m);
        for (const ExpertWeights& e : l.experts) {
            need_group({&e.w_gate, &e.w_up});
            need(e.w_down);
        }
        // Decode's one job for every chosen expert's gate and up (the experts share a type).
        if (!l.experts.empty())
            matmul_bytes =
                std::max(matmul_bytes, 2 * static_cast<size_t>(hp.n_expert_used) *
                                           kernels::matmul_scratch_bytes(l.experts[0].w_gate.type,
                                                                         l.experts[0].w_gate.cols, 1));
    }
    s->matmul.resize(matmul_bytes);
    scratch_ = std::move(s);
    if (options.device.kind != ComputeDevice::Kind::Cpu) device_ = DeviceForward::create(model_, options);
}

Inference::~Inference() = default;

int32_t Inference::n_threads() const {
    return pool_->size();
}

void Inference::set_threads(int32_t threads) {
    const int32_t n = resolve_threads(threads);
    if (n == pool_->size()) return;
    pool_ = std::make_shared<kernels::ThreadPool>(n); // built first: a failure keeps the old pool
}

void Inference::set_device(const InferenceOptions& options) {
    device_.reset();
    InferenceOptions own = options;
    own.n_batch = n_batch_;
    own.cache_types = cache_types_;
    device_ = DeviceForward::create(model_, own);
}

std::unique_ptr<KvCache> Inference::new_cache(int32_t n_ctx) const {
    auto cache = std::make_unique<KvCache>(model_->hparams(), n_ctx, cache_types_);
    if (device_) device_->attach(*cache);
    return cache;
}

int32_t Inference::n_gpu_layers() const {
    return device_ ? device_->n_layers() : 0;
}

std::string Inference::device_summary() const {
    if (!device_) return "CPU";
    return "Vulkan: " + device_->device().name + ", " + std::to_string(device_->n_layers()) + " of " +
           std::to_string(model_->hparams().n_layer) + " layers";
}

int32_t Inference::position_limit() const {
    return model_->hparams().traits.positions == PositionKind::Learned ? model_->weights().n_positions
                                                                       : std::numeric_limits<int32_t>::max();
}

std::span<const float> Inference::eval(KvCache& cache, std::span<const int32_t> tokens,
                                       std::vector<float>* all_logits) {
    const int32_t n_vocab = model_->hparams().n_vocab;
    if (tokens.empty()) throw Error("nothing to evaluate: no tokens");
    if (cache.size() + static_cast<int64_t>(tokens.size()) > cache.capacity())
        throw Error("the context is full: " + std::to_string(cache.size()) + " + " +
                    std::to_string(tokens.size()) + " tokens exceed the context length " +
                    std::to_string(cache.capacity()));
    for (int32_t id : tokens)
        if (id < 0 || id >= n_vocab)
            throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + model_->path());
    const int32_t n_positions = model_->weights().n_positions;
    if (model_->hparams().traits.positions == PositionKind::Learned &&
        cache.size() + static_cast<int64_t>(tokens.size()) > n_positions)
        throw Error("the model has learned positions for " + std::to_string(n_positions) +
                    " tokens, fewer than " +
                    std::to_string(cache.size() + static_cast<int64_t>(tokens.size())));

    if (all_logits) all_logits->resize(tokens.size() * static_cast<size_t>(n_vocab));

    // Batches of n_batch rows, except that a prompt never leaves one row for a batch of its own:
    // a batch of F32 rows sums in another order than a single row (as llama.cpp's do), so a
    // prompt's rows round alike however it is cut; only a single token (decode) runs alone.
    for (size_t start = 0, n = 0; start < tokens.size(); start += n) {
        const size_t left = tokens.size() - start;
        n = std::min<size_t>(static_cast<size_t>(n_batch_), left);
        if (left - n == 1 && n > 2) --n;
        const bool last = start + n == tokens.size();
        float* out =
            all_logits ? all_logits->data() + start * n_vocab : (last ? scratch_->logits.data() : nullptr);
        forward_batch(cache, tokens.data() + start, static_cast<int32_t>(n), all_logits != nullptr, out);
    }
    if (all_logits)
        std::memcpy(scratch_->logits.data(), all_logits->data() + (tokens.size() - 1) * n_vocab,
                    sizeof(float) * n_vocab);
    return {scratch_->logits.data(), static_cast<size_t>(n_vocab)};
}

std::span<const float> Inference::eval_image(KvCache& cache, std::span<const float> embeddings,
                                             int32_t n_positions, int32_t recorded_as) {
    const HyperParams& hp = model_->hparams();
    if (n_positions <= 0) throw Error("nothing to evaluate: an image of no positions");
    if (embeddings.size() != static_cast<size_t>(n_positions) * hp.n_embd)
        throw Error("image input: " + std::to_string(embeddings.size()) + " values are not " +
                    std::to_string(n_positions) + " positions of the model's n_embd " +
                    std::to_string(hp.n_embd));
    if (n_positions > n_batch_)
        throw Error("an image of " + std::to_string(n_positions) +
                    " positions does not fit in one batch of " + std::to_string(n_batch_) +
                    " (raise the batch size)");
    if (cache.size() + int64_t{n_positions} > cache.capacity())
        throw Error("the context is full: " + std::to_string(cache.size()) + " + " +
                    std::to_string(n_positions) + " image positions exceed the context length " +
                    std::to_string(cache.capacity()));
    if (hp.traits.positions == PositionKind::Learned &&
        cache.size() + int64_t{n_positions} > model_->weights().n_positions)
        throw Error("the model has learned positions for " + std::to_string(model_->weights().n_positions) +
                    " tokens, fewer than " + std::to_string(cache.size() + int64_t{n_positions}));
    if (!KvCache::is_image_position(recorded_as)) throw Error("image positions are recorded as negative ids");

    const int32_t n_past = cache.size();
    Scratch& s = *scratch_;
    const std::vector<int32_t> recorded(static_cast<size_t>(n_positions), recorded_as);
    if (device_ && device_->whole_model()) {
        device_->forward_image(cache, embeddings.data(), n_positions, s.logits.data(), nullptr);
        cache.append_tokens(recorded);
        return {s.logits.data(), static_cast<size_t>(hp.n_vocab)};
    }
    int32_t first_host_layer = 0;
    if (device_) {
        // The residual stream after the device's layers comes back to s.x.
        device_->forward_image(cache, embeddings.data(), n_positions, nullptr, s.x.data());
        first_host_layer = device_->n_layers();
    } else {
        if (cache.device_part()) cache.detach_device();
        std::copy(embeddings.begin(), embeddings.end(), s.x.begin());
        if (hp.traits.positions == PositionKind::Learned)
            add_rows(s.x.data(),
                     model_->weights().position_embd.data() + static_cast<size_t>(n_past) * hp.n_embd,
                     embeddings.size());
    }
    layers_on_host(cache, first_host_layer, n_past, n_positions, true);
    cache.append_tokens(recorded);
    logits_on_host(n_positions, false, s.logits.data());
    return {s.logits.data(), static_cast<size_t>(hp.n_vocab)};
}

// One forward pass over n tokens that take positions cache.size() .. cache.size() + n - 1.
// Reads top to bottom like llama2.c's forward(), on a batch of rows: the device's layers first
// (device_forward.h), then the CPU's.
void Inference::forward_batch(KvCache& cache, const int32_t* tokens, int32_t n, bool want_all_logits,
                              float* logits_out) {
    const int32_t n_past = cache.size();
    int32_t first_host_layer = 0;
    if (device_ && device_->whole_model()) {
        device_->forward(cache, tokens, n, want_all_logits, logits_out, nullptr);
        cache.append_tokens(std::span<const int32_t>(tokens, static_cast<size_t>(n)));
        return;
    }
    if (device_) {
        // The residual stream after the device's layers comes back to s.x.
        device_->forward(cache, tokens, n, false, nullptr, scratch_->x.data());
        first_host_layer = device_->n_layers();
    } else {
        // A cache whose first layers a device held (another forward pass's) is all on the host again.
        if (cache.device_part()) cache.detach_device();
        embed_on_host(tokens, n, n_past);
    }
    // Every row's logits of a short batch: a verify pass of drafted tokens, each row scored as
    // decode would score it.
    const bool verify_pass = want_all_logits && n <= kMostVerifyRows;
    layers_on_host(cache, first_host_layer, n_past, n, false, verify_pass);
    cache.append_tokens(std::span<const int32_t>(tokens, static_cast<size_t>(n)));
    if (logits_out) logits_on_host(n, want_all_logits, logits_out, verify_pass);
}

void Inference::fill_rope_tables(const KvCache& cache, int32_t first, int32_t n, bool pure_turn) {
    const HyperParams& hp = model_->hparams();
    Scratch& s = *scratch_;
    const float* factors = uses_long_rope_factors(hp, model_->weights(), cache.capacity())
                               ? s.rope_factors_long.data()
                               : s.rope_factors.data();
    const auto rotation = [&](RopeConfig config) {
        if (pure_turn) config.attn_factor = 1.0f; // keys turned in the cache must not be scaled again
        return config;
    };
    rope_tables(hp, rotation(global_rope(hp)), factors, first, n, s.rope.data());
    if (!s.rope_local.empty())
        rope_tables(hp, rotation(local_rope(hp)), factors, first, n, s.rope_local.data());
}

// A local layer has its own tables only where its rotation differs (Phi-3's are all local).
const float* Inference::rope_tables_of_layer(int32_t layer) const {
    const Scratch& s = *scratch_;
    return model_->hparams().layer_is_local(layer) && !s.rope_local.empty() ? s.rope_local.data()
                                                                            : s.rope.data();
}

bool Inference::can_rotate_keys() const {
    return model_->hparams().traits.positions == PositionKind::Rope;
}

void Inference::shift_context(KvCache& cache, int32_t n_keep, int32_t n_discard) {
    if (!can_rotate_keys())
        throw std::logic_error("context shift: the positions of " + model_->path() + " are not rotary");
    cache.discard(n_keep, n_discard);
    rotate_keys(cache, n_keep, cache.size(), -n_discard);
}

void Inference::rotate_keys(KvCache& cache, int32_t begin, int32_t end, int32_t delta) {
    if (!can_rotate_keys())
        throw std::logic_error("rotating cached keys: the positions of " + model_->path() +
                               " are not rotary");
    if (delta == 0 || begin >= end) return;
    const HyperParams& hp = model_->hparams();
    // One table row per rotation: the turn by `delta` positions, every pair.
    fill_rope_tables(cache, delta, 1, true);
    float* row = scratch_->k.data(); // kv_width floats
    for (int32_t layer = 0; layer < cache.n_layer(); ++layer) {
        const float* turn = rope_tables_of_layer(layer);
        for (int32_t pos = begin; pos < end; ++pos) {
            cache.read_row_f32(KvCache::Part::Keys, layer, pos, row);
            apply_rope(hp, turn, 1, row, hp.n_head_kv);
            cache.write_row_f32(KvCache::Part::Keys, layer, pos, row);
        }
    }
}

// The model's norm before a sublayer: RMSNorm, or LayerNorm with its bias.
void Inference::norm_on_host(const float* in, const std::vector<float>& weight,
                             const std::vector<float>& bias, int32_t rows, float* out) {
    const HyperParams& hp = model_->hparams();
    const int32_t dim = hp.n_embd;
    for_row_parts(rows, *pool_, [&](int32_t first, int32_t count) {
        const size_t offset = static_cast<size_t>(first) * dim;
        if (hp.traits.norm == NormKind::LayerNorm)
            layer_norm_rows(in + offset, weight.data(), bias.data(), count, dim, hp.rms_eps, out + offset);
        else
            rms_norm_rows(in + offset, weight.data(), count, dim, hp.rms_eps, out + offset);
    });
}

void Inference::embed_on_host(const int32_t* tokens, int32_t n, int32_t n_past) {
    const HyperParams& hp = model_->hparams();
    const ModelWeights& w = model_->weights();
    Scratch& s = *scratch_;
    const int32_t dim = hp.n_embd;
    embed_tokens(w.token_embd, tokens, n, s.x.data());
    if (hp.traits.scale_embeddings)
        scale_values(s.x.data(), static_cast<size_t>(n) * dim, std::sqrt(float(dim)));
    if (hp.traits.positions == PositionKind::Learned)
        add_rows(s.x.data(), w.position_embd.data() + static_cast<size_t>(n_past) * dim,
                 static_cast<size_t>(n) * dim);
}

void Inference::layers_on_host(KvCache& cache, int32_t first_layer, int32_t n_past, int32_t n,
                               bool batch_sees_itself, bool rows_as_decode) {
    const HyperParams& hp = model_->hparams();
    const ModelWeights& w = model_->weights();
    Scratch& s = *scratch_;
    kernels::ThreadPool& pool = *pool_;
    const int32_t dim = hp.n_embd, qw = hp.q_width(), kvw = hp.kv_width();
    if (first_layer >= hp.n_layer) return;

    auto matmul = [&](const kernels::WeightMatrix& m, const float* in, int32_t rows, float* out) {
        kernels::matmul(m, in, rows, out, pool, s.matmul, rows_as_decode);
    };
    // Products that share their input run as one job: one quantization, one barrier.
    auto matmul_group = [&](std::initializer_list<kernels::MatmulOutput> outputs, const float* in,
                            int32_t rows) {
        kernels::matmul_group(std::span<const kernels::MatmulOutput>(outputs.begin(), outputs.size()), in,
                              rows, pool, s.matmul, rows_as_decode);
    };
    // x += y over the batch's rows (the residual stream).
    auto add_residual = [&](const std::vector<float>& y) {
        for_row_parts(n, pool, [&](int32_t first, int32_t count) {
            const size_t offset = static_cast<size_t>(first) * dim;
            add_rows(s.x.data() + offset, y.data() + offset, static_cast<size_t>(count) * dim);
        });
    };

    const ArchitectureTraits& traits = hp.traits;
    if (traits.positions == PositionKind::Rope) fill_rope_tables(cache, n_past, n, false);

    for (int32_t layer = first_layer; layer < hp.n_layer; ++layer) {
        const LayerWeights& l = w.layers[static_cast<size_t>(layer)];

        // Attention: norm -> Q, K, V -> (biases, Q/K norm) -> RoPE -> cache -> attend -> output
        // projection -> (bias, post-norm) -> residual.
        norm_on_host(s.x.data(), l.attn_norm, l.attn_norm_b, n, s.xb.data());
        matmul_group({{&l.wq, s.q.data()}, {&l.wk, s.k.data()}, {&l.wv, s.v.data()}}, s.xb.data(), n);
        const float* layer_rope_tables = rope_tables_of_layer(layer);
        for_row_parts(n, pool, [&](int32_t first, int32_t count) {
            float* q = s.q.data() + static_cast<size_t>(first) * qw;
            float* k = s.k.data() + static_cast<size_t>(first) * kvw;
            if (!l.bq.empty()) {
                add_bias_rows(q, l.bq.data(), count, qw);
                add_bias_rows(k, l.bk.data(), count, kvw);
                add_bias_rows(s.v.data() + static_cast<size_t>(first) * kvw, l.bv.data(), count, kvw);
            }
            if (!l.q_norm.empty()) {
                rms_norm_rows(q, l.q_norm.data(), count * hp.n_head, hp.head_dim, hp.rms_eps, q);
                rms_norm_rows(k, l.k_norm.data(), count * hp.n_head_kv, hp.head_dim, hp.rms_eps, k);
            }
            if (traits.positions == PositionKind::Rope) {
                const float* tables = layer_rope_tables + static_cast<size_t>(first) * hp.rope_dim;
                apply_rope(hp, tables, count, q, hp.n_head);
                apply_rope(hp, tables, count, k, hp.n_head_kv);
            }
        });
        store_kv(cache, layer, n_past, n, s.k.data(), s.v.data());
        LayerAttention how = layer_attention(hp, layer);
        how.batch_sees_itself = batch_sees_itself;
        how.rows_as_decode = rows_as_decode;
        attend(hp, cache, layer, n_past, n, s.q.data(), s.attn.data(), pool, how);
        matmul(l.wo, s.attn.data(), n, s.xb.data());
        if (!l.bo.empty()) add_bias_rows(s.xb.data(), l.bo.data(), n, dim);
        if (!l.post_attn_norm.empty())
            rms_norm_rows(s.xb.data(), l.post_attn_norm.data(), n, dim, hp.rms_eps, s.xb.data());
        add_residual(s.xb);

        // Feed-forward: norm -> the FFN -> (post-norm) -> residual.
        norm_on_host(s.x.data(), l.ffn_norm, l.ffn_norm_b, n, s.xb.data());
        switch (traits.ffn) {
        case FfnKind::Swiglu:
            matmul_group({{&l.w_gate, s.gate.data()}, {&l.w_up, s.up.data()}}, s.xb.data(), n);
            swiglu_rows(s.gate.data(), s.up.data(), n, hp.n_ff, pool);
            matmul(l.w_down, s.gate.data(), n, s.ffn.data());
            break;
        case FfnKind::GeluGated:
            matmul_group({{&l.w_gate, s.gate.data()}, {&l.w_up, s.up.data()}}, s.xb.data(), n);
            geglu_rows(s.gate.data(), s.up.data(), n, hp.n_ff, pool);
            matmul(l.w_down, s.gate.data(), n, s.ffn.data());
            break;
        case FfnKind::Gelu:
            matmul(l.w_up, s.xb.data(), n, s.up.data());
            if (!l.b_up.empty()) add_bias_rows(s.up.data(), l.b_up.data(), n, hp.n_ff);
            gelu_values(s.up.data(), static_cast<size_t>(n) * hp.n_ff);
            matmul(l.w_down, s.up.data(), n, s.ffn.data());
            break;
        case FfnKind::MixtureOfExperts:
            mixture_of_experts(hp, l, layer, s.xb.data(), n, s.ffn.data(), s.experts, *expert_hits_, pool,
                               s.matmul, rows_as_decode);
            break;
        }
        if (!l.b_down.empty()) add_bias_rows(s.ffn.data(), l.b_down.data(), n, dim);
        if (!l.post_ffn_norm.empty())
            rms_norm_rows(s.ffn.data(), l.post_ffn_norm.data(), n, dim, hp.rms_eps, s.ffn.data());
        add_residual(s.ffn);
    }
}

// Final norm and logits: for every row when asked, else for the last token only.
void Inference::logits_on_host(int32_t n, bool want_all_logits, float* logits_out, bool rows_as_decode) {
    const HyperParams& hp = model_->hparams();
    const ModelWeights& w = model_->weights();
    Scratch& s = *scratch_;
    const int32_t first = want_all_logits ? 0 : n - 1;
    const int32_t rows = n - first;
    const float* x_rows = s.x.data() + static_cast<size_t>(first) * hp.n_embd;
    norm_on_host(x_rows, w.output_norm, w.output_norm_b, rows, s.xb.data());
    kernels::matmul(w.output, s.xb.data(), rows, logits_out, *pool_, s.matmul, rows_as_decode);
    if (hp.final_softcap > 0)
        soft_cap_values(logits_out, static_cast<size_t>(rows) * hp.n_vocab, hp.final_softcap);
}

} // namespace hearth::engine
