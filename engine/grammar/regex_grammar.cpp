#include "engine/grammar/regex_grammar.h"
#include <algorithm>
#include <cstdio>

namespace hearth::engine {

namespace {

void append_utf8(std::string& out, uint32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

// A character as GBNF writes it inside a class or a literal.
std::string gbnf_char(uint32_t c) {
    if (c < 0x20 || c == 0x7F) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02X", c);
        return hex;
    }
    if (c == '\\' || c == '"' || c == ']' || c == '[' || c == '-' || c == '^')
        return std::string("\\") + static_cast<char>(c);
    std::string out;
    append_utf8(out, c);
    return out;
}

// What a JSON string must escape: never generated raw.
const std::vector<CharRange> kJsonEscaped{{0, 0x1F}, {'"', '"'}, {'\\', '\\'}};

std::vector<CharRange> without(std::vector<CharRange> ranges, const std::vector<CharRange>& removed) {
    for (const CharRange& cut : removed) {
        std::vector<CharRange> kept;
        for (const CharRange& r : ranges) {
            if (r.last < cut.first || r.first > cut.last) {
                kept.push_back(r);
                continue;
            }
            if (r.first < cut.first) kept.push_back({r.first, cut.first - 1});
            if (r.last > cut.last) kept.push_back({cut.last + 1, r.last});
        }
        ranges = std::move(kept);
    }
    return ranges;
}

class RegexConverter {
public:
    explicit RegexConverter(std::string_view pattern) : p_(pattern) {}

    std::string convert() {
        if (peek() == '^') ++pos_;
        std::string out = alternation();
        if (pos_ < p_.size()) fail(p_[pos_] == ')' ? "a ')' without its '('" : "unexpected character");
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw GrammarError("pattern, offset " + std::to_string(pos_) + ": " + why);
    }
    char peek() const { return pos_ < p_.size() ? p_[pos_] : '\0'; }
    bool at_end() const { return pos_ >= p_.size(); }

    uint32_t next_char() {
        const auto byte = static_cast<unsigned char>(p_[pos_]);
        const int length = byte < 0x80         ? 1
                           : (byte >> 5) == 6  ? 2
                           : (byte >> 4) == 14 ? 3
                           : (byte >> 3) == 30 ? 4
                                               : 0;
        if (length == 0 || pos_ + static_cast<size_t>(length) > p_.size()) fail("invalid UTF-8");
        uint32_t value = length == 1 ? byte : byte & (0x7F >> length);
        for (int i = 1; i < length; ++i)
            value = (value << 6) | (static_cast<unsigned char>(p_[pos_ + static_cast<size_t>(i)]) & 0x3F);
        pos_ += static_cast<size_t>(length);
        return value;
    }

    static std::string set_text(const std::vector<CharRange>& ranges, bool negated) {
        std::vector<CharRange> r = negated ? ranges : without(ranges, kJsonEscaped);
        if (negated) r.insert(r.end(), kJsonEscaped.begin(), kJsonEscaped.end());
        if (r.empty() && !negated) return "[^\\x00-\\U0010FFFF]"; // nothing: matches no character
        std::string out = negated ? "[^" : "[";
        for (const CharRange& range : r) {
            out += gbnf_char(range.first);
            if (range.last != range.first) out += "-" + gbnf_char(range.last);
        }
        return out + "]";
    }

    // \d \w \s and their negations; false for other escapes.
    static bool class_escape(char e, std::vector<CharRange>& ranges, bool& negated) {
        negated = e >= 'A' && e <= 'Z';
        switch (e) {
        case 'd':
        case 'D':
            ranges = {{'0', '9'}};
            return true;
        case 'w':
        case 'W':
            ranges = {{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'_', '_'}};
            return true;
        case 's':
        case 'S':
            ranges = e == 's' ? std::vector<CharRange>{{' ', ' '}}
                              : std::vector<CharRange>{{' ', ' '}, {'\t', '\r'}};
            return true;
        default:
            return false;
        }
    }

    uint32_t escaped_literal(char e) {
        switch (e) {
        case 'n':
            return '\n';
        case 't':
            return '\t';
        case 'r':
            return '\r';
        default:
            if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))
                fail(std::string("the escape \\") + e + " is not supported");
            return static_cast<uint32_t>(static_cast<unsigned char>(e));
        }
    }

    std::string literal(uint32_t c) {
        // A character JSON escapes is written escaped, as the JSON text holds it.
        if (c == '"') return "\"\\\\\\\"\"";
        if (c == '\\') return "\"\\\\\\\\\"";
        if (c < 0x20) fail("a control character in the pattern");
        std::string text;
        append_utf8(text, c);
        return gbnf_literal(text);
    }

