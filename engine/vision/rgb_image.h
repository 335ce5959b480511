#pragma once
// An 8-bit RGB image: what every decoder gives and the preprocessing takes.
#include <cstdint>
#include <vector>

namespace hearth::vision {

struct RgbImage {
    int32_t width = 0;
    int32_t height = 0;
    std::vector<uint8_t> pixels; // (height, width, 3): row-major, R G B per pixel
};

} // namespace hearth::vision
