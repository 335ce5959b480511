#include "engine/forward/thread_count.h"
#include <algorithm>
#include <thread>

namespace hearth::engine {

int32_t resolve_threads(int32_t requested) {
    return requested > 0 ? requested
                         : static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()));
}

} // namespace hearth::engine
