#pragma once
// The completion backend of `hearth-cli serve`: an engine runtime of its own (the model, its
// forward pass, its sessions), on a thread of its own (the app's backend is its inference
// worker, over the app's runtime). Completions run one at a time in the order they came.
#include "app/server/completion_backend.h"
#include <QThread>
#include <memory>
#include <string>

namespace hearth::engine {
class EngineRuntime;
struct RuntimeConfig;
struct SpeculationOptions;
} // namespace hearth::engine

namespace hearth::server {

class EngineThreadBackend : public CompletionBackend {
public:
    // Loads the model here with `config` (throws hearth::Error when it cannot, or when what the
    // config chose cannot be used and config.fall_back is false), then starts the thread.
    EngineThreadBackend(const std::string& modelPath, const engine::RuntimeConfig& config);
    // Waits for the completion running, if any (cancel it first to be quick).
    ~EngineThreadBackend() override;

    [[nodiscard]] QString modelId() const override { return modelId_; }
    void start(const CompletionRequest& request) override;
    void forgetSession(const QString& sessionId) override;
    // The context each session gets (the trained context at most).
    [[nodiscard]] int contextLength() const;
    // Before the first request: loads the draft model `speculation` names (kept for every
    // request) and checks that it can draft for the model; throws hearth::Error naming both files
    // when it cannot. Nothing to do for the other drafters.
    void prepareSpeculation(const engine::SpeculationOptions& speculation);
    // Before the first request: loads the image projector (mmproj) the model reads images with;
    // throws hearth::Error naming the file when it cannot (damaged, not a projector, or made for
    // another text model). Without one, a request with images is refused.
    void loadImageProjector(const std::string& mmprojPath);

private:
    std::unique_ptr<engine::EngineRuntime> runtime_; // used only on thread_ once it runs
    QString modelId_;
    QThread thread_;
    QObject* runner_; // lives on thread_: what queued work is posted to
};

} // namespace hearth::server
