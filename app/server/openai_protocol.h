#pragma once
// The OpenAI API's JSON, as far as Hearth speaks it: requests to /v1/chat/completions
// and /v1/completions read and checked (every refusal names the parameter, as
// OpenAI's do), and the responses, stream chunks, model list and errors written in
// OpenAI's shapes. Unknown request fields are ignored, as OpenAI's clients expect.
// response_format ("text", "json_object", "json_schema") becomes the reply's grammar;
// tools and tool calls are read and written by openai_tools.h; a message's content parts,
// text and images, by openai_content.h.
#include "app/server/completion_backend.h"
#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <optional>
#include <variant>

namespace hearth::server {

struct ApiError {
    int status = 400;
    QString message;
    QString type; // "invalid_request_error", "authentication_error", "server_error", ...
    QString param;
    QString code;
};

// The error's JSON: {"error":{"message","type","param","code"}} (null when empty).
QByteArray errorBody(const ApiError& error);
// OpenAI's error type for an HTTP status.
QString errorTypeFor(int status);

enum class Endpoint { ChatCompletions, Completions };

struct ParsedRequest {
    QString model;
    CompletionRequest completion; // id, session and cancel flag not yet set
    std::optional<quint64> seed;  // absent: the server draws one
    bool stream = false;
    bool includeUsage = false; // stream_options.include_usage: a last chunk with the usage
    // Whether the request set these (else the server's defaults apply: ApiServer::setModelDefaults).
    bool setsTemperature = false;
    bool setsTopP = false;
};

// Reads a request body for `endpoint`; an ApiError (status 400) says what is wrong.
std::variant<ParsedRequest, ApiError> parseRequest(Endpoint endpoint, const QByteArray& body);

struct CompletionIdentity {
    QString id; // "chatcmpl-…" or "cmpl-…"
    qint64 created = 0;
    QString model;
};

// {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details":
// {"cached_tokens"}}: cached_tokens is the prompt prefix the KV cache reused.
QJsonObject usageJson(const CompletionResult& result);
// OpenAI's finish_reason for the engine's.
QString finishReasonJson(const QString& finishReason);

QByteArray chatCompletionJson(const CompletionIdentity& who, const QString& text,
                              const CompletionResult& result);
QByteArray textCompletionJson(const CompletionIdentity& who, const QString& text,
                              const CompletionResult& result);
// One chat.completion.chunk: `role` on the first, `content` on the text ones, `finishReason`
// (with an empty delta) on the last.
QByteArray chatChunkJson(const CompletionIdentity& who, const QString& role, const QString& content,
                         const QString& finishReason);
// A chunk whose delta is {"tool_calls": toolCalls} (openai_tools.h writes them).
QByteArray chatToolCallChunkJson(const CompletionIdentity& who, const QJsonArray& toolCalls);
QByteArray textChunkJson(const CompletionIdentity& who, const QString& text, const QString& finishReason);
// The last chunk of a stream asked to include usage: no choices, the usage.
QByteArray usageChunkJson(const CompletionIdentity& who, Endpoint endpoint, const CompletionResult& result);

QByteArray modelJson(const QString& model, qint64 created);
QByteArray modelListJson(const QString& model, qint64 created); // empty model: an empty list

} // namespace hearth::server
