#pragma once
// Everything behind the window, wired together: settings, the conversation
// store, the inference worker on its own thread, the controllers QML uses, and the
// local API server when the settings turn it on (its requests run on the same worker).
// main() builds one; so do the controller tests and the benchmark.
#include "app/platform/app_paths.h"
#include <QObject>
#include <QString>
#include <QThread>
#include <QtQml/qqmlregistration.h>
#include <memory>

namespace hearth::app {

class AppSettings;
class ChatController;
class ConversationStore;
class DownloadController;
class InferenceWorker;
class McpServerRegistry;
class MetricsController;
class ModelController;
class PresetController;
class SpeedPredictor;
} // namespace hearth::app

namespace hearth::server {
class ApiServer;
class CompletionBackend;
} // namespace hearth::server

namespace hearth::app {

class HearthBackend : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    // What the window tells the user about the conversation database (a damaged one set aside and
    // replaced); empty when there is nothing to say.
    Q_PROPERTY(QString databaseNotice READ databaseNotice NOTIFY databaseNoticeChanged)
public:
    explicit HearthBackend(const AppPaths& paths, QObject* parent = nullptr);
    ~HearthBackend() override; // stops generation, joins the worker, finishes database writes

    // Reads the conversations and scans the models folder (both in the background).
    void start();

    [[nodiscard]] const AppPaths& paths() const { return paths_; }
    [[nodiscard]] AppSettings* settings() const { return settings_.get(); }
    [[nodiscard]] ConversationStore* store() const { return store_.get(); }
    [[nodiscard]] InferenceWorker* worker() const { return worker_; }
    [[nodiscard]] ModelController* models() const { return models_.get(); }
    [[nodiscard]] ChatController* chat() const { return chat_.get(); }
    [[nodiscard]] PresetController* presets() const { return presets_.get(); }
    [[nodiscard]] MetricsController* metrics() const { return metrics_.get(); }
    [[nodiscard]] DownloadController* downloads() const { return downloads_.get(); }
    [[nodiscard]] SpeedPredictor* speed() const { return speed_.get(); }
    [[nodiscard]] McpServerRegistry* mcpServers() const { return mcp_.get(); }
    [[nodiscard]] server::ApiServer* apiServer() const { return apiServer_.get(); }
    [[nodiscard]] QString databaseNotice() const { return databaseNotice_; }

    Q_INVOKABLE void dismissDatabaseNotice();

signals:
    void databaseNoticeChanged();

private:
    // Starts, restarts or stops the API server as the settings say, and reports its state.
    void applyServerSettings();
    // Speculative decoding as the settings say, for the API server's requests and the metrics
    // panel (the chat's replies read it from the settings with the rest of their options).
    void applySpeculationSettings();
    void applyModelPresetToApi(); // the loaded model's preset, for the API's requests

    AppPaths paths_;
    std::unique_ptr<AppSettings> settings_;
    std::unique_ptr<ConversationStore> store_;
    QThread inferenceThread_;
    InferenceWorker* worker_; // lives on inferenceThread_, deleted there
    std::unique_ptr<SpeedPredictor> speed_;
    std::unique_ptr<ModelController> models_;
    std::unique_ptr<PresetController> presets_;
    std::unique_ptr<McpServerRegistry> mcp_; // the MCP servers: they stop when it goes
    std::unique_ptr<ChatController> chat_;
    std::unique_ptr<MetricsController> metrics_;
    std::unique_ptr<DownloadController> downloads_;
    std::unique_ptr<server::CompletionBackend> apiBackend_; // the worker, seen by the server
    std::unique_ptr<server::ApiServer> apiServer_;
    quint16 apiPort_ = 0; // what the server was started with
    QString databaseNotice_;
};

} // namespace hearth::app
