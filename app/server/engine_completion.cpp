#include "app/server/engine_completion.h"
#include "app/server/stop_strings.h"
#include "engine/runtime/engine_runtime.h"
#include <exception>

namespace hearth::server {

namespace {
engine::GenerationOptions generationOptions(const CompletionRequest& request) {
    engine::GenerationOptions options;
    options.sampling.temperature = static_cast<float>(request.temperature);
    options.sampling.top_p = static_cast<float>(request.topP);
    options.sampling.top_k = 0;
    options.sampling.min_p = 0.0f;
    options.sampling.repeat_penalty = 1.0f;
    options.sampling.seed = request.seed;
    options.max_tokens = request.maxTokens;
    options.grammar = request.grammar;
    options.speculation = request.speculation;
    if (request.rawPrompt) options.template_override = engine::kRawPromptTemplate; // continued as written
    return options;
}
} // namespace

CompletionResult runCompletion(engine::EngineRuntime& runtime, const CompletionRequest& request,
                               const std::function<void(const QString& text)>& onText) {
    CompletionResult result;
    if (request.cancel->load()) { // the client left while it waited
        result.finishReason = QStringLiteral("cancelled");
        return result;
    }
    engine::RuntimeRequest turn;
    turn.conversation_id = request.sessionId.toStdString();
    turn.conversation.reserve(request.messages.size());
    for (const ApiMessage& m : request.messages)
        turn.conversation.push_back({m.role, m.content.toStdString()});
    turn.options = generationOptions(request);
    turn.cancel = request.cancel;
    turn.keep_state = false; // the API's sessions live as long as the server keys requests to them

    StopStrings stops(request.stop);
    bool sent = false;
    const auto onPiece = [&](std::string_view piece) {
        const QString text =
            stops.push(QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size())));
        if (!text.isEmpty()) {
            onText(text);
            sent = true;
        }
        // The request's own token: the engine checks it before the next token.
        if (stops.stopped()) request.cancel->store(true);
    };
    // The GPU failed before any text went out: the completion runs again on the CPU.
    const auto retryOnCpu = [&] {
        if (sent || stops.stopped()) return false;
        stops = StopStrings(request.stop);
        return true;
    };
    try {
        result.stats = runtime.run(turn, onPiece, retryOnCpu).stats;
        if (const QString rest = stops.flush(); !rest.isEmpty()) onText(rest);
        const engine::TurnStats& stats = result.stats;
        if (stops.stopped() || stats.stop_reason == engine::StopReason::EndOfGeneration)
            result.finishReason = QStringLiteral("stop");
        else if (stats.stop_reason == engine::StopReason::Stopped)
            result.finishReason = QStringLiteral("cancelled");
        else
            result.finishReason = QStringLiteral("length"); // max_tokens, or the context is full
    } catch (const std::exception& e) {
        // A template that refuses the messages, a prompt longer than the context, ...
        result.errorStatus = 400;
        result.error = QString::fromUtf8(e.what());
    }
    return result;
}

} // namespace hearth::server
