#pragma once
// Conversations as one Markdown document: per conversation its title as a heading and its
// dates, then each message under a line naming who wrote it (and the model, for a reply) and
// when; replies are Markdown already and go in as they are. Conversations are separated by a
// horizontal rule. The PDF export renders this same text.
#include "app/storage/conversation_transfer.h"
#include <QCoreApplication>

namespace hearth::app {

// The exports' words, from free functions, are translated in this one context.
struct ConversationExport {
    Q_DECLARE_TR_FUNCTIONS(hearth::app::ConversationExport)
};

QString conversationsToMarkdown(const QList<ConversationBundle>& conversations);

} // namespace hearth::app
