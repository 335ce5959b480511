// The API server inside the app: the settings turn it on and off (and say why it could
// not start), it answers 503 until a model is loaded, then serves requests on the same
// inference worker as the window's chats, which interleave with them without either
// failing (a forced function call streamed from the worker included); the metrics count the
// requests it served. It shares hearth-cli serve's front door:
// foreign origins and host names are refused unless the settings allow them. A vision model (its
// image projector beside it) reads the images of API requests on the same worker; a model without
// one refuses them.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/metrics/metrics_controller.h"
#include "app/server/api_server.h"
#include "app/settings/app_settings.h"
#include "tests/app/backend_fixture.h"
#include "tests/server/api_images_fixture.h"
#include <QDir>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace hearth::app;
using namespace hearth::test;

class TestAppApiServer : public QObject {
    Q_OBJECT
    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }

    static quint16 listeningPort(const AppSettings& s) {
        return static_cast<quint16>(QUrl(s.serverUrl()).port());
    }
    // Turns the server on at any free port; the port it listens on.
    static quint16 serveOnAnyPort(AppSettings& s) {
        s.setServerPort(0);
        s.setServerEnabled(true);
        return listeningPort(s);
    }

private slots:
    void init() { dir_ = QString::fromStdString(make_temp_dir("hearth-app-api")); }

    void offByDefaultAndToggledBySettings() {
        HearthBackend b(paths());
        AppSettings& s = *b.settings();
        QVERIFY(!s.serverEnabled());
        QVERIFY(!s.serverListening());
        QVERIFY(!b.apiServer()->isListening());

        s.setServerPort(0); // any free port, for the test
        s.setServerEnabled(true);
        QVERIFY(s.serverListening());
        QVERIFY(s.serverError().isEmpty());
        const quint16 port = listeningPort(s);
        QVERIFY(port > 0);
        QCOMPARE(s.serverUrl(), QStringLiteral("http://127.0.0.1:%1").arg(port));
        const auto models = httpRequest(port, "GET", "/v1/models");
        QVERIFY(models);
        QCOMPARE(models->status, 200);

        s.setServerEnabled(false);
        QVERIFY(!s.serverListening());
        QVERIFY(s.serverUrl().isEmpty());
        QVERIFY(!httpRequest(port, "GET", "/v1/models")); // nothing listens there now

        // The choice is saved for the next start.
        s.setServerEnabled(true);
        s.flush();
        HearthBackend again(paths());
        QVERIFY(again.settings()->serverEnabled());
        QVERIFY(again.settings()->serverListening());
    }

    void aPortInUseIsSaidPlainly() {
        QTcpServer other;
        QVERIFY(other.listen(QHostAddress::LocalHost, 0));
        HearthBackend b(paths());
        AppSettings& s = *b.settings();
        s.setServerPort(other.serverPort());
        s.setServerEnabled(true);
        QVERIFY(!s.serverListening());
        QVERIFY2(s.serverError().contains(QStringLiteral("already in use")), qPrintable(s.serverError()));
        other.close();
        s.setServerPort(0);
        QVERIFY(s.serverListening());
        QVERIFY(s.serverError().isEmpty());
    }

    void theApiKeySettingIsEnforced() {
        HearthBackend b(paths());
        AppSettings& s = *b.settings();
        s.setServerPort(0);
        s.setServerApiKey(QStringLiteral("app-key"));
        s.setServerEnabled(true);
        const quint16 port = listeningPort(s);
        const auto refused = httpRequest(port, "GET", "/v1/models");
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);
        const auto allowed =
            httpRequest(port, "GET", "/v1/models", {}, {{"Authorization", "Bearer app-key"}});
        QVERIFY(allowed);
        QCOMPARE(allowed->status, 200);
    }

    void theFrontDoorFollowsTheSettings() {
        HearthBackend b(paths());
        AppSettings& s = *b.settings();
        const quint16 port = serveOnAnyPort(s);
        const auto page = [port](const QByteArray& origin) {
            return httpRequest(port, "GET", "/v1/models", {}, {{"Origin", origin}});
        };
        const auto named = [port](const QByteArray& host) {
            return httpRequest(port, "GET", "/v1/models", {}, {{"Host", host}});
        };
        QCOMPARE(page("http://localhost:3000")->status, 403);
        QCOMPARE(named("hearth.lan")->status, 403);
        const auto textPlain = httpRequest(port, "POST", "/v1/chat/completions", storyRequest(),
                                           {{"Content-Type", "text/plain"}});
        QVERIFY(textPlain);
        QCOMPARE(textPlain->status, 415);

        s.setServerAllowedOrigins(QStringLiteral("http://localhost:3000, https://app.example"));
        s.setServerAllowedHosts(QStringLiteral("hearth.lan"));
        QVERIFY(s.serverError().isEmpty());
        const auto allowed = page("http://localhost:3000");
        QCOMPARE(allowed->status, 200);
        QCOMPARE(allowed->header("access-control-allow-origin"), QByteArray("http://localhost:3000"));
        QCOMPARE(page("https://app.example")->status, 200);
        QCOMPARE(page("http://evil.example")->status, 403);
        QCOMPARE(named("hearth.lan")->status, 200);

        // An entry that is no origin is left out, and the settings page says so.
        s.setServerAllowedOrigins(QStringLiteral("localhost:3000 https://app.example"));
        QVERIFY(s.serverListening());
        QVERIFY2(s.serverError().contains(QStringLiteral("localhost:3000")), qPrintable(s.serverError()));
        QCOMPARE(page("http://localhost:3000")->status, 403);
        QCOMPARE(page("https://app.example")->status, 200);

        s.flush();
        HearthBackend again(paths());
        QCOMPARE(again.settings()->serverAllowedOrigins(),
                 QStringLiteral("localhost:3000 https://app.example"));
        QCOMPARE(again.settings()->serverAllowedHosts(), QStringLiteral("hearth.lan"));
    }

    // The loaded model's preset serves the API too: its chat template and its temperature apply
    // to requests that leave them out. The preset's template ignores the messages, so at its
    // temperature 0 two requests about different things get the same reply; a request that sets
    // its own temperature keeps it.
    void theLoadedModelsPresetServesTheApi() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        const quint16 port = serveOnAnyPort(*b.settings());
        QVERIFY(loadModel(b));
        const auto ask = [port](const QString& text, const QJsonObject& extra = {}) {
            QJsonObject options = extra;
            options.insert("max_tokens", 12);
            const auto reply = httpRequest(port, "POST", "/v1/chat/completions",
                                           chatBody(messages({{"user", text}}), options));
            return reply && reply->status == 200 ? replyText(*reply) : QStringLiteral("(failed)");
        };
        const QString model = b.models()->modelPath();
        const QString why = b.presets()->saveModelPreset(
            model, {{"temperature", 0.0}, {"chatTemplate", QStringLiteral("Once upon a time, there was a")}});
        QVERIFY2(why.isEmpty(), qPrintable(why));
        const QString frog = ask(QStringLiteral("A frog"));
        QVERIFY(frog != QStringLiteral("(failed)") && !frog.isEmpty());
        QCOMPARE(ask(QStringLiteral("Tell me about the sea, please")), frog);
        // Sampled at temperature 2, 12 tokens of the same prompt do not come out greedy every time.
        bool sampled = false;
        for (int i = 0; i < 4 && !sampled; ++i)
            sampled = ask(QStringLiteral("A frog"), {{"temperature", 2.0}}) != frog;
        QVERIFY(sampled);

        b.presets()->resetModelPreset(model);
        QVERIFY(ask(QStringLiteral("A frog"), {{"temperature", 0.0}}) != frog); // the model's own template
    }

    // The worker loads the projector found beside the model, and an API request's images reach it:
    // the greedy reply follows the image. With stories260K (no projector) they are refused.
    void apiImagesReachTheAppsWorker() {
        const QString folder = dir_ + "/vision-model";
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(gemmaModelPath(), folder + "/tiny-gemma3.gguf"));
        QVERIFY(QFile::copy(gemmaProjectorPath(), folder + "/mmproj-tiny-gemma3-f32.gguf"));
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        const quint16 port = serveOnAnyPort(*b.settings());
        QSignalSpy ready(b.models(), &ModelController::modelReady);
        QVERIFY(b.models()->loadDroppedFile(QUrl::fromLocalFile(folder + "/tiny-gemma3.gguf")));
        QVERIFY(ready.wait(30000));
        QVERIFY(b.models()->imageInput());
        const auto ask = [port](const QByteArray& image) {
            const auto reply =
                httpRequest(port, "POST", "/v1/chat/completions",
                            gemmaBody(askAbout(QStringLiteral("Describe it."), {dataUrl(image)})));
            return reply && reply->status == 200 ? replyText(*reply) : QStringLiteral("(failed)");
        };
        const QString grad = ask(testImage("grad-56x56.png"));
        QVERIFY(grad != QStringLiteral("(failed)"));
        QCOMPARE(ask(testImage("grad-56x56.png")), grad);
        const QString rings = ask(testImage("rings-30x42.png"));
        QVERIFY(rings != QStringLiteral("(failed)"));
        QVERIFY(rings != grad);

        QVERIFY(loadModel(b)); // stories260K
        QVERIFY(!b.models()->imageInput());
        const auto refused = httpRequest(
            port, "POST", "/v1/chat/completions",
            chatBody(askAbout(QStringLiteral("Once upon a time"), {dataUrl(testImage("grad-56x56.png"))})));
        QVERIFY(refused);
        QCOMPARE(refused->status, 400);
        QVERIFY2(refused->json()["error"]["message"].toString().startsWith(
                     QLatin1String("this model reads no images")),
                 refused->body.constData());
    }

    void windowChatsAndApiRequestsInterleave() {
        interleave();
        // The window's conversation was saved at exit; the API's sessions were not.
        const QStringList saved = QDir(paths().kvStateDir()).entryList(QDir::Files);
        QVERIFY2(!saved.isEmpty(), "the conversation's state was not saved");
        for (const QString& name : saved)
            QVERIFY2(!name.startsWith(QLatin1String("api-")), qPrintable(name));
    }

