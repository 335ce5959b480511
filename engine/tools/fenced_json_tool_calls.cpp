// Gemma and Phi, whose templates have no tool syntax, call a function with a fenced block: ```json
// (or ```tool_call) holding {"name", "arguments"} objects, or ```tool_code holding the same JSON or
// a Python call, name(key=value, ...), possibly inside print(...), with literal values.
#include "engine/tools/tool_call_json.h"
#include "engine/tools/tool_call_parser.h"
#include <cctype>

namespace hearth::engine {

namespace {

class PythonCallReader {
public:
    explicit PythonCallReader(std::string_view text) : text_(text) {}

    std::optional<ToolCall> read() {
        std::string name = identifier();
        if (name == "print" && peek('(')) { // print(name(...)), as Gemma's examples write
            ++pos_;
            auto inner = read_call_named(identifier());
            if (!inner || !peek(')')) return std::nullopt;
            ++pos_;
            return at_end() ? inner : std::nullopt;
        }
        auto call = read_call_named(std::move(name));
        return call && at_end() ? call : std::nullopt;
    }

private:
    std::optional<ToolCall> read_call_named(std::string name) {
        if (name.empty() || !peek('(')) return std::nullopt;
        ++pos_;
        nlohmann::ordered_json arguments = nlohmann::ordered_json::object();
        while (!peek(')')) {
            const std::string key = identifier();
            if (key.empty() || !peek('=')) return std::nullopt;
            ++pos_;
            auto value = literal();
            if (!value) return std::nullopt;
            arguments[key] = std::move(*value);
            if (peek(','))
                ++pos_;
            else if (!peek(')'))
                return std::nullopt;
        }
        ++pos_;
        return ToolCall{std::move(name), arguments.dump(), {}};
    }

    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }
    bool peek(char c) {
        skip_space();
        return pos_ < text_.size() && text_[pos_] == c;
    }
    bool at_end() {
        skip_space();
        return pos_ == text_.size();
    }
    std::string identifier() {
        skip_space();
        const size_t start = pos_;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                       text_[pos_] == '_' || text_[pos_] == '.'))
            ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }
    std::optional<nlohmann::ordered_json> literal() {
        skip_space();
        if (pos_ >= text_.size()) return std::nullopt;
        const char quote = text_[pos_];
        if (quote == '"' || quote == '\'') {
            std::string value;
            for (++pos_; pos_ < text_.size(); ++pos_) {
                char c = text_[pos_];
                if (c == quote) {
                    ++pos_;
                    return nlohmann::ordered_json(value);
                }
                if (c == '\\' && pos_ + 1 < text_.size()) {
                    c = text_[++pos_];
                    if (c == 'n')
                        c = '\n';
                    else if (c == 't')
                        c = '\t';
                }
                value += c;
            }
            return std::nullopt;
        }
        const std::string word = identifier_or_number();
        if (word == "True") return nlohmann::ordered_json(true);
        if (word == "False") return nlohmann::ordered_json(false);
        if (word == "None") return nlohmann::ordered_json(nullptr);
        const auto number = nlohmann::ordered_json::parse(word, nullptr, false);
        if (number.is_discarded() || !number.is_number()) return std::nullopt;
        return number;
    }
    std::string identifier_or_number() {
        const size_t start = pos_;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                       text_[pos_] == '.' || text_[pos_] == '-' || text_[pos_] == '+'))
            ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }

    std::string_view text_;
    size_t pos_ = 0;
};

std::optional<std::vector<ToolCall>> calls_in_block(std::string_view language, std::string_view body) {
    if (language != "json" && language != "tool_code" && language != "tool_call" && !language.empty())
        return std::nullopt;
    if (auto calls = tool_calls_from_text(body)) return calls;
    if (language == "tool_code")
        if (auto call = PythonCallReader(trim_whitespace(body)).read()) return std::vector<ToolCall>{*call};
    return std::nullopt;
}

} // namespace

ToolCallReply parse_fenced_json_tool_calls(std::string_view reply) {
    static constexpr std::string_view kFence = "```";
    ToolCallReply out;
    size_t pos = 0;
    while (pos < reply.size()) {
        const size_t open = reply.find(kFence, pos);
        if (open == std::string_view::npos) break;
        const size_t line_end = reply.find('\n', open + kFence.size());
        if (line_end == std::string_view::npos) break;
        const size_t close = reply.find(kFence, line_end + 1);
        const size_t body_end = close == std::string_view::npos ? reply.size() : close;
        const size_t end = close == std::string_view::npos ? reply.size() : close + kFence.size();
        const std::string_view language =
            trim_whitespace(reply.substr(open + kFence.size(), line_end - open - kFence.size()));
        const auto calls = calls_in_block(language, reply.substr(line_end + 1, body_end - line_end - 1));
        out.content += reply.substr(pos, open - pos);
        if (calls)
            out.calls.insert(out.calls.end(), calls->begin(), calls->end());
        else
            out.content += reply.substr(open, end - open);
        pos = end;
    }
    if (pos < reply.size()) out.content += reply.substr(pos);
    return out;
}

} // namespace hearth::engine
