#pragma once
// Function tools put into one turn of the engine, shared by the API's completions and the app's
// chat: the tools go into the prompt (the template's own way when it renders `tools`, else as
// text in the family's words), tool messages and calls in the conversation are rendered alike,
// a forced call ("required", or one named function) gets its grammar, and the reply's calls are
// parsed out of its text by the stream returned. Called on the thread that owns the runtime.
#include "app/server/completion_backend.h"
#include "engine/runtime/runtime_request.h"
#include "engine/tools/tool_call_stream.h"
#include "engine/tools/tool_family.h"
#include <optional>

namespace hearth::engine {
class EngineRuntime;
}

namespace hearth::server {

struct ToolTurn {
    engine::ToolFamily family = engine::ToolFamily::Hermes;
    // Parses the reply's calls out of its text; none when no tools are offered.
    std::optional<engine::ToolCallStream> stream;
};

// `toolsJson`: OpenAI's "tools" array (empty: none offered). `maxCalls`: calls per reply the
// stream gives (1 without parallel calls). Throws std::exception (malformed JSON, a schema the
// forced grammar cannot take) with a message for the user.
ToolTurn prepareToolTurn(const engine::EngineRuntime& runtime, engine::RuntimeRequest& turn,
                         const QByteArray& toolsJson, ToolChoice choice, const QString& forcedTool,
                         size_t maxCalls);

} // namespace hearth::server
