// One app per profile: two SingleInstance objects on one data folder (the second hands its
// arguments to the first, made absolute; other folders run side by side; the profile is
// free again when the first ends; a lock holder that does not answer and a hostile message
// are handled), then the real hearth binary started twice on one profile: the second hands
// its model to the first, which loads it, and exits; after the first is killed, a new one
// takes the profile over.
#include "app/platform/single_instance.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QtConcurrent/QtConcurrentRun>
#include <QtEndian>
#include <csignal>

using hearth::app::SingleInstance;

class TestSingleInstance : public QObject {
    Q_OBJECT

    QString dir_;

    // Hands `arguments` over from another thread (handOver blocks; the first instance answers
    // on this thread's event loop) and waits for the answer.
    static bool handOver(const SingleInstance& second, const QStringList& arguments, QString* error,
                         int timeoutMs = 10000) {
        QFuture<bool> sent = QtConcurrent::run(
            [&second, arguments, error, timeoutMs] { return second.handOver(arguments, timeoutMs, error); });
        if (!QTest::qWaitFor([&] { return sent.isFinished(); }, timeoutMs + 5000)) return false;
        return sent.result();
    }

    static QString hearthBinary() { return QString::fromStdString(hearth::test::bin_dir()) + "/hearth"; }
    static QString modelPath() {
        return QDir::cleanPath(QString::fromStdString(hearth::test::testdata("models/stories260K.gguf")));
    }
    void startHearth(QProcess& app, const QStringList& extra = {}) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("HEARTH_DEMO_MODEL", ""); // no demo model: the recent list shows what was loaded
        app.setProcessEnvironment(env);
        app.start(hearthBinary(),
                  QStringList{"--data-dir", dir_ + "/data", "--settings", dir_ + "/settings.ini"} + extra);
    }
    // Runs a second hearth to its end; its exit code (-1 when it did not end).
    int runSecondHearth(const QStringList& arguments) {
        QProcess second;
        startHearth(second, arguments);
        if (!second.waitForFinished(60000)) {
            second.kill();
            second.waitForFinished();
            return -1;
        }
        if (second.exitCode() != 0) qWarning("%s", second.readAllStandardError().constData());
        return second.exitStatus() == QProcess::NormalExit ? second.exitCode() : -1;
    }
    QStringList recentModels() const {
        QSettings settings(dir_ + "/settings.ini", QSettings::IniFormat);
        return settings.value("models/recent").toStringList();
    }
    // The first instance is up: it holds the profile and answers.
    bool waitUntilServing() {
        return QTest::qWaitFor(
            [&] {
                QLocalSocket probe;
                probe.connectToServer(SingleInstance::socketName(dir_ + "/data"));
                return probe.waitForConnected(200);
            },
            60000);
    }

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-instance")); }

    void secondInstanceHandsItsArgumentsOver() {
        SingleInstance first(dir_ + "/profile");
        QVERIFY(first.claim());
        SingleInstance second(dir_ + "/profile");
        QVERIFY(!second.claim());
        QSignalSpy received(&first, &SingleInstance::argumentsReceived);
        QString error;
        QVERIFY2(handOver(second, {"models/tiny model.gguf", "/elsewhere/other.gguf"}, &error),
                 qPrintable(error));
        QCOMPARE(received.count(), 1);
        QCOMPARE(received.constFirst().constFirst().toStringList(),
                 QStringList(
                     {QDir::current().absoluteFilePath("models/tiny model.gguf"), "/elsewhere/other.gguf"}));
        // No arguments: the running window is only raised.
        QVERIFY2(handOver(second, {}, &error), qPrintable(error));
        QCOMPARE(received.count(), 2);
        QVERIFY(received.at(1).constFirst().toStringList().isEmpty());
    }

    void otherProfilesRunSideBySide() {
        SingleInstance first(dir_ + "/one");
        SingleInstance second(dir_ + "/two");
        QVERIFY(first.claim());
        QVERIFY(second.claim());
        QVERIFY(SingleInstance::socketName(dir_ + "/one") != SingleInstance::socketName(dir_ + "/two"));
        QCOMPARE(SingleInstance::socketName(dir_ + "/one"), SingleInstance::socketName(dir_ + "/./one/"));
    }

    void theProfileIsFreeOnceTheFirstEnds() {
        auto first = std::make_unique<SingleInstance>(dir_ + "/profile");
        QVERIFY(first->claim());
        SingleInstance second(dir_ + "/profile");
        QVERIFY(!second.claim());
        first.reset();
        QVERIFY(second.claim());
    }

    void aHolderThatDoesNotAnswerIsReported() {
        QDir().mkpath(dir_ + "/profile");
        QLockFile held(dir_ + "/profile/hearth.lock"); // holds the profile, listens for nothing
        QVERIFY(held.tryLock(0));
        SingleInstance second(dir_ + "/profile");
        QVERIFY(!second.claim());
        QString error;
        QVERIFY(!handOver(second, {"x.gguf"}, &error, 300));
        QVERIFY2(error.contains("does not answer"), qPrintable(error));
        QVERIFY2(error.contains(dir_ + "/profile"), qPrintable(error));
    }

    void aHostileMessageIsRefused() {
        SingleInstance first(dir_ + "/profile");
        QVERIFY(first.claim());
        QSignalSpy received(&first, &SingleInstance::argumentsReceived);
        QLocalSocket socket;
        socket.connectToServer(SingleInstance::socketName(dir_ + "/profile"));
        QVERIFY(socket.waitForConnected(5000));
        QByteArray header(4, 0);
        qToBigEndian(quint32(1) << 30, header.data()); // claims a gigabyte
        socket.write(header + QByteArray(64, 'a'));
        socket.flush();
        QVERIFY(QTest::qWaitFor([&] { return socket.state() == QLocalSocket::UnconnectedState; }, 5000));
        QCOMPARE(received.count(), 0);
    }

    void realSecondStartLoadsItsModelInTheFirst() {
        QProcess first;
        startHearth(first);
        QVERIFY(first.waitForStarted());
        QVERIFY(waitUntilServing());
        QCOMPARE(runSecondHearth({modelPath()}), 0); // handed over, exited
        QCOMPARE(first.state(), QProcess::Running);
        // The first loaded it: its recent list (written shortly after the load) names it.
        QVERIFY2(QTest::qWaitFor([&] { return recentModels().contains(modelPath()); }, 60000),
                 qPrintable(recentModels().join(", ")));

        first.kill(); // SIGKILL: the lock file stays behind, with a dead process in it
        first.waitForFinished();
        QVERIFY(QFile::exists(dir_ + "/data/hearth.lock"));
        QProcess next;
        startHearth(next);
        QVERIFY(next.waitForStarted());
        QVERIFY(waitUntilServing());
        QCOMPARE(runSecondHearth({}), 0); // answered by the new first instance
        QCOMPARE(next.state(), QProcess::Running);
        next.terminate();
        if (!next.waitForFinished(30000)) next.kill();
    }

    // SIGTERM (a session ending, `kill`) ends the app as closing its window does: exit status 0,
    // the profile's lock and the single-instance socket removed. The signal's default action
    // ended it on the spot, leaving both behind and losing what was not yet written.
    void aTerminationSignalEndsItAsClosingDoes() {
        QProcess app;
        startHearth(app);
        QVERIFY(app.waitForStarted());
        QVERIFY(waitUntilServing());
        app.terminate();
        QVERIFY(app.waitForFinished(30000));
        QCOMPARE(app.exitStatus(), QProcess::NormalExit);
        QCOMPARE(app.exitCode(), 0);
        QVERIFY(!QFile::exists(dir_ + "/data/hearth.lock"));
        QVERIFY(!QFile::exists(QDir::tempPath() + "/" + SingleInstance::socketName(dir_ + "/data")));
    }

    // A second start that waits on the first ends at once on SIGTERM, as any program does: the
    // handlers it set before claiming the profile are the defaults again once the profile
    // turned out to be taken, so the signal kills it (a crash exit by SIGTERM). Still caught,
    // the signal would leave it waiting out the hand-over's 10 s and then exit normally.
    void aSecondStartEndsAtOnceOnATerminationSignal() {
        const QString data = dir_ + "/data";
        QDir().mkpath(data);
        QLockFile held(data + "/hearth.lock"); // a first instance's lock and socket
        QVERIFY(held.tryLock(0));
        QLocalServer first; // takes the request and never answers
        QLocalServer::removeServer(SingleInstance::socketName(data));
        QVERIFY(first.listen(SingleInstance::socketName(data)));
        QProcess second;
        startHearth(second, {modelPath()});
        QVERIFY(second.waitForStarted());
        QVERIFY(first.waitForNewConnection(60000)); // it is handing over
        second.terminate();
        QVERIFY(second.waitForFinished(30000));
        QCOMPARE(second.exitStatus(), QProcess::CrashExit); // ended by the signal...
        QCOMPARE(second.exitCode(), SIGTERM);               // ...this one (QProcess: the signal's number)
    }
};

QTEST_MAIN(TestSingleInstance)
#include "test_single_instance.moc"
