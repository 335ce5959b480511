#include "app/tools/mcp_server_registry.h"
#include "app/settings/app_settings.h"
#include <QPointer>
#include <QRegularExpression>
#include <QSet>

namespace hearth::app {

namespace {
QString stateName(McpClient::State state) {
    switch (state) {
    case McpClient::State::Stopped:
        return QStringLiteral("stopped");
    case McpClient::State::Starting:
        return QStringLiteral("starting");
    case McpClient::State::Ready:
        return QStringLiteral("ready");
    case McpClient::State::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("stopped");
}

// A function name the templates and the API accept: letters, digits, '_' and '-', at most 64.
QString functionName(const QString& text) {
    static const QRegularExpression other(QStringLiteral("[^A-Za-z0-9_-]"));
    QString name = QString(text).replace(other, QStringLiteral("_")).left(64);
    return name.isEmpty() ? QStringLiteral("tool") : name;
}

QString routeKey(const McpToolRoute& route) {
    return route.server + QLatin1Char('/') + route.tool;
}
} // namespace

McpServerRegistry::McpServerRegistry(AppSettings* settings, QObject* parent)
    : QAbstractListModel(parent), settings_(settings) {
    for (const McpServerConfig& config : mcpServersFromJson(settings->mcpServers())) {
        servers_.push_back(Server{config, nullptr});
        makeClient(servers_.back());
    }
}

McpServerRegistry::~McpServerRegistry() = default; // each client stops its server

void McpServerRegistry::makeClient(Server& server) {
    server.client = std::make_unique<McpClient>(server.config);
    McpClient* client = server.client.get();
    const auto changed = [this, client] { rowChanged(rowOf(client)); };
    connect(client, &McpClient::stateChanged, this, changed);
    connect(client, &McpClient::toolsChanged, this, changed);
}

int McpServerRegistry::rowOf(const McpClient* client) const {
    for (size_t i = 0; i < servers_.size(); ++i)
        if (servers_[i].client.get() == client) return static_cast<int>(i);
    return -1;
}

void McpServerRegistry::rowChanged(int row) {
    if (row < 0 || row >= count()) return;
    emit dataChanged(index(row), index(row));
}

int McpServerRegistry::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant McpServerRegistry::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Server& server = servers_.at(static_cast<size_t>(index.row()));
    const McpServerConfig& c = server.config;
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return c.name;
    case CommandRole:
        return c.command;
    case ArgumentsRole:
        return joinArguments(c.arguments);
    case EnvironmentRole:
        return environmentText(c.environment);
    case EnabledRole:
        return c.enabled;
    case StatusRole:
        return stateName(server.client->state());
    case ErrorRole:
        return server.client->state() == McpClient::State::Failed ? server.client->lastError() : QString();
    case ToolsRole: {
        QVariantList tools;
        for (const McpTool& tool : server.client->tools())
            tools.append(QVariantMap{{"name", tool.name},
                                     {"description", tool.description},
                                     {"enabled", !c.disabledTools.contains(tool.name)}});
        return tools;
    }
    default:
        return {};
    }
}

QHash<int, QByteArray> McpServerRegistry::roleNames() const {
    return {{NameRole, "name"},           {CommandRole, "command"},
            {ArgumentsRole, "arguments"}, {EnvironmentRole, "environment"},
            {EnabledRole, "enabled"},     {StatusRole, "status"},
            {ErrorRole, "error"},         {ToolsRole, "tools"}};
}

void McpServerRegistry::save() {
    QList<McpServerConfig> configs;
    for (const Server& server : servers_)
        configs.append(server.config);
    settings_->setMcpServers(mcpServersToJson(configs));
}

QString McpServerRegistry::configError(const McpServerConfig& config, int exceptRow) const {
    if (config.name.isEmpty()) return tr("Give the server a name.");
    if (config.command.isEmpty()) return tr("Give the command that starts the server.");
    for (size_t i = 0; i < servers_.size(); ++i)
        if (static_cast<int>(i) != exceptRow && servers_[i].config.name == config.name)
            return tr("There is a server named \u201c%1\u201d already.").arg(config.name);
    return {};
}

QString McpServerRegistry::addServer(const QString& name, const QString& command, const QString& arguments,
                                     const QString& environment) {
    McpServerConfig config;
    config.name = name.trimmed();
    config.command = command.trimmed();
    config.arguments = splitArguments(arguments);
    config.environment = parseEnvironment(environment);
    if (const QString error = configError(config, -1); !error.isEmpty()) return error;
    beginInsertRows({}, count(), count());
    servers_.push_back(Server{config, nullptr});
    makeClient(servers_.back());
    endInsertRows();
    emit countChanged();
    save();
    return {};
}

QString McpServerRegistry::updateServer(int row, const QString& name, const QString& command,
                                        const QString& arguments, const QString& environment) {
    if (row < 0 || row >= count()) return tr("There is no such server.");
    Server& server = servers_[static_cast<size_t>(row)];
    McpServerConfig config = server.config;
    config.name = name.trimmed();
    config.command = command.trimmed();
    config.arguments = splitArguments(arguments);
    config.environment = parseEnvironment(environment);
    if (const QString error = configError(config, row); !error.isEmpty()) return error;
    if (config == server.config) return {};
    server.config = config;
    makeClient(server); // the old one stops its server; the new one starts when needed
    rowChanged(row);
    save();
    return {};
}

void McpServerRegistry::removeServer(int row) {
    if (row < 0 || row >= count()) return;
    beginRemoveRows({}, row, row);
    servers_.erase(servers_.begin() + row);
    endRemoveRows();
    emit countChanged();
    save();
}

