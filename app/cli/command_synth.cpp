// hearth-cli synth: a model with random weights and the exact tensor names, shapes
// and quantization mix of a real one, for benchmarks and tests without downloads.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "engine/gguf/gguf_file.h"
#include "engine/synth/synth_mmproj.h"
#include "engine/synth/synth_writer.h"
#include <chrono>
#include <cstdio>

namespace hearth::cli {
namespace {

std::string shape_list() {
    std::string names;
    for (const auto& s : gguf::known_shapes())
        names += (names.empty() ? "" : ", ") + s.name;
    return names;
}

std::string file_type_list() {
    std::string names;
    for (gguf::FileType t : gguf::all_file_types())
        names += (names.empty() ? "" : ", ") + std::string(gguf::file_type_name(t));
    return names;
}

uint64_t parse_seed(const std::string& text) {
    try {
        size_t used = 0;
        const unsigned long long seed = std::stoull(text, &used);
        if (used == text.size()) return seed;
    } catch (const std::exception&) {
    }
    throw ArgError("option --seed expects a non-negative integer, got '" + text + "'");
}

std::string mmproj_shape_list() {
    std::string names;
    for (const auto& s : gguf::known_mmproj_shapes())
        names += (names.empty() ? "" : ", ") + s.name;
    return names;
}

// A projector (mmproj) with random weights: --mmproj-shape NAME [--type f16|f32] [--layers N].
int synth_mmproj(const Args& args) {
    const std::string name = *args.value("--mmproj-shape");
    const auto shape = gguf::find_mmproj_shape(name);
    if (!shape) throw ArgError("unknown projector shape '" + name + "' (known: " + mmproj_shape_list() + ")");
    gguf::MmprojSynthOptions options;
    options.shape = *shape;
    const std::string type = args.value("--type").value_or("f16");
    if (type != "f16" && type != "F16" && type != "f32" && type != "F32")
        throw ArgError("a projector's --type is f16 or f32, got '" + type + "'");
    options.f16 = type == "f16" || type == "F16";
    if (args.value("--layers")) {
        const int layers = args.get_int("--layers", 0);
        if (layers < 1 || layers > shape->n_layer)
            throw ArgError("option --layers expects 1 to " + std::to_string(shape->n_layer) + " for " +
                           shape->name);
        options.shape.n_layer = layers;
    }
    if (auto seed = args.value("--seed")) options.seed = parse_seed(*seed);
    options.weight_std = static_cast<float>(args.get_double("--std", options.weight_std));
    if (!(options.weight_std > 0)) throw ArgError("option --std expects a positive number");
    const std::string out = args.required("-o", "--output");
    const auto start = std::chrono::steady_clock::now();
    const size_t bytes = gguf::synthesize_mmproj(options, out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %s: %s projector %s, %d blocks, %.1f MiB in %.1f s\n", out.c_str(),
                shape->name.c_str(), options.f16 ? "f16" : "f32", options.shape.n_layer,
                double(bytes) / (1024.0 * 1024.0), seconds);
    return kExitOk;
}

int run_synth(const std::vector<std::string>& argv) {
    Args args(argv,
              {"--shape", "--vocab", "--type", "-o", "--output", "--seed", "--threads", "--std", "--layers",
               "--mmproj-shape"},
              {"--list", "--exact", "--pad-vocab"});
    if (args.has("--list")) {
        std::printf("shapes: %s\ntypes: %s\nprojector shapes: %s\n", shape_list().c_str(),
                    file_type_list().c_str(), mmproj_shape_list().c_str());
        return kExitOk;
    }
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
    if (args.has("--mmproj-shape")) return synth_mmproj(args);

    const std::string shape_name = args.required("--shape");
    const auto shape = gguf::find_shape(shape_name);
    if (!shape) throw ArgError("unknown shape '" + shape_name + "' (known: " + shape_list() + ")");
    const std::string type_name = args.value("--type").value_or("Q4_K_M");
    const auto file_type = gguf::file_type_from_name(type_name);
    if (!file_type) throw ArgError("unknown type '" + type_name + "' (known: " + file_type_list() + ")");

    gguf::SynthOptions options;
    options.shape = *shape;
    // Fewer layers of the same shape: a large model's per-layer costs in a file that fits.
    if (args.value("--layers")) {
        const int layers = args.get_int("--layers", 0);
        if (layers < 1 || layers > shape->n_layer)
            throw ArgError("option --layers expects 1 to " + std::to_string(shape->n_layer) + " for " +
                           shape->name);
        options.shape.n_layer = layers;
    }
    options.file_type = *file_type;
    if (auto seed = args.value("--seed")) options.seed = parse_seed(*seed);
    options.threads = args.get_int("--threads", 0);
    if (options.threads < 0) throw ArgError("option --threads expects a count >= 0");
    options.weight_std = static_cast<float>(args.get_double("--std", options.weight_std));
    if (!(options.weight_std > 0)) throw ArgError("option --std expects a positive number");
    options.exact = args.has("--exact");
    options.pad_vocab = args.has("--pad-vocab");

    const std::string out = args.required("-o", "--output");
    const auto vocab = gguf::GgufFile::open(args.required("--vocab"));

    const auto start = std::chrono::steady_clock::now();
    const gguf::SynthResult result = gguf::synthesize(options, *vocab, out, [](const std::string& note) {
        std::fprintf(stderr, "hearth-cli synth: note: %s\n", note.c_str());
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %s: %s %s, %zu tensors, n_vocab %lld, %.1f MiB in %.1f s\n", out.c_str(),
                result.shape.name.c_str(), std::string(gguf::file_type_name(options.file_type)).c_str(),
                result.tensor_count, static_cast<long long>(result.shape.n_vocab),
                double(result.file_bytes) / (1024.0 * 1024.0), seconds);
    return kExitOk;
}

} // namespace

HEARTH_CLI_COMMAND(
    "synth", run_synth,
    "synth --shape NAME --vocab VOCAB.gguf [--type Q4_K_M] -o OUT.gguf [--seed S] [--threads N] "
    "[--std X] [--layers N] [--exact] [--pad-vocab] | synth --mmproj-shape gemma3 [--type f16|f32] -o "
    "OUT.gguf "
    "[--layers N] [--seed S] | synth --list");

} // namespace hearth::cli
