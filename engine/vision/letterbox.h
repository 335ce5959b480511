#pragma once
// The aspect-preserving fit of an image into a square canvas (llama.cpp's letterbox for
// Gemma 3; Hugging Face's processor stretches instead): scaled by min(size / W, size / H) in
// float32, resized with Pillow's bilinear, and pasted centred on black.
#include "engine/vision/rgb_image.h"
#include <cstdint>

namespace hearth::vision {

struct LetterboxPlacement {
    int32_t width = 0, height = 0; // the resized image
    int32_t x = 0, y = 0;          // where it lies on the canvas
};

// Where an image of width x height goes on a size x size canvas.
LetterboxPlacement letterbox_placement(int32_t width, int32_t height, int32_t size);

// The size x size canvas; an image of exactly that size is used as it is.
RgbImage letterbox(const RgbImage& image, int32_t size);

} // namespace hearth::vision
