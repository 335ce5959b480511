#pragma once
// Conversations as a PDF (A4), written by Qt's own PDF writer: the Markdown export
// (conversation_export_markdown.h) rendered by QTextDocument, code blocks in a fixed-pitch font
// on a shaded background, each image a message shows drawn where the Markdown names it, scaled down
// to the page's width (one that does not decode written as its name). Safe off the GUI thread
// (QTextDocument draws images, not pixmaps, there).
#include "app/storage/conversation_transfer.h"

namespace hearth::app {

// Writes the PDF to `path`; throws TransferError naming the file when it cannot.
void writeConversationsPdf(const QList<ConversationBundle>& conversations, const QString& path);

} // namespace hearth::app
