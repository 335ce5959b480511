#pragma once
// The user's preferences. Values live in memory and are exposed to QML as
// properties, so every change applies at once; they are read from QSettings
// when the app starts and written back on a background thread shortly after
// each change (the GUI thread never touches the settings file after startup).
#include "app/settings/engine_config.h"
#include "engine/sampling/sampler.h"
#include "engine/session/generation_options.h"
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>
#include <QUrl>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>
#include <cmath>

namespace hearth::app {

// The engine's sampling defaults (engine::SamplingParams, the one place they are set) in the
// settings' types, each float as the decimal it was written as (0.8f reads 0.8).
struct SamplingDefaults {
    static double decimal(float value) { return std::round(static_cast<double>(value) * 1e6) / 1e6; }
    double temperature = decimal(engine::SamplingParams{}.temperature);
    int topK = engine::SamplingParams{}.top_k;
    double topP = decimal(engine::SamplingParams{}.top_p);
    double minP = decimal(engine::SamplingParams{}.min_p);
    double repeatPenalty = decimal(engine::SamplingParams{}.repeat_penalty);
    int seed = -1; // the settings' own: a new random seed per reply
};

class AppSettings : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("AppSettings is created by the application")
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY changed)
    Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY changed)
    Q_PROPERTY(int topK READ topK WRITE setTopK NOTIFY changed)
    Q_PROPERTY(double topP READ topP WRITE setTopP NOTIFY changed)
    Q_PROPERTY(double minP READ minP WRITE setMinP NOTIFY changed)
    Q_PROPERTY(double repeatPenalty READ repeatPenalty WRITE setRepeatPenalty NOTIFY changed)
    Q_PROPERTY(int seed READ seed WRITE setSeed NOTIFY changed)
    Q_PROPERTY(int maxReplyTokens READ maxReplyTokens WRITE setMaxReplyTokens NOTIFY changed)
    Q_PROPERTY(int contextLength READ contextLength WRITE setContextLength NOTIFY engineConfigChanged)
    Q_PROPERTY(int threads READ threads WRITE setThreads NOTIFY engineConfigChanged)
    Q_PROPERTY(QString keyCacheType READ keyCacheType WRITE setKeyCacheType NOTIFY engineConfigChanged)
    Q_PROPERTY(QString valueCacheType READ valueCacheType WRITE setValueCacheType NOTIFY engineConfigChanged)
    Q_PROPERTY(QStringList cacheTypes READ cacheTypes CONSTANT)
    Q_PROPERTY(QString computeDevice READ computeDevice WRITE setComputeDevice NOTIFY engineConfigChanged)
    Q_PROPERTY(int gpuLayers READ gpuLayers WRITE setGpuLayers NOTIFY engineConfigChanged)
    Q_PROPERTY(int conversationMemoryMB READ conversationMemoryMB WRITE setConversationMemoryMB NOTIFY
                   conversationMemoryChanged)
    Q_PROPERTY(bool compressSavedStates READ compressSavedStates WRITE setCompressSavedStates NOTIFY
                   savedStatesChanged)
    Q_PROPERTY(QString chatTemplate READ chatTemplate WRITE setChatTemplate NOTIFY changed)
    Q_PROPERTY(QString modelsFolder READ modelsFolder WRITE setModelsFolder NOTIFY modelsFolderChanged)
    Q_PROPERTY(QString theme READ theme WRITE setTheme NOTIFY appearanceChanged)
    Q_PROPERTY(int fontSize READ fontSize WRITE setFontSize NOTIFY appearanceChanged)
    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
    Q_PROPERTY(QStringList recentModels READ recentModels NOTIFY recentModelsChanged)
    Q_PROPERTY(QString fileName READ fileName CONSTANT)
    // The local API server (OpenAI-compatible, on 127.0.0.1): off by default.
    Q_PROPERTY(bool serverEnabled READ serverEnabled WRITE setServerEnabled NOTIFY serverChanged)
    Q_PROPERTY(int serverPort READ serverPort WRITE setServerPort NOTIFY serverChanged)
    Q_PROPERTY(QString serverApiKey READ serverApiKey WRITE setServerApiKey NOTIFY serverChanged)
    // Web pages (origins) allowed to call it, and host names besides loopback: lists as typed,
    // separated by commas or spaces (the server's front door reads them).
    Q_PROPERTY(QString serverAllowedOrigins READ serverAllowedOrigins WRITE setServerAllowedOrigins NOTIFY
                   serverChanged)
    Q_PROPERTY(
        QString serverAllowedHosts READ serverAllowedHosts WRITE setServerAllowedHosts NOTIFY serverChanged)
    // Speculative decoding, for the chat's replies and the API server's: "off", "lookup" (prompt
    // lookup of the last lookupNgram tokens) or "draft" (the draft model file draftModelPath, of
    // the loaded model's vocabulary), with up to draftMax tokens drafted per verify pass.
    Q_PROPERTY(QString speculation READ speculation WRITE setSpeculation NOTIFY speculationChanged)
    Q_PROPERTY(QString draftModelPath READ draftModelPath WRITE setDraftModelPath NOTIFY speculationChanged)
    Q_PROPERTY(int draftMax READ draftMax WRITE setDraftMax NOTIFY speculationChanged)
    Q_PROPERTY(int lookupNgram READ lookupNgram WRITE setLookupNgram NOTIFY speculationChanged)
    // MCP servers whose tools replies may call: JSON text, a list of McpServerConfig
    // (app/tools/mcp_server_config.h); the tools' calls each end within toolTimeoutSeconds, and
    // the tools in alwaysAllowedTools ("server/tool") run without asking.
    Q_PROPERTY(QString mcpServers READ mcpServers WRITE setMcpServers NOTIFY toolsChanged)
    Q_PROPERTY(int toolTimeoutSeconds READ toolTimeoutSeconds WRITE setToolTimeoutSeconds NOTIFY toolsChanged)
    Q_PROPERTY(QStringList alwaysAllowedTools READ alwaysAllowedTools WRITE setAlwaysAllowedTools NOTIFY
                   toolsChanged)
    // What the server is doing now (set by the backend, not saved).
    Q_PROPERTY(bool serverListening READ serverListening NOTIFY serverStateChanged)
    Q_PROPERTY(QString serverUrl READ serverUrl NOTIFY serverStateChanged)
    Q_PROPERTY(QString serverError READ serverError NOTIFY serverStateChanged)

