#pragma once
// The ways models write function calls ("families"), and which one a model uses, told by its
// chat template:
// - Hermes (Qwen 2.5/3, Hermes, SmolLM, and the ChatML fallback): <tool_call>{"name",
// "arguments"}</tool_call>,
//   several in one reply;
// - Llama 3.x: the reply is {"name", "parameters"} (or several, ";"-separated), or follows <|python_tag|>;
// - Mistral: [TOOL_CALLS][{"name", "arguments", "id"}, ...];
// - FencedJson (Gemma, Phi, whose templates have no tool syntax): a ```json (or ```tool_code)
//   block holding {"name", "arguments"}.
#include <string_view>

namespace hearth::engine {

enum class ToolFamily { Hermes, Llama3, Mistral, FencedJson };

ToolFamily tool_family_for_template(std::string_view template_source);
std::string_view tool_family_name(ToolFamily family);

} // namespace hearth::engine
