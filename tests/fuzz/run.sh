#!/usr/bin/env bash
# Builds the fuzz targets if needed (clang, preset "fuzz", build-fuzz/) and fuzzes one target
# for SECONDS:
#   tests/fuzz/run.sh TARGET SECONDS
#   tests/fuzz/run.sh --list
# TARGET: gguf_reader model_load tokenizer chat_template kv_state markdown http_request openai_request gbnf
#         conversation_import image_decode mmproj_reader
# The corpus grows in build-fuzz/corpus/TARGET, seeded once from ../shared/testdata
# (fuzz_seeds) and the committed seeds/ and regressions/. A crash, leak, timeout or
# out-of-memory input is copied to tests/fuzz/regressions/TARGET/, where ctest replays it in
# every build, and the script fails. Each run's executions and seconds are appended to
# build-fuzz/fuzz-runs.tsv.
set -euo pipefail
targets="gguf_reader model_load tokenizer chat_template kv_state markdown http_request openai_request gbnf conversation_import image_decode mmproj_reader"
# --list: the targets, one a line (tests/sanitizers/run_ci.sh fuzzes each of them).
if [ "${1:-}" = --list ]; then
    printf '%s\n' $targets
    exit 0
fi
if [ $# -ne 2 ] || ! [[ " $targets " == *" $1 "* ]] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: tests/fuzz/run.sh TARGET SECONDS   (TARGET: $targets)" >&2
    exit 2
fi
target=$1 seconds=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/fuzz
build=$root/build-fuzz
cd "$root"

[ -f "$build/build.ninja" ] || cmake --preset fuzz >/dev/null
cmake --build "$build" --target "fuzz_$target" fuzz_seeds -- -j "$(nproc)" >/dev/null

seeds=$build/seeds
[ -d "$seeds/$target" ] || "$build/fuzz/fuzz_seeds" "$seeds" >/dev/null
corpus=$build/corpus/$target artifacts=$build/artifacts/$target
mkdir -p "$corpus" "$artifacts" "$here/regressions/$target"

# Per target: the longest input worth mutating, and how long one input may take.
case $target in
gguf_reader | model_load | mmproj_reader) max_len=1048576 timeout=20 ;;
image_decode) max_len=262144 timeout=20 ;;
tokenizer | markdown | http_request | openai_request | gbnf) max_len=16384 timeout=10 ;;
chat_template) max_len=32768 timeout=20 ;;
kv_state | conversation_import) max_len=65536 timeout=10 ;;
esac

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log=$artifacts/last-run.log
# libFuzzer stops at a corpus folder that does not exist: gguf_reader and model_load have no
# committed seeds/ (their seeds are made from ../shared/testdata), and git keeps no empty folder.
inputs=("$corpus")
for d in "$seeds/$target" "$here/seeds/$target" "$here/regressions/$target"; do
    [ -d "$d" ] && inputs+=("$d")
done
set +e
"$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=$max_len -timeout=$timeout \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "${inputs[@]}" 2>&1 | tee "$log" |
    grep -E "^(#[0-9]+.*(INITED|DONE)|Done |==[0-9]+==ERROR|SUMMARY|fuzz invariant)"
status=${PIPESTATUS[0]}
set -e

runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
took=$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 | grep -oE '[0-9]+ second' | grep -oE '[0-9]+' || echo "$seconds")
printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$runs" "$took" "$status" >>"$build/fuzz-runs.tsv"

found=0
for f in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/slow-unit-*; do
    [ -e "$f" ] || continue
    case $f in */slow-unit-*) rm -f "$f"; continue ;; esac
    cp "$f" "$here/regressions/$target/"
    echo "new regression input: tests/fuzz/regressions/$target/$(basename "$f")" >&2
    rm -f "$f"
    found=1
done
if [ "$status" -ne 0 ] || [ $found -ne 0 ]; then
    echo "fuzz_$target failed (exit $status); the log is $log" >&2
    exit 1
fi
echo "fuzz_$target: $runs inputs in $took s, no failure"
