#pragma once
// Whether a model and its KV cache fit in the memory the system has free, decided before the
// weights are read: a load that runs the machine out of memory takes the whole desktop with it.
#include "engine/model/model.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::engine {

// Memory to run one conversation: the weights (copied out of the file at load) and a KV cache
// of n_ctx tokens in the given key and value types.
struct MemoryNeed {
    int64_t weight_bytes = 0;
    int64_t kv_cache_bytes = 0;
    int32_t n_ctx = 0;
    int64_t total() const { return weight_bytes + kv_cache_bytes; }
};

MemoryNeed memory_need(const ModelInfo& info, int32_t n_ctx, kernels::TensorType key_type,
                       kernels::TensorType value_type);

// MemAvailable of a /proc/meminfo text, in bytes; nullopt when the line is missing or unreadable.
std::optional<int64_t> parse_mem_available(std::string_view meminfo);

// The memory the system can give without swapping: HEARTH_AVAILABLE_MEMORY (bytes) when set, to
// try a smaller machine, else /proc/meminfo's MemAvailable; nullopt when unknown.
std::optional<int64_t> available_memory_bytes();

// "1.5 GiB", "640 MiB": sizes in the messages below.
std::string format_memory(int64_t bytes);

// Throws hearth::Error naming the file, what it needs (weights and KV cache, with the context)
// and what is available, when need exceeds available. Unknown availability passes.
void check_memory_fits(const std::string& path, const MemoryNeed& need, std::optional<int64_t> available);

} // namespace hearth::engine
