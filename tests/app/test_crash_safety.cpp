// Crash safety with real processes: this test binary runs itself as the app (a HearthBackend
// with stories260K, one more exchange in the same conversation each run) and is killed
//  - with SIGKILL at a series of moments after it asks to switch to another model: during
//    the new model's load and during the saving of the old conversation's KV state;
//  - by SIGXFSZ (a file-size limit with its default action: the process dies at the byte)
//    in the middle of writing the KV state file, and in the middle of a database write.
// After every kill the database passes PRAGMA integrity_check and holds every exchange that
// finished before it, and the next run resumes the conversation (from the saved state or by
// a re-prefill) and replies.
#include "app/chat/chat_controller.h"
#include "app/chat/conversation_list_model.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_store.h"
#include "app/storage/sql_store.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/file_size_limit.h"
#include <QGuiApplication>
#include <QProcess>
#include <QTest>
#include <chrono>
#include <csignal>
#include <cstdio>

using namespace hearth::app;
using hearth::test::dieWhenAFileReaches;
using hearth::test::largestFileIn;

namespace {

constexpr const char* kChildMode = "HEARTH_CRASH_CHILD";
constexpr const char* kChildDir = "HEARTH_CRASH_DIR";
constexpr const char* kChildArgument = "HEARTH_CRASH_ARGUMENT";
constexpr int kChildSurvived = 3; // a child that should have been killed and was not

AppPaths pathsIn(const QString& dir) {
    return {dir + "/data", dir + "/settings.ini"};
}

QString otherModelPath() {
    return QDir::cleanPath(QString::fromStdString(hearth::test::testdata("models/tiny-llama3.gguf")));
}

// The child: opens the profile, loads stories260K, adds one exchange to the conversation (the
// first one, or a new one), then does what its mode says. Prints "replied N" once the
// exchange is complete and written (N: the conversation's messages).
int runChild() {
    const QString mode = qEnvironmentVariable(kChildMode);
    const qint64 argument = qEnvironmentVariable(kChildArgument).toLongLong();
    HearthBackend b(pathsIn(qEnvironmentVariable(kChildDir)));
    if (!hearth::test::startChat(b) || !hearth::test::loadModel(b)) return 2;
    b.settings()->setMaxReplyTokens(8);
    ChatController* chat = b.chat();
    if (chat->allConversations()->rowCount() > 0) {
        const QString id = chat->allConversations()->index(0).data(ConversationListModel::IdRole).toString();
        chat->selectConversation(id);
        if (!QTest::qWaitFor([&] { return chat->canSend(); }, 10000)) return 2;
    }
    if (mode == QLatin1String("db-write")) {
        b.store()->waitForIdle();
        dieWhenAFileReaches(largestFileIn(pathsIn(qEnvironmentVariable(kChildDir)).dataDir) + 16 * 1024);
        chat->send(QString(256 * 1024, QLatin1Char('z'))); // saved at once: the write crosses the limit
        hearth::test::finishReply(chat);
        b.store()->waitForIdle();
        return kChildSurvived;
    }
    if (!chat->send(QStringLiteral("One more story")) || !hearth::test::finishReply(chat)) return 2;
    if (chat->messages()->messages().constLast().state != MessageState::Complete) return 2;
    b.store()->waitForIdle();
    b.settings()->flush(); // nothing but the KV state is written from here on
    std::printf("replied %d\n", static_cast<int>(chat->messages()->count()));
    std::fflush(stdout);

    if (mode == QLatin1String("kill-during-switch")) {
        // The worker loads the other model, then saves this conversation's state, while this
        // thread waits `argument` microseconds and kills the process.
        b.models()->load(otherModelPath());
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(argument);
        while (std::chrono::steady_clock::now() < until) {
        }
        std::raise(SIGKILL);
    }
    if (mode == QLatin1String("state-write")) {
        // The state file of this conversation is written when the model is switched; it grows
        // past `argument` bytes (the database and the settings are not written meanwhile).
        dieWhenAFileReaches(argument);
        QSignalSpy ready(b.models(), &ModelController::modelReady);
        b.models()->load(otherModelPath());
        ready.wait(30000);
        return kChildSurvived;
    }
    return 0; // "check": a clean shutdown
}

} // namespace

class TestCrashSafety : public QObject {
    Q_OBJECT

    QString dir_;

