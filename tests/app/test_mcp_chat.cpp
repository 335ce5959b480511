// The chat's tool calls end to end, with a real HearthBackend, stories260K and MCP servers run as
// child processes: a reply made to call a tool (requireToolCall: the forced-call grammar) shows
// the call with its server, tool and arguments and waits for the user; Allow once runs it, its
// result becomes a tool message under the call and goes back to the model, and the reply goes
// on; all of it is in the database and comes back after a restart. Deny and Stop answer the call
// without running it; Always allow runs the tool without asking from then on. A server that
// dies in a call, or cannot start, is named in the chat and the conversation goes on. With the
// reference servers from npm (HEARTH_MCP_SERVERS_DIR), everything's echo runs through the chat.
#include "app/chat/tool_calls.h"
#include "app/settings/app_settings.h"
#include "app/tools/mcp_server_registry.h"
#include "tests/app/backend_fixture.h"
#include "tests/app/mcp/scripted_server.h"
#ifdef HEARTH_MCP_SERVERS_DIR
#include "tests/app/mcp/npm_servers.h"
#endif
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;
using hearth::test::finishReply;
using hearth::test::loadModel;
using hearth::test::scriptedHandshake;
using hearth::test::scriptedServer;
using hearth::test::startChat;
using hearth::test::waitForMessages;

namespace {
// A clock server: get_time's calls are answered with "It is 12:00.", ids counted from 3.
const QString kClockAnswers = QStringLiteral(
    "n=3; while read line; do echo '{\"jsonrpc\":\"2.0\",\"id\":'$n',\"result\":{\"content\":[{\"type\":"
    "\"text\",\"text\":\"It is 12:00.\"}]}}'; n=$((n+1)); done");

// A chat template that renders `tools` itself, as real models' templates do, in few tokens:
// stories260K's context (128) holds the tools, the question, a call and its result. Its calls
// are Hermes's (<tool_call>).
const char* kShortTemplate =
    "{% if tools %}{% for t in tools %}tool {{ t.function.name }}\n{% endfor %}{% endif %}"
    "{% for m in messages %}{{ m.role }}: {{ m.content }}"
    "{% if m.tool_calls %}<tool_call>{{ m.tool_calls[0].function.name }}</tool_call>{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}";

QVariant roleOf(MessageListModel* messages, int row, MessageListModel::Role role) {
    return messages->index(row).data(role);
}

QVariantMap firstCall(MessageListModel* messages, int row) {
    const QVariantList calls = roleOf(messages, row, MessageListModel::ToolCallsRole).toList();
    return calls.isEmpty() ? QVariantMap() : calls.first().toMap();
}

// Waits until a call of the reply waits for the user; else says what the chat shows instead.
bool waitForApproval(ChatController* chat) {
    if (QTest::qWaitFor([&] { return chat->awaitingToolApproval(); }, 60000)) return true;
    MessageListModel* messages = chat->messages();
    const int last = messages->count() - 1;
    qWarning().noquote() << "no call waits; error:" << chat->errorMessage()
                         << "generating:" << chat->generating()
                         << "last message:" << roleOf(messages, last, MessageListModel::StateRole).toString()
                         << roleOf(messages, last, MessageListModel::StatsRole).toString()
                         << roleOf(messages, last, MessageListModel::ContentRole).toString();
    return false;
}

bool waitUntilIdle(ChatController* chat) {
    return QTest::qWaitFor([&] { return !chat->generating(); }, 60000);
}
} // namespace

class TestMcpChat : public QObject {
    Q_OBJECT

    QString dir_;
    AppPaths paths() const { return {dir_ + "/data", dir_ + "/settings.ini"}; }

    // The profile's settings before the backend opens it: these servers, short replies, a seed.
    void writeSettings(const QList<McpServerConfig>& servers) {
        AppSettings settings(paths().settingsFile, dir_);
        settings.setMcpServers(mcpServersToJson(servers));
        settings.setMaxReplyTokens(100); // room for a forced call (it ends with its grammar)
        settings.setChatTemplate(kShortTemplate);
        settings.setSeed(7);
        settings.setToolTimeoutSeconds(20);
        settings.flush();
    }

    // Opens the backend with stories260K and sends `text` with a tool call required.
    static bool sendWithToolCall(HearthBackend& b, const QString& text) {
        b.chat()->setRequireToolCall(true);
        return b.chat()->send(text);
    }

private slots:
    void init() { dir_ = QString::fromStdString(hearth::test::make_temp_dir("hearth-mcp-chat")); }

