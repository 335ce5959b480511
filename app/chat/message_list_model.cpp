#include "app/chat/message_list_model.h"
#include "app/chat/message_images.h"
#include "app/chat/tool_calls.h"
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
    case SettledContentRole:
        return row.state == MessageState::Streaming ? QString() : row.content;
    case HasContentRole:
        return !row.content.isEmpty();
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
    case VersionRole:
        return static_cast<int>(children_.value(parentKey(row)).indexOf(row.id)) + 1;
    case VersionCountRole:
        return versionCount(row.id);
    case ToolCallsRole:
        return row.role == chat::Role::Assistant ? toolCallsForView(row.toolData) : QVariantList();
    case ToolResultRole:
        return row.role == chat::Role::Tool ? toolResultForView(row.toolData) : QVariantMap();
    case ImagesRole:
        return imagesForView(row.images);
    default:
        return {};
    }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
    return {{IdRole, "messageId"},
            {AuthorRole, "author"},
            {ContentRole, "content"},
            {StateRole, "messageState"},
            {StreamingRole, "streaming"},
            {StatsRole, "stats"},
            {BlocksRole, "blocks"},
            {OutOfViewRole, "outOfView"},
            {ContextBoundaryRole, "contextBoundary"},
            {VersionRole, "version"},
            {VersionCountRole, "versionCount"},
            {ToolCallsRole, "toolCalls"},
            {ToolResultRole, "toolResult"},
            {ImagesRole, "images"},
            {SettledContentRole, "settledContent"},
            {HasContentRole, "hasContent"}};
}

