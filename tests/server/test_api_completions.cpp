// Completions through the API server over the real engine (stories260K, real text):
// a chat completion whole and streamed (SSE framing, chunk shapes, usage, [DONE]),
// /v1/completions, max_tokens, stop strings, seeds at temperature > 0, prefix reuse
// for a request that extends an earlier one, a client leaving mid-stream (its
// generation is cancelled and the next request is served), two clients at once, and
// response_format: replies that are JSON following a schema (or any JSON object), and schemas
// refused with the parameter and the reason.
#include "tests/grammar/json_schema_check.h"
#include "tests/server/api_fixture.h"
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::server;
using namespace hearth::test;

class TestApiCompletions : public QObject {
    Q_OBJECT
    std::unique_ptr<EngineThreadBackend> backend_;
    std::unique_ptr<ApiServer> server_;
    quint16 port() const { return server_->port(); }

    HttpReply post(const QByteArray& path, const QByteArray& body) {
        const auto reply = httpRequest(port(), "POST", path, body);
        return reply.value_or(HttpReply{});
    }

private slots:
    void initTestCase() {
        backend_ = makeStoriesBackend();
        server_ = std::make_unique<ApiServer>(backend_.get());
        QVERIFY(server_->listen(QHostAddress::LocalHost, 0));
    }
    void cleanupTestCase() {
        server_.reset();
        backend_.reset();
    }

    void chatCompletion() {
        const HttpReply reply = post("/v1/chat/completions", storyRequest({{"max_tokens", 20}}));
        QCOMPARE(reply.status, 200);
        const QJsonObject body = reply.json();
        QCOMPARE(body["object"].toString(), QStringLiteral("chat.completion"));
        QVERIFY(body["id"].toString().startsWith(QStringLiteral("chatcmpl-")));
        QCOMPARE(body["model"].toString(), storiesModelId());
        QVERIFY(body["created"].toInteger() > 0);
        const QJsonObject choice = body["choices"].toArray().first().toObject();
        QCOMPARE(choice["index"].toInt(), 0);
        QCOMPARE(choice["message"]["role"].toString(), QStringLiteral("assistant"));
        const QString text = choice["message"]["content"].toString();
        QVERIFY(!text.trimmed().isEmpty());
        const QJsonObject usage = body["usage"].toObject();
        QVERIFY(usage["prompt_tokens"].toInt() > 4);
        QVERIFY(usage["completion_tokens"].toInt() >= 1 && usage["completion_tokens"].toInt() <= 20);
        QCOMPARE(usage["total_tokens"].toInt(),
                 usage["prompt_tokens"].toInt() + usage["completion_tokens"].toInt());
        QVERIFY(usage["prompt_tokens_details"]["cached_tokens"].isDouble());
        const QString reason = choice["finish_reason"].toString();
        QVERIFY(reason == QLatin1String("length") ? usage["completion_tokens"].toInt() == 20
                                                  : reason == QLatin1String("stop"));
    }

    void streamedChatMatchesTheWholeOne() {
        const QByteArray request = storyRequest({{"max_tokens", 24}});
        const HttpReply whole = post("/v1/chat/completions", request);
        QCOMPARE(whole.status, 200);
        const HttpReply streamed = post(
            "/v1/chat/completions", storyRequest({{"max_tokens", 24},
                                                  {"stream", true},
                                                  {"stream_options", QJsonObject{{"include_usage", true}}}}));
        QCOMPARE(streamed.status, 200);
        QVERIFY(streamed.chunked);
        QVERIFY(streamed.header("content-type").startsWith("text/event-stream"));
        // Each event is one "data: JSON" line followed by a blank line.
        QVERIFY(streamed.body.startsWith("data: "));
        QVERIFY(streamed.body.endsWith("data: [DONE]\n\n"));
        for (const QByteArray& block : streamed.body.split('\n'))
            QVERIFY2(block.isEmpty() || block.startsWith("data: "), block.constData());
        const QList<QByteArray> events = streamed.events();
        QVERIFY(events.size() >= 4); // role, text, finish, usage, [DONE]
        QCOMPARE(events.last(), QByteArray("[DONE]"));
        const QJsonObject first = QJsonDocument::fromJson(events.first()).object();
        QCOMPARE(first["object"].toString(), QStringLiteral("chat.completion.chunk"));
        QCOMPARE(first["choices"][0]["delta"]["role"].toString(), QStringLiteral("assistant"));
        QString id = first["id"].toString();
        int finishes = 0;
        for (qsizetype i = 0; i + 1 < events.size(); ++i) {
            const QJsonObject chunk = QJsonDocument::fromJson(events[i]).object();
            QCOMPARE(chunk["id"].toString(), id);
            QCOMPARE(chunk["object"].toString(), QStringLiteral("chat.completion.chunk"));
            if (!chunk["choices"].toArray().isEmpty() && !chunk["choices"][0]["finish_reason"].isNull())
                ++finishes;
        }
        QCOMPARE(finishes, 1);
        const QJsonObject usageChunk = QJsonDocument::fromJson(events[events.size() - 2]).object();
        QVERIFY(usageChunk["choices"].toArray().isEmpty());
        QCOMPARE(usageChunk["usage"]["completion_tokens"].toInt(),
                 whole.json()["usage"]["completion_tokens"].toInt());
        // Greedy: the same text, streamed or not (the second reused the first's cache).
        QCOMPARE(replyText(streamed), replyText(whole));
    }

