#include "app/storage/preset_store.h"
#include "app/storage/sql_store.h"
#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariant>

namespace hearth::app {

bool ModelPreset::overridesNothing() const {
    return !systemPrompt && !temperature && !topK && !topP && !minP && !repeatPenalty && !maxReplyTokens &&
           !contextLength && !chatTemplate;
}

namespace {
template <class T> QVariant orNull(const std::optional<T>& value) {
    return value ? QVariant::fromValue(*value) : QVariant();
}
template <class T> std::optional<T> fromColumn(const QVariant& value) {
    if (value.isNull()) return std::nullopt;
    return value.value<T>();
}
} // namespace

void PresetStore::createTables() {
    QSqlQuery query(store_.database());
    const auto exec = [&](const QString& sql) {
        query.prepare(sql);
        store_.runQuery(query);
    };
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS model_presets("
                        " path TEXT PRIMARY KEY, file_size INTEGER NOT NULL,"
                        " system_prompt TEXT, temperature REAL, top_k INTEGER, top_p REAL, min_p REAL,"
                        " repeat_penalty REAL, max_reply_tokens INTEGER, context_length INTEGER,"
                        " chat_template TEXT)"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS prompt_presets("
                        " id TEXT PRIMARY KEY, name TEXT NOT NULL, prompt TEXT NOT NULL,"
                        " built_in INTEGER NOT NULL DEFAULT 0)"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS conversation_presets("
                        " conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,"
                        " preset_id TEXT NOT NULL REFERENCES prompt_presets(id) ON DELETE CASCADE)"));
    // What was done once for this database: the built-ins are written once, so that one the user
    // deleted stays deleted.
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS preset_meta(key TEXT PRIMARY KEY, value TEXT)"));
    query.prepare(QStringLiteral("SELECT 1 FROM preset_meta WHERE key = 'built_ins_written'"));
    store_.runQuery(query);
    if (query.next()) return;
    store_.inTransaction([&] {
        for (const PromptPreset& preset : builtInPrompts())
            savePromptPreset(preset);
        QSqlQuery mark(store_.database());
        mark.prepare(QStringLiteral("INSERT INTO preset_meta(key, value) VALUES('built_ins_written', '1')"));
        store_.runQuery(mark);
    });
}

void PresetStore::copyFrom(const PresetStore& damaged, const QSet<QString>& conversationIds) {
    try {
        for (const ModelPreset& preset : damaged.modelPresets())
            saveModelPreset(preset);
    } catch (const StoreError&) {
    }
    QSet<QString> prompts;
    try {
        const QList<PromptPreset> library = damaged.promptPresets();
        store_.inTransaction([&] {
            QSqlQuery clear(store_.database());
            clear.prepare(QStringLiteral("DELETE FROM prompt_presets"));
            store_.runQuery(clear);
            for (const PromptPreset& preset : library) {
                savePromptPreset(preset);
                prompts.insert(preset.id);
            }
        });
    } catch (const StoreError&) {
        for (const PromptPreset& preset : promptPresets()) // the built-ins stay
            prompts.insert(preset.id);
    }
    try {
        const QHash<QString, QString> choices = damaged.conversationPresets();
        for (auto it = choices.cbegin(); it != choices.cend(); ++it)
            if (conversationIds.contains(it.key()) && prompts.contains(it.value()))
                setConversationPreset(it.key(), it.value());
    } catch (const StoreError&) {
    }
}

QList<PromptPreset> PresetStore::builtInPrompts() {
    // Stored in the user's language of the first start; from then on they are the user's.
    const auto tr = [](const char* text) { return QCoreApplication::translate("PresetStore", text); };
    return {
        {QStringLiteral("built-in-assistant"), tr("Helpful assistant"),
         tr("You are a helpful assistant. Answer clearly and accurately."), true},
        {QStringLiteral("built-in-concise"), tr("Concise"),
         tr("Answer as briefly as possible: a sentence or a short list, no preamble."), true},
        {QStringLiteral("built-in-programmer"), tr("Programmer"),
         tr("You are an expert programmer. Give correct, idiomatic code in fenced blocks with the "
            "language named, and explain only what is not obvious."),
         true},
        {QStringLiteral("built-in-translator"), tr("Translator"),
         tr("Translate the user's text into English (or, if it is English, into German). Reply with "
            "the translation only."),
         true},
    };
}

QList<ModelPreset> PresetStore::modelPresets() const {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral("SELECT path, file_size, system_prompt, temperature, top_k, top_p, min_p,"
                                 " repeat_penalty, max_reply_tokens, context_length, chat_template"
                                 " FROM model_presets ORDER BY path"));
    store_.runQuery(query);
    QList<ModelPreset> presets;
    while (query.next()) {
        ModelPreset p;
        p.path = query.value(0).toString();
        p.fileSize = query.value(1).toLongLong();
        p.systemPrompt = fromColumn<QString>(query.value(2));
        p.temperature = fromColumn<double>(query.value(3));
        p.topK = fromColumn<int>(query.value(4));
        p.topP = fromColumn<double>(query.value(5));
        p.minP = fromColumn<double>(query.value(6));
        p.repeatPenalty = fromColumn<double>(query.value(7));
        p.maxReplyTokens = fromColumn<int>(query.value(8));
        p.contextLength = fromColumn<int>(query.value(9));
        p.chatTemplate = fromColumn<QString>(query.value(10));
        presets.append(p);
    }
    return presets;
}

void PresetStore::saveModelPreset(const ModelPreset& p) {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral(
        "INSERT OR REPLACE INTO model_presets(path, file_size, system_prompt, temperature, top_k, top_p,"
        " min_p, repeat_penalty, max_reply_tokens, context_length, chat_template)"
        " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    query.addBindValue(p.path);
    query.addBindValue(p.fileSize);
    // An empty prompt or template that is set is "" (text), not NULL (the global one).
    query.addBindValue(p.systemPrompt
                           ? QVariant(p.systemPrompt->isNull() ? QStringLiteral("") : *p.systemPrompt)
                           : QVariant());
    query.addBindValue(orNull(p.temperature));
    query.addBindValue(orNull(p.topK));
    query.addBindValue(orNull(p.topP));
    query.addBindValue(orNull(p.minP));
    query.addBindValue(orNull(p.repeatPenalty));
    query.addBindValue(orNull(p.maxReplyTokens));
    query.addBindValue(orNull(p.contextLength));
    query.addBindValue(p.chatTemplate
                           ? QVariant(p.chatTemplate->isNull() ? QStringLiteral("") : *p.chatTemplate)
                           : QVariant());
    store_.runQuery(query);
}

void PresetStore::deleteModelPreset(const QString& path) {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral("DELETE FROM model_presets WHERE path = ?"));
    query.addBindValue(path);
    store_.runQuery(query);
}

QList<PromptPreset> PresetStore::promptPresets() const {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral("SELECT id, name, prompt, built_in FROM prompt_presets ORDER BY rowid"));
    store_.runQuery(query);
    QList<PromptPreset> presets;
    while (query.next())
        presets.append({query.value(0).toString(), query.value(1).toString(), query.value(2).toString(),
                        query.value(3).toInt() != 0});
    return presets;
}

