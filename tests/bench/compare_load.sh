#!/usr/bin/env bash
# Load and first token, Hearth against llama.cpp, interleaved: each round runs
# `hearth-cli generate` and then `llama-completion` on the same model with the same arguments
# (prompt "Hello", one token), after a first unmeasured run of each that warms the page cache
# and writes Hearth's cached copy of the repacked weights, so the rounds time later loads. The
# table gives each side's median and fastest wall time, its median CPU time (user + system: on
# a shared machine the wall time also counts the other processes) and its peak resident set.
#   tests/bench/compare_load.sh LLAMA_COMPLETION ROUNDS MODEL [CONTEXT [THREADS]]
# e.g. tests/bench/compare_load.sh ~/llama.cpp/build/bin/llama-completion 5 llama-1b-q4km.gguf
# HEARTH_CLI overrides the hearth-cli binary; LOAD_HEARTH_ENV adds environment settings to
# Hearth's runs alone (e.g. "HEARTH_REPACK_CACHE=0" to time loads that make the copy in memory).
set -euo pipefail
llama_completion=$1
rounds=$2
model=$3
context=${4:-4096}
threads=${5:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
hearth_cli=${HEARTH_CLI:-$root/build/bin/hearth-cli}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# shellcheck disable=SC2206
hearth=(env ${LOAD_HEARTH_ENV:-} "$hearth_cli" generate -m "$model" -p Hello -n 1 -c "$context" -t "$threads")
llama=("$llama_completion" -m "$model" -p Hello -n 1 -c "$context" -t "$threads" -no-cnv)
# One run: "wall_s cpu_s rss_kib".
timed() {
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" >/dev/null 2>&1 </dev/null
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/time"
}

"${hearth[@]}" >/dev/null 2>&1 </dev/null
"${llama[@]}" >/dev/null 2>&1 </dev/null
for round in $(seq 1 "$rounds"); do
    timed "${hearth[@]}" >>"$out/hearth"
    timed "${llama[@]}" >>"$out/llama"
    echo "round $round: hearth $(tail -1 "$out/hearth"), llama.cpp $(tail -1 "$out/llama")" >&2
done

# The median of column $2 of file $1.
median() {
    sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
        END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# "median_wall min_wall median_cpu max_rss" of one side's runs.
summary() {
    echo "$(median "$1" 1) $(sort -g -k1,1 "$1" | head -1 | cut -d' ' -f1) $(median "$1" 2) \
$(sort -g -k3,3 "$1" | tail -1 | cut -d' ' -f3)"
}
read -r hw hmin hc hrss <<<"$(summary "$out/hearth")"
read -r lw lmin lc lrss <<<"$(summary "$out/llama")"
echo "| side | median wall s | fastest wall s | median CPU s | peak RSS KiB |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| Hearth | $hw | $hmin | $hc | $hrss |"
echo "| llama.cpp | $lw | $lmin | $lc | $lrss |"
awk -v hw="$hw" -v lw="$lw" -v hmin="$hmin" -v lmin="$lmin" -v hc="$hc" -v lc="$lc" 'BEGIN {
    printf "Hearth / llama.cpp: median wall %.2f, fastest wall %.2f, median CPU %.2f\n", hw / lw, hmin / lmin, hc / lc }'
