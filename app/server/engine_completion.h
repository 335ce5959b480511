#pragma once
// Runs one API completion on the engine, in a session of a SessionStore: the chat
// template (or the raw prompt), OpenAI's sampling (no top-k, min-p or repetition
// penalty unless asked), stop strings, and cancelling. Called on the thread that owns
// the runtime: the app's inference worker, or hearth-cli serve's engine thread.
#include "app/server/completion_backend.h"
#include <functional>

namespace hearth::engine {
class EngineRuntime;
}

namespace hearth::server {

// onText receives the reply as it grows (stop strings and function calls already cut out);
// onToolCall, if given, each call as soon as it is complete (the result lists them all).
CompletionResult
runCompletion(engine::EngineRuntime& runtime, const CompletionRequest& request,
              const std::function<void(const QString& text)>& onText,
              const std::function<void(int index, const ApiToolCall& call)>& onToolCall = {});

} // namespace hearth::server
