#!/usr/bin/env bash
# Predicted against measured speed: `hearth-cli predict` and `hearth-bench` on hearth-cli synth
# files of five shapes (0.5B, 1B, 4B, 8B, and the 30B-A3B mixture of experts, whose tokens
# multiply only their chosen experts), one table row per shape.
#   usage: tests/bench/predict_check.sh [BUILD_DIR] [WORK_DIR] [THREADS] [MOE_LAYERS] [PAIRS]
# PAIRS (default 3): per shape, that many (prediction, measurement) pairs one after the other;
# the row gives the median prediction against the median measurement, and each pair's error
# ("spread"), so that a host that moved between them shows.
# WORK_DIR keeps the synthesized files between runs (about 13 GB). MOE_LAYERS (default 12 of 48)
# cuts the 30B-A3B file to that many layers of its own shape, so that it fits in a small machine's
# memory; its per-token costs scale with the layers, which the prediction reads from the file.
# The 30B-A3B file's weights are drawn at --std 0.0002 rather than synth's 0.02: at 0.02 each random
# layer adds to every row alike many times the token's own embedding, so the router sends a batch
# of 64 rows to some 21 of the 128 experts (all 64 rows to one of them), where a trained router
# spreads them about as evenly as chance does, as the prediction takes it; at 0.0002 the
# embeddings lead and a batch reaches 125 experts in every layer, at most 11 rows to one (chance:
# 126). Of these files only a mixture's speed depends on the weights' values (which experts run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
work=${2:-/tmp/hearth-predict-check}
threads=${3:-2}
moe_layers=${4:-12}
pairs=${5:-3}
vocab=$root/../shared/testdata/vocab
cli=$build/bin/hearth-cli
bench=$build/bin/hearth-bench
mkdir -p "$work"
# The limits are measured again before each shape's run, seconds before it: a shared host's
# bandwidth and clock move by a quarter within minutes, and the check is of the model that turns
# limits into speeds, not of how long the host stays as it was measured.
export XDG_CACHE_HOME=$work/cache

# shape, vocabulary, layers and weight std (-: the shape's own, synth's default)
specs=("qwen2.5-0.5b qwen2 - -" "llama-3.2-1b llama-bpe - -" "gemma-3-4b llama-spm - -"
       "llama-3.1-8b llama-bpe - -" "qwen3-30b-a3b qwen2 $moe_layers 0.0002")

echo "| shape | file MiB | decode predicted | measured | per CPU | error (each pair's) | prefill predicted | measured | per CPU | error (each pair's) | memory MiB |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for spec in "${specs[@]}"; do
    read -r shape vocab_name layers std <<<"$spec"
    suffix=""
    options=()
    [ "$layers" != "-" ] && suffix="-$layers-layers" && options+=(--layers "$layers")
    [ "$std" != "-" ] && suffix="$suffix-std$std" && options+=(--std "$std")
    file=$work/$shape$suffix-Q4_K_M.gguf
    if [ ! -f "$file" ]; then
        "$cli" synth --shape "$shape" --vocab "$vocab/ggml-vocab-$vocab_name.gguf" --type Q4_K_M --pad-vocab \
            "${options[@]}" -o "$file" >&2
    fi
    predictions=() measurements=()
    for ((pair = 0; pair < pairs; ++pair)); do
        predictions+=("$("$cli" predict -m "$file" -t "$threads" --remeasure)")
        measurements+=("$("$bench" -m "$file" -t "$threads" -p 512 -n 16 -b 64 -r 1 -o json)")
    done
    python3 - "$shape$suffix" "$file" "${#predictions[@]}" "${predictions[@]}" "${measurements[@]}" <<'PY'
import json, os, statistics, sys
label, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
predicted = [dict(line.split() for line in text.splitlines()) for text in sys.argv[4:4 + count]]
measured = [{r["test"]: r for r in map(json.loads, text.splitlines())} for text in sys.argv[4 + count:]]
def cells(key, test):
    preds = [float(p[key]) for p in predicted]
    walls = [m[test]["tokens_per_second"] for m in measured]
    cpus = [m[test]["cpu_time_tokens_per_second"] for m in measured]
    pred, cpu = statistics.median(preds), statistics.median(cpus)
    spread = ", ".join(f"{100.0 * (p - c) / c:+.0f}" for p, c in zip(preds, cpus))
    return f"{pred:.1f} | {statistics.median(walls):.1f} | {cpu:.1f} | {100.0 * (pred - cpu) / cpu:+.0f}% ({spread})"
print(f"| {label} | {os.path.getsize(path) / 2**20:.0f} | {cells('decode', 'tg16')} | "
      f"{cells('prefill', 'pp512')} | {predicted[0]['memory']} |")
PY
done
