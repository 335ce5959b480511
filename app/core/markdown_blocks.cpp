#include "app/core/markdown_blocks.h"
#include <QVariantMap>
#include <algorithm>

namespace hearth::app {

namespace {
// A fence is three or more backticks or tildes, indented at most three spaces.
bool isFence(const QString& line, QString* marker, QString* info) {
    const QString trimmed = line.trimmed();
    int indent = 0;
    while (indent < line.size() && line[indent] == QLatin1Char(' '))
        ++indent;
    if (indent > 3 || trimmed.size() < 3) return false;
    const QChar c = trimmed[0];
    if (c != QLatin1Char('`') && c != QLatin1Char('~')) return false;
    int n = 0;
    while (n < trimmed.size() && trimmed[n] == c)
        ++n;
    if (n < 3) return false;
    *marker = trimmed.left(n);
    *info = trimmed.mid(n).trimmed();
    return true;
}

// Longer prose is cut into several blocks, so that no single block is slow to lay out
// again (the GUI thread re-lays out the growing block on every streamed update).
constexpr qsizetype kMaxProseBlock = 1000;

// Where to cut `text` (longer than the limit): after the last line break, else after the
// last sentence end, else at the last space, before the limit. Depends only on the first
// kMaxProseBlock characters, so cuts already made stay put while a reply grows.
qsizetype cutPosition(const QString& text) {
    const QString head = text.left(kMaxProseBlock);
    if (const qsizetype nl = head.lastIndexOf(QLatin1Char('\n')); nl > kMaxProseBlock / 4) return nl + 1;
    qsizetype sentence = -1;
    for (const char* end : {". ", "? ", "! "})
        sentence = std::max(sentence, head.lastIndexOf(QLatin1String(end)));
    if (sentence > kMaxProseBlock / 4) return sentence + 2;
    if (const qsizetype space = head.lastIndexOf(QLatin1Char(' ')); space > kMaxProseBlock / 4)
        return space + 1;
    return kMaxProseBlock;
}

void flushText(QList<MarkdownBlock>& blocks, QStringList& lines) {
    QString text = lines.join(QLatin1Char('\n')).trimmed();
    lines.clear();
    while (text.size() > kMaxProseBlock) {
        const qsizetype cut = cutPosition(text);
        blocks.append({MarkdownBlock::Kind::Text, text.left(cut).trimmed(), QString(), true});
        text = text.mid(cut).trimmed();
    }
    if (!text.isEmpty()) blocks.append({MarkdownBlock::Kind::Text, text, QString(), true});
}
} // namespace

QList<MarkdownBlock> splitMarkdownBlocks(const QString& markdown) {
    QList<MarkdownBlock> blocks;
    QStringList pending;
    bool inCode = false;
    QString openMarker;
    MarkdownBlock code;
    QStringList codeLines;
    for (const QString& line : markdown.split(QLatin1Char('\n'))) {
        QString marker, info;
        const bool fence = isFence(line, &marker, &info);
        if (!inCode && fence) {
            flushText(blocks, pending);
            inCode = true;
            openMarker = marker;
            code = {MarkdownBlock::Kind::Code, QString(), info.section(QLatin1Char(' '), 0, 0), false};
            codeLines.clear();
        } else if (inCode && fence && info.isEmpty() && marker.at(0) == openMarker.at(0) &&
                   marker.size() >= openMarker.size()) {
            code.text = codeLines.join(QLatin1Char('\n'));
            code.closed = true;
            blocks.append(code);
            inCode = false;
        } else if (inCode) {
            codeLines.append(line);
        } else if (line.trimmed().isEmpty()) {
            // A blank line ends a paragraph: each paragraph is its own block, so while a
            // reply streams only its last paragraph is laid out again.
            flushText(blocks, pending);
        } else {
            pending.append(line);
        }
    }
    if (inCode) {
        code.text = codeLines.join(QLatin1Char('\n'));
        blocks.append(code);
    } else {
        flushText(blocks, pending);
    }
    return blocks;
}

QVariantList markdownBlocksForQml(const QString& markdown) {
    QVariantList list;
    for (const MarkdownBlock& b : splitMarkdownBlocks(markdown))
        list.append(QVariantMap{{"kind", b.kind == MarkdownBlock::Kind::Code ? "code" : "text"},
                                {"text", b.text},
                                {"language", b.language},
                                {"closed", b.closed}});
    return list;
}

} // namespace hearth::app
