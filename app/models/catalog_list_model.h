#pragma once
// The rows of the models page's catalog: each recommended model, whether this
// engine and this machine can run it, and the state of its download.
#include "app/models/model_catalog.h"
#include "app/models/model_fit.h"
#include "app/models/speed_predictor.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

// Where one catalog entry's file stands, as the models page shows it.
struct CatalogDownloadStatus {
    QString state = QStringLiteral("none"); // none, preparing, running, verifying, paused, failed, done
    qint64 receivedBytes = 0;
    qint64 totalBytes = -1;
    double bytesPerSecond = 0;
    double secondsLeft = -1;
    QString error;
    QString note;
};

class CatalogListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by DownloadController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1, // QString: the entry's catalog id
        NameRole,                  // QString
        ArchitectureRole,          // QString
        ParametersRole,            // QString: "1.5B", empty when unknown
        QuantizationRole,          // QString
        LicenceRole,               // QString, empty when unknown
        FileSizeRole,              // QString: "986 MB"
        MemoryRole,                // QString: estimated memory to run it
        RunnableRole,              // bool: this engine reads the architecture (or it is unknown)
        MemoryFitRole,             // QString: "fits", "tight", "tooLarge" or "unknown"
        ChecksumKnownRole,         // bool: the catalog has its SHA-256
        DownloadStateRole,         // QString: see CatalogDownloadStatus::state
        ProgressRole,              // double 0..1, or -1 while the size is unknown
        TransferRole,              // QString: "12 MB of 986 MB (1%)"
        SpeedRole,                 // QString: "5.1 MB/s", empty when unknown
        TimeLeftRole,              // QString: "3 min 10 s", empty when unknown
        ErrorRole,                 // QString: why the last attempt failed, in plain words
        NoteRole,                  // QString: what the download did last
        PredictionRole,            // QString: "≈ 24 tok/s on this computer, fits in memory"; empty: unknown
        DraftIdRole,       // QString: the entry that drafts for it (speculative decoding); empty: none
        DraftNameRole,     // QString: that entry's name
        DraftStateRole,    // QString: that entry's download state (as DownloadStateRole)
        ProjectorSizeRole, // QString: its image projector's file size ("851 MB"), downloaded with it; empty:
                           // none
    };
    Q_ENUM(Role)

    explicit CatalogListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setEntries(QList<CatalogEntry> entries, qint64 physicalMemoryBytes);
    // Adds one entry at the end (a file found by the search).
    void appendEntry(const CatalogEntry& entry);
    void setStatus(const QString& id, const CatalogDownloadStatus& status);
    // Where the prediction role's speeds come from; its new measurements update every row.
    void setSpeedPredictor(const SpeedPredictor* predictor);
    [[nodiscard]] const QList<CatalogEntry>& entries() const { return entries_; }
    [[nodiscard]] const CatalogEntry* entry(const QString& id) const;
    [[nodiscard]] CatalogDownloadStatus status(const QString& id) const;

signals:
    void countChanged();

private:
    QList<CatalogEntry> entries_;
    QList<CatalogDownloadStatus> statuses_; // one per entry
    qint64 physicalMemoryBytes_ = 0;
    const SpeedPredictor* speed_ = nullptr;
};

} // namespace hearth::app