    void textCompletion() {
        const QByteArray body =
            "{\"model\":\"stories260K\",\"prompt\":\"Once upon a time\",\"max_tokens\":12,\"temperature\":0}";
        const HttpReply reply = post("/v1/completions", body);
        QCOMPARE(reply.status, 200);
        const QJsonObject json = reply.json();
        QCOMPARE(json["object"].toString(), QStringLiteral("text_completion"));
        const QString text = json["choices"][0]["text"].toString();
        QVERIFY(!text.trimmed().isEmpty());
        QCOMPARE(json["usage"]["completion_tokens"].toInt(), 12);
        QCOMPARE(json["choices"][0]["finish_reason"].toString(), QStringLiteral("length"));

        QByteArray streamBody = body;
        streamBody.replace("\"temperature\":0", "\"temperature\":0,\"stream\":true");
        const HttpReply streamed = post("/v1/completions", streamBody);
        QCOMPARE(streamed.status, 200);
        QCOMPARE(streamed.events().last(), QByteArray("[DONE]"));
        QString joined;
        for (const QByteArray& event : streamed.events())
            if (event != "[DONE]")
                joined += QJsonDocument::fromJson(event).object().value("choices")[0]["text"].toString();
        QCOMPARE(joined, text);
    }

    void maxTokens() {
        const HttpReply reply =
            post("/v1/chat/completions", storyRequest({{"max_tokens", 3}, {"temperature", 1.0}}));
        QCOMPARE(reply.status, 200);
        const int generated = reply.json()["usage"]["completion_tokens"].toInt();
        QVERIFY(generated >= 1 && generated <= 3);
        if (generated < 3)
            QCOMPARE(reply.json()["choices"][0]["finish_reason"].toString(), QStringLiteral("stop"));
    }

    void stopStrings() {
        const QJsonArray talk = messages({{"user", QStringLiteral("Tell me about a dog")}});
        const HttpReply free = post("/v1/chat/completions", chatBody(talk, {{"max_tokens", 40}}));
        QCOMPARE(free.status, 200);
        const QString text = replyText(free);
        QVERIFY2(text.size() > 12, qPrintable(text));
        // A stop string from the middle of the free reply: the reply ends just before it.
        const QString stop = text.mid(text.size() / 2, 3);
        const QString expected = text.left(text.indexOf(stop));
        for (const bool stream : {false, true}) {
            const HttpReply stopped =
                post("/v1/chat/completions", chatBody(talk, {{"max_tokens", 40},
                                                             {"stop", QJsonArray{"never-there", stop}},
                                                             {"stream", stream}}));
            QCOMPARE(stopped.status, 200);
            QCOMPARE(replyText(stopped), expected);
            if (!stream) {
                QCOMPARE(stopped.json()["choices"][0]["finish_reason"].toString(), QStringLiteral("stop"));
                QVERIFY(stopped.json()["usage"]["completion_tokens"].toInt() <
                        free.json()["usage"]["completion_tokens"].toInt());
            }
        }
        // A single string works too.
        const HttpReply single =
            post("/v1/chat/completions", chatBody(talk, {{"max_tokens", 40}, {"stop", stop}}));
        QCOMPARE(replyText(single), expected);
    }

