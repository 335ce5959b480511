// Llama 3.x: a call is the whole reply as JSON, {"name": ..., "parameters": {...}} (several
// separated by ';'), or whatever follows <|python_tag|>: such JSON, or code for the built-in
// python tool ({"code": ...}).
#include "engine/tools/tool_call_json.h"
#include "engine/tools/tool_call_parser.h"

namespace hearth::engine {

ToolCallReply parse_llama3_tool_calls(std::string_view reply) {
    static constexpr std::string_view kPythonTag = "<|python_tag|>";
    ToolCallReply out;
    if (const size_t tag = reply.find(kPythonTag); tag != std::string_view::npos) {
        const std::string_view rest = trim_whitespace(reply.substr(tag + kPythonTag.size()));
        out.content = std::string(reply.substr(0, tag));
        if (auto calls = tool_calls_from_text(rest)) {
            out.calls = std::move(*calls);
        } else {
            out.calls.push_back(
                ToolCall{"python", nlohmann::ordered_json{{"code", std::string(rest)}}.dump(), {}});
        }
        return out;
    }
    const std::string_view body = trim_whitespace(reply);
    if (!body.empty() && body.front() == '{')
        if (auto calls = tool_calls_from_text(body)) {
            out.calls = std::move(*calls);
            return out;
        }
    out.content = std::string(reply);
    return out;
}

} // namespace hearth::engine
