// A reply's Markdown as the chat shows it: Qt's import leaves a blockquote unstyled and a table
// with each cell's own frame (double lines); styleMarkdownDocument gives each its look, and
// leaves the inline code in list items in the fixed-pitch font the import gave it.
#include "app/chat/markdown_document_style.h"
#include <QFontDatabase>
#include <QGuiApplication>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

using namespace hearth;

namespace {

const char* const kReply = "Before.\n\n"
                           "> A quote\n> that goes on.\n\n"
                           "| name | size |\n|---|---|\n| a | 1 |\n\n"
                           "- use `std::vector` here\n- and `x` there\n";

const app::MarkdownDocumentStyle kStyle{QColor(0xee, 0xee, 0xf4), QColor(0x88, 0x88, 0x99)};

QTextTable* firstTable(QTextFrame* frame) {
    for (QTextFrame* child : frame->childFrames()) {
        if (auto* table = qobject_cast<QTextTable*>(child)) return table;
        if (QTextTable* inner = firstTable(child)) return inner;
    }
    return nullptr;
}

QList<QTextBlock> quoteBlocks(const QTextDocument& document) {
    QList<QTextBlock> blocks;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        if (block.blockFormat().intProperty(QTextFormat::BlockQuoteLevel) > 0) blocks << block;
    return blocks;
}

// The families of the fragments whose text is `code`.
QStringList familiesOf(const QTextDocument& document, const QString& code) {
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it)
            if (it.fragment().text() == code) return it.fragment().charFormat().fontFamilies().toStringList();
    return {QStringLiteral("<no fragment %1>").arg(code)};
}

} // namespace

class TestMarkdownDocumentStyle : public QObject {
    Q_OBJECT

private slots:
    void eachElementGetsItsLook() {
        QTextDocument document;
        document.setMarkdown(QString::fromUtf8(kReply));
        const QStringList fixed{QFontDatabase::systemFont(QFontDatabase::FixedFont).family()};

        // As imported: what the chat showed before.
        QTextTable* table = firstTable(document.rootFrame());
        QVERIFY(table);
        QVERIFY(!table->format().borderCollapse());
        QCOMPARE(quoteBlocks(document).size(), 1);
        QVERIFY(!quoteBlocks(document).constFirst().blockFormat().hasProperty(QTextFormat::BackgroundBrush));

        app::styleMarkdownDocument(document, kStyle);
        table = firstTable(document.rootFrame());
        QVERIFY(table);
        QVERIFY(table->format().borderCollapse());
        QCOMPARE(table->format().border(), 1.0);
        QCOMPARE(table->format().borderBrush().color(), kStyle.tableBorder);
        QCOMPARE(table->format().cellSpacing(), 0.0);
        const QList<QTextBlock> quotes = quoteBlocks(document);
        QCOMPARE(quotes.size(), 1);
        QCOMPARE(quotes.constFirst().blockFormat().background().color(), kStyle.quoteBackground);
        QVERIFY(quotes.constFirst().blockFormat().leftMargin() > 0);
        QCOMPARE(familiesOf(document, "std::vector"), fixed);
        QCOMPARE(familiesOf(document, "x"), fixed);
        QCOMPARE(document.toPlainText().count(QStringLiteral("std::vector")), 1); // text untouched

        // Styling again changes nothing (the QML side restyles on every change of the text).
        const QString html = document.toHtml();
        app::styleMarkdownDocument(document, kStyle);
        QCOMPARE(document.toHtml(), html);
    }
};

QTEST_MAIN(TestMarkdownDocumentStyle)
#include "test_markdown_document_style.moc"
