#include "app/settings/app_settings.h"
#include "engine/forward/thread_count.h"
#include <QDir>
#include <QRandomGenerator>
#include <QSemaphore>
#include <QSettings>
#include <QVariantMap>
#include <algorithm>
#include <memory>

namespace hearth::app {

namespace {
constexpr int kMaxRecentModels = 10;
constexpr int kMinConversationMemoryMB = 1;
constexpr int kMaxConversationMemoryMB = 1000000;
constexpr int kMaxGpuLayers = 4096;

std::unique_ptr<QSettings> openSettings(const QString& fileName) {
    if (fileName.isEmpty())
        return std::make_unique<QSettings>(QStringLiteral("Hearth"), QStringLiteral("Hearth"));
    return std::make_unique<QSettings>(fileName, QSettings::IniFormat);
}
} // namespace

AppSettings::AppSettings(const QString& fileName, const QString& defaultModelsFolder, QObject* parent)
    : QObject(parent), fileName_(fileName), modelsFolder_(defaultModelsFolder) {
    writer_.setMaxThreadCount(1);
    saveTimer_.setSingleShot(true);
    saveTimer_.setInterval(250);
    connect(&saveTimer_, &QTimer::timeout, this, &AppSettings::saveNow);
    load();
}

AppSettings::~AppSettings() {
    flush();
}

template <class T, class Signal> void AppSettings::assign(T& field, T value, Signal signal) {
    if (field == value) return;
    field = std::move(value);
    scheduleSave();
    emit(this->*signal)();
}

void AppSettings::setSystemPrompt(const QString& v) {
    assign(systemPrompt_, v, &AppSettings::changed);
}
void AppSettings::setTemperature(double v) {
    assign(temperature_, std::clamp(v, 0.0, 2.0), &AppSettings::changed);
}
void AppSettings::setTopK(int v) {
    assign(topK_, std::clamp(v, 0, 1000), &AppSettings::changed);
}
void AppSettings::setTopP(double v) {
    assign(topP_, std::clamp(v, 0.0, 1.0), &AppSettings::changed);
}
void AppSettings::setMinP(double v) {
    assign(minP_, std::clamp(v, 0.0, 1.0), &AppSettings::changed);
}
void AppSettings::setRepeatPenalty(double v) {
    assign(repeatPenalty_, std::clamp(v, 1.0, 2.0), &AppSettings::changed);
}
void AppSettings::setSeed(int v) {
    assign(seed_, std::max(v, -1), &AppSettings::changed);
}
void AppSettings::setMaxReplyTokens(int v) {
    assign(maxReplyTokens_, std::clamp(v, 0, 32768), &AppSettings::changed);
}
void AppSettings::setContextLength(int v) {
    assign(contextLength_, std::clamp(v, 64, 131072), &AppSettings::engineConfigChanged);
}
void AppSettings::setThreads(int v) {
    assign(threads_, std::clamp(v, 0, 256), &AppSettings::engineConfigChanged);
}
namespace {
// The type a name stands for; a name the engine does not know is F16.
kernels::TensorType knownCacheType(const QString& name) {
    return engine::kv_cache_type_from_name(name.toStdString()).value_or(kernels::TensorType::F16);
}
engine::ComputeDevice knownComputeDevice(const QString& name) {
    return engine::compute_device_from_name(name.toStdString()).value_or(engine::ComputeDevice{});
}
int knownGpuLayers(int layers) {
    return std::clamp(layers, -1, kMaxGpuLayers);
}
// The settings' names of the drafters the app offers; another name is Off.
using Drafter = engine::SpeculationOptions::Drafter;
Drafter knownDrafter(const QString& name) {
    if (name == QLatin1String("lookup")) return Drafter::PromptLookup;
    if (name == QLatin1String("draft")) return Drafter::DraftModel;
    return Drafter::Off;
}
int knownDraftMax(int tokens) {
    return std::clamp(tokens, 1, 16);
}
int knownLookupNgram(int tokens) {
    return std::clamp(tokens, 1, 4);
}
} // namespace
QStringList AppSettings::cacheTypes() {
    QStringList names;
    for (const kernels::TensorType type : engine::kv_cache_type_choices())
        names.append(cacheTypeName(type));
    return names;
}
QString AppSettings::keyCacheType() const {
    return cacheTypeName(cacheTypes_.keys);
}
QString AppSettings::valueCacheType() const {
    return cacheTypeName(cacheTypes_.values);
}
QString AppSettings::computeDevice() const {
    return QString::fromStdString(engine::compute_device_name(computeDevice_));
}
void AppSettings::setKeyCacheType(const QString& v) {
    assign(cacheTypes_, engine::KvCacheTypes{knownCacheType(v), cacheTypes_.values},
           &AppSettings::engineConfigChanged);
}
void AppSettings::setValueCacheType(const QString& v) {
    assign(cacheTypes_, engine::KvCacheTypes{cacheTypes_.keys, knownCacheType(v)},
           &AppSettings::engineConfigChanged);
}
void AppSettings::setComputeDevice(const QString& v) {
    assign(computeDevice_, knownComputeDevice(v), &AppSettings::engineConfigChanged);
}
void AppSettings::setGpuLayers(int v) {
    assign(gpuLayers_, knownGpuLayers(v), &AppSettings::engineConfigChanged);
}
EngineConfig AppSettings::engineConfig() const {
    EngineConfig config;
    config.threads = threads_; // 0: the engine resolves it (engine::resolve_threads)
    config.context_length = contextLength_;
    config.cache_types = cacheTypes_;
    config.device = computeDevice_;
    config.gpu_layers = gpuLayers_;
    config.memory_budget_bytes = static_cast<size_t>(conversationMemoryMB_) * 1000000;
    config.saved_format = compressSavedStates_ ? engine::KvStateFormat::Q8_0 : engine::KvStateFormat::F16;
    return config;
}
engine::GenerationOptions AppSettings::generationOptions() const {
    engine::GenerationOptions options;
    engine::SamplingParams& sampling = options.sampling;
    sampling.temperature = static_cast<float>(temperature_);
    sampling.top_k = topK_;
    sampling.top_p = static_cast<float>(topP_);
    sampling.min_p = static_cast<float>(minP_);
    sampling.repeat_penalty = static_cast<float>(repeatPenalty_);
    sampling.seed = seed_ >= 0 ? static_cast<uint64_t>(seed_) : QRandomGenerator::global()->generate64();
    options.max_tokens = maxReplyTokens_;
    options.template_override = chatTemplate_.toStdString();
    options.speculation = speculationOptions();
    return options;
}
QString AppSettings::speculation() const {
    switch (drafter_) {
    case Drafter::PromptLookup:
        return QStringLiteral("lookup");
    case Drafter::DraftModel:
        return QStringLiteral("draft");
    default:
        return QStringLiteral("off");
    }
}
engine::SpeculationOptions AppSettings::speculationOptions() const {
    engine::SpeculationOptions speculation;
    speculation.drafter = drafter_;
    speculation.lookup_ngram = lookupNgram_;
    speculation.max_draft = draftMax_;
    speculation.draft_model_path = draftModelPath_.toStdString();
    // No draft chosen yet: nothing to draft with.
    if (drafter_ == Drafter::DraftModel && draftModelPath_.isEmpty()) speculation.drafter = Drafter::Off;
    return speculation;
}
void AppSettings::setSpeculation(const QString& v) {
    assign(drafter_, knownDrafter(v), &AppSettings::speculationChanged);
}
void AppSettings::setDraftModelPath(const QString& v) {
    assign(draftModelPath_, v, &AppSettings::speculationChanged);
}
void AppSettings::setDraftMax(int v) {
    assign(draftMax_, knownDraftMax(v), &AppSettings::speculationChanged);
}
void AppSettings::setLookupNgram(int v) {
    assign(lookupNgram_, knownLookupNgram(v), &AppSettings::speculationChanged);
}
int AppSettings::automaticThreads(int setting) {
    // On 2 cores the app generates faster with both than with one kept free for the window: the
    // window's work between updates does not pay for a core.
    return engine::resolve_threads(setting);
}
void AppSettings::setConversationMemoryMB(int v) {
    assign(conversationMemoryMB_, std::clamp(v, kMinConversationMemoryMB, kMaxConversationMemoryMB),
           &AppSettings::conversationMemoryChanged);
}
void AppSettings::setCompressSavedStates(bool v) {
    assign(compressSavedStates_, v, &AppSettings::savedStatesChanged);
}
void AppSettings::setChatTemplate(const QString& v) {
    assign(chatTemplate_, v, &AppSettings::changed);
}
void AppSettings::setModelsFolder(const QString& v) {
    assign(modelsFolder_, v, &AppSettings::modelsFolderChanged);
}
bool AppSettings::setModelsFolderUrl(const QUrl& folder) {
    // toLocalFile() decodes "%20" and UTF-8 escapes; the URL's text would keep them.
    if (!folder.isLocalFile()) return false;
    setModelsFolder(QDir::cleanPath(folder.toLocalFile()));
    return true;
}
void AppSettings::setTheme(const QString& v) {
    const bool known =
        v == QLatin1String("light") || v == QLatin1String("dark") || v == QLatin1String("system");
    assign(theme_, known ? v : QStringLiteral("system"), &AppSettings::appearanceChanged);
}
void AppSettings::setLanguage(const QString& v) {
    const bool known = v == QLatin1String("en") || v == QLatin1String("de");
    assign(language_, known ? v : QString(), &AppSettings::languageChanged);
}
void AppSettings::setFontSize(int v) {
    assign(fontSize_, std::clamp(v, 8, 24), &AppSettings::appearanceChanged);
}

void AppSettings::setServerEnabled(bool v) {
    assign(serverEnabled_, v, &AppSettings::serverChanged);
}
void AppSettings::setServerPort(int v) {
    assign(serverPort_, std::clamp(v, 0, 65535), &AppSettings::serverChanged);
}
void AppSettings::setServerApiKey(const QString& v) {
    assign(serverApiKey_, v.trimmed(), &AppSettings::serverChanged);
}
void AppSettings::setServerAllowedOrigins(const QString& v) {
    assign(serverAllowedOrigins_, v.simplified(), &AppSettings::serverChanged);
}
void AppSettings::setServerAllowedHosts(const QString& v) {
    assign(serverAllowedHosts_, v.simplified(), &AppSettings::serverChanged);
}
void AppSettings::setServerState(bool listening, const QString& url, const QString& error) {
    if (listening == serverListening_ && url == serverUrl_ && error == serverError_) return;
    serverListening_ = listening;
    serverUrl_ = url;
    serverError_ = error;
    emit serverStateChanged();
}

void AppSettings::rememberModel(const QString& path) {
    QStringList recent = recentModels_;
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentModels)
        recent.removeLast();
    assign(recentModels_, recent, &AppSettings::recentModelsChanged);
}

