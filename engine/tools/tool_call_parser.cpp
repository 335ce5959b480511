#include "engine/tools/tool_call_parser.h"

namespace hearth::engine {

ToolCallReply parse_tool_calls(ToolFamily family, std::string_view reply) {
    switch (family) {
    case ToolFamily::Hermes:
        return parse_hermes_tool_calls(reply);
    case ToolFamily::Llama3:
        return parse_llama3_tool_calls(reply);
    case ToolFamily::Mistral:
        return parse_mistral_tool_calls(reply);
    case ToolFamily::FencedJson:
        return parse_fenced_json_tool_calls(reply);
    }
    return {std::string(reply), {}};
}

std::vector<std::string_view> tool_call_openers(ToolFamily family) {
    switch (family) {
    case ToolFamily::Hermes:
        return {"<tool_call>"};
    case ToolFamily::Llama3:
        return {"<|python_tag|>"};
    case ToolFamily::Mistral:
        return {"[TOOL_CALLS]"};
    case ToolFamily::FencedJson:
        return {"```"};
    }
    return {};
}

bool tool_calls_may_be_bare_json(ToolFamily family) {
    return family == ToolFamily::Llama3 || family == ToolFamily::Mistral;
}

} // namespace hearth::engine
