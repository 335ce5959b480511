// Fuzz target: the mmproj reader and the projector built from it. Any input must give a
// projector or a hearth::Error; a small projector also encodes a canvas. Anything else (another
// exception, a crash, a sanitizer report) is a bug.
#include "engine/error.h"
#include "engine/vision/mmproj_file.h"
#include "engine/vision/vision_projector.h"
#include "tests/fuzz/fuzz_support.h"
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hearth;
    static fuzz::MemoryFile memory;
    const std::string path = memory.write(data, size);
    try {
        const vision::VisionHyperParams hp = vision::MmprojFile::open(path).hparams();
        // The scratch grows with the square of the patches: keep an input's cost small.
        if (hp.n_patches() > 1024 || hp.n_embd > 1024 || hp.n_ff > 4096 || hp.projection_dim > 4096) return 0;
        auto projector = vision::load_vision_projector(
            path, {.n_threads = 1, .device = {}, .text_n_embd = 0, .text_model_path = {}});
        const int32_t side = hp.image_size;
        vision::RgbImage canvas{side, side, std::vector<uint8_t>(static_cast<size_t>(side) * side * 3, 128)};
        canvas = projector->canvas(canvas);
        std::vector<float> out(static_cast<size_t>(projector->n_image_tokens()) * projector->n_embd());
        projector->encode(canvas, out.data());
    } catch (const Error&) {
    }
    return 0;
}
