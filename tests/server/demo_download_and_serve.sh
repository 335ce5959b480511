#!/usr/bin/env bash
# Not a test: a demonstration of downloading and serving, end to end on loopback.
#  1. the download tests' HTTP server (demo_file_server) serves a model slowly;
#  2. `hearth-cli download` is killed mid-file (a pause: NAME.part stays), then run
#     again: it resumes with a Range request and verifies the SHA-256;
#  3. `hearth-cli serve` loads the downloaded file and the official `openai` npm
#     client (openai_client_demo.mjs) streams a reply, prints the time to first token,
#     and sends a second request extending the first, with the prefix reused.
#
#   OPENAI_DEMO_DIR=/tmp/openai-demo tests/server/demo_download_and_serve.sh BUILD_DIR [MODEL.gguf]
# OPENAI_DEMO_DIR holds node_modules/openai (npm install openai).
set -euo pipefail

build=$(realpath "${1:?usage: demo_download_and_serve.sh BUILD_DIR [MODEL.gguf]}")
source_dir=$(realpath "$(dirname "$0")/../..")
model=$(realpath "${2:-$source_dir/resources/models/stories260K.gguf}")
: "${OPENAI_DEMO_DIR:?set OPENAI_DEMO_DIR to a folder with node_modules/openai}"
cli="$build/bin/hearth-cli"
work=$(mktemp -d)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

name=$(basename "$model")
bytes=$(stat -c %s "$model")
sha=$(sha256sum "$model" | cut -d' ' -f1)
part="$work/models/$name.part"

echo "== 1. loopback file server: $name, $bytes bytes, 16 KB every 20 ms"
"$build/tests-bin/demo_file_server" "$model" --chunk-bytes 16384 --interval-ms 20 \
    >"$work/url" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url=$(head -n 1 "$work/url")
echo "   $url"

echo "== 2. hearth-cli download, stopped mid-file"
"$cli" download "$url" --sha256 "$sha" -o "$work/models" 2>"$work/first.log" &
download_pid=$!
until [ -f "$part" ] && [ "$(stat -c %s "$part")" -ge $((bytes * 2 / 5)) ]; do sleep 0.02; done
kill -TERM "$download_pid"
wait "$download_pid" || echo "   hearth-cli download ended with status $? (killed)"
echo "   kept $(stat -c %s "$part") of $bytes bytes in $name.part"

echo "== 3. hearth-cli download again: resumes"
set +e
"$cli" download "$url" --sha256 "$sha" -o "$work/models" 2>&1 | sed 's/^/   /'
status=${PIPESTATUS[0]}
set -e
echo "   exit status $status"
sleep 0.1
sed 's/^/   /' "$work/server.log"
cmp "$model" "$work/models/$name" && echo "   the downloaded file is byte for byte the served one"
[ ! -e "$part" ] && echo "   no $name.part left"

echo "== 4. hearth-cli serve -m the downloaded file, with the openai npm client"
node "$source_dir/tests/server/openai_client_demo.mjs" "$cli" "$work/models/$name" | sed 's/^/   /'
