#!/usr/bin/env bash
# CI, after the README's test command (.ci/run): the whole test suite under ASan + UBSan, the
# threaded tests under TSan, and a short run of every fuzz target (its crash inputs are
# replayed by ctest in every build). Prints each step's minutes.
#   bash tests/sanitizers/run_ci.sh            (HEARTH_FUZZ_SECONDS: per target, default 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
jobs=$(nproc)
fuzz_seconds=${HEARTH_FUZZ_SECONDS:-30}

timings=()
step() {
    local name=$1
    shift
    echo "== $name ($(date -u +%T))"
    local start=$SECONDS
    "$@"
    timings+=("$(awk -v n="$name" -v s=$((SECONDS - start)) 'BEGIN { printf "%-28s %5.1f min", n, s / 60 }')")
}
report() {
    echo "== minutes per step"
    printf '%s\n' "${timings[@]}"
}
trap report EXIT

step "asan: configure" cmake --preset asan
step "asan: build" cmake --build --preset asan -j "$jobs"
step "asan: every test" ctest --preset asan -j "$jobs"

step "tsan: configure" cmake --preset tsan
step "tsan: build" cmake --build --preset tsan -j "$jobs"
step "tsan: threaded tests" ctest --preset tsan -j "$jobs"

step "fuzz: configure" cmake --preset fuzz
step "fuzz: build" cmake --build --preset fuzz -j "$jobs"
for target in gguf_reader model_load tokenizer chat_template kv_state markdown; do
    step "fuzz: $target ${fuzz_seconds}s" tests/fuzz/run.sh "$target" "$fuzz_seconds"
done
