#pragma once
// One MCP server as the settings keep it: how to start it (command, arguments, environment),
// whether it is on, and which of its tools the user turned off. Kept as JSON text in the
// settings file, a list of these.
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace hearth::app {

struct McpServerConfig {
    QString name;    // what the chat and the settings call it; unique in the list
    QString command; // the program, found on PATH when it has no folder
    QStringList arguments;
    QMap<QString, QString> environment; // added to the app's own environment
    bool enabled = true;
    QStringList disabledTools; // by the server's tool names
    bool operator==(const McpServerConfig&) const = default;
};

// The list as the settings store it, and back; entries without a name or command are left out.
QString mcpServersToJson(const QList<McpServerConfig>& servers);
QList<McpServerConfig> mcpServersFromJson(const QString& json);

// Arguments typed on one line: split at spaces, with "double" or 'single' quotes keeping spaces.
QStringList splitArguments(const QString& text);
QString joinArguments(const QStringList& arguments);
// Environment typed as NAME=value lines; lines without a name and "=" are left out.
QMap<QString, QString> parseEnvironment(const QString& text);
QString environmentText(const QMap<QString, QString>& environment);

} // namespace hearth::app
