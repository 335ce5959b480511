#include "engine/forward/kv_cache.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace hearth::engine {

KvCache::KvCache(const HyperParams& hp, int32_t n_ctx)
    : n_ctx_(n_ctx), n_layer_(hp.n_layer), n_head_kv_(hp.n_head_kv), head_dim_(hp.head_dim) {
    if (n_ctx <= 0) throw std::invalid_argument("KV cache needs a positive context length");
    const size_t halves = static_cast<size_t>(hp.n_layer) * n_ctx * hp.kv_width();
    // Not zeroed: only the positions a conversation reaches ever become resident.
    keys_ = allocate_aligned(halves);
    values_ = allocate_aligned(halves);
    tokens_.reserve(static_cast<size_t>(n_ctx));
}

constexpr size_t kCacheLine = 64;

KvCache::AlignedHalves KvCache::allocate_aligned(size_t halves) {
    const size_t bytes = (halves * sizeof(kernels::fp16_bits) + kCacheLine - 1) / kCacheLine * kCacheLine;
    void* p = std::aligned_alloc(kCacheLine, bytes);
    if (p == nullptr) throw std::bad_alloc();
    return AlignedHalves(static_cast<kernels::fp16_bits*>(p));
}

void KvCache::FreeAligned::operator()(kernels::fp16_bits* p) const noexcept {
    std::free(p);
}

void KvCache::truncate(int32_t n) {
    if (n < size()) tokens_.resize(static_cast<size_t>(std::max(n, 0)));
}

void KvCache::clear() {
    tokens_.clear();
    clear_dropped();
}

void KvCache::append_tokens(std::span<const int32_t> tokens) {
    if (size() + static_cast<int64_t>(tokens.size()) > n_ctx_) throw std::length_error("KV cache overflow");
    tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
    note_size();
}

int32_t KvCache::common_prefix(std::span<const int32_t> tokens) const {
    size_t n = std::min(tokens.size(), tokens_.size());
    size_t i = 0;
    while (i < n && tokens[i] == tokens_[i])
        ++i;
    return static_cast<int32_t>(i);
}

void KvCache::discard(int32_t n_keep, int32_t n_discard) {
    if (n_keep < 0 || n_discard <= 0 || n_keep + n_discard > size())
        throw std::out_of_range("KV cache: nothing to discard there");
    if (shifted() && n_keep != shift_at_)
        throw std::invalid_argument("KV cache: a second shift must keep the same prefix");
    const int32_t moved = size() - n_keep - n_discard;
    const size_t run = static_cast<size_t>(moved) * head_dim_ * sizeof(kernels::fp16_bits);
    for (int32_t layer = 0; layer < n_layer_; ++layer)
        for (int32_t h = 0; h < n_head_kv_; ++h)
            for (const Part part : {Part::Keys, Part::Values}) // regions may overlap: memmove
                std::memmove(head(part, layer, h, n_keep), head(part, layer, h, n_keep + n_discard), run);
    const auto first = tokens_.begin() + n_keep;
    dropped_.insert(dropped_.end(), first, first + n_discard);
    shift_at_ = n_keep;
    tokens_.erase(first, first + n_discard);
}

void KvCache::read_row(Part part, int32_t layer, int32_t pos, kernels::fp16_bits* row) const {
    for (int32_t h = 0; h < n_head_kv_; ++h)
        std::memcpy(row + static_cast<size_t>(h) * head_dim_, head(part, layer, h, pos),
                    static_cast<size_t>(head_dim_) * sizeof(kernels::fp16_bits));
}

void KvCache::write_row(Part part, int32_t layer, int32_t pos, const void* row) {
    const size_t head_bytes = static_cast<size_t>(head_dim_) * sizeof(kernels::fp16_bits);
    for (int32_t h = 0; h < n_head_kv_; ++h)
        std::memcpy(head(part, layer, h, pos), static_cast<const char*>(row) + h * head_bytes, head_bytes);
}

void KvCache::set_dropped(int32_t at, std::vector<int32_t> dropped) {
    shift_at_ = dropped.empty() ? 0 : at;
    dropped_ = std::move(dropped);
}

std::vector<int32_t> KvCache::logical_tokens() const {
    if (!shifted() || size() < shift_at_) return tokens_;
    std::vector<int32_t> logical;
    logical.reserve(tokens_.size() + dropped_.size());
    logical.insert(logical.end(), tokens_.begin(), tokens_.begin() + shift_at_);
    logical.insert(logical.end(), dropped_.begin(), dropped_.end());
    logical.insert(logical.end(), tokens_.begin() + shift_at_, tokens_.end());
    return logical;
}

void KvCache::set_tokens(std::vector<int32_t> tokens) {
    if (static_cast<int64_t>(tokens.size()) > n_ctx_) throw std::length_error("KV cache overflow");
    tokens_ = std::move(tokens);
    tokens_.reserve(static_cast<size_t>(n_ctx_));
    note_size();
}

} // namespace hearth::engine
