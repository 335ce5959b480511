#include "engine/vision/image_decode.h"
#include "engine/error.h"
#include <cstring>
#include <fstream>

namespace hearth::vision {

void check_image_size(int64_t width, int64_t height, const std::string& name) {
    if (width <= 0 || height <= 0)
        throw Error(name + ": the image has no pixels (" + std::to_string(width) + "x" +
                    std::to_string(height) + ")");
    if (width > kMaxImageSide || height > kMaxImageSide)
        throw Error(name + ": the image is " + std::to_string(width) + "x" + std::to_string(height) +
                    " pixels, more than the " + std::to_string(kMaxImageSide) + "x" +
                    std::to_string(kMaxImageSide) + " accepted");
}

RgbImage decode_image(std::span<const uint8_t> bytes, const std::string& name) {
    static constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static constexpr uint8_t kJpegSignature[3] = {0xff, 0xd8, 0xff};
    if (bytes.size() >= sizeof kPngSignature &&
        std::memcmp(bytes.data(), kPngSignature, sizeof kPngSignature) == 0)
        return decode_png(bytes, name);
    if (bytes.size() >= sizeof kJpegSignature &&
        std::memcmp(bytes.data(), kJpegSignature, sizeof kJpegSignature) == 0)
        return decode_jpeg(bytes, name);
    if (bytes.size() >= 12 && std::memcmp(bytes.data(), "RIFF", 4) == 0 &&
        std::memcmp(bytes.data() + 8, "WEBP", 4) == 0)
        return decode_webp(bytes, name);
    if (bytes.empty()) throw Error(name + ": the file is empty");
    throw Error(name + ": not a PNG, JPEG or WebP image (unknown signature)");
}

std::vector<uint8_t> read_image_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw Error(path + ": cannot open the image file");
    const std::streamoff size = in.tellg();
    if (size < 0) throw Error(path + ": cannot read the image file");
    if (static_cast<uint64_t>(size) > kMaxImageFileBytes)
        throw Error(path + ": the image file is " + std::to_string(size) + " bytes, more than the " +
                    std::to_string(kMaxImageFileBytes) + " accepted");
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
        throw Error(path + ": cannot read the image file");
    return bytes;
}

RgbImage decode_image_file(const std::string& path) {
    return decode_image(read_image_file(path), path);
}

} // namespace hearth::vision
