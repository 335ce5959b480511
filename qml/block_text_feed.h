#pragma once
// Shows the growing block of a streaming reply: writes a block's text from its model (the role
// "blockText") straight into a Text item's text at every change, with no QML property in
// between. QML keeps each value a string property takes on its garbage-collected heap; a
// growing paragraph written there at every piece made the collector mark the whole window's
// objects mid-reply (3-11 ms each time). MarkdownBlockModel's settledText stays empty for that
// block meanwhile, so no delegate property is written either.
#include <QAbstractItemModel>
#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

namespace hearth::gui {

class BlockTextFeed : public QObject {
    Q_OBJECT
    QML_ELEMENT
    // A model with the role "blockText" (MarkdownBlockModel, or a ListModel in a test).
    Q_PROPERTY(QObject* blocks READ blocks WRITE setBlocks NOTIFY blocksChanged)
    Q_PROPERTY(int row READ row WRITE setRow NOTIFY rowChanged)
    // The item whose `text` property shows the block.
    Q_PROPERTY(QObject* target READ target WRITE setTarget NOTIFY targetChanged)

public:
    explicit BlockTextFeed(QObject* parent = nullptr);

    [[nodiscard]] QObject* blocks() const { return model_; }
    void setBlocks(QObject* blocks);
    [[nodiscard]] int row() const { return row_; }
    void setRow(int row);
    [[nodiscard]] QObject* target() const { return target_; }
    void setTarget(QObject* target);

signals:
    void blocksChanged();
    void rowChanged();
    void targetChanged();

private:
    void feed();
    void onDataChanged(const QModelIndex& first, const QModelIndex& last, const QList<int>& roles);

    QPointer<QAbstractItemModel> model_;
    QList<QMetaObject::Connection> connections_;
    QPointer<QObject> target_;
    int row_ = -1;
    int role_ = -1; // the model's "blockText" role
};

} // namespace hearth::gui
