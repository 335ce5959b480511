#include "app/chat/hearth_backend.h"
#include "app/chat/chat_controller.h"
#include "app/chat/preset_controller.h"
#include "app/metrics/metrics_controller.h"
#include "app/models/download_controller.h"
#include "app/models/inference_worker.h"
#include "app/models/model_controller.h"
#include "app/models/speed_predictor.h"
#include "app/platform/thread_priority.h"
#include "app/server/api_server.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "app/tools/mcp_server_registry.h"
#include <QDir>
#include <QFileInfo>

namespace hearth::app {

namespace {
// The API server's requests go to the inference worker, queued with the window's chats.
class WorkerCompletionBackend final : public server::CompletionBackend {
public:
    WorkerCompletionBackend(InferenceWorker* worker, const ModelController* models)
        : worker_(worker), models_(models) {
        connect(worker, &InferenceWorker::completionPiece, this, &CompletionBackend::pieceReady);
        connect(worker, &InferenceWorker::completionToolCall, this, &CompletionBackend::toolCallReady);
        connect(worker, &InferenceWorker::completionFinished, this, &CompletionBackend::finished);
    }
    QString modelId() const override {
        return models_->loaded() ? QFileInfo(models_->modelPath()).completeBaseName() : QString();
    }
    void start(const server::CompletionRequest& request) override {
        QMetaObject::invokeMethod(
            worker_, [worker = worker_, request] { worker->complete(request); }, Qt::QueuedConnection);
    }
    void forgetSession(const QString& sessionId) override {
        QMetaObject::invokeMethod(
            worker_, [worker = worker_, sessionId] { worker->forgetConversation(sessionId); },
            Qt::QueuedConnection);
    }

private:
    InferenceWorker* worker_;
    const ModelController* models_;
};

} // namespace

HearthBackend::HearthBackend(const AppPaths& paths, QObject* parent)
    : QObject(parent), paths_(paths),
      settings_(std::make_unique<AppSettings>(paths.settingsFile, paths.defaultModelsFolder())),
      store_(std::make_unique<ConversationStore>(paths.databaseFile())),
      worker_(new InferenceWorker(paths.kvStateDir())) {
    inferenceThread_.setObjectName(QStringLiteral("hearth-inference"));
    worker_->moveToThread(&inferenceThread_);
    connect(&inferenceThread_, &QThread::finished, worker_, &QObject::deleteLater);
    // On the new thread, before anything runs there: it and the kernel threads it starts yield
    // to the window.
    connect(&inferenceThread_, &QThread::started, [] { process::runBelowTheWindow(); });
    inferenceThread_.start();
    models_ = std::make_unique<ModelController>(settings_.get(), worker_);
    chat_ = std::make_unique<ChatController>(settings_.get(), store_.get(), worker_, models_.get());
    // Per model file, its settings; per conversation, its system prompt.
    presets_ = std::make_unique<PresetController>(settings_.get(), store_.get(), models_.get());
    models_->setEngineConfigSource(
        [presets = presets_.get()](const QString& path) { return presets->engineConfigFor(path); });
    chat_->setPresets(presets_.get());
    mcp_ = std::make_unique<McpServerRegistry>(settings_.get());
    chat_->setMcpServers(mcp_.get());
    metrics_ = std::make_unique<MetricsController>(worker_->engineMetrics());
    downloads_ = std::make_unique<DownloadController>(settings_.get());
    // HEARTH_MACHINE_LIMITS names another file: the test suites share one measurement.
    const QString limitsFile = qEnvironmentVariableIsEmpty("HEARTH_MACHINE_LIMITS")
                                   ? paths.dataDir + QStringLiteral("/machine-limits.json")
                                   : qEnvironmentVariable("HEARTH_MACHINE_LIMITS");
    speed_ =
        std::make_unique<SpeedPredictor>(limitsFile, AppSettings::automaticThreads(settings_->threads()));
    models_->setSpeedPredictor(speed_.get());
    downloads_->setSpeedPredictor(speed_.get());
    connect(settings_.get(), &AppSettings::engineConfigChanged, speed_.get(),
            [this] { speed_->setThreads(AppSettings::automaticThreads(settings_->threads())); });
    // A verified download lands in the models folder: the picker rescans to show it.
    connect(downloads_.get(), &DownloadController::modelDownloaded, models_.get(), &ModelController::refresh);
    connect(worker_, &InferenceWorker::generationFinished, metrics_.get(),
            [metrics = metrics_.get()](quint64, const GenerationResult& result) {
                metrics->recordReply(result);
            });

    apiBackend_ = std::make_unique<WorkerCompletionBackend>(worker_, models_.get());
    apiServer_ = std::make_unique<server::ApiServer>(apiBackend_.get());
    connect(apiServer_.get(), &server::ApiServer::completionServed, metrics_.get(),
            [metrics = metrics_.get()](const server::CompletionResult& result) {
                // A request brings no saved state: its session lives in memory only.
                metrics->recordServerRequest({.stats = result.stats, .resume = {}});
            });
    connect(settings_.get(), &AppSettings::serverChanged, this, &HearthBackend::applyServerSettings);
    applyServerSettings();
    connect(settings_.get(), &AppSettings::speculationChanged, this,
            &HearthBackend::applySpeculationSettings);
    applySpeculationSettings();
    connect(presets_.get(), &PresetController::loadedPresetChanged, this,
            &HearthBackend::applyModelPresetToApi);
    connect(presets_.get(), &PresetController::modelPresetsChanged, this,
            &HearthBackend::applyModelPresetToApi);
    connect(models_.get(), &ModelController::stateChanged, this, &HearthBackend::applyModelPresetToApi);
    connect(settings_.get(), &AppSettings::changed, this, &HearthBackend::applyModelPresetToApi);
    connect(models_.get(), &ModelController::stateChanged, metrics_.get(),
            [this] { metrics_->setModelPath(models_->modelPath()); });

    connect(store_.get(), &ConversationStore::damagedDatabaseSetAside, this,
            [this](const QString& backupPath, int conversationsCopied) {
                const QString backup = QDir::toNativeSeparators(backupPath);
                databaseNotice_ =
                    conversationsCopied > 0
                        ? tr("The conversation database was damaged. Hearth kept it as %1 and started a new "
                             "one, into which it copied the conversations that could still be read (%2).")
                              .arg(backup)
                              .arg(conversationsCopied)
                        : tr("The conversation database was damaged and none of its conversations could be "
                             "read. Hearth kept it as %1 and started a new one.")
                              .arg(backup);
                emit databaseNoticeChanged();
            });
}

void HearthBackend::dismissDatabaseNotice() {
    if (databaseNotice_.isEmpty()) return;
    databaseNotice_.clear();
    emit databaseNoticeChanged();
}

void HearthBackend::applyServerSettings() {
    const AppSettings& s = *settings_;
    if (!s.serverEnabled()) {
        apiServer_->close();
        settings_->setServerState(false, QString(), QString());
        return;
    }
    const auto port = static_cast<quint16>(s.serverPort());
    apiServer_->setApiKey(s.serverApiKey()); // these apply to the next request
    // Entries that are not origins or host names are left out, and said so.
    QStringList ignored;
    const auto valid = [&ignored](const QString& text, QString (*error)(const QString&)) {
        QStringList entries;
        for (const QString& entry : server::FrontDoor::splitList(text)) {
            const QString why = error(entry);
            (why.isEmpty() ? entries : ignored).append(why.isEmpty() ? entry : why);
        }
        return entries;
    };
    apiServer_->setAllowedOrigins(valid(s.serverAllowedOrigins(), &server::FrontDoor::originPatternError));
    apiServer_->setAllowedHosts(valid(s.serverAllowedHosts(), &server::FrontDoor::hostNameError));
    const auto notice = [this, &ignored] {
        return ignored.isEmpty() ? QString()
                                 : tr("Listening on %1, but some allowed entries were ignored. %2")
                                       .arg(apiServer_->url(), ignored.join(QLatin1Char(' ')));
    };
    // Same port and listening: the clients keep their connections.
    if (apiServer_->isListening() && port == apiPort_) {
        settings_->setServerState(true, apiServer_->url(), notice());
        return;
    }
    apiPort_ = port;
    if (apiServer_->listen(QHostAddress::LocalHost, port))
        settings_->setServerState(true, apiServer_->url(), notice());
    else
        settings_->setServerState(false, QString(), apiServer_->errorString());
}

void HearthBackend::applySpeculationSettings() {
    const engine::SpeculationOptions speculation = settings_->speculationOptions();
    apiServer_->setSpeculation(speculation);
    metrics_->setSpeculationOn(speculation.drafter != engine::SpeculationOptions::Drafter::Off);
}

void HearthBackend::applyModelPresetToApi() {
    server::ApiModelDefaults defaults;
    if (const ModelPreset* preset =
            models_->loaded() ? presets_->applicablePreset(models_->modelPath()) : nullptr) {
        defaults.temperature = preset->temperature;
        defaults.topP = preset->topP;
        defaults.topK = preset->topK;
        defaults.minP = preset->minP;
        defaults.repeatPenalty = preset->repeatPenalty;
        if (preset->chatTemplate) defaults.chatTemplate = *preset->chatTemplate;
    }
    // A template set for every model (the settings' override) serves the API as the window.
    if (defaults.chatTemplate.isEmpty()) defaults.chatTemplate = settings_->chatTemplate();
    apiServer_->setModelDefaults(defaults);
}

HearthBackend::~HearthBackend() {
    apiServer_.reset(); // cancels its requests in flight
    if (chat_) chat_->stop();
    inferenceThread_.quit();
    // The worker is deleted on its thread as it finishes, saving the conversations' KV states
    // before wait() returns, so they are on disk before the app exits.
    inferenceThread_.wait();
    downloads_.reset(); // transfers stop; their partial files are resumed next time
    chat_.reset();
    mcp_.reset(); // the MCP servers stop
    presets_.reset();
    models_.reset();
    store_.reset(); // finishes queued writes
    settings_.reset();
}

void HearthBackend::start() {
    chat_->start();
    presets_->start();
    models_->refresh();
    models_->computeDevices()->refresh();
    downloads_->refreshLocalFiles();
    speed_->start(); // this machine's stored limits, or a measurement in the background
}

} // namespace hearth::app