    void aCallAllowedOnceIsAnsweredStoredAndReloaded() {
        writeSettings({scriptedServer("clock", scriptedHandshake() + kClockAnswers)});
        QString conversation;
        QString callId;
        {
            HearthBackend b(paths());
            QVERIFY(startChat(b));
            QVERIFY(loadModel(b));
            ChatController* chat = b.chat();
            QSignalSpy requests(chat, &ChatController::generateRequested);
            QVERIFY(sendWithToolCall(b, "What time is it?"));
            QVERIFY(waitForApproval(chat));
            conversation = chat->currentConversationId();
            MessageListModel* messages = chat->messages();
            QCOMPARE(messages->count(), 2);
            QVERIFY(chat->generating());
            QVERIFY(!chat->canSend());
            // The call as the chat shows it: server, tool, arguments; waiting.
            const QVariantMap call = firstCall(messages, 1);
            QCOMPARE(call["server"].toString(), QStringLiteral("clock"));
            QCOMPARE(call["tool"].toString(), QStringLiteral("get_time"));
            QCOMPARE(call["status"].toString(), QStringLiteral("pending"));
            const QJsonObject arguments =
                QJsonDocument::fromJson(call["arguments"].toString().toUtf8()).object();
            QVERIFY2(arguments["zone"] == "UTC" || arguments["zone"] == "CET",
                     qPrintable(call["arguments"].toString()));
            callId = call["id"].toString();
            QVERIFY(!callId.isEmpty());
            // The first request offered the tool and required a call.
            QCOMPARE(requests.size(), 1);
            const auto first = requests.first().first().value<GenerationRequest>();
            QVERIFY(first.toolsJson.contains("get_time"));
            QCOMPARE(first.toolChoice, hearth::server::ToolChoice::Required);
            QVERIFY(!chat->requireToolCall()); // for that reply only

            QVERIFY(!chat->answerToolCall(messages->index(1).data(MessageListModel::IdRole).toString(),
                                          "nope", "once"));
            QVERIFY(chat->answerToolCall(messages->index(1).data(MessageListModel::IdRole).toString(), callId,
                                         "once"));
            QVERIFY(waitUntilIdle(chat));
            QCOMPARE(messages->count(), 4);
            QCOMPARE(firstCall(messages, 1)["status"].toString(), QStringLiteral("done"));
            QCOMPARE(roleOf(messages, 2, MessageListModel::AuthorRole).toString(), QStringLiteral("tool"));
            QCOMPARE(roleOf(messages, 2, MessageListModel::ContentRole).toString(),
                     QStringLiteral("It is 12:00."));
            const QVariantMap result = roleOf(messages, 2, MessageListModel::ToolResultRole).toMap();
            QCOMPARE(result["server"].toString(), QStringLiteral("clock"));
            QCOMPARE(result["isError"].toBool(), false);
            QCOMPARE(roleOf(messages, 3, MessageListModel::AuthorRole).toString(),
                     QStringLiteral("assistant"));
            QCOMPARE(roleOf(messages, 3, MessageListModel::StateRole).toString(), QStringLiteral("complete"));

            // The reply went on with the call and its result in the conversation it was given.
            QCOMPARE(requests.size(), 2);
            const auto second = requests.last().first().value<GenerationRequest>();
            QCOMPARE(second.toolChoice, hearth::server::ToolChoice::Auto);
            QCOMPARE(second.turns.size(), 3);
            const QJsonObject replyFields = QJsonDocument::fromJson(second.turns[1].templateFields).object();
            QCOMPARE(replyFields["tool_calls"][0]["id"].toString(), callId);
            QCOMPARE(replyFields["tool_calls"][0]["function"]["name"].toString(), QStringLiteral("get_time"));
            QVERIFY(replyFields["tool_calls"][0]["function"]["arguments"].isObject());
            QCOMPARE(second.turns[2].role, hearth::chat::Role::Tool);
            QCOMPARE(second.turns[2].content, QStringLiteral("It is 12:00."));
            QCOMPARE(
                QJsonDocument::fromJson(second.turns[2].templateFields).object()["tool_call_id"].toString(),
                callId);
            QVERIFY(chat->canSend());
            QVERIFY2(chat->errorMessage().isEmpty(), qPrintable(chat->errorMessage()));
        }
        // After a restart: the call, its answer and the reply, from the database.
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        b.chat()->selectConversation(conversation);
        QVERIFY(waitForMessages(b.chat(), 4));
        MessageListModel* messages = b.chat()->messages();
        const QVariantMap call = firstCall(messages, 1);
        QCOMPARE(call["id"].toString(), callId);
        QCOMPARE(call["server"].toString(), QStringLiteral("clock"));
        QCOMPARE(call["status"].toString(), QStringLiteral("done"));
        QCOMPARE(roleOf(messages, 2, MessageListModel::ContentRole).toString(),
                 QStringLiteral("It is 12:00."));
        QCOMPARE(roleOf(messages, 2, MessageListModel::ToolResultRole).toMap()["tool"].toString(),
                 QStringLiteral("get_time"));
        QCOMPARE(roleOf(messages, 3, MessageListModel::AuthorRole).toString(), QStringLiteral("assistant"));
    }

