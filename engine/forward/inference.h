#pragma once
// Runs the forward pass of a loaded model: owns the kernel thread pool and all
// scratch buffers (allocated once here, never per token).
#include "engine/forward/expert_hits.h"
#include "engine/forward/kv_cache.h"
#include "engine/model/model.h"
#include "kernels/thread_pool.h"
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace hearth::engine {

struct InferenceOptions {
    // A constructor rather than an aggregate, so that {threads, batch} stays complete.
    InferenceOptions(int32_t threads = 0, int32_t batch = 64, KvCacheTypes types = {})
        : n_threads(threads), n_batch(batch), cache_types(types) {}
    int32_t n_threads;        // 0: one per hardware thread
    int32_t n_batch;          // prompt tokens per forward pass
    KvCacheTypes cache_types; // what new_cache stores keys and values as (F16 by default)
};

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
    int32_t n_batch() const { return n_batch_; }
    int32_t n_vocab() const { return model_->hparams().n_vocab; }

    // Appends `tokens` to the cache (they take positions cache.size() onward),
    // evaluating them in batches of n_batch. Returns the logits after the last
    // token (n_vocab floats, valid until the next call). If all_logits is given,
    // it receives the logits after every token (tokens.size() x n_vocab).
    // Throws hearth::Error if the tokens do not fit in the cache.
    std::span<const float> eval(KvCache& cache, std::span<const int32_t> tokens,
                                std::vector<float>* all_logits = nullptr);

    // A cache of the options' types. Throws hearth::Error when the model's head size does not
    // suit them (kv_cache.h).
    std::unique_ptr<KvCache> new_cache(int32_t n_ctx) const;
    KvCacheTypes cache_types() const { return cache_types_; }

    // How often this forward pass's router chose each expert of each layer, counted from its
    // construction; null for a model that is not a mixture of experts. Shared, so that an
    // engine's live metrics (engine_metrics.h) may read the counts from another thread, even
    // while the forward pass goes away.
    std::shared_ptr<const ExpertHits> expert_hits() const { return expert_hits_; }

private:
    void forward_batch(KvCache& cache, const int32_t* tokens, int32_t n_tokens, bool want_all_logits,
                       float* logits_out);
    struct Scratch;
    std::shared_ptr<const Model> model_;
    int32_t n_batch_;
    KvCacheTypes cache_types_;
    std::unique_ptr<kernels::ThreadPool> pool_;
    std::unique_ptr<Scratch> scratch_;
    std::shared_ptr<ExpertHits> expert_hits_; // (n_layer, n_expert); null for a dense model
};

} // namespace hearth::engine
