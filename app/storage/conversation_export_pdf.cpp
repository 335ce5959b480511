#include "app/storage/conversation_export_pdf.h"
#include "app/storage/conversation_export_markdown.h"
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

namespace hearth::app {

namespace {
bool isCode(const QTextBlock& block) {
    const QTextBlockFormat format = block.blockFormat();
    return format.hasProperty(QTextFormat::BlockCodeFence) ||
           format.hasProperty(QTextFormat::BlockCodeLanguage) || block.charFormat().fontFixedPitch();
}

void shadeCodeBlocks(QTextDocument& document) {
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    QTextCursor cursor(&document);
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (!isCode(block)) continue;
        cursor.setPosition(block.position());
        QTextBlockFormat blockFormat = block.blockFormat();
        blockFormat.setBackground(QColor(0xf2, 0xf3, 0xf5));
        blockFormat.setNonBreakableLines(false); // long lines wrap on paper instead of being cut off
        cursor.setBlockFormat(blockFormat);
        cursor.setPosition(block.position() + block.length() - 1, QTextCursor::KeepAnchor);
        QTextCharFormat charFormat;
        charFormat.setFont(fixed, QTextCharFormat::FontPropertiesSpecifiedOnly);
        charFormat.setFontFixedPitch(true);
        cursor.mergeCharFormat(charFormat);
    }
}
} // namespace

void writeConversationsPdf(const QList<ConversationBundle>& conversations, const QString& path) {
    QTextDocument document;
    // HTML in a message is shown as the text it is, as the chat shows it: nothing is loaded.
    document.setMarkdown(conversationsToMarkdown(conversations),
                         QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                         QTextDocument::MarkdownNoHTML));
    shadeCodeBlocks(document);
    {
        QFile probe(path); // QPdfWriter says nothing of a file it cannot write
        if (!probe.open(QIODevice::WriteOnly))
            throw TransferError(
                ConversationExport::tr("%1: cannot write the PDF: %2").arg(path, probe.errorString()));
    }
    {
        QPdfWriter writer(path);
        writer.setCreator(QStringLiteral("Hearth"));
        if (conversations.size() == 1) writer.setTitle(conversations.constFirst().conversation.title);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(18, 18, 18, 18), QPageLayout::Millimeter);
        document.print(&writer);
    } // the file is complete once the writer is gone
    if (QFileInfo(path).size() == 0)
        throw TransferError(ConversationExport::tr("%1: the PDF could not be written").arg(path));
}

} // namespace hearth::app
