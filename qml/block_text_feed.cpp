#include "qml/block_text_feed.h"

namespace hearth::gui {

BlockTextFeed::BlockTextFeed(QObject* parent) : QObject(parent) {}

void BlockTextFeed::setBlocks(QObject* blocks) {
    auto* model = qobject_cast<QAbstractItemModel*>(blocks);
    if (model == model_) return;
    for (const QMetaObject::Connection& c : std::as_const(connections_))
        disconnect(c);
    connections_.clear();
    model_ = model;
    role_ = model_ ? model_->roleNames().key(QByteArrayLiteral("blockText"), -1) : -1;
    if (model_) {
        connections_ << connect(model_, &QAbstractItemModel::dataChanged, this, &BlockTextFeed::onDataChanged)
                     << connect(model_, &QAbstractItemModel::modelReset, this, &BlockTextFeed::feed)
                     << connect(model_, &QAbstractItemModel::rowsInserted, this, &BlockTextFeed::feed)
                     << connect(model_, &QAbstractItemModel::rowsRemoved, this, &BlockTextFeed::feed);
    }
    emit blocksChanged();
    feed();
}

void BlockTextFeed::setRow(int row) {
    if (row == row_) return;
    row_ = row;
    emit rowChanged();
    feed();
}

void BlockTextFeed::setTarget(QObject* target) {
    if (target == target_) return;
    target_ = target;
    emit targetChanged();
    feed();
}

void BlockTextFeed::onDataChanged(const QModelIndex& first, const QModelIndex& last,
                                  const QList<int>& roles) {
    if (row_ < first.row() || row_ > last.row()) return;
    if (!roles.isEmpty() && role_ >= 0 && !roles.contains(role_)) return;
    feed();
}

void BlockTextFeed::feed() {
    if (model_ && role_ < 0) // a ListModel names its roles with its first row
        role_ = model_->roleNames().key(QByteArrayLiteral("blockText"), -1);
    if (!model_ || !target_ || role_ < 0 || row_ < 0 || row_ >= model_->rowCount()) return;
    target_->setProperty("text", model_->data(model_->index(row_, 0), role_));
}

} // namespace hearth::gui
