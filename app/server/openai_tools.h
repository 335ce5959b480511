#pragma once
// Function calling in OpenAI's JSON: the request's "tools", "tool_choice" and
// "parallel_tool_calls" read and checked (a malformed tool is refused naming its field and why),
// the tool calls and tool results of earlier messages turned into what chat templates take, and
// the reply's calls written as message.tool_calls and as streamed tool_calls deltas.
#include "app/server/completion_backend.h"
#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace hearth::server {

struct ApiError;

// Reads "tools", "tool_choice" and "parallel_tool_calls" of the body into `request`.
std::optional<ApiError> readTools(const QJsonObject& object, const QByteArray& body,
                                  CompletionRequest& request);

// An assistant message's "tool_calls" (`param` names it in errors) as template fields:
// {"tool_calls": [{"id", "type", "function": {"name", "arguments": <object>}}]}.
std::optional<ApiError> readAssistantToolCalls(const QJsonValue& value, const QString& param,
                                               QByteArray& fields);
// The template fields of a reply's calls, as readAssistantToolCalls makes them from the same calls.
QByteArray toolCallTemplateFields(const QList<ApiToolCall>& calls);

// message.tool_calls: [{"id", "type": "function", "function": {"name", "arguments"}}].
QJsonArray toolCallsJson(const QList<ApiToolCall>& calls);
// A streamed delta's "tool_calls": the first of a call carries its index, id, type, name and
// arguments "" ; the next ones its index and a part of the arguments.
QJsonArray toolCallOpeningDelta(int index, const ApiToolCall& call);
QJsonArray toolCallArgumentsDelta(int index, const QString& part);

} // namespace hearth::server
