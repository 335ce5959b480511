#pragma once
// Splits a (possibly still streaming) Markdown reply into paragraphs of prose and
// fenced code blocks, so the chat view can draw code in a monospace box with a
// copy button, and re-lay out only the growing last block while a reply streams.
#include <QList>
#include <QString>

namespace hearth::app {

struct MarkdownBlock {
    enum class Kind { Text, Code };
    Kind kind = Kind::Text;
    QString text;       // the prose, or the code without its fences
    QString language;   // the fence's info string ("cpp"), code blocks only
    bool closed = true; // false for a code block whose closing fence has not streamed in yet
};

QList<MarkdownBlock> splitMarkdownBlocks(const QString& markdown);
// The same, also giving where each block's source starts in `markdown`: its opening fence,
// or the first line of its paragraph (the pieces a long paragraph is cut into share it).
// Splitting again from such a start gives the same blocks from there on.
QList<MarkdownBlock> splitMarkdownBlocks(const QString& markdown, QList<qsizetype>* starts);
bool operator==(const MarkdownBlock& a, const MarkdownBlock& b);

} // namespace hearth::app
