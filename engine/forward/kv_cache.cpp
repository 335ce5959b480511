#include "engine/forward/kv_cache.h"
#include "engine/error.h"
#include "kernels/kernel_table.h"
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace hearth::engine {

std::span<const kernels::TensorType> kv_cache_type_choices() {
    static constexpr kernels::TensorType kChoices[] = {kernels::TensorType::F16, kernels::TensorType::Q8_0,
                                                       kernels::TensorType::Q4_0};
    return kChoices;
}

std::string_view kv_cache_type_name(kernels::TensorType type) {
    switch (type) {
    case kernels::TensorType::F16:
        return "f16";
    case kernels::TensorType::Q8_0:
        return "q8_0";
    case kernels::TensorType::Q4_0:
        return "q4_0";
    default:
        return "unsupported";
    }
}

namespace {

// Checks a part's type against the model's head size; returns the bytes of one head's row.
size_t checked_head_row_bytes(kernels::TensorType type, int32_t head_dim, std::string_view part) {
    if (!kernels::is_kv_cache_type(type))
        throw Error("KV cache: " + std::string(part) + " must be stored as f16, q8_0 or q4_0");
    if (type != kernels::TensorType::F16 && head_dim % 32 != 0)
        throw Error("KV cache: " + std::string(part) + " as " + std::string(kv_cache_type_name(type)) +
                    " need a head size that is a multiple of 32 (its blocks), this model's is " +
                    std::to_string(head_dim) + "; use f16");
    return kernels::row_bytes(type, head_dim);
}

const kernels::TypeCandidates& kernels_of(kernels::TensorType type) {
    return kernels::active_kernels().of(type);
}

} // namespace

std::optional<kernels::TensorType> kv_cache_type_from_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const kernels::TensorType type : kv_cache_type_choices())
        if (lower == kv_cache_type_name(type)) return type;
    return std::nullopt;
}

size_t kv_bytes_per_token(const HyperParams& hp, KvCacheTypes types) {
    return static_cast<size_t>(hp.n_layer) * hp.n_head_kv *
           (kernels::row_bytes(types.keys, hp.head_dim) + kernels::row_bytes(types.values, hp.head_dim));
}

KvCache::KvCache(const HyperParams& hp, int32_t n_ctx, KvCacheTypes types)
    : n_ctx_(n_ctx), n_layer_(hp.n_layer), n_head_kv_(hp.n_head_kv), head_dim_(hp.head_dim), types_(types),
      key_row_bytes_(checked_head_row_bytes(types.keys, hp.head_dim, "keys")),
      value_row_bytes_(checked_head_row_bytes(types.values, hp.head_dim, "values")) {
    if (n_ctx <= 0) throw std::invalid_argument("KV cache needs a positive context length");
    const size_t positions = static_cast<size_t>(hp.n_layer) * n_ctx;
    // Not zeroed: only the positions a conversation reaches ever become resident.
    keys_ = allocate_aligned(positions * row_bytes(Part::Keys));
    values_ = allocate_aligned(positions * row_bytes(Part::Values));
    tokens_.reserve(static_cast<size_t>(n_ctx));
}

constexpr size_t kCacheLine = 64;

KvCache::AlignedBytes KvCache::allocate_aligned(size_t bytes) {
    const size_t rounded = (bytes + kCacheLine - 1) / kCacheLine * kCacheLine;
    void* p = std::aligned_alloc(kCacheLine, rounded);
    if (p == nullptr) throw std::bad_alloc();
    return AlignedBytes(static_cast<unsigned char*>(p));
}

