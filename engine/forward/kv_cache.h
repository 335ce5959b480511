#pragma once
// The keys and values of one conversation, and the tokens they were computed from.
// Speaks in sequences, like llama.cpp's cache: keep a prefix, drop the rest, drop a
// block in the middle (context shift).
#include "engine/model/hparams.h"
#include "kernels/block_formats.h"
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hearth::engine {

class KvCache {
public:
    KvCache(const HyperParams& hp, int32_t n_ctx);

    int32_t capacity() const { return n_ctx_; }
    int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
    int32_t n_layer() const { return n_layer_; }
    int32_t kv_width() const { return n_head_kv_ * head_dim_; }
    // The tokens whose keys/values are held, position by position.
    const std::vector<int32_t>& tokens() const { return tokens_; }

    // Address space reserved for the whole context (keys and values).
    size_t bytes() const { return 2 * per_position_bytes() * static_cast<size_t>(n_ctx_); }
    // Memory actually touched: storage is not zeroed, so the pages of positions never
    // written are never made resident. This is what a memory budget should count.
    size_t resident_bytes() const { return 2 * per_position_bytes() * static_cast<size_t>(high_water_); }
    // Bytes of keys and values of the positions in use.
    size_t used_bytes() const { return 2 * per_position_bytes() * static_cast<size_t>(size()); }

    // Keys/values are stored as F16, as llama.cpp does by default: half the memory and
    // bandwidth of F32. Each (layer, KV head) holds its positions one after another, head_dim
    // halves each, so attention reads one head's keys as one run rather than strided through
    // every head's (which, from memory, the prefetchers do not follow).
    enum class Part { Keys, Values };
    int32_t n_head_kv() const { return n_head_kv_; }
    int32_t head_dim() const { return head_dim_; }
    // One KV head's keys or values from position `pos` on, positions head_dim halves apart.
    kernels::fp16_bits* head(Part part, int32_t layer, int32_t kv_head, int32_t pos = 0) {
        return storage(part) + offset(layer, kv_head, pos);
    }
    const kernels::fp16_bits* head(Part part, int32_t layer, int32_t kv_head, int32_t pos = 0) const {
        return storage(part) + offset(layer, kv_head, pos);
    }
    // One position's row of kv_width halves (KV head after KV head), gathered or scattered.
    void read_row(Part part, int32_t layer, int32_t pos, kernels::fp16_bits* row) const;
    void write_row(Part part, int32_t layer, int32_t pos, const void* row); // any alignment
    // Element i (< kv_width) of that row.
    kernels::fp16_bits at(Part part, int32_t layer, int32_t pos, int32_t i) const {
        return head(part, layer, i / head_dim_, pos)[i % head_dim_];
    }

    // Keeps the first n tokens (and their keys/values), forgets the rest. The record of
    // shifted-out tokens is left alone: the caller decides whether it still applies.
    void truncate(int32_t n);
    void clear();
    // Records tokens whose keys/values the forward pass has just written at the end.
    void append_tokens(std::span<const int32_t> tokens);
    // Length of the common prefix of the cached tokens and `tokens`.
    int32_t common_prefix(std::span<const int32_t> tokens) const;

    // Context shift, storage half: forgets positions [n_keep, n_keep + n_discard) and
    // moves the later ones down by n_discard. Keys keep their old rotation; see
    // context_shift.h for the RoPE half. The dropped tokens are remembered, so the cache
    // stands for a longer logical sequence with one window cut out after n_keep.
    // A second shift must keep the same n_keep (the window just grows).
    void discard(int32_t n_keep, int32_t n_discard);

    // The cut-out window: logical = tokens[0, shift_at) + dropped + tokens[shift_at, size).
    int32_t shift_at() const { return shift_at_; }
    const std::vector<int32_t>& dropped() const { return dropped_; }
    bool shifted() const { return !dropped_.empty(); }
    void set_dropped(int32_t at, std::vector<int32_t> dropped);
    void clear_dropped() { set_dropped(0, {}); }
    // The sequence the cache stands for (equal to tokens() when nothing was shifted out).
    std::vector<int32_t> logical_tokens() const;

    // Sets the token list of a state whose keys/values were written directly (restore).
    void set_tokens(std::vector<int32_t> tokens);

private:
    size_t per_position_bytes() const {
        return static_cast<size_t>(n_layer_) * kv_width() * sizeof(kernels::fp16_bits);
    }
    size_t offset(int32_t layer, int32_t kv_head, int32_t pos) const {
        return ((static_cast<size_t>(layer) * n_head_kv_ + kv_head) * n_ctx_ + pos) * head_dim_;
    }
    kernels::fp16_bits* storage(Part part) const { return part == Part::Keys ? keys_.get() : values_.get(); }
    void note_size() { high_water_ = std::max(high_water_, size()); }

    int32_t n_ctx_;
    int32_t n_layer_;
    int32_t n_head_kv_;
    int32_t head_dim_;
    int32_t high_water_ = 0; // most positions ever written
    // One allocation each for every layer's keys and values, aligned to cache lines so that
    // a head's run of positions starts on a line and the vector loads of attention never split.
    struct FreeAligned {
        void operator()(kernels::fp16_bits* p) const noexcept;
    };
    using AlignedHalves = std::unique_ptr<kernels::fp16_bits[], FreeAligned>;
    static AlignedHalves allocate_aligned(size_t halves);
    AlignedHalves keys_;   // (layer, n_head_kv, n_ctx, head_dim)
    AlignedHalves values_; // (layer, n_head_kv, n_ctx, head_dim)
    std::vector<int32_t> tokens_;
    int32_t shift_at_ = 0;
    std::vector<int32_t> dropped_;
};

} // namespace hearth::engine
