#pragma once
// A JSON Schema "pattern" (a plain regular expression) as a GBNF expression for the inside of a
// JSON string: literals, escapes (\d \w \s \D \W \S and escaped punctuation), classes with
// ranges and negation, ".", groups (also "(?:"), alternation, and the quantifiers * + ? {m}
// {m,} {m,n} (a lazy "?" after them changes nothing here). The text generated is a subset of
// what the pattern matches: anchored at both ends, and without the characters a JSON string
// must escape (", \ and controls; \s is a space). Lookarounds, backreferences and the like are
// refused with the offset and the reason.
#include "engine/grammar/grammar.h"
#include <string>
#include <string_view>

namespace hearth::engine {

// Throws GrammarError("pattern, offset N: <reason>").
std::string regex_to_gbnf(std::string_view pattern);

// A GBNF literal for these bytes ("..." with escapes).
std::string gbnf_literal(std::string_view text);

} // namespace hearth::engine
