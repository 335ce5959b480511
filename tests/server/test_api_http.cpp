// The API server's HTTP side over real sockets on loopback: routes, methods and the
// OpenAI error shapes, request checking (bad JSON, bad parameters, unknown model),
// hostile input (huge bodies and headers, malformed lines, stalls), keep-alive and
// pipelining, the front door (foreign Host and Origin refused, allowed origins answered with CORS
// headers, preflights, JSON bodies only), the API key, 503 without a model, and a stream that
// fails after it started. The
// engine behind it is real (stories260K on its own thread), except in the no-model and failing
// cases.
#include "app/server/http_request_parser.h"
#include "tests/server/api_fixture.h"
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <vector>

using namespace hearth::server;
using namespace hearth::test;

namespace {
// A backend with no model loaded: what the app's server answers before a model is chosen.
class NoModelBackend final : public CompletionBackend {
public:
    QString modelId() const override { return {}; }
    void start(const CompletionRequest& request) override {
        CompletionResult result;
        result.errorStatus = 503;
        emit finished(request.id, result);
    }
    void forgetSession(const QString&) override {}
};

// A backend whose completion fails after its first piece: the reply's status and first chunks
// are on the wire when the failure comes (an engine error mid-reply, a model unloaded).
class FailsAfterOnePieceBackend final : public CompletionBackend {
public:
    static constexpr int kStatus = 500;
    static constexpr const char* kError = "the model stopped computing numbers";
    QString modelId() const override { return storiesModelId(); }
    void start(const CompletionRequest& request) override {
        // Later, from the event loop, as a backend on another thread answers.
        QTimer::singleShot(0, this, [this, id = request.id] {
            emit pieceReady(id, QStringLiteral("Once"));
            CompletionResult result;
            result.errorStatus = kStatus;
            result.error = QString::fromLatin1(kError);
            emit finished(id, result);
        });
    }
    void forgetSession(const QString&) override {}
};

// Every error has OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
bool isOpenAiError(const HttpReply& reply, int status) {
    const QJsonObject error = reply.json()["error"].toObject();
    return reply.status == status && reply.header("content-type") == "application/json" &&
           error["message"].isString() && !error["message"].toString().isEmpty() &&
           error["type"].isString() && error.contains("param") && error.contains("code");
}
} // namespace

class TestApiHttp : public QObject {
    Q_OBJECT
    std::unique_ptr<EngineThreadBackend> backend_;
    std::unique_ptr<ApiServer> server_;
    quint16 port() const { return server_->port(); }

private slots:
    void initTestCase() {
        backend_ = makeStoriesBackend();
        server_ = std::make_unique<ApiServer>(backend_.get());
        QVERIFY2(server_->listen(QHostAddress::LocalHost, 0), qPrintable(server_->errorString()));
        QVERIFY(server_->port() > 0);
        QCOMPARE(server_->url(), QStringLiteral("http://127.0.0.1:%1").arg(server_->port()));
    }
    void cleanupTestCase() {
        server_.reset();
        backend_.reset();
    }

