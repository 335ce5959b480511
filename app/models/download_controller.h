#pragma once
// The models page's catalog and downloads, seen from QML: the recommended models
// (the built-in catalog), and for each a download into the models folder that can
// be paused, resumed (also after a restart of the app: the NAME.part file left in
// the folder is picked up) and cancelled. A finished file is announced so that the
// model picker rescans and shows it. A file found by the Hugging Face search joins
// the list as an entry of its own when its download starts. Every download is
// verified by SHA-256: an entry without one asks Hugging Face's API for the file's
// (its LFS digest) before starting, and is refused in plain words when there is none. A vision
// model's image projector (CatalogEntry::projector) is downloaded with it: the entry's status is
// that of both files, done when both are.
#include "app/download/hugging_face_search.h"
#include "app/models/catalog_list_model.h"
#include "app/models/hf_search_list_model.h"
#include <QMap>
#include <QObject>
#include <QSet>
#include <QTimer>
#include <QtQml/qqmlregistration.h>
#include <map>
#include <memory>
#include <qcoro/qcorotask.h>

class QNetworkAccessManager;

namespace hearth::download {
class Download;
}

namespace hearth::app {

class AppSettings;

class DownloadController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(hearth::app::CatalogListModel* catalog READ catalog CONSTANT)
    Q_PROPERTY(QString catalogError READ catalogError NOTIFY catalogChanged)
    Q_PROPERTY(QString physicalMemory READ physicalMemory CONSTANT)
    Q_PROPERTY(hearth::app::HfSearchListModel* search READ search CONSTANT)

public:
    explicit DownloadController(AppSettings* settings, QObject* parent = nullptr);
    ~DownloadController() override; // stops transfers; their partial files stay for the next run

    [[nodiscard]] CatalogListModel* catalog() { return &catalog_; }
    [[nodiscard]] HfSearchListModel* search() { return search_.get(); }
    // The catalog's and the search's rows show its speed predictions.
    void setSpeedPredictor(const SpeedPredictor* predictor);
    [[nodiscard]] QString catalogError() const { return catalogError_; }
    [[nodiscard]] QString physicalMemory() const;

    // Replaces the catalog (the built-in one at construction; tests give their own).
    void setCatalog(const CatalogParseResult& catalog);
    // Where Hugging Face's API is asked, for the search and for missing checksums
    // (https://huggingface.co; tests point it at a server on loopback).
    void setHuggingFaceBaseUrl(const QUrl& baseUrl);

    // Starts a catalog entry's download, or resumes it.
    Q_INVOKABLE void download(const QString& id);
    Q_INVOKABLE void pause(const QString& id);
    // Adds a file of the search's results to the list (once) and starts its download;
    // returns its entry's id, empty when the row does not exist.
    Q_INVOKABLE QString downloadSearchResult(int row);
    // Stops it and deletes what was downloaded so far.
    Q_INVOKABLE void cancel(const QString& id);

    // Marks entries whose file (done) or partial file (paused) is in the models folder.
    QCoro::Task<> refreshLocalFiles();

signals:
    void catalogChanged();
    // A file was downloaded and verified into the models folder.
    void modelDownloaded(const QString& path);

private:
    download::Download* downloadFor(const QString& id);
    // The entry's projector download (a key of downloads_ of its own); null when it has none.
    download::Download* projectorDownloadFor(const QString& id);
    // The digest the entry's download is verified with: the catalog's, else the API's.
    [[nodiscard]] QByteArray expectedSha256(const QString& id) const;
    QCoro::Task<> startAfterChecksumLookup(QString id);
    void refuse(const QString& id, const QString& message);
    // The catalog status of the entry a downloads_ key belongs to (its model and projector).
    void publish(const QString& key);
    void publishActive();

    AppSettings* settings_;
    std::unique_ptr<QNetworkAccessManager> network_;
    CatalogListModel catalog_;
    std::unique_ptr<HfSearchListModel> search_;
    QString catalogError_;
    std::map<QString, std::unique_ptr<download::Download>> downloads_; // by catalog id (projectorKey)
    download::HuggingFaceSearch hfApi_;                                // for the checksums the catalog lacks
    QMap<QString, QByteArray> apiSha256_;                              // by catalog id: digests the API gave
    QSet<QString> checksumLookups_; // ids waiting for the API; pause or cancel drops them
    QTimer progressTimer_;          // speed and time left, a few times a second, not per network chunk
};

} // namespace hearth::app
