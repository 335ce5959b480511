#pragma once
// UTF-8 encoding of one code point, shared by the tokenizers and the chat templates (header only,
// so that every engine component may use it without linking another).
#include <cstdint>
#include <string>

namespace hearth {

// Appends `code_point` as 1 to 4 bytes; the caller passes a value below 0x110000.
inline void append_utf8(std::string& out, uint32_t code_point) {
    const uint32_t cp = code_point;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

} // namespace hearth
