#include "app/server/engine_thread_backend.h"
#include "app/server/engine_completion.h"
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "engine/session/engine_metrics.h"
#include "engine/session/session_store.h"
#include <QFileInfo>
#include <algorithm>

namespace hearth::server {

struct EngineThreadBackend::Engine {
    std::shared_ptr<const engine::Model> model;
    std::unique_ptr<engine::Inference> inference;
    engine::EngineMetrics metrics;                  // this engine's live figures (nobody shows them)
    std::unique_ptr<engine::SessionStore> sessions; // after `inference`: destroyed first
    int contextLength = 0;
};

EngineThreadBackend::EngineThreadBackend(const std::string& modelPath,
                                         const engine::InferenceOptions& options, int contextLength)
    : engine_(std::make_unique<Engine>()), runner_(nullptr) {
    registerCompletionTypes();
    engine_->model = engine::Model::load(modelPath);
    engine_->inference = std::make_unique<engine::Inference>(engine_->model, options);
    const int trained = engine_->model->hparams().n_ctx_train;
    engine_->contextLength = trained > 0 ? std::min(contextLength, trained) : contextLength;
    engine::SessionStoreOptions store;
    store.n_ctx = engine_->contextLength;
    store.save_on_close = false; // no state directory: API sessions live as long as the server
    engine_->sessions = std::make_unique<engine::SessionStore>(*engine_->inference, store, engine_->metrics);
    modelId_ = QFileInfo(QString::fromStdString(modelPath)).completeBaseName();

    // Made once nothing above can throw: the thread's end deletes it, and a constructor that
    // throws runs no destructor (a bad model file leaked it).
    runner_ = new QObject;
    thread_.setObjectName(QStringLiteral("hearth-serve-engine"));
    runner_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, runner_, &QObject::deleteLater);
    thread_.start();
}

EngineThreadBackend::~EngineThreadBackend() {
    thread_.quit(); // after the completion running; those still queued are dropped
    thread_.wait();
}

int EngineThreadBackend::contextLength() const {
    return engine_->contextLength;
}

void EngineThreadBackend::start(const CompletionRequest& request) {
    QMetaObject::invokeMethod(
        runner_,
        [this, request] {
            const quint64 id = request.id;
            const CompletionResult result = runCompletion(
                *engine_->sessions, request, [this, id](const QString& text) { emit pieceReady(id, text); });
            emit finished(id, result);
        },
        Qt::QueuedConnection);
}

void EngineThreadBackend::forgetSession(const QString& sessionId) {
    QMetaObject::invokeMethod(
        runner_, [this, id = sessionId.toStdString()] { engine_->sessions->forget(id); },
        Qt::QueuedConnection);
}

} // namespace hearth::server
