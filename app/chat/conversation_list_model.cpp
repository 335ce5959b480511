#include "app/chat/conversation_list_model.h"
#include <algorithm>

namespace hearth::app {

QString periodOf(const QDateTime& time, const QDate& today) {
    const qint64 days = time.date().daysTo(today);
    if (days <= 0) return QStringLiteral("Today");
    if (days == 1) return QStringLiteral("Yesterday");
    if (days < 7) return QStringLiteral("Previous 7 days");
    return QStringLiteral("Older");
}

ConversationListModel::ConversationListModel(QObject* parent) : QAbstractListModel(parent) {}

int ConversationListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant ConversationListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const ConversationRecord& row = rows_.at(index.row());
    switch (role) {
    case IdRole:
        return row.id;
    case Qt::DisplayRole:
    case TitleRole:
        return row.title;
    case UpdatedAtRole:
        return row.updatedAt;
    case PeriodRole:
        return periodOf(row.updatedAt, QDate::currentDate());
    default:
        return {};
    }
}

QHash<int, QByteArray> ConversationListModel::roleNames() const {
    return {{IdRole, "conversationId"},
            {TitleRole, "title"},
            {UpdatedAtRole, "updatedAt"},
            {PeriodRole, "period"}};
}

void ConversationListModel::setConversations(QList<ConversationRecord> conversations) {
    std::stable_sort(conversations.begin(), conversations.end(),
                     [](const auto& a, const auto& b) { return a.updatedAt > b.updatedAt; });
    beginResetModel();
    rows_ = std::move(conversations);
    endResetModel();
    emit countChanged();
}

void ConversationListModel::prepend(const ConversationRecord& conversation) {
    beginInsertRows(QModelIndex(), 0, 0);
    rows_.prepend(conversation);
    endInsertRows();
    emit countChanged();
}

bool ConversationListModel::rename(const QString& id, const QString& title) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].title = title;
    emit dataChanged(index(row), index(row), {TitleRole, Qt::DisplayRole});
    return true;
}

bool ConversationListModel::remove(const QString& id) {
    const int row = indexOf(id);
    if (row < 0) return false;
    beginRemoveRows(QModelIndex(), row, row);
    rows_.removeAt(row);
    endRemoveRows();
    emit countChanged();
    return true;
}

bool ConversationListModel::touch(const QString& id, const QDateTime& time) {
    const int row = indexOf(id);
    if (row < 0) return false;
    rows_[row].updatedAt = time;
    emit dataChanged(index(row), index(row), {UpdatedAtRole, PeriodRole});
    if (row > 0) {
        beginMoveRows(QModelIndex(), row, row, QModelIndex(), 0);
        rows_.move(row, 0);
        endMoveRows();
    }
    return true;
}

int ConversationListModel::indexOf(const QString& id) const {
    for (int i = 0; i < rows_.size(); ++i)
        if (rows_[i].id == id) return i;
    return -1;
}

const ConversationRecord* ConversationListModel::find(const QString& id) const {
    const int row = indexOf(id);
    return row < 0 ? nullptr : &rows_[row];
}

QString ConversationListModel::idAt(int row) const {
    return row >= 0 && row < rows_.size() ? rows_[row].id : QString();
}

} // namespace hearth::app
