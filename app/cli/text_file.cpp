#include "app/cli/text_file.h"
#include "engine/error.h"
#include <fstream>
#include <sstream>

namespace hearth::cli {

std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw hearth::Error(path + ": cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace hearth::cli
