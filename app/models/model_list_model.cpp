#include "app/models/model_list_model.h"
#include "app/models/format.h"
#include "app/models/model_fit.h"
#include "app/models/speed_predictor.h"
#include <QDir>
#include <QFileInfo>
#include <algorithm>

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
    case WarningRole:
        return row.warnings.join(QLatin1Char('\n'));
    case DistinctionRole:
        return distinction(index.row());
    case GpuMemoryRole:
        return row.gpuChosen && row.gpuLayers > 0 ? formatBytes(row.gpuBytes) : QString();
    case GpuFitRole:
        if (!row.gpuChosen || !row.error.isEmpty()) return QString();
        if (row.gpuLayers == 0) return QStringLiteral("none");
        return row.gpuLayers == row.layerCount ? QStringLiteral("whole") : QStringLiteral("partial");
    case GpuLayersRole:
        return row.gpuLayers;
    case LayerCountRole:
        return row.layerCount;
    case PredictionRole:
        if (!speed_ || !row.speedCost || !row.error.isEmpty()) return QString();
        return speed_->describe(*row.speedCost, memoryFit(row.estimatedBytes, physicalMemoryBytes()));
    case VisionProjectorRole:
        return row.visionProjector;
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
            {LoadedRole, "loaded"},
            {WarningRole, "warning"},
            {DistinctionRole, "distinction"},
            {GpuMemoryRole, "gpuMemory"},
            {GpuFitRole, "gpuFit"},
            {GpuLayersRole, "gpuLayers"},
            {LayerCountRole, "layerCount"},
            {PredictionRole, "prediction"},
            {VisionProjectorRole, "visionProjector"}};
}

QString ModelListModel::distinction(int row) const {
    const ModelEntry& self = rows_.at(row);
    QList<const ModelEntry*> twins;
    for (const ModelEntry& other : rows_)
        if (&other != &self && other.name == self.name) twins.append(&other);
    if (twins.isEmpty()) return {};
    const auto differs = [&](auto field) {
        for (const ModelEntry* twin : twins)
            if (field(*twin) != field(self)) return true;
        return false;
    };
    QStringList parts;
    if (!self.quantization.isEmpty() && differs([](const ModelEntry& e) { return e.quantization; }))
        parts << self.quantization;
    if (self.parameters > 0 && differs([](const ModelEntry& e) { return e.parameters; }))
        parts << tr("%1 params").arg(formatCount(self.parameters));
    if (differs([](const ModelEntry& e) { return e.fileBytes; })) parts << formatBytes(self.fileBytes);
    // The same file in two places: only the folder tells them apart, as many of its last
    // parts as it takes (two folders named "models" said nothing).
    if (parts.isEmpty()) {
        QStringList twinFolders;
        for (const ModelEntry* twin : twins)
            twinFolders << QFileInfo(twin->path).absolutePath();
        parts << tellingFolder(QFileInfo(self.path).absolutePath(), twinFolders);
    }
    return parts.join(QStringLiteral(" · "));
}

QString ModelListModel::tellingFolder(const QString& folder, const QStringList& others) {
    // The home folder as "~", as a file manager's path bar shows it.
    const auto partsOf = [](const QString& path) {
        const QString home = QDir::homePath();
        QString shown = QDir::cleanPath(path);
        if (shown == home || shown.startsWith(home + QLatin1Char('/')))
            shown = QLatin1Char('~') + shown.mid(home.size());
        return shown.split(QLatin1Char('/'));
    };
    const QStringList mine = partsOf(folder);
    QList<QStringList> theirs;
    for (const QString& other : others)
        theirs << partsOf(other);
    for (qsizetype count = 1; count < mine.size(); ++count) {
        const QStringList tail = mine.mid(mine.size() - count);
        const bool shared = std::any_of(theirs.cbegin(), theirs.cend(), [&](const QStringList& other) {
            return other.size() >= count && other.mid(other.size() - count) == tail;
        });
        if (!shared) return tail.join(QLatin1Char('/'));
    }
    return mine.join(QLatin1Char('/')); // the whole path: "/" or one folder inside another's
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

void ModelListModel::setSpeedPredictor(const SpeedPredictor* predictor) {
    if (speed_) disconnect(speed_, nullptr, this, nullptr);
    speed_ = predictor;
    if (speed_)
        connect(speed_, &SpeedPredictor::limitsChanged, this, [this] {
            if (!rows_.isEmpty()) emit dataChanged(index(0), index(rowCount() - 1), {PredictionRole});
        });
}

} // namespace hearth::app