    void denyAndStopAnswerTheCallWithoutRunningIt() {
        // The server exits if it is ever called: neither answer may run the tool.
        writeSettings({scriptedServer("clock", scriptedHandshake() + "read line; exit 4")});
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        ChatController* chat = b.chat();
        QVERIFY(sendWithToolCall(b, "What time is it?"));
        QVERIFY(waitForApproval(chat));
        MessageListModel* messages = chat->messages();
        const QString replyId = roleOf(messages, 1, MessageListModel::IdRole).toString();
        QVERIFY(chat->answerToolCall(replyId, firstCall(messages, 1)["id"].toString(), "deny"));
        QVERIFY(waitUntilIdle(chat));
        QCOMPARE(messages->count(), 4); // the reply went on without the result
        QCOMPARE(firstCall(messages, 1)["status"].toString(), QStringLiteral("denied"));
        QCOMPARE(roleOf(messages, 2, MessageListModel::ContentRole).toString(),
                 QStringLiteral("The user did not allow this call."));
        QVERIFY(roleOf(messages, 2, MessageListModel::ToolResultRole).toMap()["isError"].toBool());

        QVERIFY(sendWithToolCall(b, "And now?"));
        QVERIFY(waitForApproval(chat));
        chat->stop();
        QVERIFY(waitUntilIdle(chat));
        QCOMPARE(messages->count(), 7); // no reply after a stopped call
        QCOMPARE(roleOf(messages, 6, MessageListModel::ContentRole).toString(),
                 QStringLiteral("Stopped by the user."));
        QCOMPARE(firstCall(messages, 5)["status"].toString(), QStringLiteral("failed"));
        QCOMPARE(b.mcpServers()->client("clock")->state(), McpClient::State::Ready); // never called
        QVERIFY(chat->canSend());
    }

    void alwaysAllowRunsTheToolWithoutAsking() {
        writeSettings({scriptedServer("clock", scriptedHandshake() + kClockAnswers)});
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        ChatController* chat = b.chat();
        QVERIFY(sendWithToolCall(b, "What time is it?"));
        QVERIFY(waitForApproval(chat));
        MessageListModel* messages = chat->messages();
        QVERIFY(chat->answerToolCall(roleOf(messages, 1, MessageListModel::IdRole).toString(),
                                     firstCall(messages, 1)["id"].toString(), "always"));
        QVERIFY(waitUntilIdle(chat));
        QCOMPARE(b.settings()->alwaysAllowedTools(), QStringList{"clock/get_time"});

        bool asked = false;
        connect(chat, &ChatController::toolCallsChanged, this,
                [&] { asked = asked || chat->awaitingToolApproval(); });
        QVERIFY(sendWithToolCall(b, "And now?"));
        QVERIFY(QTest::qWaitFor([&] { return messages->count() == 8 && !chat->generating(); }, 60000));
        QVERIFY(!asked);
        QCOMPARE(firstCall(messages, 5)["status"].toString(), QStringLiteral("done"));
        QCOMPARE(roleOf(messages, 6, MessageListModel::ContentRole).toString(),
                 QStringLiteral("It is 12:00."));
    }

