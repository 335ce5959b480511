#pragma once
// The inference thread's object. It owns the loaded model, the forward pass
// (with its kernel thread pool) and the conversations' chat sessions (an
// engine::SessionStore), so that switching conversations keeps each one's KV
// cache; beyond a memory budget the least recently used are saved to the state
// folder and dropped, and come back from there instantly. The GUI talks to it
// only through queued signals; requestStop() is the one direct call, an atomic
// flag checked between tokens. Requests to the local API server run here too, in the
// same queue as the window's chats, each in a session of its own (never saved to disk).
#include "app/models/worker_types.h"
#include "app/server/completion_backend.h"
#include "app/settings/engine_config.h"
#include <QObject>
#include <atomic>
#include <memory>
#include <set>
#include <string>

namespace hearth::engine {
class EngineMetrics;
}

namespace hearth::app {

class InferenceWorker : public QObject {
    Q_OBJECT
public:
    static constexpr int kFlushIntervalMs = 50; // at most 20 GUI updates a second

    // stateDir: where conversations' KV states are saved; empty: never saved.
    explicit InferenceWorker(const QString& stateDir = QString(), QObject* parent = nullptr);
    // Saves the KV state of every conversation in memory (runs on the worker's thread).
    ~InferenceWorker() override;

    // Thread-safe: the generation `requestId` (or one queued before it) stops after its current token.
    void requestStop(quint64 requestId);
    // The live figures of this worker's engine, for any thread to read snapshots of; shared so
    // that a reader may outlive the worker.
    [[nodiscard]] std::shared_ptr<const engine::EngineMetrics> engineMetrics() const;

public slots:
    // Applies the settings' engine section to the loaded model (and to the next one loaded);
    // answers with configured() even when nothing changed.
    void configure(const hearth::app::EngineConfig& config);
    // Bytes of KV cache kept across conversations before the least recently used are
    // saved and dropped; applies at once.
    void setMemoryBudget(qint64 bytes);
    // Saves conversations' KV states as Q8_0 (about half the size) instead of F16. Applies at
    // once: the conversations in memory are saved as they were and resume from disk.
    void setCompressSavedStates(bool compress);
    // Loads the file; the model loaded before stays loaded if this one fails.
    void loadModel(quint64 requestId, const QString& path);
    // Touches every weight and starts the kernel threads so the first reply is fast.
    void warmUp(quint64 requestId);
    void unloadModel();
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
    void generationFinished(quint64 requestId, const hearth::app::GenerationResult& result);
    void generationFailed(quint64 requestId, const QString& message);
    void completionPiece(quint64 requestId, const QString& text);
    void completionFinished(quint64 requestId, const hearth::server::CompletionResult& result);

private:
    struct Engine; // the engine's objects, kept out of this header
    void resetSessions();
    // Puts the model's first layers on the configured device (or back on the CPU); when that
    // fails, every layer stays on the CPU and deviceFailed() says why.
    void applyDevice();
    // The device failed while it ran: every layer goes back to the CPU, with what the caches
    // still hold.
    void fallBackToCpu(const QString& reason);
    // The GPU's figures (time per op) into the engine's metrics: those of the forward passes
    // before (retireDeviceFigures keeps them before a forward pass goes) and the current one's.
    void retireDeviceFigures();
    void publishDeviceFigures();
    // Drops the API server's sessions, so that closing the store does not save them.
    void dropServerSessions();
    std::unique_ptr<Engine> engine_;
    QString stateDir_;
    qint64 memoryBudget_ = qint64(2) << 30;
    bool compressSavedStates_ = false;
    EngineConfig config_;
    std::atomic<bool> stop_{false};
    std::atomic<quint64> stopUpTo_{0};
    std::atomic<quint64> running_{0};
    std::set<std::string> serverSessions_;
};

} // namespace hearth::app
