#pragma once
// Conversations as a PDF (A4), written by Qt's own PDF writer: the Markdown export
// (conversation_export_markdown.h) rendered by QTextDocument, code blocks in a fixed-pitch font
// on a shaded background. Safe off the GUI thread (no pixmaps).
#include "app/storage/conversation_transfer.h"

namespace hearth::app {

// Writes the PDF to `path`; throws TransferError naming the file when it cannot.
void writeConversationsPdf(const QList<ConversationBundle>& conversations, const QString& path);

} // namespace hearth::app
