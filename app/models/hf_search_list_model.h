#pragma once
// The models page's Hugging Face search, seen from QML: one row per GGUF file of
// each repository found (the first file of a repository carries its heading), with
// size, quantization and whether this engine reads the architecture. A newer search
// replaces an older one still under way; its late answer is dropped.
#include "app/download/hugging_face_search.h"
#include "app/models/speed_predictor.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>
#include <qcoro/qcorotask.h>

namespace hearth::app {

// One file of a search result, with the repository it belongs to.
struct HfSearchRow {
    download::HfModelFile file;
    QString repositoryId;
    QString architecture; // empty when Hugging Face did not say
    qint64 downloads = 0;
    bool firstOfRepository = false;
};

class HfSearchListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by DownloadController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    Q_PROPERTY(QString error READ error NOTIFY finished)
    Q_PROPERTY(QString problems READ problems NOTIFY finished)
    Q_PROPERTY(QString searchedFor READ searchedFor NOTIFY finished)

public:
    enum Role {
        RepositoryRole = Qt::UserRole + 1, // QString: "owner/name"
        FileNameRole,                      // QString: the file's path in the repository
        FileSizeRole,                      // QString: "986 MB", empty when unknown
        QuantizationRole,                  // QString: "Q4_K_M", empty when the name says none
        ArchitectureRole,                  // QString: "qwen2", empty when unknown
        RunnableRole,                      // bool: the architecture is unknown or one this engine reads
        ChecksumKnownRole,                 // bool: Hugging Face gave the file's SHA-256
        DownloadsRole,                     // QString: "12K", the repository's downloads
        FirstOfRepositoryRole,             // bool: the row starts its repository's group
        PredictionRole,                    // QString: "≈ 24 tok/s on this computer, fits in memory"
    };
    Q_ENUM(Role)

    explicit HfSearchListModel(QNetworkAccessManager* network, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Searches for repositories whose names contain `text`; the rows change when done.
    Q_INVOKABLE void search(const QString& text);
    // Waits for the search to finish (tests, and callers that need the rows).
    QCoro::Task<> searchAndWait(QString text);

    [[nodiscard]] bool busy() const { return busy_; }
    [[nodiscard]] QString error() const { return error_; }
    [[nodiscard]] QString problems() const { return problems_; }
    [[nodiscard]] QString searchedFor() const { return searchedFor_; }
    [[nodiscard]] const HfSearchRow* row(int index) const;
    [[nodiscard]] QUrl fileUrl(const HfSearchRow& row) const;

    void setBaseUrl(const QUrl& baseUrl) { searcher_.setBaseUrl(baseUrl); }
    void setRepositoryLimit(int limit) { repositoryLimit_ = limit; }
    // Where the prediction role's speeds come from; its new measurements update every row.
    void setSpeedPredictor(const SpeedPredictor* predictor);

signals:
    void countChanged();
    void busyChanged();
    void finished();

private:
    const SpeedPredictor* speed_ = nullptr;
    void setBusy(bool busy);
    void showResult(const QString& text, const download::HfSearchResult& result);

    download::HuggingFaceSearch searcher_;
    QList<HfSearchRow> rows_;
    quint64 generation_ = 0; // bumped by each search: only the latest one's answer is shown
    int repositoryLimit_ = 10;
    bool busy_ = false;
    QString error_;
    QString problems_;
    QString searchedFor_;
};

} // namespace hearth::app
