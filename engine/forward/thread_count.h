#pragma once
// What "0 threads" means everywhere (the settings, hearth-cli -t 0, InferenceOptions): one
// kernel thread per hardware thread. The one place it is resolved.
#include <cstdint>

namespace hearth::engine {

// `requested` itself when positive, else one per hardware thread (at least one).
int32_t resolve_threads(int32_t requested);

} // namespace hearth::engine
