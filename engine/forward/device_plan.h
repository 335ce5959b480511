#pragma once
// How much device memory the first layers of a model take (their weights in the file's block
// layout, their KV cache, the activations of a batch), to choose how many layers a device holds.
#include "engine/forward/kv_cache.h"
#include "engine/gguf/gguf_file.h"
#include "engine/model/model.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace hearth::engine {

struct DeviceMemoryPlan {
    uint64_t input_bytes = 0;          // the token embedding table, learned positions, RoPE factors
    uint64_t output_bytes = 0;         // the final norm and the output matrix (none more when tied)
    std::vector<uint64_t> layer_bytes; // (n_layer) each layer's weights
    uint64_t kv_bytes_per_layer = 0;   // one layer's keys and values for the planned context
    uint64_t scratch_bytes = 0;        // the activations of one batch
    // Everything the first n layers take; with every layer, the output too.
    uint64_t bytes_for(int32_t n_layers) const;
};

// The plan for batches of n_batch tokens and one cache of n_ctx positions of the given types.
DeviceMemoryPlan plan_device_memory(const Model& model, int32_t n_batch, int32_t n_ctx, KvCacheTypes types);

// The same from a file's tensor table, before its weights are loaded (the model picker's
// estimate): each tensor as many bytes as it takes in the file. Throws hearth::Error for a file
// the engine cannot run.
DeviceMemoryPlan plan_device_memory(const gguf::GgufFile& file, int32_t n_batch, int32_t n_ctx,
                                    KvCacheTypes types);

// What the plans may take of a device's device-local heap: a tenth of it is left to the driver,
// the display and other programs, and where the driver reports a budget (free_bytes: the heap's
// budget minus what this process uses, VK_EXT_memory_budget), no more than that.
uint64_t usable_device_bytes(uint64_t device_local_bytes, std::optional<uint64_t> free_bytes = std::nullopt);

// The most layers whose bytes_for(n) is at most `available` bytes (0 when not even one).
int32_t layers_that_fit(const DeviceMemoryPlan& plan, uint64_t available);

// The bytes a matrix takes in its file's block layout.
uint64_t matrix_bytes(const kernels::WeightMatrix& m);

} // namespace hearth::engine
