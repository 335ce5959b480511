// WebP through libwebp: the header's size is checked before the pixels are decoded.
#include "engine/error.h"
#include "engine/vision/image_decode.h"
#include <cstring>
#include <webp/decode.h>

namespace hearth::vision {

RgbImage decode_webp(std::span<const uint8_t> bytes, const std::string& name) {
    int width = 0, height = 0;
    if (!WebPGetInfo(bytes.data(), bytes.size(), &width, &height))
        throw Error(name + ": damaged WebP: the header cannot be read");
    check_image_size(width, height, name);
    uint8_t* decoded = WebPDecodeRGB(bytes.data(), bytes.size(), &width, &height);
    if (decoded == nullptr) throw Error(name + ": damaged WebP: the image data cannot be decoded");
    RgbImage image{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3)};
    std::memcpy(image.pixels.data(), decoded, image.pixels.size());
    WebPFree(decoded);
    return image;
}

} // namespace hearth::vision
