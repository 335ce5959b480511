#pragma once
// Presets, seen from QML and from the chat: per model file, the settings that replace the global
// ones while it is loaded (its system prompt, sampling, reply length, context and chat template);
// the library of named system prompts; and the prompt each conversation chose. Stored in the
// conversation database (preset_store.h) on its thread; held here, on the GUI thread, as read at
// start and changed since, so that every reply asks nothing of the disk.
//
// What a reply runs with, by precedence: the conversation's chosen prompt, else the loaded model's
// preset, else the global settings (AppSettings), field by field.
#include "app/chat/prompt_preset_list_model.h"
#include "app/settings/engine_config.h"
#include "app/storage/preset_store.h"
#include "engine/session/generation_options.h"
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class AppSettings;
class ConversationStore;
class ModelController;

class PresetController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(hearth::app::PromptPresetListModel* prompts READ prompts CONSTANT)
    Q_PROPERTY(bool ready READ ready NOTIFY readyChanged)
    // Changes whenever a conversation's choice does: QML bindings that call presetIdFor() read it.
    Q_PROPERTY(int choiceRevision READ choiceRevision NOTIFY choicesChanged)
    // Changes whenever a model's preset is saved or reset: bindings that call hasModelPreset().
    Q_PROPERTY(int modelPresetRevision READ modelPresetRevision NOTIFY modelPresetsChanged)
    // The settings the loaded model's preset sets, by AppSettings' property names
    // ("temperature", "contextLength", ...); empty without a model or a preset.
    Q_PROPERTY(QStringList loadedOverrides READ loadedOverrides NOTIFY loadedPresetChanged)

public:
    PresetController(AppSettings* settings, ConversationStore* store, ModelController* models,
                     QObject* parent = nullptr);

    [[nodiscard]] PromptPresetListModel* prompts() { return &prompts_; }
    [[nodiscard]] bool ready() const { return ready_; }
    [[nodiscard]] int choiceRevision() const { return choiceRevision_; }
    [[nodiscard]] int modelPresetRevision() const { return modelPresetRevision_; }
    [[nodiscard]] QStringList loadedOverrides() const;

    // Reads the presets and the conversations' choices from the store.
    QCoro::Task<> start();

    // The names of the settings a model preset may set, as AppSettings calls them.
    static QStringList presetFields();

    // For the model's settings dialog: {"hasPreset", "fileChanged" (the file's size is no longer
    // the one saved: the preset is not applied), "overrides" {field: value} and "globals"
    // {field: value} (what the global settings give each field)}.
    Q_INVOKABLE QVariantMap modelPreset(const QString& path) const;
    Q_INVOKABLE bool hasModelPreset(const QString& path) const;
    // Saves `overrides` ({field: value}, the fields the model sets; the others stay global) as the
    // file's preset, applied at once if it is loaded. Returns "" when saved, else why not (a chat
    // template that does not parse: the parser's line, column and problem), the old preset kept.
    Q_INVOKABLE QString saveModelPreset(const QString& path, const QVariantMap& overrides);
    // The file goes back to the global settings.
    Q_INVOKABLE void resetModelPreset(const QString& path);

    // The prompt library. Names are trimmed; an empty name is refused.
    Q_INVOKABLE QString createPrompt(const QString& name, const QString& prompt); // its id; "" refused
    Q_INVOKABLE bool renamePrompt(const QString& id, const QString& name);
    Q_INVOKABLE bool editPrompt(const QString& id, const QString& prompt);
    Q_INVOKABLE bool deletePrompt(const QString& id); // its conversations go back to the default

    // The prompt the conversation chose; "" is the default. The empty id is the new chat not yet
    // sent, whose choice becomes the conversation's when it is created.
    Q_INVOKABLE QString presetIdFor(const QString& conversationId) const;
    Q_INVOKABLE void choosePrompt(const QString& conversationId, const QString& presetId);

    // The chat's side.
    void conversationCreated(const QString& conversationId); // takes the new chat's choice
    void newChatStarted();                                   // a new chat starts with the default
    // The system message the conversation's next reply gets ("" for none).
    Q_INVOKABLE QString systemPromptFor(const QString& conversationId) const;
    // How the loaded model's next reply is generated, and its length setting (0: automatic).
    [[nodiscard]] engine::GenerationOptions generationOptions() const;
    [[nodiscard]] int maxReplyTokens() const;
    // What the engine runs the file with: the global settings with the preset's context.
    [[nodiscard]] EngineConfig engineConfigFor(const QString& path) const;
    // The file's preset when it applies (saved for a file of this size), else null.
    [[nodiscard]] const ModelPreset* applicablePreset(const QString& path) const;

signals:
    void readyChanged();
    void choicesChanged();
    void modelPresetsChanged();
    void loadedPresetChanged();

private:
    void onModelChanged();
    void presetOfLoadedModelChanged(); // says so, and reconfigures the engine for its context
    [[nodiscard]] const ModelPreset* loadedPreset() const;

    AppSettings* settings_;
    ConversationStore* store_;
    ModelController* models_;
    PromptPresetListModel prompts_;
    QHash<QString, ModelPreset> modelPresets_; // by path
    QHash<QString, QString> choices_;          // conversation id -> prompt preset id
    QString newChatChoice_;
    QString loadedPath_;
    bool loadedPresetApplies_ = false; // the loaded file's size is the one its preset was saved for
    bool ready_ = false;
    int choiceRevision_ = 0;
    int modelPresetRevision_ = 0;
};

} // namespace hearth::app
