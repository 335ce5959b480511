#pragma once
// Builds the statement tree of a template from its tokens.
#include "engine/chat/template_ast.h"
#include "engine/chat/template_lexer.h"
#include <vector>

namespace hearth::chat {

// Throws TemplateFailure (located) on a syntax error: an unknown tag, an unclosed
// block, a misplaced token, nesting deeper than the parser allows.
Body parse_template(const std::vector<Token>& tokens);

} // namespace hearth::chat
