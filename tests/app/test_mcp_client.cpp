// The MCP client (app/tools/mcp_client.*) and the registry against servers that misbehave
// (tests/app/mcp/scripted_server.h): a program that is not there, a server that exits, one that
// writes garbage, one that never answers, one that dies or hangs in a call or refuses it. Each
// ends in a message naming the server and what happened, within its deadline, and a server that
// stopped is started again for the next call. The registry starts the enabled servers, names
// those that fail, and offers only enabled tools of running, enabled servers.
#include "app/settings/app_settings.h"
#include "app/tools/mcp_client.h"
#include "app/tools/mcp_server_registry.h"
#include "tests/app/mcp/scripted_server.h"
#include "tests/support/test_support.h"
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace hearth;
using namespace hearth::app;
using hearth::test::scriptedHandshake;
using hearth::test::scriptedServer;

namespace {
// Starts the client and waits for its end: the error message, or empty when it is ready.
QString startAndWait(McpClient& client, int timeoutMs) {
    QSignalSpy ready(&client, &McpClient::ready);
    QSignalSpy failed(&client, &McpClient::failed);
    client.start(timeoutMs);
    if (!QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty(); }, timeoutMs + 5000))
        return QStringLiteral("neither ready nor failed");
    return failed.isEmpty() ? QString() : failed.first().first().toString();
}

std::optional<McpCallResult> callAndWait(McpClient& client, const QString& tool, const QJsonObject& arguments,
                                         int timeoutMs) {
    std::optional<McpCallResult> result;
    int answers = 0;
    client.callTool(tool, arguments, timeoutMs, [&](const McpCallResult& r) {
        result = r;
        ++answers;
    });
    if (!QTest::qWaitFor([&] { return answers > 0; }, timeoutMs + 5000)) return std::nullopt;
    QTest::qWait(50); // a second answer would come now
    if (answers != 1) return std::nullopt;
    return result;
}
} // namespace

class TestMcpClient : public QObject {
    Q_OBJECT

private slots:
    void aProgramThatIsNotThereIsNamed() {
        McpServerConfig config;
        config.name = QStringLiteral("missing");
        config.command = QStringLiteral("/nonexistent/mcp-server");
        McpClient client(config);
        const QString error = startAndWait(client, 5000);
        QVERIFY2(error.contains(QStringLiteral("\u201cmissing\u201d")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("could not be started")), qPrintable(error));
        QCOMPARE(client.state(), McpClient::State::Failed);
    }

    void aServerThatExitsIsNamedWithItsCodeAndLastWords() {
        McpClient client(
            scriptedServer(QStringLiteral("quitter"), QStringLiteral("echo 'no config file' >&2; exit 3")));
        const QString error = startAndWait(client, 5000);
        QVERIFY2(error.contains(QStringLiteral("\u201cquitter\u201d")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("code 3")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("no config file")), qPrintable(error));
    }

    void aServerThatWritesGarbageIsStopped() {
        McpClient client(
            scriptedServer(QStringLiteral("chatty"),
                           QStringLiteral("read line; echo 'Server listening on port 3000'; sleep 30")));
        QElapsedTimer timer;
        timer.start();
        const QString error = startAndWait(client, 20000);
        QVERIFY2(timer.elapsed() < 10000, "it waited for the deadline instead of failing at once");
        QVERIFY2(error.contains(QStringLiteral("\u201cchatty\u201d")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("not a JSON-RPC message")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("Server listening on port 3000")), qPrintable(error));
    }

    void aServerThatNeverAnswersTimesOut() {
        McpClient client(scriptedServer(QStringLiteral("silent"), QStringLiteral("sleep 30")));
        QElapsedTimer timer;
        timer.start();
        const QString error = startAndWait(client, 1000);
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY2(error.contains(QStringLiteral("\u201csilent\u201d")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("did not answer initialize within 1 s")), qPrintable(error));
    }

