#pragma once
// Imports a conversation file into the database: Hearth's own JSON (conversation_export_json.h)
// or ChatGPT's data export (conversations.json), told apart by their shape. Every conversation
// gets new ids, so a file imported twice gives two copies and never touches what is there. The
// whole file is one transaction: a file that is bad anywhere leaves the database as it was. Only
// the path to each conversation's current message is kept (the database holds no branches yet);
// the summary counts the messages left out.
#include "app/storage/conversation_transfer.h"
#include <QCoreApplication>
#include <QHash>
#include <QStringList>
#include <functional>

namespace hearth::app {

class SqlStore;

// The import's messages, from free functions, are translated in this one context.
struct ConversationImport {
    Q_DECLARE_TR_FUNCTIONS(hearth::app::ConversationImport)
};

struct ImportSummary {
    QString format;               // "Hearth" or "ChatGPT"
    int conversations = 0;        // imported
    int messages = 0;             // imported
    int skippedConversations = 0; // that held no message Hearth shows
    int droppedMessages = 0;      // on other branches than each conversation's current one
};

inline constexpr qint64 kMaxImportBytes = qint64(256) << 20;

// Throws TransferError naming the file and where in it it is bad (a line and column for
// malformed JSON, the conversation and message for the rest), or StoreError.
ImportSummary importConversations(SqlStore& store, const QString& path, qint64 maxBytes = kMaxImportBytes);

// For the readers of each format: a conversation read whole, to insert.
using ConversationSink = std::function<void(const ConversationBundle&)>;

// "<file>: conversation <n> ("<title>")", where an error in one conversation lies (n from 1).
QString conversationPlace(const QString& path, qsizetype index, const QString& title);

// The ids from the root to `leaf`, following `parentOf` (an empty parent is the root); throws
// TransferError, prefixed by `where`, on an id that is not there or a cycle.
QStringList pathFromRoot(const QHash<QString, QString>& parentOf, const QString& leaf, const QString& where);

} // namespace hearth::app
