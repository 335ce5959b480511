#include "app/server/engine_thread_backend.h"
#include "app/server/engine_completion.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/session/draft_model.h"
#include <QFileInfo>

namespace hearth::server {

EngineThreadBackend::EngineThreadBackend(const std::string& modelPath, const engine::RuntimeConfig& config)
    : runtime_(std::make_unique<engine::EngineRuntime>()), runner_(nullptr) {
    registerCompletionTypes();
    runtime_->configure(config);
    runtime_->load(modelPath);
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
    return runtime_->context_length();
}

void EngineThreadBackend::prepareSpeculation(const engine::SpeculationOptions& speculation) {
    if (speculation.drafter != engine::SpeculationOptions::Drafter::DraftModel) return;
    // No request has run yet: the engine thread does not touch the runtime meanwhile.
    const std::shared_ptr<const engine::Model> draft =
        runtime_->speculation_draft(speculation.draft_model_path);
    engine::check_draft_model(*draft, runtime_->model());
}

void EngineThreadBackend::loadImageProjector(const std::string& mmprojPath) {
    // No request has run yet: the engine thread does not touch the runtime meanwhile.
    runtime_->load_image_projector(mmprojPath);
}

void EngineThreadBackend::start(const CompletionRequest& request) {
    QMetaObject::invokeMethod(
        runner_,
        [this, request] {
            const quint64 id = request.id;
            const CompletionResult result = runCompletion(
                *runtime_, request, [this, id](const QString& text) { emit pieceReady(id, text); },
                [this, id](int index, const ApiToolCall& call) { emit toolCallReady(id, index, call); });
            emit finished(id, result);
        },
        Qt::QueuedConnection);
}

void EngineThreadBackend::forgetSession(const QString& sessionId) {
    QMetaObject::invokeMethod(
        runner_, [this, id = sessionId.toStdString()] { runtime_->forget(id); }, Qt::QueuedConnection);
}

} // namespace hearth::server
