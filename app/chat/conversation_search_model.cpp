#include "app/chat/conversation_search_model.h"
#include "app/chat/conversation_list_model.h"

namespace hearth::app {

ConversationSearchModel::ConversationSearchModel(QObject* parent) : QSortFilterProxyModel(parent) {
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(this, signal, this, &ConversationSearchModel::countChanged);
    connect(this, &QAbstractItemModel::modelReset, this, &ConversationSearchModel::countChanged);
}

void ConversationSearchModel::setSearchText(const QString& text) {
    if (text == searchText_) return;
    searchText_ = text;
    invalidateRowsFilter();
    emit searchTextChanged();
    emit countChanged();
}

bool ConversationSearchModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QString needle = searchText_.trimmed();
    if (needle.isEmpty()) return true;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    return index.data(ConversationListModel::TitleRole).toString().contains(needle, Qt::CaseInsensitive);
}

QString ConversationSearchModel::idAt(int row) const {
    return index(row, 0).data(ConversationListModel::IdRole).toString();
}

} // namespace hearth::app
