#include "engine/chat/template_lexer.h"
#include "engine/chat/template_error.h"
#include "engine/chat/template_strings.h"
#include <algorithm>
#include <cctype>

namespace hearth::chat {

namespace {

// Jinja reads every newline style as "\n" and, by default, drops one trailing newline.
std::string normalize_source(std::string_view source, bool keep_trailing_newline) {
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        } else {
            out += source[i];
        }
    }
    if (!keep_trailing_newline && !out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\n';
}

class Lexer {
public:
    Lexer(std::string source, const LexerOptions& options) : src_(std::move(source)), options_(options) {
        line_starts_.push_back(0);
        for (size_t i = 0; i < src_.size(); ++i)
            if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }

    std::vector<Token> run() {
        size_t pos = 0;
        while (pos < src_.size()) {
            size_t tag = find_tag(pos);
            std::string text = src_.substr(pos, (tag == std::string::npos ? src_.size() : tag) - pos);
            if (tag == std::string::npos) {
                emit_text(std::move(text), pos);
                break;
            }
            char type = src_[tag + 1];
            char sign =
                tag + 2 < src_.size() && (src_[tag + 2] == '-' || src_[tag + 2] == '+') ? src_[tag + 2] : 0;
            if (sign == '-') {
                while (!text.empty() && is_blank(text.back()))
                    text.pop_back();
            } else if (sign != '+' && options_.lstrip_blocks && type != '{') {
                lstrip_before_tag(text, pos);
            }
            emit_text(std::move(text), pos);
            size_t body = tag + 2 + (sign ? 1 : 0);
            if (type == '#') {
                pos = skip_comment(tag, body);
            } else if (type == '%' && is_raw_tag(body)) {
                pos = read_raw(tag, body);
            } else {
                pos = read_tag(tag, body, type);
            }
        }
        Token end;
        end.kind = TokenKind::End;
        locate(end, src_.size());
        tokens_.push_back(std::move(end));
        return std::move(tokens_);
    }

private:
    std::string src_;
    LexerOptions options_;
    std::vector<size_t> line_starts_;
    std::vector<Token> tokens_;

    void locate(Token& token, size_t offset) const {
        auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
        size_t line = static_cast<size_t>(it - line_starts_.begin());
        token.line = static_cast<int>(line);
        token.column = static_cast<int>(offset - line_starts_[line - 1]) + 1;
    }

    [[noreturn]] void fail(const std::string& problem, size_t offset) const {
        Token where;
        locate(where, offset);
        throw TemplateFailure(problem, where.line, where.column);
    }

