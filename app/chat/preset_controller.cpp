#include "app/chat/preset_controller.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "app/storage/records.h"
#include "engine/chat/chat_template.h"
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QtDebug>
#include <algorithm>
#include <memory>
#include <qcoro/qcorofuture.h>

namespace hearth::app {

namespace {
const QString kSystemPrompt = QStringLiteral("systemPrompt");
const QString kTemperature = QStringLiteral("temperature");
const QString kTopK = QStringLiteral("topK");
const QString kTopP = QStringLiteral("topP");
const QString kMinP = QStringLiteral("minP");
const QString kRepeatPenalty = QStringLiteral("repeatPenalty");
const QString kMaxReplyTokens = QStringLiteral("maxReplyTokens");
const QString kContextLength = QStringLiteral("contextLength");
const QString kChatTemplate = QStringLiteral("chatTemplate");

// The preset's fields that are set, by name, with their values.
QVariantMap overridesOf(const ModelPreset& p) {
    QVariantMap map;
    const auto put = [&map](const QString& name, const auto& field) {
        if (field) map.insert(name, QVariant::fromValue(*field));
    };
    put(kSystemPrompt, p.systemPrompt);
    put(kTemperature, p.temperature);
    put(kTopK, p.topK);
    put(kTopP, p.topP);
    put(kMinP, p.minP);
    put(kRepeatPenalty, p.repeatPenalty);
    put(kMaxReplyTokens, p.maxReplyTokens);
    put(kContextLength, p.contextLength);
    put(kChatTemplate, p.chatTemplate);
    return map;
}

// One spelling per file, as ModelController loads it ("a/../b.gguf" is "b.gguf").
QString keyOf(const QString& path) {
    return path.isEmpty() ? path : QDir::cleanPath(QDir::current().absoluteFilePath(path));
}

qint64 fileSizeOf(const QString& path) {
    const QFileInfo info(path);
    return info.isFile() ? info.size() : -1;
}
} // namespace

PresetController::PresetController(AppSettings* settings, ConversationStore* store, ModelController* models,
                                   QObject* parent)
    : QObject(parent), settings_(settings), store_(store), models_(models) {
    connect(models, &ModelController::stateChanged, this, &PresetController::onModelChanged);
}

QStringList PresetController::presetFields() {
    return {kSystemPrompt,  kTemperature,    kTopK,          kTopP,        kMinP,
            kRepeatPenalty, kMaxReplyTokens, kContextLength, kChatTemplate};
}

QCoro::Task<> PresetController::start() {
    struct Stored {
        QList<ModelPreset> models;
        QList<PromptPreset> prompts;
        QHash<QString, QString> choices;
    };
    auto stored = std::make_shared<Stored>();
    const QPointer<PresetController> self(this);
    QFuture<void> read = store_->read([stored](SqlStore& s) {
        const PresetStore presets(s);
        stored->models = presets.modelPresets();
        stored->prompts = presets.promptPresets();
        stored->choices = presets.conversationPresets();
    });
    co_await read;
    if (!self) co_return;
    for (const ModelPreset& p : std::as_const(stored->models))
        modelPresets_.insert(p.path, p);
    prompts_.setPresets(stored->prompts);
    // Choices made while the store was read are newer than what it held.
    for (auto it = stored->choices.cbegin(); it != stored->choices.cend(); ++it)
        if (!choices_.contains(it.key())) choices_.insert(it.key(), it.value());
    ready_ = true;
    ++choiceRevision_;
    ++modelPresetRevision_;
    emit readyChanged();
    emit choicesChanged();
    emit modelPresetsChanged();
    // A model loaded before the presets were read gets its own now.
    loadedPath_.clear();
    onModelChanged();
}

void PresetController::onModelChanged() {
    const QString path = models_->modelPath();
    if (path == loadedPath_) return;
    loadedPath_ = path;
    const auto preset = modelPresets_.constFind(path);
    loadedPresetApplies_ = preset != modelPresets_.cend() && preset->fileSize == fileSizeOf(path);
    presetOfLoadedModelChanged();
}

void PresetController::presetOfLoadedModelChanged() {
    emit loadedPresetChanged();
    models_->reconfigure(); // the preset's context, or the global one again (nothing if unchanged)
}

const ModelPreset* PresetController::loadedPreset() const {
    if (loadedPath_.isEmpty() || !loadedPresetApplies_) return nullptr;
    const auto it = modelPresets_.constFind(loadedPath_);
    return it == modelPresets_.cend() ? nullptr : &*it;
}

const ModelPreset* PresetController::applicablePreset(const QString& path) const {
    if (path == loadedPath_ && !path.isEmpty()) return loadedPreset();
    const auto it = modelPresets_.constFind(path);
    if (it == modelPresets_.cend() || it->fileSize != fileSizeOf(path)) return nullptr;
    return &*it;
}

QStringList PresetController::loadedOverrides() const {
    const ModelPreset* preset = loadedPreset();
    return preset ? overridesOf(*preset).keys() : QStringList();
}

bool PresetController::hasModelPreset(const QString& path) const {
    return modelPresets_.contains(keyOf(path));
}

QVariantMap PresetController::modelPreset(const QString& modelPath) const {
    const QString path = keyOf(modelPath);
    QVariantMap globals{{kSystemPrompt, settings_->systemPrompt()},
                        {kTemperature, settings_->temperature()},
                        {kTopK, settings_->topK()},
                        {kTopP, settings_->topP()},
                        {kMinP, settings_->minP()},
                        {kRepeatPenalty, settings_->repeatPenalty()},
                        {kMaxReplyTokens, settings_->maxReplyTokens()},
                        {kContextLength, settings_->contextLength()},
                        {kChatTemplate, settings_->chatTemplate()}};
    const auto it = modelPresets_.constFind(path);
    const bool has = it != modelPresets_.cend();
    return {{QStringLiteral("hasPreset"), has},
            {QStringLiteral("fileChanged"), has && it->fileSize != fileSizeOf(path)},
            {QStringLiteral("overrides"), has ? overridesOf(*it) : QVariantMap()},
            {QStringLiteral("globals"), globals}};
}

QString PresetController::saveModelPreset(const QString& modelPath, const QVariantMap& overrides) {
    const QString path = keyOf(modelPath);
    const QString fileName = QFileInfo(path).fileName();
    const qint64 size = fileSizeOf(path);
    if (size < 0) return tr("%1: the file is not there, so its settings were not saved").arg(path);
    ModelPreset preset;
    preset.path = path;
    preset.fileSize = size;
    for (auto it = overrides.cbegin(); it != overrides.cend(); ++it) {
        const QString& name = it.key();
        const QVariant& v = it.value();
        // The ranges the global settings take (AppSettings' setters).
        if (name == kSystemPrompt)
            preset.systemPrompt = v.toString();
        else if (name == kTemperature)
            preset.temperature = std::clamp(v.toDouble(), 0.0, 2.0);
        else if (name == kTopK)
            preset.topK = std::clamp(v.toInt(), 0, 1000);
        else if (name == kTopP)
            preset.topP = std::clamp(v.toDouble(), 0.0, 1.0);
        else if (name == kMinP)
            preset.minP = std::clamp(v.toDouble(), 0.0, 1.0);
        else if (name == kRepeatPenalty)
            preset.repeatPenalty = std::clamp(v.toDouble(), 1.0, 2.0);
        else if (name == kMaxReplyTokens)
            preset.maxReplyTokens = std::clamp(v.toInt(), 0, 32768);
        else if (name == kContextLength)
            preset.contextLength = std::clamp(v.toInt(), 64, 131072);
        else if (name == kChatTemplate)
            preset.chatTemplate = v.toString();
        else
            qWarning("Model settings: no setting is called %s; ignored", qPrintable(name));
    }
    if (preset.chatTemplate && !preset.chatTemplate->isEmpty()) {
        try {
            const chat::ChatTemplate parsed(preset.chatTemplate->toStdString(), "chat template");
        } catch (const std::exception& e) {
            return tr("%1: the settings were not saved, because the chat template does not parse: %2")
                .arg(fileName, QString::fromUtf8(e.what()));
        }
    }
    if (preset.overridesNothing()) {
        resetModelPreset(path);
        return {};
    }
    modelPresets_.insert(path, preset);
    store_->write(QStringLiteral("model preset ") + path,
                  [preset](SqlStore& s) { PresetStore(s).saveModelPreset(preset); });
    ++modelPresetRevision_;
    emit modelPresetsChanged();
    if (path == loadedPath_) {
        loadedPresetApplies_ = true; // saved for the file as it is now
        presetOfLoadedModelChanged();
    }
    return {};
}

void PresetController::resetModelPreset(const QString& modelPath) {
    const QString path = keyOf(modelPath);
    if (!modelPresets_.remove(path)) return;
    store_->write(QStringLiteral("model preset ") + path,
                  [path](SqlStore& s) { PresetStore(s).deleteModelPreset(path); });
    ++modelPresetRevision_;
    emit modelPresetsChanged();
    if (path == loadedPath_) {
        loadedPresetApplies_ = false;
        presetOfLoadedModelChanged();
    }
}

QString PresetController::createPrompt(const QString& name, const QString& prompt) {
    const QString trimmed = name.simplified();
    if (trimmed.isEmpty()) return {};
    const PromptPreset preset{newRecordId(), trimmed, prompt, false};
    prompts_.append(preset);
    store_->write(QStringLiteral("prompt preset ") + preset.id,
                  [preset](SqlStore& s) { PresetStore(s).savePromptPreset(preset); });
    return preset.id;
}

bool PresetController::renamePrompt(const QString& id, const QString& name) {
    const PromptPreset* found = prompts_.find(id);
    const QString trimmed = name.simplified();
    if (!found || trimmed.isEmpty()) return false;
    PromptPreset preset = *found;
    preset.name = trimmed;
    prompts_.update(preset);
    store_->write(QStringLiteral("prompt preset ") + id,
                  [preset](SqlStore& s) { PresetStore(s).savePromptPreset(preset); });
    return true;
}

bool PresetController::editPrompt(const QString& id, const QString& prompt) {
    const PromptPreset* found = prompts_.find(id);
    if (!found) return false;
    PromptPreset preset = *found;
    preset.prompt = prompt;
    prompts_.update(preset);
    store_->write(QStringLiteral("prompt preset ") + id,
                  [preset](SqlStore& s) { PresetStore(s).savePromptPreset(preset); });
    return true;
}

bool PresetController::deletePrompt(const QString& id) {
    if (!prompts_.remove(id)) return false;
    store_->write(QStringLiteral("delete prompt preset ") + id,
                  [id](SqlStore& s) { PresetStore(s).deletePromptPreset(id); });
    // As the database does (ON DELETE CASCADE): its conversations use the default again.
    for (auto it = choices_.begin(); it != choices_.end();)
        it = it.value() == id ? choices_.erase(it) : std::next(it);
    if (newChatChoice_ == id) newChatChoice_.clear();
    ++choiceRevision_;
    emit choicesChanged();
    return true;
}

QString PresetController::presetIdFor(const QString& conversationId) const {
    return conversationId.isEmpty() ? newChatChoice_ : choices_.value(conversationId);
}

void PresetController::choosePrompt(const QString& conversationId, const QString& presetId) {
    if (!presetId.isEmpty() && !prompts_.find(presetId)) return;
    if (presetIdFor(conversationId) == presetId) return;
    if (conversationId.isEmpty()) {
        newChatChoice_ = presetId;
    } else {
        if (presetId.isEmpty())
            choices_.remove(conversationId);
        else
            choices_.insert(conversationId, presetId);
        store_->write(QStringLiteral("conversation preset ") + conversationId,
                      [conversationId, presetId](SqlStore& s) {
                          PresetStore(s).setConversationPreset(conversationId, presetId);
                      });
    }
    ++choiceRevision_;
    emit choicesChanged();
}

void PresetController::conversationCreated(const QString& conversationId) {
    const QString choice = std::exchange(newChatChoice_, QString());
    if (!choice.isEmpty()) choosePrompt(conversationId, choice);
}

void PresetController::newChatStarted() {
    if (newChatChoice_.isEmpty()) return;
    newChatChoice_.clear();
    ++choiceRevision_;
    emit choicesChanged();
}

QString PresetController::systemPromptFor(const QString& conversationId) const {
    if (const PromptPreset* chosen = prompts_.find(presetIdFor(conversationId))) return chosen->prompt;
    if (const ModelPreset* preset = loadedPreset(); preset && preset->systemPrompt)
        return *preset->systemPrompt;
    return settings_->systemPrompt();
}

engine::GenerationOptions PresetController::generationOptions() const {
    engine::GenerationOptions options = settings_->generationOptions();
    const ModelPreset* p = loadedPreset();
    if (!p) return options;
    engine::SamplingParams& sampling = options.sampling;
    if (p->temperature) sampling.temperature = static_cast<float>(*p->temperature);
    if (p->topK) sampling.top_k = *p->topK;
    if (p->topP) sampling.top_p = static_cast<float>(*p->topP);
    if (p->minP) sampling.min_p = static_cast<float>(*p->minP);
    if (p->repeatPenalty) sampling.repeat_penalty = static_cast<float>(*p->repeatPenalty);
    if (p->maxReplyTokens) options.max_tokens = *p->maxReplyTokens;
    if (p->chatTemplate) options.template_override = p->chatTemplate->toStdString();
    return options;
}

int PresetController::maxReplyTokens() const {
    const ModelPreset* preset = loadedPreset();
    return preset && preset->maxReplyTokens ? *preset->maxReplyTokens : settings_->maxReplyTokens();
}

EngineConfig PresetController::engineConfigFor(const QString& path) const {
    EngineConfig config = settings_->engineConfig();
    if (const ModelPreset* preset = applicablePreset(path); preset && preset->contextLength)
        config.context_length = *preset->contextLength;
    return config;
}

} // namespace hearth::app
