#include "engine/tokenizer/byte_level.h"
#include "engine/utf8_encode.h"
#include <array>

namespace hearth::tokenizer::byte_level {

namespace {

// Printable Latin-1 bytes keep their own code point; the 68 others (controls,
// space, DEL, NBSP, soft hyphen) are numbered upwards from U+0100 in byte order.
constexpr uint32_t kFirstExtra = 256;
constexpr uint32_t kExtraCount = 68;

constexpr bool is_printable(uint32_t b) {
    return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
}

struct Alphabet {
    std::array<std::string, 256> utf8_of_byte;
    std::array<unsigned char, kExtraCount> byte_of_extra{};

    Alphabet() {
        uint32_t next_extra = kFirstExtra;
        for (uint32_t b = 0; b < 256; ++b) {
            uint32_t cp = b;
            if (!is_printable(b)) {
                byte_of_extra[next_extra - kFirstExtra] = static_cast<unsigned char>(b);
                cp = next_extra++;
            }
            append_utf8(utf8_of_byte[b], cp);
        }
    }
};

const Alphabet& alphabet() {
    static const Alphabet instance;
    return instance;
}

} // namespace

void encode(std::string_view bytes, std::string& out) {
    const Alphabet& a = alphabet();
    for (const char c : bytes)
        out += a.utf8_of_byte[static_cast<unsigned char>(c)];
}

std::optional<unsigned char> byte_of(uint32_t code_point) {
    if (code_point < kFirstExtra) {
        if (is_printable(code_point)) return static_cast<unsigned char>(code_point);
        return std::nullopt;
    }
    if (code_point < kFirstExtra + kExtraCount) return alphabet().byte_of_extra[code_point - kFirstExtra];
    return std::nullopt;
}

} // namespace hearth::tokenizer::byte_level
