#pragma once
// The MCP servers of the settings, as the settings page lists them (one row a server: how it
// starts, on or off, its state and its tools, each of which can be turned off), and as the chat
// uses them: servers start when a reply first needs their tools, their enabled tools go to the
// model as OpenAI-style function tools, and a call the model makes is routed to its server.
// Every server stops when the registry goes (the app quits).
#include "app/tools/mcp_client.h"
#include <QAbstractListModel>
#include <QJsonArray>
#include <QtQml/qqmlregistration.h>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace hearth::app {

class AppSettings;

// Which server and tool a function name the model was given stands for.
struct McpToolRoute {
    QString server;
    QString tool;
};

class McpServerRegistry : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        NameRole = Qt::UserRole + 1, // QString
        CommandRole,                 // QString: the program
        ArgumentsRole,               // QString: the arguments on one line, quoted where needed
        EnvironmentRole,             // QString: NAME=value lines
        EnabledRole,                 // bool
        StatusRole,                  // QString: "stopped", "starting", "ready" or "failed"
        ErrorRole,                   // QString: why it failed; empty otherwise
        ToolsRole, // QVariantList of {name, description, enabled}: known once the server ran
    };
    Q_ENUM(Role)

    explicit McpServerRegistry(AppSettings* settings, QObject* parent = nullptr);
    ~McpServerRegistry() override; // stops every server

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(servers_.size()); }

    // The settings page's edits, saved at once. Add and update return an empty string, or why
    // not (no name or command, a name taken).
    Q_INVOKABLE QString addServer(const QString& name, const QString& command, const QString& arguments,
                                  const QString& environment);
    Q_INVOKABLE QString updateServer(int row, const QString& name, const QString& command,
                                     const QString& arguments, const QString& environment);
    Q_INVOKABLE void removeServer(int row);
    Q_INVOKABLE void setServerEnabled(int row, bool enabled);
    Q_INVOKABLE void setToolEnabled(int row, const QString& tool, bool enabled);
    // Starts the server (if it is not running) to list its tools.
    Q_INVOKABLE void startServer(int row);

    // Whether any server is on: replies then offer their tools.
    [[nodiscard]] bool anyEnabled() const;
    // Starts every enabled server not running yet; `done` gets the messages of those that could
    // not start (each names its server), once all are ready or failed.
    void prepare(std::function<void(const QStringList& errors)> done);
    // The enabled tools of the running, enabled servers, as OpenAI's "tools" array; the names are
    // the tools' own, made unique across servers. Remembers each name's route.
    [[nodiscard]] QJsonArray toolsForModel();
    [[nodiscard]] std::optional<McpToolRoute> route(const QString& functionName) const;
    // Calls the tool on its server (started again first if it stopped), within the settings'
    // timeout; `done` is called exactly once.
    void callTool(const McpToolRoute& route, const QJsonObject& arguments,
                  std::function<void(const McpCallResult&)> done);
    [[nodiscard]] bool alwaysAllowed(const McpToolRoute& route) const;
    void allowAlways(const McpToolRoute& route);
    [[nodiscard]] int timeoutMs() const;
    // The client of a server by name (null when there is none); for tests and the chat.
    [[nodiscard]] McpClient* client(const QString& server) const;

signals:
    void countChanged();

private:
    struct Server {
        McpServerConfig config;
        std::unique_ptr<McpClient> client;
    };
    void save();
    void makeClient(Server& server);
    void rowChanged(int row);
    [[nodiscard]] int rowOf(const McpClient* client) const;
    [[nodiscard]] QString configError(const McpServerConfig& config, int exceptRow) const;

    AppSettings* settings_;
    std::vector<Server> servers_;
    QHash<QString, McpToolRoute> routes_; // by the function name the model was given
};

} // namespace hearth::app