MarkdownBlockModel* MessageListModel::blocksOf(const MessageRecord& row) const {
    // The user's shown as typed, a tool's result as it came, not as Markdown.
    if (row.role == chat::Role::User || row.role == chat::Role::Tool) return nullptr;
    MarkdownBlockModel*& blocks = blockModels_[row.id];
    if (!blocks) {
        blocks = new MarkdownBlockModel(const_cast<MessageListModel*>(this));
        blocks->setStreaming(row.state == MessageState::Streaming);
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

QString MessageListModel::parentKey(const MessageRecord& m) const {
    return nodes_.contains(m.parentId) ? m.parentId : QString();
}

int MessageListModel::versionCount(const QString& id) const {
    const auto it = nodes_.constFind(id);
    return it == nodes_.constEnd() ? 0 : static_cast<int>(children_.value(parentKey(*it)).size());
}

void MessageListModel::syncRows() {
    for (const MessageRecord& m : std::as_const(rows_))
        nodes_.insert(m.id, m);
}

QList<MessageRecord> MessageListModel::tree() const {
    QList<MessageRecord> all;
    all.reserve(order_.size());
    for (const QString& id : order_) {
        const int row = indexOf(id);
        all.append(row >= 0 ? rows_.at(row) : nodes_.value(id));
    }
    return all;
}

QList<MessageRecord> MessageListModel::pathFrom(const QString& id) const {
    QList<MessageRecord> path;
    QString next = id;
    while (!next.isEmpty() && path.size() < nodes_.size()) { // no cycle makes it longer than the tree
        path.append(nodes_.value(next));
        const QStringList kids = children_.value(next);
        next = kids.isEmpty() ? QString() : kids.constLast();
        for (const QString& kid : kids)
            if (nodes_.value(kid).active) next = kid;
    }
    return path;
}

void MessageListModel::setMessages(const QList<MessageRecord>& tree) {
    beginResetModel();
    firstInView_.clear();
    for (const QString& id : blockModels_.keys())
        dropBlocks(id);
    nodes_.clear();
    children_.clear();
    order_.clear();
    for (const MessageRecord& m : tree) {
        nodes_.insert(m.id, m);
        order_.append(m.id);
    }
    for (const MessageRecord& m : tree)
        children_[parentKey(m)].append(m.id);
    rows_ = chosenPath(tree);
    endResetModel();
    emit countChanged();
}

void MessageListModel::append(const MessageRecord& message) {
    MessageRecord m = message;
    m.active = true;
    const QString parent = parentKey(m);
    for (const QString& sibling : children_.value(parent))
        nodes_[sibling].active = false;
    nodes_.insert(m.id, m);
    children_[parent].append(m.id);
    order_.append(m.id);
    const int row = static_cast<int>(rows_.size());
    beginInsertRows(QModelIndex(), row, row);
    rows_.append(m);
    endInsertRows();
    emit countChanged();
}

QString MessageListModel::switchVersion(const QString& id, int step) {
    const int row = indexOf(id);
    if (row < 0) return {};
    const QString parent = parentKey(rows_.at(row));
    QStringList& siblings = children_[parent];
    const qsizetype to = siblings.indexOf(id) + step;
    if (step == 0 || to < 0 || to >= siblings.size()) return {};
    const QString chosen = siblings.at(to);
    syncRows();
    for (const QString& sibling : std::as_const(siblings))
        nodes_[sibling].active = sibling == chosen;
    QList<MessageRecord> path = rows_.mid(0, row);
    path.append(pathFrom(chosen));
    showPath(std::move(path));
    return chosen;
}

void MessageListModel::showPath(QList<MessageRecord> path) {
    if (!firstInView_.isEmpty() && std::none_of(path.cbegin(), path.cend(), [this](const MessageRecord& m) {
            return m.id == firstInView_;
        }))
        setFirstInView(QString()); // where the model's view starts was said of another branch
    const int before = static_cast<int>(rows_.size());
    const int after = static_cast<int>(path.size());
    int firstChanged = -1, lastChanged = -1;
    for (int row = 0; row < std::min(before, after); ++row) {
        if (rows_.at(row).id == path.at(row).id) continue;
        dropBlocks(rows_.at(row).id);
        rows_[row] = path.at(row);
        if (firstChanged < 0) firstChanged = row;
        lastChanged = row;
    }
    if (firstChanged >= 0) emit dataChanged(index(firstChanged), index(lastChanged));
    if (after > before) {
        beginInsertRows(QModelIndex(), before, after - 1);
        rows_.append(path.mid(before));
        endInsertRows();
    } else if (after < before) {
        beginRemoveRows(QModelIndex(), after, before - 1);
        const QList<MessageRecord> gone = rows_.mid(after);
        rows_.remove(after, before - after);
        endRemoveRows();
        for (const MessageRecord& m : gone)
            dropBlocks(m.id);
    }
    if (after != before) emit countChanged();
}

bool MessageListModel::appendText(const QString& id, const QString& text) {
    const int row = indexOf(id);
    if (row < 0) return false;
    const bool hadContent = !rows_[row].content.isEmpty();
    rows_[row].content += text;
    // The blocks model signals its own changes: BlocksRole stays the same object.
    if (MarkdownBlockModel* blocks = blockModels_.value(rows_[row].id))
        blocks->extendMarkdown(rows_[row].content);
    QList<int> roles{ContentRole, Qt::DisplayRole};
    if (rows_[row].state != MessageState::Streaming) roles.append(SettledContentRole);
    if (!hadContent && !text.isEmpty()) roles.append(HasContentRole);
    emit dataChanged(index(row), index(row), roles);
    return true;
}

bool MessageListModel::setContent(const QString& id, const QString& text) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].content = text;
    updateBlocks(rows_[row]);
    emit dataChanged(index(row), index(row),
                     {ContentRole, Qt::DisplayRole, SettledContentRole, HasContentRole});
    return true;
}

bool MessageListModel::setState(const QString& id, MessageState state) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].state = state;
    if (MarkdownBlockModel* blocks = blockModels_.value(rows_[row].id))
        blocks->setStreaming(state == MessageState::Streaming);
    // The settled content first: a view that acts when streaming ends reads it then.
    emit dataChanged(index(row), index(row), {SettledContentRole});
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

bool MessageListModel::setToolData(const QString& id, const QString& toolData) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].toolData = toolData;
    emit dataChanged(index(row), index(row), {ToolCallsRole, ToolResultRole});
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
    syncRows(); // the rows stay in the tree as they are now
    const int last = static_cast<int>(rows_.size()) - 1;
    beginRemoveRows(QModelIndex(), row, last);
    QList<MessageRecord> removed = rows_.mid(row);
    rows_.remove(row, last - row + 1);
    endRemoveRows();
    for (const auto& m : removed) {
        dropBlocks(m.id);
        if (m.id == firstInView_) firstInView_.clear(); // the next reply says where the view starts
    }
    emit countChanged();
    return removed;
}

} // namespace hearth::app
