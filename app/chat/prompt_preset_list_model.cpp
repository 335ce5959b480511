#include "app/chat/prompt_preset_list_model.h"

namespace hearth::app {

int PromptPresetListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant PromptPresetListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const PromptPreset& p = rows_.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return p.name;
    case IdRole:
        return p.id;
    case PromptRole:
        return p.prompt;
    case BuiltInRole:
        return p.builtIn;
    default:
        return {};
    }
}

QHash<int, QByteArray> PromptPresetListModel::roleNames() const {
    return {{IdRole, "presetId"}, {NameRole, "name"}, {PromptRole, "prompt"}, {BuiltInRole, "builtIn"}};
}

void PromptPresetListModel::setPresets(QList<PromptPreset> presets) {
    beginResetModel();
    rows_ = std::move(presets);
    endResetModel();
    emit countChanged();
    changed();
}

void PromptPresetListModel::append(const PromptPreset& preset) {
    const int row = static_cast<int>(rows_.size());
    beginInsertRows({}, row, row);
    rows_.append(preset);
    endInsertRows();
    emit countChanged();
    changed();
}

bool PromptPresetListModel::update(const PromptPreset& preset) {
    const int row = indexOf(preset.id);
    if (row < 0) return false;
    rows_[row].name = preset.name;
    rows_[row].prompt = preset.prompt;
    emit dataChanged(index(row), index(row), {Qt::DisplayRole, NameRole, PromptRole});
    changed();
    return true;
}

bool PromptPresetListModel::remove(const QString& id) {
    const int row = indexOf(id);
    if (row < 0) return false;
    beginRemoveRows({}, row, row);
    rows_.removeAt(row);
    endRemoveRows();
    emit countChanged();
    changed();
    return true;
}

void PromptPresetListModel::changed() {
    ++revision_;
    emit revisionChanged();
}

int PromptPresetListModel::indexOf(const QString& id) const {
    for (int row = 0; row < rows_.size(); ++row)
        if (rows_.at(row).id == id) return row;
    return -1;
}

const PromptPreset* PromptPresetListModel::find(const QString& id) const {
    const int row = indexOf(id);
    return row < 0 ? nullptr : &rows_.at(row);
}

QString PromptPresetListModel::idAt(int row) const {
    return row >= 0 && row < rows_.size() ? rows_.at(row).id : QString();
}

QString PromptPresetListModel::nameOf(const QString& id) const {
    const PromptPreset* preset = find(id);
    return preset ? preset->name : QString();
}

QString PromptPresetListModel::promptOf(const QString& id) const {
    const PromptPreset* preset = find(id);
    return preset ? preset->prompt : QString();
}

} // namespace hearth::app
