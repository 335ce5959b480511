#include "app/chat/markdown_blocks.h"
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

void flushText(QList<MarkdownBlock>& blocks, QList<qsizetype>& starts, QStringList& lines, qsizetype start) {
    QString text = lines.join(QLatin1Char('\n')).trimmed();
    lines.clear();
    while (text.size() > kMaxProseBlock) {
        const qsizetype cut = cutPosition(text);
        blocks.append({MarkdownBlock::Kind::Text, text.left(cut).trimmed(), QString(), true});
        starts.append(start);
        text = text.mid(cut).trimmed();
    }
    if (!text.isEmpty()) {
        blocks.append({MarkdownBlock::Kind::Text, text, QString(), true});
        starts.append(start);
    }
}
} // namespace

bool operator==(const MarkdownBlock& a, const MarkdownBlock& b) {
    return a.kind == b.kind && a.closed == b.closed && a.text == b.text && a.language == b.language;
}

QList<MarkdownBlock> splitMarkdownBlocks(const QString& markdown) {
    QList<qsizetype> starts;
    return splitMarkdownBlocks(markdown, &starts);
}

QList<MarkdownBlock> splitMarkdownBlocks(const QString& markdown, QList<qsizetype>* starts) {
    QList<MarkdownBlock> blocks;
    starts->clear();
    QStringList pending;
    qsizetype pendingStart = 0; // where the paragraph in `pending` starts
    bool inCode = false;
    QString openMarker;
    MarkdownBlock code;
    qsizetype codeStart = 0;
    QStringList codeLines;
    qsizetype lineStart = 0;
    for (const QString& line : markdown.split(QLatin1Char('\n'))) {
        const qsizetype at = lineStart;
        lineStart += line.size() + 1;
        QString marker, info;
        const bool fence = isFence(line, &marker, &info);
        if (!inCode && fence) {
            flushText(blocks, *starts, pending, pendingStart);
            codeStart = at;
            inCode = true;
            openMarker = marker;
            code = {MarkdownBlock::Kind::Code, QString(), info.section(QLatin1Char(' '), 0, 0), false};
            codeLines.clear();
        } else if (inCode && fence && info.isEmpty() && marker.at(0) == openMarker.at(0) &&
                   marker.size() >= openMarker.size()) {
            code.text = codeLines.join(QLatin1Char('\n'));
            code.closed = true;
            blocks.append(code);
            starts->append(codeStart);
            inCode = false;
        } else if (inCode) {
            codeLines.append(line);
        } else if (line.trimmed().isEmpty()) {
            // A blank line ends a paragraph: each paragraph is its own block, so while a
            // reply streams only its last paragraph is laid out again.
            flushText(blocks, *starts, pending, pendingStart);
        } else {
            if (pending.isEmpty()) pendingStart = at;
            pending.append(line);
        }
    }
    if (inCode) {
        code.text = codeLines.join(QLatin1Char('\n'));
        blocks.append(code);
        starts->append(codeStart);
    } else {
        flushText(blocks, *starts, pending, pendingStart);
    }
    return blocks;
}

} // namespace hearth::app
