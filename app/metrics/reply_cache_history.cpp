#include "app/metrics/reply_cache_history.h"
#include <algorithm>

namespace hearth::app {

ReplyCacheHistory::ReplyCacheHistory(int capacity, QObject* parent)
    : QAbstractListModel(parent), capacity_(std::max(1, capacity)) {}

int ReplyCacheHistory::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant ReplyCacheHistory::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Reply& r = rows_.at(index.row());
    switch (role) {
    case ReusedRole:
        return r.reused;
    case ComputedRole:
        return r.computed;
    case GeneratedRole:
        return r.generated;
    case RestoredRole:
        return r.restored;
    case NumberRole:
        return r.number;
    default:
        return {};
    }
}

QHash<int, QByteArray> ReplyCacheHistory::roleNames() const {
    return {{ReusedRole, "reused"},
            {ComputedRole, "computed"},
            {GeneratedRole, "generated"},
            {RestoredRole, "restored"},
            {NumberRole, "number"}};
}

int ReplyCacheHistory::peak() const {
    int peak = 1;
    for (const Reply& r : rows_)
        peak = std::max(peak, r.reused + r.computed);
    return peak;
}

void ReplyCacheHistory::record(const GenerationResult& result) {
    if (rows_.size() >= capacity_) {
        beginRemoveRows(QModelIndex(), 0, 0);
        rows_.removeFirst();
        endRemoveRows();
    }
    const int row = count();
    beginInsertRows(QModelIndex(), row, row);
    rows_.append({result.stats.reused_tokens, result.stats.computed_tokens, result.stats.generated_tokens,
                  result.resume.restored, ++recorded_});
    endInsertRows();
    emit changed();
}

void ReplyCacheHistory::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
    emit changed();
}

} // namespace hearth::app
