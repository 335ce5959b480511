#pragma once
// How an engine runtime runs its model: every setting in the engine's own types, one value.
// The app's settings, `hearth-cli serve` and the other commands fill it; EngineRuntime::configure
// applies it.
#include "engine/forward/compute_device.h"
#include "engine/forward/inference.h"
#include "engine/forward/kv_cache.h"
#include "engine/session/kv_state_file.h"
#include <cstddef>
#include <cstdint>

namespace hearth::engine {

struct RuntimeConfig {
    int32_t threads = 0;                             // kernel threads; 0: one per hardware thread
    int32_t n_batch = InferenceOptions{}.n_batch;    // prompt tokens per forward pass
    int32_t context_length = 2048;                   // per conversation; capped at the trained context
    KvCacheTypes cache_types;                        // F16 where the model's head size takes no blocks
    ComputeDevice device;                            // the CPU by default
    int32_t gpu_layers = -1;                         // on the device; -1: as many as fit
    size_t memory_budget_bytes = size_t{2} << 30;    // KV memory kept across conversations
    KvStateFormat saved_format = KvStateFormat::F16; // of the conversations' saved states
    // What the model or the machine cannot take: F16 for a cache type the model's head size takes
    // no blocks of, the CPU for a device that cannot be used (the app). False: an error instead
    // (the command line, where every choice is the user's own).
    bool fall_back = true;
    bool operator==(const RuntimeConfig&) const = default;
};

} // namespace hearth::engine
