#include "engine/tools/tool_call_stream.h"
#include "engine/tools/tool_call_json.h"
#include "engine/tools/tool_call_parser.h"

namespace hearth::engine {

std::string ToolCallStream::push(std::string_view piece) {
    text_ += piece;
    if (holding_) return {};
    if (tool_calls_may_be_bare_json(family_) && released_ == 0) {
        const std::string_view body = trim_whitespace(text_);
        if (body.empty()) return {}; // not known yet
        if (body.front() == '{' || body.front() == '[') {
            holding_ = true;
            return {};
        }
    }
    size_t safe = text_.size();
    for (const std::string_view opener : tool_call_openers(family_)) {
        if (const size_t at = text_.find(opener, released_); at != std::string::npos) {
            safe = std::min(safe, at);
            holding_ = true;
            continue;
        }
        // The longest end of the text that an opener starts with.
        for (size_t n = std::min(opener.size() - 1, text_.size() - released_); n > 0; --n)
            if (std::string_view(text_).substr(text_.size() - n) == opener.substr(0, n)) {
                safe = std::min(safe, text_.size() - n);
                break;
            }
    }
    std::string out = text_.substr(released_, safe - released_);
    released_ = safe;
    return out;
}

std::vector<ToolCall> ToolCallStream::take_finished_calls() {
    if (!holding_) return {};
    const std::string_view held = std::string_view(text_).substr(released_);
    const size_t closed = closed_tool_calls_end(family_, held);
    if (closed == 0) return {};
    std::vector<ToolCall> calls = parse_tool_calls(family_, held.substr(0, closed)).calls;
    if (calls.size() > max_calls_) calls.resize(max_calls_);
    if (calls.size() <= taken_) return {};
    calls.erase(calls.begin(), calls.begin() + static_cast<std::ptrdiff_t>(taken_));
    taken_ += calls.size();
    return calls;
}

ToolCallReply ToolCallStream::finish() {
    ToolCallReply reply = parse_tool_calls(family_, std::string_view(text_).substr(released_));
    released_ = text_.size();
    if (reply.calls.size() > max_calls_) reply.calls.resize(max_calls_);
    return reply;
}

} // namespace hearth::engine