void PresetStore::savePromptPreset(const PromptPreset& p) {
    QSqlQuery query(store_.database());
    query.prepare(
        QStringLiteral("INSERT INTO prompt_presets(id, name, prompt, built_in) VALUES(?, ?, ?, ?)"
                       " ON CONFLICT(id) DO UPDATE SET name = excluded.name, prompt = excluded.prompt"));
    query.addBindValue(p.id);
    query.addBindValue(p.name.isNull() ? QStringLiteral("") : p.name);
    query.addBindValue(p.prompt.isNull() ? QStringLiteral("") : p.prompt);
    query.addBindValue(p.builtIn ? 1 : 0);
    store_.runQuery(query);
}

void PresetStore::deletePromptPreset(const QString& id) {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral("DELETE FROM prompt_presets WHERE id = ?"));
    query.addBindValue(id);
    store_.runQuery(query); // the conversations' choices of it go with it (ON DELETE CASCADE)
}

QHash<QString, QString> PresetStore::conversationPresets() const {
    QSqlQuery query(store_.database());
    query.prepare(QStringLiteral("SELECT conversation_id, preset_id FROM conversation_presets"));
    store_.runQuery(query);
    QHash<QString, QString> choices;
    while (query.next())
        choices.insert(query.value(0).toString(), query.value(1).toString());
    return choices;
}

void PresetStore::setConversationPreset(const QString& conversationId, const QString& presetId) {
    QSqlQuery query(store_.database());
    if (presetId.isEmpty()) {
        query.prepare(QStringLiteral("DELETE FROM conversation_presets WHERE conversation_id = ?"));
        query.addBindValue(conversationId);
    } else {
        query.prepare(QStringLiteral("INSERT OR REPLACE INTO conversation_presets(conversation_id, preset_id)"
                                     " VALUES(?, ?)"));
        query.addBindValue(conversationId);
        query.addBindValue(presetId);
    }
    store_.runQuery(query);
}

} // namespace hearth::app
