#pragma once
// GPT-2's byte-level alphabet: every byte is shown as one printable Unicode
// character, so that byte-level BPE vocabularies hold only printable text
// (a space is "Ġ", a newline "Ċ").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::tokenizer::byte_level {

// Appends the UTF-8 of the characters standing for `bytes`.
void encode(std::string_view bytes, std::string& out);

// The byte a code point of the alphabet stands for; nullopt if it is not in the alphabet.
std::optional<unsigned char> byte_of(uint32_t code_point);

} // namespace hearth::tokenizer::byte_level
