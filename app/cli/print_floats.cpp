#include "app/cli/print_floats.h"
#include <cstdio>

namespace hearth::cli {

void print_float_row(const float* row, int32_t count, std::string& line) {
    line.clear();
    char number[32];
    for (int32_t v = 0; v < count; ++v) {
        const int length = std::snprintf(number, sizeof number, "%.9g", static_cast<double>(row[v]));
        if (v > 0) line += ' ';
        line.append(number, static_cast<size_t>(length));
    }
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
}

} // namespace hearth::cli
