#include "app/core/hearth_backend.h"
#include "app/core/app_settings.h"
#include "app/core/chat_controller.h"
#include "app/core/conversation_store.h"
#include "app/core/download_controller.h"
#include "app/core/inference_worker.h"
#include "app/core/metrics_controller.h"
#include "app/core/model_controller.h"

namespace hearth::app {

HearthBackend::HearthBackend(const AppPaths& paths, QObject* parent)
    : QObject(parent), paths_(paths),
      settings_(std::make_unique<AppSettings>(paths.settingsFile, paths.defaultModelsFolder())),
      store_(std::make_unique<ConversationStore>(paths.databaseFile())),
      worker_(new InferenceWorker(paths.kvStateDir())) {
    inferenceThread_.setObjectName(QStringLiteral("hearth-inference"));
    worker_->moveToThread(&inferenceThread_);
    connect(&inferenceThread_, &QThread::finished, worker_, &QObject::deleteLater);
    inferenceThread_.start();
    const auto applyConversationMemory = [this] {
        const qint64 bytes = qint64(settings_->conversationMemoryMiB()) << 20;
        QMetaObject::invokeMethod(worker_, "setMemoryBudget", Qt::QueuedConnection, Q_ARG(qint64, bytes));
    };
    connect(settings_.get(), &AppSettings::conversationMemoryChanged, this, applyConversationMemory);
    applyConversationMemory();
    const auto applySavedStateFormat = [this] {
        QMetaObject::invokeMethod(
            worker_,
            [worker = worker_, compress = settings_->compressSavedStates()] {
                worker->setCompressSavedStates(compress);
            },
            Qt::QueuedConnection);
    };
    connect(settings_.get(), &AppSettings::savedStatesChanged, this, applySavedStateFormat);
    applySavedStateFormat();
    models_ = std::make_unique<ModelController>(settings_.get(), worker_);
    chat_ = std::make_unique<ChatController>(settings_.get(), store_.get(), worker_, models_.get());
    metrics_ = std::make_unique<MetricsController>();
    downloads_ = std::make_unique<DownloadController>(settings_.get());
    // A verified download lands in the models folder: the picker rescans to show it.
    connect(downloads_.get(), &DownloadController::modelDownloaded, models_.get(), &ModelController::refresh);
    connect(worker_, &InferenceWorker::generationFinished, metrics_.get(),
            [metrics = metrics_.get()](quint64, const GenerationResult& result) {
                metrics->recordReply(result);
            });
}

HearthBackend::~HearthBackend() {
    if (chat_) chat_->stop();
    inferenceThread_.quit();
    // The worker is deleted on its thread as it finishes, saving the conversations' KV states
    // before wait() returns, so they are on disk before the app exits.
    inferenceThread_.wait();
    downloads_.reset(); // transfers stop; their partial files are resumed next time
    chat_.reset();
    models_.reset();
    store_.reset(); // finishes queued writes
    settings_.reset();
}

void HearthBackend::start() {
    chat_->start();
    models_->refresh();
    downloads_->refreshLocalFiles();
}

} // namespace hearth::app
