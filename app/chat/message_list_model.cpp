#include "app/chat/message_list_model.h"
#include <algorithm>

namespace hearth::app {

MessageListModel::MessageListModel(const QString& conversationId, QObject* parent)
    : QAbstractListModel(parent), conversationId_(conversationId) {}

int MessageListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const MessageRecord& row = rows_.at(index.row());
    switch (role) {
    case IdRole:
        return row.id;
    case AuthorRole:
        return roleName(row.role);
    case Qt::DisplayRole:
    case ContentRole:
        return row.content;
    case StateRole:
        return messageStateName(row.state);
    case StreamingRole:
        return row.state == MessageState::Streaming;
    case StatsRole:
        return stats_.value(row.id);
    case BlocksRole:
        return QVariant::fromValue<QObject*>(blocksOf(row));
    case OutOfViewRole:
        return index.row() < firstInViewRow();
    case ContextBoundaryRole:
        return index.row() > 0 && index.row() == firstInViewRow();
    default:
        return {};
    }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
    return {
        {IdRole, "messageId"},       {AuthorRole, "author"},       {ContentRole, "content"},
        {StateRole, "messageState"}, {StreamingRole, "streaming"}, {StatsRole, "stats"},
        {BlocksRole, "blocks"},      {OutOfViewRole, "outOfView"}, {ContextBoundaryRole, "contextBoundary"}};
}

MarkdownBlockModel* MessageListModel::blocksOf(const MessageRecord& row) const {
    if (row.role == chat::Role::User) return nullptr; // shown as typed, not as Markdown
    MarkdownBlockModel*& blocks = blockModels_[row.id];
    if (!blocks) {
        blocks = new MarkdownBlockModel(const_cast<MessageListModel*>(this));
        blocks->setMarkdown(row.content);
    }
    return blocks;
}

void MessageListModel::updateBlocks(const MessageRecord& row) {
    if (MarkdownBlockModel* blocks = blockModels_.value(row.id)) blocks->setMarkdown(row.content);
}

void MessageListModel::dropBlocks(const QString& id) {
    // Later: the view may still hold the model while its delegate goes.
    if (MarkdownBlockModel* blocks = blockModels_.take(id)) blocks->deleteLater();
}

int MessageListModel::indexOf(const QString& id) const {
    for (int i = static_cast<int>(rows_.size()) - 1; i >= 0; --i) // the streaming reply is last
        if (rows_[i].id == id) return i;
    return -1;
}

const MessageRecord* MessageListModel::find(const QString& id) const {
    const int row = indexOf(id);
    return row < 0 ? nullptr : &rows_[row];
}

void MessageListModel::setMessages(QList<MessageRecord> messages) {
    beginResetModel();
    firstInView_.clear();
    for (const QString& id : blockModels_.keys())
        dropBlocks(id);
    rows_ = std::move(messages);
    endResetModel();
    emit countChanged();
}

void MessageListModel::append(const MessageRecord& message) {
    const int row = static_cast<int>(rows_.size());
    beginInsertRows(QModelIndex(), row, row);
    rows_.append(message);
    endInsertRows();
    emit countChanged();
}

bool MessageListModel::appendText(const QString& id, const QString& text) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].content += text;
    // The blocks model signals its own changes: BlocksRole stays the same object.
    if (MarkdownBlockModel* blocks = blockModels_.value(rows_[row].id))
        blocks->extendMarkdown(rows_[row].content);
    emit dataChanged(index(row), index(row), {ContentRole, Qt::DisplayRole});
    return true;
}

bool MessageListModel::setContent(const QString& id, const QString& text) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].content = text;
    updateBlocks(rows_[row]);
    emit dataChanged(index(row), index(row), {ContentRole, Qt::DisplayRole});
    return true;
}

bool MessageListModel::setState(const QString& id, MessageState state) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].state = state;
    emit dataChanged(index(row), index(row), {StateRole, StreamingRole});
    return true;
}

bool MessageListModel::setStats(const QString& id, const QString& stats) {
    const int row = indexOf(id);
    if (row < 0) return false;
    stats_.insert(id, stats);
    emit dataChanged(index(row), index(row), {StatsRole});
    return true;
}

int MessageListModel::firstInViewRow() const {
    return firstInView_.isEmpty() ? 0 : std::max(0, indexOf(firstInView_));
}

void MessageListModel::setFirstInView(const QString& messageId) {
    const int before = firstInViewRow();
    firstInView_ = messageId;
    const int after = firstInViewRow();
    if (before == after) return;
    // Rows from the first to the larger boundary change their out-of-view flag.
    emit dataChanged(index(0), index(std::max(before, after)), {OutOfViewRole, ContextBoundaryRole});
}

QList<MessageRecord> MessageListModel::removeFrom(int row) {
    if (row < 0 || row >= rows_.size()) return {};
    const int last = static_cast<int>(rows_.size()) - 1;
    beginRemoveRows(QModelIndex(), row, last);
    QList<MessageRecord> removed = rows_.mid(row);
    rows_.remove(row, last - row + 1);
    endRemoveRows();
    for (const auto& m : removed) {
        stats_.remove(m.id);
        dropBlocks(m.id);
        if (m.id == firstInView_) firstInView_.clear(); // the next reply says where the view starts
    }
    emit countChanged();
    return removed;
}

} // namespace hearth::app
