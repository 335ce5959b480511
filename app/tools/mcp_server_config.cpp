#include "app/tools/mcp_server_config.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace hearth::app {

QString mcpServersToJson(const QList<McpServerConfig>& servers) {
    QJsonArray list;
    for (const McpServerConfig& s : servers) {
        QJsonObject environment;
        for (auto it = s.environment.begin(); it != s.environment.end(); ++it)
            environment.insert(it.key(), it.value());
        list.append(QJsonObject{{"name", s.name},
                                {"command", s.command},
                                {"arguments", QJsonArray::fromStringList(s.arguments)},
                                {"environment", environment},
                                {"enabled", s.enabled},
                                {"disabledTools", QJsonArray::fromStringList(s.disabledTools)}});
    }
    return QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact));
}

namespace {
QStringList strings(const QJsonValue& value) {
    QStringList list;
    for (const QJsonValue& item : value.toArray())
        if (item.isString()) list.append(item.toString());
    return list;
}
} // namespace

QList<McpServerConfig> mcpServersFromJson(const QString& json) {
    QList<McpServerConfig> servers;
    for (const QJsonValue& item : QJsonDocument::fromJson(json.toUtf8()).array()) {
        const QJsonObject o = item.toObject();
        McpServerConfig s;
        s.name = o.value("name").toString().trimmed();
        s.command = o.value("command").toString().trimmed();
        if (s.name.isEmpty() || s.command.isEmpty()) continue;
        s.arguments = strings(o.value("arguments"));
        const QJsonObject environment = o.value("environment").toObject();
        for (auto it = environment.begin(); it != environment.end(); ++it)
            s.environment.insert(it.key(), it.value().toString());
        s.enabled = o.value("enabled").toBool(true);
        s.disabledTools = strings(o.value("disabledTools"));
        servers.append(s);
    }
    return servers;
}

QStringList splitArguments(const QString& text) {
    return QProcess::splitCommand(text);
}

QString joinArguments(const QStringList& arguments) {
    QStringList quoted;
    for (const QString& a : arguments) {
        if (!a.isEmpty() && !a.contains(QLatin1Char(' ')) && !a.contains(QLatin1Char('"')))
            quoted.append(a);
        else
            quoted.append(QLatin1Char('"') + QString(a).replace(QLatin1Char('"'), QStringLiteral("\"\"\"")) +
                          QLatin1Char('"'));
    }
    return quoted.join(QLatin1Char(' '));
}

QMap<QString, QString> parseEnvironment(const QString& text) {
    QMap<QString, QString> environment;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QString entry = line.trimmed();
        const qsizetype equals = entry.indexOf(QLatin1Char('='));
        if (equals <= 0) continue;
        environment.insert(entry.left(equals).trimmed(), entry.mid(equals + 1));
    }
    return environment;
}

QString environmentText(const QMap<QString, QString>& environment) {
    QStringList lines;
    for (auto it = environment.begin(); it != environment.end(); ++it)
        lines.append(it.key() + QLatin1Char('=') + it.value());
    return lines.join(QLatin1Char('\n'));
}

} // namespace hearth::app
