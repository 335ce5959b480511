#!/usr/bin/env bash
# Hearth's Vulkan backend against llama.cpp's, on the same synthetic files, interleaved
# (compare_llama_cpp.sh), on a machine with a GPU. That machine reaches no network and has no
# Qt, so the work is in two steps:
#
#   tests/bench/gpu_bench.sh prepare DIR LLAMA_CPP_SRC
#       Here (Debian 12, the project's dependencies installed, build/ built): builds llama.cpp's
#       llama-bench with GGML_VULKAN=ON from LLAMA_CPP_SRC (the source in node-llama-cpp's git
#       bundle, the one the CPU comparison uses; its Vulkan build also needs Debian's
#       spirv-headers), and puts into DIR: both benchmarks, hearth-synth-bench (writes the
#       models there), the libraries they need that a bare machine may lack, the vocabularies,
#       and Debian's Vulkan loader and vulkaninfo as .deb files.
#   tests/bench/gpu_bench.sh run DIR [ROUNDS]
#       There (or here, on lavapipe, to try the script): installs the loader if none is found,
#       prints `vulkaninfo --summary`, writes the models (qwen2.5-0.5b Q4_K_M and Q8_0,
#       llama-3.2-1b Q4_K_M, llama-3.1-8b Q4_K_M), and runs both benchmarks on the whole model
#       on the GPU (-ngl 99). Meant to finish in about 8 minutes on the GPU machine; on lavapipe
#       set GPU_BENCH_SMALL=1 (the two small models, short tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: gpu_bench.sh prepare DIR LLAMA_CPP_SRC | run DIR [ROUNDS]}
dir=${2:?a folder}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The shared libraries a binary needs beyond the C library itself, copied beside it.
copy_libraries() {
    local binary=$1
    ldd "$binary" | awk '/=> \// { print $3 }' | while read -r lib; do
        case $(basename "$lib") in
        libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux*) ;;
        libvulkan.so*) ;; # the loader comes as a package: it finds the machine's own drivers
        *) cp -L "$lib" "$dir/lib/" ;;
        esac
    done
}

case $mode in
prepare)
    src=${3:?the llama.cpp source folder}
    mkdir -p "$dir/bin" "$dir/lib" "$dir/vocab" "$dir/debs"
    # llama.cpp's Vulkan shaders of node-llama-cpp 3.22.1 need a glslc with
    # GL_KHR_cooperative_matrix, which Debian 12's (shaderc 2023.2) lacks: then only Hearth's
    # side is prepared, and `run` says so.
    binaries=("$root/build/bin/hearth-bench" "$root/build/bin/hearth-synth-bench")
    if cmake -S "$src" -B "$src/build-vulkan" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_VULKAN=ON \
        -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF \
        -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF &&
        cmake --build "$src/build-vulkan" -j "$(nproc)" --target llama-bench; then
        binaries+=("$src/build-vulkan/bin/llama-bench")
    else
        echo "gpu_bench.sh: llama.cpp's Vulkan build failed (see above): preparing Hearth's side only" >&2
    fi
    cmake --build "$root/build" -j "$(nproc)" --target hearth-bench hearth-synth-bench
    for b in "${binaries[@]}"; do
        cp "$b" "$dir/bin/"
        copy_libraries "$b"
    done
    cp "$root/tests/bench/compare_llama_cpp.sh" "$root/tests/bench/gpu_bench.sh" "$dir/bin/"
    cp "$root/../shared/testdata/vocab/ggml-vocab-qwen2.gguf" "$root/../shared/testdata/vocab/ggml-vocab-llama-bpe.gguf" "$dir/vocab/"
    (cd "$dir/debs" && apt-get download libvulkan1 vulkan-tools)
    du -sh "$dir"
    ;;
run)
    rounds=${3:-2}
    export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if ! ldconfig -p | grep -q 'libvulkan.so.1 '; then
        for f in "$dir"/debs/libvulkan1_*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    vulkaninfo_bin=$(command -v vulkaninfo || true)
    if [ -z "$vulkaninfo_bin" ]; then
        dpkg -x "$dir"/debs/vulkan-tools_*.deb "$dir/vulkan-tools"
        vulkaninfo_bin="$dir/vulkan-tools/usr/bin/vulkaninfo"
    fi
    # NVIDIA's driver on a machine without its ICD file in the loader's search path.
    nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    if [ -f "$nvidia_icd" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then export VK_DRIVER_FILES=$nvidia_icd; fi
    echo "== vulkaninfo --summary"
    "$vulkaninfo_bin" --summary 2>/dev/null | sed -n '/^Devices:/,$p' || echo "vulkaninfo failed: no Vulkan driver here"

    models=$dir/models
    mkdir -p "$models"
    if [ "${GPU_BENCH_SMALL:-0}" = 1 ]; then
        set -- "qwen2.5-0.5b Q4_K_M qwen2" "qwen2.5-0.5b Q8_0 qwen2"
        args="-t 2 -p 64 -n 16 -r 1"
    else
        set -- "qwen2.5-0.5b Q4_K_M qwen2" "qwen2.5-0.5b Q8_0 qwen2" "llama-3.2-1b Q4_K_M llama-bpe" \
            "llama-3.1-8b Q4_K_M llama-bpe"
        args="-p 512 -n 128 -r 3"
    fi
    files=()
    for spec in "$@"; do
        read -r shape type vocab <<<"$spec"
        file=$models/$shape-$type.gguf
        [ -f "$file" ] || "$dir/bin/hearth-synth-bench" "$shape" "$type" "$dir/vocab/ggml-vocab-$vocab.gguf" "$file"
        files+=("$file")
    done
    if [ -x "$dir/bin/llama-bench" ]; then
        echo "== Hearth (--device vulkan) against llama.cpp (Vulkan), whole model on the GPU: $args -ngl 99"
        HEARTH_BENCH="$dir/bin/hearth-bench" HEARTH_BENCH_ARGS="--device vulkan" \
            "$dir/bin/compare_llama_cpp.sh" "$dir/bin/llama-bench" "$rounds" "$args -ngl 99" "${files[@]}"
    else
        echo "== Hearth alone (--device vulkan), whole model on the GPU: no llama-bench was prepared"
        for file in "${files[@]}"; do
            # shellcheck disable=SC2086
            "$dir/bin/hearth-bench" -m "$file" $args -ngl 99 --device vulkan
        done
    fi
    ;;
*)
    echo "usage: gpu_bench.sh prepare DIR LLAMA_CPP_SRC | run DIR [ROUNDS]" >&2
    exit 2
    ;;
esac
