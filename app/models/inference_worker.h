#pragma once
// The inference thread's object: the app's engine runtime (engine::EngineRuntime: the loaded
// model, the forward pass with its kernel thread pool, the conversations' sessions, kept in memory
// within a budget and saved to the state folder beyond it) behind queued signals and slots. Each
// request carries its own cancel token, set from any thread. Requests to the local API server run
// here too, in the same queue as the window's chats, each in a session of its own (never saved).
#include "app/models/worker_types.h"
#include "app/server/completion_backend.h"
#include "app/settings/engine_config.h"
#include <QHash>
#include <QObject>
#include <memory>

namespace hearth::engine {
class EngineMetrics;
class EngineRuntime;
struct DeviceFailure;
} // namespace hearth::engine

namespace hearth::app {

class InferenceWorker : public QObject {
    Q_OBJECT
public:
    static constexpr int kFlushIntervalMs = 50; // at most 20 GUI updates a second

    // stateDir: where conversations' KV states are saved; empty: never saved.
    explicit InferenceWorker(const QString& stateDir = QString(), QObject* parent = nullptr);
    // Saves the KV state of every conversation in memory (runs on the worker's thread).
    ~InferenceWorker() override;

    // The live figures of this worker's engine, for any thread to read snapshots of; shared so
    // that a reader may outlive the worker.
    [[nodiscard]] std::shared_ptr<const engine::EngineMetrics> engineMetrics() const;

public slots:
    // Applies the settings' engine section (threads, context, cache types, device, memory budget,
    // saved-state format) to the loaded model (and to the next one loaded); answers with
    // configured() even when nothing changed.
    void configure(const hearth::app::EngineConfig& config);
    // Loads the file; the model loaded before stays loaded if this one fails.
    void loadModel(quint64 requestId, const QString& path);
    // The image projector a model file loads with from now on, instead of the one beside it (empty:
    // the one beside it again).
    void chooseImageProjector(const QString& modelPath, const QString& projectorPath);
    // Touches every weight and starts the kernel threads so the first reply is fast.
    void warmUp(quint64 requestId);
    void unloadModel();
    // A chat's reply; its cancel token stops it (or, set while it waits, stops it before its first token).
    void generate(const hearth::app::GenerationRequest& request);
    // The conversation was deleted: drops its cache and deletes its saved state.
    void forgetConversation(const QString& conversationId);
    // An API server request: answered with completionPiece()s and one completionFinished().
    void complete(const hearth::server::CompletionRequest& request);

signals:
    void loadFinished(quint64 requestId, bool ok, const hearth::app::ModelSummary& summary,
                      const QString& error);
    void warmUpFinished(quint64 requestId, double seconds);
    // The loaded model as it now runs, after configure() or a fall back to the CPU (not emitted
    // without a model).
    void configured(const hearth::app::ModelSummary& summary);
    // The GPU the settings chose could not be used (none such, too little memory) or failed while
    // it ran (lost): every layer runs on the CPU now, the conversations kept. `message` says so
    // and why, for the user. The same choice is tried again only once the device settings, the
    // context or the model change.
    void deviceFailed(const QString& message);
    void modelUnloaded();
    void piecesReady(quint64 requestId, const QString& text);
    // The function calls of a reply that offered tools, before its generationFinished.
    void toolCallsReady(quint64 requestId, const QList<hearth::server::ApiToolCall>& calls);
    void generationFinished(quint64 requestId, const hearth::app::GenerationResult& result);
    void generationFailed(quint64 requestId, const QString& message);
    void completionPiece(quint64 requestId, const QString& text);
    void completionToolCall(quint64 requestId, int index, const hearth::server::ApiToolCall& call);
    void completionFinished(quint64 requestId, const hearth::server::CompletionResult& result);

private:
    // The loaded model as it runs now, for configured() and loadFinished().
    ModelSummary summary() const;
    // The device the settings chose could not take the model: says so.
    void reportUnusableDevice(const engine::DeviceFailure& failure);
    std::unique_ptr<engine::EngineRuntime> runtime_;
    double loadSeconds_ = 0;
    QHash<QString, QString> chosenProjectors_; // model path -> projector path
};

} // namespace hearth::app