QString AppSettings::imageProjectorFor(const QString& modelPath) const {
    return imageProjectors_.value(modelPath).toString();
}

void AppSettings::setImageProjectorFor(const QString& modelPath, const QString& projectorPath) {
    QVariantMap chosen = imageProjectors_;
    if (projectorPath.isEmpty())
        chosen.remove(modelPath);
    else
        chosen.insert(modelPath, projectorPath);
    assign(imageProjectors_, chosen, &AppSettings::imageProjectorsChanged);
}

QHash<QString, QString> AppSettings::imageProjectors() const {
    QHash<QString, QString> chosen;
    for (auto it = imageProjectors_.cbegin(); it != imageProjectors_.cend(); ++it)
        chosen.insert(it.key(), it.value().toString());
    return chosen;
}

void AppSettings::forgetModel(const QString& path) {
    QStringList recent = recentModels_;
    recent.removeAll(path);
    assign(recentModels_, recent, &AppSettings::recentModelsChanged);
}

void AppSettings::setMcpServers(const QString& v) {
    assign(mcpServers_, v, &AppSettings::toolsChanged);
}
void AppSettings::setToolTimeoutSeconds(int v) {
    assign(toolTimeoutSeconds_, std::clamp(v, 1, 600), &AppSettings::toolsChanged);
}
void AppSettings::setAlwaysAllowedTools(const QStringList& v) {
    assign(alwaysAllowedTools_, v, &AppSettings::toolsChanged);
}