    void seedsReproduceAtTemperature() {
        const auto sampled = [&](int seed) {
            return replyText(post("/v1/chat/completions",
                                  storyRequest({{"temperature", 1.0}, {"max_tokens", 30}, {"seed", seed}})));
        };
        const QString a = sampled(42);
        QVERIFY(!a.isEmpty());
        QCOMPARE(sampled(42), a);
        QVERIFY(sampled(43) != a || sampled(44) != a);
    }

    // The second request resends the first one's conversation and its reply, plus a new
    // turn: the first request's KV cache serves that prefix.
    void prefixReuseForAnExtendedConversation() {
        // Short: stories260K sees 128 tokens, and ChatML's markers take many of its tokens.
        const QJsonArray first = messages({{"user", QStringLiteral("A cat.")}});
        const HttpReply one = post("/v1/chat/completions", chatBody(first, {{"max_tokens", 8}}));
        QCOMPARE(one.status, 200);
        const int firstPrompt = one.json()["usage"]["prompt_tokens"].toInt();
        const int replyTokens = one.json()["usage"]["completion_tokens"].toInt();
        QJsonArray second = first;
        second.append(QJsonObject{{"role", "assistant"}, {"content", replyText(one)}});
        second.append(QJsonObject{{"role", "user"}, {"content", "Then?"}});
        const HttpReply two = post("/v1/chat/completions", chatBody(second, {{"max_tokens", 4}}));
        QCOMPARE(two.status, 200);
        const int reused = two.json()["usage"]["prompt_tokens_details"]["cached_tokens"].toInt();
        const int secondPrompt = two.json()["usage"]["prompt_tokens"].toInt();
        qInfo("second request: %d prompt tokens, %d reused from the first (%d prompt tokens)", secondPrompt,
              reused, firstPrompt);
        // The whole first prompt and its reply (test_api_prefix_reuse counts the exact figure).
        QVERIFY(reused >= firstPrompt + replyTokens - 1);
        QVERIFY(reused < secondPrompt);
        // An unrelated conversation starts in a fresh session: nothing to reuse.
        const HttpReply other =
            post("/v1/chat/completions",
                 chatBody(messages({{"user", QStringLiteral("Zebras!")}}), {{"max_tokens", 4}}));
        QCOMPARE(other.json()["usage"]["prompt_tokens_details"]["cached_tokens"].toInt(), 0);
    }

    // A client that leaves mid-stream cancels its generation; the next request is served.
    void disconnectCancelsTheGeneration() {
        QSignalSpy finished(backend_.get(), &CompletionBackend::finished);
        const int servedBefore = server_->completionsServed();
        {
            HttpTestClient client(port());
            client.send("POST", "/v1/chat/completions",
                        storyRequest({{"max_tokens", 1000000}, {"temperature", 1.0}, {"stream", true}}));
            QVERIFY(client.waitForBytes(600)); // the head and a few chunks
            QVERIFY(client.received().contains("data: "));
            client.abort();
        }
        QVERIFY(finished.wait(60000));
        const auto result = finished.first().at(1).value<CompletionResult>();
        QCOMPARE(result.finishReason, QStringLiteral("cancelled"));
        QVERIFY(result.stats.generated_tokens < 1000000);
        QCOMPARE(server_->completionsServed(), servedBefore);
        QCOMPARE(server_->completionsInFlight(), 0);
        const HttpReply next = post("/v1/chat/completions", storyRequest({{"max_tokens", 4}}));
        QCOMPARE(next.status, 200);
    }