    std::string char_class() {
        ++pos_; // '['
        bool negated = false;
        if (peek() == '^') {
            negated = true;
            ++pos_;
        }
        std::vector<CharRange> ranges;
        bool first = true;
        while (first || peek() != ']') {
            if (at_end()) fail("a class without its closing ']'");
            first = false;
            uint32_t low;
            if (peek() == '\\') {
                ++pos_;
                if (at_end()) fail("a pattern that ends in '\\'");
                const char e = p_[pos_++];
                std::vector<CharRange> escaped;
                bool escaped_negated = false;
                if (class_escape(e, escaped, escaped_negated)) {
                    if (escaped_negated) fail("\\D, \\W or \\S inside a class is not supported");
                    ranges.insert(ranges.end(), escaped.begin(), escaped.end());
                    continue;
                }
                low = escaped_literal(e);
            } else {
                low = next_char();
            }
            uint32_t high = low;
            if (peek() == '-' && pos_ + 1 < p_.size() && p_[pos_ + 1] != ']') {
                ++pos_;
                if (peek() == '\\') {
                    ++pos_;
                    if (at_end()) fail("a pattern that ends in '\\'");
                    high = escaped_literal(p_[pos_++]);
                } else {
                    high = next_char();
                }
                if (high < low) fail("a range out of order");
            }
            ranges.push_back({low, high});
        }
        ++pos_; // ']'
        return set_text(ranges, negated);
    }

    std::string atom() {
        const char c = peek();
        if (c == '(') {
            ++pos_;
            if (peek() == '?') {
                if (p_.substr(pos_, 2) != "?:") fail("lookarounds and named groups are not supported");
                pos_ += 2;
            }
            std::string inner = alternation();
            if (peek() != ')') fail("a '(' without its ')'");
            ++pos_;
            return "(" + inner + ")";
        }
        if (c == '[') return char_class();
        if (c == '.') {
            ++pos_;
            return set_text({{'\n', '\n'}}, true);
        }
        if (c == '\\') {
            ++pos_;
            if (at_end()) fail("a pattern that ends in '\\'");
            const char e = p_[pos_++];
            std::vector<CharRange> ranges;
            bool negated = false;
            if (class_escape(e, ranges, negated)) return set_text(ranges, negated);
            if (e >= '1' && e <= '9') fail("backreferences are not supported");
            return literal(escaped_literal(e));
        }
        if (c == '^') fail("'^' is only understood at the start");
        if (c == '*' || c == '+' || c == '?' || c == '{') fail("nothing to repeat");
        return literal(next_char());
    }

    std::string quantifier(std::string atom) {
        const char c = peek();
        std::string suffix;
        if (c == '*' || c == '+' || c == '?') {
            ++pos_;
            suffix = std::string(1, c);
        } else if (c == '{') {
            const size_t close = p_.find('}', pos_);
            if (close == std::string_view::npos) fail("a '{' without its '}'");
            const std::string_view inside = p_.substr(pos_ + 1, close - pos_ - 1);
            const bool ok = !inside.empty() && inside.front() != ',' &&
                            std::all_of(inside.begin(), inside.end(),
                                        [](char d) { return (d >= '0' && d <= '9') || d == ','; }) &&
                            std::count(inside.begin(), inside.end(), ',') <= 1;
            if (!ok) fail("a malformed {m,n} quantifier");
            suffix = "{" + std::string(inside) + "}";
            pos_ = close + 1;
        } else {
            return atom;
        }
        if (peek() == '?') ++pos_; // lazy: the same language
        if (peek() == '+') fail("possessive quantifiers are not supported");
        if (peek() == '*' || peek() == '+' || peek() == '{') fail("a quantifier after a quantifier");
        return "(" + atom + ")" + suffix;
    }

    std::string sequence() {
        std::string out;
        while (!at_end() && peek() != '|' && peek() != ')') {
            if (peek() == '$') {
                ++pos_;
                if (!at_end() && peek() != ')' && peek() != '|') fail("'$' is only understood at the end");
                continue;
            }
            if (!out.empty()) out += ' ';
            out += quantifier(atom());
        }
        return out.empty() ? "\"\"" : out;
    }

    std::string alternation() {
        std::string out = sequence();
        while (peek() == '|') {
            ++pos_;
            out += " | " + sequence();
        }
        return out;
    }

    std::string_view p_;
    size_t pos_ = 0;
};

} // namespace

std::string gbnf_literal(std::string_view text) {
    std::string out = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::string regex_to_gbnf(std::string_view pattern) {
    return RegexConverter(pattern).convert();
}

} // namespace hearth::engine
