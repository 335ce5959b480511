#pragma once
// Reads ChatGPT's data export, conversations.json: an array of conversations, each with "title",
// "create_time" and "update_time" (seconds since 1970), "mapping" (node id -> {message, parent,
// children}) and "current_node". A conversation is its tree of the user's and the assistant's
// messages with text ("text" and "multimodal_text" parts joined, "code" as a code block), every
// branch kept (edits and regenerated replies), the path to "current_node" chosen; system, tool
// and hidden nodes and empty messages are left out, their children hung on their parents.
#include "app/storage/conversation_import.h"
#include <QJsonArray>

namespace hearth::app {

void readChatGptConversations(const QJsonArray& conversations, const QString& path,
                              const ConversationSink& insert, ImportSummary& summary);

} // namespace hearth::app
