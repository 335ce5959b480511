#pragma once
// Conversations as one Markdown document: per conversation its title as a heading and its
// dates, then each message under a line naming who wrote it (and the model, for a reply) and
// when; replies are Markdown already and go in as they are. An image a message shows comes before
// its text, as Markdown's image naming it: `![photo.png](sha256:<hex>)`, the address being the
// SHA-256 that names the picture in Hearth's JSON export and in the database (a Markdown viewer
// shows the name). Conversations are separated by a horizontal rule. The PDF export renders this
// same text, with the pictures themselves.
#include "app/storage/conversation_transfer.h"
#include <QCoreApplication>

namespace hearth::app {

// The exports' words, from free functions, are translated in this one context.
struct ConversationExport {
    Q_DECLARE_TR_FUNCTIONS(hearth::app::ConversationExport)
};

QString conversationsToMarkdown(const QList<ConversationBundle>& conversations);

// Where the Markdown points for an image: "sha256:" and its SHA-256.
QString imageAddress(const MessageImage& image);

} // namespace hearth::app