    void aServerThatDiesInACallIsNamedAndStartsAgain() {
        McpClient client(
            scriptedServer(QStringLiteral("fragile"), scriptedHandshake() + "read line; exit 7"));
        QCOMPARE(startAndWait(client, 5000), QString());
        QCOMPARE(client.tools().size(), 1);
        QCOMPARE(client.tools().first().name, QStringLiteral("get_time"));
        const std::optional<McpCallResult> result =
            callAndWait(client, QStringLiteral("get_time"), {{"zone", "UTC"}}, 5000);
        QVERIFY(result);
        QVERIFY(result->failed && result->isError);
        QVERIFY2(result->text.contains(QStringLiteral("\u201cfragile\u201d")), qPrintable(result->text));
        QVERIFY2(result->text.contains(QStringLiteral("code 7")), qPrintable(result->text));
        QCOMPARE(client.state(), McpClient::State::Failed);
        QCOMPARE(startAndWait(client, 5000), QString()); // started again
        QCOMPARE(client.state(), McpClient::State::Ready);
    }

    void aCallThatHangsTimesOut() {
        McpClient client(scriptedServer(QStringLiteral("slow"), scriptedHandshake() + "sleep 30"));
        QCOMPARE(startAndWait(client, 5000), QString());
        QElapsedTimer timer;
        timer.start();
        const std::optional<McpCallResult> result =
            callAndWait(client, QStringLiteral("get_time"), {{"zone", "UTC"}}, 1000);
        QVERIFY(result);
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(result->failed);
        QVERIFY2(
            result->text.contains(QStringLiteral("\u201cslow\u201d did not answer tools/call within 1 s")),
            qPrintable(result->text));
    }

    void aRefusedCallLeavesTheServerRunning() {
        McpClient client(scriptedServer(
            QStringLiteral("strict"),
            scriptedHandshake() + "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,"
                                  "\"message\":\"Unknown tool: nope\"}}'; sleep 30"));
        QCOMPARE(startAndWait(client, 5000), QString());
        const std::optional<McpCallResult> result = callAndWait(client, QStringLiteral("nope"), {}, 5000);
        QVERIFY(result);
        QVERIFY(result->failed);
        QVERIFY2(
            result->text.contains(QStringLiteral("refused tools/call: Unknown tool: nope (error -32602)")),
            qPrintable(result->text));
        QCOMPARE(client.state(), McpClient::State::Ready);
    }

    void aToolErrorIsAResultNotAFailure() {
        McpClient client(scriptedServer(
            QStringLiteral("honest"),
            scriptedHandshake() +
                "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":"
                "[{\"type\":\"text\",\"text\":\"no such zone\"}],\"isError\":true}}'; sleep 30"));
        QCOMPARE(startAndWait(client, 5000), QString());
        const std::optional<McpCallResult> result =
            callAndWait(client, QStringLiteral("get_time"), {{"zone", "UTC"}}, 5000);
        QVERIFY(result);
        QVERIFY(result->isError && !result->failed);
        QCOMPARE(result->text, QStringLiteral("no such zone"));
    }

    void stoppingAnswersTheCallsWaiting() {
        McpClient client(scriptedServer(QStringLiteral("stopped"), scriptedHandshake() + "sleep 30"));
        QCOMPARE(startAndWait(client, 5000), QString());
        std::optional<McpCallResult> result;
        client.callTool(QStringLiteral("get_time"), {}, 30000, [&](const McpCallResult& r) { result = r; });
        client.stop();
        QVERIFY(result && result->failed);
        QVERIFY2(result->text.contains(QStringLiteral("\u201cstopped\u201d was stopped")),
                 qPrintable(result->text));
        QCOMPARE(client.state(), McpClient::State::Stopped);
    }

