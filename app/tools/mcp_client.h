#pragma once
// One MCP server (Model Context Protocol), run as a child process and spoken to in JSON-RPC 2.0,
// one JSON message a line on its stdin and stdout: initialize, then notifications/initialized,
// tools/list, and tools/call. Every request has a deadline. A server that cannot start, exits,
// writes something that is not JSON-RPC or misses a deadline is stopped, every request waiting on
// it is answered with a message naming the server and what happened, and start() may run it again.
#include "app/tools/mcp_server_config.h"
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QProcess>
#include <functional>

class QTimer;

namespace hearth::app {

struct McpTool {
    QString name;
    QString title; // the server's display name for it; may be empty
    QString description;
    QJsonObject inputSchema; // a JSON Schema of the arguments object
};

// What a tools/call came back with.
struct McpCallResult {
    QString text;         // the result's content as text (images and other parts described)
    bool isError = false; // the tool ran and reported an error, or the call did not complete
    bool failed = false;  // the call did not complete: the server failed, timed out or refused it
};

class McpClient : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Starting, Ready, Failed };
    static constexpr const char* kProtocolVersion = "2025-06-18";

    explicit McpClient(McpServerConfig config, QObject* parent = nullptr);
    ~McpClient() override; // stops the server

    [[nodiscard]] const McpServerConfig& config() const { return config_; }
    [[nodiscard]] State state() const { return state_; }
    [[nodiscard]] QList<McpTool> tools() const { return tools_; }
    [[nodiscard]] QString lastError() const { return lastError_; }
    [[nodiscard]] QString serverName() const { return config_.name; } // as the settings name it
    // The server's process id while it runs; 0 otherwise.
    [[nodiscard]] qint64 processId() const { return process_ ? process_->processId() : 0; }

    // Starts the process and runs initialize and tools/list, each within `timeoutMs`; ends in
    // ready() or failed(). Does nothing while it starts or is ready.
    void start(int timeoutMs);
    // Closes its stdin, then terminates it; requests waiting are answered as failed.
    void stop();
    // Calls a tool; `done` is called exactly once, with the result or why there is none.
    void callTool(const QString& name, const QJsonObject& arguments, int timeoutMs,
                  std::function<void(const McpCallResult&)> done);

signals:
    void ready();
    void failed(const QString& message);
    void toolsChanged();
    void stateChanged();

private:
    // A response's result, or an error message naming the server; exactly one is set.
    using ResponseHandler = std::function<void(const QJsonObject& result, const QString& error)>;
    struct Pending {
        QString method;
        ResponseHandler handler;
        QTimer* deadline = nullptr;
    };
    void request(const QString& method, const QJsonObject& params, int timeoutMs, ResponseHandler handler);
    void send(const QJsonObject& message);
    void listTools(int timeoutMs);
    void readOutput();
    void handleMessage(const QJsonObject& message);
    void answerServerRequest(const QJsonObject& message);
    // Stops the server and answers every waiting request with `message`.
    void fail(const QString& message);
    void setState(State state);
    [[nodiscard]] QString described(const QString& what) const; // "MCP server “name” <what>"
    [[nodiscard]] QString stderrTail() const;

    McpServerConfig config_;
    QProcess* process_ = nullptr;
    State state_ = State::Stopped;
    QList<McpTool> tools_;
    QString lastError_;
    QByteArray buffer_; // stdout not yet ended by a newline
    QByteArray stderr_; // the last few KiB the server wrote to stderr, for error messages
    QHash<qint64, Pending> pending_;
    qint64 nextId_ = 1;
    int timeoutMs_ = 30000; // start()'s, for a tools/list after list_changed
};

// A tools/call result's content as text: text parts as they are, other parts named.
QString mcpResultText(const QJsonObject& result);

} // namespace hearth::app
