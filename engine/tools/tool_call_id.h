#pragma once
// Ids for the calls a reply makes, in the form the family's template takes back: Mistral's
// templates refuse any id but nine letters and digits; the others get OpenAI's "call_" + 24.
#include "engine/tools/tool_family.h"
#include <cstdint>
#include <string>

namespace hearth::engine {

std::string make_tool_call_id(ToolFamily family, uint64_t random_bits);

} // namespace hearth::engine
