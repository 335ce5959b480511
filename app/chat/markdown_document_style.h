#pragma once
// What Qt's Markdown import leaves plain in a reply's document, styled as a chat app draws it:
// a blockquote gets a tinted background and an indent, and a table single borders in the
// theme's colour (Qt draws each cell's own frame: double lines).
#include <QColor>

class QTextDocument;

namespace hearth::app {

struct MarkdownDocumentStyle {
    QColor quoteBackground;
    QColor tableBorder;
};

void styleMarkdownDocument(QTextDocument& document, const MarkdownDocumentStyle& style);

} // namespace hearth::app