private:
    void interleave() {
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        const quint16 port = serveOnAnyPort(*b.settings());

        const auto early = httpRequest(port, "POST", "/v1/chat/completions", storyRequest());
        QVERIFY(early);
        QCOMPARE(early->status, 503); // no model yet

        QVERIFY(loadModel(b));
        QSignalSpy served(b.metrics(), &MetricsController::serverRequestsChanged);
        // A window chat, then two API clients while it generates, then another chat turn.
        QVERIFY(b.chat()->send(QStringLiteral("Once upon a time")));
        HttpTestClient streaming(port);
        HttpTestClient whole(port);
        streaming.send("POST", "/v1/chat/completions", storyRequest({{"stream", true}, {"max_tokens", 40}}));
        whole.send(
            "POST", "/v1/chat/completions",
            chatBody(messages({{"user", QStringLiteral("A story about a frog")}}), {{"max_tokens", 40}}));
        const auto a = streaming.read();
        const auto c = whole.read();
        QVERIFY(finishReply(b.chat()));
        QVERIFY(a && c);
        QCOMPARE(a->status, 200);
        QCOMPARE(c->status, 200);
        QCOMPARE(a->events().last(), QByteArray("[DONE]"));
        QVERIFY(!replyText(*a).isEmpty());
        QVERIFY(!replyText(*c).isEmpty());
        QVERIFY(waitForMessages(b.chat(), 2));
        QVERIFY2(b.chat()->errorMessage().isEmpty(), qPrintable(b.chat()->errorMessage()));

        // The model's id is the file's name; API sessions never touch the conversation's.
        const auto models = httpRequest(port, "GET", "/v1/models");
        QCOMPARE(models->json()["data"][0]["id"].toString(), storiesModelId());
        QVERIFY(b.chat()->send(QStringLiteral("And then?")));
        const auto d = httpRequest(port, "POST", "/v1/completions",
                                   R"({"model":"stories260K","prompt":"The cat","max_tokens":8})");
        QVERIFY(finishReply(b.chat()));
        QVERIFY(d);
        QCOMPARE(d->status, 200);
        QVERIFY(waitForMessages(b.chat(), 4));

        QTRY_COMPARE(b.metrics()->serverRequests(), 3);
        QVERIFY(b.metrics()->serverTokensGenerated() > 0);
        QVERIFY(b.metrics()->serverTokensPerSecond() > 0);
        QVERIFY(served.size() >= 3);

        // A forced function call through the app's worker, streamed: one call, in OpenAI's deltas.
        const QJsonObject getTime{
            {"type", "function"},
            {"function",
             QJsonObject{{"name", "get_time"},
                         {"parameters", QJsonDocument::fromJson(R"({"type": "object", "properties":
                                         {"zone": {"enum": ["UTC", "CET"]}}, "required": ["zone"]})")
                                            .object()}}}};
        const auto call = httpRequest(port, "POST", "/v1/chat/completions",
                                      storyRequest({{"tools", QJsonArray{getTime}},
                                                    {"tool_choice", "required"},
                                                    {"stream", true},
                                                    {"max_tokens", 120}}));
        QVERIFY(call);
        QCOMPARE(call->status, 200);
        QString name;
        QString arguments;
        QString finish;
        int openings = 0;
        for (const QByteArray& event : call->events()) {
            if (event == "[DONE]") continue;
            const QJsonObject choice =
                QJsonDocument::fromJson(event).object()["choices"].toArray().first().toObject();
            if (!choice["finish_reason"].isNull()) finish = choice["finish_reason"].toString();
            for (const QJsonValue& delta : choice["delta"]["tool_calls"].toArray()) {
                QCOMPARE(delta["index"].toInt(), 0);
                if (delta.toObject().contains("id")) {
                    ++openings;
                    name = delta["function"]["name"].toString();
                }
                arguments += delta["function"]["arguments"].toString();
            }
        }
        QCOMPARE(openings, 1);
        QCOMPARE(name, QStringLiteral("get_time"));
        QCOMPARE(finish, QStringLiteral("tool_calls"));
        const QJsonObject parsed = QJsonDocument::fromJson(arguments.toUtf8()).object();
        QVERIFY2(parsed["zone"] == QJsonValue("UTC") || parsed["zone"] == QJsonValue("CET"),
                 qPrintable(arguments));
        QTRY_COMPARE(b.metrics()->serverRequests(), 4);
    }
};

QTEST_MAIN(TestAppApiServer)
#include "test_app_api_server.moc"
