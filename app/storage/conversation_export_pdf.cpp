#include "app/storage/conversation_export_pdf.h"
#include "app/storage/conversation_export_markdown.h"
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHash>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFragment>
#include <QUrl>
#include <algorithm>

// The resolution QTextDocument measures an image's pixels in (Qt's own, from the screen): what
// an image drawn on a printer is scaled by, as its text is.
Q_GUI_EXPORT int qt_defaultDpiY();

namespace hearth::app {

namespace {
// A4 with 18 mm margins: the pages, and the room an image may take on them.
QPageLayout pageLayout() {
    return QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(18, 18, 18, 18),
                       QPageLayout::Millimeter);
}

// The largest an image is drawn, in QTextDocument's units: the page inside its margins and the
// 2 cm that QTextDocument::print adds on every side, a little less for rounding.
QSizeF imageRoom(const QPageLayout& layout) {
    constexpr qreal kPrintMarginInches = 2 / 2.54;
    const QRectF page = layout.paintRect(QPageLayout::Inch);
    const qreal dpi = qt_defaultDpiY();
    return {(page.width() - 2 * kPrintMarginInches) * dpi - 2,
            (page.height() - 2 * kPrintMarginInches) * dpi * 0.9}; // room for its heading
}

// The pictures of the messages the export shows, decoded, by their Markdown address, and the
// names they came with; a picture that does not decode has a name but no image.
struct Pictures {
    QHash<QString, QImage> images;
    QHash<QString, QString> names;
};

Pictures picturesOf(const QList<ConversationBundle>& conversations) {
    Pictures pictures;
    for (const ConversationBundle& bundle : conversations)
        for (const MessageRecord& m : chosenPath(bundle.messages))
            for (const MessageImage& image : m.images) {
                const QString address = imageAddress(image);
                if (pictures.names.contains(address)) continue;
                pictures.names.insert(address, image.name);
                const QImage decoded = QImage::fromData(image.bytes);
                if (!decoded.isNull()) pictures.images.insert(address, decoded);
            }
    return pictures;
}

// Draws each picture where the Markdown names it, scaled down to fit `room`; a picture that does
// not decode is written as its name.
void placePictures(QTextDocument& document, const Pictures& pictures, const QSizeF& room) {
    for (auto it = pictures.images.cbegin(); it != pictures.images.cend(); ++it)
        document.addResource(QTextDocument::ImageResource, QUrl(it.key()), it.value());
    struct Placed {
        int position;
        int length;
        QTextImageFormat format;
    };
    QList<Placed> placed;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        for (auto fragment = block.begin(); !fragment.atEnd(); ++fragment) {
            const QTextFragment f = fragment.fragment();
            if (f.charFormat().isImageFormat())
                placed.append({f.position(), f.length(), f.charFormat().toImageFormat()});
        }
    QTextCursor cursor(&document);
    for (auto it = placed.crbegin(); it != placed.crend(); ++it) { // from the end: positions hold
        cursor.setPosition(it->position);
        cursor.setPosition(it->position + it->length, QTextCursor::KeepAnchor);
        const QString address = it->format.name();
        const auto image = pictures.images.constFind(address);
        if (image == pictures.images.constEnd()) {
            if (pictures.names.contains(address))
                cursor.insertText(ConversationExport::tr("[image: %1]").arg(pictures.names.value(address)));
            continue;
        }
        const QSizeF size = image->size();
        const qreal scale = std::min({1.0, room.width() / size.width(), room.height() / size.height()});
        QTextImageFormat format = it->format;
        format.setWidth(size.width() * scale);
        format.setHeight(size.height() * scale);
        cursor.setCharFormat(format);
    }
}

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
    const QPageLayout layout = pageLayout();
    QTextDocument document;
    // HTML in a message is shown as the text it is, as the chat shows it: nothing is loaded.
    document.setMarkdown(conversationsToMarkdown(conversations),
                         QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                         QTextDocument::MarkdownNoHTML));
    shadeCodeBlocks(document);
    placePictures(document, picturesOf(conversations), imageRoom(layout));
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
        writer.setPageLayout(layout);
        document.print(&writer);
    } // the file is complete once the writer is gone
    if (QFileInfo(path).size() == 0)
        throw TransferError(ConversationExport::tr("%1: the PDF could not be written").arg(path));
}

} // namespace hearth::app
