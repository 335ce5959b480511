#include "engine/chat/template_builtin_support.h"

namespace hearth::chat::builtins {

const std::string& require_string(const Value& v, std::string_view what) {
    if (!v.is_string()) fail(std::string(what) + " expects a string, got " + std::string(v.type_name()));
    return v.as_string();
}

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> lines;
    std::string current;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' || c == '\x1e') {
            if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
            lines.push_back(std::move(current));
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) lines.push_back(std::move(current));
    return lines;
}

} // namespace hearth::chat::builtins
