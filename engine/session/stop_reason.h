#pragma once
// Why a reply ended, as the engine reports it; the app and the API server turn it into their own
// words (a message's state, OpenAI's finish_reason) at their edges.
#include <string_view>

namespace hearth::engine {

enum class StopReason {
    EndOfGeneration, // the model ended its turn
    Length,          // the reply reached max_tokens
    Stopped,         // the caller's stop flag
    ContextFull,     // the context is full and cannot shift (learned positions), or the options say not to
};

// "eos", "length", "stopped", "context": for logs and the command line.
std::string_view stop_reason_name(StopReason reason);

} // namespace hearth::engine
