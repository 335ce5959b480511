#pragma once
// The keys and values of one conversation, and the tokens they were computed from.
// Speaks in sequences, like llama.cpp's cache: keep a prefix, drop the rest, drop a
// block in the middle (context shift).
#include "engine/model/hparams.h"
#include "kernels/block_formats.h"
#include "kernels/tensor_type.h"
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace hearth::engine {

// What the keys and the values are stored as: F16 (llama.cpp's default), or Q8_0 / Q4_0 in
// blocks of 32 along head_dim with one F16 scale each (about 53% and 28% of F16's bytes).
struct KvCacheTypes {
    kernels::TensorType keys = kernels::TensorType::F16;
    kernels::TensorType values = kernels::TensorType::F16;
    bool operator==(const KvCacheTypes&) const = default;
};
// The types a KV cache can store keys or values as: F16, Q8_0, Q4_0 (the settings' choices).
std::span<const kernels::TensorType> kv_cache_type_choices();
// "f16", "q8_0" or "q4_0": the name kv_cache_type_from_name reads back.
std::string_view kv_cache_type_name(kernels::TensorType type);
// "f16", "q8_0" or "q4_0" (case-insensitive) to its type; nullopt for anything else.
std::optional<kernels::TensorType> kv_cache_type_from_name(std::string_view name);
// Bytes of keys and values per cached token across all layers, for a model's shape.
size_t kv_bytes_per_token(const HyperParams& hp, KvCacheTypes types);

class KvCache;

// The keys and values of a cache's first layers held in an accelerator's memory
// (engine/forward/device_forward.h), in the host storage's layout: per layer and part,
// (n_head_kv, n_ctx, head_row_bytes). The device's forward pass writes them there; the host's
// copies of those layers are brought up to date only when the host reads rows (saved states,
// context shift), and the device's after the host wrote rows: never per token.
class KvCacheDevicePart {
public:
    virtual ~KvCacheDevicePart() = default;
    // The layers held: [0, n_layers()).
    virtual int32_t n_layers() const = 0;
    // Positions [0, n_positions) of every held layer: the device's rows into the cache's host
    // storage, or the host storage's rows to the device.
    virtual void download(KvCache& cache, int32_t n_positions) = 0;
    virtual void upload(const KvCache& cache, int32_t n_positions) = 0;
};

class KvCache {
public:
    // Throws hearth::Error when a type is not F16, Q8_0 or Q4_0, or is quantized and head_dim
    // is not a multiple of 32 (a block must not straddle two heads).
    KvCache(const HyperParams& hp, int32_t n_ctx, KvCacheTypes types = {});

    int32_t capacity() const { return n_ctx_; }
    int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
    int32_t n_layer() const { return n_layer_; }
    int32_t kv_width() const { return n_head_kv_ * head_dim_; }
    // The tokens whose keys/values are held, position by position.
    const std::vector<int32_t>& tokens() const { return tokens_; }

    // Address space reserved for the whole context (keys and values).
    size_t bytes() const { return per_position_bytes() * static_cast<size_t>(n_ctx_); }
    // Memory actually touched: storage is not zeroed, so the pages of positions never
    // written are never made resident. This is what a memory budget should count.
    size_t resident_bytes() const { return per_position_bytes() * static_cast<size_t>(high_water_); }
    // Bytes of keys and values of the positions in use.
    size_t used_bytes() const { return per_position_bytes() * static_cast<size_t>(size()); }

    // Keys/values are stored as F16 by default, as llama.cpp does: half the memory and
    // bandwidth of F32; Q8_0 or Q4_0 on request. Each (layer, KV head) holds its positions one
    // after another, head_rows_bytes(part) each, so attention reads one head's keys as one run
    // rather than strided through every head's (which, from memory, the prefetchers do not follow).
    enum class Part { Keys, Values };
    int32_t n_head_kv() const { return n_head_kv_; }
    int32_t head_dim() const { return head_dim_; }
    KvCacheTypes types() const { return types_; }
    kernels::TensorType type(Part part) const { return part == Part::Keys ? types_.keys : types_.values; }
    // Bytes of one position of one KV head (head_dim elements of the part's type).
    size_t head_row_bytes(Part part) const { return part == Part::Keys ? key_row_bytes_ : value_row_bytes_; }
    // Bytes of one position's whole row (every KV head) of a part.
    size_t row_bytes(Part part) const { return head_row_bytes(part) * static_cast<size_t>(n_head_kv_); }
    // One KV head's keys or values from position `pos` on, positions head_row_bytes apart.
    void* data(Part part, int32_t layer, int32_t kv_head, int32_t pos = 0) {
        return storage(part) + offset(part, layer, kv_head, pos);
    }
    const void* data(Part part, int32_t layer, int32_t kv_head, int32_t pos = 0) const {
        return storage(part) + offset(part, layer, kv_head, pos);
    }
    // The same for an F16 part, as halves (head_dim apart).
    kernels::fp16_bits* head(Part part, int32_t layer, int32_t kv_head, int32_t pos = 0) {
        return static_cast<kernels::fp16_bits*>(data(part, layer, kv_head, pos));
    }
    const kernels::fp16_bits* head(Part part, int32_t layer, int32_t kv_head, int32_t pos = 0) const {
        return static_cast<const kernels::fp16_bits*>(data(part, layer, kv_head, pos));
    }
    // One position's row of row_bytes(part) (KV head after KV head, each in the part's type),
    // gathered or scattered; any alignment.
    void read_row(Part part, int32_t layer, int32_t pos, void* row) const;
    void write_row(Part part, int32_t layer, int32_t pos, const void* row);
    // The same row as kv_width floats, widened exactly / rounded to the part's type (RoPE of a
    // context shift, tests).
    void read_row_f32(Part part, int32_t layer, int32_t pos, float* row) const;
    void write_row_f32(Part part, int32_t layer, int32_t pos, const float* row);
    // Element i (< kv_width) of that row, of an F16 part.
    kernels::fp16_bits at(Part part, int32_t layer, int32_t pos, int32_t i) const {
        return head(part, layer, i / head_dim_, pos)[i % head_dim_];
    }

    // Keeps the first n tokens (and their keys/values), forgets the rest. The record of
    // shifted-out tokens is left alone: the caller decides whether it still applies.
    void truncate(int32_t n);
    void clear();
    // Records tokens whose keys/values the forward pass has just written at the end.
    void append_tokens(std::span<const int32_t> tokens);
    // Image positions (Inference::eval_image) are recorded as negative ids: kImagePosition for
    // an image of no known identity, which never counts as a common prefix, or the id of a
    // picture (image_position_id), the same for each of its positions, so that a prompt showing
    // the same picture at the same place reuses them.
    static constexpr int32_t kImagePosition = -1;
    static bool is_image_position(int32_t id) { return id < 0; }
    // The id recorded for the positions of the picture whose hex fingerprint (e.g. the SHA-256
    // of its file) is `fingerprint`: below kImagePosition, from its first 16 hex digits.
    static int32_t image_position_id(std::string_view fingerprint);
    // Length of the common prefix of the cached tokens and `tokens`; it ends before an image
    // position of no identity.
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

    // Device layers (KvCacheDevicePart above). Every row access of this class (read_row,
    // write_row, their F32 forms, discard) sees the truth: rows the device wrote are brought to
    // the host first, and rows the host wrote go to the device before its next forward pass.
    // data() and head() give host storage as it is: the CPU's forward pass reads only its own
    // layers there.
    // Holds `part` from now on (the previous part's rows come to the host first); its rows are
    // sent up before the device's next forward pass.
    void attach_device(std::unique_ptr<KvCacheDevicePart> part);
    // Brings the device's rows to the host and lets the part go: the host holds every layer again.
    std::unique_ptr<KvCacheDevicePart> detach_device();
    // Lets the part go without reading it (its memory is lost): the positions it held are
    // forgotten with the tokens, so nothing stale is ever read.
    void drop_device();
    KvCacheDevicePart* device_part() const { return device_.get(); }
    bool on_device(int32_t layer) const { return device_ && layer < device_->n_layers(); }
    // For the device's forward pass: sends host-written rows up (before it runs), and records
    // that it wrote rows the host lacks (after).
    void sync_device();
    void note_device_wrote() { host_behind_ = true; }
    // Brings rows the device wrote to the host storage (the row accessors call it).
    void sync_host() const;

private:
    // Host rows are about to be written: the device's rows come down first, and go back up
    // before its next forward pass.
    void before_host_writes();
    // Keys and values of one position in every layer: the bytes() figures are this per position.
    size_t per_position_bytes() const {
        return static_cast<size_t>(n_layer_) * (row_bytes(Part::Keys) + row_bytes(Part::Values));
    }
    size_t offset(Part part, int32_t layer, int32_t kv_head, int32_t pos) const {
        return ((static_cast<size_t>(layer) * n_head_kv_ + kv_head) * n_ctx_ + pos) * head_row_bytes(part);
    }
    unsigned char* storage(Part part) const { return part == Part::Keys ? keys_.get() : values_.get(); }
    void note_size() { high_water_ = std::max(high_water_, size()); }

    int32_t n_ctx_;
    int32_t n_layer_;
    int32_t n_head_kv_;
    int32_t head_dim_;
    KvCacheTypes types_;
    size_t key_row_bytes_; // of one KV head's position
    size_t value_row_bytes_;
    int32_t high_water_ = 0; // most positions ever written
    // One allocation each for every layer's keys and values, aligned to cache lines so that
    // a head's run of positions starts on a line and the vector loads of attention never split.
    struct FreeAligned {
        void operator()(unsigned char* p) const noexcept;
    };
    using AlignedBytes = std::unique_ptr<unsigned char[], FreeAligned>;
    static AlignedBytes allocate_aligned(size_t bytes);
    AlignedBytes keys_;   // (layer, n_head_kv, n_ctx, head_row_bytes)
    AlignedBytes values_; // (layer, n_head_kv, n_ctx, head_row_bytes)
    std::vector<int32_t> tokens_;
    int32_t shift_at_ = 0;
    std::vector<int32_t> dropped_;
    std::unique_ptr<KvCacheDevicePart> device_;
    mutable bool host_behind_ = false; // the device wrote rows the host storage lacks
    bool device_behind_ = false;       // the host wrote rows the device lacks
};

} // namespace hearth::engine
