#!/usr/bin/env bash
# Installs Hearth's build dependencies from Debian 12, builds, and then either
# starts the app (run) or runs every test suite (test).
#   bash packaging/bootstrap.sh run|test
set -euo pipefail
mode=${1:-run}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
mapfile -t packages < <(grep -v '^\s*#' packaging/debian-deps.txt | grep -v '^\s*$')
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
extra=()
if [ "$mode" = test ] && command -v npm >/dev/null; then
    # The local API server's tests drive it with the official openai client from npm.
    openai_dir="$root/build/openai-node"
    if [ -f "$openai_dir/node_modules/openai/package.json" ] ||
        npm install --prefix "$openai_dir" --no-audit --no-fund --silent openai@6; then
        extra+=("-DHEARTH_OPENAI_NODE_DIR=$openai_dir")
    else
        echo "npm could not install the openai client: test_openai_client is left out" >&2
    fi
    # The MCP tests run the reference MCP servers from npm (pinned: the tests call their tools by name).
    mcp_dir="$root/build/mcp-servers"
    mcp_packages="$mcp_dir/node_modules/@modelcontextprotocol"
    if [ -f "$mcp_packages/server-filesystem/package.json" ] && [ -f "$mcp_packages/server-everything/package.json" ] ||
        npm install --prefix "$mcp_dir" --no-audit --no-fund --silent \
            @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/server-everything@2026.8.31; then
        extra+=("-DHEARTH_MCP_SERVERS_DIR=$mcp_dir")
    else
        echo "npm could not install the MCP servers: test_mcp_servers and test_mcp_chat's run of them are left out" >&2
    fi
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}"
cmake --build build -j "$jobs"

case "$mode" in
run)
    exec build/bin/hearth
    ;;
test)
    # No display or Xvfb needed: tests/CMakeLists.txt runs every suite with
    # QT_QPA_PLATFORM=offscreen, and the end-to-end test's hearth process inherits it.
    # Which kernel tiers this CPU runs, and so which the suites test (the others are skipped).
    build/tests-bin/test_kernel_dispatch every_available_table_is_complete 2>&1 | grep -o 'tier .*' || true
    ctest --test-dir build --output-on-failure -j "$jobs"
    ;;
*)
    echo "usage: bash packaging/bootstrap.sh run|test" >&2
    exit 2
    ;;
esac