    void parserAcceptsAWholeRequestInPieces() {
        HttpRequestParser parser;
        const QByteArray request = "POST /v1/x?y=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello";
        for (qsizetype i = 0; i + 1 < request.size(); ++i)
            QCOMPARE(parser.feed(request.mid(i, 1)), HttpRequestParser::State::NeedMore);
        QCOMPARE(parser.feed(request.right(1)), HttpRequestParser::State::Complete);
        const HttpRequest r = parser.take();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.path, QByteArray("/v1/x"));
        QCOMPARE(r.header("host"), QByteArray("a"));
        QCOMPARE(r.body, QByteArray("hello"));
        QVERIFY(r.keepAlive());
    }

    void parserRefusesMalformedInput_data() {
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        QTest::newRow("no version") << QByteArray("GET /v1/models\r\n\r\n") << 400;
        QTest::newRow("HTTP/2") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505;
        QTest::newRow("absolute target") << QByteArray("GET http://x/ HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: a\r\n\r\n") << 400;
        QTest::newRow("header without colon") << QByteArray("GET / HTTP/1.1\r\nHost a\r\n\r\n") << 400;
        QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : a\r\n\r\n") << 400;
        QTest::newRow("folded header") << QByteArray("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n") << 400;
        QTest::newRow("negative length")
            << QByteArray("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n") << 400;
        QTest::newRow("two lengths")
            << QByteArray("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") << 400;
        QTest::newRow("chunked body")
            << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") << 501;
        QTest::newRow("huge length") << QByteArray("POST / HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n")
                                     << 413;
        QTest::newRow("control character") << QByteArray("GET / HTTP/1.1\r\nX: a\x01"
                                                         "b\r\n\r\n")
                                           << 400;
    }
    void parserRefusesMalformedInput() {
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        HttpRequestParser parser;
        QCOMPARE(parser.feed(request), HttpRequestParser::State::Error);
        QCOMPARE(parser.errorStatus(), status);
    }

    void parserLimitsHeaders() {
        HttpRequestParser parser(HttpLimits{1024, 4, 100});
        QCOMPARE(parser.feed("GET / HTTP/1.1\r\nX-Long: " + QByteArray(2000, 'a')),
                 HttpRequestParser::State::Error);
        QCOMPARE(parser.errorStatus(), 431);
        HttpRequestParser counted(HttpLimits{1024, 4, 100});
        QCOMPARE(counted.feed("GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\n\r\n"),
                 HttpRequestParser::State::Error);
        QCOMPARE(counted.errorStatus(), 431);
    }

    void listsTheModel() {
        const auto reply = httpRequest(port(), "GET", "/v1/models");
        QVERIFY(reply);
        QCOMPARE(reply->status, 200);
        const QJsonObject list = reply->json();
        QCOMPARE(list["object"].toString(), QStringLiteral("list"));
        QCOMPARE(list["data"].toArray().size(), 1);
        QCOMPARE(list["data"][0]["id"].toString(), storiesModelId());
        QCOMPARE(list["data"][0]["object"].toString(), QStringLiteral("model"));

        const auto one = httpRequest(port(), "GET", "/v1/models/stories260K");
        QVERIFY(one);
        QCOMPARE(one->status, 200);
        QCOMPARE(one->json()["id"].toString(), storiesModelId());
        const auto missing = httpRequest(port(), "GET", "/v1/models/gpt-4");
        QVERIFY(missing);
        QVERIFY(isOpenAiError(*missing, 404));
        QCOMPARE(missing->json()["error"]["code"].toString(), QStringLiteral("model_not_found"));
    }

    void unknownRoutesAndMethods() {
        const auto unknown = httpRequest(port(), "GET", "/v1/embeddings");
        QVERIFY(unknown);
        QVERIFY(isOpenAiError(*unknown, 404));
        const auto wrongMethod = httpRequest(port(), "GET", "/v1/chat/completions");
        QVERIFY(wrongMethod);
        QVERIFY(isOpenAiError(*wrongMethod, 405));
        QCOMPARE(wrongMethod->header("allow"), QByteArray("POST"));
        const auto deleteModels = httpRequest(port(), "DELETE", "/v1/models");
        QVERIFY(deleteModels);
        QVERIFY(isOpenAiError(*deleteModels, 405));
        QCOMPARE(deleteModels->header("allow"), QByteArray("GET"));
    }

    void badRequestsNameTheirParameter_data() {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("param");
        const QByteArray chat = "/v1/chat/completions";
        const QString m = QStringLiteral("[{\"role\":\"user\",\"content\":\"hi\"}]");
        const auto with = [&](const QString& fields) {
            return QStringLiteral("{\"model\":\"stories260K\",\"messages\":%1%2}").arg(m, fields).toUtf8();
        };
        QTest::newRow("not JSON") << chat << QByteArray("{\"model\": ") << 400 << QString();
        QTest::newRow("not an object") << chat << QByteArray("[1,2]") << 400 << QString();
        QTest::newRow("empty body") << chat << QByteArray() << 400 << QString();
        QTest::newRow("no model") << chat << QByteArray("{\"messages\":[]}") << 400 << "model";
        QTest::newRow("model not a string") << chat << QByteArray("{\"model\":5}") << 400 << "model";
        QTest::newRow("unknown model")
            << chat << QByteArray("{\"model\":\"gpt-4\",\"messages\":" + m.toUtf8() + "}") << 404 << "model";
        QTest::newRow("no messages") << chat << QByteArray("{\"model\":\"stories260K\"}") << 400
                                     << "messages";
        QTest::newRow("empty messages")
            << chat << QByteArray("{\"model\":\"stories260K\",\"messages\":[]}") << 400 << "messages";
        QTest::newRow("bad role")
            << chat
            << QByteArray("{\"model\":\"stories260K\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}")
            << 400 << "messages[0].role";
        QTest::newRow("bad content")
            << chat
            << QByteArray("{\"model\":\"stories260K\",\"messages\":[{\"role\":\"user\",\"content\":5}]}")
            << 400 << "messages[0].content";
        QTest::newRow("temperature too high") << chat << with(",\"temperature\":5") << 400 << "temperature";
        QTest::newRow("temperature a string")
            << chat << with(",\"temperature\":\"hot\"") << 400 << "temperature";
        QTest::newRow("top_p") << chat << with(",\"top_p\":1.5") << 400 << "top_p";
        QTest::newRow("max_tokens zero") << chat << with(",\"max_tokens\":0") << 400 << "max_tokens";
        QTest::newRow("max_tokens fraction") << chat << with(",\"max_tokens\":2.5") << 400 << "max_tokens";
        QTest::newRow("five stops") << chat << with(",\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]") << 400
                                    << "stop";
        QTest::newRow("stop a number") << chat << with(",\"stop\":7") << 400 << "stop";
        QTest::newRow("seed a string") << chat << with(",\"seed\":\"x\"") << 400 << "seed";
        QTest::newRow("stream a string") << chat << with(",\"stream\":\"yes\"") << 400 << "stream";
        QTest::newRow("n of 2") << chat << with(",\"n\":2") << 400 << "n";
        QTest::newRow("stream_options without stream")
            << chat << with(",\"stream_options\":{\"include_usage\":true}") << 400 << "stream_options";
        QTest::newRow("no prompt") << QByteArray("/v1/completions")
                                   << QByteArray("{\"model\":\"stories260K\"}") << 400 << "prompt";
        QTest::newRow("two prompts") << QByteArray("/v1/completions")
                                     << QByteArray("{\"model\":\"stories260K\",\"prompt\":[\"a\",\"b\"]}")
                                     << 400 << "prompt";
        QTest::newRow("deep nesting") << chat << QByteArray(5000, '[') << 400 << QString();
    }
    void badRequestsNameTheirParameter() {
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, param);
        const auto reply = httpRequest(port(), "POST", path, body);
        QVERIFY(reply);
        QVERIFY2(isOpenAiError(*reply, status), reply->body.constData());
        const QJsonValue actual = reply->json()["error"]["param"];
        if (param.isEmpty())
            QVERIFY(actual.isNull());
        else
            QCOMPARE(actual.toString(), param);
    }

    // A body over the limit is refused from its Content-Length, before it is sent.
    void hugeBodyIs413() {
        HttpTestClient client(port());
        client.sendRaw("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 104857600\r\n\r\n");
        const auto reply = client.read();
        QVERIFY(reply);
        QVERIFY(isOpenAiError(*reply, 413));
        QVERIFY(client.waitForClose());
    }

    void hugeHeadersAre431() {
        HttpTestClient client(port());
        client.sendRaw("GET /v1/models HTTP/1.1\r\nX-Padding: " + QByteArray(64 * 1024, 'x') + "\r\n\r\n");
        const auto reply = client.read();
        QVERIFY(reply);
        QVERIFY(isOpenAiError(*reply, 431));
        QVERIFY(client.waitForClose());
    }

    void garbageIs400AndCloses() {
        HttpTestClient client(port());
        static constexpr char hello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"; // a TLS hello
        client.sendRaw(QByteArray(hello, sizeof hello - 1));
        const auto reply = client.read();
        QVERIFY(reply);
        QCOMPARE(reply->status, 400);
        QVERIFY(client.waitForClose());
    }

    // A request that stops halfway is answered 408 and closed; so is an idle connection.
    void stalledRequestsTimeOut() {
        ApiServer quick(backend_.get());
        quick.setTimeouts(HttpTimeouts{300, 300});
        QVERIFY(quick.listen(QHostAddress::LocalHost, 0));
        HttpTestClient halfway(quick.port());
        halfway.sendRaw("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"model\"");
        const auto reply = halfway.read(10000);
        QVERIFY(reply);
        QVERIFY(isOpenAiError(*reply, 408));
        QVERIFY(halfway.waitForClose());
        HttpTestClient idle(quick.port());
        QVERIFY(idle.connected());
        QVERIFY(idle.waitForClose());
    }

    void keepAliveAndPipelining() {
        HttpTestClient client(port());
        client.send("GET", "/v1/models");
        const auto first = client.read();
        QVERIFY(first);
        QCOMPARE(first->status, 200);
        QCOMPARE(first->header("connection"), QByteArray("keep-alive"));
        // Two requests in one write: answered in order, on the same connection.
        client.sendRaw("GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\nGET /v1/nothing HTTP/1.1\r\nHost: "
                       "localhost\r\n\r\n");
        const auto second = client.read();
        const auto third = client.read();
        QVERIFY(second && third);
        QCOMPARE(second->status, 200);
        QCOMPARE(third->status, 404);
        // Expect: 100-continue (curl's habit for larger bodies) gets its interim answer.
        client.sendRaw("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                       "application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
        QVERIFY(client.waitForBytes(25));
        QVERIFY(client.received().startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
        client.sendRaw("{}");
        const auto fourth = client.read();
        QVERIFY(fourth);
        QVERIFY(isOpenAiError(*fourth, 400));
        QVERIFY(client.connected());
    }

    // Beyond 64 connections at once, new ones are closed; the others are still served.
    void aFloodOfConnectionsIsTurnedAway() {
        std::vector<std::unique_ptr<HttpTestClient>> clients;
        for (int i = 0; i < 70; ++i)
            clients.push_back(std::make_unique<HttpTestClient>(port()));
        QVERIFY(clients.back()->waitForClose());
        clients.front()->send("GET", "/v1/models");
        const auto reply = clients.front()->read();
        QVERIFY(reply);
        QCOMPARE(reply->status, 200);
        clients.clear();
        QTRY_VERIFY(httpRequest(port(), "GET", "/v1/models").has_value());
    }

    // DNS rebinding: a page whose own name now points at 127.0.0.1 sends its name as the Host.
    // Only loopback names, and names the user allowed, are served; nothing runs for the others.
    void aForeignHostIsRefusedBeforeAnyWork() {
        const int served = server_->completionsServed();
        const QByteArray port = QByteArray::number(this->port());
        const auto foreign = httpRequest(this->port(), "POST", "/v1/chat/completions", storyRequest(),
                                         {{"Host", "evil.example:" + port}});
        QVERIFY(foreign);
        QVERIFY2(isOpenAiError(*foreign, 403), foreign->body.constData());
        QCOMPARE(foreign->json()["error"]["code"].toString(), QStringLiteral("host_not_allowed"));
        QVERIFY(foreign->header("access-control-allow-origin").isEmpty());
        QCOMPARE(server_->completionsServed(), served);
        QCOMPARE(server_->completionsInFlight(), 0);

        for (const QByteArray& host :
             QByteArrayList{"localhost:" + port, QByteArray("LOCALHOST"), "127.0.0.1:" + port,
                            "[::1]:" + port, "localhost.:" + port}) {
            const auto loopback = httpRequest(this->port(), "GET", "/v1/models", {}, {{"Host", host}});
            QVERIFY(loopback);
            QVERIFY2(loopback->status == 200, host.constData());
        }
        for (const QByteArray& host :
             QByteArrayList{QByteArray("evil.example"), QByteArray("localhost.evil.example"),
                            QByteArray("127.0.0.1.nip.io"), QByteArray("[::1"), QByteArray("a b")}) {
            const auto refused = httpRequest(this->port(), "GET", "/v1/models", {}, {{"Host", host}});
            QVERIFY(refused);
            QVERIFY2(refused->status == 403 || refused->status == 400, host.constData());
        }

        // HTTP/1.1 requires a Host; two are ambiguous.
        HttpTestClient noHost(this->port());
        noHost.sendRaw("GET /v1/models HTTP/1.1\r\n\r\n");
        const auto missing = noHost.read();
        QVERIFY(missing);
        QVERIFY(isOpenAiError(*missing, 400));
        HttpTestClient twoHosts(this->port());
        twoHosts.sendRaw("GET /v1/models HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n");
        const auto two = twoHosts.read();
        QVERIFY(two);
        QVERIFY(isOpenAiError(*two, 400));

        // A name the user allowed (hearth-cli serve --allow-host, or the app's setting).
        server_->setAllowedHosts({QStringLiteral("hearth.lan")});
        const auto allowed =
            httpRequest(this->port(), "GET", "/v1/models", {}, {{"Host", "Hearth.LAN:" + port}});
        QVERIFY(allowed);
        QCOMPARE(allowed->status, 200);
        const auto other = httpRequest(this->port(), "GET", "/v1/models", {}, {{"Host", "other.lan"}});
        QVERIFY(other);
        QVERIFY(isOpenAiError(*other, 403));
        server_->setAllowedHosts({});
        const auto again = httpRequest(this->port(), "GET", "/v1/models", {}, {{"Host", "hearth.lan"}});
        QVERIFY(again);
        QVERIFY(isOpenAiError(*again, 403));
    }

    // Any web page may send a "simple" request (text/plain, no preflight) to loopback: a foreign
    // Origin is refused, whatever its method or content type, and never gets CORS headers.
    void aForeignOriginIsRefusedBeforeAnyWork() {
        const int served = server_->completionsServed();
        const auto simple = httpRequest(port(), "POST", "/v1/chat/completions", storyRequest(),
                                        {{"Origin", "http://evil.example"}, {"Content-Type", "text/plain"}});
        QVERIFY(simple);
        QVERIFY2(isOpenAiError(*simple, 403), simple->body.constData());
        QCOMPARE(simple->json()["error"]["code"].toString(), QStringLiteral("origin_not_allowed"));
        QVERIFY(simple->header("access-control-allow-origin").isEmpty());
        const auto json = httpRequest(port(), "POST", "/v1/chat/completions", storyRequest(),
                                      {{"Origin", "http://evil.example"}});
        QVERIFY(json);
        QVERIFY(isOpenAiError(*json, 403));
        const auto read = httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "https://evil.example"}});
        QVERIFY(read);
        QVERIFY(isOpenAiError(*read, 403));
        QVERIFY(read->header("access-control-allow-origin").isEmpty());
        const auto sandboxed = httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "null"}});
        QVERIFY(sandboxed);
        QVERIFY(isOpenAiError(*sandboxed, 403));
        // Another port of this computer is another origin, too.
        const auto otherPort =
            httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "http://localhost:3000"}});
        QVERIFY(otherPort);
        QVERIFY(isOpenAiError(*otherPort, 403));
        const auto preflight =
            httpRequest(port(), "OPTIONS", "/v1/chat/completions", {},
                        {{"Origin", "http://evil.example"}, {"Access-Control-Request-Method", "POST"}});
        QVERIFY(preflight);
        QCOMPARE(preflight->status, 403);
        QVERIFY(preflight->header("access-control-allow-origin").isEmpty());
        QVERIFY(preflight->header("access-control-allow-methods").isEmpty());
        QCOMPARE(server_->completionsServed(), served);
        QCOMPARE(server_->completionsInFlight(), 0);

        // The server's own origin (a page it served, under a loopback name) is not foreign.
        const QByteArray own = "http://127.0.0.1:" + QByteArray::number(port());
        const auto same = httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", own}});
        QVERIFY(same);
        QCOMPARE(same->status, 200);
    }

    // Bodies are JSON: what a form or a page's simple request sends is refused with 415.
    void aBodyThatIsNotJsonIs415() {
        const int served = server_->completionsServed();
        for (const QByteArray& type :
             QByteArrayList{QByteArray("text/plain"), QByteArray("application/x-www-form-urlencoded"),
                            QByteArray("multipart/form-data; boundary=x"), QByteArray()}) {
            HttpTestClient client(port());
            const QByteArray body = storyRequest();
            client.sendRaw("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                           (type.isEmpty() ? QByteArray() : "Content-Type: " + type + "\r\n") +
                           "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
            const auto reply = client.read();
            QVERIFY(reply);
            QVERIFY2(isOpenAiError(*reply, 415), type.constData());
            QCOMPARE(reply->json()["error"]["code"].toString(), QStringLiteral("unsupported_media_type"));
        }
        QCOMPARE(server_->completionsServed(), served);
        const auto charset =
            httpRequest(port(), "POST", "/v1/chat/completions", storyRequest({{"max_tokens", 2}}),
                        {{"Content-Type", "Application/JSON; charset=utf-8"}});
        QVERIFY(charset);
        QCOMPARE(charset->status, 200);
    }

    // Origins the user allowed (hearth-cli serve --allow-origin, or the app's setting) are
    // answered, preflight included, with CORS headers naming them; the API key still holds.
    void allowedOriginsGetCorsHeaders() {
        server_->setAllowedOrigins(
            {QStringLiteral("http://localhost:3000"), QStringLiteral("https://app.example:*/")});
        const auto preflight =
            httpRequest(port(), "OPTIONS", "/v1/chat/completions", {},
                        {{"Origin", "http://localhost:3000"},
                         {"Access-Control-Request-Method", "POST"},
                         {"Access-Control-Request-Headers", "authorization, content-type"}});
        QVERIFY(preflight);
        QCOMPARE(preflight->status, 204);
        QCOMPARE(preflight->header("access-control-allow-origin"), QByteArray("http://localhost:3000"));
        QVERIFY(preflight->header("access-control-allow-methods").contains("POST"));
        QCOMPARE(preflight->header("access-control-allow-headers"),
                 QByteArray("authorization, content-type"));
        QCOMPARE(preflight->header("vary"), QByteArray("Origin"));
        QVERIFY(preflight->body.isEmpty());

        const auto chat =
            httpRequest(port(), "POST", "/v1/chat/completions", storyRequest({{"stream", true}}),
                        {{"Origin", "http://localhost:3000"}});
        QVERIFY(chat);
        QCOMPARE(chat->status, 200);
        QCOMPARE(chat->header("access-control-allow-origin"), QByteArray("http://localhost:3000"));
        QVERIFY(!replyText(*chat).isEmpty());
        const auto anyPort =
            httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "https://app.example:8443"}});
        QVERIFY(anyPort);
        QCOMPARE(anyPort->status, 200);
        QCOMPARE(anyPort->header("access-control-allow-origin"), QByteArray("https://app.example:8443"));
        // Only what was allowed: another port, another scheme.
        for (const QByteArray& origin :
             QByteArrayList{QByteArray("http://localhost:3001"), QByteArray("http://app.example:8443")}) {
            const auto refused = httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", origin}});
            QVERIFY(refused);
            QVERIFY2(isOpenAiError(*refused, 403), origin.constData());
            QVERIFY(refused->header("access-control-allow-origin").isEmpty());
        }
        // A request without an Origin (not a browser) gets no CORS headers.
        const auto plain = httpRequest(port(), "GET", "/v1/models");
        QVERIFY(plain);
        QVERIFY(plain->header("access-control-allow-origin").isEmpty());

        // With an API key: the preflight (browsers send it without the key) is answered, the
        // request itself needs the key, and its refusal is readable by the allowed page.
        server_->setApiKey(QStringLiteral("s3cret"));
        const auto keyPreflight =
            httpRequest(port(), "OPTIONS", "/v1/models", {},
                        {{"Origin", "http://localhost:3000"}, {"Access-Control-Request-Method", "GET"}});
        QVERIFY(keyPreflight);
        QCOMPARE(keyPreflight->status, 204);
        const auto noKey =
            httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "http://localhost:3000"}});
        QVERIFY(noKey);
        QVERIFY(isOpenAiError(*noKey, 401));
        QCOMPARE(noKey->header("access-control-allow-origin"), QByteArray("http://localhost:3000"));
        const auto withKey =
            httpRequest(port(), "GET", "/v1/models", {},
                        {{"Origin", "http://localhost:3000"}, {"Authorization", "Bearer s3cret"}});
        QVERIFY(withKey);
        QCOMPARE(withKey->status, 200);
        // The key opens no door the origin check shut.
        const auto foreignWithKey =
            httpRequest(port(), "GET", "/v1/models", {},
                        {{"Origin", "http://evil.example"}, {"Authorization", "Bearer s3cret"}});
        QVERIFY(foreignWithKey);
        QVERIFY(isOpenAiError(*foreignWithKey, 403));
        server_->setApiKey(QString());

        server_->setAllowedOrigins({});
        const auto withdrawn =
            httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "http://localhost:3000"}});
        QVERIFY(withdrawn);
        QVERIFY(isOpenAiError(*withdrawn, 403));
        server_->setAllowedOrigins({QStringLiteral("*")});
        const auto everyone =
            httpRequest(port(), "GET", "/v1/models", {}, {{"Origin", "https://any.example"}});
        QVERIFY(everyone);
        QCOMPARE(everyone->status, 200);
        server_->setAllowedOrigins({});
    }

    void allowedEntriesAreChecked_data() {
        QTest::addColumn<QString>("origin");
        QTest::addColumn<bool>("originOk");
        QTest::addColumn<QString>("host");
        QTest::addColumn<bool>("hostOk");
        QTest::newRow("plain") << "http://localhost:3000" << true << "hearth.lan" << true;
        QTest::newRow("any") << "*" << true << "*" << true;
        QTest::newRow("any port") << "https://app.example:*" << true << "192.168.1.5" << true;
        QTest::newRow("IPv6") << "http://[::1]:8080" << true << "[fe80::1]" << true;
        QTest::newRow("no scheme") << "localhost:3000" << false << "http://hearth.lan" << false;
        QTest::newRow("a path") << "http://a.example/path" << false << "hearth.lan:8642" << false;
        QTest::newRow("empty") << "" << false << "" << false;
        QTest::newRow("spaces") << "http://a b" << false << "a b" << false;
    }
    void allowedEntriesAreChecked() {
        QFETCH(QString, origin);
        QFETCH(bool, originOk);
        QFETCH(QString, host);
        QFETCH(bool, hostOk);
        QCOMPARE(FrontDoor::originPatternError(origin).isEmpty(), originOk);
        QCOMPARE(FrontDoor::hostNameError(host).isEmpty(), hostOk);
    }

    void apiKeyIsRequiredWhenSet() {
        server_->setApiKey(QStringLiteral("s3cret"));
        const auto none = httpRequest(port(), "GET", "/v1/models");
        QVERIFY(none);
        QVERIFY(isOpenAiError(*none, 401));
        QCOMPARE(none->json()["error"]["code"].toString(), QStringLiteral("invalid_api_key"));
        const auto wrong = httpRequest(port(), "POST", "/v1/chat/completions", storyRequest(),
                                       {{"Authorization", "Bearer s3cre7"}});
        QVERIFY(wrong);
        QVERIFY(isOpenAiError(*wrong, 401));
        const auto right = httpRequest(port(), "GET", "/v1/models", {}, {{"Authorization", "Bearer s3cret"}});
        QVERIFY(right);
        QCOMPARE(right->status, 200);
        server_->setApiKey(QString());
        const auto open = httpRequest(port(), "GET", "/v1/models");
        QVERIFY(open);
        QCOMPARE(open->status, 200);
    }

    void noModelIs503() {
        NoModelBackend none;
        ApiServer server(&none);
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        const auto list = httpRequest(server.port(), "GET", "/v1/models");
        QVERIFY(list);
        QCOMPARE(list->status, 200);
        QVERIFY(list->json()["data"].toArray().isEmpty());
        const auto chat = httpRequest(server.port(), "POST", "/v1/chat/completions", storyRequest());
        QVERIFY(chat);
        QVERIFY(isOpenAiError(*chat, 503));
        QCOMPARE(chat->json()["error"]["code"].toString(), QStringLiteral("model_not_loaded"));
    }

    // A stream that fails after it started: the status (200) is sent, so the error goes in the
    // stream as an event of OpenAI's error shape, then the stream ends as every stream does,
    // with "data: [DONE]", and the response is complete: its last chunk follows, and a client
    // that asked to close sees the connection close.
    void aStreamThatFailsAfterItsFirstPieceEndsWithTheErrorAndDone() {
        FailsAfterOnePieceBackend failing;
        ApiServer server(&failing);
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        HttpTestClient client(server.port());
        client.send("POST", "/v1/chat/completions", storyRequest({{"stream", true}}), {}, /*close=*/true);
        const auto reply = client.read(10000);
        QVERIFY2(reply, client.received().constData());
        QCOMPARE(reply->status, 200);
        QVERIFY(reply->chunked);
        QVERIFY(reply->header("content-type").startsWith("text/event-stream"));
        QVERIFY2(reply->body.endsWith("data: [DONE]\n\n"), reply->body.constData());
        const QList<QByteArray> events = reply->events();
        QVERIFY2(events.size() >= 4, reply->body.constData()); // role, piece, error, [DONE]
        QCOMPARE(replyText(*reply), QStringLiteral("Once"));
        QCOMPARE(events.last(), QByteArray("[DONE]"));
        const QJsonObject error =
            QJsonDocument::fromJson(events[events.size() - 2]).object()["error"].toObject();
        QCOMPARE(error["message"].toString(), QString::fromLatin1(FailsAfterOnePieceBackend::kError));
        QVERIFY(error["type"].isString() && !error["type"].toString().isEmpty());
        QVERIFY(error.contains("param") && error.contains("code"));
        for (qsizetype i = 0; i + 2 < events.size(); ++i) // the pieces before it are chunks
            QVERIFY2(!QJsonDocument::fromJson(events[i]).object().contains("error"), events[i].constData());
        QVERIFY(client.waitForClose());
    }

    // A port another program holds is refused in plain words.
    void portInUseIsSaidPlainly() {
        ApiServer other(backend_.get());
        QVERIFY(!other.listen(QHostAddress::LocalHost, port()));
        QVERIFY2(other.errorString().contains(QStringLiteral("already in use")),
                 qPrintable(other.errorString()));
        QVERIFY(!other.isListening());
    }
};

QTEST_GUILESS_MAIN(TestApiHttp)
#include "test_api_http.moc"
