// Function calling through the API server over the real engine (stories260K, whose file has no
// chat template: the ChatML fallback, so the tools go into the prompt as text and calls are
// written in the Hermes form). A forced call (tool_choice "required" or a named function) parses
// and its arguments follow the tool's schema; streamed, its deltas come in OpenAI's shape and
// put together give the same call; a tool's result sent back renders into the prompt and the
// conversation's cache is reused; "none" renders no tools; malformed tools, tool choices and
// tool messages are refused with 400 naming the field.
#include "tests/grammar/json_schema_check.h"
#include "tests/server/api_fixture.h"
#include <QJsonArray>
#include <QTest>

using namespace hearth::server;
using namespace hearth::test;

namespace {

const char* kWeatherParameters = R"({"type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "days": {"type": "integer"}},
    "required": ["city", "days"], "additionalProperties": false})";
const char* kTimeParameters = R"({"type": "object",
    "properties": {"zone": {"type": "string", "enum": ["UTC", "CET"]}}, "required": ["zone"]})";

QJsonObject tool(const char* name, const char* parameters) {
    return QJsonObject{
        {"type", "function"},
        {"function", QJsonObject{{"name", name},
                                 {"description", QStringLiteral("The tool %1").arg(name)},
                                 {"parameters", QJsonDocument::fromJson(parameters).object()}}}};
}

QJsonArray tools() {
    return QJsonArray{tool("get_weather", kWeatherParameters), tool("get_time", kTimeParameters)};
}

QJsonArray question() {
    return messages({{"user", QStringLiteral("What is the weather in Paris?")}});
}

struct StreamedCall {
    QString id;
    QString name;
    QString arguments;
};

} // namespace

class TestApiTools : public QObject {
    Q_OBJECT
    std::unique_ptr<EngineThreadBackend> backend_;
    std::unique_ptr<ApiServer> server_;

