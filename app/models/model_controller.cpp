#include "app/models/model_controller.h"
#include "app/models/demo_model.h"
#include "app/models/format.h"
#include "app/models/inference_worker.h"
#include "app/models/model_scan.h"
#include "app/settings/app_settings.h"
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <qcoro/qcorofuture.h>
#include <utility>

namespace hearth::app {

ModelController::ModelController(AppSettings* settings, InferenceWorker* worker, QObject* parent)
    : QObject(parent), settings_(settings), worker_(worker),
      demoModelPath_(findDemoModel(QCoreApplication::applicationDirPath())), computeDevices_(settings) {
    connect(this, &ModelController::loadRequested, worker, &InferenceWorker::loadModel, Qt::QueuedConnection);
    connect(this, &ModelController::imageProjectorChosen, worker, &InferenceWorker::chooseImageProjector,
            Qt::QueuedConnection);
    // The projectors chosen in earlier runs, before any load.
    const QHash<QString, QString> chosen = settings_->imageProjectors();
    for (auto it = chosen.cbegin(); it != chosen.cend(); ++it)
        emit imageProjectorChosen(it.key(), it.value());
    connect(this, &ModelController::warmUpRequested, worker, &InferenceWorker::warmUp, Qt::QueuedConnection);
    connect(this, &ModelController::unloadRequested, worker, &InferenceWorker::unloadModel,
            Qt::QueuedConnection);
    connect(this, &ModelController::configureRequested, worker, &InferenceWorker::configure,
            Qt::QueuedConnection);
    connect(worker, &InferenceWorker::loadFinished, this,
            [this](quint64 id, bool ok, const ModelSummary& summary, const QString& error) {
                loads_.fulfil(id, LoadReply{ok, summary, error});
            });
    connect(worker, &InferenceWorker::warmUpFinished, this,
            [this](quint64 id, double seconds) { warmUps_.fulfil(id, seconds); });
    // The details line ("N ctx · N threads · KV ...") follows the settings as the worker applies them.
    connect(worker, &InferenceWorker::configured, this, [this](const ModelSummary& summary) {
        if (summary.path != summary_.path) return; // a reply about a model since replaced
        summary_ = summary;
        emit stateChanged();
    });

    // The GPU could not be used: the model runs on the CPU, and the user is told why.
    connect(worker, &InferenceWorker::deviceFailed, this, [this](const QString& message) {
        if (busy_)
            deviceNoticeAfterLoad_ = message; // a finished load clears the errors from before it
        else
            setError(message);
    });
    // Every engine setting reaches the worker by one path, configureRequested.
    connect(settings, &AppSettings::engineConfigChanged, this, &ModelController::reconfigure);
    connect(settings, &AppSettings::conversationMemoryChanged, this, &ModelController::reconfigure);
    connect(settings, &AppSettings::savedStatesChanged, this, &ModelController::reconfigure);
    connect(settings, &AppSettings::modelsFolderChanged, this, &ModelController::refresh);
    connect(this, &ModelController::stateChanged, this, &ModelController::demoOfferChanged);
    connect(settings, &AppSettings::recentModelsChanged, this, &ModelController::demoOfferChanged);
    config_ = settings_->engineConfig();
    emit configureRequested(config_);
}

void ModelController::setEngineConfigSource(std::function<EngineConfig(const QString& path)> source) {
    engineConfigSource_ = std::move(source);
}

EngineConfig ModelController::engineConfigFor(const QString& path) const {
    return engineConfigSource_ ? engineConfigSource_(path) : settings_->engineConfig();
}

void ModelController::reconfigure() {
    const EngineConfig previous = config_;
    config_ = engineConfigFor(summary_.path);
    if (config_ == previous) return;
    emit configureRequested(config_);
    // The picker's memory estimates depend on the context, the cache types and the device, not
    // the threads or the conversations' memory.
    if (config_.context_length != previous.context_length || config_.cache_types != previous.cache_types ||
        config_.device != previous.device || config_.gpu_layers != previous.gpu_layers)
        refresh();
}

QString ModelController::modelDetails() const {
    if (!loaded()) return {};
    QStringList parts;
    if (!summary_.architecture.isEmpty()) parts << summary_.architecture;
    if (summary_.parameters > 0) parts << formatCount(summary_.parameters) + tr(" params");
    if (!summary_.quantization.isEmpty()) parts << summary_.quantization;
    parts << tr("%1 ctx").arg(summary_.contextLength);
    parts << tr("%n thread(s)", nullptr, summary_.threads); // plural forms from the translation
    if (summary_.keyCacheType != QLatin1String("f16") || summary_.valueCacheType != QLatin1String("f16"))
        parts << tr("KV %1/%2").arg(summary_.keyCacheType, summary_.valueCacheType);
    if (summary_.gpuLayers > 0)
        parts << tr("GPU %1/%2 layers").arg(summary_.gpuLayers).arg(summary_.layerCount);
    if (!summary_.imageTowerGpu.isEmpty()) parts << tr("images on the GPU");
    return parts.join(QStringLiteral(" · "));
}

bool ModelController::offerDemo() const {
    return !demoModelPath_.isEmpty() && !loaded() && !busy_ && settings_->recentModels().isEmpty();
}

void ModelController::loadDemo() {
    if (!demoModelPath_.isEmpty()) load(demoModelPath_);
}

bool ModelController::isModelUrl(const QUrl& url) {
    const QString path = url.isLocalFile() ? url.toLocalFile() : url.toString();
    return !path.isEmpty() && (url.isLocalFile() || url.scheme().isEmpty()) &&
           path.endsWith(QStringLiteral(".gguf"), Qt::CaseInsensitive) && !QFileInfo(path).isDir();
}

void ModelController::refresh() {
    scanModels();
}

QCoro::Task<> ModelController::scanModels() {
    const quint64 generation = ++scanGeneration_;
    scanning_ = true;
    emit scanningChanged();
    const QPointer<ModelController> self(this); // it may be gone when the scan finishes
    QFuture<QList<ModelEntry>> future =
        QtConcurrent::run(&hearth::app::scanModels, settings_->modelsFolder(), settings_->recentModels(),
                          settings_->engineConfig(), settings_->imageProjectors());
    const QList<ModelEntry> entries = co_await future;
    if (!self || generation != scanGeneration_) co_return; // gone, or a newer scan is under way
    models_.setEntries(entries);
    models_.setLoadedPath(summary_.path);
    scanning_ = false;
    emit scanningChanged();
    emit scanFinished();
}

void ModelController::load(const QString& path) {
    // One spelling per file ("a/../b.gguf" is "b.gguf"), so recent models and the list agree.
    loadModel(QDir::cleanPath(QDir::current().absoluteFilePath(path)));
}

bool ModelController::loadDroppedFile(const QUrl& url) {
    const QString path = url.isLocalFile() ? url.toLocalFile() : url.toString();
    if (!isModelUrl(url)) {
        const QString name = QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName();
        const QString message = tr("%1: not a GGUF model file (a model's file name ends in .gguf)").arg(name);
        setError(message);
        emit loadFailed(message);
        return false;
    }
    load(path);
    return true;
}

bool ModelController::loadDroppedFiles(const QList<QUrl>& urls) {
    if (urls.size() == 1) {
        const QUrl& url = urls.constFirst();
        const QFileInfo info(url.isLocalFile() ? url.toLocalFile() : QString());
        if (info.isDir()) {
            const QString message = tr("%1 is a folder: drop one .gguf model file, or choose the folder as "
                                       "the models folder on the Models page")
                                        .arg(info.fileName());
            setError(message);
            emit loadFailed(message);
            return false;
        }
        return loadDroppedFile(url);
    }
    const QString message = urls.isEmpty() ? tr("Nothing was dropped that could be loaded")
                                           : tr("%n files were dropped: drop one model file at a time",
                                                nullptr, static_cast<int>(urls.size()));
    setError(message);
    emit loadFailed(message);
    return false;
}

QCoro::Task<bool> ModelController::loadModel(QString path) {
    if (busy_) {
        setError(tr("%1: wait until %2 has finished loading").arg(QFileInfo(path).fileName(), stage_));
        co_return false;
    }
    const quint64 id = ++lastRequest_;
    const QString fileName = QFileInfo(path).fileName();
    clearError();
    deviceNoticeAfterLoad_.clear();
    setStage(true, tr("Loading %1").arg(fileName), 0.2);

    const QPointer<ModelController> self(this);
    // The file's own engine config (its preset's context) reaches the worker before the file.
    if (const EngineConfig wanted = engineConfigFor(path); wanted != config_) {
        config_ = wanted;
        emit configureRequested(config_);
    }
    QFuture<LoadReply> loadReply = loads_.expect(id);
    emit loadRequested(id, path);
    const LoadReply reply = co_await loadReply;
    if (!self) co_return false;
    if (!reply.ok) {
        reconfigure(); // the model loaded before stays, with its own config
        setStage(false, QString(), 0);
        // The engine names the file and what is wrong with it, in English (it has no
        // translations); the app's own words, in the user's language, say what happened.
        const QString message = tr("The model could not be loaded: %1").arg(reply.error);
        setError(message);
        emit loadFailed(message);
        co_return false;
    }
    summary_ = reply.summary;
    if (!summary_.imageProjectorError.isEmpty() && deviceNoticeAfterLoad_.isEmpty())
        deviceNoticeAfterLoad_ = tr("%1 reads no images: its image projector could not be loaded: %2")
                                     .arg(summary_.name, summary_.imageProjectorError);
    setStage(true, tr("Warming up %1").arg(fileName), 0.7);

    QFuture<double> warmUpReply = warmUps_.expect(id);
    emit warmUpRequested(id);
    co_await warmUpReply;
    if (!self) co_return false;

    setStage(false, QString(), 1.0);
    // An error from while it loaded (a second load refused as too early) no longer applies.
    clearError();
    models_.setLoadedPath(summary_.path);
    settings_->rememberModel(summary_.path);
    emit modelReady(summary_.path);
    // On the page the window shows now (modelReady opens the chat).
    if (!deviceNoticeAfterLoad_.isEmpty()) setError(std::exchange(deviceNoticeAfterLoad_, QString()));
    refresh();
    co_return true;
}

void ModelController::chooseImageProjector(const QString& modelPath, const QUrl& projector) {
    const QString path = projector.isEmpty()       ? QString()
                         : projector.isLocalFile() ? projector.toLocalFile()
                                                   : projector.toString();
    settings_->setImageProjectorFor(modelPath, path);
    emit imageProjectorChosen(modelPath, path); // reaches the worker before a load that follows
    if (summary_.path == modelPath && !busy_)
        load(modelPath);
    else
        refresh();
}

void ModelController::unload() {
    if (busy_ || !loaded()) return;
    summary_ = {};
    models_.setLoadedPath(QString());
    emit unloadRequested();
    emit stateChanged();
}

void ModelController::clearError() {
    setError(QString());
}

void ModelController::setStage(bool busy, const QString& stage, double progress) {
    busy_ = busy;
    stage_ = stage;
    progress_ = progress;
    emit stateChanged();
}

void ModelController::setError(const QString& message) {
    if (message == error_) return;
    error_ = message;
    emit errorChanged();
}

void ModelController::setSpeedPredictor(SpeedPredictor* predictor) {
    speed_ = predictor;
    models_.setSpeedPredictor(predictor);
}

QStringList ModelController::modelFiles() const {
    QStringList paths;
    for (const ModelEntry& entry : models_.entries())
        if (entry.error.isEmpty()) paths.append(entry.path);
    return paths;
}

} // namespace hearth::app
