#pragma once
// What the HTTP side of the API server asks of whoever runs the model: start a
// completion of a message list with sampling parameters, receive its text in
// pieces, then one result with token counts. Two implementations: the app's
// inference worker (shared with the window's chats, one queue) and the engine on
// a thread of its own for `hearth-cli serve`, each over an engine::EngineRuntime. Cancelling
// is the request's cancel token, checked between tokens; a request cancelled while queued never runs.
#include "engine/chat/chat_image.h"
#include "engine/chat/chat_role.h"
#include "engine/grammar/grammar.h"
#include "engine/runtime/cancel_token.h"
#include "engine/session/generation_options.h"
#include "engine/session/turn_result.h"
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

namespace hearth::server {

struct ApiMessage {
    chat::Role role = chat::Role::User; // system, user, assistant or tool
    QString content;
    // A JSON object merged into the message the template sees: an assistant's "tool_calls"
    // (arguments as objects, as templates expect), a tool result's "tool_call_id"; empty: none.
    QByteArray templateFields;
    // Images of a user message, read before its text (content parts of type image_url).
    std::vector<chat::ChatImage> images = {};
    bool operator==(const ApiMessage& other) const; // images compared by their ids
};

// A function call of the reply, as the API returns it.
struct ApiToolCall {
    QString id;
    QString name;
    QString arguments; // JSON text
    bool operator==(const ApiToolCall&) const = default;
};

// tool_choice: "auto" (the reply's calls are parsed), "none" (no tools in the prompt), "required"
// (a grammar makes the reply one call of any tool) or one named function (of that tool).
enum class ToolChoice { Auto, None, Required, Function };

struct CompletionRequest {
    quint64 id = 0;
    QString sessionId;          // the KV cache it runs in (and reuses the prefix of)
    QList<ApiMessage> messages; // for a raw completion, one message holding the prompt
    bool rawPrompt = false;     // the prompt as written, without the chat template
    double temperature = 1.0;   // 0: greedy
    double topP = 1.0;
    int topK = 0;               // 0: off (not in OpenAI's API: the loaded model's preset may set it)
    double minP = 0.0;          // 0: off (likewise)
    double repeatPenalty = 1.0; // 1: off (likewise)
    QString chatTemplate;       // Jinja source replacing the model's (its preset's); empty: the model's
    int maxTokens = 512;
    quint64 seed = 0;
    QStringList stop; // generation ends before the first of these; it is not returned
    // response_format's grammar (a JSON object, or a JSON Schema's); null: free text.
    std::shared_ptr<const engine::Grammar> grammar;
    // Speculative decoding: the server's setting, the same for every request (ApiServer).
    engine::SpeculationOptions speculation;
    QByteArray toolsJson; // OpenAI's "tools" array, keys in the request's order; empty: none
    ToolChoice toolChoice = ToolChoice::Auto;
    QString forcedTool;            // ToolChoice::Function: its name
    bool parallelToolCalls = true; // false: at most one call per reply
    engine::CancelToken cancel = engine::new_cancel_token();
};

struct CompletionResult {
    int errorStatus = 0; // an HTTP status when the completion could not run (503: no model)
    QString error;
    // The engine's figures for the turn (stats.reused_tokens: of the prompt, already in the
    // session's KV cache); stats.stop_reason is the engine's, finishReason the API's.
    engine::TurnStats stats;
    QString finishReason; // "stop", "length", "tool_calls" or "cancelled"
    // The reply's function calls (the text around them is what was streamed as content).
    QList<ApiToolCall> toolCalls;
};

class CompletionBackend : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    // The loaded model's name as the API lists it; empty when none is loaded.
    [[nodiscard]] virtual QString modelId() const = 0;
    // Queues the completion; pieceReady and then finished follow, with the request's id.
    virtual void start(const CompletionRequest& request) = 0;
    // The server no longer keys any request to this session: its KV cache can go.
    virtual void forgetSession(const QString& sessionId) = 0;

signals:
    void pieceReady(quint64 id, const QString& text);
    // A function call of the reply, complete while the reply goes on (the result lists it too;
    // a call not sent this way is streamed from the result).
    void toolCallReady(quint64 id, int index, const hearth::server::ApiToolCall& call);
    void finished(quint64 id, const hearth::server::CompletionResult& result);
};

// Registers the types above for queued connections (idempotent).
void registerCompletionTypes();

} // namespace hearth::server

Q_DECLARE_METATYPE(hearth::server::CompletionRequest)
Q_DECLARE_METATYPE(hearth::server::CompletionResult)
Q_DECLARE_METATYPE(hearth::server::ApiToolCall)
