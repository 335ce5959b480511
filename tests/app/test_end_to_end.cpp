// Starts the real hearth binary (offscreen) twice with a script: it opens on the
// model picker with a fresh data folder, which offers the demo model shipped with
// the app; one click loads it; it sends a message with Enter, sees tokens in the
// view, presses Stop while the reply streams (the reply ends stopped), and after a
// restart finds the conversation again. Then an app killed while it streams: what
// the user wrote, and the reply up to its last save, survive, in a database that passes
// SQLite's integrity check.
// Screenshots of the main window go to build/test-artifacts; besides those of the runs above,
// hearth-<language>-<width>x<height>-<theme>-metrics.png: English and German, 800x600 and
// 1920x1080, light and dark, the metrics panel open, each run opened the way a file manager
// opens a .gguf file (its path as the argument).
#include "app/storage/sql_store.h"
#include "tests/support/test_support.h"
#include <QColor>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

class TestEndToEnd : public QObject {
    Q_OBJECT

    QString dir_;

    // The app with the test-only automation driver; the shipped hearth has no script option.
    static QString hearthBinary() {
        return QString::fromStdString(hearth::test::bin_dir()) + "/hearth-scripted";
    }
    static QString shippedBinary() { return QString::fromStdString(hearth::test::bin_dir()) + "/hearth"; }
    static QString artifacts() { return QString::fromStdString(hearth::test::artifact_dir()); }
    static QString modelPath() {
        return QString::fromStdString(hearth::test::testdata("models/stories260K.gguf"));
    }

    // How a run differs from the default one: its settings file, its language (LANG, as a desktop
    // session sets it; empty: the machine's) and arguments after the options (a model file).
    struct Launch {
        QString settingsFile;
        QByteArray lang;
        QStringList arguments;
    };