    HttpReply post(const QByteArray& body) {
        return httpRequest(server_->port(), "POST", "/v1/chat/completions", body).value_or(HttpReply{});
    }
    QByteArray forcedRequest(const QJsonValue& choice, bool stream = false) {
        QJsonObject extra{{"tools", tools()},
                          {"tool_choice", choice},
                          {"max_tokens", 240},
                          {"temperature", 0.8},
                          {"seed", 7}};
        if (stream) extra.insert("stream", true);
        return chatBody(question(), extra);
    }
    void expectRefused(const QByteArray& body, const QString& param, const char* because) {
        const HttpReply reply = post(body);
        QCOMPARE(reply.status, 400);
        const QJsonObject error = reply.json()["error"].toObject();
        QCOMPARE(error["param"].toString(), param);
        QVERIFY2(error["message"].toString().contains(QLatin1String(because)),
                 qPrintable(error["message"].toString()));
        QCOMPARE(error["type"].toString(), QStringLiteral("invalid_request_error"));
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

    void requiredCallParsesAndFollowsItsSchema() {
        for (int seed : {7, 8, 9}) {
            QJsonObject extra{{"tools", tools()},
                              {"tool_choice", "required"},
                              {"max_tokens", 240},
                              {"temperature", 1.0},
                              {"seed", seed}};
            const HttpReply reply = post(chatBody(question(), extra));
            QCOMPARE(reply.status, 200);
            const QJsonObject choice = reply.json()["choices"].toArray().first().toObject();
            QCOMPARE(choice["finish_reason"].toString(), QStringLiteral("tool_calls"));
            QVERIFY(choice["message"]["content"].isNull());
            const QJsonArray calls = choice["message"]["tool_calls"].toArray();
            QCOMPARE(calls.size(), 1);
            const QJsonObject call = calls.first().toObject();
            QVERIFY(call["id"].toString().startsWith(QStringLiteral("call_")));
            QCOMPARE(call["type"].toString(), QStringLiteral("function"));
            const QString name = call["function"]["name"].toString();
            QVERIFY2(name == QLatin1String("get_weather") || name == QLatin1String("get_time"),
                     qPrintable(name));
            const std::string arguments = call["function"]["arguments"].toString().toStdString();
            const nlohmann::json parsed = nlohmann::json::parse(arguments); // throws (fails) if not JSON
            const std::string violation = schema_violation(
                parsed, nlohmann::json::parse(name == QLatin1String("get_weather") ? kWeatherParameters
                                                                                   : kTimeParameters));
            QVERIFY2(violation.empty(), (arguments + ": " + violation).c_str());
        }
    }

    void aNamedFunctionIsTheOneCalled() {
        const HttpReply reply = post(forcedRequest(
            QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "get_time"}}}}));
        QCOMPARE(reply.status, 200);
        const QJsonObject call =
            reply.json()["choices"].toArray().first()["message"]["tool_calls"].toArray().first().toObject();
        QCOMPARE(call["function"]["name"].toString(), QStringLiteral("get_time"));
        const nlohmann::json arguments =
            nlohmann::json::parse(call["function"]["arguments"].toString().toStdString());
        QVERIFY(schema_violation(arguments, nlohmann::json::parse(kTimeParameters)).empty());
    }

    void streamedDeltasPutTogetherGiveTheSameCall() {
        const HttpReply whole = post(forcedRequest("required"));
        QCOMPARE(whole.status, 200);
        const QJsonObject wholeCall =
            whole.json()["choices"].toArray().first()["message"]["tool_calls"].toArray().first().toObject();

        const HttpReply streamed = post(forcedRequest("required", true));
        QCOMPARE(streamed.status, 200);
        QList<StreamedCall> calls;
        QString content;
        QString finish;
        for (const QByteArray& event : streamed.events()) {
            if (event == "[DONE]") continue;
            const QJsonObject choice =
                QJsonDocument::fromJson(event).object()["choices"].toArray().first().toObject();
            const QJsonObject delta = choice["delta"].toObject();
            content += delta["content"].toString();
            if (!choice["finish_reason"].isNull()) finish = choice["finish_reason"].toString();
            for (const QJsonValue& part : delta["tool_calls"].toArray()) {
                const int index = part["index"].toInt(-1);
                QVERIFY(index >= 0);
                if (index == calls.size()) { // a call's first delta: id, type, name, arguments ""
                    QVERIFY(!part["id"].toString().isEmpty());
                    QCOMPARE(part["type"].toString(), QStringLiteral("function"));
                    QVERIFY(part["function"]["arguments"].isString());
                    calls.append({part["id"].toString(), part["function"]["name"].toString(),
                                  part["function"]["arguments"].toString()});
                } else { // later ones: the index and a part of the arguments only
                    QVERIFY(index < calls.size());
                    QVERIFY(!part.toObject().contains("id") && !part["function"].toObject().contains("name"));
                    calls[index].arguments += part["function"]["arguments"].toString();
                }
            }
        }
        QCOMPARE(finish, QStringLiteral("tool_calls"));
        QVERIFY2(content.trimmed().isEmpty(), qPrintable(content)); // nothing of the call leaked as text
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls[0].name, wholeCall["function"]["name"].toString());
        QCOMPARE(calls[0].arguments, wholeCall["function"]["arguments"].toString());
    }

    // stories260K's context is 128 tokens: the follow-ups carry no tools (the call and its result
    // are what they test), and the call is get_time's, whose arguments are short.
    void aToolResultGoesBackIntoTheConversation() {
        const HttpReply first = post(
            chatBody(question(),
                     {{"tools", QJsonArray{tools()[1]}}, {"tool_choice", "required"}, {"max_tokens", 160}}));
        QCOMPARE(first.status, 200);
        const QJsonObject message = first.json()["choices"].toArray().first()["message"].toObject();
        QCOMPARE(message["tool_calls"].toArray().size(), 1);
        const QString callId = message["tool_calls"].toArray().first()["id"].toString();
        const auto withResult = [&](const QString& result) {
            QJsonArray conversation = question();
            conversation.append(message);
            conversation.append(QJsonObject{{"role", "tool"}, {"tool_call_id", callId}, {"content", result}});
            return post(chatBody(conversation, {{"max_tokens", 4}}));
        };
        const HttpReply longResult = withResult(QStringLiteral("Sunny and warm, no rain."));
        QCOMPARE(longResult.status, 200);
        const HttpReply shortResult = withResult(QStringLiteral("Sunny."));
        QCOMPARE(shortResult.status, 200);
        const QJsonObject choice = shortResult.json()["choices"].toArray().first().toObject();
        QVERIFY(choice["message"]["content"].isString());
        QVERIFY(choice["finish_reason"].toString() == QLatin1String("stop") ||
                choice["finish_reason"].toString() == QLatin1String("length"));
        const int shortPrompt = shortResult.json()["usage"]["prompt_tokens"].toInt();
        // The result's text is in the prompt: a longer one makes it longer.
        QVERIFY2(longResult.json()["usage"]["prompt_tokens"].toInt() > shortPrompt + 3,
                 longResult.body.constData());
        // The same conversation again finds its session (the call and the result are in its key).
        const HttpReply again = withResult(QStringLiteral("Sunny."));
        QCOMPARE(again.json()["usage"]["prompt_tokens"].toInt(), shortPrompt);
        QVERIFY2(again.json()["usage"]["prompt_tokens_details"]["cached_tokens"].toInt() >= shortPrompt - 2,
                 again.body.constData());
    }

    void toolChoiceNoneRendersNoTools() {
        const HttpReply plain = post(chatBody(question(), {{"max_tokens", 4}}));
        const HttpReply none =
            post(chatBody(question(), {{"tools", tools()}, {"tool_choice", "none"}, {"max_tokens", 4}}));
        const HttpReply offered = post(chatBody(question(), {{"tools", tools()}, {"max_tokens", 4}}));
        QCOMPARE(none.status, 200);
        QCOMPARE(none.json()["usage"]["prompt_tokens"].toInt(),
                 plain.json()["usage"]["prompt_tokens"].toInt());
        QVERIFY(offered.json()["usage"]["prompt_tokens"].toInt() >
                plain.json()["usage"]["prompt_tokens"].toInt() + 20);
        QVERIFY(!none.json()["choices"].toArray().first()["message"].toObject().contains("tool_calls"));
    }

    void malformedToolsAreRefusedByName() {
        QJsonArray noName = tools();
        noName[0] = QJsonObject{{"type", "function"}, {"function", QJsonObject{{"description", "x"}}}};
        expectRefused(chatBody(question(), {{"tools", noName}}), "tools[0].function.name", "Missing");
        QJsonArray badName = tools();
        badName[1] = tool("get time", kTimeParameters);
        expectRefused(chatBody(question(), {{"tools", badName}}), "tools[1].function.name", "letters");
        QJsonArray notSchema = tools();
        notSchema[1] =
            QJsonObject{{"type", "function"},
                        {"function", QJsonObject{{"name", "x"}, {"parameters", "an object please"}}}};
        expectRefused(chatBody(question(), {{"tools", notSchema}}), "tools[1].function.parameters",
                      "JSON Schema");
        expectRefused(chatBody(question(), {{"tools", QJsonArray{tool("x", R"({"type": "dict"})")}}}),
                      "tools[0].function.parameters.type", "'type'");
        expectRefused(chatBody(question(), {{"tools", QJsonArray{QJsonObject{{"type", "retrieval"}}}}}),
                      "tools[0].type", "function");
        // A forced call needs the schema as a grammar: a keyword it cannot take is named.
        expectRefused(chatBody(question(), {{"tools", QJsonArray{tool("x", R"({"type": "object", "properties":
                                                {"n": {"type": "integer", "minimum": 2}}})")}},
                                            {"tool_choice", "required"}}),
                      "tools[0].function.parameters", "minimum");
        const QJsonObject unknownFunction{{"type", "function"}, {"function", QJsonObject{{"name", "nope"}}}};
        expectRefused(chatBody(question(), {{"tools", tools()}, {"tool_choice", unknownFunction}}),
                      "tool_choice.function.name", "nope");
        expectRefused(chatBody(question(), {{"tool_choice", "required"}}), "tool_choice", "tools");
        expectRefused(chatBody(question(), {{"tools", tools()}, {"parallel_tool_calls", "yes"}}),
                      "parallel_tool_calls", "boolean");
        QJsonArray orphan = question();
        orphan.append(QJsonObject{{"role", "tool"}, {"content", "Sunny."}});
        expectRefused(chatBody(orphan), "messages[1].tool_call_id", "Missing");
        const QJsonObject objectArguments{{"name", "get_time"}, {"arguments", QJsonObject()}};
        const QJsonObject callWithObject{
            {"id", "call_1"}, {"type", "function"}, {"function", objectArguments}};
        QJsonArray badCall = question();
        badCall.append(QJsonObject{{"role", "assistant"}, {"tool_calls", QJsonArray{callWithObject}}});
        expectRefused(chatBody(badCall), "messages[1].tool_calls[0].function.arguments", "string");
        QJsonArray tooMany;
        for (int i = 0; i < 129; ++i)
            tooMany.append(tool(qPrintable(QStringLiteral("f%1").arg(i)), kTimeParameters));
        expectRefused(chatBody(question(), {{"tools", tooMany}}), "tools", "at most 128");
        // The server still answers.
        QCOMPARE(post(chatBody(question(), {{"max_tokens", 2}})).status, 200);
    }
};

QTEST_GUILESS_MAIN(TestApiTools)
#include "test_api_tools.moc"
