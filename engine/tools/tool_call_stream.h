#pragma once
// A reply's text as it streams, with the function calls taken out: text that cannot be part of
// a call is released at once; from the first text that may open one (a family's opener, a part
// of one at the end of what came so far, or JSON opening the reply where the family's calls may
// be bare) everything is held back, and at the end parsed (tool_call_parser.h). What push() and finish()
// release together is exactly the parser's content.
#include "engine/tools/tool_call.h"
#include "engine/tools/tool_family.h"
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::engine {

class ToolCallStream {
public:
    // max_calls: the calls finish() gives at most (OpenAI's parallel_tool_calls false: one); the
    // first ones written are kept.
    explicit ToolCallStream(ToolFamily family, size_t max_calls = SIZE_MAX)
        : family_(family), max_calls_(max_calls) {}

    // The text of `piece` (and of earlier pieces held back) that is content for certain.
    std::string push(std::string_view piece);
    // The calls completed since the last take (closed_tool_calls_end), while the reply goes on.
    std::vector<ToolCall> take_finished_calls();
    // The reply is complete: the rest of its content, and all its calls (those taken first).
    ToolCallReply finish();

private:
    ToolFamily family_;
    size_t max_calls_;
    std::string text_;     // everything so far
    size_t released_ = 0;  // text_[0, released_) went out as content
    bool holding_ = false; // from released_ on, a call may be being written
    size_t taken_ = 0;     // calls take_finished_calls gave
};

} // namespace hearth::engine
