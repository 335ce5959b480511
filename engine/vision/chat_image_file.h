#pragma once
// Images for a message (chat::ChatImage), from bytes or from a file, with their SHA-256 id.
#include "engine/chat/chat_image.h"
#include <cstdint>
#include <string>
#include <vector>

namespace hearth::vision {

// `name` says where the bytes came from, for messages. The bytes are not decoded here: a damaged
// image is found when a session reads it, and named then.
chat::ChatImage chat_image_from_bytes(std::vector<uint8_t> bytes, std::string name);
// Throws hearth::Error("<path>: <problem>") when the file cannot be read or is too large.
chat::ChatImage chat_image_from_file(const std::string& path);

} // namespace hearth::vision