public:
    // fileName: an INI file (tests, --settings); empty: QSettings' standard place for Hearth.
    explicit AppSettings(const QString& fileName, const QString& defaultModelsFolder,
                         QObject* parent = nullptr);
    ~AppSettings() override; // writes pending changes

    [[nodiscard]] QString systemPrompt() const { return systemPrompt_; }
    [[nodiscard]] double temperature() const { return temperature_; }
    [[nodiscard]] int topK() const { return topK_; }
    [[nodiscard]] double topP() const { return topP_; }
    [[nodiscard]] double minP() const { return minP_; }
    [[nodiscard]] double repeatPenalty() const { return repeatPenalty_; }
    [[nodiscard]] int seed() const { return seed_; } // -1: a new random seed per reply
    [[nodiscard]] int maxReplyTokens() const { return maxReplyTokens_; }
    [[nodiscard]] int contextLength() const { return contextLength_; }
    [[nodiscard]] int threads() const { return threads_; } // 0: automatic, automaticThreads(0)
    // What the KV cache stores keys and values as, by the engine's names: "f16" (the default),
    // "q8_0" or "q4_0" (about half and a quarter of F16's memory, with their rounding).
    [[nodiscard]] QString keyCacheType() const;
    [[nodiscard]] QString valueCacheType() const;
    // The names of the types the engine's KV cache takes (engine::kv_cache_type_choices).
    [[nodiscard]] static QStringList cacheTypes();
    // Where the model runs: "cpu" (the default) or a Vulkan device, "vulkan:N" (N as the engine
    // lists them, engine::gpu_devices).
    [[nodiscard]] QString computeDevice() const;
    // How many of the model's first layers run on that GPU; -1 (the default): as many as fit in
    // its memory.
    [[nodiscard]] int gpuLayers() const { return gpuLayers_; }
    // Everything the engine runs the model with, in one typed value (threads 0: automatic).
    [[nodiscard]] EngineConfig engineConfig() const;
    // How the next reply is generated (sampling, its length, the template), as the engine takes
    // it; a seed of -1 is a new random seed each call.
    [[nodiscard]] engine::GenerationOptions generationOptions() const;
    // The threads a setting runs with: itself, or for 0 one per hardware thread
    // (engine::resolve_threads, where the engine resolves 0).
    [[nodiscard]] static int automaticThreads(int setting);
    // KV memory kept for conversations before the least recently used is saved to disk and dropped.
    [[nodiscard]] int conversationMemoryMB() const { return conversationMemoryMB_; }
    // Conversations' KV states are saved to disk as Q8_0 (about half the size of F16, with
    // Q8_0's rounding when they resume) instead of F16.
    [[nodiscard]] bool compressSavedStates() const { return compressSavedStates_; }
    // Jinja chat template; empty: the model's own (ChatML when it has none).
    [[nodiscard]] QString chatTemplate() const { return chatTemplate_; }
    [[nodiscard]] QString modelsFolder() const { return modelsFolder_; }
    [[nodiscard]] QString theme() const { return theme_; } // "system", "light" or "dark"
    // The window's language: "en" or "de"; empty: the system's (LANGUAGE, LC_ALL, LANG).
    [[nodiscard]] QString language() const { return language_; }
    [[nodiscard]] int fontSize() const { return fontSize_; }
    [[nodiscard]] QStringList recentModels() const { return recentModels_; }
    [[nodiscard]] QString fileName() const { return fileName_; }
    static constexpr int kDefaultServerPort = 8642; // clear of the usual 8080, 8000 and 11434
    [[nodiscard]] bool serverEnabled() const { return serverEnabled_; }
    [[nodiscard]] int serverPort() const { return serverPort_; }                         // 0: any free port
    [[nodiscard]] QString serverApiKey() const { return serverApiKey_; }                 // empty: none needed
    [[nodiscard]] QString serverAllowedOrigins() const { return serverAllowedOrigins_; } // empty: none
    [[nodiscard]] QString serverAllowedHosts() const { return serverAllowedHosts_; }     // empty: none
    [[nodiscard]] QString speculation() const;
    [[nodiscard]] QString draftModelPath() const { return draftModelPath_; }
    [[nodiscard]] int draftMax() const { return draftMax_; }
    [[nodiscard]] int lookupNgram() const { return lookupNgram_; }
    // The speculation settings as the engine takes them (in generationOptions() too).
    [[nodiscard]] engine::SpeculationOptions speculationOptions() const;
    [[nodiscard]] QString mcpServers() const { return mcpServers_; }
    [[nodiscard]] int toolTimeoutSeconds() const { return toolTimeoutSeconds_; } // 1 to 600
    [[nodiscard]] QStringList alwaysAllowedTools() const { return alwaysAllowedTools_; }
    [[nodiscard]] bool serverListening() const { return serverListening_; }
    [[nodiscard]] QString serverUrl() const { return serverUrl_; }
    [[nodiscard]] QString serverError() const { return serverError_; } // plain words; empty when fine

    void setSystemPrompt(const QString& value);
    void setTemperature(double value);
    void setTopK(int value);
    void setTopP(double value);
    void setMinP(double value);
    void setRepeatPenalty(double value);
    void setSeed(int value);
    void setMaxReplyTokens(int value);
    void setContextLength(int value);
    void setThreads(int value);
    void setKeyCacheType(const QString& value); // an unknown name becomes "f16"
    void setValueCacheType(const QString& value);
    void setComputeDevice(const QString& value); // a name the engine does not read becomes "cpu"
    void setGpuLayers(int value);                // below -1: -1
    void setConversationMemoryMB(int value);
    void setCompressSavedStates(bool value);
    void setChatTemplate(const QString& value);
    void setModelsFolder(const QString& value);
    // What a folder dialog chose, as a URL: its local path (percent-encoding decoded) becomes
    // the models folder. Anything but a local file URL is refused and returns false.
    Q_INVOKABLE bool setModelsFolderUrl(const QUrl& folder);
    void setTheme(const QString& value);
    void setLanguage(const QString& value);
    void setFontSize(int value);
    void setServerEnabled(bool value);
    void setServerPort(int value);
    void setServerApiKey(const QString& value);
    void setServerAllowedOrigins(const QString& value);
    void setServerAllowedHosts(const QString& value);
    void setSpeculation(const QString& value); // an unknown name becomes "off"
    void setDraftModelPath(const QString& value);
    void setDraftMax(int value);    // 1 to 16
    void setLookupNgram(int value); // 1 to 4
    void setMcpServers(const QString& value);
    void setToolTimeoutSeconds(int value);
    void setAlwaysAllowedTools(const QStringList& value);
    // The backend reports the server's state here, for the settings panel.
    void setServerState(bool listening, const QString& url, const QString& error);

    // Puts `path` first in the recent models (at most 10).
    Q_INVOKABLE void rememberModel(const QString& path);
    Q_INVOKABLE void forgetModel(const QString& path);
    // The image projector (mmproj) the user chose for a model file, instead of the one found beside
    // it; empty: none chosen. Choosing an empty path forgets the choice.
    [[nodiscard]] QString imageProjectorFor(const QString& modelPath) const;
    void setImageProjectorFor(const QString& modelPath, const QString& projectorPath);
    // Every choice: model path -> projector path.
    [[nodiscard]] QHash<QString, QString> imageProjectors() const;
    Q_INVOKABLE void resetSampling();
    // Writes now and waits until the file is written.
    void flush();

