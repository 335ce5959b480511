#include "qml/markdown_styler.h"
#include "app/chat/markdown_document_style.h"
#include <QTextDocument>

namespace hearth::gui {

MarkdownStyler::MarkdownStyler(QObject* parent) : QObject(parent) {
    connect(this, &MarkdownStyler::coloursChanged, this, &MarkdownStyler::restyle);
}

void MarkdownStyler::setDocument(QQuickTextDocument* document) {
    if (document == document_) return;
    disconnect(contentsConnection_);
    document_ = document;
    if (document_ && document_->textDocument())
        contentsConnection_ = connect(document_->textDocument(), &QTextDocument::contentsChanged, this,
                                      &MarkdownStyler::restyle);
    emit documentChanged();
    restyle();
}

void MarkdownStyler::restyle() {
    if (styling_ || !document_ || !document_->textDocument()) return;
    styling_ = true;
    app::styleMarkdownDocument(*document_->textDocument(), {quoteBackground_, tableBorder_});
    styling_ = false;
}

} // namespace hearth::gui
