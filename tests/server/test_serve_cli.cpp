// `hearth-cli serve` as a real subprocess: it prints the URL it listens on (--port 0:
// a free port), answers a chat completion over HTTP, holds to its API key, its allowed origins
// and host names (and refuses foreign ones), decodes every request speculatively with --lookup
// (the same greedy text, its counters printed), reads images with --mmproj (its figures printed),
// refuses bad arguments with status 2, and exits 0 on SIGTERM.
#include "tests/server/api_fixture.h"
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace hearth::test;

namespace {
QString cli() {
    return QString::fromStdString(bin_dir() + "/hearth-cli");
}
QString stories() {
    return QString::fromStdString(testdata("models/stories260K.gguf"));
}

QString gemma() {
    return QString::fromStdString(testdata("models/tiny-gemma3.gguf"));
}
QString gemmaProjector() {
    return QString::fromStdString(testdata("vision/mmproj-tiny-gemma3-f32.gguf"));
}

// Starts the server and reads the port from its "listening on" line; 0 on failure.
quint16 startServe(QProcess& process, const QStringList& extra = {}, const QString& model = stories()) {
    process.start(cli(), QStringList{"serve", "-m", model, "--port", "0", "-t", "1"} + extra);
    if (!process.waitForStarted(10000)) return 0;
    static const QRegularExpression listening(QStringLiteral("listening on http://127\\.0\\.0\\.1:(\\d+)\n"));
    QByteArray err;
    for (int i = 0; i < 300; ++i) {
        process.waitForReadyRead(100);
        err += process.readAllStandardError();
        const QRegularExpressionMatch m = listening.match(QString::fromUtf8(err));
        if (m.hasMatch()) return static_cast<quint16>(m.captured(1).toUInt());
        if (process.state() == QProcess::NotRunning) break;
    }
    qWarning("hearth-cli serve said: %s", err.constData());
    return 0;
}

// What the server wrote on stderr since its start, once `pattern` is among it (up to 30 s).
QRegularExpressionMatch awaitStderr(QProcess& process, QByteArray& err, const QRegularExpression& pattern) {
    for (int i = 0; i < 300; ++i) {
        err += process.readAllStandardError();
        const QRegularExpressionMatch m = pattern.match(QString::fromUtf8(err));
        if (m.hasMatch() || process.state() == QProcess::NotRunning) return m;
        process.waitForReadyRead(100);
    }
    return {};
}

bool stopWithSigterm(QProcess& process) {
    process.terminate(); // SIGTERM
    return process.waitForFinished(20000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}
} // namespace

class TestServeCli : public QObject {
    Q_OBJECT
private slots:
    void servesAChatCompletion() {
        QProcess serve;
        const quint16 port = startServe(serve);
        QVERIFY(port > 0);
        const auto models = httpRequest(port, "GET", "/v1/models");
        QVERIFY(models);
        QCOMPARE(models->json()["data"][0]["id"].toString(), storiesModelId());
        const auto reply =
            httpRequest(port, "POST", "/v1/chat/completions", storyRequest({{"stream", true}}));
        QVERIFY(reply);
        QCOMPARE(reply->status, 200);
        QVERIFY(!replyText(*reply).isEmpty());
        QCOMPARE(reply->events().last(), QByteArray("[DONE]"));
        QVERIFY(stopWithSigterm(serve));
    }

    void holdsToItsApiKey() {
        QProcess serve;
        const quint16 port = startServe(serve, {"--api-key", "k-123"});
        QVERIFY(port > 0);
        const auto refused = httpRequest(port, "POST", "/v1/chat/completions", storyRequest());
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);
        const auto allowed = httpRequest(port, "POST", "/v1/chat/completions", storyRequest(),
                                         {{"Authorization", "Bearer k-123"}});
        QVERIFY(allowed);
        QCOMPARE(allowed->status, 200);
        QVERIFY(stopWithSigterm(serve));
    }

