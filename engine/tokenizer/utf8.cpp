#include "engine/tokenizer/utf8.h"

namespace hearth::tokenizer::utf8 {

Decoded decode(std::string_view text, size_t pos) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    if (lead < 0x80) return {Decoded::Kind::Complete, 1, lead};

    size_t length = 0;
    uint32_t cp = 0;
    uint32_t min_cp = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, cp = lead & 0x1F, min_cp = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, cp = lead & 0x0F, min_cp = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, cp = lead & 0x07, min_cp = 0x10000;
    } else {
        return {Decoded::Kind::Invalid, 1, 0};
    }

    size_t i = 1;
    for (; i < length && pos + i < text.size(); ++i) {
        const unsigned char c = byte(pos + i);
        if ((c & 0xC0) != 0x80) return {Decoded::Kind::Invalid, 1, 0};
        cp = (cp << 6) | (c & 0x3F);
        // Reject overlong forms, surrogates and values past U+10FFFF as soon as the
        // second byte shows them, so a truncated start is never secretly invalid.
        if (i == 1) {
            const uint32_t partial_min = min_cp >> (6 * (length - 2));
            const bool overlong = cp < partial_min;
            const bool surrogate = length == 3 && cp >= (0xD800 >> 6) && cp <= (0xDFFF >> 6);
            const bool too_big = length == 4 && cp > (0x10FFFF >> 12);
            if (overlong || surrogate || too_big) return {Decoded::Kind::Invalid, 1, 0};
        }
    }
    if (i < length) return {Decoded::Kind::Truncated, i, 0};
    return {Decoded::Kind::Complete, length, cp};
}

size_t valid_prefix_length(std::string_view text) {
    size_t pos = 0;
    while (pos < text.size()) {
        const Decoded d = decode(text, pos);
        if (d.kind != Decoded::Kind::Complete) break;
        pos += d.length;
    }
    return pos;
}

} // namespace hearth::tokenizer::utf8
