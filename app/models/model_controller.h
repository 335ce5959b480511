#pragma once
// The model picker and the loaded model, seen from QML: scans the models
// folder (Qt Concurrent), loads a file through the worker (load -> warm up ->
// ready, a QCoro coroutine) and accepts files dropped on the window.
#include "app/models/compute_device_list.h"
#include "app/models/model_list_model.h"
#include "app/models/pending_replies.h"
#include "app/models/worker_types.h"
#include "app/settings/engine_config.h"
#include <QObject>
#include <QStringList>
#include <QUrl>
#include <QtQml/qqmlregistration.h>
#include <functional>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class AppSettings;
class InferenceWorker;
class SpeedPredictor;

class ModelController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(hearth::app::ModelListModel* models READ models CONSTANT)
    // This computer's measured limits and the speed predictions of the model cards.
    Q_PROPERTY(hearth::app::SpeedPredictor* speed READ speed CONSTANT)
    Q_PROPERTY(bool loaded READ loaded NOTIFY stateChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY stateChanged)
    Q_PROPERTY(QString stage READ stage NOTIFY stateChanged)
    Q_PROPERTY(double progress READ progress NOTIFY stateChanged)
    Q_PROPERTY(bool scanning READ scanning NOTIFY scanningChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY stateChanged)
    Q_PROPERTY(QString modelPath READ modelPath NOTIFY stateChanged)
    Q_PROPERTY(QString modelDetails READ modelDetails NOTIFY stateChanged)
    Q_PROPERTY(QString errorMessage READ errorMessage NOTIFY errorChanged)
    // The context each conversation gets, and the most the model was trained for (0: none loaded).
    Q_PROPERTY(int contextLength READ contextLength NOTIFY stateChanged)
    Q_PROPERTY(int trainedContextLength READ trainedContextLength NOTIFY stateChanged)
    // Where the loaded model runs: the GPU's name (empty: every layer on the CPU) and how many of
    // its layers run there.
    Q_PROPERTY(QString gpuName READ gpuName NOTIFY stateChanged)
    // Whether the loaded model reads images (an image projector was loaded with it).
    Q_PROPERTY(bool imageInput READ imageInput NOTIFY stateChanged)
    Q_PROPERTY(int gpuLayers READ gpuLayers NOTIFY stateChanged)
    Q_PROPERTY(int layerCount READ layerCount NOTIFY stateChanged)
    // The models folder's usable files (absolute paths), as the last scan found them: what the
    // settings offer as a draft model.
    Q_PROPERTY(QStringList modelFiles READ modelFiles NOTIFY scanFinished)
    // What the settings offer to run models on.
    Q_PROPERTY(hearth::app::ComputeDeviceList* computeDevices READ computeDevices CONSTANT)
    // The demo model shipped with the app (app/models/demo_model.h); empty when it is missing.
    Q_PROPERTY(QString demoModelPath READ demoModelPath CONSTANT)
    // The first start's offer of the demo: no model loaded or loading, none used before.
    Q_PROPERTY(bool offerDemo READ offerDemo NOTIFY demoOfferChanged)

