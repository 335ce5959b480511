#pragma once
// Splits template source into text and the tokens inside {{ }} and {% %},
// applying whitespace control ({%- -%} {{- -}}), trim_blocks and lstrip_blocks,
// dropping {# comments #} and passing {% raw %} blocks through as text.
#include <string>
#include <string_view>
#include <vector>

namespace hearth::chat {

enum class TokenKind {
    Text,          // literal output
    VariableBegin, // {{
    VariableEnd,   // }}
    BlockBegin,    // {%
    BlockEnd,      // %}
    Name,
    Integer,
    Float,
    String, // text holds the unescaped value
    Operator,
    End, // end of the template
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string text;
    int line = 1;
    int column = 1;
};

struct LexerOptions {
    bool trim_blocks = true;
    bool lstrip_blocks = true;
    bool keep_trailing_newline = false;
};

// Throws TemplateFailure (located) on an unclosed tag, comment or string, or a stray character.
std::vector<Token> tokenize_template(std::string_view source, const LexerOptions& options);

} // namespace hearth::chat
