#pragma once
// A function call a model wrote in its reply, as the OpenAI API returns it: the function's
// name, its arguments as JSON text, and the call's id (which the tool's result names).
#include <string>
#include <vector>

namespace hearth::engine {

struct ToolCall {
    std::string name;
    std::string arguments = "{}"; // JSON text, an object as the tool's schema describes
    std::string id;               // empty until one is given (the model's own, or make_tool_call_id)
    bool operator==(const ToolCall&) const = default;
};

// A reply split into the text outside the calls and the calls, in the order written.
struct ToolCallReply {
    std::string content;
    std::vector<ToolCall> calls;
};

} // namespace hearth::engine
