#include "app/server/engine_completion.h"
#include "app/server/stop_strings.h"
#include "app/server/tool_turn.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/tools/tool_call_id.h"
#include "engine/tools/tool_call_stream.h"
#include <QRandomGenerator>
#include <exception>
#include <optional>

namespace hearth::server {

namespace {
engine::GenerationOptions generationOptions(const CompletionRequest& request) {
    engine::GenerationOptions options;
    options.sampling.temperature = static_cast<float>(request.temperature);
    options.sampling.top_p = static_cast<float>(request.topP);
    options.sampling.top_k = request.topK;
    options.sampling.min_p = static_cast<float>(request.minP);
    options.sampling.repeat_penalty = static_cast<float>(request.repeatPenalty);
    options.sampling.seed = request.seed;
    options.max_tokens = request.maxTokens;
    options.grammar = request.grammar;
    options.speculation = request.speculation;
    if (request.rawPrompt)
        options.template_override = engine::kRawPromptTemplate; // continued as written
    else if (!request.chatTemplate.isEmpty())
        options.template_override = request.chatTemplate.toStdString();
    return options;
}

using ordered_json = nlohmann::ordered_json;
} // namespace

CompletionResult runCompletion(engine::EngineRuntime& runtime, const CompletionRequest& request,
                               const std::function<void(const QString& text)>& onText,
                               const std::function<void(int index, const ApiToolCall& call)>& onToolCall) {
    CompletionResult result;
    if (request.cancel->load()) { // the client left while it waited
        result.finishReason = QStringLiteral("cancelled");
        return result;
    }
    engine::RuntimeRequest turn;
    turn.conversation_id = request.sessionId.toStdString();
    turn.conversation.reserve(request.messages.size());
    for (const ApiMessage& m : request.messages) {
        ordered_json extra =
            m.templateFields.isEmpty()
                ? ordered_json::object()
                : ordered_json::parse(m.templateFields.constData(),
                                      m.templateFields.constData() + m.templateFields.size());
        turn.conversation.push_back({m.role, m.content.toStdString(), std::move(extra), m.images});
    }
    turn.options = generationOptions(request);
    turn.cancel = request.cancel;
    turn.keep_state = false; // the API's sessions live as long as the server keys requests to them

    // Tools: in the prompt (the template's own way, or as text), a forced call's grammar, and the
    // reply's calls parsed out of its text as it streams.
    const size_t maxCalls = request.parallelToolCalls ? SIZE_MAX : 1;
    ToolTurn tools;
    try {
        tools = prepareToolTurn(runtime, turn, request.rawPrompt ? QByteArray() : request.toolsJson,
                                request.toolChoice, request.forcedTool, maxCalls);
    } catch (const std::exception& e) {
        result.errorStatus = 400;
        result.error = QString::fromUtf8(e.what());
        return result;
    }
    std::optional<engine::ToolCallStream>& toolStream = tools.stream;
    const engine::ToolFamily family = tools.family;

    // The calls given out so far, with their ids: the result lists them first, as they went.
    const auto withId = [&](const engine::ToolCall& call) {
        return ApiToolCall{
            QString::fromStdString(
                call.id.empty() ? engine::make_tool_call_id(family, QRandomGenerator::global()->generate64())
                                : call.id),
            QString::fromStdString(call.name), QString::fromStdString(call.arguments)};
    };
    const auto giveFinishedCalls = [&] {
        if (!toolStream) return;
        for (const engine::ToolCall& call : toolStream->take_finished_calls()) {
            result.toolCalls.append(withId(call));
            if (onToolCall) onToolCall(int(result.toolCalls.size() - 1), result.toolCalls.last());
        }
    };
    StopStrings stops(request.stop);
    bool sent = false;
    const auto release = [&](const QString& text) {
        if (!toolStream || text.isEmpty()) return text;
        const QByteArray bytes = text.toUtf8();
        const std::string content = toolStream->push(std::string_view(bytes.constData(), bytes.size()));
        return QString::fromStdString(content);
    };
    const auto onPiece = [&](std::string_view piece) {
        const QString text =
            release(stops.push(QString::fromUtf8(piece.data(), static_cast<qsizetype>(piece.size()))));
        if (!text.isEmpty()) {
            onText(text);
            sent = true;
        }
        giveFinishedCalls();
        sent = sent || !result.toolCalls.isEmpty();
        // The request's own token: the engine checks it before the next token.
        if (stops.stopped()) request.cancel->store(true);
    };
    // The GPU failed before any text went out: the completion runs again on the CPU.
    const auto retryOnCpu = [&] {
        if (sent || stops.stopped()) return false;
        stops = StopStrings(request.stop);
        if (toolStream) toolStream.emplace(family, maxCalls);
        return true;
    };
    try {
        result.stats = runtime.run(turn, onPiece, retryOnCpu).stats;
        if (const QString rest = release(stops.flush()); !rest.isEmpty()) onText(rest);
        if (toolStream) {
            giveFinishedCalls();
            const engine::ToolCallReply reply = toolStream->finish();
            if (!reply.content.empty()) onText(QString::fromStdString(reply.content));
            for (size_t i = static_cast<size_t>(result.toolCalls.size()); i < reply.calls.size(); ++i) {
                result.toolCalls.append(withId(reply.calls[i]));
                if (onToolCall) onToolCall(int(result.toolCalls.size() - 1), result.toolCalls.last());
            }
        }
        const engine::TurnStats& stats = result.stats;
        if (!result.toolCalls.isEmpty() && stats.stop_reason != engine::StopReason::Stopped)
            result.finishReason = QStringLiteral("tool_calls");
        else if (stops.stopped() || stats.stop_reason == engine::StopReason::EndOfGeneration)
            result.finishReason = QStringLiteral("stop");
        else if (stats.stop_reason == engine::StopReason::Stopped)
            result.finishReason = QStringLiteral("cancelled");
        else
            result.finishReason = QStringLiteral("length"); // max_tokens, or the context is full
    } catch (const std::exception& e) {
        // A template that refuses the messages, a prompt longer than the context, a damaged
        // image, images for a model that reads none, ...
        result.errorStatus = 400;
        result.error = QString::fromUtf8(e.what());
    }
    return result;
}

} // namespace hearth::server
