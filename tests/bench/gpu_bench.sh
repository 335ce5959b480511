#!/usr/bin/env bash
# Hearth's Vulkan backend against llama.cpp's, on the same synthetic files, interleaved
# (compare_llama_cpp.sh), on a machine with a GPU. That machine reaches no network, so the work
# is in two steps:
#
#   tests/bench/gpu_bench.sh prepare DIR LLAMA_CPP_SRC VULKAN_PACKAGE
#       Here (Debian 12, the project's dependencies installed): builds llama.cpp's llama-bench
#       from LLAMA_CPP_SRC (a source folder, or a git bundle of one, cloned into DIR.src) as
#       shared libraries that load their backends at run time (GGML_BACKEND_DL), with no backend
#       of its own; takes the backends, Vulkan's and the CPU's variants, from VULKAN_PACKAGE
#       (node-llama-cpp's prebuilt Vulkan package: its .tgz, unpacked into DIR.vulkan-bins, or
#       its bins/linux-x64-vulkan folder); builds Hearth's hearth-bench and hearth-synth-bench in
#       build/ (configured without the GUI where build/ is not configured). Puts into DIR: the
#       programs and libraries, stripped; the system libraries they need that a bare machine may
#       lack; the two vocabularies (from ../shared/testdata/vocab, or the folder GPU_BENCH_VOCAB;
#       .gguf or .gguf.gz); Debian's Vulkan loader and vulkaninfo as .deb files;
#       llama/llama-cpp.txt (where llama.cpp's parts come from). Files over 1 MiB are gzipped.
#   tests/bench/gpu_bench.sh run DIR [ROUNDS]
#       There (or here, on lavapipe, to try the script): unpacks DIR into DIR.run, installs the
#       loader if none is found, prints `vulkaninfo --summary`, llama-cpp.txt and llama-bench's
#       devices, writes the models into DIR.models (qwen2.5-0.5b Q4_K_M and Q8_0, llama-3.2-1b
#       Q4_K_M, llama-3.1-8b Q4_K_M), and runs both benchmarks on the whole model on the GPU
#       (-ngl 99); then times Gemma 3's vision tower encoding a picture on the GPU and on the CPU
#       (hearth-bench --mmproj). On an H200 it finished in 2.5 minutes; on lavapipe set
#       GPU_BENCH_SMALL=1 (the two small models, short tests, a tower of one block).
#       GPU_BENCH_DECODE='8b|1b' adds those models' decode taken apart (metrics, submits, mat-vec
#       rows, the GPU time per op); GPU_BENCH_TOWER=0 leaves the tower out.
#
# The sources: node-llama-cpp 3.22.1, llama.cpp v0.5.0 (de3ff81), the CPU comparison's:
#   npm pack node-llama-cpp@3.22.1 @node-llama-cpp/linux-x64-vulkan@3.22.1
#   tar xzf node-llama-cpp-3.22.1.tgz package/llama/gitRelease.bundle    # LLAMA_CPP_SRC
#   # VULKAN_PACKAGE: node-llama-cpp-linux-x64-vulkan-3.22.1.tgz
# llama.cpp's Vulkan backend does not build from source on Debian 12: its glslc (shaderc 2023.2)
# lacks GL_KHR_cooperative_matrix, which 3.22's Intel Xe flash-attention decode shaders use
# whatever glslc has, and its Vulkan headers (1.3.239) lack VK_EXT_layer_settings, which
# ggml-vulkan.cpp uses (3.21.1 and 3.20.0 too); bookworm-backports has neither newer. A build
# with that glslc would also lack the cooperative-matrix and integer-dot shaders llama.cpp uses
# on NVIDIA. node-llama-cpp's package holds llama.cpp's backends as its release built them
# (Ubuntu 22.04, a Vulkan SDK), all of those shaders included.
#
# The plan for a lent GPU machine (assumed the same Debian 12 image; it gets the working tree
# and at most 64 MiB of carried ignored paths, and has no network):
#   here:  tests/bench/gpu_bench.sh prepare build-gpubench gitRelease.bundle \
#              node-llama-cpp-linux-x64-vulkan-3.22.1.tgz
#   there: the device tool's run, carry ["build-gpubench"] (about 35 MiB), command
#          tests/bench/gpu_bench.sh run build-gpubench 1
# Where build-gpubench was not prepared but the machine has the project's Debian packages
# (packaging/debian-deps.txt), prepare runs there: carry a folder build-gpubench-src holding
# gitRelease.bundle, the .tgz and the two vocabularies gzipped (about 60 MiB), and run
#   GPU_BENCH_VOCAB=build-gpubench-src tests/bench/gpu_bench.sh prepare /tmp/gb \
#       build-gpubench-src/gitRelease.bundle build-gpubench-src/node-llama-cpp-linux-x64-vulkan-3.22.1.tgz \
#       && tests/bench/gpu_bench.sh run /tmp/gb 1
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: gpu_bench.sh prepare DIR LLAMA_CPP_SRC VULKAN_PACKAGE | run DIR [ROUNDS]}
dir=${2:?a folder}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The shared libraries a binary needs beyond the C library itself, copied into DIR/lib; those
# in the folder OWN (the binary's own, copied already) are left.
copy_libraries() {
    local binary=$1 own=${2:-}
    ldd "$binary" | awk '/=> \// { print $3 }' | while read -r lib; do
        if [ -n "$own" ] && [ "$(dirname "$lib")" = "$own" ]; then continue; fi
        case $(basename "$lib") in
        libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux*) ;;
        libvulkan.so*) ;; # the loader comes as a package: it finds the machine's own drivers
        *) cp -L "$lib" "$dir/lib/" ;;
        esac
    done
}

