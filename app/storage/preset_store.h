#pragma once
// Presets in the conversation database: per model file, the settings that replace the global ones
// when it loads; a library of named system prompts; and the prompt each conversation chose.
// Tables of their own (created with the store's schema, CREATE TABLE IF NOT EXISTS), reached
// through an open SqlStore on the database thread, as the store's own queries are.
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <optional>

namespace hearth::app {

class SqlStore;

// What one model file runs with instead of the global settings; an unset field is the global one.
struct ModelPreset {
    QString path;      // the file's absolute path: the key
    qint64 fileSize{}; // its size when saved: a file replaced since gets the global settings
    std::optional<QString> systemPrompt;
    std::optional<double> temperature;
    std::optional<int> topK;
    std::optional<double> topP;
    std::optional<double> minP;
    std::optional<double> repeatPenalty;
    std::optional<int> maxReplyTokens; // 0: as long as the context has room for
    std::optional<int> contextLength;
    std::optional<QString> chatTemplate; // Jinja source, checked before it is saved
    [[nodiscard]] bool overridesNothing() const;
    bool operator==(const ModelPreset&) const = default;
};

// A named system prompt of the library. Built-ins are written once, with the tables; the user
// may edit, rename or delete them as any other.
struct PromptPreset {
    QString id;
    QString name;
    QString prompt;
    bool builtIn = false;
    bool operator==(const PromptPreset&) const = default;
};

class PresetStore {
public:
    explicit PresetStore(SqlStore& store) : store_(store) {}

    // The tables, and the built-in prompts the first time (SqlStore's schema calls it).
    void createTables();

    [[nodiscard]] QList<ModelPreset> modelPresets() const;
    void saveModelPreset(const ModelPreset& preset); // insert or replace
    void deleteModelPreset(const QString& path);

    [[nodiscard]] QList<PromptPreset> promptPresets() const; // in the order they were created
    void savePromptPreset(const PromptPreset& preset);       // insert, or update its name and prompt
    void deletePromptPreset(const QString& id); // conversations that chose it go back to the default

    // Conversation id -> the prompt preset it chose; a conversation absent uses the default.
    [[nodiscard]] QHash<QString, QString> conversationPresets() const;
    // An empty presetId: the default again.
    void setConversationPreset(const QString& conversationId, const QString& presetId);

    // Into this fresh database, what can be read of a damaged one's presets (damaged_database.h):
    // its model presets, its prompt library in place of the built-ins, and the choices of the
    // conversations copied (`conversationIds`). A table that cannot be read is left out.
    void copyFrom(const PresetStore& damaged, const QSet<QString>& conversationIds);

    // The built-in prompts, as the tables start with them.
    static QList<PromptPreset> builtInPrompts();

private:
    SqlStore& store_;
};

} // namespace hearth::app
