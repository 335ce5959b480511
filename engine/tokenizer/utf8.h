#pragma once
// The few UTF-8 operations the tokenizers need: splitting text into characters,
// and validating it (encoding is engine/utf8_encode.h's append_utf8).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hearth::tokenizer::utf8 {

// Length of the character a byte starts, judged by its high bits alone (a stray
// continuation byte counts as 1). This is how SentencePiece-style splitting steps.
inline size_t char_length(unsigned char lead) {
    static constexpr uint8_t lengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return lengths[lead >> 4];
}

// What starts at text[pos]: a complete valid character of `length` bytes, a valid
// but truncated start of one (the text ends too early), or an invalid byte.
struct Decoded {
    enum class Kind { Complete, Truncated, Invalid } kind;
    size_t length = 0; // bytes of the character (Complete) or of the truncated start
    uint32_t code_point = 0;
};
Decoded decode(std::string_view text, size_t pos);

// Length of the longest prefix of `text` that is valid, complete UTF-8.
size_t valid_prefix_length(std::string_view text);

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD"; // U+FFFD

} // namespace hearth::tokenizer::utf8
