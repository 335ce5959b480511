#!/usr/bin/env bash
# Image encoding, Hearth against llama.cpp's mtmd, interleaved on the same files: `hearth-cli
# image-embed --timing` and `llama-mtmd-cli` (its "mtmd batch encoding done in" time), 2 threads
# each, ROUNDS times; each line gives both encode times and the CPU seconds of both processes.
#   compare_image_encode.sh ROUNDS MMPROJ TEXT_MODEL IMAGE
# MMPROJ: e.g. `hearth-cli synth --mmproj-shape gemma3 --type f16 -o mmproj-gemma3-f16.gguf`;
# TEXT_MODEL (llama.cpp needs one): `hearth-cli synth --shape gemma-3-4b --layers 1 --type Q4_0
# --vocab ../shared/testdata/vocab/ggml-vocab-llama-spm.gguf -o gemma3-text-1l-q4_0.gguf`.
# HEARTH_CLI and LLAMA_MTMD_CLI name the binaries (defaults: build/bin/hearth-cli, llama-mtmd-cli).
# LLAMA_ARGS adds to llama.cpp's arguments: "-fa off" where its flash attention is the slower
# (on a Zen 5 EPYC it took 16.5 s for a 2-block tower, against 5.5 s without).
set -euo pipefail
if [ $# -ne 4 ]; then
    echo "usage: $0 ROUNDS MMPROJ TEXT_MODEL IMAGE" >&2
    exit 2
fi
rounds=$1 mmproj=$2 model=$3 image=$4
hearth=${HEARTH_CLI:-build/bin/hearth-cli}
llama=${LLAMA_MTMD_CLI:-llama-mtmd-cli}
for round in $(seq "$rounds"); do
    hearth_out=$({ /usr/bin/time -f "cpu %U" "$hearth" image-embed --mmproj "$mmproj" --image "$image" -t 2 \
        --timing >/dev/null; } 2>&1)
    hearth_s=$(sed -nE 's/.* in ([0-9.]+) s on .*/\1/p' <<<"$hearth_out")
    hearth_cpu=$(sed -nE 's/^cpu ([0-9.]+)$/\1/p' <<<"$hearth_out")
    llama_out=$({ /usr/bin/time -f "cpu %U" "$llama" -m "$model" --mmproj "$mmproj" --image "$image" -p x -n 1 \
        -t 2 --chat-template gemma ${LLAMA_ARGS:-} >/dev/null; } 2>&1)
    llama_ms=$(sed -nE 's/.*encoding done in ([0-9]+) ms.*/\1/p' <<<"$llama_out")
    llama_cpu=$(sed -nE 's/^cpu ([0-9.]+)$/\1/p' <<<"$llama_out")
    echo "round $round: hearth ${hearth_s} s (${hearth_cpu} CPU-s)  llama.cpp $(awk "BEGIN{print $llama_ms/1000}") s (${llama_cpu} CPU-s, whole run)  load $(cut -d' ' -f1 /proc/loadavg)"
done