    size_t find_tag(size_t from) const {
        for (size_t i = src_.find('{', from); i != std::string::npos; i = src_.find('{', i + 1)) {
            if (i + 1 < src_.size() && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#'))
                return i;
        }
        return std::string::npos;
    }

    void emit(TokenKind kind, std::string text, size_t offset) {
        Token token;
        token.kind = kind;
        token.text = std::move(text);
        locate(token, offset);
        tokens_.push_back(std::move(token));
    }

    void emit_text(std::string text, size_t offset) {
        if (!text.empty()) emit(TokenKind::Text, std::move(text), offset);
    }

    // lstrip_blocks: blanks between the start of a line and a block or comment tag go.
    void lstrip_before_tag(std::string& text, size_t text_start) const {
        size_t line_begin = text.rfind('\n');
        line_begin = line_begin == std::string::npos ? 0 : line_begin + 1;
        bool line_starting = text_start == 0 || src_[text_start - 1] == '\n';
        if (line_begin == 0 && !line_starting) return;
        for (size_t i = line_begin; i < text.size(); ++i)
            if (!is_blank(text[i])) return;
        text.resize(line_begin);
    }

    // After a closing delimiter: "-" strips all following whitespace, otherwise
    // trim_blocks drops one newline after block and comment tags.
    size_t after_close(size_t pos, char marker, bool trims) const {
        if (marker == '-') {
            while (pos < src_.size() && is_blank(src_[pos]))
                ++pos;
        } else if (marker != '+' && trims && options_.trim_blocks && pos < src_.size() && src_[pos] == '\n') {
            ++pos;
        }
        return pos;
    }

    size_t skip_comment(size_t tag, size_t body) const {
        size_t end = src_.find("#}", body);
        if (end == std::string::npos) fail("unclosed comment", tag);
        char marker = end > body && (src_[end - 1] == '-' || src_[end - 1] == '+') ? src_[end - 1] : 0;
        return after_close(end + 2, marker, true);
    }

    // Matches `\s*word\s*[-+]?%}` at pos; returns the offset after it, or npos.
    size_t match_block_word(size_t pos, std::string_view word, char* marker) const {
        while (pos < src_.size() && is_blank(src_[pos]))
            ++pos;
        if (src_.compare(pos, word.size(), word) != 0) return std::string::npos;
        pos += word.size();
        while (pos < src_.size() && is_blank(src_[pos]))
            ++pos;
        *marker = 0;
        if (pos < src_.size() && (src_[pos] == '-' || src_[pos] == '+')) *marker = src_[pos++];
        if (src_.compare(pos, 2, "%}") != 0) return std::string::npos;
        return pos + 2;
    }

    bool is_raw_tag(size_t body) const {
        char marker = 0;
        return match_block_word(body, "raw", &marker) != std::string::npos;
    }

    size_t read_raw(size_t tag, size_t body) {
        char open_marker = 0;
        size_t content = match_block_word(body, "raw", &open_marker);
        if (open_marker == '-') content = after_close(content, '-', false);
        for (size_t at = src_.find("{%", content); at != std::string::npos; at = src_.find("{%", at + 2)) {
            size_t word = at + 2;
            char sign = word < src_.size() && (src_[word] == '-' || src_[word] == '+') ? src_[word++] : 0;
            char close_marker = 0;
            size_t after = match_block_word(word, "endraw", &close_marker);
            if (after == std::string::npos) continue;
            std::string text = src_.substr(content, at - content);
            if (sign == '-')
                while (!text.empty() && is_blank(text.back()))
                    text.pop_back();
            emit_text(std::move(text), content);
            return after_close(after, close_marker, true);
        }
        fail("unclosed 'raw' block (missing {% endraw %})", tag);
    }

    size_t read_tag(size_t tag, size_t body, char type) {
        const bool is_block = type == '%';
        const char* close = is_block ? "%}" : "}}";
        emit(is_block ? TokenKind::BlockBegin : TokenKind::VariableBegin, is_block ? "{%" : "{{", tag);
        std::vector<char> brackets;
        size_t pos = body;
        while (true) {
            while (pos < src_.size() && is_blank(src_[pos]))
                ++pos;
            if (pos >= src_.size()) fail(std::string("unclosed tag '") + (is_block ? "{%" : "{{") + "'", tag);
            if (brackets.empty()) {
                char marker = 0;
                size_t close_at = pos;
                if ((src_[pos] == '-' || src_[pos] == '+') && src_.compare(pos + 1, 2, close) == 0) {
                    marker = src_[pos];
                    close_at = pos + 1;
                }
                if (src_.compare(close_at, 2, close) == 0 && (marker != '+' || is_block)) {
                    emit(is_block ? TokenKind::BlockEnd : TokenKind::VariableEnd, close, pos);
                    return after_close(close_at + 2, marker, is_block);
                }
            }
            pos = read_token(pos, brackets);
        }
    }

    size_t read_token(size_t pos, std::vector<char>& brackets) {
        const char c = src_[pos];
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t end = pos;
            while (end < src_.size() &&
                   (std::isalnum(static_cast<unsigned char>(src_[end])) || src_[end] == '_'))
                ++end;
            emit(TokenKind::Name, src_.substr(pos, end - pos), pos);
            return end;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) return read_number(pos);
        if (c == '\'' || c == '"') return read_string(pos);
        static const char* const two_char_ops[] = {"**", "//", "==", "!=", "<=", ">="};
        for (const char* op : two_char_ops) {
            if (src_.compare(pos, 2, op) == 0) {
                emit(TokenKind::Operator, op, pos);
                return pos + 2;
            }
        }
        if (std::string_view("+-*/%~<>=()[]{},.:|").find(c) == std::string_view::npos)
            fail(std::string("unexpected character '") + c + "'", pos);
        if (c == '(' || c == '[' || c == '{') brackets.push_back(c);
        if (c == ')' || c == ']' || c == '}') {
            char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (brackets.empty() || brackets.back() != expected)
                fail(std::string("unexpected '") + c + "'", pos);
            brackets.pop_back();
        }
        emit(TokenKind::Operator, std::string(1, c), pos);
        return pos + 1;
    }

