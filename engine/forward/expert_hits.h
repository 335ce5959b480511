#pragma once
// How often the router of a mixture-of-experts model chose each expert of each layer, since the
// forward pass that owns the counts was set up (Inference::expert_hits). Relaxed atomics, sized
// to the model once: written by the thread that runs the forward pass, read as a snapshot by the
// live metrics of the engine it belongs to (engine_metrics.h) from any thread.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace hearth::engine {

class ExpertHits {
public:
    // Zero counts for n_layer layers of n_expert experts.
    ExpertHits(int32_t n_layer, int32_t n_expert);
    ExpertHits(const ExpertHits&) = delete;
    ExpertHits& operator=(const ExpertHits&) = delete;

    void add(int32_t layer, int32_t expert, int64_t count) {
        hits_[index(layer, expert)].fetch_add(count, std::memory_order_relaxed);
    }
    int32_t n_layer() const { return n_layer_; }
    int32_t n_expert() const { return n_expert_; }
    int64_t at(int32_t layer, int32_t expert) const {
        return hits_[index(layer, expert)].load(std::memory_order_relaxed);
    }

private:
    size_t index(int32_t layer, int32_t expert) const {
        return static_cast<size_t>(layer) * static_cast<size_t>(n_expert_) + static_cast<size_t>(expert);
    }
    int32_t n_layer_, n_expert_;
    std::unique_ptr<std::atomic<int64_t>[]> hits_; // (n_layer, n_expert)
};

} // namespace hearth::engine
