// Presets over a real backend (worker thread, SQLite in a temp dir, settings file) and real model
// files (copies of stories260K under two paths): a model's own settings change what the worker
// runs (its context) and what a reply is sent with (sampling, system prompt) when it loads, and
// revert for a model without; they survive reopening the store; a chat template that does not
// parse is refused with the parser's line and column and the old preset kept; the prompt library's
// create, rename, edit and delete; a conversation's chosen prompt survives a restart and is the
// system message the worker gets; a damaged database's presets are copied with its conversations.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/preset_controller.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "app/storage/preset_store.h"
#include "app/storage/sql_store.h"
#include "tests/app/backend_fixture.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTest>

using namespace hearth::app;
using hearth::test::finishReply;
using hearth::test::startChat;

namespace {

bool waitForPresets(HearthBackend& b) {
    return b.presets()->ready() || QTest::qWaitFor([&] { return b.presets()->ready(); }, 10000);
}

bool loadFile(HearthBackend& b, const QString& path) {
    QSignalSpy ready(b.models(), &ModelController::modelReady);
    b.models()->load(path);
    return ready.wait(30000);
}

// Sends `text` in the current chat and returns what the worker was asked to run, once the reply
// has finished without an error.
std::optional<GenerationRequest> sendAndCapture(HearthBackend& b, const QString& text) {
    QSignalSpy requests(b.chat(), &ChatController::generateRequested);
    if (!b.chat()->send(text) || requests.count() != 1) return std::nullopt;
    const auto request = requests.at(0).at(0).value<GenerationRequest>();
    if (!finishReply(b.chat())) return std::nullopt;
    if (!b.chat()->errorMessage().isEmpty()) { // the engine refused it (a template, a context)
        qWarning("%s", qPrintable(b.chat()->errorMessage()));
        return std::nullopt;
    }
    return request;
}

QString systemMessageOf(const GenerationRequest& request) {
    if (request.turns.isEmpty() || request.turns.constFirst().role != hearth::chat::Role::System) return {};
    return request.turns.constFirst().content;
}

} // namespace

