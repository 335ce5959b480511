#include "app/models/hf_search_list_model.h"
#include "app/download/download_messages.h"
#include "app/models/format.h"
#include "app/models/model_fit.h"
#include "app/models/speed_predictor.h"
#include <QPointer>

namespace hearth::app {

HfSearchListModel::HfSearchListModel(QNetworkAccessManager* network, QObject* parent)
    : QAbstractListModel(parent), searcher_(network) {}

int HfSearchListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant HfSearchListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const HfSearchRow& row = rows_.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case FileNameRole:
        return row.file.path;
    case RepositoryRole:
        return row.repositoryId;
    case FileSizeRole:
        return row.file.bytes >= 0 ? download::formatByteCount(row.file.bytes) : QString();
    case QuantizationRole:
        return row.file.quantization;
    case ArchitectureRole:
        return row.architecture;
    case RunnableRole:
        return row.architecture.isEmpty() || isRunnableArchitecture(row.architecture);
    case ChecksumKnownRole:
        return !row.file.sha256Hex.isEmpty();
    case DownloadsRole:
        return formatCount(row.downloads);
    case FirstOfRepositoryRole:
        return row.firstOfRepository;
    case PredictionRole: {
        if (!speed_) return QString();
        const auto cost = SpeedPredictor::approximateCost(row.file.bytes, 0, 0, row.file.quantization);
        // The file's size is the weights' memory; the context's is not known here.
        return cost ? speed_->describe(*cost, memoryFit(row.file.bytes, physicalMemoryBytes())) : QString();
    }
    default:
        return {};
    }
}

QHash<int, QByteArray> HfSearchListModel::roleNames() const {
    return {{RepositoryRole, "repository"},
            {FileNameRole, "fileName"},
            {FileSizeRole, "fileSize"},
            {QuantizationRole, "quantization"},
            {ArchitectureRole, "architecture"},
            {RunnableRole, "runnable"},
            {ChecksumKnownRole, "checksumKnown"},
            {DownloadsRole, "downloads"},
            {FirstOfRepositoryRole, "firstOfRepository"},
            {PredictionRole, "prediction"}};
}

void HfSearchListModel::setSpeedPredictor(const SpeedPredictor* predictor) {
    if (speed_) disconnect(speed_, nullptr, this, nullptr);
    speed_ = predictor;
    if (speed_)
        connect(speed_, &SpeedPredictor::limitsChanged, this, [this] {
            if (!rows_.isEmpty()) emit dataChanged(index(0), index(rowCount() - 1), {PredictionRole});
        });
}

void HfSearchListModel::search(const QString& text) {
    searchAndWait(text);
}

QCoro::Task<> HfSearchListModel::searchAndWait(QString text) {
    const QPointer<HfSearchListModel> self(this);
    const quint64 generation = ++generation_;
    setBusy(true);
    QCoro::Task<download::HfSearchResult> searching = searcher_.search(text, repositoryLimit_);
    const download::HfSearchResult result = co_await searching;
    if (!self || generation != generation_) co_return; // gone, or a newer search speaks now
    showResult(text, result);
    setBusy(false);
}

void HfSearchListModel::showResult(const QString& text, const download::HfSearchResult& result) {
    beginResetModel();
    rows_.clear();
    for (const download::HfRepository& repository : result.repositories) {
        for (const download::HfModelFile& file : repository.files) {
            HfSearchRow row;
            row.file = file;
            row.repositoryId = repository.id;
            row.architecture = repository.architecture;
            row.downloads = repository.downloads;
            row.firstOfRepository = &file == &repository.files.first();
            rows_.append(row);
        }
    }
    endResetModel();
    error_ = result.error;
    if (error_.isEmpty() && rows_.isEmpty())
        error_ = tr("no GGUF models found for \"%1\"").arg(text.simplified());
    problems_ = result.problems.join(QLatin1Char('\n'));
    searchedFor_ = text.simplified();
    emit countChanged();
    emit finished();
}

void HfSearchListModel::setBusy(bool busy) {
    if (busy_ == busy) return;
    busy_ = busy;
    emit busyChanged();
}

const HfSearchRow* HfSearchListModel::row(int index) const {
    return index >= 0 && index < rows_.size() ? &rows_.at(index) : nullptr;
}

QUrl HfSearchListModel::fileUrl(const HfSearchRow& row) const {
    return download::hfFileUrl(searcher_.baseUrl(), row.repositoryId, row.file.path);
}

} // namespace hearth::app
