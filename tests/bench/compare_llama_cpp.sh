#!/usr/bin/env bash
# Hearth against llama.cpp on the same files, interleaved: each round runs hearth-bench and then
# llama-bench on every model, so that both see the same machine state; the table gives each
# side's median over the rounds. Prints tokens/s (pp = prefill, tg = decode). With -d listing 0
# and deeper contexts, a second table gives what each side keeps at depth: per round, a test's
# t/s at depth over the same test's at depth 0 in the same run, and the median of those ratios
# (paired: a round in which the shared machine was slower throughout does not enter a ratio, as
# it can when the two medians come from different rounds).
#   tests/bench/compare_llama_cpp.sh LLAMA_BENCH ROUNDS "ARGS" MODEL...
# e.g. tests/bench/compare_llama_cpp.sh ~/llama.cpp/build/bin/llama-bench 3 "-t 2 -p 512 -n 128 -r 3" a.gguf b.gguf
# ARGS are passed to both (-t, -p, -n, -r, -d, -ngl are spelled the same); HEARTH_BENCH_ARGS,
# if set, to hearth-bench alone (e.g. "--device vulkan").
set -euo pipefail
llama_bench=$1
rounds=$2
args=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
hearth_bench=${HEARTH_BENCH:-$root/build/bin/hearth-bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# CSV with its quotes taken off and the commas inside quoted fields made semicolons, so that
# awk -F, splits it by column (llama-bench's gpu_info may read "llvmpipe (LLVM 15.0.6, 256 bits)").
unquote_csv() {
    awk '{
        out = ""; quoted = 0
        for (i = 1; i <= length($0); ++i) {
            c = substr($0, i, 1)
            if (c == "\"") { quoted = !quoted; continue }
            if (c == "," && quoted) c = ";"
            out = out c
        }
        print out
    }'
}

for round in $(seq 1 "$rounds"); do
    for model in "$@"; do
        name=$(basename "$model" .gguf)
        # shellcheck disable=SC2086
        "$hearth_bench" -m "$model" $args ${HEARTH_BENCH_ARGS:-} -o csv | tail -n +2 | unquote_csv |
            awk -F, -v m="$name" -v r="$round" '{ print m "," $7 "," $8 "," $9 "," r }' >>"$out/hearth.csv"
        # llama-bench's CSV names its columns in its header: pick n_prompt, n_gen, n_depth, avg_ts.
        # shellcheck disable=SC2086
        "$llama_bench" -m "$model" $args -o csv | unquote_csv | awk -F, -v m="$name" -v r="$round" '
            NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
            {
                test = ($col["n_prompt"] > 0 ? "pp" $col["n_prompt"] : "tg" $col["n_gen"])
                depth = ("n_depth" in col) ? $col["n_depth"] : 0
                print m "," test "," depth "," $col["avg_ts"] "," r
            }' >>"$out/llama.csv"
    done
    echo "round $round done" >&2
done

# Median of each (model, test, depth) per side, then one row each.
median() {
    sort -t, -k1,1 -k2,2 -k3,3n -k4,4g "$1" | awk -F, '
        { key = $1 "," $2 "," $3; v[key, ++n[key]] = $4; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
        END { for (i = 1; i <= k; ++i) { key = order[i]; c = n[key]; m = (c % 2) ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2; print key "," m } }'
}
median "$out/hearth.csv" >"$out/hearth.med"
median "$out/llama.csv" >"$out/llama.med"
echo "| model | test | depth | Hearth t/s | llama.cpp t/s | ratio |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
join -t, -j1 <(awk -F, '{ print $1 ":" $2 ":" $3 "," $4 }' "$out/hearth.med" | sort) \
    <(awk -F, '{ print $1 ":" $2 ":" $3 "," $4 }' "$out/llama.med" | sort) |
    awk -F, '{ split($1, k, ":"); printf "| %s | %s | %s | %.1f | %.1f | %.2f |\n", k[1], k[2], k[3], $2, $3, $2 / $3 }'

# Kept at depth: per round, t/s at depth / t/s at depth 0, then the median over the rounds.
kept() {
    awk -F, '
        $3 == 0 { base[$1 "," $2 "," $5] = $4 }
        { row[NR] = $0 }
        END {
            for (i = 1; i <= NR; ++i) {
                split(row[i], f, ",")
                if (f[3] == 0 || !((f[1] "," f[2] "," f[5]) in base)) continue
                print f[1] "," f[2] "," f[3] "," f[4] / base[f[1] "," f[2] "," f[5]]
            }
        }' "$1" >"$1.kept"
    median "$1.kept"
}
kept "$out/hearth.csv" >"$out/hearth.kept.med"
kept "$out/llama.csv" >"$out/llama.kept.med"
if [ -s "$out/hearth.kept.med" ]; then
    echo
    echo "| model | test | depth | Hearth kept | llama.cpp kept |"
    echo "| --- | --- | ---: | ---: | ---: |"
    join -t, -j1 <(awk -F, '{ print $1 ":" $2 ":" $3 "," $4 }' "$out/hearth.kept.med" | sort) \
        <(awk -F, '{ print $1 ":" $2 ":" $3 "," $4 }' "$out/llama.kept.med" | sort) |
        awk -F, '{ split($1, k, ":"); printf "| %s | %s | %s | %.1f%% | %.1f%% |\n", k[1], k[2], k[3], 100 * $2, 100 * $3 }'
fi