void KvCache::FreeAligned::operator()(unsigned char* p) const noexcept {
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

int32_t KvCache::image_position_id(std::string_view fingerprint) {
    const auto hex_digit = [](char c) -> uint64_t {
        if (c >= '0' && c <= '9') return static_cast<uint64_t>(c - '0');
        const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return lower >= 'a' && lower <= 'f' ? static_cast<uint64_t>(lower - 'a' + 10) : 0;
    };
    uint64_t value = 0;
    for (const char c : fingerprint.substr(0, 16))
        value = value * 16 + hex_digit(c);
    // Into [INT32_MIN, kImagePosition - 1]: 2^31 - 1 ids.
    constexpr uint64_t kIds = (uint64_t{1} << 31) - 1;
    return static_cast<int32_t>(-2 - static_cast<int64_t>(value % kIds));
}

int32_t KvCache::common_prefix(std::span<const int32_t> tokens) const {
    size_t n = std::min(tokens.size(), tokens_.size());
    size_t i = 0;
    while (i < n && tokens[i] == tokens_[i] && tokens_[i] != kImagePosition)
        ++i;
    return static_cast<int32_t>(i);
}

void KvCache::discard(int32_t n_keep, int32_t n_discard) {
    if (n_keep < 0 || n_discard <= 0 || n_keep + n_discard > size())
        throw std::out_of_range("KV cache: nothing to discard there");
    if (shifted() && n_keep != shift_at_)
        throw std::invalid_argument("KV cache: a second shift must keep the same prefix");
    before_host_writes();
    const int32_t moved = size() - n_keep - n_discard;
    for (int32_t layer = 0; layer < n_layer_; ++layer)
        for (int32_t h = 0; h < n_head_kv_; ++h)
            for (const Part part : {Part::Keys, Part::Values}) // regions may overlap: memmove
                std::memmove(data(part, layer, h, n_keep), data(part, layer, h, n_keep + n_discard),
                             static_cast<size_t>(moved) * head_row_bytes(part));
    const auto first = tokens_.begin() + n_keep;
    dropped_.insert(dropped_.end(), first, first + n_discard);
    shift_at_ = n_keep;
    tokens_.erase(first, first + n_discard);
}

void KvCache::read_row(Part part, int32_t layer, int32_t pos, void* row) const {
    if (on_device(layer)) sync_host();
    const size_t head_bytes = head_row_bytes(part);
    for (int32_t h = 0; h < n_head_kv_; ++h)
        std::memcpy(static_cast<char*>(row) + h * head_bytes, data(part, layer, h, pos), head_bytes);
}

void KvCache::write_row(Part part, int32_t layer, int32_t pos, const void* row) {
    if (on_device(layer)) before_host_writes();
    const size_t head_bytes = head_row_bytes(part);
    for (int32_t h = 0; h < n_head_kv_; ++h)
        std::memcpy(data(part, layer, h, pos), static_cast<const char*>(row) + h * head_bytes, head_bytes);
}

void KvCache::read_row_f32(Part part, int32_t layer, int32_t pos, float* row) const {
    if (on_device(layer)) sync_host();
    const kernels::DequantizeRowFn widen = kernels_of(type(part)).dequantize.fn();
    for (int32_t h = 0; h < n_head_kv_; ++h)
        widen(data(part, layer, h, pos), row + static_cast<size_t>(h) * head_dim_, head_dim_);
}

void KvCache::write_row_f32(Part part, int32_t layer, int32_t pos, const float* row) {
    if (on_device(layer)) before_host_writes();
    const kernels::QuantizeRowFn round = kernels_of(type(part)).quantize.fn();
    for (int32_t h = 0; h < n_head_kv_; ++h)
        round(row + static_cast<size_t>(h) * head_dim_, data(part, layer, h, pos), head_dim_);
}

void KvCache::attach_device(std::unique_ptr<KvCacheDevicePart> part) {
    detach_device();
    if (part && part->n_layers() > n_layer_)
        throw std::invalid_argument("KV cache: more device layers than layers");
    device_ = std::move(part);
    host_behind_ = false;
    device_behind_ = device_ != nullptr && size() > 0;
}

std::unique_ptr<KvCacheDevicePart> KvCache::detach_device() {
    sync_host();
    device_behind_ = false;
    return std::move(device_);
}

void KvCache::drop_device() {
    device_.reset();
    host_behind_ = device_behind_ = false;
    clear();
}

void KvCache::sync_device() {
    if (!device_ || !device_behind_) return;
    device_->upload(*this, size());
    device_behind_ = false;
}

void KvCache::sync_host() const {
    if (!device_ || !host_behind_) return;
    // The host storage is this cache's own (never a const object): bringing it up to date
    // changes no observable state.
    device_->download(const_cast<KvCache&>(*this), size());
    host_behind_ = false;
}

void KvCache::before_host_writes() {
    if (!device_) return;
    sync_host();
    device_behind_ = true;
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
