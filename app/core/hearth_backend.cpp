#include "app/core/hearth_backend.h"
#include "app/core/app_settings.h"
#include "app/core/chat_controller.h"
#include "app/core/conversation_store.h"
#include "app/core/inference_worker.h"
#include "app/core/metrics_controller.h"
#include "app/core/model_controller.h"

namespace hearth::app {

HearthBackend::HearthBackend(const AppPaths& paths, QObject* parent)
    : QObject(parent), paths_(paths),
      settings_(std::make_unique<AppSettings>(paths.settingsFile, paths.defaultModelsFolder())),
      store_(std::make_unique<ConversationStore>(paths.databaseFile())), worker_(new InferenceWorker) {
    inferenceThread_.setObjectName(QStringLiteral("hearth-inference"));
    worker_->moveToThread(&inferenceThread_);
    connect(&inferenceThread_, &QThread::finished, worker_, &QObject::deleteLater);
    inferenceThread_.start();
    models_ = std::make_unique<ModelController>(settings_.get(), worker_);
    chat_ = std::make_unique<ChatController>(settings_.get(), store_.get(), worker_, models_.get());
    metrics_ = std::make_unique<MetricsController>();
}

HearthBackend::~HearthBackend() {
    if (chat_) chat_->stop();
    inferenceThread_.quit();
    inferenceThread_.wait(); // the worker is deleted on its thread as it finishes
    chat_.reset();
    models_.reset();
    store_.reset(); // finishes queued writes
    settings_.reset();
}

void HearthBackend::start() {
    chat_->start();
    models_->refresh();
}

} // namespace hearth::app
