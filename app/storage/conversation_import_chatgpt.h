#pragma once
// Reads ChatGPT's data export, conversations.json: an array of conversations, each with "title",
// "create_time" and "update_time" (seconds since 1970), "mapping" (node id -> {message, parent,
// children}) and "current_node". A conversation is the path from the root to "current_node":
// the user's and the assistant's messages with text ("text" and "multimodal_text" parts joined,
// "code" as a code block); system, tool and hidden nodes and empty messages are left out, and so
// are the other branches (counted in the summary).
#include "app/storage/conversation_import.h"
#include <QJsonArray>

namespace hearth::app {

void readChatGptConversations(const QJsonArray& conversations, const QString& path,
                              const ConversationSink& insert, ImportSummary& summary);

} // namespace hearth::app
