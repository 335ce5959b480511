#include "engine/forward/expert_hits.h"
#include <algorithm>

namespace hearth::engine {

ExpertHits::ExpertHits(int32_t n_layer, int32_t n_expert)
    : n_layer_(std::max(0, n_layer)), n_expert_(std::max(0, n_expert)),
      hits_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(n_layer_) *
                                                     static_cast<size_t>(n_expert_))) {}

} // namespace hearth::engine
