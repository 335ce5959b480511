#include "app/core/model_list_model.h"
#include "app/core/format.h"

namespace hearth::app {

ModelListModel::ModelListModel(QObject* parent) : QAbstractListModel(parent) {}

int ModelListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant ModelListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const ModelEntry& row = rows_.at(index.row());
    switch (role) {
    case PathRole:
        return row.path;
    case Qt::DisplayRole:
    case NameRole:
        return row.name;
    case ArchitectureRole:
        return row.architecture;
    case QuantizationRole:
        return row.quantization;
    case ParametersRole:
        return row.parameters > 0 ? formatCount(row.parameters) : QString();
    case FileSizeRole:
        return formatBytes(row.fileBytes);
    case MemoryRole:
        return row.estimatedBytes > 0 ? formatBytes(row.estimatedBytes) : QString();
    case ContextLengthRole:
        return row.contextLength;
    case ChatTemplateRole:
        return row.hasChatTemplate;
    case RecentRole:
        return row.recent;
    case ErrorRole:
        return row.error;
    case LoadedRole:
        return !loadedPath_.isEmpty() && row.path == loadedPath_;
    default:
        return {};
    }
}

QHash<int, QByteArray> ModelListModel::roleNames() const {
    return {{PathRole, "path"},
            {NameRole, "name"},
            {ArchitectureRole, "architecture"},
            {QuantizationRole, "quantization"},
            {ParametersRole, "parameters"},
            {FileSizeRole, "fileSize"},
            {MemoryRole, "memory"},
            {ContextLengthRole, "contextLength"},
            {ChatTemplateRole, "hasChatTemplate"},
            {RecentRole, "recent"},
            {ErrorRole, "error"},
            {LoadedRole, "loaded"}};
}

void ModelListModel::setEntries(QList<ModelEntry> entries) {
    beginResetModel();
    rows_ = std::move(entries);
    endResetModel();
    emit countChanged();
}

void ModelListModel::setLoadedPath(const QString& path) {
    if (path == loadedPath_) return;
    loadedPath_ = path;
    if (!rows_.isEmpty()) emit dataChanged(index(0), index(static_cast<int>(rows_.size()) - 1), {LoadedRole});
}

int ModelListModel::indexOf(const QString& path) const {
    for (int i = 0; i < rows_.size(); ++i)
        if (rows_[i].path == path) return i;
    return -1;
}

} // namespace hearth::app