    void aServerThatDiesInACallIsNamedAndTheChatGoesOn() {
        writeSettings({scriptedServer("clock", scriptedHandshake() +
                                                   "read line; echo 'out of batteries' >&2; exit 9")});
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        ChatController* chat = b.chat();
        QVERIFY(sendWithToolCall(b, "What time is it?"));
        QVERIFY(waitForApproval(chat));
        MessageListModel* messages = chat->messages();
        QVERIFY(chat->answerToolCall(roleOf(messages, 1, MessageListModel::IdRole).toString(),
                                     firstCall(messages, 1)["id"].toString(), "once"));
        QVERIFY(waitUntilIdle(chat));
        QCOMPARE(messages->count(), 4);
        const QString result = roleOf(messages, 2, MessageListModel::ContentRole).toString();
        QVERIFY2(result.contains(QStringLiteral("MCP server \u201cclock\u201d")), qPrintable(result));
        QVERIFY2(result.contains(QStringLiteral("code 9")) && result.contains("out of batteries"),
                 qPrintable(result));
        QCOMPARE(firstCall(messages, 1)["status"].toString(), QStringLiteral("failed"));
        QCOMPARE(roleOf(messages, 3, MessageListModel::StateRole).toString(), QStringLiteral("complete"));
        // The conversation goes on: the next message is answered (the server started again).
        QVERIFY(chat->send("Thanks"));
        QVERIFY(finishReply(chat));
        QCOMPARE(messages->count(), 6);
        QCOMPARE(roleOf(messages, 0, MessageListModel::ContentRole).toString(),
                 QStringLiteral("What time is it?"));
    }

    void aServerThatCannotStartIsNamedAndTheReplyGoesOn() {
        McpServerConfig ghost;
        ghost.name = "ghost";
        ghost.command = "/nonexistent/mcp-ghost";
        writeSettings({ghost});
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        ChatController* chat = b.chat();
        QSignalSpy requests(chat, &ChatController::generateRequested);
        QVERIFY(chat->send("Hello"));
        QVERIFY(finishReply(chat));
        QVERIFY(waitUntilIdle(chat));
        QVERIFY2(chat->errorMessage().contains(QStringLiteral("\u201cghost\u201d")),
                 qPrintable(chat->errorMessage()));
        QCOMPARE(chat->messages()->count(), 2);
        QCOMPARE(roleOf(chat->messages(), 1, MessageListModel::StateRole).toString(),
                 QStringLiteral("complete"));
        QCOMPARE(requests.size(), 1);
        QVERIFY(requests.first().first().value<GenerationRequest>().toolsJson.isEmpty());
    }

#ifdef HEARTH_MCP_SERVERS_DIR
    void theEverythingServersEchoRunsThroughTheChat() {
        writeSettings({hearth::test::everythingServer()});
        HearthBackend b(paths());
        QVERIFY(startChat(b));
        QVERIFY(loadModel(b));
        McpServerRegistry* servers = b.mcpServers();
        servers->startServer(0);
        QVERIFY(QTest::qWaitFor(
            [&] { return servers->client("everything")->state() == McpClient::State::Ready; }, 30000));
        // Only echo: the reference server's many tools would not fit stories260K's context.
        for (const McpTool& tool : servers->client("everything")->tools())
            if (tool.name != QLatin1String("echo")) servers->setToolEnabled(0, tool.name, false);
        const QVariantList tools = servers->data(servers->index(0), McpServerRegistry::ToolsRole).toList();
        QVERIFY(tools.size() > 1);

        // The message is free text: the reply may take what the context leaves for the call.
        b.settings()->setMaxReplyTokens(0);
        ChatController* chat = b.chat();
        QVERIFY(sendWithToolCall(b, "Say hello"));
        QVERIFY(waitForApproval(chat));
        MessageListModel* messages = chat->messages();
        QCOMPARE(firstCall(messages, 1)["tool"].toString(), QStringLiteral("echo"));
        const QJsonObject arguments =
            QJsonDocument::fromJson(firstCall(messages, 1)["arguments"].toString().toUtf8()).object();
        QVERIFY(arguments["message"].isString());
        QVERIFY(chat->answerToolCall(roleOf(messages, 1, MessageListModel::IdRole).toString(),
                                     firstCall(messages, 1)["id"].toString(), "once"));
        QVERIFY(waitUntilIdle(chat));
        QCOMPARE(messages->count(), 4);
        QCOMPARE(roleOf(messages, 2, MessageListModel::ContentRole).toString(),
                 QStringLiteral("Echo: ") + arguments["message"].toString());
    }
#endif
};

QTEST_MAIN(TestMcpChat)
#include "test_mcp_chat.moc"
