// The controllers over a real backend (worker thread, SQLite store, settings in
// a temp dir) and a real model: the drop path, refusing bad files while keeping
// the model, chatting, stop, regenerate, edit-and-resend, rename/delete/search,
// and everything found again after a restart; saved KV states (written at
// shutdown, deleted with their conversation, Q8_0 when the setting asks), the
// chat template override, the per-reply cache history and the context-shift
// divider; a reply cut short by a model that computes NaN; a GPU it cannot use, explained, with
// the model on the CPU and the chat going on.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/translations.h"
#include "app/metrics/metrics_controller.h"
#include "app/models/inference_worker.h"
#include "app/models/model_controller.h"
#include "app/platform/thread_priority.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "engine/model/model.h"
#include "engine/session/chat_session.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/saved_kv_state.h"
#include "tests/model/damaged_token_model.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <unistd.h>

using namespace hearth::app;
using hearth::test::finishReply;
using hearth::test::loadModel;
using hearth::test::startChat;
using hearth::test::waitForMessages;

class TestControllers : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }
    static QString modelPath() { return hearth::test::storiesModelPath(); }

    // In a freshly opened backend: loads the model, opens conversation `id` (one exchange) and
    // asks one more question; returns the new reply's stats line (empty on failure).
    static QString replyInSavedConversation(HearthBackend& b, const QString& id) {
        if (!startChat(b) || !loadModel(b)) return {};
        b.settings()->setMaxReplyTokens(4);
        b.chat()->selectConversation(id);
        if (!waitForMessages(b.chat(), 2) || !b.chat()->send("And then?") || !finishReply(b.chat()))
            return {};
        return b.chat()->messages()->index(3).data(MessageListModel::StatsRole).toString();
    }

