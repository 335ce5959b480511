#pragma once
// The keys and values of one conversation, and the tokens they were computed from.
// Speaks in sequences, like llama.cpp's cache: keep a prefix, drop the rest, shift.
#include "engine/model/hparams.h"
#include "kernels/block_formats.h"
#include <cstdint>
#include <span>
#include <vector>

namespace hearth::engine {

class KvCache {
public:
    KvCache(const HyperParams& hp, int32_t n_ctx);

    int32_t capacity() const { return n_ctx_; }
    int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
    const std::vector<int32_t>& tokens() const { return tokens_; }
    size_t bytes() const { return (keys_.size() + values_.size()) * sizeof(kernels::fp16_bits); }
    int32_t kv_width() const { return kv_width_; }

    // Keys/values of one layer at one position: (n_head_kv * head_dim) halves. Stored
    // as F16, as llama.cpp does by default: half the memory and bandwidth of F32.
    kernels::fp16_bits* key(int32_t layer, int32_t pos) { return keys_.data() + offset(layer, pos); }
    kernels::fp16_bits* value(int32_t layer, int32_t pos) { return values_.data() + offset(layer, pos); }
    const kernels::fp16_bits* key(int32_t layer, int32_t pos) const { return keys_.data() + offset(layer, pos); }
    const kernels::fp16_bits* value(int32_t layer, int32_t pos) const { return values_.data() + offset(layer, pos); }

    // Keeps the first n tokens (and their keys/values), forgets the rest.
    void truncate(int32_t n);
    // Records tokens whose keys/values the forward pass has just written at the end.
    void append_tokens(std::span<const int32_t> tokens);
    // Length of the common prefix of the cached tokens and `tokens`.
    int32_t common_prefix(std::span<const int32_t> tokens) const;

    // Raw storage, for saving and restoring a conversation's state.
    std::vector<kernels::fp16_bits>& raw_keys() { return keys_; }
    std::vector<kernels::fp16_bits>& raw_values() { return values_; }
    void set_tokens(std::vector<int32_t> tokens) { tokens_ = std::move(tokens); }

private:
    size_t offset(int32_t layer, int32_t pos) const {
        return (static_cast<size_t>(layer) * n_ctx_ + pos) * kv_width_;
    }
    int32_t n_ctx_;
    int32_t kv_width_;
    std::vector<kernels::fp16_bits> keys_;   // (layer, n_ctx, kv_width)
    std::vector<kernels::fp16_bits> values_; // (layer, n_ctx, kv_width)
    std::vector<int32_t> tokens_;
};

} // namespace hearth::engine
