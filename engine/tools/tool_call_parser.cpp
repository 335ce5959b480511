#include "engine/tools/tool_call_parser.h"
#include "engine/tools/tool_call_json.h"

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

size_t closed_tool_calls_end(ToolFamily family, std::string_view held) {
    switch (family) {
    case ToolFamily::Hermes: {
        static constexpr std::string_view kClose = "</tool_call>";
        const size_t close = held.rfind(kClose);
        return close == std::string_view::npos ? 0 : close + kClose.size();
    }
    case ToolFamily::Mistral: {
        static constexpr std::string_view kMarker = "[TOOL_CALLS]";
        size_t closed = 0;
        for (size_t pos = 0;;) {
            const size_t marker = held.find(kMarker, pos);
            size_t start = marker == std::string_view::npos ? pos : marker + kMarker.size();
            if (marker == std::string_view::npos && pos > 0) return closed; // only the first may be bare
            while (start < held.size() && (held[start] == ' ' || held[start] == '\n'))
                ++start;
            const size_t end = json_value_end(held, start);
            if (end == std::string_view::npos) return closed;
            closed = pos = end;
        }
    }
    case ToolFamily::FencedJson: {
        static constexpr std::string_view kFence = "```";
        size_t closed = 0;
        for (size_t pos = 0;;) {
            const size_t open = held.find(kFence, pos);
            const size_t line_end =
                open == std::string_view::npos ? open : held.find('\n', open + kFence.size());
            if (line_end == std::string_view::npos) return closed;
            const size_t close = held.find(kFence, line_end + 1);
            if (close == std::string_view::npos) return closed;
            closed = pos = close + kFence.size();
        }
    }
    case ToolFamily::Llama3:
        return 0;
    }
    return 0;
}

bool tool_calls_may_be_bare_json(ToolFamily family) {
    return family == ToolFamily::Llama3 || family == ToolFamily::Mistral;
}

} // namespace hearth::engine