private slots:
    void initTestCase() {
        // As main() does: the English translation holds the plural forms.
        QVERIFY(installTranslations(*QCoreApplication::instance()));
    }

    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-controllers")); }

    void opensWithNoModel() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(!b.models()->loaded());
        QVERIFY(!b.chat()->canSend());
        QCOMPARE(b.chat()->allConversations()->rowCount(), 0);
        QCOMPARE(b.settings()->fileName(), dir_ + "/settings.ini");
    }

    // The store's full-disk message clears once its writes go through again.
    void storeErrorClearsWhenTheDiskRecovers() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        emit b.store()->failed(QStringLiteral("The disk is full"));
        QCOMPARE(b.chat()->errorMessage(), QStringLiteral("The disk is full"));
        emit b.store()->recovered();
        QVERIFY(b.chat()->errorMessage().isEmpty());
    }

    void refusesWhatIsNotAModelFile_data() {
        QTest::addColumn<QString>("fileName");
        QTest::newRow("text file") << "notes.txt";
        QTest::newRow("no extension") << "model";
        QTest::newRow("near miss") << "model.gguf.part";
    }
    void refusesWhatIsNotAModelFile() {
        QFETCH(QString, fileName);
        HearthBackend b(paths());
        QSignalSpy failed(b.models(), &ModelController::loadFailed);
        QSignalSpy requested(b.models(), &ModelController::loadRequested);
        QVERIFY(!ModelController::isModelUrl(QUrl::fromLocalFile(dir_ + "/" + fileName)));
        QVERIFY(!b.models()->loadDroppedFile(QUrl::fromLocalFile(dir_ + "/" + fileName)));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(requested.count(), 0); // refused before the worker sees it
        QVERIFY2(b.models()->errorMessage().contains(fileName), qPrintable(b.models()->errorMessage()));
        QVERIFY(!b.models()->loaded());
    }

    void loadsThroughTheDropPathAndRemembers() {
        HearthBackend b(paths());
        QVERIFY(ModelController::isModelUrl(QUrl::fromLocalFile(modelPath())));
        QSignalSpy state(b.models(), &ModelController::stateChanged);
        QVERIFY(loadModel(b));
        QVERIFY(b.models()->loaded());
        QVERIFY(!b.models()->busy());
        QCOMPARE(b.models()->modelPath(), modelPath());
        QVERIFY(!b.models()->modelName().isEmpty());
        QVERIFY(b.models()->modelDetails().contains("llama"));
        QVERIFY(state.count() >= 3); // loading, warming up, ready
        QCOMPARE(b.settings()->recentModels().value(0), modelPath());
        // The picker's list is scanned again after a load; the model is listed, marked loaded.
        QVERIFY(QTest::qWaitFor([&] { return b.models()->models()->indexOf(modelPath()) >= 0; }, 10000));
        const int row = b.models()->models()->indexOf(modelPath());
        QVERIFY(row >= 0);
        QVERIFY(b.models()->models()->index(row).data(ModelListModel::LoadedRole).toBool());
    }

    // The inference thread, and the kernel threads it starts for a model, run at a lower priority
    // than the window's thread, which keeps its own.
    void theEngineThreadsYieldToTheWindow() {
        const auto niceness = [](const QString& task) {
            QFile stat(task + QStringLiteral("/stat"));
            if (!stat.open(QIODevice::ReadOnly)) return -100;
            const QByteArray line = stat.readAll();
            // After the name in parentheses: state (field 3), and on to nice (field 19).
            const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
            return fields.size() > 16 ? fields.at(16).toInt() : -100;
        };
        const auto threadName = [](const QString& task) {
            QFile comm(task + QStringLiteral("/comm"));
            return comm.open(QIODevice::ReadOnly) ? QString::fromUtf8(comm.readAll().trimmed()) : QString();
        };
        const QString self = QStringLiteral("/proc/self/task/%1").arg(gettid());
        const int windowNiceness = niceness(self);
        QVERIFY(windowNiceness > -100);
        HearthBackend b(paths());
        b.settings()->setThreads(2);
        QVERIFY(loadModel(b));
        int engineThreads = 0;
        for (const QString& tid :
             QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString task = QStringLiteral("/proc/self/task/") + tid;
            if (!threadName(task).startsWith(QStringLiteral("hearth-inferenc"))) continue; // 15 characters
            ++engineThreads;
            QCOMPARE(niceness(task), std::max(windowNiceness, hearth::process::kEngineThreadNiceness));
        }
        QVERIFY2(engineThreads >= 2, "the inference thread and a kernel thread for the second core");
        QCOMPARE(niceness(self), windowNiceness);
    }

    // The details line follows the engine settings as soon as the worker applies them, not at
    // the next load. stories260K's heads (8 values) cannot hold 32-value blocks: its cache stays
    // F16 whatever the setting, and the line says so by not naming another type.
    void detailsFollowTheEngineSettings() {
        HearthBackend b(paths());
        QVERIFY(loadModel(b));
        b.settings()->setContextLength(100);
        QVERIFY(QTest::qWaitFor([&] { return b.models()->modelDetails().contains("100 ctx"); }, 10000));
        // The thread count in the language's plural form (English: "1 thread", "2 threads"),
        // applied without loading the model again.
        QSignalSpy loads(b.worker(), &InferenceWorker::loadFinished);
        b.settings()->setThreads(1);
        QVERIFY(QTest::qWaitFor([&] { return b.models()->modelDetails().contains(" 1 thread"); }, 10000));
        QVERIFY2(!b.models()->modelDetails().contains(" 1 threads"), qPrintable(b.models()->modelDetails()));
        b.settings()->setThreads(2);
        QVERIFY(QTest::qWaitFor([&] { return b.models()->modelDetails().contains(" 2 threads"); }, 10000));
        QCOMPARE(loads.count(), 0);
        QSignalSpy applied(b.models(), &ModelController::stateChanged);
        b.settings()->setKeyCacheType("q8_0");
        QCOMPARE(b.settings()->keyCacheType(), QStringLiteral("q8_0"));
        QVERIFY(applied.wait(10000)); // the worker's answer
        QCOMPARE(b.models()->summary().keyCacheType, QStringLiteral("f16"));
        QVERIFY(!b.models()->modelDetails().contains("KV"));
        b.settings()->setValueCacheType("no-such-type");
        QCOMPARE(b.settings()->valueCacheType(), QStringLiteral("f16"));
    }

    // A GPU this machine lacks, chosen while chatting and found in the settings at the next start:
    // the user reads why the model runs on the CPU, and the conversation goes on.
    void aGpuItCannotUseIsExplainedAndTheChatGoesOn() {
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            b.settings()->setMaxReplyTokens(4);
            QVERIFY(b.chat()->send("Once upon a time"));
            QVERIFY(finishReply(b.chat()));
            b.settings()->setComputeDevice("vulkan:9");
            QVERIFY(QTest::qWaitFor([&] { return b.models()->errorMessage().contains("vulkan:9"); }, 30000));
            QVERIFY2(b.models()->errorMessage().contains("CPU"), qPrintable(b.models()->errorMessage()));
            QCOMPARE(b.models()->gpuLayers(), 0);
            QVERIFY(b.chat()->send("And then?"));
            QVERIFY(finishReply(b.chat()));
            QCOMPARE(b.chat()->messages()->count(), 4);
            QCOMPARE(b.chat()->messages()->index(3).data(MessageListModel::StateRole).toString(),
                     QStringLiteral("complete"));
            QVERIFY(b.chat()->errorMessage().isEmpty());
        }
        HearthBackend b(paths());
        QVERIFY(loadModel(b)); // loads, on the CPU; the message stays after the load
        QVERIFY2(b.models()->errorMessage().contains("vulkan:9"), qPrintable(b.models()->errorMessage()));
        QVERIFY(b.models()->loaded());
    }

    void aBrokenGgufIsRefusedAndTheModelStays() {
        HearthBackend b(paths());
        QVERIFY(loadModel(b));
        const QString broken = dir_ + "/broken.gguf";
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("GGUF but not really");
        file.close();
        QSignalSpy failed(b.models(), &ModelController::loadFailed);
        QVERIFY(
            b.models()->loadDroppedFile(QUrl::fromLocalFile(broken))); // the name is fine; the engine refuses
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.constFirst().constFirst().toString().contains("broken.gguf"),
                 qPrintable(failed.constFirst().constFirst().toString()));
        QVERIFY(b.models()->loaded());
        QCOMPARE(b.models()->modelPath(), modelPath());
        QVERIFY(!b.settings()->recentModels().contains(broken));
    }

    void sendingWithoutAModelExplains() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(!b.chat()->send("Hello"));
        QVERIFY(!b.chat()->errorMessage().isEmpty());
        QCOMPARE(b.chat()->allConversations()->rowCount(), 0);
    }

    void chatsAndFindsItAfterARestart() {
        QString reply;
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            ChatController* chat = b.chat();
            QVERIFY(chat->canSend());
            QVERIFY(!chat->send("   ")); // blank: nothing happens
            QVERIFY(chat->send("Tell me a story\nabout a cat"));
            QCOMPARE(chat->allConversations()->rowCount(), 1);
            QCOMPARE(chat->currentTitle(), QStringLiteral("Tell me a story"));
            QCOMPARE(chat->messages()->count(), 2);
            // Pieces arrive through the event loop, which runs only from here on.
            QSignalSpy rowsChanged(chat->messages(), &QAbstractItemModel::dataChanged);
            QVERIFY(chat->generating());
            QVERIFY(!chat->canSend());
            QVERIFY(finishReply(chat));
            // The reply grew where the window shows it: the content of its row (1) in the list.
            QVERIFY(std::any_of(rowsChanged.cbegin(), rowsChanged.cend(), [](const QList<QVariant>& args) {
                return args.at(0).value<QModelIndex>().row() == 1 &&
                       args.at(2).value<QList<int>>().contains(MessageListModel::ContentRole);
            }));
            const MessageRecord& last = chat->messages()->messages().constLast();
            QCOMPARE(last.role, hearth::chat::Role::Assistant);
            QVERIFY(!last.content.trimmed().isEmpty());
            QCOMPARE(last.state, MessageState::Complete);
            QVERIFY(!chat->messages()->index(1).data(MessageListModel::StatsRole).toString().isEmpty());
            reply = last.content;
        }
        HearthBackend again(paths());
        QVERIFY(startChat(again));
        QCOMPARE(again.chat()->allConversations()->rowCount(), 1);
        again.chat()->selectConversation(again.chat()->allConversations()->idAt(0));
        QVERIFY(waitForMessages(again.chat(), 2));
        QCOMPARE(again.chat()->messages()->messages()[0].content,
                 QStringLiteral("Tell me a story\nabout a cat"));
        QCOMPARE(again.chat()->messages()->messages()[1].content, reply);
    }

    void stopKeepsTheReplyMarkedStopped() {
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            QVERIFY(b.chat()->send("Once upon a time"));
            b.chat()->stop(); // before the worker starts: the stop must not be lost
            QVERIFY(finishReply(b.chat()));
            QCOMPARE(b.chat()->messages()->messages().constLast().state, MessageState::Stopped);
            QVERIFY(b.chat()->canSend());
        }
        HearthBackend again(paths());
        QVERIFY(startChat(again));
        again.chat()->selectConversation(again.chat()->allConversations()->idAt(0));
        QVERIFY2(waitForMessages(again.chat(), 2),
                 qPrintable(QString::number(again.chat()->messages()->count())));
        QCOMPARE(again.chat()->messages()->messages()[1].state, MessageState::Stopped);
    }

    void regenerateAndEditAndResend() {
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            b.settings()->setTemperature(0.0);
            ChatController* chat = b.chat();
            QVERIFY(!chat->regenerate()); // nothing to regenerate yet
            QVERIFY(chat->send("Once upon a time"));
            QVERIFY(finishReply(chat));
            const QString firstReplyId = chat->messages()->messages().constLast().id;
            QVERIFY(chat->regenerate());
            QCOMPARE(chat->messages()->count(), 2);
            QVERIFY(finishReply(chat));
            QVERIFY(chat->messages()->messages().constLast().id != firstReplyId);

            const QString userId = chat->messages()->messages().constFirst().id;
            QVERIFY(!chat->editAndResend(chat->messages()->messages().constLast().id, "not a user message"));
            QVERIFY(chat->editAndResend(userId, "Once upon a time there was a dog"));
            QCOMPARE(chat->messages()->count(), 2);
            QCOMPARE(chat->messages()->messages().constFirst().content,
                     QStringLiteral("Once upon a time there was a dog"));
            QVERIFY(finishReply(chat));
        }
        HearthBackend again(paths());
        QVERIFY(startChat(again));
        again.chat()->selectConversation(again.chat()->allConversations()->idAt(0));
        QVERIFY(waitForMessages(again.chat(), 2));
        QCOMPARE(again.chat()->messages()->messages()[0].content,
                 QStringLiteral("Once upon a time there was a dog"));
    }

    void renameDeleteAndSearch() {
        QString keptId;
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            ChatController* chat = b.chat();
            QVERIFY(chat->send("First chat"));
            QVERIFY(finishReply(chat));
            const QString first = chat->currentConversationId();
            chat->newConversation();
            QVERIFY(chat->currentConversationId().isEmpty());
            QCOMPARE(chat->messages()->count(), 0);
            QVERIFY(chat->send("Second chat"));
            QVERIFY(finishReply(chat));
            const QString second = chat->currentConversationId();
            QVERIFY(first != second);
            QCOMPARE(chat->allConversations()->idAt(0), second); // most recent first

            chat->renameConversation(first, "  Holiday   plans ");
            QCOMPARE(chat->allConversations()->find(first)->title, QStringLiteral("Holiday plans"));
            chat->conversations()->setSearchText("holiday");
            QCOMPARE(chat->conversations()->count(), 1);
            QCOMPARE(chat->conversations()->idAt(0), first);
            chat->conversations()->setSearchText(QString());

            chat->selectConversation(first);
            QCOMPARE(chat->currentConversationId(), first);
            QCOMPARE(chat->messages()->count(), 2); // kept in memory
            chat->deleteConversation(first);
            QVERIFY(chat->currentConversationId().isEmpty());
            QCOMPARE(chat->allConversations()->rowCount(), 1);
            keptId = second;
        }
        HearthBackend again(paths());
        QVERIFY(startChat(again));
        QCOMPARE(again.chat()->allConversations()->rowCount(), 1);
        QCOMPARE(again.chat()->allConversations()->idAt(0), keptId);
    }

    void settingsReachTheNextTurn() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(3);
        b.settings()->setSystemPrompt("You tell short stories.");
        QSignalSpy requested(b.chat(), &ChatController::generateRequested);
        QVERIFY(b.chat()->send("Hi"));
        QCOMPARE(requested.count(), 1);
        const auto request = requested.constFirst().constFirst().value<GenerationRequest>();
        QCOMPARE(request.options.max_tokens, 3);
        QCOMPARE(request.turns.size(), 2);
        QCOMPARE(request.turns[0].role, hearth::chat::Role::System);
        QCOMPARE(request.turns[1].content, QStringLiteral("Hi"));
        QVERIFY(finishReply(b.chat()));

        QSignalSpy configure(b.models(), &ModelController::configureRequested);
        b.settings()->setThreads(1);
        QCOMPARE(configure.count(), 1);
        QCOMPARE(configure.constFirst().at(0).value<EngineConfig>().threads, 1);
    }

    void statesAreSavedAtShutdownAndDeletedWithTheirConversation() {
        QString id;
        const QString stateDir = paths().kvStateDir();
        QCOMPARE(stateDir, dir_ + "/data/kv-states"); // next to conversations.sqlite
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            b.settings()->setMaxReplyTokens(8);
            QVERIFY(b.chat()->send("Once upon a time"));
            QVERIFY(finishReply(b.chat()));
            id = b.chat()->currentConversationId();
            QVERIFY(!QFile::exists(stateDir + "/" + id + ".hkv")); // in memory until the app closes
        }
        QVERIFY2(QFile::exists(stateDir + "/" + id + ".hkv"), "the state was not saved at shutdown");

        HearthBackend again(paths());
        const QString stats = replyInSavedConversation(again, id);
        QVERIFY2(stats.contains("resumed from saved state") && stats.contains("prompt tokens reused"),
                 qPrintable(stats));
        QTRY_COMPARE(again.metrics()->replies()->count(), 1); // recorded from the same signal, a moment later
        QVERIFY(again.metrics()->replies()->latestRestored());
        QVERIFY(again.metrics()->replies()->latestReused() > 0);

        again.chat()->deleteConversation(id);
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(stateDir + "/" + id + ".hkv"), 10000);
    }

    // The "Compress saved conversation state" setting reaches the worker: states are Q8_0.
    void compressedStatesFollowTheSetting() {
        QString id;
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            b.settings()->setCompressSavedStates(true);
            QVERIFY(loadModel(b));
            b.settings()->setMaxReplyTokens(8);
            QVERIFY(b.chat()->send("Once upon a time"));
            QVERIFY(finishReply(b.chat()));
            id = b.chat()->currentConversationId();
        } // saved at shutdown
        const auto saved = hearth::test::readSavedStateHeader(paths().kvStateDir() + "/" + id + ".hkv");
        QVERIFY2(saved, "no saved state");
        QCOMPARE(saved->format, hearth::engine::KvStateFormat::Q8_0);
        QVERIFY(saved->sizeMatchesFormat);

        HearthBackend again(paths()); // persisted: still on
        QVERIFY(again.settings()->compressSavedStates());
        const QString stats = replyInSavedConversation(again, id);
        QVERIFY2(stats.contains("resumed from saved state"), qPrintable(stats));
    }

    void anInvalidChatTemplateFailsInTheChat() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        ChatController* chat = b.chat();
        b.settings()->setMaxReplyTokens(4);
        b.settings()->setChatTemplate("{% for message in messages %}{{ message.content }");
        QSignalSpy requested(chat, &ChatController::generateRequested);
        QVERIFY(chat->send("Hello there"));
        QCOMPARE(
            QString::fromStdString(
                requested.constFirst().constFirst().value<GenerationRequest>().options.template_override),
            b.settings()->chatTemplate());
        QVERIFY(finishReply(chat));
        QVERIFY2(!chat->errorMessage().isEmpty(), "no error shown");
        QCOMPARE(chat->messages()->count(), 2);
        QCOMPARE(chat->messages()->messages().at(0).content,
                 QStringLiteral("Hello there")); // the message stays
        QCOMPARE(chat->messages()->messages().at(1).state, MessageState::Failed);
        QVERIFY(chat->canSend());

        // A valid override is used; an empty one brings back the model's template.
        b.settings()->setChatTemplate("{% for message in messages %}{{ message.content }}{% endfor %}");
        ReplyCacheHistory* history = b.metrics()->replies();
        QVERIFY(chat->regenerate());
        QVERIFY(finishReply(chat));
        QTRY_COMPARE(history->count(), 1); // the failed reply is not recorded
        QCOMPARE(chat->messages()->messages().constLast().state, MessageState::Complete);
        QVERIFY(chat->errorMessage().isEmpty());
        const int overridden =
            b.metrics()->replies()->latestReused() + b.metrics()->replies()->latestComputed();
        b.settings()->setChatTemplate(QString());
        QVERIFY(chat->regenerate());
        QVERIFY(finishReply(chat));
        QTRY_COMPARE(history->count(), 2);
        const int own = b.metrics()->replies()->latestReused() + b.metrics()->replies()->latestComputed();
        QVERIFY2(own > overridden, qPrintable(QString("%1 vs %2 prompt tokens").arg(own).arg(overridden)));
    }

    // A model that computes NaN in the middle of a reply (one token's embedding is infinite; the
    // load's probe passes): the reply ends Failed with the engine's words and keeps its text up to
    // that token, and the chat goes on.
    void aReplyThatTurnsNaNEndsFailedWithItsText() {
        const std::vector<hearth::engine::ChatTurn> turns{{hearth::chat::Role::User, "Once upon a time"}};
        const QString damaged = dir_ + "/damaged.gguf";
        int replyTokens = 0;
        {
            auto model = hearth::engine::Model::load(modelPath().toStdString());
            hearth::engine::Inference inference(model, hearth::engine::InferenceOptions{2, 32});
            hearth::engine::ChatSession session(inference, 256);
            const std::vector<int32_t> reply =
                hearth::test::greedy_reply_to_damage(inference, session.prompt_tokens(turns, {}));
            QVERIFY(!reply.empty());
            replyTokens = static_cast<int>(reply.size());
            hearth::test::write_damaged_token_model(modelPath().toStdString(), damaged.toStdString(),
                                                    reply.back());
        }
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        ChatController* chat = b.chat();
        b.settings()->setTemperature(0.0);
        // What the model says up to and including the damaged token.
        b.settings()->setMaxReplyTokens(replyTokens);
        QVERIFY(chat->send(QString::fromStdString(turns.front().content)));
        QVERIFY(finishReply(chat));
        const QString expected = chat->messages()->messages().constLast().content;
        QVERIFY(!expected.isEmpty());

        QSignalSpy ready(b.models(), &ModelController::modelReady);
        QVERIFY(b.models()->loadDroppedFile(QUrl::fromLocalFile(damaged)));
        QVERIFY(ready.wait(30000));
        b.settings()->setMaxReplyTokens(200);
        QVERIFY(chat->regenerate());
        QVERIFY(finishReply(chat));
        QCOMPARE(chat->messages()->count(), 2);
        const MessageRecord failed = chat->messages()->messages().constLast();
        QCOMPARE(failed.state, MessageState::Failed);
        QCOMPARE(failed.content, expected);
        QVERIFY2(chat->errorMessage().contains(
                     QStringLiteral("NaN or infinite values after %1 tokens").arg(replyTokens)),
                 qPrintable(chat->errorMessage()));
        QVERIFY(chat->canSend());

        // The chat goes on: a reply that ends at the damaged token never feeds it to the model.
        b.settings()->setMaxReplyTokens(replyTokens);
        QVERIFY(chat->regenerate());
        QVERIFY(finishReply(chat));
        QCOMPARE(chat->messages()->messages().constLast().state, MessageState::Complete);
        QCOMPARE(chat->messages()->messages().constLast().content, expected);
        QVERIFY(chat->errorMessage().isEmpty());
    }

    void repliesAreRecordedForTheMetricsPanel() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        b.settings()->setMaxReplyTokens(6);
        ReplyCacheHistory* history = b.metrics()->replies();
        QCOMPARE(history->count(), 0);
        QVERIFY(b.chat()->send("Once upon a time"));
        QVERIFY(finishReply(b.chat()));
        QVERIFY(b.chat()->send("And then?"));
        QVERIFY(finishReply(b.chat()));
        QTRY_COMPARE(history->count(), 2);
        const QModelIndex first = history->index(0), second = history->index(1);
        QCOMPARE(first.data(ReplyCacheHistory::ReusedRole).toInt(), 0);
        QVERIFY(first.data(ReplyCacheHistory::ComputedRole).toInt() > 0);
        QVERIFY(second.data(ReplyCacheHistory::ReusedRole).toInt() > 0); // the first turn is cached
        QCOMPARE(history->latestReused(), second.data(ReplyCacheHistory::ReusedRole).toInt());
    }

    void shiftedOutMessagesSitAboveADivider() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        b.settings()->setContextLength(64);
        QVERIFY(loadModel(b));
        b.settings()->setTemperature(0.0);
        b.settings()->setMaxReplyTokens(40);
        ChatController* chat = b.chat();
        const QStringList prompts{"Once upon a time", "What happened next?", "And then?", "Tell me more.",
                                  "How did it end?"};
        int boundary = 0;
        for (const QString& prompt : prompts) {
            QVERIFY(chat->send(prompt));
            QVERIFY(finishReply(chat));
            boundary = chat->messages()->firstInViewRow();
            if (boundary > 0) break;
        }
        QVERIFY2(boundary > 0, "no message left the model's view in a 64-token context");
        MessageListModel* messages = chat->messages();
        for (int row = 0; row < messages->count(); ++row) {
            const QModelIndex index = messages->index(row);
            QCOMPARE(index.data(MessageListModel::OutOfViewRole).toBool(), row < boundary);
            QCOMPARE(index.data(MessageListModel::ContextBoundaryRole).toBool(), row == boundary);
        }
    }

    // The divider says where the model's view started for the model and context that replied: a
    // new model or a new context sees the whole conversation again, until its own shift.
    void theDividerGoesWithTheModelAndContextThatShifted() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        b.settings()->setContextLength(64);
        QVERIFY(loadModel(b));
        b.settings()->setTemperature(0.0);
        b.settings()->setMaxReplyTokens(40);
        ChatController* chat = b.chat();
        const auto shiftSomeOut = [chat] {
            for (const char* prompt :
                 {"Once upon a time", "What happened next?", "And then?", "Tell me more."}) {
                if (!chat->send(prompt) || !finishReply(chat)) return false;
                if (chat->messages()->firstInViewRow() > 0) return true;
            }
            return false;
        };
        const auto noDivider = [chat] {
            for (int row = 0; row < chat->messages()->count(); ++row) {
                const QModelIndex index = chat->messages()->index(row);
                if (index.data(MessageListModel::OutOfViewRole).toBool() ||
                    index.data(MessageListModel::ContextBoundaryRole).toBool())
                    return false;
            }
            return true;
        };
        QVERIFY2(shiftSomeOut(), "no message left the model's view in a 64-token context");
        b.settings()->setContextLength(2048);
        QTRY_VERIFY_WITH_TIMEOUT(b.models()->contextLength() > 64, 10000);
        QVERIFY(noDivider());

        b.settings()->setContextLength(64);
        QTRY_COMPARE_WITH_TIMEOUT(b.models()->contextLength(), 64, 10000);
        QVERIFY2(shiftSomeOut(), "no message left the model's view in a 64-token context");
        QSignalSpy ready(b.models(), &ModelController::modelReady);
        const QString other = QString::fromStdString(hearth::test::testdata("models/stories260K-Q8_0.gguf"));
        QVERIFY(b.models()->loadDroppedFile(QUrl::fromLocalFile(other)));
        QVERIFY(ready.wait(30000));
        QVERIFY(noDivider());
    }

    // With no reply length set (the default), a reply ends where the model's context is full
    // rather than pushing the conversation it answers out of view: the demo model's first
    // reply, in its 128-token context, keeps the question in view.
    void aReplyStaysWithinTheContext() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        QCOMPARE(b.models()->contextLength(), 128);
        QCOMPARE(b.settings()->maxReplyTokens(), 0);
        b.settings()->setTemperature(1.0);
        ChatController* chat = b.chat();
        QVERIFY(chat->send("Once upon a time"));
        QVERIFY(finishReply(chat));
        QCOMPARE(chat->messages()->firstInViewRow(), 0);
        const QString stats = chat->messages()
                                  ->index(chat->messages()->count() - 1)
                                  .data(MessageListModel::StatsRole)
                                  .toString();
        QVERIFY2(!stats.contains("left the context"), qPrintable(stats));
        const QRegularExpressionMatch tokens = QRegularExpression("^(\\d+) tokens").match(stats);
        QVERIFY2(tokens.hasMatch(), qPrintable(stats));
        QVERIFY2(tokens.captured(1).toInt() < 128, qPrintable(stats));
    }

    void titlesComeFromTheFirstLine_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("title");
        QTest::newRow("short") << "Hello"
                               << "Hello";
        QTest::newRow("first line") << "  Plan a trip \n to Lisbon"
                                    << "Plan a trip";
        QTest::newRow("long") << QString(60, 'a') << QString(47, 'a') + QChar(0x2026);
    }
    void titlesComeFromTheFirstLine() {
        QFETCH(QString, text);
        QFETCH(QString, title);
        QCOMPARE(ChatController::titleFrom(text), title);
    }
};

QTEST_MAIN(TestControllers)
#include "test_controllers.moc"
