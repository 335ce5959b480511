#pragma once
// Hearth's own conversation file, JSON (UTF-8). Version 2:
//   { "format": "hearth-conversations", "version": 2, "exportedAt": <time>,
//     "settings": { ... }              // the generation settings when exported; optional
//     "images": { "<sha256>": "<base64>" }   // every picture the messages show, once; optional
//     "conversations": [ { "id", "title", "createdAt", "updatedAt",
//         "currentLeaf": <message id or null>,  // the message the conversation shows last
//         "messages": [ { "id", "parentId": <message id or null for the first>, "active", "role",
//                         "content", "state", "createdAt", "model", "tool",
//                         "images": [ { "name", "sha256" } ] } ] } ] }
// Messages form a tree by their parent ids (edits and regenerated replies are siblings); the
// conversation shows the path from a root to "currentLeaf" (a linear conversation is a chain).
// "active" (optional) marks the chosen one among siblings off that path, the branch shown when
// the user moves to it; without it, the last of them. Times are ISO 8601 in UTC with milliseconds;
// roles are the chat templates' names ("system", "user", "assistant", "tool"); states are
// "complete", "streaming", "stopped" or "failed"; "model" is the model that wrote a reply ("" for
// the others). "tool" (optional, an object) holds a reply's function calls ({"calls": [each call's
// id, function, server, tool, arguments and status]}) or the call a tool message answers
// ({"result": {...}}): app/chat/tool_calls.h. "images" (optional) on a message lists the pictures
// it shows, in order: the name each came with and the SHA-256 of its bytes (64 lowercase hex
// digits), which names its bytes in the file's top-level "images": the image file's own bytes
// (PNG, JPEG or WebP) in standard base64, each picture once however many messages show it, out of
// the way of the messages, which stay short enough to read. A reader refuses a version it does not
// know. Version 1 is the same without images; a file none of whose messages shows an image is
// written as version 1, which every Hearth reads, and one with images as version 2, which a
// Hearth that would drop them refuses.
#include "app/storage/conversation_transfer.h"
#include <QByteArray>
#include <QJsonObject>

namespace hearth::app {

inline constexpr auto kHearthFormatName = "hearth-conversations";
inline constexpr int kHearthFormatVersion = 2;         // the newest, which this Hearth reads and writes
inline constexpr int kHearthFormatTextOnlyVersion = 1; // the first: no images

// The file's bytes for `conversations`; `settings` goes in as it is (empty: left out).
QByteArray conversationsToJson(const QList<ConversationBundle>& conversations,
                               const QJsonObject& settings = {});

// A time as the format writes it (null when invalid), and back (invalid when it is not one).
QString formatTime(const QDateTime& time);
QDateTime parseTime(const QString& text);

} // namespace hearth::app