    // The front door of the real server: a foreign Host or Origin and a text/plain body are
    // refused; --allow-origin and --allow-host (repeatable) let those named through.
    void holdsToItsFrontDoor() {
        QProcess serve;
        const quint16 port = startServe(serve, {"--allow-origin", "http://localhost:3000", "--allow-origin",
                                                "https://app.example", "--allow-host", "hearth.lan"});
        QVERIFY(port > 0);
        const auto foreignOrigin =
            httpRequest(port, "POST", "/v1/chat/completions", storyRequest(),
                        {{"Origin", "http://evil.example"}, {"Content-Type", "text/plain"}});
        QVERIFY(foreignOrigin);
        QCOMPARE(foreignOrigin->status, 403);
        const auto foreignHost = httpRequest(port, "GET", "/v1/models", {}, {{"Host", "evil.example"}});
        QVERIFY(foreignHost);
        QCOMPARE(foreignHost->status, 403);
        const auto textPlain = httpRequest(port, "POST", "/v1/chat/completions", storyRequest(),
                                           {{"Content-Type", "text/plain"}});
        QVERIFY(textPlain);
        QCOMPARE(textPlain->status, 415);
        for (const QByteArray& origin : QByteArrayList{"http://localhost:3000", "https://app.example"}) {
            const auto allowed = httpRequest(port, "POST", "/v1/chat/completions", storyRequest(),
                                             {{"Origin", origin}, {"Host", "hearth.lan"}});
            QVERIFY(allowed);
            QCOMPARE(allowed->status, 200);
            QCOMPARE(allowed->header("access-control-allow-origin"), origin);
        }
        QVERIFY(stopWithSigterm(serve));
    }

    // --lookup is the server's setting for every request: a greedy completion's text is plain
    // decoding's, and the served line counts verify passes, drafted and accepted tokens.
    void speculatesForEveryRequestWithLookup() {
        const QByteArray body = "{\"model\":\"stories260K\",\"prompt\":\"Once upon a time there was a little "
                                "girl. Once upon a time there was\",\"max_tokens\":60,\"temperature\":0}";
        QString texts[2];
        for (const bool lookup : {false, true}) {
            QProcess serve;
            const quint16 port =
                startServe(serve, lookup ? QStringList{"--lookup", "2", "--draft-max", "6"} : QStringList{});
            QVERIFY(port > 0);
            const auto reply = httpRequest(port, "POST", "/v1/completions", body);
            QVERIFY(reply);
            QCOMPARE(reply->status, 200);
            texts[lookup] = reply->json()["choices"][0]["text"].toString();
            QVERIFY(!texts[lookup].isEmpty());
            // The served line, then (with --lookup) the speculation line, written together.
            QByteArray err;
            static const QRegularExpression served(QStringLiteral("served: [^\n]*\n"));
            static const QRegularExpression counts(
                QStringLiteral("speculation: (\\d+) verify passes, (\\d+) drafted, (\\d+) accepted[^\n]*\n"));
            QVERIFY2(awaitStderr(serve, err, lookup ? counts : served).hasMatch(), err.constData());
            const QRegularExpressionMatch m = counts.match(QString::fromUtf8(err));
            if (!lookup) {
                QVERIFY2(!m.hasMatch(), err.constData());
            } else {
                QVERIFY2(m.hasMatch(), err.constData());
                QVERIFY2(m.captured(1).toInt() > 0, err.constData());
                QVERIFY2(m.captured(2).toInt() > 0, err.constData());
                QVERIFY2(m.captured(3).toInt() > 0, err.constData());
                QVERIFY(m.captured(3).toInt() <= m.captured(2).toInt());
            }
            QVERIFY(stopWithSigterm(serve));
        }
        QCOMPARE(texts[1], texts[0]);
    }

    // --draft: a draft model of the same vocabulary (tiny-qwen2, smaller) drafts for every request.
    void speculatesWithADraftModel() {
        QProcess serve;
        const quint16 port =
            startServe(serve, {"--draft", QString::fromStdString(testdata("models/tiny-qwen2.gguf")),
                               "--draft-max", "4"});
        QVERIFY(port > 0);
        const auto reply = httpRequest(port, "POST", "/v1/chat/completions", storyRequest());
        QVERIFY(reply);
        QCOMPARE(reply->status, 200);
        QByteArray err;
        static const QRegularExpression counts(
            QStringLiteral("speculation: (\\d+) verify passes, (\\d+) drafted, (\\d+) accepted[^\n]*\n"));
        const QRegularExpressionMatch m = awaitStderr(serve, err, counts);
        QVERIFY2(m.hasMatch(), err.constData());
        QVERIFY2(m.captured(2).toInt() > 0, err.constData());
        QVERIFY(stopWithSigterm(serve));
    }

