#pragma once
// MCP servers that misbehave on purpose, as /bin/sh scripts: each answers the client's requests in
// the order the client sends them (initialize is id 1, tools/list id 2, the first tools/call id 3)
// and then fails in one way: exits, hangs, refuses, or writes something that is not JSON-RPC.
#include "app/tools/mcp_server_config.h"
#include <QString>

namespace hearth::test {

// initialize's answer and tools/list's, offering one tool `name` with one string argument "zone"
// that takes "UTC" or "CET" (short enough for a forced call of a tiny model).
inline QString scriptedHandshake(const QString& tool = QStringLiteral("get_time")) {
    return QStringLiteral(
               "read line; echo "
               "'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\","
               "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}'; "
               "read line; read line; echo "
               "'{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"%1\","
               "\"description\":\"The time\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"zone\":"
               "{\"type\":\"string\",\"enum\":[\"UTC\",\"CET\"]}},\"required\":[\"zone\"]}}]}}'; ")
        .arg(tool);
}

inline app::McpServerConfig scriptedServer(const QString& name, const QString& script) {
    app::McpServerConfig config;
    config.name = name;
    config.command = QStringLiteral("/bin/sh");
    config.arguments = {QStringLiteral("-c"), script};
    return config;
}

} // namespace hearth::test
