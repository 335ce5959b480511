#pragma once
// The settings' EngineConfig in the engine's own terms.
#include "app/core/worker_types.h"
#include "engine/forward/kv_cache.h"

namespace hearth::app {

// The KV cache types an EngineConfig names (a name the engine does not know counts as F16).
engine::KvCacheTypes kvCacheTypes(const EngineConfig& config);

} // namespace hearth::app
