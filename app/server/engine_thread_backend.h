#pragma once
// The completion backend of `hearth-cli serve`: the model, its forward pass and a
// session store of its own, on a thread of its own (the app's backend is its
// inference worker instead). Completions run one at a time in the order they came.
#include "app/server/completion_backend.h"
#include <QThread>
#include <memory>
#include <string>

namespace hearth::engine {
struct InferenceOptions;
}

namespace hearth::server {

class EngineThreadBackend : public CompletionBackend {
public:
    // Loads the model here (throws hearth::Error when it cannot), then starts the thread.
    // contextLength is capped at the model's trained context.
    EngineThreadBackend(const std::string& modelPath, const engine::InferenceOptions& options,
                        int contextLength);
    // Waits for the completion running, if any (cancel it first to be quick).
    ~EngineThreadBackend() override;

    [[nodiscard]] QString modelId() const override { return modelId_; }
    void start(const CompletionRequest& request) override;
    void forgetSession(const QString& sessionId) override;
    [[nodiscard]] int contextLength() const;

private:
    struct Engine;
    std::unique_ptr<Engine> engine_; // used only on thread_ once it runs
    QString modelId_;
    QThread thread_;
    QObject* runner_; // lives on thread_: what queued work is posted to
};

} // namespace hearth::server
