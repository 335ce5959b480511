#pragma once
// What every family's parser shares: where a JSON object or array written in a reply ends, and
// a call read from a {"name", "arguments" | "parameters", "id"?} object.
#include "engine/tools/tool_call.h"
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::engine {

// The end (one past the closing bracket) of the object or array starting at text[start];
// npos when text[start] opens none or the text ends before it closes.
size_t json_value_end(std::string_view text, size_t start);

// The call an object describes; nullopt when it has no string "name".
std::optional<ToolCall> tool_call_from_json(const nlohmann::ordered_json& object);

// The calls of `text`, whitespace around it ignored: one call object, an array of them, or
// objects one after another separated by ';' or whitespace. nullopt unless all of it is calls.
std::optional<std::vector<ToolCall>> tool_calls_from_text(std::string_view text);

std::string_view trim_whitespace(std::string_view text);

} // namespace hearth::engine