    // --mmproj: the model reads the images of requests, and the served lines count them.
    void readsImagesWithMmproj() {
        QProcess serve;
        const quint16 port = startServe(serve, {"--mmproj", gemmaProjector()}, gemma());
        QVERIFY(port > 0);
        QFile image(QString::fromStdString(testdata("vision/images/grad-56x56.png")));
        QVERIFY(image.open(QIODevice::ReadOnly));
        const QJsonObject imagePart{
            {"type", "image_url"},
            {"image_url", QJsonObject{{"url", "data:image/png;base64," +
                                                  QString::fromLatin1(image.readAll().toBase64())}}}};
        const QJsonObject body{
            {"model", "tiny-gemma3"},
            {"messages", QJsonArray{QJsonObject{
                             {"role", "user"},
                             {"content", QJsonArray{QJsonObject{{"type", "text"}, {"text", "Describe it."}},
                                                    imagePart}}}}},
            {"max_tokens", 4}};
        const auto reply = httpRequest(port, "POST", "/v1/chat/completions",
                                       QJsonDocument(body).toJson(QJsonDocument::Compact));
        QVERIFY(reply);
        QVERIFY2(reply->status == 200, reply->body.constData());
        QByteArray err;
        static const QRegularExpression images(QStringLiteral("images: 1 \\(1 encoded in [^\n]*\n"));
        QVERIFY2(awaitStderr(serve, err, images).hasMatch(), err.constData());
        QVERIFY(stopWithSigterm(serve));
    }

    void refusesBadArguments_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("no model") << QStringList{"serve", "--port", "0"};
        QTest::newRow("bad port") << QStringList{"serve", "-m", stories(), "--port", "70000"};
        QTest::newRow("bad host") << QStringList{"serve", "-m", stories(), "--host", "localhost.example"};
        QTest::newRow("bad origin") << QStringList{"serve", "-m", stories(), "--allow-origin",
                                                   "localhost:3000"};
        QTest::newRow("bad host name")
            << QStringList{"serve", "-m", stories(), "--allow-host", "http://a.lan"};
        QTest::newRow("missing file") << QStringList{"serve", "-m", "/nonexistent.gguf", "--port", "0"};
        QTest::newRow("bad lookup") << QStringList{"serve", "-m", stories(), "--lookup", "9"};
        QTest::newRow("draft of another vocabulary")
            << QStringList{"serve", "-m", stories(), "--draft",
                           QString::fromStdString(testdata("models/llama-2-tiny-random.gguf"))};
        QTest::newRow("damaged draft") << QStringList{"serve", "-m", stories(), "--draft", cli()};
        QTest::newRow("missing projector")
            << QStringList{"serve", "-m", gemma(), "--mmproj", "/nonexistent-mmproj.gguf"};
        QTest::newRow("a model as projector") << QStringList{"serve", "-m", gemma(), "--mmproj", stories()};
        QTest::newRow("projector of another model")
            << QStringList{"serve", "-m", stories(), "--mmproj", gemmaProjector()};
        QTest::newRow("lookup and draft")
            << QStringList{"serve", "-m", stories(), "--lookup", "2", "--draft", stories()};
    }
    void refusesBadArguments() {
        QFETCH(QStringList, arguments);
        QProcess serve;
        serve.start(cli(), arguments);
        QVERIFY(serve.waitForFinished(20000));
        QCOMPARE(serve.exitCode(), 2);
        QVERIFY(!serve.readAllStandardError().isEmpty());
    }

    void usageListsServe() {
        QProcess help;
        help.start(cli(), {"--help"});
        QVERIFY(help.waitForFinished(10000));
        QVERIFY(help.readAllStandardError().contains("serve -m MODEL"));
    }
};

QTEST_GUILESS_MAIN(TestServeCli)
#include "test_serve_cli.moc"
