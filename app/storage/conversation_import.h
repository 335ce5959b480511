#pragma once
// Imports a conversation file into the database: Hearth's own JSON (conversation_export_json.h)
// or ChatGPT's data export (conversations.json), told apart by their shape. Every conversation
// gets new ids, so a file imported twice gives two copies and never touches what is there. The
// whole file is one transaction: a file that is bad anywhere leaves the database as it was.
// Every branch of each conversation is kept, and the one its file shows is the one chosen.
#include "app/storage/conversation_transfer.h"
#include <QCoreApplication>
#include <QHash>
#include <QStringList>
#include <functional>
#include <optional>

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
};

inline constexpr qint64 kMaxImportBytes = 256'000'000; // 256 MB

// Throws TransferError naming the file and where in it it is bad (a line and column for
// malformed JSON, the conversation and message for the rest), or StoreError.
ImportSummary importConversations(SqlStore& store, const QString& path, qint64 maxBytes = kMaxImportBytes);

// For the readers of each format: a conversation read whole, to insert.
using ConversationSink = std::function<void(const ConversationBundle&)>;

// "<file>: conversation <n> ("<title>")", where an error in one conversation lies (n from 1).
QString conversationPlace(const QString& path, qsizetype index, const QString& title);

// One node of a conversation's tree as a file has it.
struct ImportedNode {
    QString key;       // its id in the file
    QString parentKey; // "" for a root
    // nullopt: a node Hearth does not show (a system prompt, a tool's output): its children hang
    // on its nearest ancestor with a message.
    std::optional<MessageRecord> message;
    std::optional<bool> active; // the file's choice among its siblings, where it says
};

// The messages of a tree read from a file, under new ids in `conversationId`: parents before
// children (siblings in the order of `nodes`), positions in that order; chosen (active) along the
// path to `leafKey`, elsewhere the file's choice or the last sibling. Throws TransferError,
// prefixed by `where`, on a parent that is not there or a cycle.
QList<MessageRecord> messagesOfTree(const QList<ImportedNode>& nodes, const QString& leafKey,
                                    const QString& conversationId, const QString& where);

} // namespace hearth::app
