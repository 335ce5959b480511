#include "engine/forward/expert_hits.h"
#include <algorithm>

namespace hearth::engine {

void ExpertHits::reset(int32_t n_layer, int32_t n_expert) {
    n_layer = std::clamp(n_layer, 0, kMaxLayers);
    n_expert = std::clamp(n_expert, 0, kMaxExperts);
    n_layer_.store(0, std::memory_order_relaxed); // readers see no layers while the counts are zeroed
    for (int32_t i = 0; i < n_layer * kMaxExperts; ++i)
        hits_[i].store(0, std::memory_order_relaxed);
    n_expert_.store(n_expert, std::memory_order_relaxed);
    n_layer_.store(n_expert > 0 ? n_layer : 0, std::memory_order_relaxed);
}

ExpertHits& expert_hits() {
    static ExpertHits hits;
    return hits;
}

} // namespace hearth::engine
