#pragma once
// The reference MCP servers npm installed (packaging/bootstrap.sh's test mode: into
// build/mcp-servers, passed to CMake as HEARTH_MCP_SERVERS_DIR), run with Node.
#include "app/tools/mcp_server_config.h"
#include <QString>

namespace hearth::test {

inline app::McpServerConfig npmServer(const QString& name, const QString& package,
                                      const QStringList& arguments = {}) {
    app::McpServerConfig config;
    config.name = name;
    config.command = QStringLiteral(HEARTH_NODE);
    config.arguments =
        QStringList{QStringLiteral(HEARTH_MCP_SERVERS_DIR "/node_modules/@modelcontextprotocol/") + package +
                    QStringLiteral("/dist/index.js")} +
        arguments;
    return config;
}

inline app::McpServerConfig everythingServer() {
    return npmServer(QStringLiteral("everything"), QStringLiteral("server-everything"));
}

inline app::McpServerConfig filesystemServer(const QString& folder) {
    return npmServer(QStringLiteral("files"), QStringLiteral("server-filesystem"), {folder});
}

} // namespace hearth::test
