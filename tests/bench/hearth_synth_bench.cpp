// hearth-synth-bench SHAPE TYPE VOCAB.gguf OUT.gguf: the benchmark models of `hearth-cli synth`,
// from a binary without Qt, for machines that have none (tests/bench/gpu_bench.sh).
#include "engine/gguf/gguf_file.h"
#include "engine/synth/synth_writer.h"
#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    using namespace hearth::gguf;
    if (argc != 5) {
        std::fprintf(stderr, "usage: hearth-synth-bench SHAPE TYPE VOCAB.gguf OUT.gguf\n");
        return 2;
    }
    try {
        const auto shape = find_shape(argv[1]);
        const auto file_type = file_type_from_name(argv[2]);
        if (!shape || !file_type) {
            std::fprintf(stderr,
                         "hearth-synth-bench: unknown shape '%s' or type '%s' (hearth-cli synth --list)\n",
                         argv[1], argv[2]);
            return 2;
        }
        SynthOptions options;
        options.shape = *shape;
        options.file_type = *file_type;
        options.pad_vocab = true; // the shape's real vocabulary size, as the real model's output matrix
        const auto vocab = GgufFile::open(argv[3]);
        const SynthResult result = synthesize(options, *vocab, argv[4], [](const std::string& note) {
            std::fprintf(stderr, "hearth-synth-bench: note: %s\n", note.c_str());
        });
        std::printf("wrote %s: %.1f MiB\n", argv[4], double(result.file_bytes) / (1024.0 * 1024.0));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hearth-synth-bench: %s\n", e.what());
        return 2;
    }
}