    // Starts the app on `dataDir` with `script` (not yet finished).
    void startApp(QProcess& app, const QString& script, const QString& name, const QString& dataDir,
                  const Launch& launch = {}) {
        const QString scriptPath = dir_ + "/" + name + ".script";
        QFile file(scriptPath);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Text));
        file.write(script.toUtf8());
        file.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
        env.remove("HEARTH_DATA_DIR");
        env.remove("HEARTH_SETTINGS_FILE");
        if (!launch.lang.isEmpty()) {
            for (const char* overriding : {"LC_ALL", "LC_MESSAGES", "LANGUAGE"})
                env.remove(QString::fromLatin1(overriding));
            env.insert("LANG", QString::fromLatin1(launch.lang));
        }
        app.setProcessEnvironment(env);
        const QString settingsFile =
            launch.settingsFile.isEmpty() ? dir_ + "/settings.ini" : launch.settingsFile;
        app.start(hearthBinary(), QStringList{"--data-dir", dataDir, "--settings", settingsFile, "--script",
                                              scriptPath, "--screenshots", artifacts()} +
                                      launch.arguments);
    }
    static QList<QJsonObject> parseEvents(const QByteArray& output) {
        QList<QJsonObject> events;
        for (const QByteArray& line : output.split('\n')) {
            const QJsonDocument doc = QJsonDocument::fromJson(line);
            if (doc.isObject()) events.append(doc.object());
        }
        return events;
    }
    // Runs the app with `script` to its end; returns its JSON events.
    QList<QJsonObject> runApp(const QString& script, const QString& name, QString dataDir = {},
                              const Launch& launch = {}) {
        QProcess app;
        startApp(app, script, name, dataDir.isEmpty() ? dir_ + "/data" : dataDir, launch);
        if (!app.waitForFinished(240000)) {
            app.kill();
            app.waitForFinished();
        }
        const QByteArray err = app.readAllStandardError();
        if (app.exitCode() != 0) qWarning("hearth exited with %d:\n%s", app.exitCode(), err.constData());
        // A QML warning from the app (a binding loop, a type error) fails the test.
        for (const QByteArray& line : err.split('\n'))
            if (line.contains(".qml:") || line.startsWith("QML ") || line.startsWith("qml: "))
                QTest::qFail(qPrintable("QML warning from hearth: " + QString::fromUtf8(line)), __FILE__,
                             __LINE__);
        return parseEvents(app.readAllStandardOutput());
    }
    static QList<QJsonObject> eventsNamed(const QList<QJsonObject>& events, const QString& name) {
        QList<QJsonObject> out;
        for (const auto& e : events)
            if (e["event"].toString() == name) out.append(e);
        return out;
    }
    // The content of the first assistant message in the database, read beside the running app
    // (read-only; empty while there is none, or while the file cannot be read).
    static QString savedReply(const QString& database) {
        try {
            const hearth::app::SqlStore store(database, hearth::app::SqlStore::Access::ReadOnly);
            for (const hearth::app::ConversationRecord& conversation : store.conversations())
                for (const hearth::app::MessageRecord& message : store.messages(conversation.id))
                    if (message.role == hearth::chat::Role::Assistant) return message.content;
        } catch (const std::exception&) {
        }
        return {};
    }
    // The image's mean lightness, 0 (black) to 1 (white), from a grid of pixels.
    static double meanLightness(const QString& path) {
        const QImage image(path);
        double sum = 0;
        int count = 0;
        for (int y = 0; y < image.height(); y += 17)
            for (int x = 0; x < image.width(); x += 17, ++count)
                sum += QColor(image.pixel(x, y)).lightnessF();
        return count > 0 ? sum / count : 0;
    }
    // A saved, drawn screenshot: of `size` where given, else at least the window's minimum size.
    static void checkScreenshot(const QJsonObject& event, QSize size = {}) {
        QVERIFY2(event["saved"].toBool(), qPrintable(event["path"].toString()));
        const QImage image(event["path"].toString());
        QVERIFY(!image.isNull());
        if (size.isValid())
            QCOMPARE(image.size(), size);
        else
            QVERIFY(image.width() >= 900 && image.height() >= 560);
        // Not a blank frame: the window has drawn something.
        QSet<QRgb> colors;
        for (int y = 0; y < image.height(); y += 23)
            for (int x = 0; x < image.width(); x += 23)
                colors.insert(image.pixel(x, y));
        QVERIFY2(colors.size() > 8, qPrintable(event["path"].toString()));
    }

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(hearthBinary()).isExecutable(), qPrintable(hearthBinary()));
        dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-e2e"));
        QDir().mkpath(artifacts());
        // Start in the dark theme, with the longest reply the settings allow, so that Stop has
        // something to stop: stories260K was trained without end-of-text tokens and writes on
        // (shifting its 128-token context) for seconds, while Stop comes a few frames in.
        QFile settings(dir_ + "/settings.ini");
        QVERIFY(settings.open(QIODevice::WriteOnly | QIODevice::Text));
        settings.write("[appearance]\ntheme=dark\n[generation]\nmaxReplyTokens=32768\ntemperature=1.0\n");
        settings.close();
    }

    void chatThenRestart() {
        const QString notes = dir_ + "/notes.txt";
        QFile(notes).open(QIODevice::WriteOnly);
        const QString firstRun = QStringLiteral("wait-ready\n"
                                                "wait-shown demoOffer\n"
                                                "state\n"
                                                "screenshot hearth-start-model-picker.png\n"
                                                "click tryDemoButton\n"
                                                "wait-model\n"
                                                "send Once upon a time\n"
                                                "wait-stream 60\n"
                                                "screenshot hearth-chat-streaming.png\n"
                                                "click stopButton\n"
                                                "wait-idle\n"
                                                "state\n"
                                                "click metricsToggle\n"
                                                "wait-shown metricsPanel\n"
                                                "screenshot hearth-metrics-panel.png\n"
                                                "click metricsToggle\n"
                                                "click nav_models\n"
                                                "wait-shown modelPicker\n"
                                                "screenshot hearth-model-picker.png\n"
                                                "click nav_settings\n"
                                                "wait-shown settingsPanel\n"
                                                "screenshot hearth-settings.png\n"
                                                "theme light\n"
                                                "click conversation_0\n"
                                                "wait-messages 2\n"
                                                "click metricsToggle\n"
                                                "wait-shown metricsPanel\n"
                                                "screenshot hearth-chat-light.png\n"
                                                "load %1\n"
                                                "state\n"
                                                "quit\n")
                                     .arg(notes);
        const QList<QJsonObject> events = runApp(firstRun, "first");
        QVERIFY2(!eventsNamed(events, "done").isEmpty(), "the first run did not finish its script");

        const QList<QJsonObject> states = eventsNamed(events, "state");
        QCOMPARE(states.size(), 3);
        QCOMPARE(states[0]["page"].toString(), QStringLiteral("models")); // no model: opens on the picker
        QCOMPARE(states[0]["modelLoaded"].toBool(), false);
        // A fresh data folder: the picker offers the demo model shipped beside the binary, and
        // one click on it loads it.
        QVERIFY(states[0]["demoOffered"].toBool());
        QVERIFY(states[0]["demoOfferShown"].toBool());
        const QJsonObject tryDemo = eventsNamed(events, "click").value(0);
        QCOMPARE(tryDemo["target"].toString(), QStringLiteral("tryDemoButton"));
        QVERIFY(tryDemo["found"].toBool());
        const QJsonObject model = eventsNamed(events, "model").value(0);
        QVERIFY2(model["loaded"].toBool(), qPrintable(model["error"].toString()));
        QCOMPARE(model["page"].toString(), QStringLiteral("chat"));
        QCOMPARE(QFileInfo(states[1]["modelPath"].toString()).fileName(), QStringLiteral("stories260K.gguf"));
        QCOMPARE(states[1]["demoOffered"].toBool(), false); // used once: offered no more

        const QJsonObject sent = eventsNamed(events, "sent").value(0);
        QVERIFY(sent["typed"].toBool());
        QVERIFY(sent["generating"].toBool()); // Enter in the composer started a reply

        const QJsonObject stream = eventsNamed(events, "stream").value(0);
        QVERIFY(stream["ok"].toBool());
        QVERIFY(stream["visibleChars"].toInt() >= 1); // tokens reached the view
        QVERIFY2(stream["generating"].toBool(), "the reply ended before the view showed 60 characters");

        // Stop was on screen and pressed while the reply was still streaming.
        const QList<QJsonObject> clicks = eventsNamed(events, "click");
        QVERIFY(clicks.size() >= 2);
        const QJsonObject stop = clicks.at(1);
        QCOMPARE(stop["target"].toString(), QStringLiteral("stopButton"));
        QVERIFY2(stop["found"].toBool(), "no visible stopButton while streaming");
        QVERIFY2(stop["generating"].toBool(), "Stop was clicked after the reply had ended");

        const QJsonObject idle = eventsNamed(events, "idle").value(0);
        QVERIFY(idle["ok"].toBool());
        const QJsonArray messages = states[1]["messages"].toArray();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].toObject()["content"].toString(), QStringLiteral("Once upon a time"));
        const QJsonObject reply = messages[1].toObject();
        QCOMPARE(reply["state"].toString(), QStringLiteral("stopped"));
        QCOMPARE(states[1]["generating"].toBool(), false);
        QVERIFY(!reply["content"].toString().isEmpty());
        // The view shows the reply as Markdown; its plain text is the reply's words.
        QCOMPARE(idle["visibleText"].toString().simplified().left(20),
                 reply["content"].toString().simplified().left(20));
        qInfo("reply stopped after %d characters", int(reply["content"].toString().size()));

        const QJsonObject refused = eventsNamed(events, "load").value(0);
        QVERIFY(!refused["accepted"].toBool());
        QVERIFY(refused["error"].toString().contains("notes.txt"));
        QCOMPARE(states[2]["modelLoaded"].toBool(), true); // the model stayed

        for (const QJsonObject& shot : eventsNamed(events, "screenshot"))
            checkScreenshot(shot);
        QCOMPARE(eventsNamed(events, "screenshot").size(), 6);
        for (const QJsonObject& click : clicks)
            QVERIFY2(click["found"].toBool(), qPrintable(click["target"].toString()));
        for (const QJsonObject& waited : eventsNamed(events, "shown") + eventsNamed(events, "messages"))
            QVERIFY2(waited["ok"].toBool(), QJsonDocument(waited).toJson().constData());

        // Restart: the conversation is there.
        const QList<QJsonObject> again = runApp(QStringLiteral("wait-ready\n"
                                                               "click conversation_0\n"
                                                               "wait-messages 2\n"
                                                               "state\n"
                                                               "screenshot hearth-after-restart.png\n"
                                                               "quit\n"),
                                                "second");
        QVERIFY2(!eventsNamed(again, "done").isEmpty(), "the second run did not finish its script");
        const QJsonObject restored = eventsNamed(again, "state").value(0);
        const QJsonArray conversations = restored["conversations"].toArray();
        QCOMPARE(conversations.size(), 1);
        QCOMPARE(conversations[0].toObject()["title"].toString(), QStringLiteral("Once upon a time"));
        const QJsonArray restoredMessages = restored["messages"].toArray();
        QCOMPARE(restoredMessages.size(), 2);
        QCOMPARE(restoredMessages[1].toObject()["content"].toString(), reply["content"].toString());
        checkScreenshot(eventsNamed(again, "screenshot").value(0));
    }

    // English and German, 800x600 and 1920x1080, light and dark, with a reply and the metrics
    // panel open. Each run is opened with the model file as its argument, as a file manager's
    // "open with" does, and its language comes from LANG alone.
    void screenshotsAtEverySizeThemeAndLanguage() {
        const QString settingsFile = dir_ + "/screenshots.ini";
        QFile settings(settingsFile);
        QVERIFY(settings.open(QIODevice::WriteOnly | QIODevice::Text));
        settings.write("[generation]\nmaxReplyTokens=48\ntemperature=0\n");
        settings.close();
        const QList<QSize> sizes{{800, 600}, {1920, 1080}};
        const QStringList themes{QStringLiteral("light"), QStringLiteral("dark")};
        struct Language {
            QString name;
            QByteArray lang;
            QString settingsLabel; // the sidebar's way to the settings, in this language
        };
        for (const Language& language :
             {Language{"en", "en_US.UTF-8", "Settings"}, Language{"de", "de_DE.UTF-8", "Einstellungen"}}) {
            QString script = QStringLiteral("wait-ready\nwait-model\ntext nav_settings\n"
                                            "send Once upon a time\nwait-idle\nset metricsOpen true\n");
            QStringList expected;
            for (const QSize size : sizes) {
                script += QStringLiteral("resize %1 %2\n").arg(size.width()).arg(size.height());
                for (const QString& theme : themes) {
                    const QString file = QStringLiteral("hearth-%1-%2x%3-%4-metrics.png")
                                             .arg(language.name)
                                             .arg(size.width())
                                             .arg(size.height())
                                             .arg(theme);
                    script += QStringLiteral("theme %1\nscreenshot %2\n").arg(theme, file);
                    expected << file;
                }
            }
            script += QStringLiteral("state\nquit\n");
            const QList<QJsonObject> events =
                runApp(script, "screenshots-" + language.name, dir_ + "/screenshots-" + language.name,
                       Launch{settingsFile, language.lang, {modelPath()}});
            const QString run = QStringLiteral("the %1 run").arg(language.name);
            QVERIFY2(!eventsNamed(events, "done").isEmpty(), qPrintable(run + " did not finish its script"));
            const QJsonObject model = eventsNamed(events, "model").value(0);
            QVERIFY2(model["loaded"].toBool(), qPrintable(run + ": " + model["error"].toString()));
            QCOMPARE(eventsNamed(events, "text").value(0)["text"].toString(), language.settingsLabel);
            const QJsonArray messages = eventsNamed(events, "state").value(0)["messages"].toArray();
            QCOMPARE(messages.size(), 2);
            for (const QJsonObject& resize : eventsNamed(events, "resize"))
                QVERIFY2(resize["ok"].toBool(), qPrintable(run + ": the window did not take its size"));
            const QList<QJsonObject> shots = eventsNamed(events, "screenshot");
            QCOMPARE(shots.size(), expected.size());
            for (int i = 0; i < shots.size(); ++i) {
                QCOMPARE(QFileInfo(shots[i]["path"].toString()).fileName(), expected[i]);
                checkScreenshot(shots[i], sizes[i / themes.size()]);
                if (QTest::currentTestFailed()) return;
            }
            // The light theme is lighter than the dark one at every size.
            for (int i = 0; i + 1 < shots.size(); i += 2)
                QVERIFY2(meanLightness(shots[i]["path"].toString()) >
                             meanLightness(shots[i + 1]["path"].toString()) + 0.2,
                         qPrintable(expected[i]));
        }
    }

    // SIGKILL while a reply streams (no shutdown code runs): the user's message was written
    // when it was sent, and the reply is saved every second as it streams; after a restart both
    // are there, the reply marked stopped. The kill comes once the database (read here, beside
    // the app) holds some of the reply.
    void killedWhileStreaming() {
        const QString dataDir = dir_ + "/killed";
        const QString database = dataDir + "/conversations.sqlite";
        QProcess app;
        startApp(app,
                 QStringLiteral("wait-ready\nload %1\nwait-model\nsend Keep what I wrote\n"
                                "wait-stream 20\nstate\nhold\n")
                     .arg(modelPath()),
                 "killed", dataDir);
        QByteArray output;
        QList<QJsonObject> states;
        QVERIFY(QTest::qWaitFor(
            [&] {
                output += app.readAllStandardOutput();
                states = eventsNamed(parseEvents(output), "state");
                return !states.isEmpty() || app.state() == QProcess::NotRunning;
            },
            120000));
        QCOMPARE(states.size(), 1);
        QVERIFY2(states[0]["generating"].toBool(), "the reply had ended before the kill");
        const QString shown = states[0]["messages"].toArray()[1].toObject()["content"].toString();
        // The reply as saved so far: its periodic save has run at least once.
        QString saved;
        QVERIFY2(QTest::qWaitFor([&] { return !(saved = savedReply(database)).isEmpty(); }, 30000),
                 "nothing of the reply was saved while it streamed");
        QCOMPARE(app.state(), QProcess::Running);
        app.kill(); // SIGKILL
        app.waitForFinished();

        const QList<QJsonObject> again =
            runApp(QStringLiteral("wait-ready\nclick conversation_0\nwait-messages 2\nstate\nquit\n"),
                   "after-kill", dataDir);
        QVERIFY2(!eventsNamed(again, "done").isEmpty(), "the app did not start again after the kill");
        const QJsonArray messages = eventsNamed(again, "state").value(0)["messages"].toArray();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].toObject()["content"].toString(), QStringLiteral("Keep what I wrote"));
        const QJsonObject reply = messages[1].toObject();
        QCOMPARE(reply["state"].toString(), QStringLiteral("stopped")); // it was still streaming
        const QString restored = reply["content"].toString();
        // Nothing saved is lost (a later save before the kill may have added to it), and it is
        // the text the view showed: one of the two begins the other.
        QVERIFY2(restored.startsWith(saved), "the restored reply lost what was saved");
        QVERIFY2(shown.startsWith(restored) || restored.startsWith(shown),
                 "the saved reply is not what the view showed");
        QCOMPARE(hearth::app::SqlStore(dataDir + "/conversations.sqlite").integrityCheck(),
                 QStringLiteral("ok"));
    }

    // The hearth that ships has the same options but none to run a script: the driver that
    // types and clicks for this test is in hearth-scripted only.
    void theShippedAppHasNoScriptOption() {
        for (const QString& binary : {shippedBinary(), hearthBinary()}) {
            QProcess app;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
            app.setProcessEnvironment(env);
            app.start(binary, {"--help"});
            QVERIFY2(app.waitForFinished(60000), qPrintable(binary));
            const QString help = QString::fromUtf8(app.readAllStandardOutput());
            QVERIFY2(help.contains("--data-dir") && help.contains("--settings"), qPrintable(help));
            QCOMPARE(help.contains("--script"), binary == hearthBinary());
        }
    }
};

QTEST_MAIN(TestEndToEnd)
#include "test_end_to_end.moc"
