#pragma once
// The cache the KV-state fuzz target restores into, shared with the seed maker so that the
// seeds it saves pass every check up to the keys and values.
#include "engine/forward/kv_cache.h"
#include "engine/model/hparams.h"
#include "engine/session/kv_state_file.h"
#include <cstdint>

namespace hearth::fuzz {

inline constexpr int32_t kKvStateContext = 32;
inline constexpr int32_t kKvStateVocab = 512;
inline constexpr uint8_t kFixChecksum = 0x80; // in the options byte, ahead of the file

inline engine::HyperParams kv_state_hparams() {
    engine::HyperParams hp;
    hp.n_layer = 2;
    hp.n_head = 4;
    hp.n_head_kv = 2;
    hp.head_dim = 32; // a multiple of 32, so the quantized cache types apply
    hp.n_embd = hp.n_head * hp.head_dim;
    hp.n_vocab = kKvStateVocab;
    return hp;
}

// The options byte's low two bits: F16, Q8_0, Q4_0 keys and values, or Q8_0 keys with F16 values.
inline engine::KvCacheTypes kv_state_types(uint8_t options) {
    using kernels::TensorType;
    switch (options & 3) {
    case 1:
        return {TensorType::Q8_0, TensorType::Q8_0};
    case 2:
        return {TensorType::Q4_0, TensorType::Q4_0};
    case 3:
        return {TensorType::Q8_0, TensorType::F16};
    default:
        return {TensorType::F16, TensorType::F16};
    }
}

inline engine::KvStateIdentity kv_state_identity() {
    engine::KvStateIdentity id;
    id.model.path = "fuzz-model.gguf"; // no real file: the seeds are independent of the checkout
    id.model.file_bytes = 123456;
    id.model.header_hash = 0x1234567890abcdefull;
    id.template_hash = engine::hash_text("fuzz template");
    return id;
}

} // namespace hearth::fuzz