void AppSettings::resetSampling() {
    const SamplingDefaults defaults;
    setTemperature(defaults.temperature);
    setTopK(defaults.topK);
    setTopP(defaults.topP);
    setMinP(defaults.minP);
    setRepeatPenalty(defaults.repeatPenalty);
    setSeed(defaults.seed);
}

void AppSettings::load() {
    const auto s = openSettings(fileName_);
    systemPrompt_ = s->value("generation/systemPrompt", systemPrompt_).toString();
    temperature_ = std::clamp(s->value("generation/temperature", temperature_).toDouble(), 0.0, 2.0);
    topK_ = std::clamp(s->value("generation/topK", topK_).toInt(), 0, 1000);
    topP_ = std::clamp(s->value("generation/topP", topP_).toDouble(), 0.0, 1.0);
    minP_ = std::clamp(s->value("generation/minP", minP_).toDouble(), 0.0, 1.0);
    repeatPenalty_ = std::clamp(s->value("generation/repeatPenalty", repeatPenalty_).toDouble(), 1.0, 2.0);
    seed_ = std::max(s->value("generation/seed", seed_).toInt(), -1);
    maxReplyTokens_ = std::clamp(s->value("generation/maxReplyTokens", maxReplyTokens_).toInt(), 0, 32768);
    contextLength_ = std::clamp(s->value("engine/contextLength", contextLength_).toInt(), 64, 131072);
    threads_ = std::clamp(s->value("engine/threads", threads_).toInt(), 0, 256);
    cacheTypes_.keys = knownCacheType(s->value("engine/keyCacheType", keyCacheType()).toString());
    cacheTypes_.values = knownCacheType(s->value("engine/valueCacheType", valueCacheType()).toString());
    computeDevice_ = knownComputeDevice(s->value("engine/computeDevice", computeDevice()).toString());
    gpuLayers_ = knownGpuLayers(s->value("engine/gpuLayers", gpuLayers_).toInt());
    // Set in MiB before every size the app shows was in decimal units: read as such once.
    const QVariant memoryMiB = s->value("engine/conversationMemoryMiB");
    const int memoryMB =
        memoryMiB.isValid() ? qRound(memoryMiB.toDouble() * 1.048576) : conversationMemoryMB_;
    conversationMemoryMB_ = std::clamp(s->value("engine/conversationMemoryMB", memoryMB).toInt(),
                                       kMinConversationMemoryMB, kMaxConversationMemoryMB);
    compressSavedStates_ = s->value("engine/compressSavedStates", compressSavedStates_).toBool();
    chatTemplate_ = s->value("generation/chatTemplate", chatTemplate_).toString();
    modelsFolder_ = s->value("models/folder", modelsFolder_).toString();
    recentModels_ = s->value("models/recent", recentModels_).toStringList();
    imageProjectors_ = s->value("models/imageProjectors", imageProjectors_).toMap();
    theme_ = s->value("appearance/theme", theme_).toString();
    language_ = s->value("appearance/language", language_).toString();
    if (language_ != QLatin1String("en") && language_ != QLatin1String("de")) language_.clear();
    fontSize_ = std::clamp(s->value("appearance/fontSize", fontSize_).toInt(), 8, 24);
    serverEnabled_ = s->value("server/enabled", serverEnabled_).toBool();
    serverPort_ = std::clamp(s->value("server/port", serverPort_).toInt(), 0, 65535);
    serverApiKey_ = s->value("server/apiKey", serverApiKey_).toString().trimmed();
    serverAllowedOrigins_ = s->value("server/allowedOrigins", serverAllowedOrigins_).toString().simplified();
    serverAllowedHosts_ = s->value("server/allowedHosts", serverAllowedHosts_).toString().simplified();
    drafter_ = knownDrafter(s->value("speculation/drafter", speculation()).toString());
    draftModelPath_ = s->value("speculation/draftModel", draftModelPath_).toString();
    draftMax_ = knownDraftMax(s->value("speculation/draftMax", draftMax_).toInt());
    lookupNgram_ = knownLookupNgram(s->value("speculation/lookupNgram", lookupNgram_).toInt());
    mcpServers_ = s->value("tools/mcpServers", mcpServers_).toString();
    toolTimeoutSeconds_ = std::clamp(s->value("tools/timeoutSeconds", toolTimeoutSeconds_).toInt(), 1, 600);
    alwaysAllowedTools_ = s->value("tools/alwaysAllowed", alwaysAllowedTools_).toStringList();
}

