// The MCP client against real servers from npm (@modelcontextprotocol/server-filesystem and
// server-everything, run with Node): the handshake, tools/list and tools/call. The filesystem
// server lists and reads a temporary folder and refuses a path outside it (a tool error, the
// server still running); everything's echo and get-sum answer; stop() ends the process.
#include "app/tools/mcp_client.h"
#include "tests/app/mcp/npm_servers.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace hearth;
using namespace hearth::app;

namespace {
bool startAndWait(McpClient& client) {
    QSignalSpy ready(&client, &McpClient::ready);
    QSignalSpy failed(&client, &McpClient::failed);
    client.start(30000);
    if (!QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty(); }, 40000)) return false;
    if (!failed.isEmpty()) qWarning() << failed.first().first().toString();
    return !ready.isEmpty();
}

McpCallResult callAndWait(McpClient& client, const QString& tool, const QJsonObject& arguments) {
    std::optional<McpCallResult> result;
    client.callTool(tool, arguments, 30000, [&](const McpCallResult& r) { result = r; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 40000)) return {"no answer", true, true};
    return *result;
}

QStringList toolNames(const McpClient& client) {
    QStringList names;
    for (const McpTool& tool : client.tools())
        names.append(tool.name);
    return names;
}
} // namespace

class TestMcpServers : public QObject {
    Q_OBJECT

private slots:
    void theFilesystemServerListsAndReadsAFolder() {
        const QString dir = QDir(QString::fromStdString(test::make_temp_dir("mcp-files"))).canonicalPath();
        QVERIFY(QDir(dir).mkdir("notes"));
        QFile file(dir + "/hello.txt");
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("Hello from Hearth's test\n");
        file.close();

        McpClient client(test::filesystemServer(dir));
        QVERIFY(startAndWait(client));
        const QStringList names = toolNames(client);
        QVERIFY2(names.contains("list_directory") && names.contains("read_text_file"),
                 qPrintable(names.join(' ')));
        for (const McpTool& tool : client.tools())
            QCOMPARE(tool.inputSchema.value("type").toString(), QStringLiteral("object"));

        const McpCallResult listing = callAndWait(client, "list_directory", {{"path", dir}});
        QVERIFY2(!listing.isError, qPrintable(listing.text));
        QVERIFY2(listing.text.contains("[FILE] hello.txt"), qPrintable(listing.text));
        QVERIFY2(listing.text.contains("[DIR] notes"), qPrintable(listing.text));

        const McpCallResult read = callAndWait(client, "read_text_file", {{"path", dir + "/hello.txt"}});
        QVERIFY2(!read.isError, qPrintable(read.text));
        QCOMPARE(read.text.trimmed(), QStringLiteral("Hello from Hearth's test"));

        // Outside the folder it was given: the tool says no, and the server goes on.
        const McpCallResult outside = callAndWait(client, "read_text_file", {{"path", "/etc/hostname"}});
        QVERIFY2(outside.isError && !outside.failed, qPrintable(outside.text));
        QCOMPARE(client.state(), McpClient::State::Ready);
        QVERIFY(!callAndWait(client, "list_directory", {{"path", dir}}).isError);
    }

    void theEverythingServerEchoesAndAdds() {
        McpClient client(test::everythingServer());
        QVERIFY(startAndWait(client));
        const QStringList names = toolNames(client);
        QVERIFY2(names.contains("echo") && names.contains("get-sum"), qPrintable(names.join(' ')));

        const McpCallResult echo = callAndWait(client, "echo", {{"message", "hello from Hearth"}});
        QVERIFY2(!echo.isError, qPrintable(echo.text));
        QCOMPARE(echo.text, QStringLiteral("Echo: hello from Hearth"));

        const McpCallResult sum = callAndWait(client, "get-sum", {{"a", 2}, {"b", 40}});
        QVERIFY2(!sum.isError, qPrintable(sum.text));
        QVERIFY2(sum.text.contains("42"), qPrintable(sum.text));

        // Arguments the tool's schema refuses: an error the model can read, not a failure.
        const McpCallResult wrong = callAndWait(client, "get-sum", {{"a", "two"}});
        QVERIFY2(wrong.isError, qPrintable(wrong.text));
        QCOMPARE(client.state(), McpClient::State::Ready);

        client.stop();
        QCOMPARE(client.state(), McpClient::State::Stopped);
        QVERIFY(callAndWait(client, "echo", {{"message", "x"}}).failed);
    }
};

QTEST_GUILESS_MAIN(TestMcpServers)
#include "test_mcp_servers.moc"
