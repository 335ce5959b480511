#pragma once
// Hearth's own conversation file, JSON (UTF-8). Version 1:
//   { "format": "hearth-conversations", "version": 1, "exportedAt": <time>,
//     "settings": { ... }              // the generation settings when exported; optional
//     "conversations": [ { "id", "title", "createdAt", "updatedAt",
//         "currentLeaf": <message id or null>,  // the message the conversation shows last
//         "messages": [ { "id", "parentId": <message id or null for the first>, "active", "role",
//                         "content", "state", "createdAt", "model", "tool" } ] } ] }
// Messages form a tree by their parent ids (edits and regenerated replies are siblings); the
// conversation shows the path from a root to "currentLeaf" (a linear conversation is a chain).
// "active" (optional) marks the chosen one among siblings off that path, the branch shown when
// the user moves to it; without it, the last of them. Times are ISO 8601 in UTC with milliseconds;
// roles are the chat templates' names ("system", "user", "assistant", "tool"); states are
// "complete", "streaming", "stopped" or "failed"; "model" is the model that wrote a reply ("" for
// the others). "tool" (optional, an object) holds a reply's function calls ({"calls": [each call's
// id, function, server, tool, arguments and status]}) or the call a tool message answers
// ({"result": {...}}): app/chat/tool_calls.h. A reader refuses a version it does not know.
#include "app/storage/conversation_transfer.h"
#include <QByteArray>
#include <QJsonObject>

namespace hearth::app {

inline constexpr auto kHearthFormatName = "hearth-conversations";
inline constexpr int kHearthFormatVersion = 1;

// The file's bytes for `conversations`; `settings` goes in as it is (empty: left out).
QByteArray conversationsToJson(const QList<ConversationBundle>& conversations,
                               const QJsonObject& settings = {});

// A time as the format writes it (null when invalid), and back (invalid when it is not one).
QString formatTime(const QDateTime& time);
QDateTime parseTime(const QString& text);

} // namespace hearth::app