    // The app quitting deletes the clients: a server that does not end when its stdin closes is
    // terminated, and none is left running.
    void aServerEndsWithItsClient() {
        qint64 pid = 0;
        {
            McpClient client(
                scriptedServer(QStringLiteral("stubborn"),
                               scriptedHandshake() + "trap '' HUP; while true; do sleep 1; done"));
            QCOMPARE(startAndWait(client, 5000), QString());
            pid = client.processId();
            QVERIFY(pid > 0);
            QVERIFY(QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)));
        }
        QVERIFY(
            QTest::qWaitFor([&] { return !QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)); }, 5000));
    }

    void theRegistryNamesServersThatFailAndOffersEnabledTools() {
        const QString dir = QString::fromStdString(test::make_temp_dir("mcp-registry"));
        AppSettings settings(dir + "/settings.ini", dir);
        settings.setToolTimeoutSeconds(5);
        McpServerConfig off = scriptedServer("off", "exit 6");
        off.enabled = false;
        settings.setMcpServers(mcpServersToJson({scriptedServer("clock", scriptedHandshake() + "sleep 30"),
                                                 scriptedServer("broken", "exit 5"), off}));
        McpServerRegistry registry(&settings);
        QCOMPARE(registry.count(), 3);
        QVERIFY(!registry.addServer("clock", "/bin/true", "", "").isEmpty()); // the name is taken
        QVERIFY(!registry.addServer("", "/bin/true", "", "").isEmpty());
        QCOMPARE(registry.addServer("extra", "/bin/true", "-a \"b c\"", "KEY=value"), QString());
        QCOMPARE(registry.client("extra")->config().arguments, (QStringList{"-a", "b c"}));
        QCOMPARE(registry.client("extra")->config().environment.value("KEY"), QStringLiteral("value"));
        registry.removeServer(3);
        QCOMPARE(registry.count(), 3);

        std::optional<QStringList> errors;
        registry.prepare([&](const QStringList& e) { errors = e; });
        QVERIFY(QTest::qWaitFor([&] { return errors.has_value(); }, 15000));
        QCOMPARE(errors->size(), 1);
        QVERIFY2(errors->first().contains(QStringLiteral("\u201cbroken\u201d")),
                 qPrintable(errors->join('\n')));
        QCOMPARE(registry.client("off")->state(), McpClient::State::Stopped); // never started

        QJsonArray tools = registry.toolsForModel();
        QCOMPARE(tools.size(), 1);
        const QJsonObject function = tools[0].toObject()["function"].toObject();
        QCOMPARE(function["name"].toString(), QStringLiteral("get_time"));
        QVERIFY(function["parameters"].toObject()["properties"].toObject().contains("zone"));
        QCOMPARE(registry.route("get_time")->server, QStringLiteral("clock"));
        QCOMPARE(registry.data(registry.index(0), McpServerRegistry::StatusRole).toString(),
                 QStringLiteral("ready"));
        QCOMPARE(registry.data(registry.index(0), McpServerRegistry::ToolsRole).toList().size(), 1);
        QVERIFY(registry.data(registry.index(1), McpServerRegistry::ErrorRole).toString().contains("code 5"));

        registry.setToolEnabled(0, "get_time", false);
        QVERIFY(registry.toolsForModel().isEmpty());
        QVERIFY(!registry.route("get_time"));

        // Kept with the settings: a new registry reads the same servers.
        settings.flush();
        AppSettings reread(dir + "/settings.ini", dir);
        McpServerRegistry again(&reread);
        QCOMPARE(again.count(), 3);
        QCOMPARE(again.data(again.index(0), McpServerRegistry::ArgumentsRole).toString(),
                 registry.data(registry.index(0), McpServerRegistry::ArgumentsRole).toString());
        QCOMPARE(again.client("clock")->config().disabledTools, QStringList{"get_time"});
        QCOMPARE(again.data(again.index(2), McpServerRegistry::EnabledRole).toBool(), false);
        QCOMPARE(reread.toolTimeoutSeconds(), 5);
    }

    void theServerConfigsRoundTrip() {
        McpServerConfig config{"fs",  "npx",         {"-y", "a folder/with space"}, {{"TOKEN", "a=b"}},
                               false, {"write_file"}};
        QCOMPARE(mcpServersFromJson(mcpServersToJson({config})), QList<McpServerConfig>{config});
        QCOMPARE(splitArguments(joinArguments(config.arguments)), config.arguments);
        QCOMPARE(parseEnvironment(environmentText(config.environment)), config.environment);
        QCOMPARE(parseEnvironment("A=1\n\n  B = two\nnot a pair"),
                 (QMap<QString, QString>{{"A", "1"}, {"B", " two"}}));
        QVERIFY(mcpServersFromJson("garbage").isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMcpClient)
#include "test_mcp_client.moc"
