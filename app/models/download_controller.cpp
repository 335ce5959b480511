#include "app/models/download_controller.h"
#include "app/download/download.h"
#include "app/download/download_file_name.h"
#include "app/download/network_access.h"
#include "app/models/format.h"
#include "app/models/hf_search_pending_download.h"
#include "app/settings/app_settings.h"
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <qcoro/qcorofuture.h>

namespace hearth::app {

using download::Download;

namespace {

QString stateName(Download::State state) {
    switch (state) {
    case Download::State::Preparing:
        return QStringLiteral("preparing");
    case Download::State::Running:
        return QStringLiteral("running");
    case Download::State::Verifying:
        return QStringLiteral("verifying");
    case Download::State::Paused:
        return QStringLiteral("paused");
    case Download::State::Finished:
        return QStringLiteral("done");
    case Download::State::Failed:
        return QStringLiteral("failed");
    case Download::State::Idle:
    case Download::State::Cancelled:
        break;
    }
    return QStringLiteral("none");
}

// What is on disk for one entry when no download of it runs in this process.
struct LocalFile {
    QString id;
    QString fileName;
    QString projectorFileName = {}; // empty: the entry has no projector
    bool complete = false;
    qint64 partialBytes = 0;
};

// A catalog id for a file of a Hugging Face repository: "hf.owner.name.file.gguf" in
// the catalog's alphabet.
QString searchEntryId(const QString& repositoryId, const QString& path) {
    QString id = QStringLiteral("hf.") + repositoryId.toLower() + QLatin1Char('.') + path.toLower();
    for (QChar& c : id)
        if (!(c.isDigit() || (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || c == QLatin1Char('.') ||
              c == QLatin1Char('_') || c == QLatin1Char('-')))
            c = QLatin1Char('-');
    return id;
}

// The downloads_ key of an entry's projector file ('#' is not in the ids' alphabet), and back.
QString projectorKey(const QString& id) {
    return id + QStringLiteral("#mmproj");
}
QString entryIdOf(const QString& key) {
    return key.endsWith(QLatin1String("#mmproj")) ? key.chopped(7) : key;
}

// The status of an entry whose model and projector download at once: failed if either failed,
// under way while either is (the bytes of both), done when both are, paused if either is.
CatalogDownloadStatus combinedStatus(const CatalogDownloadStatus& model,
                                     const CatalogDownloadStatus& projector) {
    const auto active = [](const CatalogDownloadStatus& s) {
        return s.state == QLatin1String("preparing") || s.state == QLatin1String("running") ||
               s.state == QLatin1String("verifying");
    };
    if (model.state == QLatin1String("failed")) return model;
    if (projector.state == QLatin1String("failed")) return projector;
    CatalogDownloadStatus both = active(model) || !active(projector) ? model : projector;
    both.receivedBytes = model.receivedBytes + projector.receivedBytes;
    both.totalBytes =
        model.totalBytes >= 0 && projector.totalBytes >= 0 ? model.totalBytes + projector.totalBytes : -1;
    both.bytesPerSecond = model.bytesPerSecond + projector.bytesPerSecond;
    both.secondsLeft = std::max(model.secondsLeft, projector.secondsLeft);
    if (active(model) || active(projector)) return both;
    if (model.state == QLatin1String("done") && projector.state == QLatin1String("done")) return both;
    if (model.state == QLatin1String("paused") || projector.state == QLatin1String("paused")) {
        both.state = QStringLiteral("paused");
        return both;
    }
    both.state = model.state == QLatin1String("done") ? projector.state : model.state;
    return both;
}

CatalogEntry entryForSearchResult(const HfSearchRow& row, const QUrl& url) {
    CatalogEntry entry;
    entry.id = searchEntryId(row.repositoryId, row.file.path);
    entry.name = row.repositoryId + QLatin1Char('/') + row.file.path;
    entry.architecture = row.architecture;
    entry.quantization = row.file.quantization;
    entry.fileBytes = std::max<qint64>(0, row.file.bytes);
    // The weights and a modest context: a rough figure, as the page says ("≈").
    entry.memoryBytes = entry.fileBytes + entry.fileBytes / 5;
    entry.url = url;
    entry.sha256Hex = row.file.sha256Hex;
    return entry;
}

} // namespace

DownloadController::DownloadController(AppSettings* settings, QObject* parent)
    : QObject(parent), settings_(settings), network_(download::makeNetworkAccess()),
      search_(std::make_unique<HfSearchListModel>(network_.get())), hfApi_(network_.get()) {
    setCatalog(builtInModelCatalog());
    progressTimer_.setInterval(250);
    connect(&progressTimer_, &QTimer::timeout, this, &DownloadController::publishActive);
    connect(settings_, &AppSettings::modelsFolderChanged, this, [this] { refreshLocalFiles(); });
}

DownloadController::~DownloadController() {
    downloads_.clear();
}

QString DownloadController::physicalMemory() const {
    const qint64 bytes = physicalMemoryBytes();
    return bytes > 0 ? formatBytes(bytes) : QString();
}

void DownloadController::setCatalog(const CatalogParseResult& catalog) {
    downloads_.clear();
    apiSha256_.clear();
    checksumLookups_.clear();
    catalogError_ = catalog.error;
    catalog_.setEntries(catalog.entries, physicalMemoryBytes());
    emit catalogChanged();
}

void DownloadController::setHuggingFaceBaseUrl(const QUrl& baseUrl) {
    search_->setBaseUrl(baseUrl);
    hfApi_.setBaseUrl(baseUrl);
}

QByteArray DownloadController::expectedSha256(const QString& id) const {
    const CatalogEntry* entry = catalog_.entry(id);
    if (!entry) return {};
    return entry->sha256Hex.isEmpty() ? apiSha256_.value(id) : entry->sha256Hex;
}

Download* DownloadController::downloadFor(const QString& id) {
    const CatalogEntry* entry = catalog_.entry(id);
    if (!entry) return nullptr;
    auto found = downloads_.find(id);
    // A download made for another models folder, or before the digest was known, is not this one's.
    if (found != downloads_.end() && !found->second->isActive() &&
        (found->second->request().directory != settings_->modelsFolder() ||
         found->second->request().sha256Hex != expectedSha256(id))) {
        downloads_.erase(found);
        found = downloads_.end();
    }
    if (found != downloads_.end()) return found->second.get();

    download::DownloadRequest request;
    request.url = entry->url;
    request.directory = settings_->modelsFolder();
    request.fileName = entry->fileName();
    request.sha256Hex = expectedSha256(id);
    request.expectedBytes = entry->fileBytes;
    auto created = std::make_unique<Download>(network_.get(), request);
    Download* download = created.get();
    connect(download, &Download::stateChanged, this, [this, id, download](Download::State state) {
        publish(id);
        // A search download's record is needed only while a partial file may outlive the app.
        if ((state == Download::State::Finished || state == Download::State::Cancelled) &&
            id.startsWith(QLatin1String("hf.")))
            removePendingDownloadRecord(download->request().directory, download->fileName());
        if (state == Download::State::Finished) emit modelDownloaded(download->filePath());
        if (download->isActive()) progressTimer_.start();
    });
    connect(download, &Download::noteChanged, this, [this, id] { publish(id); });
    downloads_[id] = std::move(created);
    return download;
}

Download* DownloadController::projectorDownloadFor(const QString& id) {
    const CatalogEntry* entry = catalog_.entry(id);
    if (!entry || !entry->projector) return nullptr;
    const QString key = projectorKey(id);
    auto found = downloads_.find(key);
    if (found != downloads_.end() && !found->second->isActive() &&
        found->second->request().directory != settings_->modelsFolder()) {
        downloads_.erase(found);
        found = downloads_.end();
    }
    if (found != downloads_.end()) return found->second.get();

    download::DownloadRequest request;
    request.url = entry->projector->url;
    request.directory = settings_->modelsFolder();
    request.fileName = entry->projector->fileName;
    request.sha256Hex = entry->projector->sha256Hex;
    request.expectedBytes = entry->projector->fileBytes;
    auto created = std::make_unique<Download>(network_.get(), request);
    Download* download = created.get();
    connect(download, &Download::stateChanged, this, [this, id, download](Download::State state) {
        publish(id);
        // The model picker pairs it with the model on its rescan.
        if (state == Download::State::Finished) emit modelDownloaded(download->filePath());
        if (download->isActive()) progressTimer_.start();
    });
    connect(download, &Download::noteChanged, this, [this, id] { publish(id); });
    downloads_[key] = std::move(created);
    return download;
}

void DownloadController::download(const QString& id) {
    if (!catalog_.entry(id) || checksumLookups_.contains(id)) return;
    if (Download* projector = projectorDownloadFor(id)) projector->start();
    if (expectedSha256(id).isEmpty()) {
        const auto found = downloads_.find(id);
        if (found == downloads_.end() || !found->second->isActive()) startAfterChecksumLookup(id);
        return;
    }
    if (Download* download = downloadFor(id)) download->start();
}

QCoro::Task<> DownloadController::startAfterChecksumLookup(QString id) {
    const QPointer<DownloadController> self(this);
    const CatalogEntry* entry = catalog_.entry(id);
    const QString fileName = entry->fileName();
    const std::optional<download::HfFileLocation> location = download::hfFileLocation(entry->url);
    if (!location) {
        refuse(id,
               tr("Not downloaded: the catalog gives no SHA-256 for %1, and its address is not a "
                  "Hugging Face file whose SHA-256 could be asked for, so the file could not be verified.")
                   .arg(fileName));
        co_return;
    }
    checksumLookups_.insert(id);
    CatalogDownloadStatus asking;
    asking.state = QStringLiteral("preparing");
    asking.note = tr("asking Hugging Face for the file's SHA-256");
    catalog_.setStatus(id, asking);
    // Held in a variable, never awaited as a temporary (see Download::verifyExistingFile).
    QCoro::Task<download::HfFileChecksum> lookup = hfApi_.fileChecksum(*location);
    const download::HfFileChecksum found = co_await lookup;
    if (!self || !checksumLookups_.remove(id)) co_return; // gone, paused or cancelled meanwhile
    if (found.unanswered) {
        // The lost network first: it is what stopped the download, and what the user can mend.
        refuse(id, tr("Not downloaded: Hugging Face could not be reached (%1). Try again once this "
                      "computer is online; the SHA-256 that verifies %2 is asked of it first.")
                       .arg(found.error, fileName));
        co_return;
    }
    if (found.sha256Hex.isEmpty()) {
        refuse(id, tr("Not downloaded: the catalog gives no SHA-256 for %1 and Hugging Face gave none "
                      "either (%2), so the file could not be verified.")
                       .arg(fileName, found.error));
        co_return;
    }
    apiSha256_.insert(id, found.sha256Hex);
    if (Download* download = downloadFor(id)) download->start();
}

void DownloadController::refuse(const QString& id, const QString& message) {
    CatalogDownloadStatus status;
    status.state = QStringLiteral("failed");
    status.error = message;
    catalog_.setStatus(id, status);
}

QString DownloadController::downloadSearchResult(int row) {
    const HfSearchRow* found = search_->row(row);
    if (!found) return {};
    const CatalogEntry entry = entryForSearchResult(*found, search_->fileUrl(*found));
    if (!catalog_.entry(entry.id)) catalog_.appendEntry(entry);
    writePendingDownloadRecord(settings_->modelsFolder(), entry);
    download(entry.id);
    return entry.id;
}

void DownloadController::pause(const QString& id) {
    if (checksumLookups_.remove(id)) { // not started yet: back to what the disk holds
        catalog_.setStatus(id, {});
        refreshLocalFiles();
        return;
    }
    for (const QString& key : {id, projectorKey(id)})
        if (const auto found = downloads_.find(key); found != downloads_.end()) found->second->pause();
}

void DownloadController::cancel(const QString& id) {
    checksumLookups_.remove(id);
    if (Download* download = downloadFor(id)) download->cancel();
    if (Download* projector = projectorDownloadFor(id)) projector->cancel();
}

void DownloadController::publish(const QString& key) {
    const QString id = entryIdOf(key);
    const auto statusOf = [this](const QString& of) -> std::optional<CatalogDownloadStatus> {
        const auto found = downloads_.find(of);
        if (found == downloads_.end()) return std::nullopt;
        const Download& download = *found->second;
        CatalogDownloadStatus status;
        status.state = stateName(download.state());
        status.receivedBytes = download.receivedBytes();
        status.totalBytes = download.totalBytes();
        if (download.state() == Download::State::Running) {
            status.bytesPerSecond = download.bytesPerSecond();
            status.secondsLeft = download.secondsLeft();
        }
        status.error = download.state() == Download::State::Failed ? download.errorMessage() : QString();
        status.note = download.note();
        return status;
    };
    const std::optional<CatalogDownloadStatus> model = statusOf(id);
    const std::optional<CatalogDownloadStatus> projector = statusOf(projectorKey(id));
    if (!model && !projector) return;
    if (!projector) return catalog_.setStatus(id, *model);
    // The model's own download may not have been made yet (its digest asked of the API first).
    catalog_.setStatus(id, combinedStatus(model.value_or(catalog_.status(id)), *projector));
}

void DownloadController::publishActive() {
    bool anyActive = false;
    for (const auto& [id, download] : downloads_) {
        if (!download->isActive()) continue;
        anyActive = true;
        publish(id);
    }
    if (!anyActive) progressTimer_.stop();
}

QCoro::Task<> DownloadController::refreshLocalFiles() {
    const QPointer<DownloadController> self(this);
    QList<LocalFile> candidates;
    for (const CatalogEntry& entry : catalog_.entries())
        if (!downloads_.count(entry.id) && !downloads_.count(projectorKey(entry.id)) &&
            !checksumLookups_.contains(entry.id))
            candidates.append(
                {entry.id, entry.fileName(), entry.projector ? entry.projector->fileName : QString()});
    const QString folder = settings_->modelsFolder();
    // Looking at the disk is file I/O: off the GUI thread.
    struct OnDisk {
        QList<LocalFile> found;
        QList<CatalogEntry> pending; // search downloads left by an earlier run
    };
    QFuture<OnDisk> looking = QtConcurrent::run([folder, candidates] {
        OnDisk onDisk;
        onDisk.pending = readPendingDownloadRecords(folder);
        onDisk.found = candidates;
        for (const CatalogEntry& entry : onDisk.pending)
            onDisk.found.append({entry.id, entry.fileName()});
        const QDir dir(folder);
        for (LocalFile& local : onDisk.found) {
            local.complete = QFileInfo::exists(dir.filePath(local.fileName)) &&
                             (local.projectorFileName.isEmpty() ||
                              QFileInfo::exists(dir.filePath(local.projectorFileName)));
            for (const QString& name : {local.fileName, local.projectorFileName})
                if (!name.isEmpty())
                    local.partialBytes += QFileInfo(dir.filePath(download::partialFileName(name))).size();
        }
        return onDisk;
    });
    const OnDisk onDisk = co_await looking;
    if (!self || folder != settings_->modelsFolder()) co_return;
    for (const CatalogEntry& entry : onDisk.pending)
        if (!catalog_.entry(entry.id)) catalog_.appendEntry(entry);
    const QList<LocalFile>& found = onDisk.found;
    for (const LocalFile& local : found) {
        // Started meanwhile: it speaks for itself.
        if (downloads_.count(local.id) || downloads_.count(projectorKey(local.id)) ||
            checksumLookups_.contains(local.id))
            continue;
        CatalogDownloadStatus status;
        if (local.complete) {
            status.state = QStringLiteral("done");
        } else if (local.partialBytes > 0) {
            status.state = QStringLiteral("paused");
            status.receivedBytes = local.partialBytes;
            if (const CatalogEntry* entry = catalog_.entry(local.id))
                status.totalBytes = entry->fileBytes + (entry->projector ? entry->projector->fileBytes : 0);
            status.note = tr("partly downloaded earlier; resume to continue");
        }
        catalog_.setStatus(local.id, status);
    }
}

void DownloadController::setSpeedPredictor(const SpeedPredictor* predictor) {
    catalog_.setSpeedPredictor(predictor);
    search_->setSpeedPredictor(predictor);
}

} // namespace hearth::app
