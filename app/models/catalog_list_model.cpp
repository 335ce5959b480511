#include "app/models/catalog_list_model.h"
#include "app/download/download_messages.h"
#include "app/models/format.h"

namespace hearth::app {

namespace {

QString memoryFitName(MemoryFit fit) {
    switch (fit) {
    case MemoryFit::Fits:
        return QStringLiteral("fits");
    case MemoryFit::Tight:
        return QStringLiteral("tight");
    case MemoryFit::TooLarge:
        return QStringLiteral("tooLarge");
    case MemoryFit::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

} // namespace

CatalogListModel::CatalogListModel(QObject* parent) : QAbstractListModel(parent) {}

int CatalogListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

QVariant CatalogListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const CatalogEntry& entry = entries_.at(index.row());
    const CatalogDownloadStatus& status = statuses_.at(index.row());
    switch (role) {
    case IdRole:
        return entry.id;
    case Qt::DisplayRole:
    case NameRole:
        return entry.name;
    case ArchitectureRole:
        return entry.architecture;
    case ParametersRole:
        return entry.parameters > 0 ? formatCount(entry.parameters) : QString();
    case QuantizationRole:
        return entry.quantization;
    case LicenceRole:
        return entry.licence;
    case FileSizeRole:
        return formatBytes(entry.fileBytes);
    case MemoryRole:
        return formatBytes(entry.memoryBytes);
    case RunnableRole:
        // A search result may not say; the model picker checks the file once it is here.
        return entry.architecture.isEmpty() || isRunnableArchitecture(entry.architecture);
    case MemoryFitRole:
        return memoryFitName(memoryFit(entry.memoryBytes, physicalMemoryBytes_));
    case ChecksumKnownRole:
        return !entry.sha256Hex.isEmpty();
    case DownloadStateRole:
        return status.state;
    case ProgressRole:
        if (status.state == QLatin1String("done")) return 1.0;
        return status.totalBytes > 0 ? double(status.receivedBytes) / double(status.totalBytes) : -1.0;
    case TransferRole:
        return status.state == QLatin1String("none")
                   ? QString()
                   : download::describeProgress(status.receivedBytes, status.totalBytes, 0, -1);
    case SpeedRole:
        return status.bytesPerSecond > 0
                   ? QStringLiteral("%1/s").arg(download::formatByteCount(qint64(status.bytesPerSecond)))
                   : QString();
    case TimeLeftRole:
        return download::formatTimeLeft(status.secondsLeft);
    case ErrorRole:
        return status.error;
    case NoteRole:
        return status.note;
    case PredictionRole: {
        if (!speed_) return QString();
        const auto cost = SpeedPredictor::approximateCost(entry.fileBytes, entry.parameters,
                                                          entry.activeParameters, entry.quantization);
        return cost ? speed_->describe(*cost, memoryFit(entry.memoryBytes, physicalMemoryBytes_)) : QString();
    }
    case DraftIdRole:
        return entry.draftId;
    case DraftNameRole:
        for (const CatalogEntry& other : entries_)
            if (!entry.draftId.isEmpty() && other.id == entry.draftId) return other.name;
        return QString();
    case DraftStateRole:
        return entry.draftId.isEmpty() ? QString() : CatalogListModel::status(entry.draftId).state;
    case ProjectorSizeRole:
        return entry.projector ? formatBytes(entry.projector->fileBytes) : QString();
    default:
        return {};
    }
}

QHash<int, QByteArray> CatalogListModel::roleNames() const {
    return {{IdRole, "catalogId"},
            {NameRole, "name"},
            {ArchitectureRole, "architecture"},
            {ParametersRole, "parameters"},
            {QuantizationRole, "quantization"},
            {LicenceRole, "licence"},
            {FileSizeRole, "fileSize"},
            {MemoryRole, "memory"},
            {RunnableRole, "runnable"},
            {MemoryFitRole, "memoryFit"},
            {ChecksumKnownRole, "checksumKnown"},
            {DownloadStateRole, "downloadState"},
            {ProgressRole, "progress"},
            {TransferRole, "transfer"},
            {SpeedRole, "speed"},
            {TimeLeftRole, "timeLeft"},
            {ErrorRole, "error"},
            {NoteRole, "note"},
            {PredictionRole, "prediction"},
            {DraftIdRole, "draftId"},
            {DraftNameRole, "draftName"},
            {DraftStateRole, "draftState"},
            {ProjectorSizeRole, "projectorSize"}};
}

void CatalogListModel::setEntries(QList<CatalogEntry> entries, qint64 physicalMemoryBytes) {
    beginResetModel();
    entries_ = std::move(entries);
    statuses_ = QList<CatalogDownloadStatus>(entries_.size());
    physicalMemoryBytes_ = physicalMemoryBytes;
    endResetModel();
    emit countChanged();
}

void CatalogListModel::appendEntry(const CatalogEntry& entry) {
    const int row = static_cast<int>(entries_.size());
    beginInsertRows(QModelIndex(), row, row);
    entries_.append(entry);
    statuses_.append(CatalogDownloadStatus());
    endInsertRows();
    emit countChanged();
}

void CatalogListModel::setStatus(const QString& id, const CatalogDownloadStatus& status) {
    for (int row = 0; row < entries_.size(); ++row) {
        if (entries_[row].id != id) continue;
        statuses_[row] = status;
        emit dataChanged(index(row), index(row));
        // The entries it drafts for show its state too.
        for (int target = 0; target < entries_.size(); ++target)
            if (entries_[target].draftId == id)
                emit dataChanged(index(target), index(target), {DraftStateRole});
        return;
    }
}

void CatalogListModel::setSpeedPredictor(const SpeedPredictor* predictor) {
    if (speed_) disconnect(speed_, nullptr, this, nullptr);
    speed_ = predictor;
    if (speed_)
        connect(speed_, &SpeedPredictor::limitsChanged, this, [this] {
            if (!entries_.isEmpty()) emit dataChanged(index(0), index(rowCount() - 1), {PredictionRole});
        });
}

const CatalogEntry* CatalogListModel::entry(const QString& id) const {
    for (const CatalogEntry& entry : entries_)
        if (entry.id == id) return &entry;
    return nullptr;
}

CatalogDownloadStatus CatalogListModel::status(const QString& id) const {
    for (int row = 0; row < entries_.size(); ++row)
        if (entries_[row].id == id) return statuses_[row];
    return {};
}

} // namespace hearth::app