void McpServerRegistry::setServerEnabled(int row, bool enabled) {
    if (row < 0 || row >= count()) return;
    Server& server = servers_[static_cast<size_t>(row)];
    if (server.config.enabled == enabled) return;
    server.config.enabled = enabled;
    if (!enabled) server.client->stop();
    rowChanged(row);
    save();
}

void McpServerRegistry::setToolEnabled(int row, const QString& tool, bool enabled) {
    if (row < 0 || row >= count()) return;
    QStringList& disabled = servers_[static_cast<size_t>(row)].config.disabledTools;
    if (enabled == !disabled.contains(tool)) return;
    if (enabled)
        disabled.removeAll(tool);
    else
        disabled.append(tool);
    rowChanged(row);
    save();
}

void McpServerRegistry::startServer(int row) {
    if (row < 0 || row >= count()) return;
    servers_[static_cast<size_t>(row)].client->start(timeoutMs());
}

bool McpServerRegistry::anyEnabled() const {
    for (const Server& server : servers_)
        if (server.config.enabled) return true;
    return false;
}

int McpServerRegistry::timeoutMs() const {
    return settings_->toolTimeoutSeconds() * 1000;
}

McpClient* McpServerRegistry::client(const QString& name) const {
    for (const Server& server : servers_)
        if (server.config.name == name) return server.client.get();
    return nullptr;
}

void McpServerRegistry::prepare(std::function<void(const QStringList& errors)> done) {
    // Shared by the servers' answers: the last one to settle calls `done`.
    struct Wait {
        int left = 0;
        QStringList errors;
        std::function<void(const QStringList&)> done;
    };
    auto wait = std::make_shared<Wait>();
    wait->done = std::move(done);
    std::vector<McpClient*> starting;
    for (const Server& server : servers_)
        if (server.config.enabled && server.client->state() != McpClient::State::Ready)
            starting.push_back(server.client.get());
    wait->left = static_cast<int>(starting.size());
    if (starting.empty()) {
        wait->done({});
        return;
    }
    for (McpClient* client : starting) {
        // One answer per client: whichever of ready and failed comes first.
        auto settled = std::make_shared<QMetaObject::Connection[2]>();
        const auto settle = [wait, settled](const QString& error) {
            QObject::disconnect(settled[0]);
            QObject::disconnect(settled[1]);
            if (!error.isEmpty()) wait->errors.append(error);
            if (--wait->left == 0) wait->done(wait->errors);
        };
        settled[0] = connect(client, &McpClient::ready, this, [settle] { settle({}); });
        settled[1] = connect(client, &McpClient::failed, this, [settle](const QString& e) { settle(e); });
        client->start(timeoutMs());
    }
}

QJsonArray McpServerRegistry::toolsForModel() {
    routes_.clear();
    QJsonArray tools;
    QSet<QString> taken;
    for (const Server& server : servers_) {
        if (!server.config.enabled || server.client->state() != McpClient::State::Ready) continue;
        for (const McpTool& tool : server.client->tools()) {
            if (server.config.disabledTools.contains(tool.name)) continue;
            QString name = functionName(tool.name);
            if (taken.contains(name)) name = functionName(server.config.name + QLatin1Char('_') + tool.name);
            for (int n = 2; taken.contains(name); ++n)
                name = functionName(tool.name).left(60) + QString::number(n);
            taken.insert(name);
            routes_.insert(name, McpToolRoute{server.config.name, tool.name});
            QJsonObject parameters = tool.inputSchema;
            parameters.remove(QStringLiteral("$schema")); // words the model need not read
            if (parameters.isEmpty()) parameters = QJsonObject{{"type", "object"}};
            QJsonObject function{{"name", name}, {"parameters", parameters}};
            if (!tool.description.isEmpty()) function.insert("description", tool.description);
            tools.append(QJsonObject{{"type", "function"}, {"function", function}});
        }
    }
    return tools;
}

std::optional<McpToolRoute> McpServerRegistry::route(const QString& functionName) const {
    const auto it = routes_.constFind(functionName);
    if (it == routes_.constEnd()) return std::nullopt;
    return *it;
}

void McpServerRegistry::callTool(const McpToolRoute& route, const QJsonObject& arguments,
                                 std::function<void(const McpCallResult&)> done) {
    McpClient* client = this->client(route.server);
    if (!client) {
        done({tr("MCP server \u201c%1\u201d is no longer in the settings.").arg(route.server), true, true});
        return;
    }
    if (client->state() == McpClient::State::Ready) {
        client->callTool(route.tool, arguments, timeoutMs(), std::move(done));
        return;
    }
    // It stopped since it listed its tools (it crashed, or missed a deadline): started again.
    auto settled = std::make_shared<QMetaObject::Connection[2]>();
    auto once = std::make_shared<std::function<void(const McpCallResult&)>>(std::move(done));
    const QPointer<McpClient> guard(client);
    settled[0] = connect(client, &McpClient::ready, this, [=, this] {
        QObject::disconnect(settled[0]);
        QObject::disconnect(settled[1]);
        if (guard) guard->callTool(route.tool, arguments, timeoutMs(), *once);
    });
    settled[1] = connect(client, &McpClient::failed, this, [=](const QString& error) {
        QObject::disconnect(settled[0]);
        QObject::disconnect(settled[1]);
        (*once)({error, true, true});
    });
    client->start(timeoutMs());
}

bool McpServerRegistry::alwaysAllowed(const McpToolRoute& route) const {
    return settings_->alwaysAllowedTools().contains(routeKey(route));
}

void McpServerRegistry::allowAlways(const McpToolRoute& route) {
    QStringList allowed = settings_->alwaysAllowedTools();
    if (allowed.contains(routeKey(route))) return;
    allowed.append(routeKey(route));
    settings_->setAlwaysAllowedTools(allowed);
}

} // namespace hearth::app
