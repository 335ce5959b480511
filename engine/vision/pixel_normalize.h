#pragma once
// A canvas as the vision tower's input: each byte to v = byte / 255, then (v - mean[c]) / std[c],
// in float32, channel-planar (3, height, width).
#include "engine/vision/rgb_image.h"
#include <array>

namespace hearth::vision {

void normalize_planar(const RgbImage& canvas, const std::array<float, 3>& mean,
                      const std::array<float, 3>& std, float* out);

} // namespace hearth::vision
