#pragma once
// The models the picker offers: the GGUF files in the models folder and the
// files used before, each with what it is and what it needs.
#include "engine/model/speed_prediction.h"
#include <QAbstractListModel>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class SpeedPredictor;

struct ModelEntry {
    QString path;
    QString name;
    QString architecture;
    QString quantization; // file type when known ("Q4_K_M"), else the most common weight type
    qint64 parameters = 0;
    qint64 fileBytes = 0;
    // Weights plus one conversation's KV cache at the configured context and types, in RAM: with
    // a GPU chosen, the KV cache of the layers the CPU runs only.
    qint64 estimatedBytes = 0;
    bool gpuChosen = false; // the settings run models on a GPU: the figures below apply
    int gpuLayers = 0;      // of layerCount, on the GPU; 0: they do not fit, the CPU runs them all
    int layerCount = 0;
    qint64 gpuBytes = 0;   // what those layers take of the GPU's memory
    int contextLength = 0; // trained context length
    bool hasChatTemplate = false;
    bool recent = false;         // used before (from the settings)
    QString error;               // why the file cannot be used; empty when it can
    bool imageProjector = false; // an image projector (mmproj) for a vision model: no model itself
    QString visionProjector;     // the projector found beside a model (it reads images); empty: none
    QStringList warnings;        // what a user should know about a usable file (an unknown pre-tokenizer,
                                 // a template without a system role)
    std::optional<engine::ModelCost> speedCost; // what a token costs it, for the speed prediction
};

class ModelListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ModelController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        PathRole = Qt::UserRole + 1, // QString: absolute path of the .gguf file
        NameRole,                    // QString: general.name or the file name
        ArchitectureRole,            // QString: "llama", "qwen2", ...
        QuantizationRole,            // QString
        ParametersRole,              // QString: "1.1B"
        FileSizeRole,                // QString: "638 MB"
        MemoryRole,                  // QString: estimated memory to run it
        ContextLengthRole,           // int
        ChatTemplateRole,            // bool
        RecentRole,                  // bool
        ErrorRole,                   // QString: empty when usable
        LoadedRole,                  // bool: the model loaded now
        WarningRole,                 // QString: the warnings, one per line; empty when none
        DistinctionRole,             // QString: what sets it apart from models of the same name
                                     // ("Q8_0 · 1.19 MB"); empty when its name is its own
        GpuMemoryRole,               // QString: estimated GPU memory; empty when the CPU runs it all
        GpuFitRole,                  // QString: "" (the CPU is chosen), "whole" (every layer fits on
                                     // the GPU), "partial" (the first layers), "none" (too large: the CPU)
        GpuLayersRole,               // int: layers on the GPU
        LayerCountRole,              // int: the model's layers
        PredictionRole,              // QString: "≈ 24 tok/s on this computer, fits in memory"
        VisionProjectorRole, // QString: the image projector found beside it; empty: it reads no images
    };
    Q_ENUM(Role)

    explicit ModelListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setEntries(QList<ModelEntry> entries);
    void setLoadedPath(const QString& path);
    // Where the prediction role's speeds come from; its new measurements update every row.
    void setSpeedPredictor(const SpeedPredictor* predictor);
    [[nodiscard]] const QList<ModelEntry>& entries() const { return rows_; }
    [[nodiscard]] int indexOf(const QString& path) const;
    // What differs between this row and the others of the same name: quantization, parameters,
    // file size, in that order; the folder when nothing else does.
    [[nodiscard]] QString distinction(int row) const;
    // The fewest last parts of `folder` that end none of `others` ("~" for the home folder).
    static QString tellingFolder(const QString& folder, const QStringList& others);

signals:
    void countChanged();

private:
    QList<ModelEntry> rows_;
    QString loadedPath_;
    const SpeedPredictor* speed_ = nullptr;
};

} // namespace hearth::app
