#pragma once
// Gives a reply's Markdown TextEdit the chat's look for what Qt's import leaves plain
// (blockquotes, tables: app/chat/markdown_document_style.h), again whenever its text or the
// theme's colours change.
#include <QColor>
#include <QObject>
#include <QPointer>
#include <QQuickTextDocument>
#include <QtQml/qqmlregistration.h>

namespace hearth::gui {

class MarkdownStyler : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QQuickTextDocument* document READ document WRITE setDocument NOTIFY documentChanged)
    Q_PROPERTY(QColor quoteBackground MEMBER quoteBackground_ NOTIFY coloursChanged)
    Q_PROPERTY(QColor tableBorder MEMBER tableBorder_ NOTIFY coloursChanged)

public:
    explicit MarkdownStyler(QObject* parent = nullptr);

    [[nodiscard]] QQuickTextDocument* document() const { return document_; }
    void setDocument(QQuickTextDocument* document);

signals:
    void documentChanged();
    void coloursChanged();

private:
    void restyle();

    QPointer<QQuickTextDocument> document_;
    QMetaObject::Connection contentsConnection_;
    QColor quoteBackground_;
    QColor tableBorder_;
    bool styling_ = false; // the styling's own changes do not restyle again
};

} // namespace hearth::gui