void AppSettings::scheduleSave() {
    saveTimer_.start();
}

void AppSettings::saveNow() {
    saveTimer_.stop();
    const QVariantMap values{
        {"generation/systemPrompt", systemPrompt_},
        {"generation/temperature", temperature_},
        {"generation/topK", topK_},
        {"generation/topP", topP_},
        {"generation/minP", minP_},
        {"generation/repeatPenalty", repeatPenalty_},
        {"generation/seed", seed_},
        {"generation/maxReplyTokens", maxReplyTokens_},
        {"engine/contextLength", contextLength_},
        {"engine/threads", threads_},
        {"engine/keyCacheType", keyCacheType()},
        {"engine/valueCacheType", valueCacheType()},
        {"engine/computeDevice", computeDevice()},
        {"engine/gpuLayers", gpuLayers_},
        {"engine/conversationMemoryMB", conversationMemoryMB_},
        {"engine/compressSavedStates", compressSavedStates_},
        {"generation/chatTemplate", chatTemplate_},
        {"models/folder", modelsFolder_},
        {"models/recent", recentModels_},
        {"models/imageProjectors", imageProjectors_},
        {"appearance/theme", theme_},
        {"appearance/language", language_},
        {"appearance/fontSize", fontSize_},
        {"server/enabled", serverEnabled_},
        {"server/port", serverPort_},
        {"server/apiKey", serverApiKey_},
        {"server/allowedOrigins", serverAllowedOrigins_},
        {"server/allowedHosts", serverAllowedHosts_},
        {"speculation/drafter", speculation()},
        {"speculation/draftModel", draftModelPath_},
        {"speculation/draftMax", draftMax_},
        {"speculation/lookupNgram", lookupNgram_},
        {"tools/mcpServers", mcpServers_},
        {"tools/timeoutSeconds", toolTimeoutSeconds_},
        {"tools/alwaysAllowed", alwaysAllowedTools_},
    };
    writer_.start([fileName = fileName_, values] {
        const auto s = openSettings(fileName);
        for (auto it = values.begin(); it != values.end(); ++it)
            s->setValue(it.key(), it.value());
        s->remove(QStringLiteral("engine/conversationMemoryMiB")); // read once as MB (load)
        s->sync();
    });
}

void AppSettings::flush() {
    if (saveTimer_.isActive()) saveNow();
    QSemaphore written;
    writer_.start([&written] { written.release(); });
    written.acquire();
}

} // namespace hearth::app
