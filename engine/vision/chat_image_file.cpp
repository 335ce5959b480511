#include "engine/vision/chat_image_file.h"
#include "engine/vision/image_decode.h"
#include "engine/vision/sha256.h"

namespace hearth::vision {

chat::ChatImage chat_image_from_bytes(std::vector<uint8_t> bytes, std::string name) {
    chat::ChatImage image;
    image.id = sha256_hex(bytes);
    image.name = std::move(name);
    image.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    return image;
}

chat::ChatImage chat_image_from_file(const std::string& path) {
    return chat_image_from_bytes(read_image_file(path), path);
}

} // namespace hearth::vision
