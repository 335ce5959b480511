#pragma once
// Pillow's BILINEAR resize, byte for byte (PIL.Image.resize(size, Image.BILINEAR)): two
// separable passes, horizontal first, its result kept as bytes, each a triangle filter widened
// by the scale when shrinking, with 22-bit fixed-point weights. A pass whose side keeps its size
// is skipped.
#include "engine/vision/rgb_image.h"
#include <cstdint>

namespace hearth::vision {

RgbImage resize_bilinear(const RgbImage& image, int32_t width, int32_t height);

} // namespace hearth::vision
