#include "app/chat/markdown_document_style.h"
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

namespace hearth::app {

namespace {

constexpr qreal kQuoteIndent = 12; // px per level of quoting

void styleTables(QTextFrame* frame, const MarkdownDocumentStyle& style) {
    for (QTextFrame* child : frame->childFrames()) {
        if (auto* table = qobject_cast<QTextTable*>(child)) {
            QTextTableFormat format = table->format();
            format.setBorderCollapse(true);
            format.setBorder(1);
            format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
            format.setBorderBrush(style.tableBorder);
            format.setCellSpacing(0);
            format.setCellPadding(4);
            table->setFormat(format);
        }
        styleTables(child, style);
    }
}

} // namespace

void styleMarkdownDocument(QTextDocument& document, const MarkdownDocumentStyle& style) {
    QTextCursor cursor(&document);
    cursor.beginEditBlock();
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        const int level = block.blockFormat().intProperty(QTextFormat::BlockQuoteLevel);
        if (level > 0) {
            QTextBlockFormat quote;
            quote.setBackground(style.quoteBackground);
            quote.setLeftMargin(kQuoteIndent * level);
            cursor.setPosition(block.position());
            cursor.mergeBlockFormat(quote);
        }
    }
    styleTables(document.rootFrame(), style);
    cursor.endEditBlock();
}

} // namespace hearth::app
