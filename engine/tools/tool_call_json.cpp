#include "engine/tools/tool_call_json.h"

namespace hearth::engine {

size_t json_value_end(std::string_view text, size_t start) {
    if (start >= text.size() || (text[start] != '{' && text[start] != '[')) return std::string_view::npos;
    int depth = 0;
    bool in_string = false;
    for (size_t i = start; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::string_view::npos;
}

std::string_view trim_whitespace(std::string_view text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<ToolCall> tool_call_from_json(const nlohmann::ordered_json& object) {
    if (!object.is_object()) return std::nullopt;
    const auto name = object.find("name");
    if (name == object.end() || !name->is_string() || name->get_ref<const std::string&>().empty())
        return std::nullopt;
    ToolCall call;
    call.name = name->get<std::string>();
    auto arguments = object.find("arguments");
    if (arguments == object.end()) arguments = object.find("parameters");
    if (arguments != object.end()) {
        if (arguments->is_string())
            call.arguments = arguments->get<std::string>(); // already JSON text, as OpenAI writes it
        else if (arguments->is_object())
            call.arguments = arguments->dump();
        else
            return std::nullopt;
    }
    if (const auto id = object.find("id"); id != object.end() && id->is_string())
        call.id = id->get<std::string>();
    return call;
}

std::optional<std::vector<ToolCall>> tool_calls_from_text(std::string_view text) {
    std::vector<ToolCall> calls;
    size_t pos = 0;
    while (true) {
        while (pos < text.size() && (text[pos] == ';' || text[pos] == ' ' || text[pos] == '\t' ||
                                     text[pos] == '\r' || text[pos] == '\n'))
            ++pos;
        if (pos == text.size()) break;
        const size_t end = json_value_end(text, pos);
        if (end == std::string_view::npos) return std::nullopt;
        const auto value = nlohmann::ordered_json::parse(text.substr(pos, end - pos), nullptr, false);
        if (value.is_discarded()) return std::nullopt;
        if (value.is_array()) {
            if (value.empty()) return std::nullopt;
            for (const auto& item : value) {
                auto call = tool_call_from_json(item);
                if (!call) return std::nullopt;
                calls.push_back(std::move(*call));
            }
        } else {
            auto call = tool_call_from_json(value);
            if (!call) return std::nullopt;
            calls.push_back(std::move(*call));
        }
        pos = end;
    }
    if (calls.empty()) return std::nullopt;
    return calls;
}

} // namespace hearth::engine
