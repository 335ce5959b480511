#pragma once
// Image files to 8-bit RGB: PNG (libpng), JPEG (libjpeg-turbo) and WebP (libwebp), told apart
// by their first bytes. Grey images are widened to RGB; alpha is dropped, not blended (as the model's
// preprocessing reads an RGBA image); 16-bit samples keep their high byte; a palette is expanded.
// Every failure is a hearth::Error("<name>: <problem>").
#include "engine/vision/rgb_image.h"
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hearth::vision {

// The largest image accepted, per side: 8192 x 8192 RGB is 192 MiB decoded. The header's
// dimensions are checked before anything is allocated, so a small file that claims a huge image
// (a decompression bomb) is refused at once.
inline constexpr int32_t kMaxImageSide = 8192;
// The largest image file read.
inline constexpr size_t kMaxImageFileBytes = size_t{256} << 20;

// `name` is the file the bytes came from, for the messages.
RgbImage decode_image(std::span<const uint8_t> bytes, const std::string& name);
RgbImage decode_image_file(const std::string& path);
// The bytes of an image file, at most kMaxImageFileBytes; throws when it cannot be read.
std::vector<uint8_t> read_image_file(const std::string& path);

// The format decoders, for decode_image (bytes already recognised by their signature).
RgbImage decode_png(std::span<const uint8_t> bytes, const std::string& name);
RgbImage decode_jpeg(std::span<const uint8_t> bytes, const std::string& name);
RgbImage decode_webp(std::span<const uint8_t> bytes, const std::string& name);

// Throws when width x height is not a decodable image size (zero, or over kMaxImageSide).
void check_image_size(int64_t width, int64_t height, const std::string& name);

} // namespace hearth::vision
