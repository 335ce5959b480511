#pragma once
// Python's str methods on UTF-8 text: indexes and lengths count code points,
// whitespace is Unicode whitespace, as templates written for Python expect.
#include "engine/utf8_encode.h" // append_utf8, for the template code
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::chat {

// Decodes the UTF-8 sequence at s[i] and advances i; a malformed byte is returned as itself.
uint32_t decode_utf8(std::string_view s, size_t& i);
bool is_python_space(uint32_t code_point);

// Byte offset of every code point start, then s.size(): code point k is [offsets[k], offsets[k+1]).
std::vector<size_t> code_point_offsets(std::string_view s);
size_t code_point_count(std::string_view s);

// str.strip / lstrip / rstrip: without chars, Unicode whitespace.
std::string py_strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right);
// str.split / rsplit: without sep, runs of whitespace and no empty pieces.
std::vector<std::string> py_split(std::string_view s, const std::optional<std::string>& sep,
                                  int64_t maxsplit);
std::vector<std::string> py_rsplit(std::string_view s, const std::optional<std::string>& sep,
                                   int64_t maxsplit);
std::string py_replace(std::string_view s, std::string_view old, std::string_view replacement, int64_t count);
int64_t py_count(std::string_view s, std::string_view needle);
// str.find: a code point index, -1 when absent.
int64_t py_find(std::string_view s, std::string_view needle);

std::string py_upper(std::string_view s); // ASCII and Latin-1/Greek/Cyrillic basics
std::string py_lower(std::string_view s);
std::string py_capitalize(std::string_view s); // first upper, the rest lower
std::string py_title(std::string_view s);      // str.title(): a letter after a non-letter is upper
// Jinja's |title: words begin after whitespace, '-', '(', '{', '[' or '<'.
std::string jinja_title(std::string_view s);

} // namespace hearth::chat