    struct ChildRun {
        bool killed = false;
        int exitCode = -1;
        int messages = -1; // from "replied N"; -1 when it never got there
    };
    ChildRun runChild(const QString& mode, qint64 argument = 0) {
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert(kChildMode, mode);
        env.insert(kChildDir, dir_);
        env.insert(kChildArgument, QString::number(argument));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {});
        ChildRun run;
        if (!child.waitForFinished(120000)) {
            child.kill();
            child.waitForFinished();
            return run;
        }
        run.killed = child.exitStatus() == QProcess::CrashExit;
        run.exitCode = child.exitCode();
        const QByteArray out = child.readAllStandardOutput();
        const int at = out.indexOf("replied ");
        if (at >= 0) run.messages = out.mid(at + 8).split('\n').value(0).toInt();
        if (!run.killed && run.exitCode != 0) qWarning("child: %s", child.readAllStandardError().constData());
        return run;
    }

    // The database after a crash: intact, with the one conversation's `messages` messages, the
    // last a complete reply.
    void verifyDatabase(int messages) {
        SqlStore store(pathsIn(dir_).databaseFile());
        QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
        const QList<ConversationRecord> conversations = store.conversations();
        QCOMPARE(conversations.size(), 1);
        const QList<MessageRecord> stored = store.messages(conversations[0].id);
        QCOMPARE(stored.size(), messages);
        QCOMPARE(stored.constLast().role, hearth::chat::Role::Assistant);
        QCOMPARE(stored.constLast().state, MessageState::Complete);
    }

    int stateTempFiles() const {
        return QDir(pathsIn(dir_).kvStateDir()).entryList({"*.tmp-*"}, QDir::Files).size();
    }

private slots:
    void initTestCase() {
        dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-crash"));
        const ChildRun first = runChild("check");
        QCOMPARE(first.exitCode, 0);
        QCOMPARE(first.messages, 2);
        verifyDatabase(2);
    }

    void killedWhileSwitchingModels_data() {
        QTest::addColumn<qint64>("delayMicroseconds");
        for (qint64 delay : {0, 500, 2000, 5000, 10000, 20000, 40000, 80000})
            QTest::newRow(qPrintable(QString("after %1 us").arg(delay))) << delay;
    }
    void killedWhileSwitchingModels() {
        QFETCH(qint64, delayMicroseconds);
        const int before = [&] {
            SqlStore store(pathsIn(dir_).databaseFile());
            return static_cast<int>(store.messages(store.conversations().constFirst().id).size());
        }();
        const ChildRun run = runChild("kill-during-switch", delayMicroseconds);
        QCOMPARE(run.messages, before + 2); // it resumed the conversation and replied
        QVERIFY(run.killed);
        verifyDatabase(before + 2);
    }

    void killedWhileWritingTheKvState_data() {
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("in the header") << qint64(64);
        QTest::newRow("in the keys") << qint64(6000);
    }
    void killedWhileWritingTheKvState() {
        QFETCH(qint64, bytes);
        SqlStore before(pathsIn(dir_).databaseFile());
        const int messages = static_cast<int>(before.messages(before.conversations().constFirst().id).size());
        const ChildRun run = runChild("state-write", bytes);
        QCOMPARE(run.messages, messages + 2);
        QVERIFY2(run.killed, qPrintable(QString("exit code %1").arg(run.exitCode)));
        // It died writing the state: its temporary file is there, never renamed over a good one
        // (an earlier run's was removed when this run's session store opened the folder).
        QCOMPARE(stateTempFiles(), 1);
        verifyDatabase(messages + 2);
    }

    void killedWhileWritingTheDatabase() {
        SqlStore before(pathsIn(dir_).databaseFile());
        const int messages = static_cast<int>(before.messages(before.conversations().constFirst().id).size());
        const ChildRun run = runChild("db-write");
        QVERIFY2(run.killed, qPrintable(QString("exit code %1").arg(run.exitCode)));
        verifyDatabase(messages); // the message being written is lost whole; nothing else is
    }

    void resumesAfterEveryCrash() {
        SqlStore before(pathsIn(dir_).databaseFile());
        const int messages = static_cast<int>(before.messages(before.conversations().constFirst().id).size());
        const ChildRun run = runChild("check");
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.messages, messages + 2);
        verifyDatabase(messages + 2);
        qInfo("temporary state files left by the kills: %d", stateTempFiles());
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    if (qEnvironmentVariableIsSet(kChildMode)) return runChild();
    TestCrashSafety test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_crash_safety.moc"
