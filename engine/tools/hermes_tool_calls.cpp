// Hermes and Qwen: each call is <tool_call>{"name": ..., "arguments": {...}}</tool_call>, any
// number of them with text between; the last closing tag may be missing (the reply ran out).
#include "engine/tools/tool_call_json.h"
#include "engine/tools/tool_call_parser.h"

namespace hearth::engine {

ToolCallReply parse_hermes_tool_calls(std::string_view reply) {
    static constexpr std::string_view kOpen = "<tool_call>";
    static constexpr std::string_view kClose = "</tool_call>";
    ToolCallReply out;
    size_t pos = 0;
    while (pos < reply.size()) {
        const size_t open = reply.find(kOpen, pos);
        if (open == std::string_view::npos) break;
        const size_t body = open + kOpen.size();
        const size_t close = reply.find(kClose, body);
        const size_t end = close == std::string_view::npos ? reply.size() : close + kClose.size();
        const auto calls = tool_calls_from_text(
            reply.substr(body, (close == std::string_view::npos ? reply.size() : close) - body));
        out.content += reply.substr(pos, open - pos);
        if (calls)
            out.calls.insert(out.calls.end(), calls->begin(), calls->end());
        else
            out.content += reply.substr(open, end - open); // not a call after all: kept as text
        pos = end;
    }
    if (pos < reply.size()) out.content += reply.substr(pos);
    return out;
}

} // namespace hearth::engine