class TestPresets : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }

    // stories260K under a name of its own in the temp dir: presets are per file.
    QString copyOfModel(const QString& name) const {
        const QString path = dir_ + "/" + name;
        if (!QFile::exists(path)) QFile::copy(hearth::test::storiesModelPath(), path);
        return path;
    }

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-presets")); }

    // The tables through SqlStore directly: written, read back after reopening, and the
    // conversation's choice gone with its conversation or its preset.
    void storeSurvivesReopening() {
        const QString path = dir_ + "/presets.sqlite";
        ModelPreset model;
        model.path = QStringLiteral("/models/a.gguf");
        model.fileSize = 1234;
        model.temperature = 0.25;
        model.contextLength = 1024;
        model.systemPrompt = QString(); // set, and empty: no system prompt for this model
        {
            SqlStore sql(path);
            PresetStore store(sql);
            QCOMPARE(store.promptPresets(), PresetStore::builtInPrompts());
            store.saveModelPreset(model);
            store.deletePromptPreset(QStringLiteral("built-in-translator"));
            store.savePromptPreset(
                {QStringLiteral("mine"), QStringLiteral("Mine"), QStringLiteral("Be brief."), false});
            sql.saveConversation({QStringLiteral("c1"), QStringLiteral("One"), {}, {}});
            sql.saveConversation({QStringLiteral("c2"), QStringLiteral("Two"), {}, {}});
            store.setConversationPreset(QStringLiteral("c1"), QStringLiteral("mine"));
            store.setConversationPreset(QStringLiteral("c2"), QStringLiteral("built-in-concise"));
        }
        SqlStore sql(path);
        PresetStore store(sql);
        const QList<ModelPreset> models = store.modelPresets();
        QCOMPARE(models.size(), qsizetype(1));
        QCOMPARE(models.constFirst(), model);
        QVERIFY(models.constFirst().systemPrompt.has_value()); // empty, not the global one
        QVERIFY(!models.constFirst().topK.has_value());
        // The deleted built-in stays deleted; the new preset is last.
        const QList<PromptPreset> prompts = store.promptPresets();
        QCOMPARE(prompts.size(), PresetStore::builtInPrompts().size());
        QCOMPARE(prompts.constLast().name, QStringLiteral("Mine"));
        for (const PromptPreset& p : prompts)
            QVERIFY(p.id != QStringLiteral("built-in-translator"));
        QCOMPARE(store.conversationPresets().value(QStringLiteral("c1")), QStringLiteral("mine"));
        sql.deleteConversation(QStringLiteral("c1"));
        store.deletePromptPreset(QStringLiteral("built-in-concise"));
        QVERIFY(store.conversationPresets().isEmpty());
        store.deleteModelPreset(model.path);
        QVERIFY(store.modelPresets().isEmpty());
    }

    // Load a model with a preset, then one without: the worker's context, the reply's sampling and
    // its system message follow, and go back to the global settings.
    void presetAppliedOnLoad() {
        const QString withPreset = copyOfModel(QStringLiteral("with-preset.gguf"));
        const QString without = copyOfModel(QStringLiteral("without.gguf"));
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(waitForPresets(b));
        AppSettings* s = b.settings();
        s->setContextLength(100); // below stories260K's trained context (128), which caps both
        s->setTemperature(0.9);
        s->setTopK(40);
        s->setMaxReplyTokens(3);
        s->setSystemPrompt(QStringLiteral("Global prompt."));
        PresetController* presets = b.presets();
        const QString rawTemplate = QStringLiteral("{% for m in messages %}{{ m.content }}\n{% endfor %}");
        QCOMPARE(presets->saveModelPreset(withPreset, {{"contextLength", 80},
                                                       {"temperature", 0.3},
                                                       {"topK", 7},
                                                       {"maxReplyTokens", 2},
                                                       {"systemPrompt", "Model prompt."},
                                                       {"chatTemplate", rawTemplate}}),
                 QString());

        QVERIFY(loadFile(b, withPreset));
        QVERIFY(b.models()->trainedContextLength() >= 100);
        QCOMPARE(b.models()->contextLength(), 80); // as the worker reports it runs
        QCOMPARE(presets->loadedOverrides().size(), qsizetype(6));
        std::optional<GenerationRequest> request = sendAndCapture(b, QStringLiteral("Once upon a time"));
        QVERIFY(request);
        QCOMPARE(request->options.sampling.temperature, 0.3f);
        QCOMPARE(request->options.sampling.top_k, 7);
        QCOMPARE(request->options.max_tokens, 2);
        QCOMPARE(systemMessageOf(*request), QStringLiteral("Model prompt."));
        QCOMPARE(QString::fromStdString(request->options.template_override), rawTemplate);

        QVERIFY(loadFile(b, without));
        QCOMPARE(b.models()->contextLength(), 100);
        QVERIFY(presets->loadedOverrides().isEmpty());
        b.chat()->newConversation();
        request = sendAndCapture(b, QStringLiteral("Once upon a time"));
        QVERIFY(request);
        QCOMPARE(request->options.sampling.temperature, 0.9f);
        QCOMPARE(request->options.sampling.top_k, 40);
        QCOMPARE(request->options.max_tokens, 3);
        QCOMPARE(systemMessageOf(*request), QStringLiteral("Global prompt."));
        QVERIFY(request->options.template_override.empty()); // the model's own

        // Saving a preset for the loaded model applies it at once; resetting it reverts.
        QCOMPARE(presets->saveModelPreset(without, {{"contextLength", 72}}), QString());
        QTRY_COMPARE_WITH_TIMEOUT(b.models()->contextLength(), 72, 10000);
        presets->resetModelPreset(without);
        QTRY_COMPARE_WITH_TIMEOUT(b.models()->contextLength(), 100, 10000);
    }

    // Presets are read again from the database by a new backend; a file replaced since (another
    // size) gets the global settings, and the dialog is told so.
    void presetSurvivesRestartAndNoticesAReplacedFile() {
        const QString model = copyOfModel(QStringLiteral("model.gguf"));
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(waitForPresets(b));
            QCOMPARE(b.presets()->saveModelPreset(model, {{"topP", 0.5}, {"chatTemplate", "{{ messages }}"}}),
                     QString());
        }
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(waitForPresets(b));
            const QVariantMap preset = b.presets()->modelPreset(model);
            QVERIFY(preset.value("hasPreset").toBool());
            QVERIFY(!preset.value("fileChanged").toBool());
            const QVariantMap overrides = preset.value("overrides").toMap();
            QCOMPARE(overrides.size(), qsizetype(2));
            QCOMPARE(overrides.value("topP").toDouble(), 0.5);
            QCOMPARE(overrides.value("chatTemplate").toString(), QStringLiteral("{{ messages }}"));
            QVERIFY(b.presets()->applicablePreset(model) != nullptr);
        }
        QFile file(model);
        QVERIFY(file.open(QIODevice::Append));
        file.write(QByteArray(32, '\0'));
        file.close();
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(waitForPresets(b));
        QVERIFY(b.presets()->modelPreset(model).value("fileChanged").toBool());
        QVERIFY(b.presets()->applicablePreset(model) == nullptr);
        QCOMPARE(b.presets()->engineConfigFor(model), b.settings()->engineConfig());
    }

    // A chat template that does not parse: refused with the parser's line and column, the preset
    // saved before kept, in memory and in the database.
    void badTemplateRefusedWithTheParsersMessage() {
        const QString model = copyOfModel(QStringLiteral("model.gguf"));
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(waitForPresets(b));
            PresetController* presets = b.presets();
            const QString goodTemplate = QStringLiteral("{{ messages[0].content }}");
            QCOMPARE(presets->saveModelPreset(model, {{"temperature", 0.4}, {"chatTemplate", goodTemplate}}),
                     QString());
            const QString error = presets->saveModelPreset(
                model, {{"temperature", 1.5}, {"chatTemplate", "line one\n{% if %}"}});
            QVERIFY2(error.contains(QStringLiteral("model.gguf")), qPrintable(error));
            QVERIFY2(error.contains(QStringLiteral("chat template:2:")), qPrintable(error));
            const QVariantMap overrides = presets->modelPreset(model).value("overrides").toMap();
            QCOMPARE(overrides.keys(), (QStringList{"chatTemplate", "temperature"}));
            QCOMPARE(overrides.value("temperature").toDouble(), 0.4);
            QCOMPARE(overrides.value("chatTemplate").toString(), goodTemplate);
        }
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(waitForPresets(b));
        const QVariantMap overrides = b.presets()->modelPreset(model).value("overrides").toMap();
        QCOMPARE(overrides.keys(), (QStringList{"chatTemplate", "temperature"}));
        QCOMPARE(overrides.value("temperature").toDouble(), 0.4);
        QCOMPARE(overrides.value("chatTemplate").toString(), QStringLiteral("{{ messages[0].content }}"));
    }

    // A damaged database is set aside and what can be read copied to a fresh one: the presets
    // too (its conversations' index scribbled over, as test_hostile_files damages one).
    void presetsCopiedFromADamagedDatabase() {
        const QString database = paths().databaseFile();
        QVERIFY(QDir().mkpath(paths().dataDir));
        ModelPreset model;
        model.path = copyOfModel(QStringLiteral("model.gguf"));
        model.fileSize = QFileInfo(model.path).size();
        model.topK = 3;
        const PromptPreset mine{QStringLiteral("mine"), QStringLiteral("Mine"), QStringLiteral("Be brief."),
                                false};
        {
            SqlStore sql(database);
            PresetStore store(sql);
            sql.saveConversation({QStringLiteral("c1"), QStringLiteral("One"), QDateTime::currentDateTime(),
                                  QDateTime::currentDateTime()});
            store.saveModelPreset(model);
            store.deletePromptPreset(QStringLiteral("built-in-translator"));
            store.savePromptPreset(mine);
            store.setConversationPreset(QStringLiteral("c1"), mine.id);
        }
        QVERIFY(!QFile::exists(database + "-wal")); // closed cleanly: everything is in the file
        int indexPage = -1;
        {
            SqlStore sql(database, SqlStore::Access::ReadOnly);
            QSqlQuery query(sql.database());
            query.prepare(QStringLiteral("SELECT rootpage FROM sqlite_master WHERE name = ?"));
            query.addBindValue(QStringLiteral("sqlite_autoindex_conversations_1"));
            sql.runQuery(query);
            QVERIFY(query.next());
            indexPage = query.value(0).toInt();
        }
        QVERIFY(indexPage > 1);
        QFile file(database);
        QVERIFY(file.open(QIODevice::ReadWrite));
        constexpr qint64 kPageSize = 4096; // SQLite's default
        QVERIFY(file.seek((indexPage - 1) * kPageSize));
        QByteArray scribble(kPageSize, '\0');
        for (qint64 i = 0; i < kPageSize; ++i)
            scribble[i] = static_cast<char>(0xA5 ^ (i * 31));
        QCOMPARE(file.write(scribble), kPageSize);
        file.close();

        HearthBackend b(paths());
        QSignalSpy notice(&b, &HearthBackend::databaseNoticeChanged);
        QVERIFY(startChat(b));
        QVERIFY(notice.count() > 0 || notice.wait(5000));
        QVERIFY(waitForPresets(b));
        QCOMPARE(b.chat()->allConversations()->rowCount(), 1);
        const ModelPreset* copied = b.presets()->applicablePreset(model.path);
        QVERIFY(copied);
        QCOMPARE(*copied, model);
        const PromptPresetListModel* prompts = b.presets()->prompts();
        QCOMPARE(prompts->promptOf(mine.id), mine.prompt);
        QVERIFY(prompts->find(QStringLiteral("built-in-translator")) == nullptr); // deleted stays deleted
        QCOMPARE(b.presets()->presetIdFor(QStringLiteral("c1")), mine.id);
    }

    // Create, rename, edit, delete; what is left is read back after a restart.
    void promptLibrary() {
        QString created;
        const int builtIns = static_cast<int>(PresetStore::builtInPrompts().size());
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(waitForPresets(b));
            PresetController* presets = b.presets();
            QCOMPARE(presets->prompts()->rowCount(), builtIns);
            QVERIFY(presets->createPrompt(QStringLiteral("   "), QStringLiteral("x")).isEmpty()); // no name
            created = presets->createPrompt(QStringLiteral("Pirate"), QStringLiteral("Talk like a pirate."));
            QVERIFY(!created.isEmpty());
            QVERIFY(presets->renamePrompt(created, QStringLiteral("  Captain  ")));
            QVERIFY(!presets->renamePrompt(created, QString()));
            QVERIFY(presets->editPrompt(created, QStringLiteral("Talk like a captain.")));
            QVERIFY(presets->deletePrompt(QStringLiteral("built-in-programmer")));
            QVERIFY(!presets->deletePrompt(QStringLiteral("no-such-preset")));
            QCOMPARE(presets->prompts()->rowCount(), builtIns);
        }
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(waitForPresets(b));
        const PromptPresetListModel* prompts = b.presets()->prompts();
        QCOMPARE(prompts->rowCount(), builtIns);
        QVERIFY(prompts->find(QStringLiteral("built-in-programmer")) == nullptr);
        const PromptPreset* mine = prompts->find(created);
        QVERIFY(mine);
        QCOMPARE(mine->name, QStringLiteral("Captain"));
        QCOMPARE(mine->prompt, QStringLiteral("Talk like a captain."));
        QCOMPARE(prompts->idAt(prompts->rowCount() - 1), created);
    }

    // A prompt chosen in the new chat becomes the conversation's when it is sent, is the system
    // message of its replies, and is still its choice after a restart; a new chat starts with the
    // default again.
    void conversationChoiceSurvivesRestart() {
        const QString model = copyOfModel(QStringLiteral("model.gguf"));
        const QString concise = QStringLiteral("built-in-concise");
        QString conversation;
        QString concisePrompt;
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(waitForPresets(b));
            b.settings()->setMaxReplyTokens(2);
            b.settings()->setSystemPrompt(QStringLiteral("Global prompt."));
            QVERIFY(loadFile(b, model));
            concisePrompt = b.presets()->prompts()->promptOf(concise);
            QVERIFY(!concisePrompt.isEmpty());
            b.presets()->choosePrompt(QString(), concise);
            const std::optional<GenerationRequest> request = sendAndCapture(b, QStringLiteral("Hello"));
            QVERIFY(request);
            QCOMPARE(systemMessageOf(*request), concisePrompt);
            conversation = b.chat()->currentConversationId();
            QCOMPARE(b.presets()->presetIdFor(conversation), concise);
            QCOMPARE(b.presets()->presetIdFor(QString()), QString());

            b.chat()->newConversation();
            const std::optional<GenerationRequest> other = sendAndCapture(b, QStringLiteral("Hi"));
            QVERIFY(other);
            QCOMPARE(systemMessageOf(*other), QStringLiteral("Global prompt."));
            QCOMPARE(b.presets()->presetIdFor(b.chat()->currentConversationId()), QString());
        }
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(waitForPresets(b));
        QCOMPARE(b.presets()->presetIdFor(conversation), concise);
        QVERIFY(loadFile(b, model));
        b.chat()->selectConversation(conversation);
        QVERIFY(hearth::test::waitForMessages(b.chat(), 2));
        const std::optional<GenerationRequest> request = sendAndCapture(b, QStringLiteral("And then?"));
        QVERIFY(request);
        QCOMPARE(systemMessageOf(*request), concisePrompt);
        QCOMPARE(request->conversationId, conversation);

        // Back to the default: the global prompt again, and no row left for it.
        b.presets()->choosePrompt(conversation, QString());
        QCOMPARE(b.presets()->presetIdFor(conversation), QString());
    }
};

QTEST_MAIN(TestPresets)
#include "test_presets.moc"