    size_t read_digits(size_t pos, std::string& out) const {
        while (pos < src_.size() &&
               (std::isdigit(static_cast<unsigned char>(src_[pos])) || src_[pos] == '_')) {
            if (src_[pos] != '_') out += src_[pos];
            ++pos;
        }
        return pos;
    }

    size_t read_number(size_t start) {
        std::string digits;
        size_t pos = read_digits(start, digits);
        bool after_dot =
            !tokens_.empty() && tokens_.back().kind == TokenKind::Operator && tokens_.back().text == ".";
        bool is_float = false;
        if (!after_dot && pos + 1 < src_.size() && src_[pos] == '.' &&
            std::isdigit(static_cast<unsigned char>(src_[pos + 1]))) {
            digits += '.';
            pos = read_digits(pos + 1, digits);
            is_float = true;
        }
        if (!after_dot && pos < src_.size() && (src_[pos] == 'e' || src_[pos] == 'E')) {
            size_t exp = pos + 1;
            std::string exponent = "e";
            if (exp < src_.size() && (src_[exp] == '+' || src_[exp] == '-')) exponent += src_[exp++];
            if (exp < src_.size() && std::isdigit(static_cast<unsigned char>(src_[exp]))) {
                pos = read_digits(exp, exponent);
                digits += exponent;
                is_float = true;
            }
        }
        emit(is_float ? TokenKind::Float : TokenKind::Integer, digits, start);
        return pos;
    }

    static int hex_value(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    size_t read_string(size_t start) {
        const char quote = src_[start];
        std::string value;
        size_t pos = start + 1;
        while (true) {
            if (pos >= src_.size()) fail("unterminated string literal", start);
            char c = src_[pos];
            if (c == quote) break;
            if (c != '\\') {
                value += c;
                ++pos;
                continue;
            }
            if (pos + 1 >= src_.size()) fail("unterminated string literal", start);
            char e = src_[pos + 1];
            pos += 2;
            switch (e) {
            case 'n':
                value += '\n';
                break;
            case 't':
                value += '\t';
                break;
            case 'r':
                value += '\r';
                break;
            case 'a':
                value += '\a';
                break;
            case 'b':
                value += '\b';
                break;
            case 'f':
                value += '\f';
                break;
            case 'v':
                value += '\v';
                break;
            case '0':
                value += '\0';
                break;
            case '\\':
                value += '\\';
                break;
            case '\'':
                value += '\'';
                break;
            case '"':
                value += '"';
                break;
            case '\n':
                break; // a backslash-newline continues the line
            case 'x':
            case 'u':
            case 'U': {
                size_t width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                uint32_t cp = 0;
                for (size_t k = 0; k < width; ++k) {
                    int h = pos + k < src_.size() ? hex_value(src_[pos + k]) : -1;
                    if (h < 0) fail(std::string("truncated \\") + e + " escape in string literal", pos - 2);
                    cp = cp * 16 + static_cast<uint32_t>(h);
                }
                if (cp > 0x10FFFF) fail("invalid \\U escape in string literal", pos - 2);
                append_utf8(value, cp);
                pos += width;
                break;
            }
            default: // Python keeps unknown escapes as they are
                value += '\\';
                value += e;
            }
        }
        emit(TokenKind::String, std::move(value), start);
        return pos + 1;
    }
};

} // namespace

std::vector<Token> tokenize_template(std::string_view source, const LexerOptions& options) {
    return Lexer(normalize_source(source, options.keep_trailing_newline), options).run();
}

} // namespace hearth::chat
