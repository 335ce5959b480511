#pragma once
// A finished reply split into its text and the function calls it holds, one parser per family
// (tool_family.h), each in its own file. Text that looks like a call but does not parse stays in
// the content: nothing the model wrote is dropped. Calls keep the model's id if it wrote one.
#include "engine/tools/tool_call.h"
#include "engine/tools/tool_family.h"
#include <string_view>
#include <vector>

namespace hearth::engine {

ToolCallReply parse_hermes_tool_calls(std::string_view reply);
ToolCallReply parse_llama3_tool_calls(std::string_view reply);
ToolCallReply parse_mistral_tool_calls(std::string_view reply);
ToolCallReply parse_fenced_json_tool_calls(std::string_view reply);

ToolCallReply parse_tool_calls(ToolFamily family, std::string_view reply);

// The text that opens a call in this family's replies; while a reply streams, text that may be
// the start of one is held back (tool_call_stream.h). The content is the text outside the calls
// exactly, whitespace included, so that a streamed reply gives the same.
std::vector<std::string_view> tool_call_openers(ToolFamily family);
// Where the calls written so far in `held` (text from a call's opener on) end, as far as they are
// complete: the calls parsed from held[0, end) are final however the reply goes on. 0: none yet
// (always for Llama 3, whose bare JSON may go on with "; {...}").
size_t closed_tool_calls_end(ToolFamily family, std::string_view held);

// Whether a reply that starts with '{' or '[' may be calls: Llama 3's bare JSON form, and Mistral's
// whose [TOOL_CALLS] control token decodes to no text.
bool tool_calls_may_be_bare_json(ToolFamily family);

} // namespace hearth::engine
