#pragma once
// One reply's Markdown as a list of blocks (paragraphs and fenced code) for the
// chat view, updated incrementally while the reply streams: blocks that something
// has followed are final and never touched again; only the text from the start of
// the last block is split again, and only blocks that changed are signalled, so
// the view re-lays out just the block being streamed.
#include "app/chat/markdown_blocks.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class MarkdownBlockModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by MessageListModel")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        KindRole = Qt::UserRole + 1, // QString: "text" or "code"
        BlockTextRole,               // QString: the prose (Markdown), or the code without its fences
        LanguageRole,                // QString: the fence's info string, code only
        ClosedRole,                  // bool: false for a code block still waiting for its closing fence
        // QString: BlockTextRole's text, except for the growing block (the last, of prose, while
        // the reply streams), whose is empty until it is final. A view shows the growing block's
        // text from BlockTextRole without a QML property in between (BlockTextFeed): QML keeps a
        // string property's every value on its garbage-collected heap, and the growing block
        // written there at every piece made the collector run mid-reply.
        SettledTextRole,
    };
    Q_ENUM(Role)

    explicit MarkdownBlockModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }
    [[nodiscard]] const QList<MarkdownBlock>& blocks() const { return rows_; }
    // Blocks final so far: they stay as they are however the text grows.
    [[nodiscard]] int finishedCount() const { return finished_; }

    // Whether the text still grows (a streaming reply): its last block, if prose, is the growing one.
    void setStreaming(bool streaming);
    [[nodiscard]] bool isGrowing(int row) const;

    // The whole text, split again from its start; still only changed blocks are signalled.
    void setMarkdown(const QString& markdown);
    // The whole text, which extends the last one given (a streamed reply): only its tail is
    // split again. The model keeps no copy of the text; the message record holds it.
    void extendMarkdown(const QString& markdown);

signals:
    void countChanged();

private:
    void splitTail(const QString& markdown);

    qsizetype tailStart_ = 0; // where the first block that may still change starts in the text
    int finished_ = 0;        // rows before the tail
    bool streaming_ = false;
    QList<MarkdownBlock> rows_;
};

} // namespace hearth::app
