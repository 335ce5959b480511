#pragma once
// The grammar of a reply that must be one function call, in the family's wire format: e.g.
// <tool_call>\n{"name": <one of the tools>, "arguments": <that tool's JSON Schema>}\n</tool_call>
// for Hermes. Even a tiny random model then writes a call that parses and that the schema
// accepts. Used for OpenAI's tool_choice "required" (any of the tools) and a named function.
#include "engine/tools/tool_family.h"
#include <nlohmann/json.hpp>
#include <string>

namespace hearth::engine {

// `tools`: OpenAI's array of {"type": "function", "function": {"name", "parameters"}}; a tool
// without parameters takes any object. Returns GBNF text; throws GrammarError naming
// "tools[i].function.parameters" and the JSON pointer of a schema it cannot convert.
std::string forced_tool_call_gbnf(ToolFamily family, const nlohmann::ordered_json& tools);

} // namespace hearth::engine
