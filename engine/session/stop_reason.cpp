#include "engine/session/stop_reason.h"

namespace hearth::engine {

std::string_view stop_reason_name(StopReason reason) {
    switch (reason) {
    case StopReason::EndOfGeneration:
        return "eos";
    case StopReason::Length:
        return "length";
    case StopReason::Stopped:
        return "stopped";
    case StopReason::ContextFull:
        return "context";
    }
    return "length";
}

} // namespace hearth::engine
