// Mistral: [TOOL_CALLS] then a JSON array of {"name", "arguments", "id"} (the id nine letters and
// digits); the text before the marker is the content. [TOOL_CALLS] is a control token in Mistral's
// vocabularies, which decodes to no text: a reply that is such an array alone is calls too.
#include "engine/tools/tool_call_json.h"
#include "engine/tools/tool_call_parser.h"

namespace hearth::engine {

ToolCallReply parse_mistral_tool_calls(std::string_view reply) {
    static constexpr std::string_view kMarker = "[TOOL_CALLS]";
    ToolCallReply out;
    if (reply.find(kMarker) == std::string_view::npos) {
        const std::string_view body = trim_whitespace(reply);
        if (!body.empty() && body.front() == '[')
            if (auto calls = tool_calls_from_text(body)) {
                out.calls = std::move(*calls);
                return out;
            }
    }
    size_t pos = 0;
    while (pos < reply.size()) {
        const size_t marker = reply.find(kMarker, pos);
        if (marker == std::string_view::npos) break;
        out.content += reply.substr(pos, marker - pos);
        size_t start = marker + kMarker.size();
        while (start < reply.size() && (reply[start] == ' ' || reply[start] == '\n'))
            ++start;
        const size_t end = json_value_end(reply, start);
        const auto calls = end == std::string_view::npos
                               ? std::nullopt
                               : tool_calls_from_text(reply.substr(start, end - start));
        if (!calls) { // not a call list: the rest stays text
            out.content += reply.substr(marker);
            pos = reply.size();
            break;
        }
        out.calls.insert(out.calls.end(), calls->begin(), calls->end());
        pos = end;
    }
    if (pos < reply.size()) out.content += reply.substr(pos);
    return out;
}

} // namespace hearth::engine
