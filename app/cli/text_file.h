#pragma once
// A whole text file read into memory, for the commands that take one (templates, messages,
// grammars, schemas).
#include <string>

namespace hearth::cli {

// Throws hearth::Error("<path>: cannot open file") when it cannot be read.
std::string read_text_file(const std::string& path);

} // namespace hearth::cli
