#pragma once
// Splits a (possibly still streaming) Markdown reply into paragraphs of prose and
// fenced code blocks, so the chat view can draw code in a monospace box with a
// copy button, and re-lay out only the growing last block while a reply streams.
#include <QString>
#include <QVariantList>

namespace hearth::app {

struct MarkdownBlock {
    enum class Kind { Text, Code };
    Kind kind = Kind::Text;
    QString text;       // the prose, or the code without its fences
    QString language;   // the fence's info string ("cpp"), code blocks only
    bool closed = true; // false for a code block whose closing fence has not streamed in yet
};

QList<MarkdownBlock> splitMarkdownBlocks(const QString& markdown);
// The same as a list of maps {kind: "text"|"code", text, language, closed} for QML.
QVariantList markdownBlocksForQml(const QString& markdown);

} // namespace hearth::app