    // Two clients at once: both answered in full (one after the other on the engine thread).
    // At temperature 1 the tiny model knows nothing of JSON: the grammar alone makes each reply
    // JSON that follows the schema, its properties in the order the request lists them.
    void responseFormatJsonSchema() {
        const QByteArray schema =
            "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\", \"maxLength\": 10},"
            "            \"kind\": {\"enum\": [\"cat\", \"dog\"]}, \"tags\": {\"type\": \"array\", "
            "\"items\": {\"type\": \"integer\"}, \"maxItems\": 3},"
            "            \"home\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\", "
            "\"maxLength\": 6}},"
            "            \"required\": [\"city\"], \"additionalProperties\": false}},"
            "            \"required\": [\"name\", \"kind\", \"tags\", \"home\"], \"additionalProperties\": "
            "false}";
        const QJsonObject format{
            {"type", "json_schema"},
            {"json_schema",
             QJsonObject{{"name", "pet"}, {"schema", QJsonDocument::fromJson(schema).object()}}}};
        for (int seed = 1; seed <= 8; ++seed) {
            QByteArray body = storyRequest(
                {{"temperature", 1}, {"seed", seed}, {"max_tokens", 300}, {"response_format", format}});
            // QJsonObject sorts keys: the schema goes in as written, in its order.
            body.replace(
                QJsonDocument(QJsonDocument::fromJson(schema).object()).toJson(QJsonDocument::Compact),
                schema);
            const HttpReply reply = post("/v1/chat/completions", body);
            QCOMPARE(reply.status, 200);
            const QJsonObject choice = reply.json()["choices"].toArray().first().toObject();
            const std::string text = choice["message"]["content"].toString().toStdString();
            QCOMPARE(choice["finish_reason"].toString(), QStringLiteral("stop"));
            const auto value = nlohmann::ordered_json::parse(text, nullptr, false);
            QVERIFY2(!value.is_discarded(), text.c_str());
            const std::string why =
                schema_violation(nlohmann::json::parse(text), nlohmann::json::parse(schema.constData()));
            QVERIFY2(why.empty(), (why + " in " + text).c_str());
            std::vector<std::string> keys;
            for (const auto& [key, v] : value.items())
                keys.push_back(key);
            QVERIFY2((keys == std::vector<std::string>{"name", "kind", "tags", "home"}), text.c_str());
        }
        const HttpReply object =
            post("/v1/chat/completions",
                 storyRequest({{"temperature", 1},
                               {"max_tokens", 300},
                               {"response_format", QJsonObject{{"type", "json_object"}}}}));
        QCOMPARE(object.status, 200);
        const std::string text = object.json()["choices"][0]["message"]["content"].toString().toStdString();
        const auto any = nlohmann::json::parse(text, nullptr, false);
        QVERIFY2(any.is_object() || object.json()["choices"][0]["finish_reason"].toString() == "length",
                 text.c_str());
    }

    void responseFormatRefusals_data() {
        QTest::addColumn<QByteArray>("format");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown type") << QByteArray("{\"type\": \"xml\"}") << "response_format.type"
                                      << "expected 'text'";
        QTest::newRow("not an object") << QByteArray("\"json\"") << "response_format"
                                       << "an object";
        QTest::newRow("no schema") << QByteArray(
                                          "{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\"}}")
                                   << "response_format.json_schema.schema"
                                   << "a JSON Schema";
        QTest::newRow("bad schema") << QByteArray(
                                           "{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\", "
                                           "\"schema\": {\"properties\": {\"a\": {\"type\": \"integr\"}}}}}")
                                    << "response_format.json_schema.schema"
                                    << "/properties/a/type: unknown type 'integr'";
        QTest::newRow("bad pattern")
            << QByteArray(
                   "{\"type\": \"json_schema\", \"json_schema\": {\"schema\": {\"pattern\": \"(?<=a)b\"}}}")
            << "response_format.json_schema.schema"
            << "/pattern: pattern, offset 1: lookarounds";
    }
    void responseFormatRefusals() {
        QFETCH(QByteArray, format);
        QFETCH(QString, param);
        QFETCH(QString, message);
        QByteArray body = storyRequest();
        body.chop(1);
        body += ",\"response_format\":" + format + "}";
        const HttpReply reply = post("/v1/chat/completions", body);
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.json()["error"]["param"].toString(), param);
        QVERIFY2(reply.json()["error"]["message"].toString().contains(message), reply.body.constData());
    }

    void concurrentClients() {
        HttpTestClient a(port());
        HttpTestClient b(port());
        a.send("POST", "/v1/chat/completions",
               chatBody(messages({{"user", QStringLiteral("A story about a bird")}}), {{"max_tokens", 30}}));
        b.send("POST", "/v1/chat/completions",
               chatBody(messages({{"user", QStringLiteral("A story about a fish")}}),
                        {{"max_tokens", 30}, {"stream", true}}));
        const auto ra = a.read();
        const auto rb = b.read();
        QVERIFY(ra && rb);
        QCOMPARE(ra->status, 200);
        QCOMPARE(rb->status, 200);
        QVERIFY(!replyText(*ra).isEmpty());
        QVERIFY(!replyText(*rb).isEmpty());
        QCOMPARE(rb->events().last(), QByteArray("[DONE]"));
    }
};

QTEST_GUILESS_MAIN(TestApiCompletions)
#include "test_api_completions.moc"
