#include "engine/session/kv_cache.h"
#include <algorithm>
#include <stdexcept>

namespace hearth::engine {

KvCache::KvCache(const HyperParams& hp, int32_t n_ctx)
    : n_ctx_(n_ctx), kv_width_(hp.kv_width()),
      keys_(static_cast<size_t>(hp.n_layer) * n_ctx * hp.kv_width()),
      values_(static_cast<size_t>(hp.n_layer) * n_ctx * hp.kv_width()) {
    if (n_ctx <= 0) throw std::invalid_argument("KV cache needs a positive context length");
    tokens_.reserve(static_cast<size_t>(n_ctx));
}

void KvCache::truncate(int32_t n) {
    if (n < size()) tokens_.resize(static_cast<size_t>(std::max(n, 0)));
}

void KvCache::append_tokens(std::span<const int32_t> tokens) {
    if (size() + static_cast<int64_t>(tokens.size()) > n_ctx_) throw std::length_error("KV cache overflow");
    tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
}

int32_t KvCache::common_prefix(std::span<const int32_t> tokens) const {
    size_t n = std::min(tokens.size(), tokens_.size());
    size_t i = 0;
    while (i < n && tokens[i] == tokens_[i]) ++i;
    return static_cast<int32_t>(i);
}

} // namespace hearth::engine