case $mode in
prepare)
    src=${3:?the llama.cpp source: a folder or a git bundle}
    vulkan_bins=${4:?the prebuilt Vulkan package of node-llama-cpp: its .tgz or its bins/linux-x64-vulkan folder}
    vocab=${GPU_BENCH_VOCAB:-$root/../shared/testdata/vocab}
    rm -rf "${dir:?}/bin" "${dir:?}/lib" "${dir:?}/llama" "${dir:?}/vocab" "${dir:?}/debs"
    mkdir -p "$dir/bin" "$dir/lib" "$dir/llama" "$dir/vocab" "$dir/debs"
    if [ -f "$src" ]; then
        [ -d "$dir.src/.git" ] || git clone -q "$src" "$dir.src"
        src=$dir.src
    fi
    if [ -f "$vulkan_bins" ]; then
        mkdir -p "$dir.vulkan-bins"
        tar xzf "$vulkan_bins" -C "$dir.vulkan-bins"
        vulkan_bins=$dir.vulkan-bins/package/bins/linux-x64-vulkan
    fi
    src=$(cd "$src" && pwd)

    # llama-bench and the libraries it links, loading its backends at run time from its own
    # folder (GGML_BACKEND_DL): no backend of its own (GGML_CPU=OFF, no GGML_VULKAN), so no
    # glslc is needed and nothing depends on this machine's CPU. The libraries keep unversioned
    # names, as the backends ask for libggml-base.so: one file each, no links to carry.
    llama_build=$src/build-gpubench
    llama_options=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON -DGGML_CPU=OFF
        -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
        -DLLAMA_BUILD_SERVER=OFF -DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON)
    launcher=()
    if command -v ccache >/dev/null; then
        launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    cmake -S "$src" -B "$llama_build" -G Ninja "${llama_options[@]}" "${launcher[@]}"
    cmake --build "$llama_build" -j "$(nproc)" --target llama-bench
    strip -o "$dir/llama/llama-bench" "$llama_build/bin/llama-bench"
    for lib in "$llama_build"/bin/*.so; do strip -o "$dir/llama/$(basename "$lib")" "$lib"; done
    copy_libraries "$llama_build/bin/llama-bench" "$llama_build/bin"
    # node-llama-cpp's backends, built by its release from the same llama.cpp: the CPU's variants
    # (the best one for the CPU is loaded) and Vulkan's.
    cp "$vulkan_bins"/libggml-cpu-*.so "$vulkan_bins/libggml-vulkan.so" "$dir/llama/"
    {
        echo "llama-bench: llama.cpp $(git -C "$src" log -1 --format='%h (%cd)' --date=short), built with"
        echo "  ${llama_options[*]}"
        echo "backends (libggml-cpu-*.so, libggml-vulkan.so) from node-llama-cpp's prebuilt package:"
        echo "  $(cat "$vulkan_bins/_nlcBuildMetadata.json")"
    } >"$dir/llama/llama-cpp.txt"

    # Hearth: build/ as configured here; where there is none (a fresh copy of the tree), one
    # without the GUI (Qt Core, Test and Network are still needed).
    if [ ! -f "$root/build/build.ninja" ]; then
        cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEARTH_BUILD_GUI=OFF
    fi
    cmake --build "$root/build" -j "$(nproc)" --target hearth-bench hearth-synth-bench
    for b in hearth-bench hearth-synth-bench; do
        strip -o "$dir/bin/$b" "$root/build/bin/$b"
        copy_libraries "$root/build/bin/$b"
    done
    cp "$root/tests/bench/compare_llama_cpp.sh" "$root/tests/bench/gpu_bench.sh" "$dir/bin/"
    for name in qwen2 llama-bpe; do
        if [ -f "$vocab/ggml-vocab-$name.gguf" ]; then
            cp "$vocab/ggml-vocab-$name.gguf" "$dir/vocab/"
        else
            cp "$vocab/ggml-vocab-$name.gguf.gz" "$dir/vocab/"
        fi
    done
    (cd "$dir/debs" && apt-get download libvulkan1 vulkan-tools) ||
        echo "gpu_bench.sh: no Vulkan loader packages downloaded: run needs the machine's own" >&2
    # gzip (essential on Debian) shrinks DIR to about half, for the 64 MiB a carried folder may have.
    find "$dir" -type f -size +1M ! -name '*.gz' ! -name '*.deb' -exec gzip -9 {} +
    du -sh "$dir"
    ;;
run)
    rounds=${3:-2}
    # DIR stays as prepared (small enough to carry): unpacked into DIR.run, models in DIR.models.
    prepared=$dir
    dir=$prepared.run
    rm -rf "$dir"
    cp -r "$prepared" "$dir"
    find "$dir" -name '*.gz' -exec gunzip -f {} +
    export LD_LIBRARY_PATH="$dir/lib:$dir/llama${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
    # Where it cannot run, its own last words: on the H200 machine it failed while both
    # benchmarks found the GPU, so a failure here does not mean there is no driver.
    if summary=$("$vulkaninfo_bin" --summary 2>&1); then
        sed -n '/^Devices:/,$p' <<<"$summary"
    else
        echo "vulkaninfo could not run: $(tail -n 2 <<<"$summary" | tr '\n' ' ')"
    fi
    if [ "${GPU_BENCH_SMALL:-0}" = 1 ]; then
        # lavapipe: llama.cpp's Vulkan backend passes over CPU devices unless one is named.
        export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
    fi
    if [ -x "$dir/llama/llama-bench" ]; then
        echo "== llama.cpp"
        cat "$dir/llama/llama-cpp.txt"
        "$dir/llama/llama-bench" --list-devices
    fi

    models=$prepared.models
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
    if [ -x "$dir/llama/llama-bench" ]; then
        echo "== Hearth (--device vulkan) against llama.cpp (Vulkan), whole model on the GPU: $args -ngl 99"
        HEARTH_BENCH="$dir/bin/hearth-bench" HEARTH_BENCH_ARGS="--device vulkan" \
            "$dir/bin/compare_llama_cpp.sh" "$dir/llama/llama-bench" "$rounds" "$args -ngl 99" "${files[@]}"
    else
        echo "== Hearth alone (--device vulkan), whole model on the GPU: no llama-bench was prepared"
        for file in "${files[@]}"; do
            # shellcheck disable=SC2086
            "$dir/bin/hearth-bench" -m "$file" $args -ngl 99 --device vulkan
        done
    fi

    # Decode on the GPU, taken apart (GPU_BENCH_DECODE: an extended regular expression of the
    # models' file names, e.g. '8b|1b'): each model's tg as the app runs it, without the dispatch
    # metrics (--no-metrics), with the pass sent in one submit (HEARTH_VULKAN_DISPATCHES_PER_SUBMIT
    # =0), with 2 and 8 rows per mat-vec workgroup (HEARTH_VULKAN_MATVEC_ROWS), and the GPU time
    # of each op of one timed decode pass (--profile).
    if [ -n "${GPU_BENCH_DECODE:-}" ]; then
        decode_args="-p 0 -n 128 -r 2 -ngl 99 --device vulkan"
        [ "${GPU_BENCH_SMALL:-0}" = 1 ] && decode_args="-p 0 -n 16 -r 1 -ngl 99 --device vulkan -t 2"
        for file in "${files[@]}"; do
            basename "$file" | grep -q -E "$GPU_BENCH_DECODE" || continue
            echo "== Hearth decode, taken apart: $(basename "$file")"
            for variant in "as the app" "--no-metrics" "HEARTH_VULKAN_DISPATCHES_PER_SUBMIT=0" \
                "HEARTH_VULKAN_MATVEC_ROWS=2" "HEARTH_VULKAN_MATVEC_ROWS=8"; do
                printf '%s: ' "$variant"
                case $variant in
                HEARTH_*) environment=("$variant") flags=() ;;
                --*) environment=() flags=("$variant") ;;
                *) environment=() flags=() ;;
                esac
                # shellcheck disable=SC2086
                env "${environment[@]}" "$dir/bin/hearth-bench" -m "$file" $decode_args "${flags[@]}" 2>/dev/null |
                    grep -E '^\| .* tg[0-9]+ ' || echo "failed"
            done
            # shellcheck disable=SC2086
            "$dir/bin/hearth-bench" -m "$file" $decode_args -r 1 --profile 2>&1 | sed -n '/^device profile/,/^$/p'
        done
    fi
    [ "${GPU_BENCH_TOWER:-1}" = 1 ] || exit 0

    # Gemma 3's vision tower (27 blocks; one on lavapipe, where a block takes some 40 s) encoding
    # one picture on the GPU, and on every core for reference (Hearth alone: the prepared
    # llama.cpp has no mtmd).
    tower_layers=27 tower_runs=3
    [ "${GPU_BENCH_SMALL:-0}" = 1 ] && tower_layers=1 tower_runs=1
    tower=$models/mmproj-gemma3-f16-$tower_layers-blocks.gguf
    [ -f "$tower" ] || "$dir/bin/hearth-synth-bench" --mmproj gemma3 f16 "$tower_layers" "$tower"
    echo "== Hearth: Gemma 3's vision tower ($tower_layers blocks, F16), on the GPU and on $(nproc) CPU threads"
    "$dir/bin/hearth-bench" --mmproj "$tower" -t "$(nproc)" -r "$tower_runs" --device vulkan
    "$dir/bin/hearth-bench" --mmproj "$tower" -t "$(nproc)" -r 1
    ;;
*)
    echo "usage: gpu_bench.sh prepare DIR LLAMA_CPP_SRC VULKAN_PACKAGE | run DIR [ROUNDS]" >&2
    exit 2
    ;;
esac
