#pragma once
// An image in a message: the bytes of its file (PNG, JPEG or WebP) and their SHA-256, by which
// the same picture is the same image wherever it appears (its encoding is cached, and the cache
// positions it fills are reused by the next turn). Plain values: the bytes are shared, never
// copied, so a message crosses threads and queued signals as it is.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hearth::chat {

struct ChatImage {
    std::string id;   // SHA-256 of the bytes, 64 lowercase hex digits
    std::string name; // the file it came from, or what it is ("pasted image"), for messages
    std::shared_ptr<const std::vector<uint8_t>> bytes;
};

} // namespace hearth::chat
