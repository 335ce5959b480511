#include "engine/vision/letterbox.h"
#include "engine/vision/pillow_resize.h"
#include <algorithm>
#include <cmath>
#include <cstring>

namespace hearth::vision {

LetterboxPlacement letterbox_placement(int32_t width, int32_t height, int32_t size) {
    // Each operation rounded to float32, as the reference preprocessing does.
    const float side = static_cast<float>(size);
    const float scale = std::min(side / static_cast<float>(width), side / static_cast<float>(height));
    LetterboxPlacement p;
    p.width = std::min(static_cast<int32_t>(std::ceil(static_cast<float>(width) * scale)), size);
    p.height = std::min(static_cast<int32_t>(std::ceil(static_cast<float>(height) * scale)), size);
    p.width = std::max(p.width, 1);
    p.height = std::max(p.height, 1);
    p.x = (size - p.width) / 2;
    p.y = (size - p.height) / 2;
    return p;
}

RgbImage letterbox(const RgbImage& image, int32_t size) {
    if (image.width == size && image.height == size) return image;
    const LetterboxPlacement p = letterbox_placement(image.width, image.height, size);
    const RgbImage resized = resize_bilinear(image, p.width, p.height);
    RgbImage canvas{size, size, std::vector<uint8_t>(static_cast<size_t>(size) * size * 3, 0)};
    for (int32_t y = 0; y < p.height; ++y)
        std::memcpy(canvas.pixels.data() + (static_cast<size_t>(p.y + y) * size + p.x) * 3,
                    resized.pixels.data() + static_cast<size_t>(y) * p.width * 3,
                    static_cast<size_t>(p.width) * 3);
    return canvas;
}

} // namespace hearth::vision
