// hearth-cli image-embed: an image through a multimodal projector, as the text model would take
// it. The first line fingerprints the preprocessed canvas ("canvas <sha256 of its RGB bytes>"),
// then one line per image position with its vector ("%.9g"), so that the preprocessing and the
// encoder can be judged against exact math from outside the process.
#include "app/cli/cli_args.h"
#include "app/cli/cli_command.h"
#include "app/cli/model_options.h"
#include "app/cli/print_floats.h"
#include "engine/forward/thread_count.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/sha256.h"
#include "engine/vision/vision_projector.h"
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace hearth::cli {
namespace {

int run_image_embed(const std::vector<std::string>& argv) {
    Args args(argv, model_value_options({"--mmproj", "--image"}), {"--timing"});
    if (!args.positional().empty()) throw ArgError("unexpected argument '" + args.positional()[0] + "'");
    const std::string mmproj = args.required("--mmproj");
    const std::string image_path = args.required("--image");
    const engine::InferenceOptions options = inference_options(args); // --isa, -t

    auto projector = vision::load_vision_projector(
        mmproj,
        {.n_threads = options.n_threads, .device = options.device, .text_n_embd = 0, .text_model_path = {}});
    report_tower_device("image-embed", *projector);
    const vision::RgbImage canvas = projector->canvas(vision::decode_image_file(image_path));
    std::vector<float> embeddings(static_cast<size_t>(projector->n_image_tokens()) * projector->n_embd());
    const auto start = std::chrono::steady_clock::now();
    projector->encode(canvas, embeddings.data());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::printf("canvas %s\n", vision::sha256_hex(canvas.pixels).c_str());
    std::string line;
    for (int32_t token = 0; token < projector->n_image_tokens(); ++token)
        print_float_row(embeddings.data() + static_cast<size_t>(token) * projector->n_embd(),
                        projector->n_embd(), line);
    if (args.has("--timing")) {
        const std::string where =
            projector->tower_device() == "cpu"
                ? std::to_string(engine::resolve_threads(options.n_threads)) + " threads"
                : projector->tower_device();
        std::fprintf(stderr, "image-embed: %d image tokens of %d in %.3f s on %s\n",
                     projector->n_image_tokens(), projector->n_embd(), seconds, where.c_str());
    }
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

} // namespace

HEARTH_CLI_COMMAND(
    "image-embed", run_image_embed,
    "image-embed --mmproj MMPROJ --image IMG [-t T] [--isa TIER] [--device D] [--timing]   the "
    "preprocessed canvas's SHA-256 (\"canvas HEX\"), then each image position's vector, one line each");

} // namespace hearth::cli