signals:
    void changed();             // generation settings
    void engineConfigChanged(); // context length, threads, cache types or device: the worker is reconfigured
    void conversationMemoryChanged();
    void savedStatesChanged(); // the format conversations' KV states are saved in
    void modelsFolderChanged();
    void appearanceChanged();
    void languageChanged();
    void recentModelsChanged();
    void imageProjectorsChanged();
    void serverChanged();      // enabled, port or API key: the server restarts
    void serverStateChanged(); // listening, its URL, or why it is not
    void speculationChanged(); // the drafter, the draft model, the tokens drafted or looked up
    void toolsChanged();       // the MCP servers, the tools' timeout or the tools always allowed

private:
    template <class T, class Signal> void assign(T& field, T value, Signal signal);
    void load();
    void scheduleSave();
    void saveNow();

    QString fileName_;
    QString systemPrompt_;
    double temperature_ = SamplingDefaults{}.temperature;
    int topK_ = SamplingDefaults{}.topK;
    double topP_ = SamplingDefaults{}.topP;
    double minP_ = SamplingDefaults{}.minP;
    double repeatPenalty_ = SamplingDefaults{}.repeatPenalty;
    int seed_ = SamplingDefaults{}.seed;
    int maxReplyTokens_ = 0; // 0: as long as the model's context has room for
    int contextLength_ = 2048;
    int threads_ = 0;
    engine::KvCacheTypes cacheTypes_ = EngineConfig{}.cache_types;
    engine::ComputeDevice computeDevice_ = EngineConfig{}.device;
    int gpuLayers_ = EngineConfig{}.gpu_layers;
    int conversationMemoryMB_ = 2000; // of KV cache (1 MB = 10^6 bytes, as every size the app shows)
    bool compressSavedStates_ = false;
    QString chatTemplate_;
    QString modelsFolder_;
    QString theme_ = QStringLiteral("system");
    QString language_;
    int fontSize_ = 11;
    QStringList recentModels_;
    QVariantMap imageProjectors_; // model path -> projector path
    bool serverEnabled_ = false;
    int serverPort_ = kDefaultServerPort;
    QString serverApiKey_;
    QString serverAllowedOrigins_;
    QString serverAllowedHosts_;
    engine::SpeculationOptions::Drafter drafter_ = engine::SpeculationOptions::Drafter::Off;
    QString draftModelPath_;
    int draftMax_ = engine::SpeculationOptions{}.max_draft;
    int lookupNgram_ = engine::SpeculationOptions{}.lookup_ngram;
    QString mcpServers_ = QStringLiteral("[]");
    int toolTimeoutSeconds_ = 30;
    QStringList alwaysAllowedTools_;
    bool serverListening_ = false;
    QString serverUrl_;
    QString serverError_;

    QTimer saveTimer_;
    QThreadPool writer_; // one thread: writes land in order
};

} // namespace hearth::app
