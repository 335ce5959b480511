#pragma once
// One line of floats on stdout, "%.9g" (enough digits to give back every float exactly),
// space-separated; `line` is reused between calls.
#include <cstdint>
#include <string>

namespace hearth::cli {

void print_float_row(const float* row, int32_t count, std::string& line);

} // namespace hearth::cli
