#include "app/server/engine_completion.h"
#include "app/server/stop_strings.h"
#include "engine/session/session_store.h"
#include <exception>

namespace hearth::server {

namespace {
// /v1/completions continues the prompt as written: a template that only concatenates.
constexpr const char* kRawPromptTemplate = "{% for message in messages %}{{ message.content }}{% endfor %}";

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
    if (request.rawPrompt) options.template_override = kRawPromptTemplate;
    return options;
}
} // namespace

CompletionResult runCompletion(engine::SessionStore& sessions, const CompletionRequest& request,
                               const std::function<void(const QString& text)>& onText) {
    CompletionResult result;
    if (request.cancel->load()) { // the client left while it waited
        result.finishReason = QStringLiteral("cancelled");
        return result;
    }
    std::vector<engine::ChatTurn> turns;
    turns.reserve(request.messages.size());
    for (const ApiMessage& m : request.messages)
        turns.push_back({m.role, m.content.toStdString()});

    StopStrings stops(request.stop);
    const auto onPiece = [&](std::string_view piece) {
        const QString text =
            stops.push(QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size())));
        if (!text.isEmpty()) onText(text);
        // The request's own flag: the engine checks it before the next token.
        if (stops.stopped()) request.cancel->store(true);
    };
    try {
        result.stats = sessions
                           .run_turn({.conversation_id = request.sessionId.toStdString(),
                                      .conversation = turns,
                                      .options = generationOptions(request),
                                      .stop = request.cancel.get()},
                                     onPiece)
                           .stats;
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
