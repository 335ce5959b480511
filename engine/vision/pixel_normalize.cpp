#include "engine/vision/pixel_normalize.h"
#include <cstddef>

namespace hearth::vision {

void normalize_planar(const RgbImage& canvas, const std::array<float, 3>& mean,
                      const std::array<float, 3>& std, float* out) {
    const size_t plane = static_cast<size_t>(canvas.width) * canvas.height;
    for (size_t c = 0; c < 3; ++c)
        for (size_t i = 0; i < plane; ++i) {
            const float v = static_cast<float>(canvas.pixels[i * 3 + c]) / 255.0f;
            out[c * plane + i] = (v - mean[c]) / std[c];
        }
}

} // namespace hearth::vision