public:
    ModelController(AppSettings* settings, InferenceWorker* worker, QObject* parent = nullptr);

    [[nodiscard]] ModelListModel* models() { return &models_; }
    [[nodiscard]] SpeedPredictor* speed() const { return speed_; }
    // Set once, before QML reads the property; the picker's rows show its predictions.
    void setSpeedPredictor(SpeedPredictor* predictor);
    [[nodiscard]] bool loaded() const { return !summary_.path.isEmpty(); }
    [[nodiscard]] bool busy() const { return busy_; }
    [[nodiscard]] QString stage() const { return stage_; }
    [[nodiscard]] double progress() const { return progress_; }
    [[nodiscard]] bool scanning() const { return scanning_; }
    [[nodiscard]] QString modelName() const { return summary_.name; }
    [[nodiscard]] QString modelPath() const { return summary_.path; }
    [[nodiscard]] QString modelDetails() const;
    [[nodiscard]] QString errorMessage() const { return error_; }
    [[nodiscard]] const ModelSummary& summary() const { return summary_; }
    [[nodiscard]] QString demoModelPath() const { return demoModelPath_; }
    [[nodiscard]] int contextLength() const { return summary_.contextLength; }
    [[nodiscard]] int trainedContextLength() const { return summary_.trainedContextLength; }
    [[nodiscard]] bool offerDemo() const;
    [[nodiscard]] QString gpuName() const { return summary_.gpuName; }
    [[nodiscard]] bool imageInput() const { return !summary_.imageProjector.isEmpty(); }
    [[nodiscard]] int gpuLayers() const { return summary_.gpuLayers; }
    [[nodiscard]] int layerCount() const { return summary_.layerCount; }
    [[nodiscard]] ComputeDeviceList* computeDevices() { return &computeDevices_; }
    [[nodiscard]] QStringList modelFiles() const;

    // True for a local file (not a folder) whose name ends in .gguf: what the drop area accepts.
    Q_INVOKABLE static bool isModelUrl(const QUrl& url);
    Q_INVOKABLE void refresh();
    Q_INVOKABLE void load(const QString& path);
    // The drop path (also used by --load): refuses anything but a .gguf file with
    // a message, else loads it like the picker does. Returns whether it was accepted.
    Q_INVOKABLE bool loadDroppedFile(const QUrl& url);
    // What the window's drop area hands over: exactly one .gguf file loads; several files, or a
    // folder, are refused with a message that says so.
    Q_INVOKABLE bool loadDroppedFiles(const QList<QUrl>& urls);
    Q_INVOKABLE void unload();
    // Reads images of the model at `modelPath` with the projector file `projector` (a URL of a
    // local file) instead of the one beside it; an empty URL goes back to the one beside it. The
    // choice is kept in the settings; a model loaded now is loaded again with it.
    Q_INVOKABLE void chooseImageProjector(const QString& modelPath, const QUrl& projector);
    // Loads the demo model, as the picker loads any other.
    Q_INVOKABLE void loadDemo();
    Q_INVOKABLE void clearError();

    // What the engine runs a file with (its preset's context, say); unset: the settings' config.
    void setEngineConfigSource(std::function<EngineConfig(const QString& path)> source);
    // Sends the loaded model's engine config to the worker if it changed (settings, a preset).
    void reconfigure();

    // The whole load flow; true when the model is ready.
    QCoro::Task<bool> loadModel(QString path);
    QCoro::Task<> scanModels();

signals:
    void stateChanged();
    void scanningChanged();
    void errorChanged();
    void demoOfferChanged();
    void modelReady(const QString& path);
    void loadFailed(const QString& message);
    void scanFinished();
    // To the worker (queued):
    void loadRequested(quint64 requestId, const QString& path);
    void imageProjectorChosen(const QString& modelPath, const QString& projectorPath);
    void warmUpRequested(quint64 requestId);
    void unloadRequested();
    void configureRequested(const hearth::app::EngineConfig& config);

private:
    struct LoadReply {
        bool ok = false;
        ModelSummary summary;
        QString error;
    };
    void setStage(bool busy, const QString& stage, double progress);
    void setError(const QString& message);
    [[nodiscard]] EngineConfig engineConfigFor(const QString& path) const;

    AppSettings* settings_;
    std::function<EngineConfig(const QString& path)> engineConfigSource_;
    InferenceWorker* worker_;
    ModelListModel models_;
    SpeedPredictor* speed_ = nullptr;
    ModelSummary summary_;
    bool busy_ = false;
    QString stage_;
    double progress_ = 0;
    bool scanning_ = false;
    quint64 scanGeneration_ = 0;
    EngineConfig config_; // what the worker was last asked to run with
    QString error_;
    QString demoModelPath_;
    ComputeDeviceList computeDevices_;
    // The worker could not put a model being loaded on the GPU: said once the load is done.
    QString deviceNoticeAfterLoad_; // or why the model's image projector could not be loaded
    quint64 lastRequest_ = 0;
    PendingReplies<LoadReply> loads_;
    PendingReplies<double> warmUps_;
};

} // namespace hearth::app
