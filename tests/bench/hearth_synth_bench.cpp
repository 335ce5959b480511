// hearth-synth-bench SHAPE TYPE VOCAB.gguf OUT.gguf: the benchmark models of `hearth-cli synth`,
// from a binary without Qt, for machines that have none (tests/bench/gpu_bench.sh); and
// hearth-synth-bench --mmproj SHAPE f16|f32 LAYERS OUT.gguf, an image projector of that shape
// (`hearth-cli synth --mmproj-shape`), LAYERS of its blocks (0: all).
#include "engine/gguf/gguf_file.h"
#include "engine/synth/synth_mmproj.h"
#include "engine/synth/synth_writer.h"
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace {

int synth_mmproj(const std::string& name, const std::string& type, const std::string& layers,
                 const char* out) {
    using namespace hearth::gguf;
    const auto shape = find_mmproj_shape(name);
    const int n_layer = std::atoi(layers.c_str());
    if (!shape || (type != "f16" && type != "f32") || n_layer < 0 || n_layer > shape->n_layer) {
        std::fprintf(stderr,
                     "hearth-synth-bench: unknown projector shape '%s', type '%s' (f16 or f32) or "
                     "layers '%s'\n",
                     name.c_str(), type.c_str(), layers.c_str());
        return 2;
    }
    MmprojSynthOptions options;
    options.shape = *shape;
    if (n_layer > 0) options.shape.n_layer = n_layer;
    options.f16 = type == "f16";
    const size_t bytes = synthesize_mmproj(options, out);
    std::printf("wrote %s: %.1f MiB\n", out, double(bytes) / (1024.0 * 1024.0));
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    using namespace hearth::gguf;
    const bool mmproj = argc == 6 && std::string(argv[1]) == "--mmproj";
    if (argc != 5 && !mmproj) {
        std::fprintf(stderr, "usage: hearth-synth-bench SHAPE TYPE VOCAB.gguf OUT.gguf\n"
                             "       hearth-synth-bench --mmproj SHAPE f16|f32 LAYERS OUT.gguf\n");
        return 2;
    }
    try {
        if (mmproj) return synth_mmproj(argv[2], argv[3], argv[4], argv[5]);
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
