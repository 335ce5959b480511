#pragma once
// A reply's function calls as the chat keeps them (MessageRecord::toolData, JSON text): each
// call's server, tool and arguments and what became of it; and a tool message's answer to one
// call. Also how both go back into the template (an assistant's "tool_calls", a tool message's
// "tool_call_id"), and a result cut to a size the model can take.
#include <QByteArray>
#include <QList>
#include <QString>
#include <QVariantList>
#include <QVariantMap>

namespace hearth::app {

// What became of a call: waiting for the user's answer, running on its server, answered, denied
// by the user, or failed (the server's error, a timeout, a tool the model made up, stopped).
enum class ToolCallStatus { Pending, Running, Done, Denied, Failed };

struct ToolCallRecord {
    QString id;       // the call's id, as the model's family writes them
    QString function; // the name the model called
    QString server;   // the MCP server and its tool it stands for; empty when it named none
    QString tool;
    QString arguments; // JSON text
    ToolCallStatus status = ToolCallStatus::Pending;
    bool operator==(const ToolCallRecord&) const = default;
};

// A tool message's data: the call it answers.
struct ToolResultRecord {
    QString callId;
    QString function;
    QString server;
    QString tool;
    bool isError = false;   // the result is an error (the tool's, or why there is none)
    bool truncated = false; // the result was cut to kMaxToolResultChars
};

inline constexpr int kMaxToolResultChars = 8000;

QString toolCallsToJson(const QList<ToolCallRecord>& calls);
QList<ToolCallRecord> toolCallsFromJson(const QString& json); // empty for anything else
QString toolResultToJson(const ToolResultRecord& result);
ToolResultRecord toolResultFromJson(const QString& json);

QString toolCallStatusName(ToolCallStatus status); // "pending", "running", "done", "denied", "failed"

// The template's view: {"tool_calls": [{"id", "type": "function", "function": {"name",
// "arguments": an object}}]} for a reply, {"tool_call_id", "name"} for a tool message.
QByteArray replyTemplateFields(const QList<ToolCallRecord>& calls);
QByteArray resultTemplateFields(const ToolResultRecord& result);

// The result as the model gets it: at most kMaxToolResultChars, with a notice where it was cut.
QString truncatedToolResult(const QString& text, bool* truncated);

// For QML: each call as {id, server, tool, function, arguments (indented JSON), status}.
QVariantList toolCallsForView(const QString& json);
// For QML: {server, tool, function, isError, truncated}; empty for a message that is no tool result.
QVariantMap toolResultForView(const QString& json);

} // namespace hearth::app
