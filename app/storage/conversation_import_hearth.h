#pragma once
// Reads Hearth's own conversation file (conversation_export_json.h): refuses another format or a
// version it does not know, checks every field (each picture's bytes against its SHA-256 too), and
// hands each conversation, every branch with the path to its current leaf chosen, to `insert`.
#include "app/storage/conversation_import.h"
#include <QJsonObject>

namespace hearth::app {

void readHearthConversations(const QJsonObject& root, const QString& path, const ConversationSink& insert,
                             ImportSummary& summary);

} // namespace hearth::app
