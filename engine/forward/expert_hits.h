#pragma once
// How often the router of a mixture-of-experts model chose each expert of each layer, since the
// model's forward pass was set up: process-wide, relaxed atomics written by the forward pass and
// read as a snapshot by the live metrics (engine_metrics.h).
#include <atomic>
#include <cstdint>

namespace hearth::engine {

class ExpertHits {
public:
    // Counted up to these; a larger model counts its first kMaxLayers layers, kMaxExperts experts.
    static constexpr int32_t kMaxLayers = 128;
    static constexpr int32_t kMaxExperts = 256;

    // Zeroes the counts for a model of this shape (0 experts: not a mixture of experts).
    void reset(int32_t n_layer, int32_t n_expert);
    void add(int32_t layer, int32_t expert, int64_t count) {
        if (layer < kMaxLayers && expert < kMaxExperts)
            hits_[layer * kMaxExperts + expert].fetch_add(count, std::memory_order_relaxed);
    }
    int32_t n_layer() const { return n_layer_.load(std::memory_order_relaxed); }
    int32_t n_expert() const { return n_expert_.load(std::memory_order_relaxed); }
    int64_t at(int32_t layer, int32_t expert) const {
        return hits_[layer * kMaxExperts + expert].load(std::memory_order_relaxed);
    }

private:
    std::atomic<int32_t> n_layer_{0}, n_expert_{0};
    std::atomic<int64_t> hits_[kMaxLayers * kMaxExperts] = {};
};

// The process-wide counts.
ExpertHits& expert_hits();

} // namespace hearth::engine
