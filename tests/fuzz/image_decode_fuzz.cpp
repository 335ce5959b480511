// Fuzz target: the image decoders (PNG, JPEG) and the letterbox after them. Any input must give
// an RGB image within the size limit whose pixels are all there, or a hearth::Error; anything
// else (another exception, a crash, a sanitizer report) is a bug.
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/letterbox.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hearth;
    try {
        const vision::RgbImage image = vision::decode_image({data, size}, "fuzz input");
        if (image.width <= 0 || image.height <= 0 || image.width > vision::kMaxImageSide ||
            image.height > vision::kMaxImageSide)
            fuzz::invariant_failed("decoded size out of bounds");
        if (image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3)
            fuzz::invariant_failed("decoded pixels do not fill the image");
        // The resize of a small image (a large one only costs time).
        if (static_cast<int64_t>(image.width) * image.height <= 1 << 16) {
            const vision::RgbImage canvas = vision::letterbox(image, 56);
            if (canvas.width != 56 || canvas.height != 56 || canvas.pixels.size() != 56 * 56 * 3)
                fuzz::invariant_failed("letterbox gave another canvas size");
        }
    } catch (const Error&) {
    }
    return 0;
}
