#pragma once
// Runs the forward pass of a loaded model: owns the kernel thread pool and all
// scratch buffers (allocated once here, never per token).
#include "engine/forward/compute_device.h"
#include "engine/forward/expert_hits.h"
#include "engine/forward/kv_cache.h"
#include "engine/model/model.h"
#include "kernels/kernel_table.h"
#include "kernels/thread_pool.h"
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hearth::engine {

struct InferenceOptions {
    // A constructor rather than an aggregate, so that {threads, batch} stays complete.
    InferenceOptions(int32_t threads = 0, int32_t batch = 64, KvCacheTypes types = {})
        : n_threads(threads), n_batch(batch), cache_types(types) {}
    int32_t n_threads;        // 0: one per hardware thread
    int32_t n_batch;          // prompt tokens per forward pass
    KvCacheTypes cache_types; // what new_cache stores keys and values as (F16 by default)
    // Where the layers run (device_forward.h): the CPU, or a Vulkan device that takes the first
    // n_gpu_layers layers (-1: as many as fit in its memory with their KV cache of
    // device_context positions; all of them: the whole model, logits included, runs there).
    ComputeDevice device;
    int32_t n_gpu_layers = -1;
    int32_t device_context = 4096;
    bool device_validation = false; // the Vulkan validation layer (or HEARTH_VULKAN_VALIDATION=1)
};

class DeviceForward;

// The rows of a verify pass: the token not yet evaluated and up to 16 drafted ones, as many as
// the kernels give decode's bits for.
inline constexpr int32_t kMostVerifyRows = static_cast<int32_t>(kernels::kDecodeExactMaxBatch);

class Inference {
public:
    Inference(std::shared_ptr<const Model> model, InferenceOptions options = {});
    ~Inference();

    const Model& model() const { return *model_; }
    std::shared_ptr<const Model> model_ptr() const { return model_; }
    int32_t n_threads() const;
    // Runs the kernels on `threads` threads from now on (0: one per hardware thread), with a new
    // pool; the model, the scratch and every cache made here stay, so conversations keep their
    // context. Call it between evals, from the thread that calls eval.
    void set_threads(int32_t threads);
    // Runs the kernels on `other`'s thread pool from now on (a draft model beside its target: the
    // two never run at once, and one set of threads spins for both). Same rules as set_threads.
    void share_threads_of(const Inference& other) { pool_ = other.pool_; }
    int32_t n_batch() const { return n_batch_; }
    int32_t n_vocab() const { return model_->hparams().n_vocab; }

    // The most positions eval can fill: the learned positions of a model that has them (GPT-2),
    // else no limit beyond the cache's.
    int32_t position_limit() const;

    // Appends `tokens` to the cache (they take positions cache.size() onward),
    // evaluating them in batches of n_batch. Returns the logits after the last
    // token (n_vocab floats, valid until the next call). If all_logits is given,
    // it receives the logits after every token (tokens.size() x n_vocab).
    // Throws hearth::Error if the tokens do not fit in the cache.
    // A batch of up to kMostVerifyRows tokens whose every logit is asked for is a verify pass:
    // each row's logits are then those decoding it alone gives, where the kernels allow (the
    // matrices' kernels of a few rows, attention per position).
    std::span<const float> eval(KvCache& cache, std::span<const int32_t> tokens,
                                std::vector<float>* all_logits = nullptr);

    // Appends one image's positions to the cache: `embeddings` holds n_positions rows of n_embd,
    // a projector's output (engine/vision), taken as the input vectors as they are (not scaled
    // like token embeddings). They are evaluated as one batch in which they attend to each other
    // both ways (and causally, by the layers' windows, to what came before); the cache records
    // them as `recorded_as` (KvCache::image_position_id of the picture, or kImagePosition).
    // Returns the logits after the last one. Layers on a device (DeviceForward::forward_image)
    // take them there, as tokens. Throws hearth::Error when the image does not fit in the cache or
    // in one batch (n_batch); DeviceError when the device fails.
    std::span<const float> eval_image(KvCache& cache, std::span<const float> embeddings, int32_t n_positions,
                                      int32_t recorded_as = KvCache::kImagePosition);

    // Context shift, the forward pass's half (the session decides what to drop:
    // engine/session/context_shift.h). Whether cached keys can be moved to new positions by
    // turning them: models with rotary positions. GPT-2's learned positions are added to the
    // embeddings, so every layer's keys and values depend on them, and a shift must recompute
    // what stays in view instead.
    bool can_rotate_keys() const;
    // Forgets positions [n_keep, n_keep + n_discard) of `cache`, moves the later ones down
    // (KvCache::discard) and turns their keys back by n_discard positions, so that the cache reads
    // as if those tokens had been computed at their new positions. Requires can_rotate_keys
    // (else std::logic_error).
    void shift_context(KvCache& cache, int32_t n_keep, int32_t n_discard);
    // Turns the keys of positions [begin, end), every layer, by `delta` positions, each layer by
    // the rotation and frequency factors this forward pass computed them with (a sliding-window
    // layer's base; LongRoPE's short or long factors, as the cache's length selects them), without
    // LongRoPE's attention factor. RoPE turns each pair by pos * theta_i and turns compose, so a
    // key computed at p and turned by delta equals the key computed at p + delta, up to rounding
    // to the cache's type (keys are widened to F32, turned, rounded back). Values carry no
    // position. Rows a device holds come to the host and go back before its next forward pass.
    // Allocates nothing. Requires can_rotate_keys (else std::logic_error).
    void rotate_keys(KvCache& cache, int32_t begin, int32_t end, int32_t delta);

    // A cache of the options' types. Throws hearth::Error when the model's head size does not
    // suit them (kv_cache.h).
    std::unique_ptr<KvCache> new_cache(int32_t n_ctx) const;
    KvCacheTypes cache_types() const { return cache_types_; }

    // How often this forward pass's router chose each expert of each layer, counted from its
    // construction; null for a model that is not a mixture of experts. Shared, so that an
    // engine's live metrics (engine_metrics.h) may read the counts from another thread, even
    // while the forward pass goes away.
    std::shared_ptr<const ExpertHits> expert_hits() const { return expert_hits_; }

    // Runs the first layers on options.device from now on, with its n_gpu_layers, device_context
    // and device_validation (the other fields stay this forward pass's own); the model, the
    // scratch and every cache made here stay, and a cache's rows go to the new device (or come
    // back to the host) on its next evaluation. The old device is let go first, so that its
    // memory is free for the new one: when the new one fails (DeviceForward::create's
    // hearth::Error), every layer runs on the CPU. Call it between evals, from the thread that
    // calls eval.
    void set_device(const InferenceOptions& options);
    // The device that runs the first layers (its figures: the last pass's per-op GPU times, the
    // bytes that crossed), or null when every layer runs on the CPU.
    const DeviceForward* device_forward() const { return device_.get(); }
    // Layers that run on the device: 0 on the CPU, n_layer when the whole model does.
    int32_t n_gpu_layers() const;
    // "CPU", or "Vulkan: <device name>, N of M layers".
    std::string device_summary() const;

private:
    void forward_batch(KvCache& cache, const int32_t* tokens, int32_t n_tokens, bool want_all_logits,
                       float* logits_out);
    // The CPU's steps of a forward pass: embedding, layers [first_layer, n_layer), final norm and logits.
    void embed_on_host(const int32_t* tokens, int32_t n, int32_t n_past);
    // batch_sees_itself: the batch's rows attend to each other both ways (an image);
    // rows_as_decode: each row's products and attention as decoding it alone would give them
    // (kernels::matmul's as_decode, LayerAttention).
    void layers_on_host(KvCache& cache, int32_t first_layer, int32_t n_past, int32_t n,
                        bool batch_sees_itself = false, bool rows_as_decode = false);
    void logits_on_host(int32_t n, bool want_all_logits, float* logits_out, bool rows_as_decode = false);
    // The cos/sin of positions [first, first + n) (n <= n_batch) for every layer of `cache`, in the
    // scratch: the forward pass's rotation, or without LongRoPE's attention factor for a turn of
    // cached keys (pure_turn); and the table of one layer among them.
    void fill_rope_tables(const KvCache& cache, int32_t first, int32_t n, bool pure_turn);
    const float* rope_tables_of_layer(int32_t layer) const;
    void norm_on_host(const float* in, const std::vector<float>& weight, const std::vector<float>& bias,
                      int32_t rows, float* out);
    struct Scratch;
    std::shared_ptr<const Model> model_;
    int32_t n_batch_;
    KvCacheTypes cache_types_;
    std::shared_ptr<kernels::ThreadPool> pool_; // shared with a draft model's forward pass
    std::unique_ptr<Scratch> scratch_;
    std::shared_ptr<ExpertHits> expert_hits_; // (n_layer, n_expert); null for a dense model
    std::unique_ptr<DeviceForward> device_;   // null: every layer on the CPU
};

} // namespace hearth::engine
